"""expand_neighbors: seed 002's contract, against an independent reference on random graphs.

The reference reads the random graph's statements (no SPARQL, no gateway code): it walks
them breadth first as the oracle in `tests/oracle.py` does, scores every node by the most
confident chain from a seed (halved per hop past the first) and ranks as the module says.
"""

from __future__ import annotations

import random

import pytest

from gateway import Gateway, InvalidInput
from gateway.tools.neighbors import DECAY
from support.synth import random_graph
from tests.conftest import DEMO, gateway_from_ntriples, shared_data
from tests.oracle import RDF_OBJECT, RDF_SUBJECT, existing_nodes, reference_bfs


@pytest.fixture(scope="module")
def demo() -> Gateway:
    return Gateway.open(DEMO)


def test_each_neighbour_has_the_contracts_fields(demo: Gateway) -> None:
    answer = demo.expand_neighbors(["wiki:Irene_Adler", "wiki:Moriarty"], depth=2, limit=5)
    assert answer.origins == ["wiki:Irene_Adler"] and answer.unresolved == ["wiki:Moriarty"]
    assert (answer.depth, answer.limit, len(answer.neighbors)) == (2, 5, 5)
    assert answer.total > 5 and answer.truncated
    assert answer.filters == {"include_incoming": True, "truth_status": ["asserted_true"]}
    first = answer.neighbors[0]
    assert (first.id, first.relationship, first.direction, first.distance) == (
        "wiki:A_Scandal_in_Bohemia", "rel:AppearsIn", "outgoing", 1)
    assert first.name == "A Scandal in Bohemia" and first.content.startswith("Short story")
    scores = [(-n.score, n.distance, n.id) for n in answer.neighbors]
    assert scores == sorted(scores)


def test_depth_one_scores_are_the_statements_confidences(demo: Gateway) -> None:
    answer = demo.expand_neighbors(["wiki:Irene_Adler"], limit=24)
    walk = demo.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1)
    confidence: dict[str, float] = {}
    for edge in walk.edges:
        other = edge.object if edge.subject == "wiki:Irene_Adler" else edge.subject  # type: ignore[union-attr]
        value = edge.confidence if edge.confidence is not None else 1.0  # type: ignore[union-attr]
        confidence[other] = max(confidence.get(other, 0.0), value)
    assert {n.id: n.score for n in answer.neighbors} == confidence
    assert answer.total == walk.node_count - 1


def test_types_narrow_the_answer_not_the_walk(demo: Gateway) -> None:
    """The cigar case is two hops away, behind a person: asking for objects still finds it."""
    objects = demo.expand_neighbors(["wiki:Irene_Adler"], depth=2, types=["sh:Object"], limit=24)
    assert {n.id for n in objects.neighbors} >= {"obj:cigar_case", "obj:photograph"}
    assert all(n.type == "sh:Object" for n in objects.neighbors)
    cigar = next(n for n in objects.neighbors if n.id == "obj:cigar_case")
    assert cigar.distance == 2 and cigar.metadata["from"] == "wiki:Sherlock_Holmes"
    assert cigar.score == pytest.approx(0.9 * 0.94 * DECAY)  # Irene knows Holmes (0.9), Holmes has it (0.94)


def test_direction_is_seen_from_the_node_one_hop_closer(demo: Gateway) -> None:
    answer = demo.expand_neighbors(["obj:photograph"], depth=2, limit=24)
    for n in answer.neighbors:
        walk = demo.bfs_query(seeds=[n.metadata["from"]], max_hops=1, predicates=[n.relationship], topology_only=True)
        edges = {(e["subject"], e["object"]) for e in walk.edges}  # type: ignore[index]
        wanted = (n.metadata["from"], n.id) if n.direction == "outgoing" else (n.id, n.metadata["from"])
        assert wanted in edges, n
    outgoing = demo.expand_neighbors(["obj:photograph"], include_incoming=False, limit=24)
    assert all(n.direction == "outgoing" for n in outgoing.neighbors)
    assert len(outgoing.neighbors) < len(demo.expand_neighbors(["obj:photograph"], limit=24).neighbors)


def test_budgets_are_clamped_and_said(demo: Gateway) -> None:
    answer = demo.expand_neighbors(["wiki:Irene_Adler"], depth=9, limit=500, content_max_chars=10)
    assert (answer.depth, answer.limit) == (3, 24)
    assert any("depth: 9" in w for w in answer.warnings) and any("limit: 500" in w for w in answer.warnings)
    assert all(len(n.content) <= 10 for n in answer.neighbors)
    with pytest.raises(InvalidInput, match="relationship_types"):
        demo.expand_neighbors(["wiki:Irene_Adler"], relationship_types=[])
    with pytest.raises(InvalidInput, match="entity_ids"):
        demo.call("bfs_query", {"entity_ids": ["wiki:Irene_Adler"]})  # seed 002's name on bfs_query: did you mean seeds


def test_seeds_past_eight_are_unresolved(demo: Gateway) -> None:
    entities = [n.id for n in demo.scan_query(node_types=["sh:Person", "sh:Location"], limit=20).nodes]
    assert len(entities) >= 10
    answer = demo.expand_neighbors(entities[:10])
    assert answer.origins == entities[:8] and answer.unresolved == entities[8:10]
    assert any("at most 8 distinct seeds" in w for w in answer.warnings)
    assert not [w for w in answer.warnings if "not in this graph" in w]


def test_passages_name_their_document_and_the_next_move() -> None:
    from gateway.importers.bundle import open_bundle

    medlit = open_bundle(shared_data("medlit"))
    answer = medlit.expand_neighbors(["PMC:PMC11128938"], relationship_types=["bfs:passageOf"], limit=24)
    assert answer.total == 9 and [n.passage_index for n in answer.neighbors] == list(range(9))
    assert {(n.parent_entity_id, n.widen_with, n.direction) for n in answer.neighbors} == {
        ("PMC:PMC11128938", "fetch_slice", "incoming")}
    window = medlit.fetch_slice(answer.neighbors[1].id)
    assert window.passages[1].content == answer.neighbors[1].content and window.total == 9


def _reference(graph, seeds: list[str], depth: int, direction: str) -> dict[str, tuple[float, int]]:  # type: ignore[no-untyped-def]
    """node -> (score, distance): the oracle's walk, scored by the best chain (no confidences
    in random graphs: each statement counts 1); a seed an edge from a seed reaches (itself,
    by a self-loop) at distance 1."""
    hops, edges = reference_bfs(graph, seeds, depth, direction=direction, truth_status=frozenset({"asserted_true"}),
                                as_of=None, valid_at=None, expand_traits=frozenset(), predicates=None,
                                exclude_predicates=set())
    score = {s: 1.0 for s, h in hops.items() if h == 0}
    for level in range(1, depth + 1):
        for s, _, o, _, _ in edges:
            for m, n in ((s, o), (o, s)):
                if hops.get(m) == level - 1 and hops.get(n) == level:
                    score[n] = max(score.get(n, 0.0), score[m] * (1.0 if level == 1 else DECAY))
    listed = {n: (score[n], h) for n, h in hops.items() if h > 0}
    for s, p, o, _, _ in edges:
        ways = [(s, o)] if direction == "out" or p in (RDF_SUBJECT, RDF_OBJECT) else [(s, o), (o, s)]
        listed.update({n: (1.0, 1) for m, n in ways if hops.get(m) == 0 and hops.get(n) == 0})
    return listed


@pytest.mark.parametrize("number", range(60))
def test_ranking_matches_the_reference(number: int) -> None:
    rng = random.Random(31_000 + number)
    graph = random_graph(rng, rng.randint(5, 30), rng.randint(5, 60), reified=number % 2 == 0)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    to_id = gateway.context.ids.to_id
    nodes = sorted(existing_nodes(graph))
    seeds = rng.sample(nodes, k=rng.randint(1, 2))
    depth, incoming = rng.randint(1, 3), rng.random() < 0.7
    answer = gateway.expand_neighbors(seeds, depth=depth, limit=24, include_incoming=incoming)
    expected = _reference(graph, seeds, depth, "both" if incoming else "out")
    ranked = sorted(expected, key=lambda n: (-expected[n][0], expected[n][1], to_id(n)))
    assert answer.total == len(expected)
    assert [(n.id, n.distance, n.score) for n in answer.neighbors] == [
        (to_id(n), expected[n][1], round(expected[n][0], 6)) for n in ranked[:24]]
    assert answer.truncated == (len(expected) > 24)
