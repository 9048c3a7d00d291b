"""List-valued filters: an empty list means what its words say, on every tool.

A list of what a call may cross or match (`truth_status`, `predicates`, `entity_types`,
`node_types`, ...) names at least one item: empty, it would match nothing, so it is
refused naming the field, never read as "no filter". A list of what to leave out or add
(`exclude_predicates`, `expand_traits`) or of what gets full data (`node_filter`,
`edge_filter`) may be empty: it leaves out, adds or details nothing. The fields are found
by reading every tool's input model, so a tool added later is held to the same rule;
one value and every value are checked against the networkx oracle on random graphs
(`tests/backends/test_shared_suite.py` holds the same calls to every store).
"""

from __future__ import annotations

import random
import typing
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from gateway import Gateway, InvalidInput
from gateway.tools import TOOLS
from support.synth import STATUSES, random_graph
from tests.conftest import DEMO, gateway_from_ntriples
from tests.engine.test_walk_oracle import edge_set, node_hops
from tests.oracle import existing_nodes, reference_bfs

REQUIRED: dict[str, dict[str, Any]] = {
    "describe_schema": {},
    "scan_query": {},
    "communities": {"seeds": ["wiki:Irene_Adler"]},
    "search_entities": {"query": "Irene"},
    "bfs_query": {"seeds": ["wiki:Irene_Adler"]},
    "describe_entity": {"id": "wiki:Irene_Adler"},
    "describe_entities": {"ids": ["wiki:Irene_Adler"]},
    "fetch_slice": {"entity_id": "wiki:Irene_Adler"},
    "intersect_subgraphs": {"seeds": ["wiki:Irene_Adler", "wiki:Sherlock_Holmes"]},
    "transitive_closure_query": {"start": "wiki:221B_Baker_Street", "predicate": "PartOf"},
    "shortest_path": {"source": "wiki:Dr_Watson", "target": "obj:photograph"},
    "answer": {"question": "Who is Irene Adler?"},
    "expand_neighbors": {"entity_ids": ["wiki:Irene_Adler"]},
    "tabulate": {"type": "sh:Person"},
}
"""The least arguments each tool answers."""


def _is_list(info: FieldInfo) -> bool:
    return any(typing.get_origin(arg) is list for arg in (info.annotation, *typing.get_args(info.annotation)))


def _list_fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, FieldInfo]]:
    """Every list field of a model, nested models included (dotted paths)."""
    found = []
    for name, info in model.model_fields.items():
        if _is_list(info):
            found.append((prefix + name, info))
        for arg in () if _is_list(info) else (info.annotation, *typing.get_args(info.annotation)):
            if isinstance(arg, type) and issubclass(arg, BaseModel):  # a list's items are no filters of their own
                found += _list_fields(arg, f"{prefix}{name}.")
    return found


def _matching(info: FieldInfo) -> bool:
    """A list of what is crossed or matched: optional, and naming at least one item."""
    return not info.is_required() and any(getattr(m, "min_length", 0) for m in info.metadata)


def _with(arguments: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    head, _, rest = path.partition(".")
    if not rest:
        return {**arguments, head: value}
    return {**arguments, head: _with(arguments.get(head, {}), rest, value)}


CASES = [(tool, path, info) for tool, spec in TOOLS.items() for path, info in _list_fields(spec.input)]


def test_every_tool_is_covered() -> None:
    assert set(REQUIRED) >= set(TOOLS)
    matching = {(tool, path) for tool, path, info in CASES if _matching(info)}
    # The fields the rule is about, so the introspection cannot silently find none.
    assert {("bfs_query", "truth_status"), ("bfs_query", "predicates"), ("search_entities", "entity_types"),
            ("scan_query", "node_types"), ("scan_query", "edge_predicates"), ("shortest_path", "predicates")} <= matching


@pytest.fixture(scope="module")
def demo() -> Gateway:
    return Gateway.open(DEMO)


@pytest.mark.parametrize(("tool", "path", "info"), CASES, ids=[f"{t}-{p}" for t, p, _ in CASES])
def test_an_empty_list_means_what_its_words_say(demo: Gateway, tool: str, path: str, info: FieldInfo) -> None:
    arguments = _with(REQUIRED.get(tool, {}), path, [])
    if info.is_required():  # seeds, ids: nothing to walk from is no call
        with pytest.raises(InvalidInput) as refused:
            demo.call(tool, arguments)
        assert refused.value.field == path
    elif _matching(info):
        with pytest.raises(InvalidInput) as refused:
            demo.call(tool, arguments)
        assert refused.value.field == path and "empty list would match nothing" in refused.value.message
    elif tool != "answer":  # exclude nothing, add nothing, detail nothing: an answer like any other
        answer = demo.call(tool, arguments)
        assert not any("empty" in w for w in getattr(answer, "warnings", []))


def test_an_empty_exclusion_is_the_default(demo: Gateway) -> None:
    walk = {"seeds": ["wiki:Irene_Adler"], "max_hops": 2}
    assert demo.call("bfs_query", {**walk, "exclude_predicates": [], "expand_traits": []}) == demo.call("bfs_query", walk)


def test_the_empty_truth_status_of_the_issue_is_refused(demo: Gateway) -> None:
    """The reported widening: [] crossed the hypothetical Possesses and the disputed Threatens."""
    with pytest.raises(InvalidInput, match="truth_status"):
        demo.bfs_query(seeds=["wiki:Irene_Adler"], truth_status=[], topology_only=True)
    assert demo.bfs_query(seeds=["wiki:Irene_Adler"], truth_status=None, topology_only=True).edge_count == 7


@pytest.mark.parametrize("number", range(40))
def test_one_value_and_every_value_match_the_oracle(number: int) -> None:
    rng = random.Random(7_000 + number)
    graph = random_graph(rng, rng.randint(5, 30), rng.randint(5, 60), reified=number % 2 == 1)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    to_id = gateway.context.ids.to_id
    seeds = rng.sample(sorted(existing_nodes(graph)), k=2)
    predicates = sorted({st.p for st in graph.statements})
    choices: list[dict[str, Any]] = [{"truth_status": [status]} for status in STATUSES]
    choices += [{"truth_status": list(STATUSES)}, {"predicates": predicates}]
    choices += [{"predicates": [p], "truth_status": list(STATUSES)} for p in predicates[:3]]
    for chosen in choices:
        query = {"seeds": seeds, "max_hops": 2, "max_nodes": 10_000, "max_edges": 50_000, **chosen}
        hops, edges = reference_bfs(
            graph, seeds, 2, direction="both", truth_status=frozenset(chosen.get("truth_status", ["asserted_true"])),
            as_of=None, valid_at=None, expand_traits=frozenset(),
            predicates=set(chosen["predicates"]) if "predicates" in chosen else None, exclude_predicates=set(),
        )
        result = gateway.bfs_query(**query)
        assert node_hops(result) == {to_id(n): h for n, h in hops.items()}, chosen
        assert edge_set(result) == {(to_id(s), to_id(p), to_id(o), stmt and to_id(stmt), None)
                                    for s, p, o, stmt, _ in edges}, chosen
    # Every predicate named is the same walk as no predicate filter.
    plain = {"seeds": seeds, "max_hops": 2}
    assert gateway.bfs_query(**plain, predicates=predicates).model_dump() == gateway.bfs_query(**plain).model_dump()


def test_every_type_named_is_the_same_as_none(demo: Gateway) -> None:
    types = [t.id for t in demo.describe_schema().entity_types]
    for query in ("Irene", "photograph", "Baker Street"):
        assert demo.search_entities(query, entity_types=types, limit=5).results == \
            demo.search_entities(query, limit=5).results
        one = demo.search_entities(query, entity_types=[types[0]], limit=5).results
        assert all(hit.entity_type == types[0] for hit in one)
    every = demo.scan_query(node_types=types, limit=1000)
    typed = {iri for t in types for iri in _instances(demo, t)}
    assert sorted(n.id for n in every.nodes) == sorted(demo.context.ids.to_id(x) for x in typed)
    for t in types[:3]:
        assert {n.id for n in demo.scan_query(node_types=[t], limit=1000).nodes} == \
            {demo.context.ids.to_id(x) for x in _instances(demo, t)}
    # Every predicate a default walk crosses (those walked only when named would widen it).
    predicates = [p.id for p in demo.describe_schema().predicates if not p.walked_when_named]
    everything = {"truth_status": list(STATUSES), "limit": 1000}
    assert demo.scan_query(edge_predicates=predicates, **everything).edges == demo.scan_query(**everything).edges


def _instances(gateway: Gateway, type_id: str) -> set[str]:
    """The IRIs typed `type_id`, read with pyoxigraph's own pattern match (no template)."""
    import pyoxigraph as ox

    iri = gateway.context.ids.resolve(type_id, "type").iri
    store = gateway.backend.store  # type: ignore[attr-defined]
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    return {q.subject.value for q in store.quads_for_pattern(None, rdf_type, ox.NamedNode(iri))
            if isinstance(q.subject, ox.NamedNode)}
