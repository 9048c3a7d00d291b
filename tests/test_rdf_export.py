"""Answers as RDF: `to_rdflib(gw)` and `to_oxigraph(gw)` hold what the answer says, and the
graph they give, opened again and walked from the same seeds, gives the same nodes and
edges (the demo, random graphs in every direction with random filters and traits, a
Wikidata export); what a statement carries is checked against the source data itself."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib

from gateway import Gateway, InvalidInput
from gateway.models import Subgraph
from support.synth import random_graph
from tests.conftest import DEMO, ROOT, listed_edges, listed_nodes, random_filters, shared_data

ALL = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
BFS = "https://w3id.org/bfsql#"
RDF = rdflib.RDF
FULL_WALKS: list[dict[str, Any]] = [
    {"seeds": ["wiki:Dr_Watson"], "max_hops": 2, "truth_status": ALL},
    {"seeds": ["wiki:Dr_Watson"], "max_hops": 2},
    {"seeds": ["stmt:s12"], "max_hops": 2},
    {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ["hypothetical", "disputed"]},
    {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ALL, "layout": "compact"},
    {"seeds": ["wiki:Nonconformist_Clergyman"], "max_hops": 2, "expand_traits": ["Inverse"], "direction": "out"},
    {"seeds": ["wiki:Godfrey_Norton"], "max_hops": 2, "expand_traits": ["Symmetric", "Inverse"], "truth_status": ALL},
    {"seeds": ["wiki:Dr_Watson"], "max_hops": 2, "valid_at": 1890},
    {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2, "as_of": 450, "truth_status": ALL, "direction": "in"},
]
STUB_WALKS: list[dict[str, Any]] = [
    {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "topology_only": True},
    {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "topology_only": True, "layout": "compact", "as_of": 485},
    {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3, "node_filter": {"entity_types": ["sh:Person"]},
     "edge_filter": {"predicates": ["Possesses"]}},
]


@pytest.fixture(scope="module")
def demo() -> Gateway:
    return Gateway.open(DEMO)


def node_edge_sets(result: Subgraph) -> tuple[set[str], set[tuple[str, str, str, str | None]]]:
    if result.layout == "compact":
        nodes = {n for members in result.nodes.values() for n in members} | {n.id for n in result.node_details or []}  # type: ignore[union-attr]
        edges = {(s, p, o, None) for s, ps in result.edges.items() for p, os in ps.items() for o in os}  # type: ignore[union-attr]
        edges |= {(e.subject, e.predicate, e.object, e.derived_via) for e in result.edge_details or []}
        edges |= {(s, p, o, via) for s, p, o, via in result.derived_edges or []}
        return nodes, edges
    return {n.id for n in listed_nodes(result)}, {(e.subject, e.predicate, e.object, e.derived_via) for e in listed_edges(result)}


def reopened(result: Subgraph, gateway: Gateway, side: str) -> Gateway:
    """The answer's RDF opened as a graph of its own."""
    if side == "rdflib":
        return Gateway.open(result.to_rdflib(gateway))
    store = ox.Store()
    store.extend(result.to_oxigraph(gateway))
    return Gateway.open(store, profile="auto", prefixes=dict(gateway.backend.prefixes))  # quads carry no prefixes


# -- round trips --------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["rdflib", "oxigraph"])
@pytest.mark.parametrize("walk", FULL_WALKS, ids=range(len(FULL_WALKS)))
def test_a_full_answer_walks_again_to_itself(demo: Gateway, walk: dict[str, Any], side: str) -> None:
    """Full items carry every statement's data: the walk over the answer's RDF lists the
    same nodes and edges, with the same data (hidden_by_filter aside: the hidden
    statements are not in the answer; nor is the text in other languages that a node's
    `other_languages` names as left out)."""
    result = demo.bfs_query(**walk)
    assert result.edge_count > 3
    again = reopened(result, demo, side)
    assert again.profile.name == ("reification" if side == "rdflib" else "native")
    echo = again.bfs_query(**walk)
    keys = ("nodes", "edges", "node_details", "edge_details", "derived_edges", "hop_counts", "node_count", "edge_count")
    assert without_other_languages({k: echo.model_dump().get(k) for k in keys}) == \
        without_other_languages({k: result.model_dump().get(k) for k in keys})


def without_other_languages(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_other_languages(v) for k, v in value.items() if k != "other_languages"}
    if isinstance(value, list):
        return [without_other_languages(v) for v in value]
    return value


@pytest.mark.parametrize("side", ["rdflib", "oxigraph"])
@pytest.mark.parametrize("walk", STUB_WALKS, ids=range(len(STUB_WALKS)))
def test_stubs_walk_again_to_the_same_nodes_and_edges(demo: Gateway, walk: dict[str, Any], side: str) -> None:
    result = demo.bfs_query(**walk)
    assert node_edge_sets(reopened(result, demo, side).bfs_query(**walk)) == node_edge_sets(result)


@pytest.mark.parametrize("number", range(40))
def test_random_walks_walk_again_to_themselves(number: int) -> None:
    """Random graphs (parallel, unasserted and meta statements, traits) and random walks:
    the answer's RDF, through rdflib and through pyoxigraph, walks to the same sets."""
    rng = random.Random(number)
    graph = random_graph(rng, rng.randint(4, 20), rng.randint(5, 40), reified=number % 4 != 0, meta_fraction=0.15)
    store = ox.Store()
    store.load(graph.to_ntriples().encode(), format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store)
    nodes = sorted({st.s for st in graph.statements})
    for _ in range(3):
        walk = {"seeds": rng.sample(nodes, k=min(2, len(nodes))), "max_hops": rng.randint(1, 3),
                "direction": rng.choice(["both", "out", "in"]), **random_filters(rng)}
        if rng.random() < 0.4:
            walk["expand_traits"] = rng.sample(["Symmetric", "Inverse"], k=rng.randint(1, 2))
        result = gateway.bfs_query(**walk)
        for side in ("rdflib", "oxigraph"):
            assert node_edge_sets(reopened(result, gateway, side).bfs_query(**walk)) == node_edge_sets(result), (walk, side)


def test_a_wikidata_walk_walks_again_to_itself() -> None:
    gateway = Gateway.open(shared_data("wikidata", "Q42.ttl"), profile="auto")
    for walk in ({"seeds": ["wd:Q42"], "max_hops": 1}, {"seeds": ["wd:Q42"], "max_hops": 1, "valid_at": 1980}):
        result = gateway.bfs_query(**walk)
        again = reopened(result, gateway, "rdflib")
        assert again.profile.name == "reification"  # no rank is written: see gateway/rdf_export.py
        assert node_edge_sets(again.bfs_query(**walk)) == node_edge_sets(result)


def test_times_read_as_they_were_written() -> None:
    """Dates and date-times come back typed, so as_of and valid_at cut as before."""
    data = """@prefix ex: <http://example.org/> .
@prefix bfs: <https://w3id.org/bfsql#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:p ex:b ~ ex:s1 {| bfs:assertedAt "2020-01-02"^^xsd:date ; bfs:validFrom "2019-05-01T10:00:00Z"^^xsd:dateTime |} .
ex:a ex:p ex:c ~ ex:s2 {| bfs:assertedAt "2021-06-30"^^xsd:date ; bfs:validUntil "2018-01-01"^^xsd:date |} .
ex:b ex:q ex:d ~ ex:s3 {| bfs:assertedAt 7 |} .
"""
    store = ox.Store()
    store.load(data.encode(), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(store, prefixes={"ex": "http://example.org/"})
    everything = gateway.bfs_query(seeds=["ex:a"], max_hops=2)
    graph = everything.to_rdflib(gateway)
    assert graph.value(rdflib.URIRef("http://example.org/s1"), rdflib.URIRef(BFS + "validFrom")).datatype == rdflib.XSD.dateTime
    again = Gateway.open(graph)
    for walk in ({"as_of": "2020-12-31"}, {"valid_at": "2019-06-01"}, {"valid_at": "2017-06-01", "as_of": "2022-01-01"}):
        expected = gateway.bfs_query(seeds=["ex:a"], max_hops=2, **walk)
        assert node_edge_sets(again.bfs_query(seeds=["ex:a"], max_hops=2, **walk)) == node_edge_sets(expected), walk


# -- what is written -----------------------------------------------------------------------------
STATEMENT_TERMS = ("assertedAt", "validFrom", "validUntil", "confidence", "extractionMethod")


def test_statements_carry_the_source_data(demo: Gateway) -> None:
    """Each statement's reification holds its status, times, confidence and method as the
    demo's own reifier holds them (read from the store directly), its base triple only
    when it is asserted_true, and its provenance as the answer shows it."""
    source = ox.Store()
    source.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    result = demo.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=2, truth_status=ALL)
    graph = result.to_rdflib(demo)
    statements = [e for e in listed_edges(result) if e.id]
    assert len(statements) > 20 and {e.truth_status for e in statements} == set(ALL)
    for edge in statements:
        reifier = rdflib.URIRef(demo.ids.resolve(edge.id, "id").iri)  # type: ignore[arg-type]
        s, p, o = (graph.value(reifier, RDF[part]) for part in ("subject", "predicate", "object"))
        assert (reifier, RDF.type, RDF.Statement) in graph and None not in (s, p, o)
        written = {str(pred)[len(BFS):]: obj for pred, obj in graph.predicate_objects(reifier)}
        stated = {q.predicate.value[len(BFS):]: q.object
                  for q in source.quads_for_pattern(ox.NamedNode(str(reifier)), None, None)}
        status = stated.get("truthStatus")
        assert str(written["truthStatus"]) == (status.value if status else BFS + edge.truth_status)
        assert ({k: _value(v.toPython()) for k, v in written.items() if k in STATEMENT_TERMS}
                == {k: _value(v.value) for k, v in stated.items() if k in STATEMENT_TERMS}), edge.id
        held_true = any(e.truth_status == "asserted_true" for e in statements
                        if (e.subject, e.predicate, e.object) == (edge.subject, edge.predicate, edge.object))
        assert ((s, p, o) in graph) is held_true  # a parallel statement may hold its triple true
        provenance = {demo.ids.to_id(str(pred)): sorted(str(v) for v in graph.objects(reifier, pred))
                      for pred in set(graph.predicates(reifier)) if demo.ids.to_id(str(pred)) in (edge.provenance or {})}
        assert provenance == {k: sorted(str(v) for v in values) for k, values in (edge.provenance or {}).items()}


def _value(value: object) -> object:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)


def test_the_oxigraph_side_writes_rdf_1_2_reifiers(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, truth_status=ALL)
    quads = result.to_oxigraph(demo)
    reifies = [q for q in quads if q.predicate.value.endswith("#reifies")]
    assert len(reifies) == len({e.id for e in listed_edges(result) if e.id}) > 3
    assert all(isinstance(q.object, ox.Triple) and isinstance(q.graph_name, ox.DefaultGraph) for q in reifies)
    assert not any(q.object == ox.NamedNode(str(RDF.Statement)) for q in quads)


def test_the_layouts_say_the_same(demo: Gateway) -> None:
    walk = {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ALL, "expand_traits": ["Symmetric"]}
    default, compact = demo.bfs_query(**walk), demo.bfs_query(**walk, layout="compact")
    assert set(default.to_rdflib(demo)) == set(compact.to_rdflib(demo))
    assert set(default.to_oxigraph(demo)) == set(compact.to_oxigraph(demo))


def test_a_compact_label_cut_short_is_left_out(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=1, topology_only=True, layout="compact")
    labels = {n: label for members in result.nodes.values() for n, label in members.items() if label}  # type: ignore[union-attr]
    graph = result.to_rdflib(demo)
    written = {str(o) for o in graph.objects(None, rdflib.RDFS.label)}
    assert written == {label for label in labels.values() if not label.endswith("…")} and written


def test_describe_entity_as_rdf(demo: Gateway) -> None:
    irene = demo.describe_entity("wiki:Irene_Adler")
    again = Gateway.open(irene.to_rdflib(demo)).describe_entity("wiki:Irene_Adler")
    kept = ("id", "entity_type", "label", "description", "types", "alt_labels", "properties")
    assert again.model_dump(include=set(kept)) == irene.model_dump(include=set(kept))
    statement = demo.describe_entity("stmt:s13")
    graph = statement.to_rdflib(demo)
    reifier = rdflib.URIRef("https://example.org/stmt/s13")
    assert graph.value(reifier, RDF.object) == rdflib.URIRef("https://example.org/stmt/s12")
    assert graph.value(reifier, rdflib.URIRef(BFS + "confidence")) == rdflib.Literal("0.8", datatype=rdflib.XSD.decimal)
    both = demo.describe_entities(["wiki:Irene_Adler", "stmt:s13"]).to_rdflib(demo)
    assert set(both) == set(irene.to_rdflib(demo)) | set(graph)


@pytest.mark.parametrize(("tool", "arguments"), [
    ("scan_query", {"truth_status": ALL, "limit": 1000}),
    ("intersect_subgraphs", {"seeds": ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"], "k": 2, "truth_status": ALL}),
    ("shortest_path", {"source": "wiki:Mrs_Hudson", "target": "wiki:Irene_Adler"}),
])
def test_the_other_answers_as_rdf(demo: Gateway, tool: str, arguments: dict[str, Any]) -> None:
    """Their statements come back as they are: the same statements scanned from the RDF."""
    answer = demo.call(tool, arguments)
    edges = answer.edges  # type: ignore[attr-defined]
    assert edges
    again = Gateway.open(answer.to_rdflib(demo))  # type: ignore[attr-defined]
    scanned = again.scan_query(truth_status=ALL, limit=1000).edges
    def keys(found: list[Any]) -> set[tuple[str | None, str, str, str]]:
        return {(e.id, e.subject, e.predicate, e.object) for e in found}

    assert keys(scanned) >= keys(edges)
    by_id = {e.id: e for e in scanned if e.id}
    assert all(by_id[e.id] == e for e in edges if e.id and not e.open_bounds)


def test_the_data_vocabulary_and_prefixes() -> None:
    """Bare names of the data's own vocabulary (its empty prefix) expand through it, and the
    graph binds the prefixes the answer's IDs use."""
    graph = rdflib.Graph()
    graph.parse(data="""@prefix : <https://example.org/vocab/> .
        @prefix kb: <https://example.org/kb/> .
        kb:ada :wrote kb:notes . kb:notes a :Document .""", format="turtle")
    gateway = Gateway.open(graph)
    result = gateway.bfs_query(seeds=["kb:ada"], max_hops=1)
    assert result.edges[0].predicate == "wrote"  # type: ignore[union-attr]
    written = result.to_rdflib(gateway)
    assert set(written) == set(graph)
    assert ("kb", rdflib.URIRef("https://example.org/kb/")) in set(written.namespaces())


def test_an_id_the_graph_cannot_expand_names_its_field(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1)
    other = Gateway.open(shared_data("wikidata", "small_dump.ttl"))
    with pytest.raises(InvalidInput) as refused:
        result.to_rdflib(other)
    assert refused.value.field == "nodes[0].id" and "wiki" in refused.value.message
    assert set(result.to_rdflib(demo.ids)) == set(result.to_rdflib(demo))  # a mapper does as its gateway


def test_rdflib_stays_optional() -> None:
    """Without rdflib the gateway opens, walks and writes pyoxigraph quads; to_rdflib says
    what to install; and an ordinary run never imports rdflib."""
    script = """
import sys
blocked = sys.argv[1] == "blocked"
if blocked:
    sys.modules["rdflib"] = None  # import rdflib now fails
from gateway import Gateway, NotInstalled
gw = Gateway.open("data/sherlock.trig")
result = gw.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1)
assert len(result.to_oxigraph(gw)) > 10
gw.describe_schema(); gw.search_entities("Irene")
if blocked:
    try:
        result.to_rdflib(gw)
    except ImportError as error:
        assert isinstance(error, NotInstalled) and "bfsql-gateway[rdflib]" in str(error)
    else:
        raise AssertionError("to_rdflib without rdflib")
else:
    assert "rdflib" not in sys.modules, "the gateway imported rdflib"
print("ok")
"""
    for mode in ("blocked", "absent"):
        ran = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert ran.returncode == 0 and ran.stdout.strip() == "ok", ran.stderr
