"""Requests per walk over HTTP (`oxigraph serve`): an uncut walk asks once per hop and once
for node types; a walk a budget cuts is asked again in slices, so it keeps what the walk in
process keeps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway import Gateway
from support.servers import OxigraphServer

EX = "http://rt.example/"
ARMS, LEAVES = 40, 5


def _graph(reified: bool) -> str:
    """A hub with 40 arms of 5 leaves each: the second hop's frontier is 40 nodes wide."""
    lines = []
    number = 0
    for a in range(ARMS):
        triples = [f"<{EX}hub> <{EX}arm> <{EX}a{a}>"] + [f"<{EX}a{a}> <{EX}leaf> <{EX}a{a}l{n}>" for n in range(LEAVES)]
        for triple in triples:
            lines.append(f"{triple} .")
            if reified:
                status = "hypothetical" if number % 7 == 0 else "asserted_true"
                lines.append(f"<{EX}s{number}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( {triple} )>> .")
                lines.append(f"<{EX}s{number}> <https://w3id.org/bfsql#truthStatus> <https://w3id.org/bfsql#{status}> .")
                number += 1
    lines.append(f"<{EX}lonely> <{EX}name> \"alone\" .")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "rdf12"])
def pair(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Gateway, Gateway, list[str]]]:
    path = Path(tmp_path_factory.mktemp("round-trips")) / "graph.nt"
    path.write_text(_graph(request.param), encoding="utf-8")
    server = OxigraphServer([path])
    embedded = Gateway.open(path)
    remote = Gateway.connect(server.url)
    log: list[str] = []
    remote.backend.query_log = lambda text, rows: log.append(text)  # type: ignore[attr-defined]
    remote.bfs_query(seeds=[f"{EX}hub"], max_hops=1)  # what the profile reads once (types present, ...)
    yield embedded, remote, log
    server.stop()


def _same(embedded: Gateway, remote: Gateway, **call: object) -> dict[str, object]:
    here = embedded.bfs_query(**call).model_dump(exclude_none=True)
    there = remote.bfs_query(**call).model_dump(exclude_none=True)
    assert there == here
    return there


def test_an_uncut_walk_asks_once_per_hop_and_once_for_types(pair: tuple[Gateway, Gateway, list[str]]) -> None:
    embedded, remote, log = pair
    log.clear()
    answer = _same(embedded, remote, seeds=[f"{EX}hub"], max_hops=2, topology_only=True)
    assert answer["truncated"] is False and answer["node_count"] > 40
    assert len(log) <= 3, [text.splitlines()[0] for text in log]


def test_a_cut_walk_keeps_what_the_walk_in_process_keeps(pair: tuple[Gateway, Gateway, list[str]]) -> None:
    """The node budget cuts within a slice whose rows the store returns whole (a cut by
    the rows' LIMIT keeps what the store returns first, docs/tools.md)."""
    embedded, remote, _log = pair
    for max_nodes in (60, 150):
        answer = _same(embedded, remote, seeds=[f"{EX}hub"], max_hops=2, topology_only=True, max_nodes=max_nodes)
        assert answer["truncated"] is True and answer["truncation"]["reason"] == "max_nodes"  # type: ignore[index]


def test_seeds_not_in_the_graph_cost_a_question_only_when_nothing_was_found(pair: tuple[Gateway, Gateway, list[str]]) -> None:
    embedded, remote, log = pair
    log.clear()
    answer = _same(embedded, remote, seeds=[f"{EX}hub", f"{EX}nowhere", f"{EX}lonely"], max_hops=1, topology_only=True)
    assert answer["unresolved_seeds"] == [f"{EX}nowhere"]
    assert {n["id"] for n in answer["nodes"]} >= {f"{EX}hub", f"{EX}lonely"}  # type: ignore[union-attr]
    assert f"{EX}nowhere" not in {n["id"] for n in answer["nodes"]}  # type: ignore[union-attr]
    cut = _same(embedded, remote, seeds=[f"{EX}nowhere", f"{EX}hub"], max_hops=1, max_nodes=3, topology_only=True)
    assert cut["node_count"] == 3 and cut["unresolved_seeds"] == [f"{EX}nowhere"]
