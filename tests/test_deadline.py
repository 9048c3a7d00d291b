"""Every tool call has a deadline: walks, closures and path searches stop at it and say so.

The store is real; only its pace is slowed (each query waits a little after it ran, in
the backend's query log), which no real store does on demand.
"""

from __future__ import annotations

import time

import pyoxigraph as ox
import pytest

from gateway import EndpointTimeout, Gateway, Settings
from gateway.auth import Reader
from tests.conftest import listed_nodes

EX = "http://example.org/"
LENGTH = 40
PAUSE = 0.05


def chain(reified: bool = False) -> ox.Store:
    """n0 -> n1 -> ... -> n39 along ex:next (with reifiers when `reified`)."""
    store = ox.Store()
    for i in range(LENGTH - 1):
        s, o = ox.NamedNode(f"{EX}n{i}"), ox.NamedNode(f"{EX}n{i + 1}")
        store.add(ox.Quad(s, ox.NamedNode(f"{EX}next"), o))
        if reified:
            r = ox.NamedNode(f"{EX}s{i}")
            store.add(ox.Quad(r, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"),
                              ox.Triple(s, ox.NamedNode(f"{EX}next"), o)))
            store.add(ox.Quad(r, ox.NamedNode("https://w3id.org/bfsql#truthStatus"),
                              ox.NamedNode("https://w3id.org/bfsql#asserted_true")))
    return store


def slow(gateway: Gateway) -> Gateway:
    gateway.backend.query_log = lambda text, rows: time.sleep(PAUSE)  # type: ignore[attr-defined]
    return gateway


def timed(gateway: Gateway, name: str, arguments: dict[str, object], deadline: float) -> tuple[object, float]:
    started = time.monotonic()
    result = gateway.call(name, arguments, deadline=deadline)
    return result, time.monotonic() - started


def test_a_walk_stops_at_its_deadline_and_says_so() -> None:
    gateway = slow(Gateway.open(chain()))
    whole = gateway.bfs_query(seeds=[f"{EX}n0"], max_hops=6, direction="out", topology_only=True)
    assert not whole.truncated and whole.node_count == 7
    cut, _ = timed(gateway, "bfs_query", {"seeds": [f"{EX}n0"], "max_hops": 6, "direction": "out",
                                          "topology_only": True}, 0.3)
    assert cut.truncated and cut.truncation.reason == "deadline"  # type: ignore[attr-defined]
    hops = cut.truncation.at_hop  # type: ignore[attr-defined]
    assert 1 <= hops <= 6 and cut.node_count == hops  # type: ignore[attr-defined]
    assert [n.id for n in listed_nodes(cut)] == [n.id for n in listed_nodes(whole)][: cut.node_count]  # type: ignore[attr-defined]


def test_a_closure_and_a_path_search_stop_between_levels() -> None:
    gateway = slow(Gateway.open(chain(reified=True)))
    whole = gateway.transitive_closure_query(start=f"{EX}n0", predicate=f"{EX}next")
    assert not whole.truncated and whole.count == LENGTH - 1  # and what is read once per graph is read
    closure, _ = timed(gateway, "transitive_closure_query", {"start": f"{EX}n0", "predicate": f"{EX}next"}, 0.4)
    assert closure.method == "per_level" and closure.truncated  # type: ignore[attr-defined]
    assert 0 < closure.count < LENGTH - 1 and any("deadline" in w for w in closure.warnings)  # type: ignore[attr-defined]
    path, _ = timed(gateway, "shortest_path", {"source": f"{EX}n0", "target": f"{EX}n8", "max_hops": 8}, 0.4)
    assert not path.found and "deadline" in path.reason  # type: ignore[attr-defined]
    assert gateway.shortest_path(source=f"{EX}n0", target=f"{EX}n8", max_hops=8).found  # the default deadline is enough


def test_communities_refuse_a_neighbourhood_they_could_not_read_in_time() -> None:
    gateway = slow(Gateway.open(chain()))
    with pytest.raises(EndpointTimeout):
        gateway.call("communities", {"seeds": [f"{EX}n0"], "max_hops": 6}, deadline=0.2)


def test_who_may_ask_for_how_long() -> None:
    gateway = Gateway.open(chain(), settings=Settings(deadline=30, max_deadline=300))
    anyone, trusted = Reader("anyone", ("g",)), Reader("ops", ("g",), trusted=True)
    assert gateway.deadline_for(anyone, None) == 30
    assert gateway.deadline_for(anyone, 5) == 5  # anyone may ask for less
    assert gateway.deadline_for(anyone, 1000) == 30  # but not for more
    assert gateway.deadline_for(trusted, 1000) == 300  # a trusted reader up to the cap
    assert gateway.deadline_for(None, 120) == 120  # no readers file: the local user is trusted
    for nonsense in (0, -1, float("nan")):
        assert gateway.deadline_for(anyone, nonsense) == 30


def test_an_abandoned_call_stops_as_at_its_deadline() -> None:
    """The HTTP surface sets `abandoned` when the client goes: the walk stops at its next hop."""
    import threading

    from gateway import Gateway
    from tests.conftest import DEMO

    gone = threading.Event()
    gone.set()
    walk = Gateway.open(DEMO).call("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3}, abandoned=gone)
    assert walk.truncated and walk.truncation.reason == "deadline"  # type: ignore[attr-defined]
    kept = Gateway.open(DEMO).call("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3},
                                   abandoned=threading.Event())
    assert not kept.truncated  # type: ignore[attr-defined]
