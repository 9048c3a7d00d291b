"""Every name an agent may invent (field, predicate, type, ID) gets a pointer to the real
one, in every tool and mode; a budget moved into its bounds is said, never silent."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import Gateway, InvalidInput, NotFound


def said(result: Any, *parts: str) -> bool:
    """Whether one warning holds every part."""
    return any(all(part in warning for part in parts) for warning in result.warnings)


# -- fields ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "arguments", "field", "meant"),
    [
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "relationship_types": ["Knows"]}, "relationship_types", "predicates"),
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "depth": 2}, "depth", "max_hops"),
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "edge_filter": {"predicate": ["Knows"]}}, "edge_filter.predicate",
         "predicates"),
        ("bfs_query", {"seed": "wiki:Irene_Adler"}, "seed", "seeds"),
        ("describe_entity", {"entity_id": "wiki:Irene_Adler"}, "entity_id", "id"),
        ("search_entities", {"name": "Irene"}, "name", "query"),
        ("shortest_path", {"source": "wiki:Irene_Adler", "target": "wiki:Dr_Watson", "relations": ["Knows"]},
         "relations", "predicates"),
        ("scan_query", {"types": ["sh:Person"]}, "types", "node_types"),
        ("communities", {"edge_predicates": ["Knows"]}, "edge_predicates", "predicates"),
    ],
)
def test_an_invented_field_is_named_with_the_real_one(demo: Gateway, tool: str, arguments: dict[str, Any],
                                                       field: str, meant: str) -> None:
    with pytest.raises(InvalidInput) as error:
        demo.call(tool, arguments)
    assert error.value.field == field
    message = error.value.message
    assert "\n" not in message and f"did you mean {meant}" in message and "fields here:" in message


def test_a_value_outside_a_choice_names_the_choices(demo: Gateway) -> None:
    with pytest.raises(InvalidInput) as error:
        demo.call("bfs_query", {"seeds": ["wiki:Irene_Adler"], "direction": "outgoing"})
    assert error.value.field == "direction"
    assert "'both', 'out' or 'in'" in error.value.message and "'outgoing'" in error.value.message


# -- predicates and types, in every mode --------------------------------------------------------
@pytest.mark.parametrize("topology_only", [False, True])
def test_presentation_filters_are_checked_in_every_mode(demo: Gateway, topology_only: bool) -> None:
    result = demo.bfs_query(seeds=["wiki:Irene_Adler"], topology_only=topology_only,
                            edge_filter={"predicates": ["Knowz"]}, node_filter={"entity_types": ["Persn"]})
    assert said(result, "edge_filter.predicates[0]", "did you mean rel:Knows")
    assert said(result, "node_filter.entity_types[0]", "did you mean sh:Person")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"]}),
        ("intersect_subgraphs", {"seeds": ["wiki:Irene_Adler", "wiki:Sherlock_Holmes"]}),
        ("communities", {"seeds": ["wiki:Irene_Adler"]}),
    ],
)
def test_an_unknown_walk_predicate_walks_nothing_and_says_so(demo: Gateway, tool: str, arguments: dict[str, Any]) -> None:
    result = demo.call(tool, {**arguments, "predicates": ["Knowz"]})
    assert said(result, "predicates[0]", "did you mean rel:Knows")
    assert said(result, "nothing was walked")
    assert result.edge_count == 0


def test_shortest_path_over_no_real_predicate_says_why(demo: Gateway) -> None:
    result = demo.shortest_path(source="wiki:Irene_Adler", target="wiki:Dr_Watson", predicates=["Knowz"])
    assert not result.found and result.reason is not None and "no predicate to walk" in result.reason
    assert said(result, "did you mean rel:Knows")


def test_an_excluded_predicate_is_checked_too(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=["wiki:Irene_Adler"], exclude_predicates=["Knowz"])
    assert said(result, "exclude_predicates[0]", "did you mean rel:Knows")


def test_scan_names_are_checked(demo: Gateway) -> None:
    assert said(demo.scan_query(edge_predicates=["Knowz"]), "did you mean rel:Knows")
    assert said(demo.scan_query(node_types=["Persn"]), "did you mean sh:Person")


def test_transitive_closure_names_its_predicate(demo: Gateway) -> None:
    result = demo.transitive_closure_query(start="wiki:London", predicate="PartOff")
    assert said(result, "did you mean rel:PartOf")


def test_search_with_an_unknown_type_does_not_blame_the_name(demo: Gateway) -> None:
    result = demo.search_entities(query="Irene", entity_types=["Persn"])
    assert said(result, "did you mean sh:Person")
    assert not said(result, "no entity")


# -- IDs ---------------------------------------------------------------------------------------
def test_a_near_miss_id_points_to_the_entity(demo: Gateway) -> None:
    with pytest.raises(NotFound) as error:
        demo.describe_entity(id="wiki:Irene_Adlr")
    assert "did you mean wiki:Irene_Adler" in error.value.message
    many = demo.describe_entities(ids=["wiki:Irene_Adlr", "wiki:Irene_Adler"])
    assert many.unresolved == ["wiki:Irene_Adlr"] and said(many, "did you mean wiki:Irene_Adler")


@pytest.mark.parametrize("seed", ["Irene Adler", "wiki:Irene Adler", "<http://example.org/x y>", "wiki:Irene_Adler}"])
@pytest.mark.parametrize(
    ("tool", "arguments", "unresolved"),
    [
        ("bfs_query", {"seeds": ["{seed}", "wiki:Sherlock_Holmes"]}, "unresolved_seeds"),
        ("intersect_subgraphs", {"seeds": ["{seed}", "wiki:Sherlock_Holmes"]}, "unresolved_seeds"),
        ("communities", {"seeds": ["{seed}", "wiki:Sherlock_Holmes"]}, "unresolved_seeds"),
        ("shortest_path", {"source": "{seed}", "target": "wiki:Sherlock_Holmes"}, "unresolved"),
        ("transitive_closure_query", {"start": "{seed}", "predicate": "rel:PartOf"}, "unresolved"),
        ("describe_entities", {"ids": ["{seed}", "wiki:Sherlock_Holmes"]}, "unresolved"),
    ],
)
def test_a_seed_that_cannot_be_an_id_is_unresolved_with_a_pointer(
    demo: Gateway, seed: str, tool: str, arguments: dict[str, Any], unresolved: str
) -> None:
    filled = {k: [seed if v == "{seed}" else v for v in value] if isinstance(value, list) else
              (seed if value == "{seed}" else value) for k, value in arguments.items()}
    result = demo.call(tool, filled)
    assert getattr(result, unresolved) == [seed.strip()]
    assert said(result, "search_entities") or said(result, "did you mean")


def test_an_invalid_id_for_describe_entity_is_not_found_with_a_pointer(demo: Gateway) -> None:
    with pytest.raises(NotFound) as error:
        demo.describe_entity(id="wiki:Irene Adler")
    assert "did you mean wiki:Irene_Adler" in error.value.message


# -- budgets -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 10}, "max_hops"),
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_nodes": 10**9}, "max_nodes"),
        ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_edges": -1}, "max_edges"),
        ("intersect_subgraphs", {"seeds": ["wiki:Irene_Adler", "wiki:Sherlock_Holmes"], "k": 9}, "k"),
        ("shortest_path", {"source": "wiki:Irene_Adler", "target": "wiki:Dr_Watson", "max_hops": 99}, "max_hops"),
        ("communities", {"seeds": ["wiki:Irene_Adler"], "max_hops": 0}, "max_hops"),
        ("transitive_closure_query", {"start": "wiki:London", "predicate": "rel:PartOf", "limit": 0}, "limit"),
        ("scan_query", {"limit": 5000}, "limit"),
        ("search_entities", {"query": "Irene", "limit": 1000}, "limit"),
    ],
)
def test_a_clamped_budget_is_a_warning(demo: Gateway, tool: str, arguments: dict[str, Any], field: str) -> None:
    result = demo.call(tool, arguments)
    assert said(result, f"{field}: ", "was used")


def test_a_budget_within_bounds_says_nothing(demo: Gateway) -> None:
    assert demo.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, max_nodes=50).warnings == []


def test_null_means_not_given_but_an_unknown_name_is_still_refused(demo: Gateway) -> None:
    given = demo.call("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": None, "node_filter": {"entity_types": None},
                                    "truth_status": None})
    assert given == demo.bfs_query(seeds=["wiki:Irene_Adler"], node_filter={})
    with pytest.raises(InvalidInput) as error:
        demo.call("bfs_query", {"seeds": ["wiki:Irene_Adler"], "hops": None})
    assert error.value.field == "hops"
