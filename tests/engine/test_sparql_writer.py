"""gateway/sparql.py: the only place IRIs become SPARQL text."""

from __future__ import annotations

import pytest

from gateway.sparql import iri, iris


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
