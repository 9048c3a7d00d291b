"""Canonical IDs: data-driven cases (tests/resources/canonical_ids.tsv) and resolution rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway import Gateway, InvalidInput
from gateway.backends.embedded import scan_prefixes
from gateway.ids import IdMapper, build_converter
from tests.conftest import DEMO, listed_edges, listed_nodes

CASES = [
    line.split("\t")
    for line in (Path(__file__).parent / "resources" / "canonical_ids.tsv").read_text().splitlines()
    if line and not line.startswith("#")
]


@pytest.fixture(scope="module")
def ids() -> IdMapper:
    return IdMapper(build_converter(scan_prefixes(DEMO)))


@pytest.mark.parametrize(("given", "expected"), CASES, ids=[c[0].strip() for c in CASES])
def test_every_form_maps_to_one_canonical_id(ids: IdMapper, given: str, expected: str) -> None:
    resolution = ids.resolve(given, "seeds[0]")
    assert resolution.iri is not None, resolution.reason
    assert ids.to_id(resolution.iri) == expected


def test_an_unknown_prefix_is_an_iri_of_its_own_scheme(ids: IdMapper) -> None:
    """An ID the gateway returns whole (`javascript:x`, `did:web:x`, `tel:+1`) must come
    back: with no prefix of its name it is taken as the IRI it is, and said so."""
    for given in ("nosuch:thing", "javascript:alert(1)", "did:example:123", "tel:+1-555-0100", "geo:48.2,16.3"):
        assert ids.resolve(given, "seeds[0]").iri == given
        assert not ids.knows_prefix(given.split(":")[0])
    assert ids.knows_prefix("wiki") and ids.knows_prefix("WIKI")
    assert ids.resolve("nosuch:a thing", "seeds[0]").iri is None  # no IRI either: the prefix is said
    assert "unknown prefix" in (ids.resolve("nosuch:a thing", "seeds[0]").reason or "")


def test_a_misspelt_prefix_is_told_with_the_real_ones(ids: IdMapper) -> None:
    found = ids.resolve("rell:Knows", "predicates[0]", allow_local_name=True)  # as predicates and types are read
    assert "unknown prefix 'rell' (did you mean rel?)" in (found.reason or "")
    assert ids.near_prefixes("zzzzqq") == []


def test_the_datas_spelling_of_a_known_namespace_wins() -> None:
    """schema.org published over http://: with the data's @prefix line IDs expand to it,
    and the data's own prefix name is read too; without one, the map's spelling stays and
    `spellings` offers the other (tried by the tools before they call an ID absent)."""
    declared = IdMapper(build_converter({"sdo": "http://schema.org/"}))
    assert declared.resolve("schema:Monday", "id").iri == "http://schema.org/Monday"
    assert declared.resolve("sdo:Monday", "id").iri == "http://schema.org/Monday"
    assert declared.to_id("http://schema.org/Monday") == declared.to_id("https://schema.org/Monday") == "schema:Monday"
    plain = IdMapper(build_converter({}))
    assert plain.resolve("schema:Monday", "id").iri == "https://schema.org/Monday"
    assert plain.spellings("https://schema.org/Monday") == ["http://schema.org/Monday"]
    assert plain.spellings("https://example.org/x") == []


def test_bare_local_names_resolve_only_when_unambiguous(ids: IdMapper) -> None:
    ids.register_local_names(["https://a.example/Person", "https://b.example/Person", "https://a.example/Place"])
    assert ids.resolve("Place", "types", allow_local_name=True).iri == "https://a.example/Place"
    assert ids.resolve("place", "types", allow_local_name=True).iri == "https://a.example/Place"
    ambiguous = ids.resolve("Person", "types", allow_local_name=True)
    assert ambiguous.iri is None and "ambiguous" in (ambiguous.reason or "")
    assert ids.resolve("Place", "seeds").iri is None  # entities need a real ID


@pytest.mark.parametrize("bad", ["", "   ", 42, None, "x" * 5000])
def test_non_ids_are_invalid_input_naming_the_field(ids: IdMapper, bad: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        ids.resolve(bad, "seeds[3]")
    assert caught.value.field == "seeds[3]"


def test_url_seed_and_output_are_canonical(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["https://example.org/wiki/Mrs_Hudson"], max_hops=1, topology_only=True)
    assert result.seeds == ["wiki:Mrs_Hudson"]
    assert all(":" in n.id and not n.id.startswith("http") for n in listed_nodes(result))  # type: ignore[union-attr]


def test_predicates_and_types_by_bare_name(demo: Gateway) -> None:
    result = demo.bfs_query(
        seeds=["wiki:Dr_Watson"], max_hops=1, node_filter={"entity_types": ["publication"]},
        edge_filter={"predicates": ["AUTHORED"]},
    )
    assert not result.warnings
    assert {e.predicate for e in listed_edges(result) if e.id} == {"rel:Authored"}  # type: ignore[union-attr]


def test_hallucinated_names_get_did_you_mean(demo: Gateway) -> None:
    result = demo.bfs_query(
        seeds=["wiki:Sherlock_Holms"], max_hops=1, edge_filter={"predicates": ["Posesses"]},
        node_filter={"entity_types": ["Persn"]},
    )
    text = " ".join(result.warnings)
    assert "did you mean rel:Possesses" in text
    assert "did you mean sh:Person" in text
    assert "wiki:Sherlock_Holmes" in text  # the seed suggestion comes from the search index
    assert result.unresolved_seeds == ["wiki:Sherlock_Holms"]


def test_the_datas_empty_prefix_is_its_vocabulary_of_bare_names(tmp_path: Path) -> None:
    graph = tmp_path / "g.ttl"
    graph.write_text(
        "@prefix : <https://vocab.example/> .\n@prefix e: <https://e.example/> .\n"
        "e:aspirin a :drug ; :TREATS e:pain .\ne:pain a :symptom .\n"
    )
    gateway = Gateway.open(graph)
    result = gateway.bfs_query(seeds=["e:aspirin"], max_hops=1, edge_filter={"predicates": ["TREATS"]})
    assert [(e.subject, e.predicate, e.object) for e in listed_edges(result)] == [("e:aspirin", "TREATS", "e:pain")]  # type: ignore[union-attr]
    assert {n.entity_type for n in listed_nodes(result)} == {"drug", "symptom"}  # type: ignore[union-attr]
    assert gateway.context.ids.resolve("TREATS", "predicate").iri == "https://vocab.example/TREATS"
    assert gateway.context.ids.resolve(":TREATS", "predicate").iri in (None, "https://vocab.example/TREATS")


def test_batch_conversion_equals_one_by_one() -> None:
    """`to_ids` takes a shortcut for IRIs in the first one's namespace; it must not change
    any answer: nested namespaces (obo/ and obo/HP_), the vocabulary, unknown IRIs."""
    import random

    extra = {"": "http://vocab.example/", "t": "http://t.example/t/", "tt": "http://t.example/t/x/"}
    mapper = IdMapper(build_converter(extra), vocabulary=extra[""])
    pool = [
        "http://t.example/t/1", "http://t.example/t/x/2", "http://t.example/t/x", "http://vocab.example/AUTHORED",
        "http://purl.obolibrary.org/obo/HP_0001250", "http://purl.obolibrary.org/obo/NCBITaxon_9606",
        "http://purl.obolibrary.org/obo/foo", "http://unknown.example/a", "urn:isbn:123", "https://omim.org/entry/1",
    ]
    rng = random.Random(5)
    for _ in range(300):
        iris = [rng.choice(pool) for _ in range(rng.randint(0, 8))]
        assert IdMapper(build_converter(extra), vocabulary=extra[""]).to_ids(iris) == [mapper.to_id(i) for i in iris], iris



def test_batch_conversion_keeps_a_vocabulary_inside_a_namespace_met() -> None:
    """A vocabulary no prefix names, inside a namespace met before, still gives bare names."""
    mapper = IdMapper(build_converter({"ex": "http://ex.example/"}), vocabulary="http://ex.example/v/")
    iris = ["http://ex.example/a", "http://ex.example/v/Person", "http://ex.example/v/b/c"]
    assert mapper.to_ids(iris) == ["ex:a", "Person", "ex:v/b/c"]

def test_the_id_cache_is_bounded_and_answers_stay_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-running server maps every IRI it answers with: the cache starts again past its
    size, so memory stays bounded, and no ID changes (an `id_map` made before keeps its own)."""
    import gateway.ids

    monkeypatch.setattr(gateway.ids, "ID_CACHE_SIZE", 50)
    extra = {"t": "http://t.example/t/"}
    mapper = IdMapper(build_converter(extra))
    early = mapper.id_map([f"http://t.example/t/{i}" for i in range(40)])
    iris = [f"http://t.example/t/{i}" for i in range(500)] + [f"http://unknown.example/{i}" for i in range(500)]
    assert [mapper.to_id(i) for i in iris] == [f"t:{i}" for i in range(500)] + iris[500:]
    assert mapper.cached <= 50
    assert early == {f"http://t.example/t/{i}": f"t:{i}" for i in range(40)}
    # An IRI missing from a map is mapped on lookup (a walk's predicates, mapped lazily).
    assert early["http://t.example/t/p"] == "t:p" and early["http://unknown.example/x"] == "http://unknown.example/x"


def test_a_namespace_the_data_does_not_name_gets_the_registry_prefix(ids: IdMapper) -> None:
    """Prefixes neither the project nor the data gives come from the prefix registry
    (`prefixmaps`' merged map), read from its own CSV."""
    import csv
    import importlib.resources

    with (importlib.resources.files("prefixmaps") / "data" / "merged.csv").open(encoding="utf-8") as handle:
        registry = {row["prefix"]: row["namespace"] for row in csv.DictReader(handle) if row["status"] == "canonical"}
    for prefix in ("dcat", "ssn", "sosa", "org", "qudt"):
        namespace = registry[prefix]
        assert ids.resolve(f"{prefix}:Thing", "id").iri == namespace + "Thing"
        assert ids.to_id(namespace + "Thing") == f"{prefix}:Thing"


def test_the_registry_never_names_a_whole_site_an_example_domain_or_a_uri_scheme(ids: IdMapper) -> None:
    for iri in ("https://w3id.org/bfsql/hpo#has_phenotype", "http://aksw.org/Thing", "http://example.org/a",
                "http://www.example.com/x/y"):
        assert ids.to_id(iri) == iri
    for given in ("did:example:123", "geo:48.2,16.3", "urn:isbn:0451450523", "doi:10.1000/182"):
        assert ids.resolve(given, "id").iri == given


def test_a_prefix_the_data_declares_in_triples_names_its_namespace(tmp_path: Path) -> None:
    """`vann:preferredNamespacePrefix` and SHACL's `sh:declare`, in N-Triples (no @prefix
    lines), rank above the registry and below a file's own @prefix lines."""
    vann, sh = "http://purl.org/vocab/vann/", "http://www.w3.org/ns/shacl#"
    path = tmp_path / "declared.nt"
    path.write_text(
        f'<http://data.example/onto> <{vann}preferredNamespacePrefix> "mine" .\n'
        f'<http://data.example/onto> <{vann}preferredNamespaceUri> "http://data.example/onto#" .\n'
        f'<http://data.example/onto> <{sh}declare> _:d .\n'
        f'_:d <{sh}prefix> "dcat" .\n'
        f'_:d <{sh}namespace> "http://data.example/catalogue/"^^<http://www.w3.org/2001/XMLSchema#anyURI> .\n'
        f'<http://data.example/onto#Thing> <http://www.w3.org/2000/01/rdf-schema#label> "Thing" .\n', encoding="utf-8")
    gateway = Gateway.open(path)
    assert gateway.describe_entity("mine:Thing").id == "mine:Thing"
    assert gateway.ids.resolve("dcat:Catalog", "id").iri == "http://data.example/catalogue/Catalog"


def test_a_full_iri_is_standardized_as_curies_does(ids: IdMapper) -> None:
    """An IRI written in a prefix's other spelling (a URI prefix synonym of the default
    prefix map) resolves to the standard IRI: the same as `Converter.standardize_uri`, the
    oracle, which `resolve` no longer calls (it rebuilt the prefix map on every call)."""
    converter = ids.converter
    # Every spelling of the prefixes that have several, and a few hundred of the others
    # (the oracle takes over a millisecond an IRI).
    records = [r for r in converter.records if r.uri_prefix_synonyms] + converter.records[:300]
    given = [f"{form}X_1" for record in records
             for form in (record.uri_prefix, *record.uri_prefix_synonyms)
             if form.split(":", 1)[0] in ("http", "https") and "://" in form and "#" not in form[:-1] and " " not in form]
    given.append("https://nowhere.example/unknown/X_1")
    assert sum(1 for record in converter.records if record.uri_prefix_synonyms) >= 5  # the synonyms are exercised
    for iri in given:
        assert ids.resolve(iri, "seeds[0]").iri == (converter.standardize_uri(iri) or iri), iri
