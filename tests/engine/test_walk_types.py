"""Where a walk reads its nodes' types: over HTTP, a 2-hop walk on plain data reads both
hops and the types in one query (gateway/engine/walk.py, `_Walker.both_hops`): its answer
must be the hop-by-hop walk's, cut or not, and uncut the same as in process, types
included; an uncut walk is one request. In process the types are read on a thread as the
walk goes (gateway/engine/presentation.py, `TypesAhead`): the answers must be those of
types read after the walk. Random typed graphs with hubs, so budgets fill at any hop;
some nodes have several types, a blank-node class, a literal or a triple term for one, or
none."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.profiles.base import HopPlan
from gateway.tools import bfs
from support.servers import OxigraphServer

E = "http://example.org/e/"
C = "http://example.org/c/"
R = "http://example.org/statement/"
LINKS = [f"http://example.org/p{i}" for i in range(4)]
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def typed_graph(rng: random.Random) -> list[str]:
    lines = []
    for hub in range(3):
        for _ in range(rng.randint(5, 40)):
            lines.append(f"<{E}hub{hub}> <{rng.choice(LINKS)}> <{E}n{rng.randint(0, 400)}> .")
    for _ in range(900):
        lines.append(f"<{E}n{rng.randint(0, 400)}> <{rng.choice(LINKS)}> <{E}n{rng.randint(0, 400)}> .")
    for node in [*(f"hub{h}" for h in range(3)), *(f"n{i}" for i in range(401))]:
        kinds = rng.choice([[], [0], [1], [2], [0, 3], [1, 2, 3]])
        lines += [f"<{E}{node}> {TYPE} <{C}{k}> ." for k in kinds]
        if rng.random() < 0.05:
            lines.append(f"<{E}{node}> {TYPE} _:restriction{node} .")
        if rng.random() < 0.05:  # no type to show, as a blank node is none
            lines.append(f"<{E}{node}> {TYPE} \"<{C}0>\" .")
    lines.append(f"<{E}n1> <{LINKS[0]}> \"a literal\" .")
    lines.append(f"<{E}n2> {TYPE} <<( <{E}n3> <{LINKS[1]}> <{E}n4> )>> .")
    return lines


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Gateway, OxigraphServer]]:
    path = Path(tmp_path_factory.mktemp("two-hops")) / "typed.nt"
    path.write_text("\n".join(typed_graph(random.Random(5))) + "\n", encoding="utf-8")
    server = OxigraphServer([path])
    yield Gateway.open(path), server
    server.stop()


def _answer(gateway: Gateway, call: dict[str, Any], requests: list[str]) -> dict[str, Any]:
    requests.clear()
    return gateway.bfs_query(**call).model_dump()


def test_one_query_walks_are_the_hop_by_hop_walks(graph: tuple[Gateway, OxigraphServer]) -> None:
    embedded, server = graph
    one = Gateway.connect(server.url)
    by_hop = Gateway.connect(server.url)
    by_hop.context.profile.two_hop_lines = lambda *args, **kwargs: None  # type: ignore[method-assign]
    requests: list[str] = []
    one.backend.query_log = lambda text, count: requests.append(text)  # type: ignore[attr-defined]
    one.bfs_query(seeds=[E + "n0"], max_hops=1)  # what the profile reads once
    rng = random.Random(3)
    seen = {"uncut": 0, "cut": 0, "one request": 0}
    for _ in range(60):
        call: dict[str, Any] = {
            "seeds": [E + rng.choice(["hub0", "hub1", "hub2", *(f"n{i}" for i in range(0, 400, 7))])
                      for _ in range(rng.choice([1, 1, 2, 3]))],
            "max_hops": 2, "topology_only": rng.random() < 0.7,
            "max_nodes": rng.choice([10, 40, 150, 1000]), "max_edges": rng.choice([15, 60, 300, 2000]),
            "direction": rng.choice(["both", "both", "out", "in"]),
        }
        if rng.random() < 0.3:
            call["predicates"] = rng.sample(LINKS, 2)
        answer = _answer(one, call, requests)
        used = [text for text in requests if "Two BFS hops" in text]
        assert len(used) == 1, call
        assert answer == by_hop.bfs_query(**call).model_dump(), call
        if answer["truncated"]:
            seen["cut"] += 1
            continue
        seen["uncut"] += 1
        assert answer == embedded.bfs_query(**call).model_dump(), call
        if call["topology_only"] and answer["edge_count"] and "predicates" not in call:
            seen["one request"] += 1
            assert len(requests) == 1, call
    assert min(seen.values()) >= 5, seen  # the calls reach every case


def test_types_come_with_the_hops(graph: tuple[Gateway, OxigraphServer]) -> None:
    """Every node's entity_type, with the types read in the walk's query, is the one the
    type query gives (several types, a blank-node class, none)."""
    embedded, server = graph
    one = Gateway.connect(server.url)
    requests: list[str] = []
    one.backend.query_log = lambda text, count: requests.append(text)  # type: ignore[attr-defined]
    call = {"seeds": [E + "n3", E + "n5"], "max_hops": 2, "topology_only": True}
    answer = _answer(one, call, requests)
    assert not any("Types of nodes" in text for text in requests)
    assert answer["truncated"] is False
    kinds = {node["id"]: node["entity_type"] for node in answer["nodes"]}
    assert kinds == {node["id"]: node["entity_type"] for node in embedded.bfs_query(**call).model_dump()["nodes"]}
    assert set(kinds.values()) == {"Entity", C + "0", C + "1", C + "2"}  # c/3 comes second; no blank class


def test_types_read_beside_the_walk_are_those_read_after_it(graph: tuple[Gateway, OxigraphServer],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    embedded, _ = graph
    rng = random.Random(8)
    names = ["hub0", "hub1", *(f"n{i}" for i in range(0, 400, 5))]
    calls = [{"seeds": [E + rng.choice(names) for _ in range(rng.choice([1, 2]))],
              "max_hops": rng.choice([2, 3]), "topology_only": rng.random() < 0.5,
              "max_nodes": rng.choice([20, 150, 10_000]), "max_edges": rng.choice([30, 300, 50_000]),
              "direction": rng.choice(["both", "out", "in"])} for _ in range(30)]
    beside = [embedded.bfs_query(**call).model_dump() for call in calls]
    monkeypatch.setattr(bfs, "TypesAhead", lambda ctx: None)
    after = [embedded.bfs_query(**call).model_dump() for call in calls]
    assert beside == after
    assert {a["truncated"] for a in after} == {True, False}
    assert len({n["entity_type"] for a in after for n in a["nodes"]}) == 4


def test_one_hop_types_joined_from_the_edges_are_those_read_by_node(graph: tuple[Gateway, OxigraphServer],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An uncut 1-hop walk reads its nodes' types joined from its seeds' edges
    (`Profile.reached_types`): full answers (every type of a node listed) and stubs, in
    every direction and predicate filter, are those of the types read by the nodes' IRIs."""
    embedded, _ = graph
    rng = random.Random(13)
    names = ["hub0", "hub1", "hub2", *(f"n{i}" for i in range(0, 400, 3))]
    calls: list[dict[str, Any]] = []
    for _ in range(40):
        call: dict[str, Any] = {"seeds": [E + rng.choice(names) for _ in range(rng.choice([1, 1, 2]))], "max_hops": 1,
                                "topology_only": rng.random() < 0.5, "direction": rng.choice(["both", "out", "in"])}
        if rng.random() < 0.3:
            call["predicates"] = rng.sample(LINKS, 2)
        if rng.random() < 0.2:
            call["max_nodes"] = 5
        calls.append(call)
    by_join, by_node, joined = _joined_and_by_node(embedded, calls, monkeypatch)
    assert joined >= 10  # the join answered the uncut walks that read types apart
    assert by_join == by_node
    assert any(len(node.get("types") or ()) > 1 for a in by_node for node in a["nodes"] if isinstance(node, dict))


def _joined_and_by_node(gateway: Gateway, calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch,
                        ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """The answers with the types joined from the edges (at any size), the same with them read
    by node, and how many walks the join answered."""
    joined: list[bool] = []
    reached_types = gateway.context.profile.reached_types

    def counted(*args: Any, **kwargs: Any) -> list[str] | None:
        found = reached_types(*args, **kwargs)
        joined.append(found is not None)
        return found

    monkeypatch.setattr(gateway.context.profile, "reached_types", counted)
    monkeypatch.setattr(bfs, "JOINED_TYPES", 0)  # walks of any size: the threshold is for speed only
    by_join = [gateway.bfs_query(**call).model_dump() for call in calls]
    monkeypatch.setattr(bfs, "_one_hop_types", lambda *args: None)
    return by_join, [gateway.bfs_query(**call).model_dump() for call in calls], sum(joined)


def _store(text: str) -> ox.Store:
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    return store


def _reified(lines: list[str], rng: random.Random) -> list[str]:
    """`typed_graph` with statements: some edges reified (a status, at times one the walk
    does not cross), and reifier-only statements, some to nodes no triple links."""
    status, reifies = "https://w3id.org/bfsql#", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>"
    out = list(lines)
    edges = [line for line in lines if line.startswith(f"<{E}") and TYPE not in line and '"' not in line]
    for i, line in enumerate(rng.sample(edges, 300)):
        s, p, o = line.rstrip(" .").split(" ", 2)
        out.append(f"<{R}r{i}> {reifies} <<( {s} {p} {o} )>> .")
        out.append(f"<{R}r{i}> <{status}truthStatus> <{status}{rng.choice(['asserted_true', 'disputed', 'retracted'])}> .")
    for i in range(120):
        s, o = rng.choice(["hub0", "hub1", *(f"n{k}" for k in range(400))]), f"only{rng.randint(0, 60)}"
        s, o = (s, o) if rng.random() < 0.5 else (o, s)
        out.append(f"<{R}u{i}> {reifies} <<( <{E}{s}> <{rng.choice(LINKS)}> <{E}{o}> )>> .")
        if rng.random() < 0.5:
            out.append(f"<{R}u{i}> <{status}truthStatus> <{status}asserted_true> .")
    out += [f"<{E}only{k}> {TYPE} <{C}{k % 4}> ." for k in range(0, 61, 2)]
    return out


@pytest.mark.parametrize("seed", [21, 22])
def test_one_hop_types_over_statements_are_those_read_by_node(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on RDF 1.2 data: the join reads asserted triples, so the nodes only reifier-only
    statements reach are typed by IRI; statuses the walk does not cross, every direction."""
    rng = random.Random(seed)
    text = "\n".join(_reified(typed_graph(rng), rng)) + "\n"
    gateway = Gateway.open(_store(text))
    names = ["hub0", "hub1", "hub2", *(f"n{i}" for i in range(0, 400, 3))]
    calls = [{"seeds": [E + rng.choice(names) for _ in range(rng.choice([1, 1, 2]))], "max_hops": 1,
              "topology_only": rng.random() < 0.5, "direction": rng.choice(["both", "out", "in"]),
              "truth_status": rng.choice([["asserted_true"], ["asserted_true", "disputed"], ["retracted"]])}
             for _ in range(40)]
    by_join, by_node, joined = _joined_and_by_node(gateway, calls, monkeypatch)
    assert joined >= 10
    assert by_join == by_node
    wikidata = Gateway.open(_store(text), profile="wikidata").context.profile
    # Wikibase statements: no plain triple joins them.
    assert wikidata.reached_types([E + "n1"], HopPlan(), 100, {E + "n1"}) is None
    # Only the walk's own nodes are named: a seed's other reifier-only ends (hidden by the
    # filters, any number of them) stay out of the query.
    profile = gateway.context.profile
    seed = next(x for x in (E + n for n in names) if x in profile._unasserted[0])
    sent: list[str] = []
    select = profile.backend.select
    monkeypatch.setattr(profile.backend, "select", lambda query, *a, **k: sent.append(query) or select(query, *a, **k))
    assert profile.reached_types([seed], HopPlan(), 1000, {seed}) is not None
    assert not any(f"<{h.o}>" in sent[-1] for h in profile._unasserted[0][seed])
    typed_only = {f"only{k}" for k in range(0, 61, 2)}
    assert any(node["id"].rsplit("/", 1)[-1] in typed_only and node["entity_type"] != "Entity"
               for answer in by_join for node in answer["nodes"] if isinstance(node, dict))
