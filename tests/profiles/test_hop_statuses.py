"""A hop's truth filter on odd status values: the three ways a hop is read (the crossed
rows alone, the hidden ones alone, both in one query split by the reader) agree with each
other and with `HopPlan.failures` over `status_name`, as Python judges a statement
everywhere else (a status written as a string holding the asserted_true IRI passes as
that status; a blank node or an unknown IRI is no status the filter names)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.profiles.base import HopPlan
from gateway.terms import BFS, status_name

EX = "http://example.org/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
STATUS = {  # predicate -> the status of its statement (None: no reifier; "" a reifier without one)
    "literal": ox.Literal(BFS + "asserted_true"),
    "blank": ox.BlankNode("odd"),
    "disputed": ox.NamedNode(BFS + "disputed"),
    "unknown": ox.NamedNode(EX + "status/unknown"),
    "true": ox.NamedNode(BFS + "asserted_true"),
    "unstated": None,
    "plain": None,
}


def _store() -> ox.Store:
    store = ox.Store()
    seed = ox.NamedNode(EX + "a")
    for name, status in STATUS.items():
        triple = ox.Triple(seed, ox.NamedNode(EX + name), ox.NamedNode(EX + "to/" + name))
        store.add(ox.Quad(triple.subject, triple.predicate, triple.object))
        if name == "plain":
            continue
        reifier = ox.NamedNode(EX + "r/" + name)
        store.add(ox.Quad(reifier, ox.NamedNode(RDF + "reifies"), triple))
        if status is not None:
            store.add(ox.Quad(reifier, ox.NamedNode(BFS + "truthStatus"), status))
    return store


def _expected(plan: HopPlan) -> set[str]:
    """The predicates a walk crosses: those whose status's name passes the plan."""
    return {EX + name for name, status in STATUS.items()
            if not plan.failures(status_name(None if status is None else str(status.value)), None, None, None)}


@pytest.mark.parametrize("statuses", [{"asserted_true"}, {"asserted_true", "disputed"}, {"disputed"}])
def test_every_way_of_reading_a_hop_judges_odd_statuses_alike(statuses: set[str]) -> None:
    gateway = Gateway.open(_store())
    profile = gateway.context.profile
    plan = HopPlan(truth_status=frozenset(statuses))
    seed = [EX + "a"]
    crossed, _ = profile.hop(seed, plan, 100)
    hidden = profile.hidden(seed, plan, 100)
    both, _, both_hidden = profile.hop_and_hidden(seed, plan, 100, 100)
    expected = _expected(plan)
    assert {h.p for h in crossed} == {h.p for h in both} == expected
    assert {h.p for h in hidden} == {h.p for h in both_hidden} == {EX + name for name in STATUS} - expected
    assert all(h.failed == ("truth_status",) for h in hidden + both_hidden)
    assert all(h.failed == () for h in crossed + both)
    # The walk itself, as an agent calls it.
    answer = gateway.bfs_query(seeds=seed, max_hops=1, truth_status=sorted(statuses), topology_only=True)
    to_id = gateway.context.ids.to_id
    assert sorted(e["predicate"] for e in answer.edges) == sorted(to_id(p) for p in expected)  # type: ignore[index]
