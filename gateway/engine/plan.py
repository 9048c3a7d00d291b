"""What a query's arguments mean for a walk: the traversal plan and the presentation filters."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.presentation import declared_subproperties
from gateway.engine.statistics import time_ranges
from gateway.errors import BackendError
from gateway.profiles.base import HopPlan, leq


def make_plan(
    ctx: GraphContext, query: object, warnings: list[str], traits: frozenset[str] = frozenset(), *,
    predicates: str = "predicates",
) -> HopPlan:
    """The traversal settings of a query (any input model with the traversal filters);
    predicate names the graph does not hold become warnings. `predicates` names the
    query's field of predicates to walk."""
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
    plan = HopPlan(
        direction=getattr(query, "direction", "both"),
        truth_status=frozenset(statuses) if statuses is not None else frozenset({"asserted_true"}),
        as_of=getattr(query, "as_of", None),
        valid_at=getattr(query, "valid_at", None),
        mirror_predicates=mirror_predicates,
        **_walked_predicates(ctx, query, warnings, predicates),
    )
    if plan.as_of is not None or plan.valid_at is not None:
        _time_warnings(ctx, plan, warnings)
    return plan


def _time_warnings(ctx: GraphContext, plan: HopPlan, warnings: list[str]) -> None:
    """Say when a time filter hides every statement that has a time of its kind: a date
    where the graph positions its statements by number (the two never compare), or an
    as_of before the first position. The walk is right; its emptiness would not be
    told apart from "no such fact"."""
    try:
        ranges = time_ranges(ctx)
    except BackendError:  # advice only: the walk itself reports a store that fails
        return
    for name, point, kind, what in (("as_of", plan.as_of, "asserted", "positions"),
                                    ("valid_at", plan.valid_at, "valid", "validity bounds")):
        spans = ranges.get(kind)
        if point is None or not spans:
            continue
        first = spans[0]
        if isinstance(point, dt.date) and not any(span.dated for span in spans):
            warnings.append(f"{name}: {point.isoformat()} is a date, but the {what} in this graph are numbers "
                            f"({first.low} to {first.high}): no date compares with them, so every statement that "
                            f"has one is hidden; give a number")
        elif name == "as_of" and not leq(first.start, point) and all(not leq(s.start, point) for s in spans):
            warnings.append(f"as_of: {point} is before the first position in this graph ({first.low}): every "
                            "statement with a position is hidden")


def _walked_predicates(ctx: GraphContext, query: object, warnings: list[str], field: str) -> dict[str, Any]:
    """HopPlan's `predicates` and `excluded` from a query's `field` / `exclude_predicates`."""
    named: list[str] = getattr(query, field, None) or []
    unwanted: list[str] = getattr(query, "exclude_predicates", None) or []
    excluded = resolve_terms(ctx, unwanted, "exclude_predicates", kind="predicate", warnings=warnings) if unwanted else set()
    if not named:
        # A predicate the data declares walked only when named (a passage's bfs:passageOf:
        # a paper's passages would crowd every walk through it) waits to be named.
        return {"excluded": tuple(sorted(excluded | declared_subproperties(ctx, "walkedWhenNamed")))}
    allowed = resolve_terms(ctx, named, field, kind="predicate", warnings=warnings) - excluded
    if not allowed:
        warnings.append(f"{field}: none of them is a predicate of this graph that is not excluded, so nothing "
                        "was walked (describe_schema lists the predicates)")
    return {"predicates": tuple(sorted(allowed))}


def resolve_presentation(ctx: GraphContext, query: object, warnings: list[str]) -> tuple[set[str] | None, set[str] | None]:
    """(types whose nodes are full, predicates whose edges are full); None means all. The
    names are checked with topology_only too, where they select nothing: a misspelt one is
    said either way."""
    node_filter = getattr(query, "node_filter", None)
    edge_filter = getattr(query, "edge_filter", None)
    types = (
        None if node_filter is None
        else resolve_terms(ctx, node_filter.entity_types, "node_filter.entity_types", kind="type", warnings=warnings)
    )
    predicates = (
        None if edge_filter is None
        else resolve_terms(ctx, edge_filter.predicates, "edge_filter.predicates", kind="predicate", warnings=warnings)
    )
    return types, predicates
