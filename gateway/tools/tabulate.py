"""tabulate: a table over the entities of one type (or a list of IDs), in one SPARQL query.

Columns are paths from the row's entity; conditions, computed columns, groups, aggregates
and the order are pushed to the store (`gateway.engine.tables` writes the query). Every
name is checked here first: types and predicates against the data (with "did you mean"),
column names against the table, formulas by `gateway.engine.formulas`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from gateway import deadline as deadlines
from gateway.backends.base import Backend
from gateway.engine import formulas, table_order
from gateway.engine.context import GraphContext, quoted
from gateway.engine.names import did_you_mean, resolve_terms, vocabulary
from gateway.engine.plan import make_plan
from gateway.engine.query_threads import by_deadline
from gateway.engine.seeds import resolve_seeds
from gateway.engine.statistics import STATISTICS, statistics
from gateway.engine.tables import NUMERIC_AGGREGATES, Aggregation, Spec, Step, TableQuery, Test
from gateway.engine.walk import TIMEOUTS
from gateway.errors import EndpointTimeout, InvalidInput, TooLarge, UpstreamError
from gateway.ids import local_name
from gateway.models.tables import MAX_PATH_STEPS, MAX_ROWS_IDS, Condition, Table, TableLimits, TabulateInput
from gateway.profiles.base import NON_EDGES, HopPlan
from gateway.profiles.graph import MemoKey
from gateway.settings import clamp
from gateway.sparql import Sparql, integer, iris
from gateway.sparql import iri as sparql_iri
from gateway.terms import RDF, RDFS, Literal
from gateway.tools.table_warnings import cell, first_number, silences

MAX_ROWS = 1000
BINDINGS = deadlines.BINDINGS
"""Bindings (rows, and the values path steps reach from them) a checked table's query may
make in process; the store may keep each in a join's table. Past it the table is refused
(TooLarge), never shown in part."""
HELD = deadlines.HELD_SOLUTIONS
"""Solutions (a row with one value of each column) a checked table's query may hold in
process (its DISTINCT, GROUP BY and ORDER BY keep them): past it the table is refused
(TooLarge), never shown in part."""
SMALL = 100_000
"""A table in process whose query goes through at most this many bindings and tests
(`_bounded`) is made without the store's checks: it is bounded by that (about a second at
most), and the checks would cost it 2-5x its time (a call into Python for each binding).
Larger ones too where the store keeps only their groups, within `LINEAR` and the time left;
any other table carries the checks."""
LINEAR = 1_000_000
"""Bindings and tests a table whose store keeps only its groups (no DISTINCT, grouped) may go
through without the checks, if the time left allows them at `PER_SECOND`."""
PER_SECOND = 50_000
"""Bindings and tests the store goes through in a second at least, sorting included (20 µs
each: measured 2-15 µs in process)."""
_NARROW = ("narrow it: ids or a where on a column to keep fewer rows, shorter paths (a step backwards into a "
           "much-linked entity multiplies the rows by its links), fewer columns, or no include_subtypes")
NAME_PREDICATES = frozenset({RDFS + "label", "http://www.w3.org/2004/02/skos/core#prefLabel", "https://schema.org/name",
                             "http://schema.org/name"})
"""The predicates labels are read from (queries/native/labels.rq): a column over one of
them already names the rows, so `labels` leaves the rows' own IDs out."""
_FULL_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_NEXT_IRI = re.compile(r"/(?=\^?[A-Za-z][A-Za-z0-9+.-]*://)")
"""Where a path of full IRIs written without <...> goes on to its next step."""
_LANGUAGE = re.compile(r"(?<=[^@])@([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$")
"""A language tag ending a path's last step (`rdfs:label@de`, `<...>@pt-BR`)."""

_CONDITIONS = "{column|path, op, value|other}; op = != < <= > >= contains starts_with in (a list) exists missing"
TABLE_BRIEF: dict[str, dict[str, Any]] = {
    "where": {"type": "array", "items": {"type": "object"}, "description": f"ANDed: {_CONDITIONS}."},
    "having": {"type": "array", "items": {"type": "object"}, "description": "As where, on groups."},
    "aggregate": {"type": "object", "description": "Name: {fn: count|count_distinct|sum|avg|min|max, of: column "
                                                   "(default id)}."},
}
"""How the tool lists show tabulate's nested fields (gateway.tools.Tool.brief)."""


def tabulate(ctx: GraphContext, query: TabulateInput) -> Table:
    warnings: list[str] = []
    limit = clamp(query.limit, 50, 1, MAX_ROWS, field="limit", warnings=warnings)
    plan = make_plan(ctx, query.traversal(), warnings)
    names = _Names(ctx)
    unresolved: list[str] = []
    rows_type = rows_ids = None
    if query.type is not None:
        rows_type = names.type(query.type)
    else:
        seeds = resolve_seeds(ctx, query.ids or [], plan, "ids", warnings, cap=MAX_ROWS_IDS)
        unresolved = seeds.unresolved("ids", warnings)
        rows_ids = seeds.iris
        if rows_ids:
            names.rows = Sparql(ctx.profile.render("table_rows", ["ids"], ids=iris(rows_ids)))
    spec = _spec(names, query, rows_type, rows_ids or [], limit)
    if rows_type is None and not rows_ids:
        return _answer(ctx, spec, [], unresolved, warnings)
    runner = _Runner(ctx, plan)
    _check_repeats(ctx, plan, spec, runner.unasserted)
    spec.one_row_each = _one_row_each(ctx, spec, runner.unasserted)
    rows, builder, narrowed = _rows(ctx, runner, spec)
    if builder.crossed:
        warnings.append(f"statements crossed by the paths passed the traversal filters ({_filters(plan)}); what they "
                        "left out is not counted: widen them to see it")
    warnings += silences(ctx, lambda part: runner.checked(narrowed(part)), spec, rows)
    return _answer(ctx, spec, rows, unresolved, warnings)


class _Runner:
    """Runs a table's query (and the checks' queries on the same rows), bounded as a table is."""

    def __init__(self, ctx: GraphContext, plan: HopPlan) -> None:
        self.ctx = ctx
        self.plan = plan
        self.unasserted: dict[str, list[tuple[str, str]]] = {}
        if ctx.profile.has_reifiers:
            for hit in ctx.profile.unasserted():
                if not plan.failures(hit.status, hit.asserted_at, hit.valid_from, hit.valid_until):
                    self.unasserted.setdefault(hit.p, []).append((hit.s, hit.o))

    def writer(self, held: int | None = None) -> TableQuery:
        ctx = self.ctx
        return TableQuery(ctx.profile, self.plan, filtered=ctx.profile.can_hide(self.plan), unasserted=self.unasserted,
                          one_graph=_one_graph(ctx), held=held)

    def select(self, spec: Spec) -> tuple[list[list[object]], TableQuery]:
        """The rows of `spec`'s query (EndpointTimeout, TooLarge as the store says)."""
        builder = self.writer()
        text = builder.text(spec)
        if checks(self.ctx.backend) and not _bounded(self.ctx, builder, spec):
            builder = self.writer(HELD)
            text = builder.text(spec)
        with deadlines.holding(BINDINGS, HELD):
            table = self.ctx.backend.select
            # Rows of a whole type: the query's work grows with it even once its checks stop
            # it. Rows listed (the order index's first entities, or a caller's IDs) are at
            # most `MAX_ROWS_IDS` or `table_order.PREFIX`, so it stays within moments of
            # the deadline without the hand-over to another thread (1-3 ms each).
            whole_type = spec.rows_type is not None and checks(self.ctx.backend)
            answer = by_deadline(lambda: table(text)) if whole_type else table(text)
            rows: list[list[object]] = [list(row) for row in answer[1]]
            return rows, builder

    def table(self, spec: Spec) -> tuple[list[list[object]], TableQuery]:
        """The table's own rows: nothing of it where the store gave up."""
        with whole():
            return self.select(spec)

    def checked(self, spec: Spec) -> list[list[object]] | None:
        """The rows of a check's query; None where the store gave up on it or failed it
        (the table is shown all the same, the check said undone)."""
        try:
            return self.select(spec)[0]
        except (EndpointTimeout, TooLarge, UpstreamError):
            return None


@contextmanager
def whole() -> Iterator[None]:
    """The store giving up on a table's query (or on the order index its page is read
    from) as the table's own error. A table is one query: nothing of it was completed, and
    rows, counts or groups cut short would be wrong, not partial. Nothing of it is shown."""
    try:
        yield
    except EndpointTimeout as error:
        cause = TIMEOUTS.get(deadlines.timeout_cause() or "deadline", "")
        raise EndpointTimeout(f"the table could not be made: {cause} ({error.message}); nothing of it is shown; "
                              f"{_NARROW}, or ask with a longer deadline") from None
    except TooLarge as error:
        raise TooLarge(f"the table needs more than the store may hold for one query ({error.message}); nothing "
                       f"of it is shown; {_NARROW}") from None


def _rows(ctx: GraphContext, runner: _Runner,
          spec: Spec) -> tuple[list[list[object]], TableQuery, Callable[[Spec], Spec]]:
    """The table's page: through the order index of its type and first order key where it
    can answer (`table_order`: a page of the first entities in that order, the same rows as
    the full sort's), else, in process, sorted by the caller's order first
    (`table_order.by_places`), else by the table's own query; and what narrows the checks'
    tables to the entities that can answer them (a tie the page ends in is counted over them)."""
    written: list[TableQuery] = []

    def run(part: Spec) -> list[list[object]]:
        rows, builder = runner.table(part)
        written.append(builder)
        return rows

    if checks(ctx.backend) and table_order.indexable(spec, runner.writer()):
        with whole():
            index = _order_index(ctx, runner, spec)
        rows = table_order.top(index, spec, run)
        if rows is not None:
            return rows, written[-1], lambda check: table_order.narrowed(index, spec, check)
    if checks(ctx.backend) and spec.order and spec.order[0][0] != "id":
        found = table_order.by_places(spec, run)
        if found is not None:
            return found[0], written[-1], partial(found[1].narrowed, spec.order[0][0])
    return (*runner.table(spec), lambda check: check)


def _order_index(ctx: GraphContext, runner: _Runner, spec: Spec) -> table_order.OrderIndex:
    """The order index of the table's type and first order key, made once per open
    graph (per traversal filters and reader's languages: the column's values depend on
    them). Its query sorts the whole type once, without the store's checks (it holds one
    pair per entity and value, and returns `PREFIX` of them); a call that cannot wait for
    it gets `Unavailable` while it goes on for the next one (`GraphContext.memo`)."""
    name, descending = table_order.first_key(spec)
    step = spec.columns[name][0] if name != "id" else None
    only_key = table_order.by_entity(spec)
    ordered = table_order.order_spec(spec)
    detail = (spec.rows_type or "", str(spec.subtypes), step.predicate if step else "id",
              step.language or "" if step else "", str(descending), str(only_key), ",".join(spec.languages),
              _filters(runner.plan))
    key: MemoKey[table_order.OrderIndex] = MemoKey("table_order", detail)

    def read() -> table_order.OrderIndex:
        rows = runner.ctx.backend.select(runner.writer().text(ordered))[1]
        return table_order.build(rows, only_key)

    return ctx.memo(key, read)


def _check_repeats(ctx: GraphContext, plan: HopPlan, spec: Spec, unasserted: dict[str, list[tuple[str, str]]]) -> None:
    """A `*` or `+` step is a property path over the triples: refused where the traversal
    filters could hide a statement it crosses (no path judges them one by one), or where
    statements held by a reifier alone pass them (no path crosses those)."""
    hiding = ctx.profile.can_hide(plan)
    paths = [*((f"columns.{n}", steps) for n, steps in spec.columns.items()),
             *((f"where[{i}].path", t.steps) for i, t in enumerate(spec.where))]
    for field, steps in paths:
        for step in steps:
            if step.repeat and step.predicate not in NON_EDGES and (hiding or step.predicate in unasserted):
                why = f"statements the traversal filters judge ({_filters(plan)})" if hiding else \
                    "statements held by a reifier alone"
                raise InvalidInput(f"{field}: a * or + step over {ctx.ids.to_id(step.predicate)} would cross {why}, "
                                   "which a repeated step cannot read one by one: use transitive_closure_query from "
                                   "one entity, or steps without * or +", field=field)


def checks(backend: Backend) -> bool:
    """Whether the store evaluates the gateway's checks (`deadline.ALIVE`, `deadline.HELD`):
    an embedded store, seen directly or through a reader's scope. A remote endpoint does
    not know the functions; its HTTP client's deadline bounds it."""
    return backend.capabilities.evaluates_checks


def _bounded(ctx: GraphContext, builder: TableQuery, spec: Spec) -> bool:
    """Whether the table's query (`builder`, written) is small enough to run without the
    store's checks: the bindings and tests it goes through (`TableQuery.most_rows`: from
    each step's degree, `_degree`; its rows counted by the store, which stops past the
    most that fit) at most `SMALL`; or, where the store keeps only its groups, at most `LINEAR`
    and what the time left allows (a linear read of a large type: the checks would cost it
    several times its time, and it needs no stopping to stay within its deadline)."""
    allowed = SMALL
    left = deadlines.remaining()
    if not builder.holds:
        allowed = max(SMALL, min(LINEAR, int((left if left is not None else ctx.settings.deadline) * PER_SECOND)))
    most = builder.most_rows(spec, lambda step: _degree(ctx, step), allowed)
    if most is None or most < 1:
        return False
    text = builder.count(spec, most)

    def count() -> int | None:
        return first_number(ctx.backend.select(text)[1])

    # A type's rows are counted once per open graph and bound (up to ~0.4 s at 200k rows).
    rows = count() if spec.rows_type is None else ctx.memo(
        MemoKey("table_rows", (spec.rows_type, str(spec.subtypes), str(most))), count)
    return rows is not None and rows <= most


DEGREE_READ = 1_000_000
"""Triples of one predicate `_degree` reads at most (about a second, once per open graph);
past them its degree is not known, and a table through it carries the store's checks."""


def _degree(ctx: GraphContext, step: Step) -> tuple[int, int] | None:
    """The most values one entity has for the step's predicate (backwards: the most entities
    sharing one value), and its triples, read once per open graph; None when it has more
    triples than `DEGREE_READ`, or for a `*` / `+` step (what it reaches is not counted: the
    table then carries the store's checks, as every unbounded one)."""
    if step.repeat:
        return None

    def read() -> tuple[int, int] | None:
        text = ctx.profile.render("table_degree", ["backward"] * step.backward, p=sparql_iri(step.predicate),
                                  limit=integer(DEGREE_READ + 1))
        rows = ctx.backend.select(text)[1]
        most, seen = (first_number(rows[:1]), first_number([rows[0][1:]])) if rows and len(rows[0]) == 2 else (None, None)
        if seen is None or seen > DEGREE_READ:
            return None
        return most or 0, seen  # no triple at all: none

    return ctx.memo(MemoKey("table_degree", (str(step.backward), step.predicate)), read)


def _one_row_each(ctx: GraphContext, spec: Spec, unasserted: dict[str, list[tuple[str, str]]]) -> bool:
    """Whether each entity has one row at most, in process: rows not grouped, and every
    step of every column at most one value an entity, read from its triples (`_degree`),
    none held by a reifier alone (nor a claim, whose statements repeat it)."""
    if spec.grouped or ctx.profile.claims or not checks(ctx.backend):
        return False
    for steps in spec.columns.values():
        for step in steps:
            found = _degree(ctx, step) if step.predicate not in unasserted else None
            if found is None or found[0] > 1:
                return False
    return True


def _one_graph(ctx: GraphContext) -> bool:
    """Whether the query reads a single graph: the reader's one graph, or a store holding
    no named graphs (a union default graph repeats a triple held in two graphs)."""
    if ctx.scope is not None:
        return len(ctx.scope) <= 1
    return bool(ctx.profile.whole_graph(lambda: not ctx.named_graphs()))


def _filters(plan: HopPlan) -> str:
    said = [f"truth_status {', '.join(sorted(plan.truth_status))}"]
    said += [f"{name} {value}" for name, value in (("as_of", plan.as_of), ("valid_at", plan.valid_at)) if value is not None]
    return "; ".join(said)


# -- names -------------------------------------------------------------------------------
class _Names:
    """Types and predicates as the data holds them."""

    def __init__(self, ctx: GraphContext) -> None:
        self.ctx = ctx
        self._near: list[str] | None = None
        self.rows: Sparql | None = None
        """The rows' pattern (table_rows.rq), once known: predicates near them are the bare names."""

    def type(self, name: str) -> str:
        said: list[str] = []
        found = resolve_terms(self.ctx, [name], "type", kind="type", warnings=said)
        if not found:
            raise InvalidInput(said[0].replace("type[0]", "type", 1) if said else f"type: {quoted(name)}: not a type",
                               field="type")
        (iri,) = found
        self.rows = Sparql(self.ctx.profile.render("table_rows", [], type=sparql_iri(iri)))
        return iri

    def path(self, text: str, field: str) -> tuple[Step, ...]:
        """The steps of a path: `p/q`, `^p` backwards, `p*` / `p+` zero / one or more
        times, `p@de` (last step) only text in that language; a step is an ID, a bare name,
        or an IRI in `<...>` (a path that is one full IRI is one step)."""
        parts = _NEXT_IRI.split(text) if _FULL_IRI.match(text.lstrip("^")) and "<" not in text else _split(text)
        if not parts or any(not p or p == "^" for p in parts):
            raise InvalidInput(f"{field}: {quoted(text)}: a path is predicates joined by / (^p walks one backwards)",
                               field=field)
        if len(parts) > MAX_PATH_STEPS:
            raise InvalidInput(f"{field}: a path of at most {MAX_PATH_STEPS} steps", field=field)
        steps = [self._step(part, field, last=i == len(parts) - 1) for i, part in enumerate(parts)]
        return tuple(steps)

    def _step(self, part: str, field: str, *, last: bool) -> Step:
        """One step: `^` first, then the predicate, then `*` or `+`, then `@tag`."""
        body, language = part, None
        tagged = _LANGUAGE.search(body)
        if tagged and not body.endswith(">"):
            body, language = body[: tagged.start()], tagged.group(1)
            if not last:
                raise InvalidInput(f"{field}: {quoted(part)}: only a path's last step names a language", field=field)
        repeat = body[-1] if body[-1:] in ("*", "+") and not body.endswith(">") else ""
        body = body[: len(body) - len(repeat)]
        backward = body.startswith("^")
        if not body.lstrip("^"):
            raise InvalidInput(f"{field}: {quoted(part)}: a step names a predicate", field=field)
        if backward and language:
            raise InvalidInput(f"{field}: {quoted(part)}: a language is for a step forward onto text", field=field)
        return Step(self.predicate(body.lstrip("^"), field), backward, repeat, language)

    def predicate(self, name: str, field: str) -> str:
        text = name[1:-1] if name.startswith("<") and name.endswith(">") else name
        resolution = self.ctx.ids.resolve(text, field, allow_local_name=True)
        if resolution.iri is not None and self._used(resolution.iri):
            return resolution.iri
        if ":" not in text:  # a bare name: the local name of a predicate near the rows
            matches = sorted({p for p in self.near() if local_name(p).lower() == text.lower()})
            if len(matches) == 1:
                return matches[0]
            if matches:
                shown = ", ".join(self.ctx.ids.to_id(p) for p in matches)
                raise InvalidInput(f"{field}: {quoted(name)} is the name of several predicates ({shown}): give one",
                                   field=field)
        hint = did_you_mean(self.ctx, text, self.near())
        raise InvalidInput(f"{field}: {quoted(name)}: no such predicate in this graph{hint}", field=field)

    def _used(self, iri: str) -> bool:
        """Whether a triple or a reifier-only statement has the predicate."""
        if self.ctx.profile.has_reifiers and any(hit.p == iri for hit in self.ctx.profile.unasserted()):
            return True
        return self.ctx.memo(MemoKey("table_predicate", (iri,)),
                             lambda: bool(self.ctx.select("table_probe", predicate=sparql_iri(iri))))

    def near(self) -> list[str]:
        """Predicates next to the rows (of the type), and the graph's edge predicates."""
        if self._near is None:
            found: set[str] = set()
            if self.rows is not None:
                found = {str(p) for (p,) in self.ctx.select("table_predicates", rows=self.rows) if isinstance(p, str)}
            found |= set(self.ctx.profile.whole_graph(lambda: vocabulary(self.ctx)[0]) or ())
            self._near = sorted(found)
        return self._near


def _split(text: str) -> list[str]:
    """`a/<http://x/y>/^b` -> ["a", "<http://x/y>", "^b"]: slashes inside <...> are kept."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth = max(0, depth - 1)
        if char == "/" and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


# -- the table's spec ---------------------------------------------------------------------
def _spec(names: _Names, query: TabulateInput, rows_type: str | None, rows_ids: Sequence[str], limit: int) -> Spec:
    taken: dict[str, str] = {}
    columns = {}
    for name, path in query.columns.items():
        _take(taken, name, f"columns.{name}")
        columns[name] = names.path(path, f"columns.{name}")
    for name in query.aggregate:
        _take(taken, name, f"aggregate.{name}")
    row_names = ["id", *columns]
    row_computes, group_computes = _computes(query, taken, row_names)
    row_names += list(row_computes)
    aggregates = _aggregates(query, row_names)
    grouped = query.group_by is not None or bool(query.aggregate)
    outputs = [*(query.group_by or []), *aggregates, *group_computes] if grouped else [*row_names]
    if not grouped and group_computes:
        raise InvalidInput("compute: a formula names an aggregate, but there are none", field="compute")
    where = [_test(names, c, f"where[{i}]", row_names, paths=True) for i, c in enumerate(query.where)]
    if query.having and not grouped:
        raise InvalidInput("having: conditions on groups need group_by or aggregate (for rows, use where)",
                           field="having")
    having = [_test(names, c, f"having[{i}]", outputs, paths=False) for i, c in enumerate(query.having)]
    order = []
    for i, item in enumerate(query.order_by):
        _known(item.column, outputs, f"order_by[{i}].column", "order_by names the table's columns")
        order.append((item.column, item.descending))
    return Spec(
        rows_type=rows_type, rows_ids=rows_ids, subtypes=query.include_subtypes, columns=columns,
        row_computes=row_computes, where=where, group_by=query.group_by, aggregates=aggregates,
        group_computes=group_computes, having=having, order=order, limit=limit, offset=query.offset,
        languages=tuple(names.ctx.settings.languages), outputs=outputs,
        tagged=_tagged(names.ctx, rows_type) if not query.include_subtypes else None,
    )


def _take(taken: dict[str, str], name: str, field: str) -> None:
    """Claims an output name for one column, aggregate or formula."""
    if name == "id":
        raise InvalidInput(f"{field}: id is the row's own column; name this one otherwise", field=field)
    if name in taken:
        raise InvalidInput(f"{field}: {name!r} is already the name of a {taken[name]}", field=field)
    taken[name] = field.split(".")[0].split("[")[0]


def _computes(
    query: TabulateInput, taken: dict[str, str], row_names: list[str],
) -> tuple[dict[str, formulas.Formula], dict[str, formulas.Formula]]:
    """The formulas, parsed: (those over a row's columns, those over a group's aggregates)."""
    parsed = {}
    for name, text in query.compute.items():
        _take(taken, name, f"compute.{name}")
        parsed[name] = formulas.parse(text, f"compute.{name}")
    group_names = [*(query.group_by or []), *query.aggregate]
    row_computes: dict[str, formulas.Formula] = {}
    group_computes: dict[str, formulas.Formula] = {}
    for name, formula in parsed.items():
        used = formulas.names(formula)
        field = f"compute.{name}"
        if any(n in query.aggregate or n in group_computes for n in used):
            for n in used:
                _known(n, group_names + list(group_computes), field, "a formula over aggregates names aggregates, "
                       "group_by columns and such formulas")
            group_computes[name] = formula
        else:
            for n in used:
                _known(n, row_names + list(row_computes), field, "a formula names columns and earlier formulas")
            row_computes[name] = formula
    return row_computes, group_computes


def _aggregates(query: TabulateInput, row_names: list[str]) -> dict[str, Aggregation]:
    """The aggregates, each of a column (`group_by` checked first: it names columns too)."""
    for name in query.group_by or []:
        _known(name, row_names, "group_by", "group_by names columns")
    aggregates = {}
    for name, agg in query.aggregate.items():
        _known(agg.of, row_names, f"aggregate.{name}.of", "an aggregate is of a column")
        aggregates[name] = Aggregation(agg.fn, agg.of)
    return aggregates


def _tagged(ctx: GraphContext, rows_type: str | None) -> frozenset[str] | None:
    """The properties whose values carry a language tag on some entity of `rows_type`, as
    the statistics counted them (when already counted: never a whole-graph count for this);
    None when not known. A column of any other property needs no language filter."""
    if rows_type is None or not ctx.computed(STATISTICS):
        return None
    return ctx.profile.whole_graph(lambda: frozenset(
        p for p, datatype, _ in statistics(ctx).type_literals.get(rows_type, ()) if datatype == RDF + "langString"))


def _known(name: str, known: Iterable[str], field: str, rule: str) -> None:
    known = list(known)
    if name in known:
        return
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f" (the table has {', '.join(known)})"
    raise InvalidInput(f"{field}: {name!r} is not a column here: {rule}{hint}", field=field)


def _test(names: _Names, condition: Condition, field: str, known: list[str], *, paths: bool) -> Test:
    steps: tuple[Step, ...] = ()
    if condition.path is not None:
        if not paths:
            raise InvalidInput(f"{field}.path: having tests the groups' columns, not paths", field=f"{field}.path")
        steps = names.path(condition.path, f"{field}.path")
    else:
        _known(condition.column or "", known, f"{field}.column", "a condition names a column of the table")
    if condition.other is not None:
        _known(condition.other, known, f"{field}.other", "other names a column of the table")
    raw = condition.value if isinstance(condition.value, list) else [] if condition.value is None else [condition.value]
    values = tuple(_constant(names, v, condition.op) for v in raw)
    return Test(condition.op, condition.column, steps, values, condition.other)


def _constant(names: _Names, value: object, op: str) -> object:
    """A constant; text that names an entity (`=`, `!=`, `in`) also as its IRI."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"value: {value!r} is not a finite number", field="value")
    if isinstance(value, str) and op in ("=", "!=", "in") and (":" in value):
        try:
            iri = names.ctx.ids.resolve(value, "value").iri
        except InvalidInput:
            iri = None
        if iri is not None:
            try:
                sparql_iri(iri)
            except ValueError:
                return value
            return ("iri", iri, value)
    return value


# -- the answer ---------------------------------------------------------------------------
def _answer(ctx: GraphContext, spec: Spec, rows: Sequence[Sequence[object]], unresolved: list[str],
            warnings: list[str]) -> Table:
    width = len(spec.outputs)
    skipped = [0] * (len(rows[0]) - width if rows else 0)
    readers = _readers(ctx, spec)
    cells: list[list[object]] = []
    entities: list[str] = []
    named = not spec.grouped and any(len(s) == 1 and not s[0].backward and s[0].predicate in NAME_PREDICATES
                                     for s in spec.columns.values())
    for row in rows[: spec.limit]:
        cells.append([cell(ctx, term, readers[i], entities if i or not named else [])
                      for i, term in enumerate(row[:width])])
        for i, term in enumerate(row[width:]):
            if isinstance(term, Literal):
                skipped[i] += int(term.value)
    warnings += _skipped(spec, skipped)
    labels = {ctx.ids.to_id(x): label for x, label in ctx.labels(list(dict.fromkeys(entities))).items()}
    return Table(
        columns=spec.outputs, rows=cells, row_count=len(cells), more=len(rows) > spec.limit,  # type: ignore[arg-type]
        labels=labels, unresolved=unresolved, limits=TableLimits(limit=spec.limit, offset=spec.offset),
        warnings=warnings,
    )


def _readers(ctx: GraphContext, spec: Spec) -> list[str | None]:
    """The language each output column's text is shown plain in: the column's own where it
    names one, else the reader's first."""
    reader = ctx.settings.languages[0] if ctx.settings.languages else None
    return [spec.columns[name][-1].language or reader if name in spec.columns else reader for name in spec.outputs]


def _skipped(spec: Spec, skipped: list[int]) -> list[str]:
    """The numeric aggregates' values that were no numbers, in the rows shown."""
    summed = [n for n in spec.aggregates if spec.aggregates[n].fn in NUMERIC_AGGREGATES]
    return [f"aggregate.{name}: {count} values of {spec.aggregates[name].of} that are not numbers were skipped (in "
            "the rows shown)" for name, count in zip(summed, skipped) if count]
