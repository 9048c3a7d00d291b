"""scan_query: every matching entity or statement, with no seed, a page at a time.

Pages follow a keyset: the order is by IRI (entities) or by subject, predicate, object
and statement ID (statements), and the cursor holds the last key of the page. Statements
are read a slice of subjects at a time (`gateway.engine.statements`), so a page costs the
same on a small graph and a large one. The cursor is sealed (AES-SIV: encrypted and
authenticated, the same page giving the same cursor) with the deployment's secret
(`gateway.deployment_key`), so it is opaque to the reader, survives a restart, and
cannot be forged. It is bound to the scan's arguments and to the reader's scope (the
graphs it reads): a cursor that was altered, replayed with other filters, or comes from a
reader of other graphs or from another deployment is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import replace

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from gateway.engine.context import GraphContext
from gateway.engine.names import resolve_terms
from gateway.engine.plan import make_plan
from gateway.engine.presentation import full_edges, full_nodes, node_types
from gateway.engine.statements import statement_rows, unnamed_subjects
from gateway.engine.walk import TIMEOUTS
from gateway.errors import InvalidInput
from gateway.models import ScanPage, ScanQueryInput
from gateway.profiles.graph import MemoKey
from gateway.settings import clamp
from gateway.sparql import integer, iris, literal
from gateway.terms import BFS

MAX_PAGE = 1000
STATEMENT = BFS + "Statement"
_STATEMENT_FILTERS = ("edge_predicates", "truth_status", "as_of", "valid_at")


def scan_query(ctx: GraphContext, query: ScanQueryInput) -> ScanPage:
    warnings: list[str] = []
    limit = clamp(query.limit, 100, 1, MAX_PAGE, field="limit", warnings=warnings)
    statement_filters = [f for f in _STATEMENT_FILTERS if getattr(query, f)]
    if query.node_types and statement_filters:
        raise InvalidInput(
            "scan_query lists entities (node_types) or statements "
            f"({', '.join(_STATEMENT_FILTERS)}), not both; got node_types and {', '.join(statement_filters)}",
            field="node_types",
        )
    types = resolve_terms(ctx, query.node_types, "node_types", kind="type", warnings=warnings) if query.node_types else None
    if types is not None and STATEMENT in types:
        # Statements are no entities of a type: a Statement node is one of the statements.
        if len(types) > 1:
            raise InvalidInput("node_types: Statement lists statements, the other types list entities: ask for "
                               "one or the other", field="node_types")
        types = None
        warnings.append("node_types: Statement: the statements are listed (as edges, each with its id)")
    kind = "entities" if types is not None else "statements"
    after = _read_cursor(ctx, query, kind) if query.cursor else None
    if types is not None:
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
    details = full_nodes(ctx, page, node_types(ctx, page), valid_at=query.valid_at)
    cursor = _make_cursor(ctx, query, "entities", page[-1]) if len(rows) > limit else None
    return ScanPage(kind="entities", count=len(page), nodes=[details[x] for x in page], limit=limit,
                    next_cursor=cursor, warnings=warnings)


def _scan_statements(
    ctx: GraphContext, query: ScanQueryInput, after: str | None, limit: int, warnings: list[str],
) -> ScanPage:
    plan = make_plan(ctx, query.traversal(), warnings)
    if query.edge_predicates:
        predicates = resolve_terms(ctx, query.edge_predicates, "edge_predicates", kind="predicate", warnings=warnings)
        if not predicates:
            return ScanPage(kind="statements", count=0, limit=limit, warnings=warnings)
        plan = replace(plan, predicates=tuple(sorted(predicates)))
    rows, stopped = statement_rows(ctx, plan, after, limit + 1)
    page = rows[:limit]
    edges = full_edges(ctx, [(key, hit) for _, key, hit in page], valid_at=query.valid_at)
    more = len(rows) > limit or stopped is not None
    if stopped is not None:
        warnings.append(f"truncated ({stopped}): {TIMEOUTS[stopped]} before this page was full: it lists every match "
                        "up to its last row; pass next_cursor to go on (narrower filters or a longer deadline make "
                        "fuller pages)")
    unnamed_subjects(ctx, warnings)
    cursor = _make_cursor(ctx, query, "statements", page[-1][0] if page else after or "") if more else None
    return ScanPage(kind="statements", count=len(edges), edges=edges, limit=limit, next_cursor=cursor, warnings=warnings)


# -- cursors ---------------------------------------------------------------------------
def cursor_sealer(ctx: GraphContext) -> AESSIV:
    """The key the tools' cursors are sealed with (scan_query's, expand_neighbors'); each
    cursor is bound to its own call's arguments, so one tool's is no other's."""
    return ctx.memo(MemoKey("cursor_sealer"),
                    lambda: AESSIV(hmac.new(ctx.cursor_secret(), b"bfsql scan cursor", hashlib.sha512).digest()))


def _binding(ctx: GraphContext, query: ScanQueryInput, kind: str) -> bytes:
    """What a cursor belongs to: the scan's arguments and the graphs the reader reads."""
    fields = query.model_dump(mode="json", exclude={"cursor", "limit"})
    return json.dumps([kind, fields, ctx.scope], sort_keys=True).encode()


def _make_cursor(ctx: GraphContext, query: ScanQueryInput, kind: str, last_key: str) -> str:
    sealed = cursor_sealer(ctx).encrypt(_pack(ctx, last_key).encode(), [_binding(ctx, query, kind)])
    return base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def _read_cursor(ctx: GraphContext, query: ScanQueryInput, kind: str) -> str:
    text = query.cursor or ""
    try:
        sealed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return _unpack(ctx, cursor_sealer(ctx).decrypt(sealed, [_binding(ctx, query, kind)]).decode())
    except (InvalidTag, ValueError):
        raise InvalidInput("cursor: not a cursor this scan issued to this reader (altered, from other filters, "
                           "or from another reader or deployment)", field="cursor") from None


def _pack(ctx: GraphContext, key: str) -> str:
    """A key's IRIs as CURIEs where one expands back to the very IRI, else `<IRI>`: a
    cursor an agent carries is then a third of the length (keys are IRIs, space-separated)."""
    converter = ctx.ids.converter
    packed = []
    for iri in key.split(" "):
        curie = converter.compress(iri) if iri else None
        packed.append(curie if curie and converter.expand(curie) == iri else f"<{iri}>" if iri else "")
    return " ".join(packed)


def _unpack(ctx: GraphContext, packed: str) -> str:
    converter = ctx.ids.converter
    parts = [part[1:-1] if part.startswith("<") else converter.expand(part) if part else "" for part in packed.split(" ")]
    if any(part is None for part in parts):
        raise ValueError("a prefix of this cursor is gone")
    return " ".join(part or "" for part in parts)
