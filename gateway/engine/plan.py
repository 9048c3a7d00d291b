"""What a query's arguments mean for a walk: the traversal plan and the presentation filters."""

from __future__ import annotations

from gateway.engine.context import GraphContext
from gateway.profiles.base import HopPlan


def make_plan(ctx: GraphContext, query: object, traits: frozenset[str] = frozenset()) -> HopPlan:
    """The traversal settings of a query (any input model with the traversal filters)."""
    statuses = getattr(query, "truth_status", None)
    mirror_predicates: tuple[str, ...] = ()
    if traits:
        declared = ctx.profile.traits()
        mirrored: set[str] = set()
        if "Symmetric" in traits:
            mirrored |= declared.symmetric
        if "Inverse" in traits:
            mirrored |= set(declared.inverses)
        mirror_predicates = tuple(sorted(mirrored))
    return HopPlan(
        direction=getattr(query, "direction", "both"),
        truth_status=frozenset(statuses) if statuses is not None else frozenset({"asserted_true"}),
        as_of=getattr(query, "as_of", None),
        valid_at=getattr(query, "valid_at", None),
        mirror_predicates=mirror_predicates,
    )


def resolve_presentation(ctx: GraphContext, query: object, warnings: list[str]) -> tuple[set[str] | None, set[str] | None]:
    """(types whose nodes are full, predicates whose edges are full); None means all."""
    if getattr(query, "topology_only", False):
        return None, None
    node_filter = getattr(query, "node_filter", None)
    edge_filter = getattr(query, "edge_filter", None)
    types = (
        None if node_filter is None
        else ctx.resolve_terms(node_filter.entity_types, "node_filter.entity_types", kind="type", warnings=warnings)
    )
    predicates = (
        None if edge_filter is None
        else ctx.resolve_terms(edge_filter.predicates, "edge_filter.predicates", kind="predicate", warnings=warnings)
    )
    return types, predicates
