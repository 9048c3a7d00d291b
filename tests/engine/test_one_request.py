"""A 2-hop walk over RDF 1.2 statements is one request over HTTP where nothing cuts it.

`oxigraph serve` holds the demo graph (reifiers, statuses, positions, reifier-only
statements, a statement about a statement), the medlit bundle imported, and random RDF 1.2
graphs (support/synth.py). Every walk is asked twice of the same endpoint: through the
gateway, and through the same gateway with the one-request path turned off (the hop-by-hop
plan, the oracle: each hop, then the types, then the seeds' spellings). The answers must
be the same; the requests are counted, after a first call has read what a gateway reads
once (the bookkeeping predicates, whether the graph has reifiers and types).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gateway import Gateway
from support.servers import OxigraphServer, VirtuosoServer
from support.synth import random_graph
from tests.conftest import DEMO, DEMO_GRAPHS, random_filters, shared_data

DEMO_SEEDS = ["wiki:Sherlock_Holmes", "wiki:Irene_Adler", "wiki:Dr_Watson", "wiki:Odessa", "obj:photograph",
              "wiki:King_of_Bohemia", "wiki:Godfrey_Norton", "wiki:Briony_Lodge"]
MEDLIT_SEEDS = ["RxNorm:3251", "DBPedia:Cushing's_disease", "MeSH:D003480"]
ALL = ["asserted_true", "asserted_false", "disputed", "hypothetical", "retracted"]


class Counted:
    """A gateway over an endpoint, and the same gateway walking hop by hop; requests counted."""

    def __init__(self, url: str, first: str, **connect: Any) -> None:
        self.one = Gateway.connect(url, cache_ttl=0, **connect)
        self.by_hop = Gateway.connect(url, cache_ttl=0, **connect)
        off: Callable[..., None] = lambda *args, **kwargs: None  # noqa: E731
        self.by_hop.context.profile.two_hop_statements = off  # type: ignore[method-assign]
        self.by_hop.context.profile.two_hop_lines = off  # type: ignore[method-assign]
        self.log: dict[str, list[str]] = {"one": [], "by_hop": []}
        for name, gateway in (("one", self.one), ("by_hop", self.by_hop)):
            gateway.backend.query_log = lambda text, rows, log=self.log[name]: log.append(text)  # type: ignore[attr-defined]
            gateway.bfs_query(seeds=[first], max_hops=2)  # what a gateway reads once

    def walk(self, **call: Any) -> tuple[dict[str, Any], int, int]:
        """(the answer, the requests it took, those hop by hop), after checking the answers agree."""
        answers, counts = {}, {}
        for name, gateway in (("one", self.one), ("by_hop", self.by_hop)):
            self.log[name].clear()
            answers[name] = gateway.bfs_query(**call).model_dump()
            counts[name] = len(self.log[name])
        assert answers["one"] == answers["by_hop"], call
        return answers["one"], counts["one"], counts["by_hop"]


@pytest.fixture(scope="module")
def demo_prefixes() -> dict[str, str]:
    return Gateway.open(DEMO).describe_schema().prefixes


@pytest.fixture(scope="module")
def demo(oxigraph_server: OxigraphServer, demo_prefixes: dict[str, str]) -> Counted:
    return Counted(oxigraph_server.url, DEMO_SEEDS[0], prefixes=demo_prefixes)


def test_an_uncut_two_hop_walk_over_statements_is_one_request(demo: Counted) -> None:
    walked = 0
    for seed in DEMO_SEEDS:
        answer, one, by_hop = demo.walk(seeds=[seed], max_hops=2, topology_only=True)
        if not answer["truncated"] and answer["node_count"] > 1:
            walked += 1
            assert (one, by_hop) == (1, 3), seed  # hop by hop: each hop, then the types
    assert walked >= 5


def test_filters_budgets_and_detail_answer_as_hop_by_hop(demo: Counted) -> None:
    """Filters, directions, budgets that cut at either hop, full items, several seeds: the
    same answers as hop by hop, never more requests."""
    calls: list[dict[str, Any]] = [
        {"truth_status": ALL}, {"truth_status": ["disputed", "hypothetical"]}, {"direction": "out"},
        {"direction": "in", "truth_status": ALL}, {"as_of": 40}, {"valid_at": 1890, "truth_status": ALL},
        {"max_edges": 3}, {"max_nodes": 4}, {"max_edges": 12, "max_nodes": 9}, {"topology_only": False},
        {"predicates": ["Knows", "Possesses"]}, {"exclude_predicates": ["Knows"], "truth_status": ALL},
        {"layout": "compact"},
    ]
    for seed in DEMO_SEEDS:
        for extra in calls:
            _, one, by_hop = demo.walk(seeds=[seed], max_hops=2, **extra)
            assert one <= by_hop, (seed, extra)
    _, one, _ = demo.walk(seeds=DEMO_SEEDS[:3], max_hops=2, topology_only=True)
    assert one == 1


def test_the_one_query_reads_the_same_rows_embedded(demo: Counted) -> None:
    """The composed query (not in tests/backends/test_rows.py's list) gives the same rows
    from the embedded store as from `oxigraph serve`."""
    embedded = Gateway.open(DEMO)
    for call in ({"truth_status": ALL}, {"as_of": 40, "direction": "out"}):
        demo.walk(seeds=DEMO_SEEDS[:2], max_hops=2, **call)
        sent = [text for text in demo.log["one"] if text.startswith("# Two BFS hops")]
        assert len(sent) == 1
        local, remote = embedded.backend.select(sent[0])[1], demo.one.backend.select(sent[0])[1]
        assert sorted(map(repr, local)) == sorted(map(repr, remote)) and len(local) > 20


def test_a_seed_not_in_the_graph_and_a_statement_seed(demo: Counted) -> None:
    seeds_tried = (["wiki:Nobody_At_All"], ["wiki:Irene_Adler", "wiki:Nobody_At_All"], ["stmt:s1"], ["stmt:s12"],
                   ["wiki:Street_Loafers"])
    for seeds in seeds_tried:
        answer, _, _ = demo.walk(seeds=seeds, max_hops=2, truth_status=ALL)
        assert answer["seeds"] or answer["unresolved_seeds"]


@pytest.fixture(scope="module")
def medlit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Counted]:
    from gateway.importers.bundle import bundle_prefixes, import_bundle

    trig = tmp_path_factory.mktemp("medlit") / "medlit.trig"
    import_bundle(shared_data("medlit"), trig)
    server = OxigraphServer([trig])
    try:
        yield Counted(server.url, MEDLIT_SEEDS[0], prefixes=bundle_prefixes(trig))
    finally:
        server.stop()


def test_medlit_walks_are_one_request(medlit: Counted) -> None:
    """medlit's seeds have namespaces spelled several ways: whether the other spellings are
    held is asked with the hops."""
    for seed in MEDLIT_SEEDS:
        answer, one, by_hop = medlit.walk(seeds=[seed], max_hops=2, topology_only=True)
        assert not answer["truncated"] and answer["edge_count"] > 10
        assert one == 1 and by_hop >= 3, (seed, one, by_hop)
        medlit.walk(seeds=[seed], max_hops=2, truth_status=ALL, layout="compact")
        medlit.walk(seeds=[seed], max_hops=2, max_edges=40)


def test_a_longer_walk_reads_its_first_two_hops_in_one_request(medlit: Counted, demo: Counted) -> None:
    """A 3-hop walk: its first two hops (with the seeds' spellings) in one request, then the
    third, then the types, where hop by hop takes each hop and the types (and the seeds'
    spellings where the graph holds another spelling's namespace)."""
    for seed in MEDLIT_SEEDS:
        answer, one, by_hop = medlit.walk(seeds=[seed], max_hops=3, topology_only=True)
        assert not answer["truncated"] and answer["hop_counts"][3] > 0
        assert one == 3 and by_hop >= 4, (seed, one, by_hop)
        medlit.walk(seeds=[seed], max_hops=3, truth_status=ALL, max_edges=300)
    for seed in DEMO_SEEDS:
        for extra in ({}, {"truth_status": ALL}, {"max_nodes": 12}, {"topology_only": False}):
            _, one, by_hop = demo.walk(seeds=[seed], max_hops=3, **extra)
            assert one <= by_hop, (seed, extra)


@pytest.mark.parametrize("number", range(4))
def test_random_rdf_1_2_graphs_answer_as_hop_by_hop(number: int, tmp_path: Path) -> None:
    rng = random.Random(5000 + number)
    graph = random_graph(rng, rng.randint(10, 30), rng.randint(30, 90), reified=True)
    path = tmp_path / "graph.nt"
    path.write_text(graph.to_ntriples(), encoding="utf-8")
    server = OxigraphServer([path])
    try:
        # Entities and statements: a statement seed leads on to its own ends.
        nodes = sorted({n for st in graph.statements for n in (st.s, st.o, st.id) if n is not None})
        counted = Counted(server.url, nodes[0])
        single = 0
        for _ in range(12):
            seeds = rng.sample(nodes, k=rng.choice([1, 1, 2]))
            call = {"seeds": seeds, "max_hops": rng.choice([2, 2, 3]), "topology_only": rng.random() < 0.5,
                    **random_filters(rng)}
            if rng.random() < 0.3:
                call["max_edges"] = rng.randint(1, 15)
            answer, one, by_hop = counted.walk(**call)
            assert one <= by_hop
            single += one == 1 and not answer["truncated"] and "max_edges" not in call
        assert single  # the one-request path was taken, not only its fall-backs
    finally:
        server.stop()


def test_a_plain_walk_asks_about_the_seeds_spellings_with_its_hops(tmp_path: Path) -> None:
    """Plain typed data in a namespace spelled several ways (DBpedia's): whether the seeds'
    other spellings are held is asked with the hops, so the walk stays one request."""
    rng = random.Random(11)
    entity = "http://dbpedia.org/resource/E{}".format
    lines = [f"<{entity(rng.randrange(40))}> <http://example.org/p{rng.randrange(3)}> <{entity(rng.randrange(40))}> ."
             for _ in range(120)]
    lines += [f"<{entity(i)}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/T{i % 3}> ."
              for i in range(40)]
    # Another spelling of a seed, held only as an object (no data of its own: no synonym).
    lines.append(f"<{entity(1)}> <http://example.org/p0> <https://dbpedia.org/resource/E2> .")
    path = tmp_path / "plain.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    server = OxigraphServer([path])
    try:
        counted = Counted(server.url, entity(0))
        for seed in (entity(2), entity(5), entity(7)):
            answer, one, by_hop = counted.walk(seeds=[seed], max_hops=2, topology_only=True)
            assert not answer["truncated"] and answer["edge_count"] > 5
            assert (one, by_hop) == (1, 4), seed  # hop by hop: each hop, the types, the spellings
    finally:
        server.stop()


def test_virtuoso_walks_hop_by_hop(virtuoso_server: VirtuosoServer, demo: Counted, demo_prefixes: dict[str, str]) -> None:
    """Virtuoso 7 plans the one query badly: its walks stay hop by hop, with the same answers."""
    gateway = Gateway.connect(virtuoso_server.url, profile="reification", prefixes=demo_prefixes,
                              graphs=list(DEMO_GRAPHS), cache_ttl=0)
    log: list[str] = []
    gateway.backend.query_log = lambda text, rows: log.append(text)  # type: ignore[attr-defined]
    gateway.bfs_query(seeds=[DEMO_SEEDS[0]], max_hops=2)
    for seed in DEMO_SEEDS[:3]:
        log.clear()
        answer = gateway.bfs_query(seeds=[seed], max_hops=2, topology_only=True).model_dump()
        assert answer == demo.walk(seeds=[seed], max_hops=2, topology_only=True)[0]
        assert len(log) >= 3 and not any("Two BFS hops" in text for text in log)
