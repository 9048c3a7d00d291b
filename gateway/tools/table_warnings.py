"""What a page of tabulate's rows does not show, said in its warnings.

A tie its last row shares with rows past it, groups of a name several entities share
(names are not keys), and the rows a null group stands for: each found by one more query
on the same rows (`Checked`: the table's own, bounded as it is), written from the checked
spec with its own columns (`0merged`...: a caller's name never starts with a digit).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from gateway.engine.context import GraphContext
from gateway.engine.tables import Aggregation, Spec, Step, Test, is_missing
from gateway.ids import local_name
from gateway.terms import Literal
from gateway.values import datum

Checked = Callable[[Spec], "list[list[object]] | None"]
"""The rows of a check's query, or None where the store gave up on it."""

TIE_COUNTED = 5000
"""Rows of a tie split by the page's edge counted at most (Virtuoso sorts at most 10,000)."""
MERGED_COUNTED = 1000
"""Groups of a name shared by several entities counted at most."""
EXAMPLES = 3
_NAME_LIKE = re.compile(r"(?i)(label|name|title)")
"""A name column's predicate, by its local name (rdfs:label, foaf:name, dcterms:title...)."""
_MERGED, _ENTITY, _ROWS = "0merged", "0entity", "0rows"
"""Names of the checks' own columns: a caller's never starts with a digit."""


def silences(ctx: GraphContext, checked: Checked, spec: Spec, rows: Sequence[Sequence[object]]) -> list[str]:
    """Warnings for what a page of rows hides: a tie its last row shares with rows past it,
    groups of a name several entities share, and the rows a null group stands for."""
    said: list[str] = []
    said += _tie(ctx, checked, spec, rows)
    if spec.group_by:
        shown = rows[: spec.limit]
        for name in spec.group_by:
            said += _merged(ctx, checked, spec, name, shown)
        said += _null_groups(checked, spec, shown)
    return said


def _order_text(term: object) -> str | None:
    """A value's place in the order: its text (None for no value)."""
    if term is None or is_missing(term):
        return None
    return term.value if isinstance(term, Literal) else str(term)


def _shown(ctx: GraphContext, term: object) -> str:
    value = cell(ctx, term, None, [])
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def _tie(ctx: GraphContext, checked: Checked, spec: Spec, rows: Sequence[Sequence[object]]) -> list[str]:
    """The page's last row ties on the caller's order with the first row past the page:
    how many rows share that place, and how many of them are shown."""
    if not spec.order or len(rows) <= spec.limit:
        return []
    at = [spec.outputs.index(name) for name, _ in spec.order]
    key = [_order_text(rows[spec.limit - 1][i]) for i in at]
    if key != [_order_text(rows[spec.limit][i]) for i in at]:
        return []
    tests = [Test("tie", name, values=(text,)) for (name, _), text in zip(spec.order, key)]
    counting = replace(spec, limit=TIE_COUNTED, offset=0, order=[], ties_ordered=False).tested(tests)
    tied = checked(counting)
    described = ", ".join(f"{name} = {_shown(ctx, rows[spec.limit - 1][i])}" for (name, _), i in zip(spec.order, at))
    on_page = sum(1 for row in rows[: spec.limit] if [_order_text(row[i]) for i in at] == key)
    if tied is None:
        return [f"order_by: the page ends inside a tie ({described}); how many rows share it could not be counted "
                "(the store gave up on the count)"]
    total = f"more than {TIE_COUNTED:,}" if len(tied) > TIE_COUNTED else f"{len(tied):,}"
    return [f"order_by: the page ends inside a tie: {total} rows have {described}, {on_page} of them on this page; "
            "their order is by the other columns, not the data: ask with a larger limit or offset to see the rest"]


def _merged(ctx: GraphContext, checked: Checked, spec: Spec, name: str, shown: Sequence[Sequence[object]]) -> list[str]:
    """A group_by column of names (labels, titles) whose groups each merge several entities
    that share the name: how many groups, which."""
    steps = spec.columns.get(name)
    if not steps or steps[-1].backward or not _NAME_LIKE.search(local_name(steps[-1].predicate)):
        return []
    if len(steps) == 1 and "id" in (spec.group_by or []):  # the rows' own IDs keep them apart
        return []
    entity = _ENTITY if len(steps) > 1 else "id"
    counting = replace(
        spec, through={name: _ENTITY} if len(steps) > 1 else {},
        aggregates={**spec.aggregates, _MERGED: Aggregation("count_distinct", entity)},
        having=[*spec.having, Test(">", _MERGED, values=(1,))], order=[(_MERGED, True)],
        outputs=[*(spec.group_by or []), _MERGED], limit=MERGED_COUNTED, offset=0)
    found = checked(counting)
    if found is None:
        return [f"group_by {name}: whether a group merges several entities sharing one {name} could not be checked "
                "(the store gave up on the check)"]
    return _merged_said(ctx, spec, name, found, shown) if found else []


def _merged_said(ctx: GraphContext, spec: Spec, name: str, found: list[list[object]],
                 shown: Sequence[Sequence[object]]) -> list[str]:
    """The warning on the groups that merge entities (`found`: each group's values, then
    its count of entities), those on the page named first."""
    steps = spec.columns[name]
    at = spec.group_by.index(name) if spec.group_by else 0
    on_page = {_order_text(row[spec.outputs.index(name)]) for row in shown}
    ranked = sorted(found, key=lambda row: _order_text(row[at]) not in on_page)
    width = len(spec.group_by or [])
    examples = ", ".join(f"{_shown(ctx, row[at])} ({first_number([row[width:]])} entities)" for row in ranked[:EXAMPLES])
    count = f"more than {MERGED_COUNTED:,} groups each merge" if len(found) > MERGED_COUNTED else \
        f"{len(found):,} groups each merge" if len(found) > 1 else "1 group merges"
    keyed = "id" if len(steps) == 1 else f"a column {_path_text(ctx, steps[:-1])}"
    return [f"group_by {name}: a name is no key: {count} distinct entities with the same {name}, such as {examples}; "
            f"group by {keyed} too to keep them apart"]


def _path_text(ctx: GraphContext, steps: Sequence[Step]) -> str:
    """A path as a column names it."""
    return "/".join(f"{'^' * step.backward}{ctx.ids.to_id(step.predicate)}{step.repeat}" for step in steps)


def _null_groups(checked: Checked, spec: Spec, shown: Sequence[Sequence[object]]) -> list[str]:
    """A group whose group_by value is null stands for the rows that lack the value: how many."""
    said = []
    for name in spec.group_by or []:
        i = spec.outputs.index(name)
        if not any(_order_text(row[i]) is None for row in shown):
            continue
        counting = replace(
            spec, group_by=None, aggregates={_ROWS: Aggregation("count_distinct", "id")}, group_computes={},
            having=[], where=[*spec.where, Test("missing", name)], order=[], outputs=[_ROWS], limit=1, offset=0)
        found = checked(counting)
        n = first_number(found) if found else None
        said.append(f"group_by {name}: the group with {name} null holds the "
                    f"{'' if n is None else f'{n:,} '}rows that have no {name}, not a value of it")
    return said


def first_number(rows: Sequence[Sequence[object]]) -> int | None:
    """The integer in the first cell of an answer (None where there is none)."""
    value = rows[0][0] if rows and rows[0] else None
    return int(value.value) if isinstance(value, Literal) and value.value.lstrip("-").isdigit() else None


def cell(ctx: GraphContext, term: object, reader: str | None, entities: list[str]) -> object:
    """A cell as JSON (null for no value, or MIN's / MAX's stand-in for none); an IRI's
    entity added to `entities` (those labelled)."""
    if term is None or is_missing(term):
        return None
    if type(term) is str:  # an IRI (literals and blank nodes are of their own types)
        entities.append(term)
    value = datum(term, ctx.ids.to_id, reader)  # type: ignore[arg-type]
    if isinstance(value, float) and not math.isfinite(value):
        return str(term.value) if isinstance(term, Literal) else str(value)
    return value
