"""Over HTTP a hop read in slices reads the next slice ahead (gateway/engine/walk.py,
`ReadAhead`): the walk must be the one the slices give, read ahead or not, for walks a
budget cuts at any slice; uncut, the same as in process. (A walk whose read was cut by
its LIMIT keeps the rows the store returned first, which differ between stores.)"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.engine import walk
from support.servers import OxigraphServer

E = "http://example.org/e/"
LINKS = [f"http://example.org/p{i}" for i in range(3)]


def hub_graph(rng: random.Random) -> list[str]:
    """Two hubs over 60 arms with 5-60 leaves each, and random cross links: a 2-hop walk
    from a hub reads its frontier in slices of 16, 64, ... and a budget can fill in any."""
    lines = []
    for hub in ("hubA", "hubB"):
        for arm in range(60):
            lines.append(f"<{E}{hub}> <{rng.choice(LINKS)}> <{E}{hub}-arm{arm:02}> .")
            for _leaf in range(rng.randint(5, 60)):
                lines.append(f"<{E}{hub}-arm{arm:02}> <{rng.choice(LINKS)}> <{E}leaf{rng.randint(0, 3000)}> .")
    lines += [f"<{E}leaf{rng.randint(0, 3000)}> <{LINKS[0]}> <{E}hubA-arm{rng.randint(0, 59):02}> ." for _ in range(300)]
    return lines


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Gateway, OxigraphServer]]:
    path = Path(tmp_path_factory.mktemp("read-ahead")) / "hubs.nt"
    path.write_text("\n".join(hub_graph(random.Random(7))) + "\n", encoding="utf-8")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
    server = OxigraphServer([path])
    yield Gateway.open(store), server
    server.stop()


def test_a_walk_read_ahead_is_the_walk_read_in_turn(graph: tuple[Gateway, OxigraphServer],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    embedded, server = graph
    ahead = Gateway.connect(server.url, max_concurrency=4)
    in_turn = Gateway.connect(server.url, max_concurrency=1)  # one request at a time: no read-ahead
    asked: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []
    ask, take = walk.ReadAhead.ask, walk.ReadAhead.take
    monkeypatch.setattr(walk.ReadAhead, "ask", lambda self, key, *a: (asked.append(key), ask(self, key, *a))[1])
    monkeypatch.setattr(walk.ReadAhead, "take", lambda self, key, limit: (taken.append(key), take(self, key, limit))[1])
    rng = random.Random(11)
    cut_where = set()
    for _ in range(40):
        call = {"seeds": [f"{E}{rng.choice(['hubA', 'hubB'])}"], "max_hops": rng.choice([2, 3]), "topology_only": True,
                "max_nodes": rng.randint(40, 3000), "max_edges": rng.randint(40, 5000)}
        answers = [g.bfs_query(**call).model_dump() for g in (embedded, ahead, in_turn)]
        assert answers[1] == answers[2], call
        truncation = answers[1]["truncation"]
        if truncation:
            cut_where.add((truncation["reason"], truncation["at_hop"], truncation["frontier_remaining"] > 0))
        else:
            assert answers[1] == answers[0], call
    # The cases hold walks cut within a hop by either budget, and slices read ahead and used.
    assert {("max_nodes", 2, True), ("max_edges", 2, True)} <= cut_where
    assert taken and set(taken) <= set(asked)


def test_nothing_is_read_ahead_in_process_or_for_an_endpoint_taking_one_request(
    graph: tuple[Gateway, OxigraphServer], monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedded, server = graph
    made: list[object] = []
    init = walk.ReadAhead.__init__
    monkeypatch.setattr(walk.ReadAhead, "__init__", lambda self, *a: (made.append(self), init(self, *a))[1])
    call = {"seeds": [f"{E}hubA"], "max_hops": 2, "topology_only": True, "max_nodes": 500}
    embedded.bfs_query(**call)
    Gateway.connect(server.url, max_concurrency=1).bfs_query(**call)
    assert made == []
    Gateway.connect(server.url, max_concurrency=2).bfs_query(**call)
    assert len(made) == 1
