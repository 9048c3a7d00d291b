"""transitive_closure_query: everything reachable along one predicate, to a fixed point.

On plain data this is one SPARQL property path (`p+`). When statements carry truth
status or positions, the traversal filters must hold on every step, which a property
path cannot express, so the closure is walked level by level with the frontier in
`VALUES`, visited nodes kept in Python (cycles end the walk, they do not loop it).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from gateway import deadline as deadlines
from gateway.backends.base import IRIS
from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.plan import make_plan
from gateway.engine.search import suggest_ids
from gateway.engine.seeds import resolve_seeds
from gateway.engine.walk import Cut, timeout_warning
from gateway.errors import EndpointTimeout
from gateway.models import Closure, TransitiveClosureInput
from gateway.profiles.base import HopPlan
from gateway.settings import clamp
from gateway.sparql import integer, iri

MAX_LIMIT = 500_000
ROWS_PER_LEVEL = 4 * MAX_LIMIT
"""A level reading more statement rows than this is cut (and the answer marked truncated)."""


def transitive_closure_query(ctx: GraphContext, query: TransitiveClosureInput) -> Closure:
    warnings: list[str] = []
    limit = clamp(query.limit, 10_000, 1, MAX_LIMIT, field="limit", warnings=warnings)
    predicates = resolve_terms(ctx, [query.predicate], "predicate", kind="predicate", warnings=warnings)
    plan = make_plan(ctx, query.traversal(), warnings)
    start = resolve_seeds(ctx, [query.start], plan, "start", warnings, cap=1)
    starts, unresolved = start.iris, start.missing
    suggest_ids(ctx, start, "start", warnings)
    to_id = ctx.ids.to_id
    answer = dict(
        start=to_id(starts[0]) if starts else query.start.strip(),
        predicate=to_id(next(iter(predicates))) if predicates else query.predicate.strip(),
        direction=query.direction, limit=limit, unresolved=unresolved, warnings=warnings,
    )
    if not starts or not predicates:
        return Closure(count=0, reachable=[], method="per_level", **answer)  # type: ignore[arg-type]
    predicate = next(iter(predicates))
    plain = not ctx.profile.has_reifiers and "asserted_true" in plan.truth_status and query.direction != "both"
    found: Collection[str] | None = None
    if plain:
        found, truncated = _property_path(ctx, starts[0], predicate, query.direction == "out", limit, warnings)
    if found is None:
        plain = False
        found, truncated = _per_level(ctx, starts[0], predicate, plan, limit, warnings)
    reachable = sorted(ctx.ids.to_ids(found))
    return Closure(
        count=len(reachable), reachable=reachable, truncated=truncated,
        method="property_path" if plain else "per_level", **answer,  # type: ignore[arg-type]
    )


def _property_path(
    ctx: GraphContext, start: str, predicate: str, out: bool, limit: int, warnings: list[str],
) -> tuple[Collection[str] | None, bool]:
    """The closure in one query; None where the endpoint gave up on it with time left, for
    the closure to be walked level by level instead (each level a smaller query, and what
    the levels read is kept if one times out)."""
    text = ctx.profile.render("closure", ["out"] if out else [],
                              start=iri(start), predicate=iri(predicate), limit=integer(limit + 1))
    try:
        found = ctx.backend.select(text, IRIS)  # DISTINCT already
    except EndpointTimeout:
        if deadlines.timeout_cause() != "endpoint_timeout":
            raise
        warnings.append("the endpoint timed out on the closure as one property path: it was walked level by level")
        return None, False
    return found[:limit], len(found) > limit


def _per_level(
    ctx: GraphContext, start: str, predicate: str, plan: HopPlan, limit: int, warnings: list[str]
) -> tuple[set[str], bool]:
    """The closure a level at a time: what it reached, and whether that is cut short (by
    `limit`, or by a timeout, which a warning tells: the levels before it are whole; a
    first level that times out is the error, nothing was read)."""
    plan = replace(plan, predicates=(predicate,), mirror_predicates=())
    found: set[str] = set()
    frontier = [start]
    deadline = deadlines.current()
    level = 0
    while frontier:
        level += 1
        if deadline is not None and deadline.nearly_expired():
            warnings += timeout_warning(Cut("deadline", level, len(frontier)), step="level", fewer=None)
            return found, True
        try:
            with deadlines.keeping_reserve():
                hits, more = ctx.profile.hop(frontier, plan, ROWS_PER_LEVEL)
        except EndpointTimeout:
            cause = deadlines.timeout_cause()
            if cause is None or level == 1:
                raise
            warnings += timeout_warning(Cut(cause, level, len(frontier)), step="level", fewer=None)
            return found, True
        step = {h.o if h.via == "o" else h.s for h in hits if (h.via == "o" and plan.out) or (h.via == "i" and plan.inward)}
        new = sorted(step - found)
        if more or len(found) + len(new) > limit:
            found.update(new[: limit - len(found)])
            return found, True
        found.update(new)
        frontier = [x for x in new if x != start]
    return found, False
