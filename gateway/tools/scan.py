"""scan_query: every matching entity or statement, with no seed, a page at a time.

Pages follow a keyset: the order is by IRI (entities) or by subject, predicate, object
and statement ID (statements), and the cursor holds the last key of the page. Statements
are read a slice of subjects at a time (`statement_rows`), so a page costs the same on a
small graph and a large one. It is sealed (AES-SIV: encrypted and
authenticated, the same page giving the same cursor) with the deployment's secret
(`gateway.deployment_key`), so it is opaque to the reader, survives a restart, and
cannot be forged. It is bound to the scan's arguments and to the reader's scope (the
graphs it reads): a cursor that was altered, replayed with other filters, or comes from a
reader of other graphs or from another deployment is refused.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import hmac
import json
from dataclasses import replace
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from gateway import deadline as deadlines
from gateway.errors import InvalidInput, TooLarge
from gateway.models import ScanPage, ScanQueryInput
from gateway.presentation import full_edges, full_nodes, node_types
from gateway.profiles.base import NON_EDGE_PREDICATES, Hit, HopPlan
from gateway.sparql import integer, iris, literal
from gateway.tools.bfs import make_plan
from gateway.walk import EdgeKey

if TYPE_CHECKING:
    from gateway.context import GraphContext

MAX_PAGE = 1000
FIRST_SLICE = 16
"""Subjects in a page's first hop query; each further query takes 4x more, up to MAX_SLICE."""
MAX_SLICE = 4096
SLICE_ROWS = 50_000
"""Rows one hop query may read; a slice over it is read again in smaller slices."""
SUBJECT_ROWS = 500_000
"""Statements of a single subject a scan reads at most (without edge_predicates)."""
_STATEMENT_FILTERS = ("edge_predicates", "truth_status", "as_of", "valid_at")
Row = tuple[str, EdgeKey, Hit]


def scan_query(ctx: GraphContext, query: ScanQueryInput) -> ScanPage:
    warnings: list[str] = []
    limit = max(1, min(query.limit, MAX_PAGE))
    statement_filters = [f for f in _STATEMENT_FILTERS if getattr(query, f)]
    if query.node_types and statement_filters:
        raise InvalidInput(
            "scan_query lists entities (node_types) or statements "
            f"({', '.join(_STATEMENT_FILTERS)}), not both; got node_types and {', '.join(statement_filters)}",
            field="node_types",
        )
    kind = "entities" if query.node_types else "statements"
    after = _read_cursor(ctx, query, kind) if query.cursor else None
    if kind == "entities":
        types = ctx.resolve_terms(query.node_types, "node_types", kind="type", warnings=warnings)
        return _scan_entities(ctx, sorted(types), after, limit, warnings, query)
    return _scan_statements(ctx, query, after, limit, warnings)


def _scan_entities(
    ctx: GraphContext, types: list[str], after: str | None, limit: int, warnings: list[str],
    query: ScanQueryInput,
) -> ScanPage:
    if not types:
        return ScanPage(kind="entities", count=0, limit=limit, warnings=warnings)
    slots = {"types": iris(types, ", "), "limit": integer(limit + 1)}
    if after is not None:
        slots["after"] = literal(after)
    rows = ctx.select("scan_entities", ["after"] if after else [], **slots)
    page = [str(row[0]) for row in rows[:limit]]
    details = full_nodes(ctx, page, node_types(ctx, page))
    cursor = _make_cursor(ctx, query, "entities", page[-1]) if len(rows) > limit else None
    return ScanPage(kind="entities", count=len(page), nodes=[details[x] for x in page], limit=limit,
                    next_cursor=cursor, warnings=warnings)


def _scan_statements(
    ctx: GraphContext, query: ScanQueryInput, after: str | None, limit: int, warnings: list[str],
) -> ScanPage:
    plan = make_plan(ctx, query)
    if query.edge_predicates:
        predicates = ctx.resolve_terms(query.edge_predicates, "edge_predicates", kind="predicate", warnings=warnings)
        if not predicates:
            return ScanPage(kind="statements", count=0, limit=limit, warnings=warnings)
        plan = replace(plan, predicates=tuple(sorted(predicates)))
    rows, complete = statement_rows(ctx, plan, after, limit + 1)
    page = rows[:limit]
    edges = full_edges(ctx, [(key, hit) for _, key, hit in page])
    more = len(rows) > limit or not complete
    if not complete:
        warnings.append("the call's deadline ended this page early; pass next_cursor to go on")
    cursor = _make_cursor(ctx, query, "statements", page[-1][0] if page else after or "") if more else None
    return ScanPage(kind="statements", count=len(edges), edges=edges, limit=limit, next_cursor=cursor, warnings=warnings)


def statement_rows(ctx: GraphContext, plan: HopPlan, after: str | None, limit: int) -> tuple[list[Row], bool]:
    """Up to `limit` (sort key, edge, hit) of statements passing the plan's filters, after
    the key `after`, in key order; and whether the scan got that far (False: the call's
    deadline stopped it first, with at least one row found).

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
            return sorted(found.values())[:limit], False
        window = subjects[start : start + size]
        hits, more = ctx.profile.hop(window, plan, SLICE_ROWS + 1)
        if more and size > 1:
            size = max(1, size // 4)  # a hub in the slice: read fewer subjects at once
            continue
        if more:
            hits, more = ctx.profile.hop(window, plan, SUBJECT_ROWS + 1)
            if more:
                raise TooLarge(f"{ctx.ids.to_id(window[0])} is the subject of more than {SUBJECT_ROWS} statements; "
                               "scan it with edge_predicates", field="edge_predicates")
        for hit in hits:
            if hit.via != "o":
                continue
            key = f"{hit.s} {hit.p} {hit.o} {hit.stmt or ''}"
            if after is None or key > after:
                found[key] = (key, (hit.s, hit.p, hit.o, hit.stmt, None), hit)
        start += len(window)
        size = min(size * 4, MAX_SLICE)
    return sorted(found.values())[:limit], True


def _subjects(ctx: GraphContext) -> list[str]:
    """Every IRI that is the subject of some statement (and a few that are not: reifiers,
    statement nodes), sorted; read once per open graph."""

    def read() -> list[str]:
        rows = ctx.select("scan_subjects", excluded=iris(NON_EDGE_PREDICATES, ", "))
        return sorted({*(str(row[0]) for row in rows), *(hit.s for hit in ctx.profile.unasserted())})

    return ctx.memo("scan_subjects", read)


# -- cursors ---------------------------------------------------------------------------
def _sealer(ctx: GraphContext) -> AESSIV:
    return ctx.memo("cursor_sealer", lambda: AESSIV(hmac.new(ctx.cursor_secret(), b"bfsql scan cursor", hashlib.sha512).digest()))


def _binding(ctx: GraphContext, query: ScanQueryInput, kind: str) -> bytes:
    """What a cursor belongs to: the scan's arguments and the graphs the reader reads."""
    fields = query.model_dump(mode="json", exclude={"cursor", "limit"})
    return json.dumps([kind, fields, ctx.scope], sort_keys=True).encode()


def _make_cursor(ctx: GraphContext, query: ScanQueryInput, kind: str, last_key: str) -> str:
    sealed = _sealer(ctx).encrypt(last_key.encode(), [_binding(ctx, query, kind)])
    return base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def _read_cursor(ctx: GraphContext, query: ScanQueryInput, kind: str) -> str:
    text = query.cursor or ""
    try:
        sealed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return _sealer(ctx).decrypt(sealed, [_binding(ctx, query, kind)]).decode()
    except (InvalidTag, ValueError):
        raise InvalidInput("cursor: not a cursor this scan issued to this reader (altered, from other filters, "
                           "or from another reader or deployment)", field="cursor") from None
