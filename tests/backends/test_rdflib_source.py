"""`Gateway.open` of an rdflib Graph, Dataset or ConjunctiveGraph answers as the same data
opened directly: real Wikidata exports, the demo in the reification and plain shapes
(every call of the shared suite), readers over named graphs, and terms rdflib holds that
a strict store refuses."""

from __future__ import annotations

import random
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib

from gateway import Gateway, InvalidInput
from gateway.auth import Reader
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.rdflib_source import declared_prefixes, from_rdflib, is_rdflib_graph
from gateway.profiles.reification import PlainProfile, ReificationProfile, native_to_reification
from support.synth import random_graph
from tests.backends.test_shared_suite import ALL, CALLS, PREFIXES, READER_CALLS, _answer
from tests.conftest import CANON, CASEBOOK, SHARED_DATA, demo_plain, demo_reification, shared_data
from tests.test_authorization import random_call

EXPORTS = sorted(p.name for p in (SHARED_DATA / "wikidata").glob("*.ttl")) if (SHARED_DATA / "wikidata").is_dir() else []
# rdflib's own parsers and Graph.parse read the deprecated Dataset.default_context.
pytestmark = pytest.mark.filterwarnings("ignore:Dataset.default_context is deprecated:DeprecationWarning")
LENIENT = {"RdfRepositoryUpdaterIntegrationTest.Q513-munged.ttl"}  # holds the language tag zh-classical
WALKS: list[dict[str, Any]] = [
    {"max_hops": 1},
    {"max_hops": 2, "topology_only": True, "truth_status": ALL},
    {"max_hops": 1, "layout": "compact", "direction": "out"},
    {"max_hops": 2, "valid_at": 1990, "node_filter": {"entity_types": ["wd:Q5"]}},
]


def parsed(path: Path, graph: rdflib.Graph | None = None) -> rdflib.Graph:
    graph = rdflib.Graph() if graph is None else graph
    graph.parse(path)
    return graph


def dataset(nquads: str, kind: type[rdflib.Dataset] | type[rdflib.ConjunctiveGraph] = rdflib.Dataset) -> rdflib.Graph:
    graph = kind()
    graph.parse(data=nquads, format="nquads")
    return graph


def store_of(nquads: str, graphs: tuple[str, ...] | None = None) -> ox.Store:
    """The N-Quads in a store, only the quads of `graphs` ("default" the default graph) when given."""
    store = ox.Store()
    quads = ox.parse(nquads.encode(), format=ox.RdfFormat.N_QUADS)
    store.extend(q for q in quads if graphs is None or _name(q.graph_name) in graphs)
    return store


def _name(graph: object) -> str:
    return "default" if isinstance(graph, ox.DefaultGraph) else str(graph.value)  # type: ignore[attr-defined]


# -- Wikidata exports -------------------------------------------------------------------------
@pytest.mark.parametrize("name", EXPORTS)
def test_a_wikidata_export_answers_as_the_file_does(name: str) -> None:
    path = shared_data("wikidata", name)
    lenient = name in LENIENT
    graph = parsed(path)
    direct = Gateway.open(path, profile="auto", lenient=lenient)
    through = Gateway.open(graph, lenient=lenient)
    assert through.profile is direct.profile
    assert through.load_warnings() == direct.load_warnings()
    found = direct.scan_query(truth_status=ALL, limit=3).edges
    subjects = sorted({str(s) for s in graph.subjects() if isinstance(s, rdflib.URIRef)})
    seeds = sorted({e.subject for e in found} | {e.object for e in found if ":" in e.object})[:3] + subjects[:2]
    for seed in seeds:
        for walk in WALKS:
            expected = direct.bfs_query(seeds=[seed], **walk).model_dump_json()
            assert through.bfs_query(seeds=[seed], **walk).model_dump_json() == expected, (seed, walk)
        assert through.describe_entity(seed).model_dump_json() == direct.describe_entity(seed).model_dump_json()
    schema, expected_schema = through.describe_schema().model_dump(), direct.describe_schema().model_dump()
    # A prefix a file declares and never uses is lost when rdflib bound the same one by itself.
    assert set(schema.pop("prefixes").items()) <= set(expected_schema.pop("prefixes").items())
    assert schema == expected_schema


def test_literals_rdflib_rewrote_read_as_the_file_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """rdflib writes "2013-03-11T00:00:00Z" back as "…+00:00" and "+19460" as "19460"
    unless told not to; the store keeps a typed literal's canonical form, so the answers
    are those of the file either way."""
    path = shared_data("wikidata", "Q42.ttl")
    walk = {"seeds": ["wd:Q42"], "max_hops": 1, "truth_status": ALL}
    normalized = parsed(path)
    assert any(str(o).endswith("+00:00") for o in normalized.objects())
    monkeypatch.setattr(rdflib, "NORMALIZE_LITERALS", False)
    verbatim = parsed(path)
    assert not any(str(o).endswith("+00:00") for o in verbatim.objects())
    expected = Gateway.open(path, profile="auto").bfs_query(**walk).model_dump_json()
    assert "T00:00:00Z" in expected
    for graph in (normalized, verbatim):
        assert Gateway.open(graph).bfs_query(**walk).model_dump_json() == expected


def test_namespace_bindings_are_the_prefixes() -> None:
    graph = rdflib.Graph()
    graph.parse(data="""@prefix : <https://example.org/vocab/> .
        @prefix kb: <https://example.org/kb/> .
        @prefix schema: <https://schema.org/> .
        kb:ada :wrote kb:notes ; a :Person ; schema:name "Ada" .""", format="turtle")
    found = declared_prefixes(graph, {"https://schema.org/"})
    assert found["kb"] == "https://example.org/kb/" and found[""] == "https://example.org/vocab/"
    assert found["schema"] == "https://schema.org/"  # one of rdflib's own, and used
    assert "brick" not in found and "dcat" not in found  # rdflib's own, not used
    gateway = Gateway.open(graph)
    result = gateway.bfs_query(seeds=["kb:ada"], max_hops=1)
    assert [(e.subject, e.predicate, e.object) for e in result.edges] == [("kb:ada", "wrote", "kb:notes")]  # type: ignore[union-attr]
    assert result.nodes[0].entity_type == "Person"  # type: ignore[index,union-attr]
    assert "brick" not in gateway.describe_schema().prefixes


# -- the reification profile's fixtures, named graphs, readers -------------------------------
@pytest.fixture(scope="module")
def reification() -> Gateway:
    return Gateway(EmbeddedBackend.from_store(store_of(demo_reification()), prefixes=PREFIXES), profile=ReificationProfile)


@pytest.fixture(scope="module", params=[rdflib.Dataset, rdflib.ConjunctiveGraph], ids=["Dataset", "ConjunctiveGraph"])
def through_rdflib(request: pytest.FixtureRequest) -> Gateway:
    with pytest.warns(DeprecationWarning) if request.param is rdflib.ConjunctiveGraph else nullcontext():
        graph = dataset(demo_reification(), request.param)
    return Gateway.open(graph, prefixes=PREFIXES)


@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CALLS)])
def test_the_reification_fixture_answers_as_the_file_does(
    reification: Gateway, through_rdflib: Gateway, tool: str, arguments: dict[str, Any]
) -> None:
    assert through_rdflib.profile is ReificationProfile
    assert _answer(through_rdflib, tool, arguments) == _answer(reification, tool, arguments)


def test_the_plain_fixture_answers_as_the_file_does() -> None:
    direct = Gateway(EmbeddedBackend.from_store(store_of(demo_plain()), prefixes=PREFIXES), profile=PlainProfile)
    through = Gateway.open(dataset(demo_plain()), prefixes=PREFIXES)
    assert through.profile is PlainProfile
    for tool, arguments in CALLS:
        assert _answer(through, tool, arguments) == _answer(direct, tool, arguments), (tool, arguments)


def test_named_graphs_are_kept(through_rdflib: Gateway) -> None:
    assert through_rdflib.describe_schema().named_graphs == sorted([CANON, CASEBOOK])
    store = through_rdflib.backend.store  # type: ignore[attr-defined]
    assert set(store) == set(store_of(demo_reification()))


@pytest.mark.parametrize("graphs", [(CANON,), (CASEBOOK,), (CANON, CASEBOOK), ()], ids=["canon", "casebook", "both", "none"])
@pytest.mark.parametrize(("tool", "arguments"), READER_CALLS, ids=[c[0] for c in READER_CALLS])
def test_reader_scopes_are_exact(through_rdflib: Gateway, graphs: tuple[str, ...], tool: str, arguments: dict[str, Any]) -> None:
    """A reader of the rdflib Dataset sees what a store holding only its graphs holds."""
    alone = Gateway(EmbeddedBackend.from_store(store_of(demo_reification(), graphs), prefixes=PREFIXES),
                    profile=ReificationProfile)
    expected = _answer(alone, tool, arguments)
    expected.pop("named_graphs", None)  # describe_schema lists the graphs a reader may read
    answer = _answer_as(through_rdflib, Reader("r", graphs), tool, arguments)
    answer.pop("named_graphs", None)
    assert answer == expected


def _answer_as(gateway: Gateway, reader: Reader, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    dump = gateway.call(tool, arguments, reader=reader).model_dump()
    dump.pop("profile", None)
    return dump


@pytest.mark.parametrize("number", range(12))
def test_random_datasets_keep_reader_scopes(number: int) -> None:
    """Random statements spread over three named graphs and the default graph: a reader's
    walk over the rdflib Dataset equals the walk on a store of its graphs alone."""
    rng = random.Random(number)
    graph = random_graph(rng, rng.randint(5, 20), rng.randint(10, 40), reified=number % 3 != 0)
    names = ["default", *(f"http://graphs.example/g{i}" for i in range(3))]
    lines = native_to_reification(graph.to_ntriples(), format=ox.RdfFormat.N_TRIPLES).splitlines()
    nquads = "".join(_in_graph(line, rng.choice(names)) for line in lines)
    through = Gateway.open(dataset(nquads), profile="reification")
    nodes = sorted({st.s for st in graph.statements} | {st.o for st in graph.statements})
    for _ in range(6):
        readable = tuple(sorted(rng.sample(names, k=rng.randint(1, 3))))
        alone = Gateway.open(store_of(nquads, readable), profile="reification")
        tool, arguments = random_call(rng, nodes)
        assert through.call(tool, arguments, reader=Reader("r", readable)) == alone.call(tool, arguments), (tool, readable)


def _in_graph(line: str, graph: str) -> str:
    return f"{line}\n" if graph == "default" else f"{line.removesuffix(' .')} <{graph}> .\n"


# -- terms -----------------------------------------------------------------------------------
def test_terms_are_converted_one_by_one() -> None:
    ex = rdflib.Namespace("http://example.org/")
    graph = rdflib.Dataset()
    named = graph.graph(ex.g)
    blank = rdflib.BNode("b1")
    graph.add((ex.a, ex.p, blank))
    named.add((blank, ex.q, rdflib.Literal("Grüße\n\"quoted\"", lang="de-AT")))
    named.add((ex.a, ex.n, rdflib.Literal("7", datatype=rdflib.XSD.integer)))
    named.add((ex.a, ex.t, rdflib.Literal("plain")))
    graph.graph(rdflib.BNode("g2")).add((ex.a, ex.d, rdflib.Literal("2020-01-02", datatype=rdflib.XSD.date)))
    store = from_rdflib(graph).store
    g, b = ox.NamedNode("http://example.org/g"), ox.BlankNode("b1")
    assert set(store) == {
        ox.Quad(ox.NamedNode(ex.a), ox.NamedNode(ex.p), b, ox.DefaultGraph()),
        ox.Quad(b, ox.NamedNode(ex.q), ox.Literal("Grüße\n\"quoted\"", language="de-at"), g),
        ox.Quad(ox.NamedNode(ex.a), ox.NamedNode(ex.n), ox.Literal("7", datatype=ox.NamedNode(rdflib.XSD.integer)), g),
        ox.Quad(ox.NamedNode(ex.a), ox.NamedNode(ex.t), ox.Literal("plain"), g),
        ox.Quad(ox.NamedNode(ex.a), ox.NamedNode(ex.d), ox.Literal("2020-01-02", datatype=ox.NamedNode(rdflib.XSD.date)),
                ox.BlankNode("g2")),
    }


def test_what_a_strict_store_refuses_needs_lenient() -> None:
    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("http://example.org/a"), rdflib.RDFS.label, rdflib.Literal("x", lang="zh-classical")))
    with pytest.raises(InvalidInput) as refused:
        Gateway.open(graph)
    assert refused.value.field == "source" and "lenient" in refused.value.message
    kept = Gateway.open(graph, lenient=True)
    assert kept.load_warnings() == ["kept 1 literal(s) with the invalid language tag 'zh-classical' (lenient mode)"]
    (quad,) = kept.backend.store  # type: ignore[attr-defined]
    assert quad.object.language == "zh-classical"


@pytest.mark.parametrize("term", [rdflib.Variable("x"), rdflib.Literal("not a subject")], ids=["variable", "literal"])
def test_a_term_that_is_no_rdf_is_refused(term: Any) -> None:
    graph = rdflib.Graph()
    graph.add((term, rdflib.RDFS.label, rdflib.Literal("x")))
    with pytest.raises(InvalidInput) as refused:
        Gateway.open(graph)
    assert refused.value.field == "source"


def test_only_rdflib_graphs_are_taken_for_them() -> None:
    assert is_rdflib_graph(rdflib.Graph()) and is_rdflib_graph(rdflib.Dataset())
    assert not is_rdflib_graph(ox.Store()) and not is_rdflib_graph("graph.ttl")


def test_a_blank_statement_node_gives_its_full_data() -> None:
    """rdflib code often makes its rdf:Statement nodes blank (`BNode()`)."""
    ex = rdflib.Namespace("http://example.org/")
    graph = rdflib.Graph()
    statement = rdflib.BNode()
    graph.add((ex.a, ex.p, ex.b))
    for part, value in ((rdflib.RDF.type, rdflib.RDF.Statement), (rdflib.RDF.subject, ex.a),
                        (rdflib.RDF.predicate, ex.p), (rdflib.RDF.object, ex.b),
                        (rdflib.URIRef("https://w3id.org/bfsql#confidence"), rdflib.Literal(0.5))):
        graph.add((statement, part, value))
    gateway = Gateway.open(graph)
    assert gateway.bfs_query(seeds=[str(ex.a)], max_hops=1, topology_only=True).edge_count == 1
    assert gateway.bfs_query(seeds=[str(ex.a)], max_hops=1).edges[0].confidence == 0.5  # type: ignore[union-attr]


def test_an_anonymous_rdf12_annotation_gives_its_full_data() -> None:
    """The native shape of the same: a reifier with no name (`{| ... |}`)."""
    store = ox.Store()
    store.load(b'@prefix ex: <http://example.org/> . @prefix bfs: <https://w3id.org/bfsql#> . '
               b'ex:a ex:p ex:b {| bfs:confidence 0.5 ; bfs:truthStatus bfs:disputed |} .', format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(store)
    walk = gateway.bfs_query(seeds=["http://example.org/a"], max_hops=1, truth_status=["disputed"])
    edge = walk.edges[0]
    assert edge.confidence == 0.5 and edge.truth_status == "disputed" and edge.id.startswith("_:")  # type: ignore[union-attr]
    assert gateway.bfs_query(seeds=["http://example.org/a"], max_hops=1).hidden_by_filter == {"truth_status": 1}
