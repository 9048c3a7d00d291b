"""The wikidata profile on real Wikidata RDF (../shared/data/wikidata) and small fixtures.

Expectations come from the files themselves, read with pyoxigraph's triple patterns (no
SPARQL, so not the profile's own templates): the edges of a walk are the entity-valued
`p:P`/`ps:P` statements, reported as `wdt:P` with the statement node as their ID.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.backends.scoped import ScopedBackend
from gateway.errors import InvalidInput
from gateway.models import Edge
from gateway.profiles import detect_profile
from gateway.profiles.base import HopPlan
from gateway.profiles.mwapi import (
    MwapiEntitySearch,
    entity_search_for,
    hits_from_rows,
    is_wikidata_query_service,
)
from gateway.profiles.wikidata import WikidataProfile
from tests.conftest import DEMO, demo_plain, demo_reification, listed_edges, listed_nodes, shared_data

WD = "http://www.wikidata.org/entity/"
WDS = WD + "statement/"
CLAIM = "http://www.wikidata.org/prop/"
PS = CLAIM + "statement/"
WDT = CLAIM + "direct/"
WIKIBASE = "http://wikiba.se/ontology#"
RANK = ox.NamedNode(WIKIBASE + "rank")
DEPRECATED = ox.NamedNode(WIKIBASE + "DeprecatedRank")
ALL_STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]

Q42 = ("wikidata", "Q42.ttl")
Q42_MUNGED = ("wikidata", "RdfRepositoryUpdaterIntegrationTest.Q42-munged.ttl")
Q513 = ("wikidata", "RdfRepositoryUpdaterIntegrationTest.Q513-munged.ttl")
BRENTWOOD = "wd:Q4961791"  # Brentwood School, educated at 1959-1970
ST_JOHNS = "wd:Q691283"  # St John's College, Cambridge, educated at 1971-1974
ST_JOHNS_STATEMENT = WDS + "q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2"
P2021_STATEMENT = "wds:Q42-bf7e1294-4f0f-3511-ab5f-81f47f5c98cb"  # deprecated, literal-valued


# -- opening graphs ------------------------------------------------------------------------
def open_file(parts: tuple[str, str], *, lenient: bool = False, profile: type = WikidataProfile) -> Gateway:
    return Gateway(EmbeddedBackend.open(shared_data(*parts), lenient=lenient), profile=profile)


def open_store(store: ox.Store, prefixes: dict[str, str], profile: type = WikidataProfile) -> Gateway:
    return Gateway(EmbeddedBackend.from_store(store, prefixes=prefixes), profile=profile)


def load(parts: tuple[str, str], *, lenient: bool = False) -> ox.Store:
    store = ox.Store()
    store.load(path=str(shared_data(*parts)), format=ox.RdfFormat.TURTLE, lenient=lenient)
    return store


@pytest.fixture(scope="module")
def q42() -> Gateway:
    return open_file(Q42)


@pytest.fixture(scope="module")
def q42_munged() -> Gateway:
    return open_file(Q42_MUNGED)


@pytest.fixture(scope="module")
def q513() -> Gateway:
    return open_file(Q513, lenient=True)


@pytest.fixture(scope="module")
def deprecated_st_johns() -> Gateway:
    """Q42 with its St John's College statement (item-valued) deprecated, as Wikidata
    would publish it: rank DeprecatedRank, no BestRank type, no truthy wdt: triple."""
    store = load(Q42)
    statement = ox.NamedNode(ST_JOHNS_STATEMENT)
    store.remove(ox.Quad(statement, RANK, ox.NamedNode(WIKIBASE + "NormalRank"), ox.DefaultGraph()))
    store.remove(ox.Quad(statement, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                         ox.NamedNode(WIKIBASE + "BestRank"), ox.DefaultGraph()))
    store.remove(ox.Quad(ox.NamedNode(WD + "Q42"), ox.NamedNode(WDT + "P69"), ox.NamedNode(WD + "Q691283"), ox.DefaultGraph()))
    store.add(ox.Quad(statement, RANK, DEPRECATED, ox.DefaultGraph()))
    return open_store(store, scan_prefixes(shared_data(*Q42)))


# -- the independent expectation --------------------------------------------------------------
def statements_in(store: ox.Store, *, include_deprecated: bool = False) -> set[tuple[str, str, str, str]]:
    """(subject, wdt:P, object, statement) of every entity-valued statement but P31, from triple patterns."""
    found = set()
    for rank in store.quads_for_pattern(None, RANK, None):
        statement = rank.subject
        if rank.object == DEPRECATED and not include_deprecated:
            continue
        for claim in store.quads_for_pattern(None, None, statement):
            name = claim.predicate.value[len(CLAIM):]
            if not claim.predicate.value.startswith(CLAIM) or "/" in name or name == "P31":
                continue
            for value in store.quads_for_pattern(statement, ox.NamedNode(PS + name), None):
                o = value.object
                if isinstance(o, ox.NamedNode) and o.value.startswith(WD) and not o.value.startswith(WDS):
                    found.add((claim.subject.value, WDT + name, o.value, statement.value))
    return found


def expected_ids(gateway: Gateway, statements: set[tuple[str, str, str, str]], node: str) -> set[tuple[str, ...]]:
    to_id = gateway.context.ids.to_id
    return {tuple(map(to_id, s)) for s in statements if node in (s[0], s[2])}


def edge_keys(edges: list[Any]) -> set[tuple[str, ...]]:
    return {(e.subject, e.predicate, e.object, e.id) for e in edges}


def stub_triples(gateway: Gateway, **query: Any) -> set[tuple[str, str, str]]:
    result = gateway.bfs_query(topology_only=True, **query)
    return {(e.subject, e.predicate, e.object) for e in listed_edges(result)}  # type: ignore[union-attr]


def node_ids(nodes: list[Any]) -> set[str]:
    return {n["id"] if isinstance(n, dict) else n.id for n in nodes}


def full_edge(gateway: Gateway, statement: str) -> Edge:
    node = gateway.describe_entity(statement)
    assert node.statement is not None
    return node.statement


# -- statements as edges ---------------------------------------------------------------------
@pytest.mark.parametrize(("parts", "lenient"), [(Q42, False), (Q42_MUNGED, False), (Q513, True)])
def test_one_hop_returns_the_item_valued_statements_as_edges(parts: tuple[str, str], lenient: bool) -> None:
    gateway = open_file(parts, lenient=lenient)
    seed = "wd:Q513" if "Q513" in parts[1] else "wd:Q42"
    expected = expected_ids(gateway, statements_in(load(parts, lenient=lenient)), WD + seed[3:])
    result = gateway.bfs_query(seeds=[seed], max_hops=1)
    assert edge_keys(result.edges) == expected and len(expected) > 10
    assert result.edge_count == len(expected) and result.node_count == 1 + len({e[2] for e in expected})
    assert all(e.predicate.startswith("wdt:P") and e.id.startswith("wds:") for e in listed_edges(result))  # type: ignore[union-attr]


@pytest.mark.parametrize("exclude", [False, True])
def test_a_walk_takes_only_the_predicates_asked_for(exclude: bool) -> None:
    """predicates / exclude_predicates against the statements read from triple patterns."""
    gateway = open_file(Q42)
    every = expected_ids(gateway, statements_in(load(Q42)), WD + "Q42")
    kept = {"wdt:P69", "wdt:P27"}
    if exclude:
        result = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, exclude_predicates=sorted(kept))
        expected = {e for e in every if e[1] not in kept}
    else:
        result = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, predicates=["P69", "wdt:P27"])
        expected = {e for e in every if e[1] in kept}
    assert edge_keys(result.edges) == expected and 0 < len(expected) < len(every)


def test_full_edges_carry_rank_qualifiers_and_references(q42: Gateway) -> None:
    result = q42.bfs_query(seeds=["wd:Q42"], max_hops=1, edge_filter={"predicates": ["wdt:P69"]})
    full = {e.object: e for e in listed_edges(result) if e.truth_status is not None}  # type: ignore[union-attr]
    assert set(full) == {BRENTWOOD, ST_JOHNS}
    st_johns = full[ST_JOHNS]
    assert st_johns.id == "wds:q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2" and st_johns.truth_status == "asserted_true"
    assert (st_johns.valid_from, st_johns.valid_until) == ("1971-01-01T00:00:00Z", "1974-01-01T00:00:00Z")
    assert st_johns.rank == "normal" and st_johns.provenance is None
    qualifiers = st_johns.qualifiers or {}
    assert qualifiers["pq:P580"] == [{"time": "1971-01-01T00:00:00Z", "precision": "year"}]
    assert qualifiers["pq:P812"] == ["wd:Q186579"]
    # Two references (ref:355b..., ref:9177...), each its own group, in reference ID order.
    first, second = st_johns.references or []
    assert first == {"pr:P248": ["wd:Q5375741"]}
    assert second["pr:P854"] == ["http://www.nndb.com/people/731/000023662/"]
    assert second["pr:P813"] == [{"time": "2013-12-07T00:00:00Z", "precision": "day"}]
    assert second["pr:P1476"] == ["Douglas Adams"]  # English, the reader's language: plain text
    # Other edges stay stubs; qualifier values (wd:Q186579) are data, never nodes.
    assert all(e.truth_status is None for e in listed_edges(result) if e.predicate != "wdt:P69")  # type: ignore[union-attr]
    assert "wd:Q186579" not in node_ids(result.nodes)


def test_node_types_come_from_p31_and_p31_is_not_an_edge(q42: Gateway) -> None:
    result = q42.bfs_query(seeds=["wd:Q42"], max_hops=1)
    douglas = next(n for n in listed_nodes(result) if n.id == "wd:Q42")  # type: ignore[union-attr]
    assert douglas.entity_type == "wd:Q5"
    assert "wd:Q5" not in node_ids(result.nodes)
    assert not [e for e in listed_edges(result) if e.predicate == "wdt:P31"]  # type: ignore[union-attr]
    # The literal claims are properties; the truthy wdt: copies are not read twice.
    assert douglas.properties and douglas.properties["wdt:P2048"] == [{"amount": 1.96, "unit": "wd:Q11573"}]  # 1.96 metre
    # A claim with qualifiers keeps them (the media legend, in the wanted language of its 20).
    assert douglas.properties["wdt:P18"] == [{
        "value": "http://commons.wikimedia.org/wiki/Special:FilePath/Douglas%20adams%20portrait%20cropped.jpg",
        "id": "wds:Q42-44889d0f-474c-4fb9-1961-9a3366cbbb9e",
        "qualifiers": {"pq:P2096": ["Portrait of Douglas Adams"]},
    }]
    # Decision: P31 is the type, so it is no edge predicate; naming it says so instead of matching nothing silently.
    named = q42.bfs_query(seeds=["wd:Q42"], max_hops=1, edge_filter={"predicates": ["P31"]}, topology_only=False)
    assert any("P31" in w for w in named.warnings)
    schema = q42.describe_schema()
    assert "wdt:P31" not in {p.id for p in schema.predicates}
    # A Wikidata walk crosses claims only: no schema predicate is offered as walked when named,
    # and naming one says it is there but not crossed (never a silent empty walk).
    assert not [p.id for p in schema.predicates if p.walked_when_named]
    typed = q42.bfs_query(seeds=["wd:Q42"], predicates=["rdf:type"], topology_only=True)
    assert typed.edge_count == 0 and any("'rdf:type': in this graph, but not as a relationship" in w
                                         for w in typed.warnings)
    assert {t.id: t.count for t in schema.entity_types} == {"wd:Q5": 1}
    assert q42.scan_query(node_types=["wd:Q5"]).nodes[0].id == "wd:Q42"  # type: ignore[index]


def test_sitelinks_and_the_dataset_node_are_not_edges(q42: Gateway) -> None:
    nodes = node_ids(q42.bfs_query(seeds=["wd:Q42"], max_hops=1).nodes)
    assert not [n for n in nodes if "wikipedia.org" in n or "wikiquote" in n]


def test_a_statement_node_as_seed_leads_to_its_subject_and_object(q42: Gateway) -> None:
    result = q42.bfs_query(seeds=["wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600"], max_hops=1, topology_only=True)
    assert {(e.predicate, e.object) for e in listed_edges(result)} == {("rdf:subject", "wd:Q42"), ("rdf:object", BRENTWOOD)}  # type: ignore[union-attr]
    statement = q42.describe_entity("wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600")
    assert statement.entity_type == "Statement" and statement.statement is not None
    edge = statement.statement
    assert (edge.subject, edge.predicate, edge.object) == ("wd:Q42", "wdt:P69", BRENTWOOD)


# -- ranks ---------------------------------------------------------------------------------------
def test_deprecated_literal_claims_show_as_retracted_and_hidden_by_default(q42: Gateway, q513: Gateway) -> None:
    douglas = q42.describe_entity("wd:Q42")
    assert douglas.properties is not None and "wdt:P2021" not in douglas.properties
    assert douglas.properties["bfs:retracted"] == [f"wdt:P2021 = 10 ({P2021_STATEMENT})"]
    statement = q42.describe_entity(P2021_STATEMENT)
    assert statement.entity_type == "wikibase:Statement" and statement.properties is not None
    assert statement.properties["bfs:truthStatus"] == ["retracted"]
    assert statement.properties["wikibase:rank"] == ["wikibase:DeprecatedRank"]
    assert statement.properties["ps:P2021"] == [10.0] and statement.properties["rdf:subject"] == ["wd:Q42"]
    assert statement.properties["pq:P3680"] == ["somevalue"]  # a somevalue qualifier (blank node)
    everest = q513.describe_entity("wd:Q513")
    assert everest.properties is not None and "wdt:P2659" not in everest.properties
    assert everest.properties["bfs:retracted"] == ["wdt:P2659 = 40008 (wds:Q513-c79d439b-4b64-dc00-30eb-945cee464df8)"]


def test_a_deprecated_item_statement_is_hidden_counted_and_crossed_when_asked(deprecated_st_johns: Gateway) -> None:
    gateway = deprecated_st_johns
    default = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, topology_only=True)
    ids = node_ids(default.nodes)
    assert ST_JOHNS not in ids and BRENTWOOD in ids
    assert default.hidden_by_filter == {"truth_status": 1}
    wide = gateway.bfs_query(
        seeds=["wd:Q42"], max_hops=1, truth_status=["asserted_true", "retracted"], edge_filter={"predicates": ["P69"]}
    )
    crossed = {e.object: e for e in listed_edges(wide) if e.predicate == "wdt:P69"}  # type: ignore[union-attr]
    assert crossed[ST_JOHNS].truth_status == "retracted" and crossed[BRENTWOOD].truth_status == "asserted_true"
    assert crossed[ST_JOHNS].rank == "deprecated" and crossed[BRENTWOOD].rank == "normal"
    assert wide.hidden_by_filter == {}
    assert gateway.describe_schema().truth_statuses == {"asserted_true": 58, "retracted": 1}
    assert full_edge(gateway, "wds:q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2").truth_status == "retracted"
    counts = {(r.predicate, r.direction): r for r in gateway.describe_entity("wd:Q42").relationships}
    # Counted as a default walk crosses them; the deprecated one is said apart.
    assert counts[("wdt:P69", "out")].count == 1 and counts[("wdt:P69", "out")].other_statuses == {"retracted": 1}
    assert len(gateway.scan_query(edge_predicates=["P69"]).edges) == 1
    assert len(gateway.scan_query(edge_predicates=["P69"], truth_status=["retracted"]).edges) == 1
    closure = gateway.transitive_closure_query(start="wd:Q42", predicate="P69")
    assert closure.reachable == [BRENTWOOD]
    wide_closure = gateway.transitive_closure_query(start="wd:Q42", predicate="P69", truth_status=ALL_STATUSES)
    assert wide_closure.reachable == [BRENTWOOD, ST_JOHNS]


def test_the_deprecated_status_is_configurable(deprecated_st_johns: Gateway) -> None:
    disputed = WikidataProfile.configured(deprecated_status="disputed")
    assert disputed.deprecated_status == "disputed" and WikidataProfile.deprecated_status == "retracted"
    gateway = Gateway(deprecated_st_johns.backend, profile=disputed)
    assert gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, topology_only=True).hidden_by_filter == {"truth_status": 1}
    for statuses, crossed in ((["asserted_true", "retracted"], False), (["asserted_true", "disputed"], True)):
        ids = node_ids(gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, topology_only=True, truth_status=statuses).nodes)
        assert (ST_JOHNS in ids) is crossed
    hits, _ = gateway.context.profile.hop([WD + "Q42"], HopPlan(truth_status=frozenset(ALL_STATUSES)), 1000)
    assert {h.status for h in hits if h.stmt == ST_JOHNS_STATEMENT} == {"disputed"}
    with pytest.raises(InvalidInput):
        WikidataProfile.configured(deprecated_status="wrong")


def test_a_configured_deprecated_status_shows_in_full_data_scans_and_schema(deprecated_st_johns: Gateway) -> None:
    gateway = Gateway(deprecated_st_johns.backend, profile=WikidataProfile.configured(deprecated_status="disputed"))
    assert full_edge(gateway, "wds:q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2").truth_status == "disputed"
    assert len(gateway.scan_query(edge_predicates=["P69"], truth_status=["disputed"]).edges) == 1
    assert gateway.describe_schema().truth_statuses == {"asserted_true": 58, "disputed": 1}


# -- valid_at -------------------------------------------------------------------------------------
DATE_POINT = pytest.param("1972-06-01", ST_JOHNS, id="a day against date-time values")


@pytest.mark.parametrize(("valid_at", "school"), [(1960, BRENTWOOD), (1972, ST_JOHNS), DATE_POINT])
def test_valid_at_crosses_only_the_school_in_force(q42: Gateway, valid_at: object, school: str) -> None:
    edges = stub_triples(q42, seeds=["wd:Q42"], max_hops=1, valid_at=valid_at)
    assert {o for _, p, o in edges if p == "wdt:P69"} == {school}
    result = q42.bfs_query(seeds=["wd:Q42"], max_hops=1, valid_at=valid_at, topology_only=True)
    assert result.hidden_by_filter.get("valid_at", 0) >= 1
    scanned = q42.scan_query(edge_predicates=["wdt:P69"], valid_at=valid_at)
    assert [e.object for e in listed_edges(scanned)] == [school]


def test_valid_at_range_and_no_as_of(q42: Gateway) -> None:
    schema = q42.describe_schema()
    assert schema.valid_at_range is not None and schema.as_of_range is None
    assert str(schema.valid_at_range.min).startswith("1957") and schema.statements.without_asserted_at == schema.statements.total
    # as_of never hides a Wikidata statement: there are no assertion positions.
    assert q42.bfs_query(seeds=["wd:Q42"], max_hops=1, as_of=1, topology_only=True).edge_count == 59


# -- labels, the lenient file, IDs ------------------------------------------------------------------
@pytest.mark.parametrize("parts", [Q42, Q42_MUNGED])
def test_labels_descriptions_and_aliases_in_english(parts: tuple[str, str]) -> None:
    douglas = open_file(parts).describe_entity("https://www.wikidata.org/wiki/Q42")
    assert douglas.id == "wd:Q42" and douglas.label == "Douglas Adams"
    assert douglas.description in ("English author and humourist (1952–2001)", "English writer and humorist")
    assert douglas.alt_labels and "Douglas Noël Adams" in douglas.alt_labels


def test_label_falls_back_to_other_languages() -> None:
    gateway = fixture_gateway()
    assert gateway.describe_entity("wd:Q102").label == "Little One"  # only en-gb
    assert gateway.describe_entity("wd:Q101").label == "Ehegatte"  # only de and fr: the first by language
    assert gateway.describe_entity("wd:Q100").label == "Parent"


def test_the_zh_classical_file_loads_leniently_with_everything_kept(q513: Gateway) -> None:
    report = q513.backend.report  # type: ignore[attr-defined]
    assert report.quads == 2154 and report.invalid_language_tags == {"zh-classical": 1}
    store = q513.backend.store  # type: ignore[attr-defined]
    labels = [
        q.object
        for q in store.quads_for_pattern(
            ox.NamedNode(WD + "Q513"), ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), None
        )
    ]
    assert "珠穆朗瑪峰" in {label.value for label in labels if label.language == "zh-classical"}
    everest = q513.describe_entity("wd:Q513")
    assert everest.label == "Mount Everest" and everest.entity_type in ("wd:Q570116", "wd:Q8502")
    assert q513.search_entities("Mount Everest").results[0].id == "wd:Q513"


def test_every_form_of_an_entity_id_is_one_id(q42: Gateway) -> None:
    forms = [
        "https://www.wikidata.org/wiki/Q42",
        "http://www.wikidata.org/entity/Q42",
        "https://www.wikidata.org/entity/Q42",
        "wd:Q42",
        "WD:Q42",
        "<http://www.wikidata.org/entity/Q42>",
    ]
    for form in forms:
        assert q42.bfs_query(seeds=[form], max_hops=0).seeds == ["wd:Q42"]
    described = q42.describe_entities(forms)
    assert [e.id for e in described.entities] == ["wd:Q42"] and described.unresolved == []
    # Its data document is another node (tests/test_ids_distinct.py).
    assert q42.describe_entity("https://www.wikidata.org/wiki/Special:EntityData/Q42").id == "data:Q42"


@pytest.mark.parametrize("name", ["P69", "wdt:P69", "http://www.wikidata.org/prop/direct/P69", "p69"])
def test_properties_by_curie_or_bare_name(q42: Gateway, name: str) -> None:
    result = q42.bfs_query(seeds=["wd:Q42"], max_hops=1, edge_filter={"predicates": [name]})
    assert result.warnings == []
    assert {e.object for e in listed_edges(result) if e.truth_status} == {BRENTWOOD, ST_JOHNS}  # type: ignore[union-attr]
    scanned = q42.scan_query(edge_predicates=[name])
    assert {e.object for e in listed_edges(scanned)} == {BRENTWOOD, ST_JOHNS} and scanned.warnings == []


# -- the other tools --------------------------------------------------------------------------------
def test_scan_pages_through_every_edge_statement(q42: Gateway) -> None:
    expected = expected_ids(q42, statements_in(load(Q42)), WD + "Q42")
    seen: list[tuple[str, ...]] = []
    cursor = None
    while True:
        page = q42.scan_query(limit=25, cursor=cursor) if cursor else q42.scan_query(limit=25)
        seen += [(e.subject, e.predicate, e.object, e.id) for e in listed_edges(page)]
        cursor = page.next_cursor
        if not cursor:
            break
    assert set(seen) == expected and len(seen) == len(expected)


def test_closure_and_shortest_path_on_real_data(q42: Gateway) -> None:
    occupations = q42.transitive_closure_query(start="wd:Q42", predicate="P106")
    assert occupations.count == 8 and occupations.method == "per_level"
    writers = q42.transitive_closure_query(start="wd:Q36180", predicate="wdt:P106", direction="in")
    assert writers.reachable == ["wd:Q42"]
    path = q42.shortest_path(source=BRENTWOOD, target=ST_JOHNS)
    assert path.found and path.hops == 2 and path.nodes == [BRENTWOOD, "wd:Q42", ST_JOHNS]
    assert [e.id for e in listed_edges(path)] == [
        "wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600",
        "wds:q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2",
    ]
    assert not q42.shortest_path(source=BRENTWOOD, target=ST_JOHNS, valid_at=1960).found


def test_intersect_and_communities_run(q42: Gateway) -> None:
    common = q42.intersect_subgraphs(seeds=[BRENTWOOD, ST_JOHNS], k=1)
    assert "wd:Q42" in node_ids(common.nodes)
    assert q42.communities(seeds=["wd:Q42"], max_hops=1).node_count == 56


def test_search_finds_entities_not_sitelinks(q42: Gateway) -> None:
    hits = q42.search_entities("Douglas Adams").results
    assert hits[0].id == "wd:Q42" and hits[0].match == "exact_label" and hits[0].entity_type == "wd:Q5"
    assert all(h.id.startswith("wd:") for h in hits)
    assert q42.search_entities("Douglas Noël Adams").results[0].match == "alt_label"


# -- traits, somevalue, novalue, predicate labels: a small fixture ---------------------------------------
FIXTURE = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wds: <http://www.wikidata.org/entity/statement/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix wdno: <http://www.wikidata.org/prop/novalue/> .

wd:P26 a wikibase:Property ; rdfs:label "spouse"@en ; wikibase:directClaim wdt:P26 ; p:P31 wds:t1 .
wds:t1 wikibase:rank wikibase:NormalRank ; ps:P31 wd:Q18647518 .
wd:P40 a wikibase:Property ; rdfs:label "child"@en, "Kind"@de ; wikibase:directClaim wdt:P40 ; p:P1696 wds:t2 .
wds:t2 wikibase:rank wikibase:NormalRank ; ps:P1696 wd:P22 .
wd:P22 a wikibase:Property ; rdfs:label "father"@en ; wikibase:directClaim wdt:P22 .
wd:P279 a wikibase:Property ; rdfs:label "subclass of"@en ; wikibase:directClaim wdt:P279 ; p:P31 wds:t3 , wds:t4 .
wds:t3 wikibase:rank wikibase:NormalRank ; ps:P31 wd:Q18647515 .
wds:t4 wikibase:rank wikibase:DeprecatedRank ; ps:P31 wd:Q18647518 .

wd:Q100 rdfs:label "Parent"@en ; p:P26 wds:s1 ; p:P40 wds:s2 ; p:P1038 wds:n1 ; p:P25 wds:n2 ; p:P3373 wds:n3 .
wds:s1 wikibase:rank wikibase:NormalRank ; ps:P26 wd:Q101 .
wds:s2 wikibase:rank wikibase:PreferredRank ; ps:P40 wd:Q102 .
wds:n1 a wikibase:Statement, wdno:P1038 ; wikibase:rank wikibase:NormalRank .
wds:n2 wikibase:rank wikibase:NormalRank ; ps:P25 _:someone .
wds:n3 wikibase:rank wikibase:NormalRank ; ps:P3373 <http://www.wikidata.org/.well-known/genid/0123abc> .
wd:Q101 rdfs:label "Ehegatte"@de, "Époux"@fr .
wd:Q102 rdfs:label "Little One"@en-gb .

wd:Q1 p:P279 wds:c1 . wds:c1 wikibase:rank wikibase:NormalRank ; ps:P279 wd:Q2 .
wd:Q2 p:P279 wds:c2 . wds:c2 wikibase:rank wikibase:NormalRank ; ps:P279 wd:Q3 .
wd:Q3 p:P279 wds:c3 . wds:c3 wikibase:rank wikibase:DeprecatedRank ; ps:P279 wd:Q4 .
wd:Q3 p:P279 wds:c4 . wds:c4 wikibase:rank wikibase:PreferredRank ; ps:P279 wd:Q1 .
"""


def fixture_gateway() -> Gateway:
    store = ox.Store()
    store.load(FIXTURE.encode(), format=ox.RdfFormat.TURTLE)
    return open_store(store, {})


def test_traits_from_property_entities_and_predicate_labels() -> None:
    schema = fixture_gateway().describe_schema()
    assert schema.profile == "wikidata"
    predicates = {p.id: p for p in schema.predicates}
    assert predicates["wdt:P26"].traits == ["Symmetric"] and predicates["wdt:P26"].label == "spouse"
    assert predicates["wdt:P40"].inverse_of == "wdt:P22" and predicates["wdt:P40"].label == "child"
    assert predicates["wdt:P279"].traits == ["Transitive"]  # the deprecated "symmetric" claim does not count
    assert predicates["wdt:P1696"].count == 1  # a property entity's own item-valued statement is an edge too


def test_symmetric_and_inverse_mirrors() -> None:
    gateway = fixture_gateway()
    spouse = gateway.bfs_query(seeds=["wd:Q101"], max_hops=1, direction="out", expand_traits=["Symmetric"], topology_only=True)
    assert [e.model_dump(exclude_none=True) for e in listed_edges(spouse)] == [  # type: ignore[union-attr]
        {"subject": "wd:Q101", "predicate": "wdt:P26", "object": "wd:Q100", "derived_via": "Symmetric(wdt:P26)"}
    ]
    father = gateway.bfs_query(seeds=["wd:Q102"], max_hops=1, direction="out", expand_traits=["Inverse"])
    mirrored = [e for e in listed_edges(father) if e.derived_via]  # type: ignore[union-attr]
    assert [(e.subject, e.predicate, e.object, e.derived_via, e.id) for e in mirrored] == [
        ("wd:Q102", "wdt:P22", "wd:Q100", "Inverse(wdt:P40)", "wds:s2")
    ]


def test_somevalue_and_novalue_are_properties_not_edges() -> None:
    gateway = fixture_gateway()
    parent = gateway.describe_entity("wd:Q100")
    assert parent.properties == {"wdt:P1038": ["novalue"], "wdt:P25": ["somevalue"], "wdt:P3373": ["somevalue"]}
    assert {(r.predicate, r.direction) for r in parent.relationships} == {("wdt:P26", "out"), ("wdt:P40", "out")}
    assert stub_triples(gateway, seeds=["wd:Q100"], max_hops=1) == {
        ("wd:Q100", "wdt:P26", "wd:Q101"),
        ("wd:Q100", "wdt:P40", "wd:Q102"),
    }
    novalue = gateway.describe_entity("wds:n1")
    assert novalue.properties and novalue.properties["wdno:P1038"] == ["novalue"]


def test_closure_is_cycle_safe_and_respects_rank() -> None:
    gateway = fixture_gateway()
    assert gateway.transitive_closure_query(start="wd:Q1", predicate="P279").reachable == ["wd:Q1", "wd:Q2", "wd:Q3"]
    wide = gateway.transitive_closure_query(start="wd:Q1", predicate="P279", truth_status=ALL_STATUSES)
    assert wide.reachable == ["wd:Q1", "wd:Q2", "wd:Q3", "wd:Q4"]
    assert gateway.transitive_closure_query(start="wd:Q4", predicate="P279", direction="in").reachable == []


# -- profile detection -----------------------------------------------------------------------------------
def test_detect_profile() -> None:
    assert detect_profile(EmbeddedBackend.open(shared_data(*Q42))) == "wikidata"
    assert detect_profile(EmbeddedBackend.open(DEMO)) == "native"
    for text, name in ((demo_reification(), "reification"), (demo_plain(), "plain")):
        store = ox.Store()
        store.load(text.encode(), format=ox.RdfFormat.N_QUADS)
        assert detect_profile(EmbeddedBackend.from_store(store)) == name


# -- the SPARQL it sends -------------------------------------------------------------------------------------
def test_every_query_is_plain_sparql_11_and_hops_are_bounded(q42: Gateway) -> None:
    """No RDF 1.2, no LATERAL (Blazegraph and Virtuoso have neither): the native fallbacks
    must never be reached. Hops keep the frontier in VALUES, a LIMIT and no ORDER BY."""
    for path in Path(__file__).resolve().parents[2].joinpath("queries", "wikidata").glob("*.rq"):
        text = without_comments(path.read_text())
        assert "LATERAL" not in text and "<<" not in text and "reifies" not in text, path.name
    gateway = Gateway(q42.backend, profile=WikidataProfile)
    sent: list[str] = []
    backend = gateway.backend
    backend.query_log = lambda text, rows: sent.append(text)  # type: ignore[attr-defined]
    try:
        gateway.bfs_query(seeds=["wd:Q42"], max_hops=2, expand_traits=["Symmetric", "Inverse"], valid_at=1960)
        gateway.describe_entities(["wd:Q42", P2021_STATEMENT, "wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600"])
        gateway.describe_schema()
        gateway.search_entities("Douglas")
        gateway.transitive_closure_query(start="wd:Q42", predicate="P106")
        gateway.scan_query(edge_predicates=["P69"], valid_at=1960)
        gateway.scan_query(node_types=["wd:Q5"])
        gateway.shortest_path(source=BRENTWOOD, target=ST_JOHNS)
    finally:
        backend.query_log = None  # type: ignore[attr-defined]
    assert sent
    for text in map(without_comments, sent):
        assert "LATERAL" not in text and "<<(" not in text and "reifies" not in text and "SUBJECT(" not in text
    hops = [t for t in sent if "?ok_truth" in t]
    assert hops and all("ORDER BY" not in t and "LIMIT" in t and "VALUES ?x" in t for t in hops)


def without_comments(query: str) -> str:
    return "\n".join(line for line in query.splitlines() if not line.lstrip().startswith("#"))


# -- the same answers from Virtuoso 7 and oxigraph serve -------------------------------------------------------
PARITY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("bfs_query", {"seeds": ["wd:Q42"], "max_hops": 1}),
    ("bfs_query", {"seeds": ["wd:Q42"], "max_hops": 1, "valid_at": 1960, "layout": "compact"}),
    ("bfs_query", {"seeds": [BRENTWOOD], "max_hops": 2, "direction": "in", "topology_only": True}),
    ("bfs_query", {"seeds": ["wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600"], "max_hops": 1}),
    ("describe_entities", {"ids": ["wd:Q42", P2021_STATEMENT, "wds:Q42-32490F12-D9B5-498A-91A8-839F9149F600"]}),
    ("search_entities", {"query": "Douglas Adams"}),
    ("transitive_closure_query", {"start": "wd:Q42", "predicate": "P106"}),
    ("scan_query", {"edge_predicates": ["P69"], "valid_at": 1972}),
    ("scan_query", {"limit": 7}),
    ("scan_query", {"node_types": ["wd:Q5"]}),
    ("shortest_path", {"source": BRENTWOOD, "target": ST_JOHNS}),
    ("describe_schema", {}),
]
EXACT = WikidataProfile.configured(counts="exact", entity_search="index")
"""The profile that counts a remote graph whole, as embedded data is counted."""
BOUNDED_ONLY = frozenset({"describe_schema", "search_entities"})
"""Tools whose answers on a remote (bounded) graph come from probes, not counts."""


@pytest.fixture(scope="module")
def remote_q42(wikidata_endpoints: Callable[[str], tuple[str, list[str] | None]]) -> Iterator[Callable[..., Gateway]]:
    """Q42 in a real remote store (tests/conftest.py), as the wikidata profile (bounded by
    default) or another profile class."""
    gateways: list[Gateway] = []
    prefixes = scan_prefixes(shared_data(*Q42))

    def open_(name: str, profile: type = WikidataProfile) -> Gateway:
        url, graphs = wikidata_endpoints(name)
        gateway = Gateway(RemoteBackend(EndpointConfig(url, graphs=graphs, prefixes=prefixes)), profile=profile)
        gateways.append(gateway)
        return gateway

    yield open_
    for gateway in gateways:
        gateway.close()


def _comparable(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> Any:
    dump = gateway.call(tool, arguments).model_dump()
    dump.pop("named_graphs", None)  # the remote store puts the data in a named graph
    return _normalize(dump)


def _normalize(value: Any) -> Any:
    """Virtuoso writes WKT literals as "POINT(...)" where the file has "Point(...)"."""
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, str) and value.upper().startswith("POINT("):
        return value.upper()
    return value


@pytest.mark.parametrize("server", ["virtuoso", "oxigraph"])
@pytest.mark.parametrize("bounded", [False, True], ids=["exact", "bounded"])
def test_remote_stores_give_the_same_answers(
    q42: Gateway, remote_q42: Callable[..., Gateway], server: str, bounded: bool
) -> None:
    """Counted whole, a remote store answers every call as the embedded one; bounded (the
    default for a remote endpoint), every call but the schema and search, which probe."""
    remote = remote_q42(server, WikidataProfile if bounded else EXACT)
    assert remote.context.profile.bounded is bounded
    for tool, arguments in PARITY_CALLS:
        if bounded and tool in BOUNDED_ONLY:
            continue
        assert _comparable(remote, tool, arguments) == _comparable(q42, tool, arguments), (tool, arguments)


# -- search on Wikidata's query service -------------------------------------------------------------------
def _tsv_row(qid: str, ordinal: int, label: str, match: str, type_: str | None) -> str:
    integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    kind = f"<{WD}{type_}>" if type_ else ""
    return f'<{WD}{qid}>\t"{ordinal}"^^{integer}\t"{label}"\t"{match}"\t"{label}"\t{kind}\n'


CANNED_TSV = "?item\t?ordinal\t?label\t?matched\t?matchText\t?type\n" + "".join(
    (
        _tsv_row("Q42", 0, "Douglas Adams", "label", "Q5"),
        _tsv_row("Q28421831", 1, "Douglas Adams", "label", "Q5"),
        _tsv_row("Q21506347", 2, "Douglas Adams Award", "label", "Q618779"),
        _tsv_row("Q21506347", 2, "Douglas Adams Award", "label", "Q4220917"),  # a second P31 value: a second row
        _tsv_row("Q5301558", 3, "Douglas Adams", "alias", None),
    )
)
CANNED_JSON = (
    '{"head": {"vars": ["item", "ordinal", "label", "matched", "matchText", "type"]}, "results": {"bindings": ['
    '{"item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q42"},'
    ' "ordinal": {"type": "literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "0"},'
    ' "label": {"type": "literal", "value": "Douglas Adams"}, "matched": {"type": "literal", "value": "label"},'
    ' "matchText": {"type": "literal", "value": "Douglas Adams"},'
    ' "type": {"type": "uri", "value": "http://www.wikidata.org/entity/Q5"}}]}}'
)


class CannedEndpoint:
    """A local SPARQL endpoint answering every query with one canned body; records the queries."""

    def __init__(self, body: str, content_type: str) -> None:
        self.queries: list[str] = []
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
                canned.queries.append(form.get("query", [""])[0])
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (CANNED_TSV, "text/tab-separated-values; charset=utf-8"),
        (CANNED_JSON, "application/sparql-results+json"),
    ],
)
def test_mwapi_entity_search_against_a_canned_endpoint(body: str, content_type: str) -> None:
    endpoint = CannedEndpoint(body, content_type)
    backend = RemoteBackend(EndpointConfig(endpoint.url, result_format="auto"))
    try:
        to_id = Gateway(backend, profile=WikidataProfile).context.ids.to_id
        hits = MwapiEntitySearch(backend, language="en").search("douglas  ADAMS", None, 10, to_id)
    finally:
        backend.close()
        endpoint.close()
    query = endpoint.queries[0]
    assert 'wikibase:api "EntitySearch"' in query and 'mwapi:search "douglas  ADAMS"' in query
    assert 'mwapi:language "en"' in query and "mwapi:limit 10" in query and "FILTER(?type" not in query
    assert hits[0].id == "wd:Q42" and hits[0].label == "Douglas Adams" and hits[0].entity_type == "wd:Q5"
    if body is CANNED_TSV:
        assert [(h.id, h.match) for h in hits] == [
            ("wd:Q42", "exact_label"),
            ("wd:Q28421831", "exact_label"),
            ("wd:Q5301558", "alt_label"),
            ("wd:Q21506347", "prefix"),
        ]
        assert hits[3].entity_type == "wd:Q4220917"  # one hit per entity, its first type
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_mwapi_query_filters_types_and_escapes(q42: Gateway) -> None:
    search = MwapiEntitySearch(q42.backend, language="en-gb")
    text = search.query('x" } DROP ALL #', {WD + "Q5"}, 500)
    assert 'mwapi:search "x\\" } DROP ALL #"' in text and "mwapi:limit 50" in text
    assert "FILTER(?type IN (<http://www.wikidata.org/entity/Q5>))" in text
    assert search.search("anything", set(), 10, str) == []  # no such type: nothing, no query
    with pytest.raises(ValueError):
        MwapiEntitySearch(q42.backend, language='en" . }')
    assert hits_from_rows([], "x", 5, str) == []


def test_search_is_mwapi_only_on_wikidatas_query_service(q42: Gateway) -> None:
    wikidata = RemoteBackend(EndpointConfig("https://query.wikidata.org/sparql"))
    elsewhere = RemoteBackend(EndpointConfig("https://example.org/sparql"))
    try:
        assert is_wikidata_query_service(wikidata) and is_wikidata_query_service(ScopedBackend(wikidata, ("g",)))
        assert not is_wikidata_query_service(elsewhere) and not is_wikidata_query_service(q42.backend)
        assert isinstance(entity_search_for(wikidata, lambda: "index"), MwapiEntitySearch)
        assert entity_search_for(elsewhere, lambda: "index") == "index"
    finally:
        wikidata.close()
        elsewhere.close()


def test_list_filters_on_wikidata(q42: Gateway) -> None:
    """An empty list is refused; one status and every status answer as they say (ranks:
    preferred and normal are asserted_true, deprecated retracted)."""
    walk = {"seeds": ["wd:Q42"], "max_hops": 1, "topology_only": True}
    with pytest.raises(InvalidInput, match="truth_status"):
        q42.bfs_query(**walk, truth_status=[])
    with pytest.raises(InvalidInput, match="predicates"):
        q42.bfs_query(**walk, predicates=[])
    assert q42.bfs_query(**walk, truth_status=["asserted_true"]).model_dump() == q42.bfs_query(**walk).model_dump()
    every = q42.bfs_query(**walk, truth_status=ALL_STATUSES)
    retracted = q42.bfs_query(**walk, truth_status=["retracted"])
    assert every.edge_count == q42.bfs_query(**walk).edge_count + retracted.edge_count
    assert q42.bfs_query(**walk, predicates=["wdt:P69"]).edge_count == 2  # educated at: two schools
