"""bfs_query against the raw SPARQL it issues and against one query per frontier node.

For every scenario (graph, seed class, hops, budget) and every seed, three things are
timed side by side, interleaved and in rotating order:

(a) ``gateway``: ``gw.bfs_query(seeds=[seed], max_hops=h, topology_only=True, ...)``;
(b) ``raw``: exactly the SPARQL texts (a) issued, captured through
    ``backend.query_log``, re-run on the store and serialized as TSV, times summed;
(c) ``naive``: the same budgeted BFS issuing two queries per frontier node (out- and
    inbound neighbours), the way simple BFS-QL implementations walk a store;
(d) ``floor``: the same budgeted BFS over integer CSR arrays in numpy, ending with the
    CURIE strings of its nodes and edges (`support.csr`): what Python must at least spend.

Each seed first gets one untimed bfs_query (it fills the gateway's caches, such as
IRI -> CURIE, and captures the queries (b) replays).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field

import pyoxigraph as ox

from bench import data
from bench.data import Graph
from gateway import Gateway, Settings
from support.csr import Csr
from support.synth import ENTITY, PREDICATE, STATEMENT

PREFIXES = {"e": ENTITY, "p": PREDICATE, "s": STATEMENT}
TSV = ox.QueryResultsFormat.TSV


@dataclass(frozen=True)
class Budget:
    name: str
    max_nodes: int
    max_edges: int


DEFAULT = Budget("default", Settings.default_max_nodes, Settings.default_max_edges)
"""What a call that names no budget gets."""
MAX = Budget("max", Settings.max_nodes, Settings.max_edges)
"""The most a caller may ask for (the `Settings` caps, not raised)."""


@dataclass(frozen=True)
class Scenario:
    seed_class: str
    hops: int
    budget: Budget


SCENARIOS: tuple[Scenario, ...] = tuple(
    Scenario(seed_class, hops, budget)
    for budget in (DEFAULT, MAX)
    for hops, classes in ((1, ("low", "median", "hub")), (2, ("low", "median", "hub")), (3, ("median", "hub")))
    for seed_class in classes
)


@dataclass
class Outcome:
    """What one seed's walk returned (the same on every repetition)."""

    nodes: int
    edges: int
    truncated: bool
    reached: int
    """The deepest hop the walk reached (less than asked when a budget stopped it)."""
    queries: int
    naive_nodes: int
    naive_edges: int
    naive_queries: int
    floor_nodes: int = 0
    floor_edges: int = 0


@dataclass
class Result:
    graph: str
    scenario: Scenario
    outcomes: list[Outcome] = field(default_factory=list)
    gateway: list[float] = field(default_factory=list)
    """Seconds per sample, one sample per seed and repetition; `raw` and `naive` alike."""
    raw: list[float] = field(default_factory=list)
    naive: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    reps: int = 0


# -- (c) one query per frontier node -------------------------------------------------
# rdf:type is left out, as the gateway does: a class node is not a neighbour.
_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_OUT = "SELECT ?p ?o WHERE {{ <{x}> ?p ?o FILTER(isIRI(?o) && ?p != " + _RDF_TYPE + ") }} LIMIT {limit}"
_IN = "SELECT ?s ?p WHERE {{ ?s ?p <{x}> FILTER(isIRI(?s) && ?p != " + _RDF_TYPE + ") }} LIMIT {limit}"


def naive_bfs(store: ox.Store, seed: str, max_hops: int, max_nodes: int, max_edges: int) -> tuple[int, int, int]:
    """(nodes, edges, queries) of a BFS asking the in-process store for each frontier node's neighbours."""

    def fetch(query: str) -> list[tuple[str, str]]:
        return [(row[0].value, row[1].value) for row in store.query(query, use_default_graph_as_union=True)]  # type: ignore[union-attr,index]

    return per_node_walk(fetch, seed, max_hops, max_nodes, max_edges)


def per_node_walk(
    fetch: Callable[[str], list[tuple[str, str]]], seed: str, max_hops: int, max_nodes: int, max_edges: int,
    *, pool: Executor | None = None, in_flight: int = 1,
) -> tuple[int, int, int]:
    """(nodes, edges, queries) of a BFS that sends one query per frontier node and direction.

    Budgets follow `gateway.engine.walk`: an edge to a new node is dropped once `max_nodes` is
    reached and the walk ends with that hop; it stops at once at `max_edges`. Each query
    has `LIMIT` edges-left + 1. With a `pool`, the queries of `in_flight` frontier nodes are
    sent at once (their answers admitted in frontier order; every query sent is counted;
    the LIMIT is the edges left when they are sent, so a cut walk may keep other edges).
    """
    hops = {seed: 0}
    edges: set[tuple[str, str, str]] = set()
    frontier = [seed]
    queries = 0
    full = False

    def query(x: str, template: str) -> str:
        return template.format(x=x, limit=max_edges - len(edges) + 1)

    for hop in range(max_hops):
        if full:
            break
        next_frontier: list[str] = []
        for start in range(0, len(frontier), in_flight):
            asked = [(x, template, outward) for x in frontier[start : start + in_flight]
                     for template, outward in ((_OUT, True), (_IN, False))]
            if pool is None:
                answers: Iterable[list[tuple[str, str]]] = (fetch(query(x, t)) for x, t, _ in asked)
            else:
                answers = pool.map(fetch, [query(x, t) for x, t, _ in asked])
                queries += len(asked)
            for (x, _, outward), rows in zip(asked, answers):
                queries += pool is None
                for first, second in rows:
                    key, other = ((x, first, second), second) if outward else ((first, second, x), first)
                    if key in edges:
                        continue
                    if len(edges) >= max_edges:
                        return len(hops), len(edges), queries
                    if other not in hops:
                        if len(hops) >= max_nodes:
                            full = True
                            continue
                        hops[other] = hop + 1
                        next_frontier.append(other)
                    edges.add(key)
        frontier = next_frontier
    return len(hops), len(edges), queries


# -- one seed, three ways ------------------------------------------------------------
class Runner:
    """A gateway over one loaded store, with the query log wired to a list, and the same
    graph's CSR floor. Seeds are integers: `seed_id` makes the gateway's ID of one,
    `seed_iri` the IRI the one-query-per-node walk starts from."""

    def __init__(
        self, name: str, store: ox.Store, csr: Csr, *, prefixes: dict[str, str] | None = None,
        seed_id: Callable[[int], str] = lambda n: f"e:{n}", seed_iri: Callable[[int], str] = lambda n: f"{ENTITY}{n}",
    ) -> None:
        self.name = name
        self.store = store
        self.csr = csr
        self.seed_id, self.seed_iri = seed_id, seed_iri
        self.gw = Gateway.open(store, prefixes=PREFIXES if prefixes is None else prefixes)
        self.log: list[str] = []
        self.gw.backend.query_log = lambda text, rows: self.log.append(text)  # type: ignore[attr-defined]

    @classmethod
    def for_graph(cls, graph: Graph) -> Runner:
        """A generated graph: entities e:N, predicates p:K."""
        return cls(graph.spec.name, graph.store, Csr(data.edges(graph.spec), lambda n: f"e:{n}", lambda k: f"p:{k}"))

    def first_call(self, seed: int) -> float:
        """Seconds of the first bfs_query, which also reads what the profile caches."""
        started = time.perf_counter()
        self.gw.bfs_query(seeds=[self.seed_id(seed)], max_hops=1, topology_only=True)
        return time.perf_counter() - started

    def gateway(self, seed: int, s: Scenario) -> tuple[float, Outcome]:
        self.log.clear()
        started = time.perf_counter()
        out = self.gw.bfs_query(
            seeds=[self.seed_id(seed)], max_hops=s.hops, topology_only=True,
            max_nodes=s.budget.max_nodes, max_edges=s.budget.max_edges,
        )
        elapsed = time.perf_counter() - started
        return elapsed, Outcome(out.node_count, out.edge_count, out.truncated, len(out.hop_counts) - 1, len(self.log), 0, 0, 0)

    def raw(self, queries: list[str]) -> float:
        total = 0.0
        for text in queries:
            started = time.perf_counter()
            self.store.query(text, use_default_graph_as_union=True).serialize(format=TSV)  # type: ignore[union-attr]
            total += time.perf_counter() - started
        return total

    def naive(self, seed: int, s: Scenario) -> tuple[float, tuple[int, int, int]]:
        started = time.perf_counter()
        found = naive_bfs(self.store, self.seed_iri(seed), s.hops, s.budget.max_nodes, s.budget.max_edges)
        return time.perf_counter() - started, found


    def floor(self, seed: int, s: Scenario) -> tuple[float, tuple[int, int]]:
        started = time.perf_counter()
        nodes, edges = self.csr.bfs(seed, s.hops, s.budget.max_nodes, s.budget.max_edges)
        return time.perf_counter() - started, (len(nodes), len(edges))


def measure(
    runner: Runner, scenario: Scenario, seeds: list[int], *, reps: int, seconds: float,
    progress: Callable[[str], None] = print,
) -> Result:
    """One untimed bfs_query per seed, then up to `reps` interleaved repetitions of all
    seeds: fewer (never under one) when the next one would end past `seconds`."""
    result = Result(runner.name, scenario)
    queries: dict[int, list[str]] = {}
    for seed in seeds:
        _, outcome = runner.gateway(seed, scenario)
        queries[seed] = list(runner.log)
        result.outcomes.append(outcome)
    orders = ("abcd", "bcda", "cdab", "dabc")
    started = time.perf_counter()
    while result.reps < reps:
        elapsed = time.perf_counter() - started
        if result.reps and elapsed * (result.reps + 1) / result.reps > seconds:
            break
        for i, (seed, outcome) in enumerate(zip(seeds, result.outcomes, strict=True)):
            for step in orders[(result.reps + i) % 4]:
                if step == "a":
                    result.gateway.append(runner.gateway(seed, scenario)[0])
                elif step == "b":
                    result.raw.append(runner.raw(queries[seed]))
                elif step == "d":
                    elapsed_floor, (outcome.floor_nodes, outcome.floor_edges) = runner.floor(seed, scenario)
                    result.floor.append(elapsed_floor)
                else:
                    elapsed_naive, found = runner.naive(seed, scenario)
                    result.naive.append(elapsed_naive)
                    outcome.naive_nodes, outcome.naive_edges, outcome.naive_queries = found
        result.reps += 1
    progress(
        f"  {result.graph:8} {scenario.hops} hop {scenario.seed_class:6} {scenario.budget.name:7} "
        f"gateway {ms(statistics.median(result.gateway))} ms, raw {ms(statistics.median(result.raw))} ms, "
        f"naive {ms(statistics.median(result.naive))} ms, floor {ms(statistics.median(result.floor))} ms ({result.reps} reps x {len(seeds)} seeds)"
    )
    return result


def ms(seconds: float) -> str:
    value = seconds * 1e3
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"
