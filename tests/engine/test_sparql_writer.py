"""gateway/sparql.py: the only place IRIs become SPARQL text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.sparql import iri, iris, writable


def test_iris_writes_values_and_in_lists() -> None:
    assert iris(["http://a.example/x", "http://a.example/y"]) == "<http://a.example/x> <http://a.example/y>"
    assert iris(["http://a.example/x", "urn:y"], ", ") == "<http://a.example/x>, <urn:y>"
    assert iris([]) == ""
    assert iris(iter(["urn:z"])) == iri("urn:z")


@pytest.mark.parametrize("bad", ["urn:a> } DELETE { ?s ?p ?o", "urn:a b", "urn:<a"])
@pytest.mark.parametrize("at", [0, 1, 5])
def test_an_unchecked_value_anywhere_in_the_list_is_refused(bad: str, at: int) -> None:
    values = [f"urn:ok{i}" for i in range(6)]
    values[at] = bad
    with pytest.raises(ValueError, match="unchecked IRI"):
        iris(values)


def _render_by_regex(text: str, on: set[str], slots: dict[str, str]) -> str:
    """The templates' grammar applied directly, section by section, on every render: the
    oracle for `render`, which resolves each template once per set of flags."""
    import re

    section = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
    while True:
        text, count = section.subn(lambda m: m.group(3) if (m.group(2) in on) == (m.group(1) == "#") else "", text)
        if not count:
            break
    return re.sub(r"\{\{(\w+)\}\}", lambda m: slots[m.group(1)], text)


def test_every_template_renders_as_its_grammar_says_under_every_set_of_flags() -> None:
    import itertools
    import re

    from gateway.resources import resource_dir
    from gateway.sparql import Sparql, render, template

    root = resource_dir("queries")
    paths = sorted(root.rglob("*.rq"))
    assert len(paths) > 50
    for path in paths:
        name = str(path.relative_to(root).with_suffix(""))
        text = template(name)
        flags = sorted(set(re.findall(r"\{\{[#^](\w+)\}\}", text)))[:6]
        slots = {slot: Sparql(f"<urn:slot:{slot}>") for slot in set(re.findall(r"\{\{(\w+)\}\}", text))}
        for count in range(len(flags) + 1):
            for chosen in itertools.combinations(flags, count):
                expected = _render_by_regex(text, set(chosen), slots)
                assert render(name, chosen, **slots) == expected, (name, chosen)
                assert render(name, chosen, **slots) == expected  # the resolved sections, read again


UNWRITABLE = {chr(c) for c in range(0x21)} | set('<>"{}|^`\\')
"""What an IRI written `<...>` may not hold (SPARQL's IRIREF), listed apart from the module."""


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from([*UNWRITABLE, "a", "/", ":", "é", "\ud800", "\x7f", "~", "#", "字"]),
                        max_size=6), max_size=6))
def test_writable_keeps_exactly_the_iris_a_query_can_write_in_order(values: list[str]) -> None:
    assert writable(values) == [v for v in values if not UNWRITABLE & set(v)]
