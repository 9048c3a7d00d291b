"""An expand_neighbors answer with no neighbour says why, truthfully, in its warnings.

Each way an answer comes out empty, on a small graph written for it; and on random
graphs with truth statuses, assertion positions and validity intervals (support/synth),
the reason and the counts a warning gives are checked against the graph's own statements
(tests/oracle.py's rules, no gateway code) for every seed whose answer is empty.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from gateway import Gateway
from support.synth import random_graph
from tests.conftest import gateway_from_ntriples, random_filters, shared_data
from tests.oracle import DEFAULT_TRUTH_STATUS, _asserted_by, _valid_at

EX = "http://nbr.example/"


@pytest.fixture(scope="module")
def small() -> Gateway:
    return gateway_from_ntriples(
        f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}b> <{EX}q> <{EX}c> .\n"
        f'<{EX}lonely> <http://www.w3.org/2000/01/rdf-schema#label> "lonely" .\n'
        f"<{EX}lonely> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Thing> .\n"
        f"<{EX}c> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Thing> .\n"
        f"<{EX}b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Other> .\n")


def _empty(gateway: Gateway, **arguments: Any) -> list[str]:
    answer = gateway.call("expand_neighbors", arguments)
    assert (answer.neighbors, answer.total, answer.truncated) == ([], 0, False)  # type: ignore[attr-defined]
    assert answer.warnings, arguments  # type: ignore[attr-defined]
    return list(answer.warnings)  # type: ignore[attr-defined]


def test_a_seed_with_no_relationships_says_so(small: Gateway) -> None:
    assert _empty(small, entity_ids=[f"{EX}lonely"]) == [
        f"no neighbours: {EX}lonely: it has no relationships, in either direction (describe_entity shows its properties)"]


def test_relationships_of_other_predicates_are_named(small: Gateway) -> None:
    [warning] = _empty(small, entity_ids=[f"{EX}a"], relationship_types=[f"{EX}q"])
    assert warning == f"no neighbours: {EX}a: none of its relationships is of relationship_types; it has {EX}p (outgoing)"


def test_relationships_only_incoming_say_include_incoming(small: Gateway) -> None:
    [warning] = _empty(small, entity_ids=[f"{EX}b"], relationship_types=[f"{EX}p"], include_incoming=False)
    assert "incoming only: include_incoming true lists them" in warning and f"{EX}p (incoming)" in warning
    [warning] = _empty(small, entity_ids=[f"{EX}c"], include_incoming=False)
    assert warning.startswith(f"no neighbours: {EX}c: its relationships are incoming only")


def test_neighbours_of_other_types_say_types_narrow_the_list(small: Gateway) -> None:
    [warning] = _empty(small, entity_ids=[f"{EX}a"], types=[f"{EX}Thing"])
    assert warning.startswith("no neighbours listed: the walk reached 1, none of them of the types asked")
    assert small.expand_neighbors([f"{EX}a"], types=[f"{EX}Thing"], depth=2).neighbors[0].id == f"{EX}c"


def test_what_was_already_said_is_not_said_twice(small: Gateway) -> None:
    """An unknown seed, type or predicate has its own warning; the answer adds none."""
    assert _empty(small, entity_ids=[f"{EX}nowhere"]) == [
        f"entity_ids: '{EX}nowhere' is not in this graph; search_entities finds IDs by name"]
    assert [w.split(":")[0] for w in _empty(small, entity_ids=[f"{EX}a"], types=[f"{EX}Nope"])] == ["types[0]"]
    assert [w.split(":")[0] for w in _empty(small, entity_ids=[f"{EX}a"], relationship_types=[f"{EX}nope"])] == [
        "relationship_types[0]", "relationship_types"]


def test_one_warning_per_seed(small: Gateway) -> None:
    warnings = _empty(small, entity_ids=[f"{EX}lonely", f"{EX}c"], include_incoming=False)
    assert [w.split(": ")[1] for w in warnings] == [f"{EX}lonely", f"{EX}c"]


def test_a_passage_read_without_naming_its_link_says_how_to_walk_it() -> None:
    """medlit: a passage's only relationship is bfs:passageOf, walked only when named."""
    from gateway.importers.bundle import open_bundle

    medlit = open_bundle(shared_data("medlit"))
    passage = medlit.expand_neighbors(["PMC:PMC11128938"], relationship_types=["bfs:passageOf"], limit=1).neighbors[0]
    answer = medlit.expand_neighbors([passage.id])
    assert not answer.neighbors
    [warning] = answer.warnings
    assert "walked only when relationship_types names them" in warning and "bfs:passageOf (outgoing)" in warning


# -- against the statements of random graphs ------------------------------------------------
FILTER_NAMES = ("as_of", "truth_status", "valid_at")


def _expected(graph: Any, seed: str, filters: dict[str, Any], predicates: set[str] | None, incoming: bool) -> str:
    """What the warning of an empty answer must say of `seed`, from the statements alone."""
    reifiers = {st.id for st in graph.statements if st.id is not None}
    relationships = [st for st in graph.statements if seed in (st.s, st.o) and not (st.id is None and st.s in reifiers)]
    if not relationships:
        return "it has no relationships, in either direction"
    walked = [st for st in relationships if predicates is None or st.p in predicates]
    shaped = [st for st in walked if st.s == seed or incoming]
    if not shaped:
        return "are incoming only" if walked else "none of its relationships is of relationship_types"
    statuses = set(filters.get("truth_status", DEFAULT_TRUTH_STATUS))
    failed: Counter[str] = Counter()
    for st in shaped:
        failed.update(name for name, ok in (("truth_status", st.status in statuses),
                                            ("as_of", _asserted_by(st, filters.get("as_of"))),
                                            ("valid_at", _valid_at(st, filters.get("valid_at")))) if not ok)
    said = ", ".join(f"{name} ({failed[name]})" for name in FILTER_NAMES if failed[name])
    return f"{len(shaped)} relationship(s){' of relationship_types' if predicates else ''} in the walked direction(s), " \
           f"each hidden by the filters: {said}"


@pytest.mark.parametrize("number", range(40))
def test_empty_answers_explain_themselves_as_the_statements_do(number: int) -> None:
    rng = random.Random(4_800 + number)
    graph = random_graph(rng, rng.randint(4, 20), rng.randint(3, 30), reified=True, with_traits=False)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    reifiers = {st.id for st in graph.statements if st.id is not None}
    entities = sorted({n for st in graph.statements for n in (st.s, st.o)} - reifiers)
    predicates = sorted({st.p for st in graph.statements})
    checked = 0
    for seed in entities:
        filters = random_filters(rng)
        named = set(rng.sample(predicates, k=1)) if rng.random() < 0.3 else None
        incoming = rng.random() < 0.5
        arguments = {"entity_ids": [seed], "include_incoming": incoming, **filters}
        if named:
            arguments["relationship_types"] = sorted(named)
        answer = gateway.call("expand_neighbors", arguments)
        if answer.neighbors:  # type: ignore[attr-defined]
            continue
        checked += 1
        told = [w for w in answer.warnings if w.startswith("no neighbours")]  # type: ignore[attr-defined]
        assert len(told) == 1, (arguments, answer.warnings)  # type: ignore[attr-defined]
        expected = _expected(graph, seed, filters, named, incoming)
        assert expected in told[0], (arguments, told[0], expected)
    assert checked or len(entities) < 3
