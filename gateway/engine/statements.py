"""Every statement passing a plan's filters, in key order, read a slice of subjects at a time."""

from __future__ import annotations

import bisect
from dataclasses import replace

from gateway import deadline as deadlines
from gateway.engine.context import GraphContext
from gateway.engine.walk import EdgeKey
from gateway.errors import EndpointTimeout, TooLarge
from gateway.profiles.base import NON_EDGE_PREDICATES, Hit, HopPlan
from gateway.profiles.graph import MemoKey
from gateway.sparql import iris, writable

FIRST_SLICE = 16
"""Subjects in a page's first hop query; each further query takes 4x more, up to MAX_SLICE."""
MAX_SLICE = 4096
SLICE_ROWS = 50_000
"""Rows one hop query may read; a slice over it is read again in smaller slices."""
SUBJECT_ROWS = 500_000
"""Statements of a single subject a scan reads at most (without edge_predicates)."""
Row = tuple[str, EdgeKey, Hit]
"""(sort key, edge, hit): the key is subject, predicate, object and statement ID, space-separated."""


def statement_rows(
    ctx: GraphContext, plan: HopPlan, after: str | None, limit: int
) -> tuple[list[Row], deadlines.CauseOfTimeout | None]:
    """Up to `limit` (sort key, edge, hit) of statements passing the plan's filters, after
    the key `after`, in key order; and what stopped the scan before it got that far, with
    at least one row found: None when nothing did, "deadline" when the call's deadline
    was near, "endpoint_timeout" when a slice's query timed out (the rows before it are
    whole: they are every statement of the subjects read).

    The statements are read subject by subject in ID order, a slice of subjects at a time
    with the walk's own hop query, so a page costs a few bounded queries whatever the
    size of the graph (sorting every matching statement in the store, a page at a time,
    took ~50 s a page on a million statements).
    """
    plan = replace(plan, direction="out", mirror_predicates=())
    subjects = _subjects(ctx)
    start = bisect.bisect_left(subjects, after.split(" ", 1)[0]) if after else 0
    found: dict[str, Row] = {}
    size = FIRST_SLICE
    deadline = deadlines.current()
    while start < len(subjects) and len(found) < limit:
        if found and deadline is not None and deadline.nearly_expired():
            return sorted(found.values())[:limit], "deadline"
        window = subjects[start : start + size]
        try:
            with deadlines.keeping_reserve():
                hits = _window_hits(ctx, plan, window, size > 1)
        except EndpointTimeout:
            cause = deadlines.timeout_cause()
            if not found or cause is None:
                raise
            return sorted(found.values())[:limit], cause
        if hits is None:
            size = max(1, size // 4)  # a hub in the slice: read fewer subjects at once
            continue
        for hit in hits:
            if hit.via != "o":
                continue
            key = f"{hit.s} {hit.p} {hit.o} {hit.stmt or ''}"
            if after is None or key > after:
                found[key] = (key, EdgeKey(hit.s, hit.p, hit.o, hit.stmt, None), hit)
        start += len(window)
        size = min(size * 4, MAX_SLICE)
    return sorted(found.values())[:limit], None


def _window_hits(ctx: GraphContext, plan: HopPlan, window: list[str], several: bool) -> list[Hit] | None:
    """The statements of the subjects in `window`; None where they are more than one query
    reads and the window may be narrowed (`several`)."""
    hits, more = ctx.profile.hop(window, plan, SLICE_ROWS + 1)
    if more and several:
        return None
    if more:
        hits, more = ctx.profile.hop(window, plan, SUBJECT_ROWS + 1)
        if more:
            raise TooLarge(f"{ctx.ids.to_id(window[0])} is the subject of more than {SUBJECT_ROWS} statements; "
                           "scan it with edge_predicates", field="edge_predicates")
    return hits


def unnamed_subjects(ctx: GraphContext, warnings: list[str]) -> None:
    """Say how many subjects `statement_rows` cannot read: those whose IRIs no query can
    name (kept by a lenient load), so a whole-graph answer never drops them silently."""
    if unnamed := _read_subjects(ctx)[1]:
        warnings.append(f"{unnamed} subject(s) have IRIs no query can name (spaces, control characters or "
                        "brackets, kept by a lenient load): their statements are left out")


def _subjects(ctx: GraphContext) -> list[str]:
    """Every IRI that is the subject of some statement (and a few that are not: reifiers,
    statement nodes) and that a query can name, sorted."""
    return _read_subjects(ctx)[0]


def _read_subjects(ctx: GraphContext) -> tuple[list[str], int]:
    """(`_subjects`, `unnamed_subjects`), read once per open graph."""

    def read() -> tuple[list[str], int]:
        rows = ctx.select("scan_subjects", excluded=iris(NON_EDGE_PREDICATES, ", "))
        every = sorted({*(str(row[0]) for row in rows), *(hit.s for hit in ctx.profile.unasserted())})
        named = writable(every)
        return named, len(every) - len(named)

    return ctx.memo(MemoKey("scan_subjects"), read)
