"""What a query's arguments mean for a walk: the traversal plan and the presentation filters."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.presentation import declared_subproperties
from gateway.engine.statistics import time_ranges
from gateway.errors import BackendError, InvalidInput
from gateway.models import Direction, EdgeFilter, NodeFilter, Traversal
from gateway.profiles.base import HopPlan, leq


def make_plan(
    ctx: GraphContext, traversal: Traversal, warnings: list[str], traits: frozenset[str] = frozenset(),
) -> HopPlan:
    """The plan of a walk with these settings; predicate names the graph does not hold
    become warnings."""
    mirror_predicates: tuple[str, ...] = ()
    if traits:
        declared = ctx.profile.traits()
        mirrored: set[str] = set()
        if "Symmetric" in traits:
            mirrored |= declared.symmetric
        if "Inverse" in traits:
            mirrored |= set(declared.inverses)
        mirror_predicates = tuple(sorted(mirrored))
    statuses = traversal.truth_status
    plan = HopPlan(
        direction=traversal.direction,
        truth_status=frozenset(statuses) if statuses is not None else frozenset({"asserted_true"}),
        as_of=traversal.as_of,
        valid_at=traversal.valid_at,
        mirror_predicates=mirror_predicates,
        **_walked_predicates(ctx, traversal, warnings),
    )
    if plan.as_of is not None or plan.valid_at is not None:
        _time_warnings(ctx, plan, warnings)
    return plan


def make_path(
    ctx: GraphContext, base: HopPlan, steps: Sequence[tuple[Sequence[str], Direction]], field: str = "path",
) -> list[HopPlan]:
    """One plan per step of a path walk: `base` (the walk's filters and traits) crossing the
    step's predicates only, its way. A step naming a predicate this graph does not hold is
    refused (`InvalidInput` naming `path.<i>.predicates`): a path is exact, and one
    misspelt name would make its ends silently fewer."""
    plans = []
    for i, (names, direction) in enumerate(steps):
        where = f"{field}.{i}.predicates"
        said: list[str] = []
        allowed = resolve_terms(ctx, names, where, kind="predicate", warnings=said)
        if said or not allowed:
            raise InvalidInput(said[0] if said else f"{where}: no predicate of this graph", field=where)
        plans.append(replace(base, direction=direction, predicates=tuple(sorted(allowed)), excluded=()))
    return plans


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


def _walked_predicates(ctx: GraphContext, traversal: Traversal, warnings: list[str]) -> dict[str, Any]:
    """HopPlan's `predicates` and `excluded` from the traversal's predicates / exclude_predicates."""
    named = traversal.predicates or []
    unwanted = traversal.exclude_predicates
    field = traversal.predicates_field
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


class Presented(Protocol):
    """An input whose filters say which nodes and edges are shown in full."""

    @property
    def node_filter(self) -> NodeFilter | None: ...

    @property
    def edge_filter(self) -> EdgeFilter | None: ...


def resolve_presentation(ctx: GraphContext, query: Presented, warnings: list[str]) -> tuple[set[str] | None, set[str] | None]:
    """(types whose nodes are full, predicates whose edges are full); None means all. The
    names are checked with topology_only too, where they select nothing: a misspelt one is
    said either way."""
    node_filter, edge_filter = query.node_filter, query.edge_filter
    types = (
        None if node_filter is None
        else resolve_terms(ctx, node_filter.entity_types, "node_filter.entity_types", kind="type", warnings=warnings)
    )
    predicates = (
        None if edge_filter is None
        else resolve_terms(ctx, edge_filter.predicates, "edge_filter.predicates", kind="predicate", warnings=warnings)
    )
    return types, predicates
