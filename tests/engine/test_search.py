"""search_entities: ranking tiers and type filters on the demo graph."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gateway import Gateway


def ranked(demo: Gateway, query: str, **fields: object) -> list[tuple[str, str]]:
    return [(h.id, h.match) for h in demo.search_entities(query, **fields).results]


def test_exact_label_ranks_first_then_synonym_then_prefix_then_text(demo: Gateway) -> None:
    assert ranked(demo, "Irene Adler")[0] == ("wiki:Irene_Adler", "exact_label")
    assert ranked(demo, "the woman")[0] == ("wiki:Irene_Adler", "alt_label")
    assert ranked(demo, "Sherl")[0] == ("wiki:Sherlock_Holmes", "prefix")
    hits = ranked(demo, "photograph")
    matches = [m for _, m in hits]
    assert matches == sorted(matches, key=["exact_label", "alt_label", "prefix", "full_text"].index)
    assert {"obj:photograph", "obj:portrait_of_irene"} <= {i for i, _ in hits}


def test_synonyms_and_descriptions_are_searched(demo: Gateway) -> None:
    assert ranked(demo, "Sign of Four")[0][0] == "wiki:Sign_of_the_Four"
    assert "wiki:Irene_Adler" in [i for i, _ in ranked(demo, "contralto adventuress")]


def test_type_filter_and_limit(demo: Gateway) -> None:
    people = demo.search_entities("Irene", entity_types=["Person"], limit=50)
    assert people.results and all(h.entity_type == "sh:Person" for h in people.results)
    assert len(demo.search_entities("the", limit=2).results) <= 2


def test_no_match_is_an_answer_with_a_warning(demo: Gateway) -> None:
    result = demo.search_entities("zzzqqq")
    assert result.results == [] and result.warnings


def test_an_entity_without_label_or_type_is_found_by_its_readable_local_name(tmp_path: object) -> None:
    """Business data names people by IRI only (a product manager as an object): the
    readable local name is the name; a code (D003480) is no name and is not indexed."""
    from pathlib import Path

    data = Path(str(tmp_path)) / "managers.nt"
    data.write_text(
        "<http://example.org/pv/W9> <http://example.org/pv/hasProductManager> <http://example.org/people/Jane_Doe> .\n"
        "<http://example.org/pv/W10> <http://example.org/pv/hasProductManager> <http://example.org/people/D003480> .\n",
        encoding="utf-8")
    gateway = Gateway.open(data)
    hits = gateway.search_entities("Jane Doe").results
    assert [(h.id, h.match) for h in hits] == [("http://example.org/people/Jane_Doe", "alt_label")]
    assert gateway.search_entities("D003480").results == []


def test_text_values_are_searched_below_names(tmp_path: object) -> None:
    """An address is a literal: "Toulouse" finds the supplier whose address holds it, as
    full text (below any name), and a statement's own data is not searched."""
    from pathlib import Path

    data = Path(str(tmp_path)) / "suppliers.ttl"
    data.write_text(
        "@prefix pv: <http://example.org/pv/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        'pv:Acme a pv:Supplier ; rdfs:label "Acme Components" ; pv:address "12 rue de Metz, 31000 Toulouse" .\n'
        'pv:Toulouse_Depot a pv:Site ; rdfs:label "Toulouse depot" .\n'
        '<< pv:Acme pv:supplies pv:Toulouse_Depot >> pv:note "Toulouse contract" .\n', encoding="utf-8")
    hits = Gateway.open(data).search_entities("Toulouse").results
    assert [(h.id, h.match) for h in hits] == [("pv:Toulouse_Depot", "prefix"), ("pv:Acme", "full_text")]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
       | st.lists(st.sampled_from(["Ab", "'s", "'S", "’s", "s", "'", " ", "-", "_", "9", "É", "ß", "\t", "."]),
                  max_size=8).map("".join))
def test_ascii_names_normalize_as_the_unicode_path_does(text: str) -> None:
    """ASCII takes a short path (a byte table, no regular expression): the same as NFKC,
    case folding and the expressions give."""
    import unicodedata

    from gateway.engine.search import _POSSESSIVE, _PUNCTUATION, normalize

    folded = _POSSESSIVE.sub(r"\1", unicodedata.normalize("NFKC", text).casefold())
    assert normalize(text) == " ".join(_PUNCTUATION.sub(" ", folded).split())
