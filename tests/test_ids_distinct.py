"""Two nodes never share one ID (docs/canonical-ids.md, "One ID, one node").

Wikidata's own dumps hold each item beside its data document
(`https://www.wikidata.org/wiki/Special:EntityData/Q54872`, with schema:about, schema:version,
schema:dateModified... of its own): both are nodes, and each must be shown under an ID that
reaches it back, in every tool. The oracle is the same file read with pyoxigraph."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gateway import Gateway
from gateway.engine.presentation import NAME_PREDICATES
from gateway.ids import IdMapper, build_converter, same_iri
from tests.conftest import shared_data

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
WD = "http://www.wikidata.org/entity/"
DOCUMENT = "https://www.wikidata.org/wiki/Special:EntityData/"


def store_of(path: Path) -> ox.Store:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    return store


def subjects(store: ox.Store) -> list[str]:
    return sorted(str(row["x"].value) for row in store.query("SELECT DISTINCT ?x { ?x ?p ?o FILTER isIRI(?x) }"))


def nodes(store: ox.Store) -> list[str]:
    """Every IRI the file holds as a subject or an object."""
    found = store.query("SELECT DISTINCT ?x { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER isIRI(?x) }")
    return sorted(str(row["x"].value) for row in found)


def expected_description(store: ox.Store, iri: str, to_id: IdMapper) -> tuple[set[str], Counter[tuple[str, str]]]:
    """What describe_entity must show of `iri`, by SPARQL over the file: its literal-valued
    properties (names aside) and its relationships to other IRIs, counted by direction."""
    node = f"<{iri}>"
    literals = {str(r["p"].value) for r in store.query(f"SELECT DISTINCT ?p {{ {node} ?p ?o FILTER isLiteral(?o) }}")}
    out = store.query(f"SELECT ?p {{ {node} ?p ?o FILTER(isIRI(?o) && ?p != <{RDF_TYPE}>) }}")
    into = store.query(f"SELECT ?p {{ ?s ?p {node} FILTER isIRI(?s) }}")
    counts = Counter((to_id.to_id(str(r["p"].value)), "out") for r in out)
    counts.update((to_id.to_id(str(r["p"].value)), "in") for r in into)
    return {to_id.to_id(p) for p in literals - NAME_PREDICATES}, counts


def assert_one_id_one_node(ids: IdMapper, iris: list[str]) -> None:
    """IRI -> ID is one to one but for an IRI's http and https spellings, and each ID
    resolves back to its IRI."""
    by_id: dict[str, str] = {}
    for iri in iris:
        shown = ids.to_id(iri)
        other = by_id.setdefault(shown, iri)
        assert same_iri(other, iri), f"{other} and {iri} are both shown as {shown}"
        back = ids.resolve(shown, "id").iri
        assert back is not None and same_iri(back, iri), (iri, shown, back)


@pytest.fixture(scope="module")
def small_dump() -> tuple[Gateway, ox.Store]:
    path = shared_data("wikidata", "small_dump.ttl")
    return Gateway.open(path), store_of(path)


def test_an_item_and_its_data_document_are_two_nodes(small_dump: tuple[Gateway, ox.Store]) -> None:
    gateway, store = small_dump
    item, document = gateway.ids.to_id(WD + "Q54872"), gateway.ids.to_id(DOCUMENT + "Q54872")
    assert item != document
    about = store.query(f"ASK {{ <{DOCUMENT}Q54872> <http://schema.org/about> <{WD}Q54872> }}")
    assert about  # the file says the document is about the item: two nodes, one edge
    for iri, shown in ((WD + "Q54872", item), (DOCUMENT + "Q54872", document)):
        described = gateway.describe_entity(shown)
        properties, relationships = expected_description(store, iri, gateway.ids)
        assert described.id == shown
        assert set(described.properties or {}) == properties
        assert Counter({(r.predicate, r.direction): r.count for r in described.relationships or []}) == relationships
    assert gateway.bfs_query(seeds=[document], max_hops=0).seeds == [document]
    walk = gateway.bfs_query(seeds=[item], max_hops=1)
    assert walk.seeds == [item] and {n.id for n in walk.nodes} >= {item, document}
    assert {(e.subject, e.object) for e in walk.edges if e.predicate == "schema:about"} >= {(document, item)}


def test_every_node_of_the_dump_has_an_id_of_its_own(small_dump: tuple[Gateway, ox.Store]) -> None:
    gateway, store = small_dump
    assert_one_id_one_node(gateway.ids, nodes(store))
    for iri in subjects(store):
        shown = gateway.ids.to_id(iri)
        described = gateway.describe_entity(shown)
        properties, relationships = expected_description(store, iri, gateway.ids)
        assert described.id == shown and set(described.properties or {}) == properties, iri
        assert Counter({(r.predicate, r.direction): r.count for r in described.relationships or []}) == relationships
        assert gateway.bfs_query(seeds=[shown], max_hops=0).seeds == [shown]


def test_search_results_describe_back_to_themselves(small_dump: tuple[Gateway, ox.Store]) -> None:
    gateway, store = small_dump
    named = store.query("SELECT ?x ?name { ?x <http://schema.org/name> ?name }")
    for row in named:
        hits = gateway.search_entities(str(row["name"].value)).results
        assert hits and hits[0].id == gateway.ids.to_id(str(row["x"].value))
        for hit in hits:
            assert gateway.describe_entity(hit.id).id == hit.id


def test_douglas_adams_and_his_data_document(tmp_path: Path) -> None:
    """Wikidata's full dump of Q42: every subject (the item, its statements, references,
    values, sitelinks and its data document) reaches itself by the ID it is shown as."""
    path = shared_data("wikidata", "Q42.ttl")
    gateway, store = Gateway.open(path), store_of(path)
    assert_one_id_one_node(gateway.ids, nodes(store))
    everything = subjects(store)
    shown = [gateway.ids.to_id(iri) for iri in everything]
    for start in range(0, len(shown), 100):
        described = gateway.describe_entities(shown[start : start + 100])
        assert [e.id for e in described.entities] == shown[start : start + 100] and not described.unresolved
    document = gateway.describe_entity(DOCUMENT + "Q42")
    assert document.id != "wd:Q42" and document.entity_type == "schema:Dataset"
    assert gateway.describe_entity("wd:Q42").label == "Douglas Adams"
    # Its page is no node here: the URL is read as the item's ID.
    assert not store.query("ASK { <https://www.wikidata.org/wiki/Q42> ?p ?o }")
    assert gateway.describe_entity("https://www.wikidata.org/wiki/Q42").id == "wd:Q42"
    assert gateway.bfs_query(seeds=["https://www.wikidata.org/wiki/Q42"], max_hops=0).seeds == ["wd:Q42"]


def test_the_https_spelling_of_an_item_is_still_its_id(tmp_path: Path) -> None:
    """One IRI in two schemes is one entity: the dump rewritten with `https://` items is
    read by the same `wd:` IDs, which reach the items as the data writes them."""
    text = shared_data("wikidata", "small_dump.ttl").read_text(encoding="utf-8")
    https = tmp_path / "https.ttl"
    https.write_text(text.replace(f"@prefix wd: <{WD}>", "@prefix wd: <https://www.wikidata.org/entity/>"),
                     encoding="utf-8")
    gateway, store = Gateway.open(https), store_of(https)
    item = "https://www.wikidata.org/entity/Q54872"
    assert store.query(f"ASK {{ <{item}> ?p ?o }}")
    for written in ("wd:Q54872", item, WD + "Q54872", f"<{WD}Q54872>"):
        assert gateway.describe_entity(written).id == "wd:Q54872"
        assert gateway.bfs_query(seeds=[written], max_hops=0).seeds == ["wd:Q54872"]
    assert gateway.ids.to_id(item) == gateway.ids.to_id(WD + "Q54872") == "wd:Q54872"
    assert gateway.ids.to_id(DOCUMENT + "Q54872") == "data:Q54872"


# -- any IRIs, any prefixes ------------------------------------------------------------------
NAMESPACES = [
    WD, "https://www.wikidata.org/entity/", "https://www.wikidata.org/wiki/", "http://www.wikidata.org/wiki/",
    DOCUMENT, "http://dbpedia.org/resource/", "https://dbpedia.org/resource/", "https://dbpedia.org/page/",
    "http://dbpedia.org/page/", "http://id.nlm.nih.gov/mesh/", "https://id.nlm.nih.gov/mesh/",
    "https://meshb.nlm.nih.gov/record/ui?ui=", "http://purl.uniprot.org/uniprot/", "https://www.uniprot.org/uniprot/",
    "https://orcid.org/", "https://www.orcid.org/", "http://schema.org/", "https://schema.org/",
    "http://purl.obolibrary.org/obo/", "http://purl.obolibrary.org/obo/HP_", "https://example.org/wiki/",
    "data:", "wd:", "urn:x:", "tag:a,2020:",
]
"""Namespaces the project map, the registry or the data spell an ID's several ways, and
URI schemes named like a prefix."""
PREFIX_NAMES = ["data", "wd", "wiki", "dbr", "schema", "obo", "x", "mesh", "urn", "tag"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    declared=st.dictionaries(st.sampled_from(PREFIX_NAMES), st.sampled_from(NAMESPACES), max_size=4),
    vocabulary=st.one_of(st.none(), st.sampled_from(NAMESPACES)),
    iris=st.lists(st.tuples(st.sampled_from(NAMESPACES), st.text("Q1a_:/.-", max_size=4)), min_size=2, max_size=40),
)
def test_any_iris_under_any_prefixes_get_ids_of_their_own(
    declared: dict[str, str], vocabulary: str | None, iris: list[tuple[str, str]],
) -> None:
    ids = IdMapper(build_converter(declared), vocabulary=vocabulary)
    written = [namespace + local for namespace, local in iris]
    valid = []
    for iri in written:
        try:
            ox.NamedNode(iri)
        except ValueError:
            continue
        valid.append(iri)
    assume(len(valid) >= 2)
    assert_one_id_one_node(ids, valid)
    # The batch path (a closure's IDs, by the first one's namespace) shows the same IDs.
    assert IdMapper(ids.converter, vocabulary=vocabulary).to_ids(valid) == [ids.to_id(iri) for iri in valid]


def test_a_page_the_graph_holds_is_its_own_node(tmp_path: Path) -> None:
    """A page about an item, when the graph says things about it, is that node: its whole
    IRI reaches it, and the item's ID still reaches the item (whichever has more data)."""
    page = "https://www.wikidata.org/wiki/Q54872"
    path = tmp_path / "with-page.ttl"
    path.write_text(shared_data("wikidata", "small_dump.ttl").read_text(encoding="utf-8")
                    + f'\n<{page}> <http://schema.org/inLanguage> "en" ; <http://schema.org/about> wd:Q54872 .\n',
                    encoding="utf-8")
    gateway, store = Gateway.open(path), store_of(path)
    assert_one_id_one_node(gateway.ids, nodes(store))
    assert gateway.ids.to_id(page) == page
    for iri, shown in ((page, page), (WD + "Q54872", "wd:Q54872")):
        described = gateway.describe_entity(shown)
        properties, relationships = expected_description(store, iri, gateway.ids)
        assert described.id == shown and set(described.properties or {}) == properties
        assert Counter({(r.predicate, r.direction): r.count for r in described.relationships or []}) == relationships
        assert gateway.bfs_query(seeds=[shown], max_hops=0).seeds == [shown]
