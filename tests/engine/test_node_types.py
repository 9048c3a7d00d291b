"""Each node's types (`presentation.node_types`) are the IRIs it has for rdf:type, once
each, and bfs:Statement for a reifier, whatever else the data gives for a type (a literal,
a blank-node class, a triple term) and however often (the same triple in two named graphs,
a reifier of two triples). Oracle: the store's own quad index, read through pyoxigraph's
API rather than SPARQL; in process and from `oxigraph serve` over the same file."""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway import Gateway
from gateway.engine.context import GraphContext
from gateway.engine.presentation import node_types
from gateway.profiles.base import types_of_rows
from support.servers import OxigraphServer

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
STATEMENT = "https://w3id.org/bfsql#Statement"
ODD = """
@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:a a ex:Person, ex:Agent, "a literal type", _:restriction ; ex:knows ex:b .
ex:b a <<( ex:a ex:knows ex:b )>> ; ex:knows ex:c .
ex:r rdf:reifies <<( ex:a ex:knows ex:b )>>, <<( ex:b ex:knows ex:c )>> ; a ex:Claim, ex:Claim .
GRAPH ex:g1 { ex:a a ex:Person . ex:c a ex:Person }
GRAPH ex:g2 { ex:c a ex:Person , ex:Agent }
"""


def _files(tmp: Path) -> dict[str, Path]:
    odd = tmp / "odd.trig"
    odd.write_text(ODD, encoding="utf-8")
    return {"odd cases": odd, "schema.org": Path(str(importlib.resources.files("pyshacl") / "assets" / "schema.ttl"))}


def _oracle(path: Path) -> dict[str, set[str]]:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TRIG if path.suffix == ".trig" else ox.RdfFormat.TURTLE)
    found: dict[str, set[str]] = {}
    for quad in store.quads_for_pattern(None, ox.NamedNode(RDF + "type"), None):
        if isinstance(quad.subject, ox.NamedNode) and isinstance(quad.object, ox.NamedNode):
            found.setdefault(quad.subject.value, set()).add(quad.object.value)
    for quad in store.quads_for_pattern(None, ox.NamedNode(RDF + "reifies"), None):
        if isinstance(quad.subject, ox.NamedNode):
            found.setdefault(quad.subject.value, set()).add(STATEMENT)
    return found


@pytest.fixture(scope="module", params=["odd cases", "schema.org"])
def case(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, OxigraphServer]]:
    path = _files(tmp_path_factory.mktemp("types"))[request.param]
    server = OxigraphServer([path])
    yield path, server
    server.stop()


@pytest.mark.parametrize("where", ["in process", "oxigraph serve"])
def test_types_are_the_iris_once_each(case: tuple[Path, OxigraphServer], where: str) -> None:
    path, server = case
    expected = _oracle(path)
    gateway = Gateway.open(path) if where == "in process" else Gateway.connect(server.url)
    ctx: GraphContext = gateway.context
    subjects = sorted({*expected, "http://example.org/nothing"})
    found = node_types(ctx, subjects)
    assert {node: set(kinds) for node, kinds in found.items() if kinds} == expected
    assert all(len(kinds) == len(set(kinds)) for kinds in found.values())


_NODES = st.sampled_from(["http://example.org/a", "http://example.org/b", "http://example.org/c", "http://example.org/d"])
_KINDS = st.sampled_from(["http://example.org/A", "http://example.org/B", "http://example.org/C"])
_OTHER = st.sampled_from(
    ['"a literal"', "_:class", "<<( <http://example.org/a> <http://example.org/p> <http://example.org/b> )>>"])


@given(st.lists(st.tuples(_NODES, st.one_of(_KINDS.map(lambda k: f"<{k}>"), _OTHER)), max_size=12))
def test_types_of_rows_read_each_node_s_iri_types_in_order_once(rows: list[tuple[str, str]]) -> None:
    """`types_of_rows` against the plain reading: each node's IRI types in the order its
    rows give them, once each; nodes of the same types in one shared list."""
    expected: dict[str, list[str]] = {}
    for node, kind in rows:
        if kind.startswith("<") and not kind.startswith("<<") and kind[1:-1] not in expected.setdefault(node, []):
            expected[node].append(kind[1:-1])
    found = types_of_rows([f"<{node}>\t{kind}" for node, kind in rows])
    assert found == {node: kinds for node, kinds in expected.items() if kinds}
    assert len({id(kinds) for kinds in found.values()}) == len({tuple(kinds) for kinds in found.values()})
