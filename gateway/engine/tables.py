"""tabulate's one SPARQL query, written from a checked table spec.

Every name a caller gave has become an IRI (checked by `gateway.ids`) or a variable made
from a column's checked name before it gets here; values enter as literals through
`gateway.sparql`. Each output column `x` is the variable `?c_x`.

Numbers written as text count as numbers: `numeric(?v)` is the value itself when it is a
number, else its text (trimmed) read as an integer, a decimal or a double, else unbound.
Conditions and orders compare numbers as numbers and everything else by its text (so ISO
dates compare in time order); text tests (`contains`, `starts_with`) ignore case.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from gateway.deadline import ALIVE, HELD
from gateway.engine.formulas import Formula, render
from gateway.profiles.base import NON_EDGES, HopPlan, Profile, time_filters
from gateway.sparql import Sparql, integer, iri, iris, joined, literal, variable
from gateway.terms import BFS, RDF, Blank, Literal

NUMERIC_AGGREGATES = ("sum", "avg", "min", "max")
"""Aggregates that read numbers (min and max read text where a group has no number)."""
SENTINEL = "\uffff"
"""MIN's stand-in for a missing value: text that sorts after every value."""


@dataclass(frozen=True)
class Step:
    predicate: str
    backward: bool = False
    repeat: str = ""
    """"*" (zero or more) or "+" (one or more) times along the predicate: a property path."""
    language: str | None = None
    """On a path's last step: only text in this language (a BCP 47 tag, checked)."""

    @property
    def walked(self) -> Sparql:
        """The predicate as a step of a triple pattern: its IRI, or its property path (`p+`
        written `p/p*`, the same path: Virtuoso's `p+` leaves out a start its cycles return to)."""
        p = iri(self.predicate)
        return Sparql(f"{p}/{p}*" if self.repeat == "+" else f"{p}{self.repeat}")


@dataclass(frozen=True)
class Test:
    """One condition, checked: `subject` a column's name, or a path from the row (`steps`)."""

    op: str
    subject: str | None = None
    steps: tuple[Step, ...] = ()
    values: tuple[object, ...] = ()
    """Constants, each a number, bool, text, or ("iri", IRI, text) for text naming an entity."""
    other: str | None = None


@dataclass(frozen=True)
class Aggregation:
    fn: str
    of: str


@dataclass
class Spec:
    """A table with every name resolved."""

    rows_type: str | None
    rows_ids: Sequence[str]
    subtypes: bool
    columns: dict[str, tuple[Step, ...]]
    row_computes: dict[str, Formula]
    where: list[Test]
    group_by: list[str] | None
    aggregates: dict[str, Aggregation]
    group_computes: dict[str, Formula]
    having: list[Test]
    order: list[tuple[str, bool]]
    limit: int
    offset: int
    languages: tuple[str, ...] = ()
    outputs: list[str] = field(default_factory=list)
    tagged: frozenset[str] | None = None
    """Properties with language-tagged values on the rows' type (`None`: not known); a
    one-step column of another needs no language filter, and goes faster without one."""
    through: dict[str, str] = field(default_factory=dict)
    """Column -> the name of a hidden row column bound to the entity its last step starts
    from (whose name a name column reads): what the check of merged names counts."""
    ties_ordered: bool = True
    """Whether rows of one place in the caller's order come in the order of their columns,
    so that pages never overlap. A query that counts rows, or finds where the places of
    the order fall (`table_order.by_places`), needs no more than the caller's order: the
    store sorts IRIs by their text, read from its dictionary, most of a large table's time."""
    one_row_each: bool = False
    """Whether each entity has one row at most (no column has two values for one entity):
    the ID alone then sets the rows apart, without the keys of every column (`apart`)."""

    @property
    def grouped(self) -> bool:
        return self.group_by is not None or bool(self.aggregates)

    def tested(self, tests: Sequence[Test]) -> Spec:
        """This table with `tests` more: on its groups where it is grouped, else on its rows."""
        if self.grouped:
            return replace(self, having=[*self.having, *tests])
        return replace(self, where=[*self.where, *tests])

    def over(self, entities: list[str]) -> Spec:
        """This table over these entities only (its rows listed, not its type's)."""
        return replace(self, rows_type=None, rows_ids=entities, subtypes=False)

    def tie(self, name: str) -> Test | None:
        """This table's test of a place in the order of column `name` (`Test` "tie"), if any."""
        return next((t for t in (*self.where, *self.having) if t.op == "tie" and t.subject == name), None)


def var(name: str) -> Sparql:
    return variable(f"c_{name}")


def numeric(v: Sparql) -> Sparql:
    # The casts read the text as it is first: trimming (a regular expression) costs more
    # than a cast, and most numbers written as text have no spaces around them.
    casts = [f"xsd:{t}({text})" for text in (f"STR({v})", f'REPLACE(STR({v}), "^\\\\s+|\\\\s+$", "")')
             for t in ("integer", "decimal", "double")]
    return Sparql(f"IF(isNumeric({v}), {v}, COALESCE({', '.join(casts)}))")


_SPARQL_OPS = {"=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def compare_value(v: Sparql, op: str, values: Sequence[object]) -> Sparql:
    """The test of `v` against constants (one, or several for `in`)."""
    if op == "tie":  # internal: the same place in the order as one of some values (their text, or none)
        texts = [literal(str(value)) for value in values if value is not None]
        tests = [f"(BOUND({v}) && STR({v}) IN ({', '.join(texts)}))"] if texts else []
        if None in values:
            tests.append(f"(!BOUND({v}) || isBlank({v}) || (isLiteral({v}) && STR({v}) = {literal(SENTINEL)}))")
        return Sparql(f"({' || '.join(tests)})")
    if op == "exists":
        return Sparql(f"BOUND({v})")
    if op == "missing":
        return Sparql(f"!BOUND({v})")
    if op == "in":
        return Sparql("(" + " || ".join(_equals(v, value) for value in values) + ")")
    (value,) = values
    if op in ("contains", "starts_with"):
        text = value[2] if isinstance(value, tuple) else str(value).lower() if isinstance(value, bool) else str(value)
        function = "CONTAINS" if op == "contains" else "STRSTARTS"
        return Sparql(f"{function}(LCASE(STR({v})), LCASE({literal(text)}))")
    if op == "=":
        return _equals(v, value)
    if op == "!=":
        return Sparql(f"(BOUND({v}) && !{_equals(v, value)})")
    number = _number(value)
    if number is not None:
        return Sparql(f"({numeric(v)} {_SPARQL_OPS[op]} {literal(number)})")
    text = value[2] if isinstance(value, tuple) else str(value)
    return Sparql(f"(isLiteral({v}) && STR({v}) {_SPARQL_OPS[op]} {literal(text)})")


def _equals(v: Sparql, value: object) -> Sparql:
    if isinstance(value, bool):
        return Sparql(f"COALESCE({v} = {literal(value)}, false)")
    number = _number(value)
    text = value[2] if isinstance(value, tuple) else str(value)
    tests = [f"(isLiteral({v}) && STR({v}) = {literal(text)})"]
    if isinstance(value, tuple):
        tests.insert(0, f"sameTerm({v}, {iri(value[1])})")
    if number is not None:
        tests.append(f"COALESCE({numeric(v)} = {literal(number)}, false)")
    return Sparql("(" + " || ".join(tests) + ")")


def _number(value: object) -> int | float | None:
    """A constant as a number: a JSON number, or text that reads as one ("35", " 2.5")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            try:
                number = float(value.strip())
            except ValueError:
                return None
            return number if number == number and abs(number) != float("inf") else None
    return None


def compare_columns(a: Sparql, op: str, b: Sparql) -> Sparql:
    """The test of `a` against `b`: as numbers where both read as numbers, else as terms
    (`=`, `!=`) or as text."""
    if op in ("contains", "starts_with"):
        function = "CONTAINS" if op == "contains" else "STRSTARTS"
        return Sparql(f"{function}(LCASE(STR({a})), LCASE(STR({b})))")
    sparql_op = _SPARQL_OPS[op]
    fallback = f"{a} {sparql_op} {b}" if op in ("=", "!=") else f"STR({a}) {sparql_op} STR({b})"
    return Sparql(f"(BOUND({a}) && BOUND({b}) && COALESCE({numeric(a)} {sparql_op} {numeric(b)}, {fallback}, false))")


class TableQuery:
    """The SPARQL text of one table over a profile's statements."""

    def __init__(self, profile: Profile, plan: HopPlan, *, filtered: bool,
                 unasserted: dict[str, list[tuple[str, str]]], one_graph: bool = False,
                 held: int | None = None) -> None:
        self.profile = profile
        self.plan = plan
        self.filtered = filtered
        self.unasserted = unasserted
        self.one_graph = one_graph
        """Whether the query reads one graph: a triple pattern then matches each triple once."""
        self.held = held
        """The solutions the store's checks let the query hold (`deadline.Watch`), when it
        carries them: it then checks each row and each value a path step binds (`watched`),
        counts its solutions (`deadline.HELD`), and reads at most one row more than that
        (each row is at least one solution: a type that large is refused, not cut)."""
        self.unioned = False
        """Whether a step adds reifier-only statements (set while writing)."""
        self.claims = profile.claims
        """Whether values are claims (`Profile.claims`): repeated at times, their number unknown."""
        self._fresh = itertools.count(1)
        self.crossed = False
        """Whether a step crosses statements the filters judge (set while writing)."""
        self.holds = True
        """Whether the store keeps every solution of the query until its end (set by `text`)."""
        self._time_flags, self._time_slots = time_filters(plan)

    # -- paths ---------------------------------------------------------------------------
    def fresh(self, stem: str) -> Sparql:
        return variable(f"{stem}{next(self._fresh)}")

    def path(self, start: Sparql, steps: Sequence[Step], end: Sparql, languages: Sequence[str] = (), *,
             last_watched: bool = True, middle: Sparql | None = None) -> Sparql:
        """The pattern from `start` to `end` along `steps`; on a last forward step onto
        text in several languages, the reader's languages are kept where the value has them
        (only the last step's own language, where it names one). `last_watched`: whether
        the store's check also sees the values of the last step (a condition's path need
        not: each of them is tested and dropped, never joined on). `middle`: the variable
        the last step starts from, on a path of several steps."""
        points = [start, *(self.fresh("p") for _ in steps[1:]), end]
        if middle is not None and len(steps) > 1:
            points[-2] = middle
        parts = [self.step(points[i], s, points[i + 1]) for i, s in enumerate(steps)]
        parts = [self.watched(part, points[i + 1]) if i < len(parts) - 1 or last_watched else part
                 for i, part in enumerate(parts)]
        last = steps[-1]
        if last.language is not None:
            parts.append(Sparql(f"FILTER(isLiteral({end}) && LANGMATCHES(LANG({end}), {literal(last.language)}))"))
        elif languages and not last.backward:
            other = self.fresh("l")

            def wanted(v: Sparql) -> str:
                return " || ".join(f"LANGMATCHES(LANG({v}), {literal(tag)})" for tag in languages)

            parts.append(Sparql(
                f'FILTER(!isLiteral({end}) || LANG({end}) = "" || {wanted(end)} || NOT EXISTS '
                f"{{ {points[-2]} {last.walked} {other} . FILTER(isLiteral({other}) && ({wanted(other)})) }})"))
        return joined(parts, "\n")

    def step(self, a: Sparql, step: Step, b: Sparql) -> Sparql:
        s, o = (b, a) if step.backward else (a, b)
        if step.repeat:  # a property path: on statements no filter judges (tabulate checks that first)
            return Sparql(f"{s} {step.walked} {o} .")
        own = self.profile.table_step(s, step.predicate, o, self.plan, self.fresh)
        if own is not None:  # as the profile reads it (Wikidata's claims, as the walk reads them)
            pattern, judged = own
            self.crossed = self.crossed or (judged and self.filtered)
            return pattern
        plain = not self.filtered or step.predicate in NON_EDGES
        self.crossed = self.crossed or not plain
        flags = [] if plain else ["filtered", *self._time_flags]
        if "asserted_true" in self.plan.truth_status:
            flags.append("asserted_ok")
        pairs = self.unasserted.get(step.predicate, [])
        slots = {}
        if pairs and not plain:
            self.unioned = True
            flags.append("unasserted")
            slots["unasserted"] = joined(Sparql(f"({iri(x)} {iri(y)})") for x, y in pairs)
        statuses = iris(sorted(BFS + x for x in self.plan.truth_status), ", ")
        return self._render(flags, a=s, p=iri(step.predicate), b=o, truth_status=statuses, **self._time_slots, **slots)

    def _render(self, flags: list[str], **slots: Sparql) -> Sparql:
        return Sparql(self.profile.render("table_step", flags, **slots))

    def watched(self, pattern: Sparql, bound: Sparql) -> Sparql:
        """`pattern` with the store's check on each value it binds to `bound`, where the
        store supports it. In a group of its own, the store evaluates the check right where
        `bound` gets its value: once the check says no (the deadline passed, the caller went
        away, the query held all it may) the pattern matches nothing more, so a path
        through hubs stops multiplying at once instead of running to its end."""
        if self.held is None:
            return pattern
        return Sparql(f"{{\n{pattern}\nFILTER({iri(ALIVE)}({bound}))\n}}")

    # -- the query -----------------------------------------------------------------------
    def text(self, spec: Spec) -> str:
        body = self.body(spec)
        order = self.order(spec)
        page = {"order": order, "limit": integer(spec.limit + 1), "offset": integer(spec.offset)}
        ordered = ["ordered"] * bool(order)
        # Solutions repeat only where a triple is in several graphs, a path goes through
        # several middle nodes (`p+` is `p/p*`), a claim has several statements or a value
        # is also held by a reifier alone: elsewhere DISTINCT has nothing to remove (and
        # costs ~15%).
        distinct = ["distinct"] * (not self.one_graph or self.claims or self.unioned
                                   or any(len(steps) > 1 or steps[0].repeat for steps in spec.columns.values()))
        # Where the store keeps every solution until the end: a DISTINCT, or the order of
        # rows never grouped (a GROUP BY alone keeps its groups only).
        self.holds = bool(distinct) or not spec.grouped
        if not spec.grouped:
            projection = joined(var(n) for n in spec.outputs)
            return self.profile.render("table", distinct + ordered, projection=projection, body=body, **page)
        flags = ["grouped"] * bool(spec.group_by) + distinct + ordered
        return self.profile.render("table_grouped", flags, **self._grouped_slots(spec, body), **page)

    def _grouped_slots(self, spec: Spec, body: Sparql) -> dict[str, Sparql]:
        """table_grouped.rq's slots: the groups, their aggregates (each numeric one with the
        count of values it skipped as no number), and what is computed and tested on them."""
        row_names = ["id", *spec.columns, *spec.through.values(), *spec.row_computes]
        group_parts: list[Sparql] = [var(n) for n in spec.group_by or []]
        skipped: list[Sparql] = []
        numbers = [Sparql(f"BIND({numeric(var(of))} AS {variable('n_' + of)})")
                   for of in dict.fromkeys(a.of for a in spec.aggregates.values() if a.fn in NUMERIC_AGGREGATES)]
        for name, aggregation in spec.aggregates.items():
            group_parts.append(Sparql(f"({aggregate(aggregation)} AS {variable('g_' + name)})"))
            if aggregation.fn in NUMERIC_AGGREGATES:
                skip = variable("s_" + name)
                group_parts.append(Sparql(f"(({skipped_count(aggregation)}) AS {skip})"))
                skipped.append(skip)
        after: list[Sparql] = []
        # MIN / MAX stand-ins stay in the query (they sort where nulls do) and become null
        # in the answer (`is_missing`).
        after += [Sparql(f"BIND({variable('g_' + name)} AS {var(name)})") for name in spec.aggregates]
        after += [computed(name, formula) for name, formula in spec.group_computes.items()]
        after += [Sparql(f"FILTER({self.condition(t, spec)})") for t in spec.having]
        return {
            "projection": joined([*(var(n) for n in spec.outputs), *skipped]),
            "group_projection": joined(group_parts),
            "row_projection": joined(var(n) for n in row_names),
            "body": body,
            "numbers": joined(numbers, "\n"),
            "group_by": joined(var(n) for n in spec.group_by or []),
            "after": joined(after, "\n"),
        }

    def rows(self, spec: Spec) -> Sparql:
        flags = ["ids"] if spec.rows_type is None else (["subtypes"] if spec.subtypes else [])
        slots = {"ids": iris(spec.rows_ids)} if spec.rows_type is None else {"type": iri(spec.rows_type)}
        rows = Sparql(self.profile.render("table_rows", flags, **slots))
        if self.held is not None and spec.rows_type is not None:
            # The store's check drops every row once it says no, but it is still called for
            # each (a few microseconds): the rows read end where the solutions held must have
            # passed their bound (past it the check has said no anyway).
            rows = Sparql(f"{{ SELECT ?c_id WHERE {{\n{rows}\n}} LIMIT {integer(self.held + 1)} }}")
        return rows

    def count(self, spec: Spec, cap: int) -> str:
        """A query counting the table's rows, up to `cap` + 1 (the store stops reading there)."""
        return self.profile.render("table_count", rows=self.rows(spec), limit=integer(cap + 1))

    def most_rows(self, spec: Spec, degree: Callable[[Step], tuple[int, int] | None], allowed: int) -> int | None:
        """The most rows whose query goes through at most `allowed` bindings and tests, from,
        along each step, the most values one entity has and the predicate's triples
        (`degree`: None where not known). Along a path the store meets at most the product
        of the most values at each step, at each depth (the partial paths, dead ends
        included); the columns multiply (each is joined on every solution of the ones
        before), and so do the conditions' paths (each tested on every solution). A value on
        a last step onto text counts as many times as the most values there (for one in
        another language the query looks through the others), a statement the filters judge
        in the reification model as many times as one entity has statements (the store may
        start from those). A column of one step no filter judges has at most a solution a
        row and one a triple, however the values fall (a few much-linked rows are not each
        as linked as the most linked one). None where that does not bound it: Wikidata's
        claims, or a step whose degree it cannot tell."""
        if self.claims:
            return None
        statements = 1
        if self.filtered and self.profile.linked_statements:
            ends = [degree(Step(RDF + t, backward=True)) for t in ("subject", "object")]
            if None in ends:
                return None
            statements = max(1, *(e[0] for e in ends if e is not None))
        paths: list[tuple[int, int | None]] = []
        for steps, languages in [*((s, not self._untagged(spec, s)) for s in spec.columns.values()),
                                 *((t.steps, False) for t in spec.where if t.steps)]:
            path = self._path(steps, languages and bool(spec.languages), degree, statements)
            if path is None:
                return None
            paths.append(path)
        # Work is rows times every path, or, through a path its triples bound, rows and
        # those triples times the other paths: the least of these is the bound.
        most = allowed // math.prod(each for each, _ in paths)
        for i, (_, triples) in enumerate(paths):
            if triples is not None:
                most = max(most, allowed // math.prod(each for j, (each, _) in enumerate(paths) if j != i) - triples)
        return most

    def _path(self, steps: Sequence[Step], languages: bool, degree: Callable[[Step], tuple[int, int] | None],
              statements: int) -> tuple[int, int | None] | None:
        """A path's bindings a row (`most_rows`), and its triples where they bound its bindings
        over all rows; None where a step's degree is not known."""
        reach, path, last, judged, triples = 1, 0, 1, False, 0
        for step in steps:
            found = degree(step)
            if found is None:
                return None
            most, triples = found
            judged = self.filtered and step.predicate not in NON_EDGES
            last = max(1, most + (self._unasserted_most(step) if judged else 0))
            reach *= last  # the partial paths this deep
            path += reach * (statements if judged else 1)
        texts = languages and not steps[-1].backward
        if texts:
            path += reach * last
        return path, triples if len(steps) == 1 and not judged and not texts else None

    def _unasserted_most(self, step: Step) -> int:
        """The most reifier-only statements of the step's predicate one entity has (those a
        step adds to the triples: `unasserted`)."""
        pairs = self.unasserted.get(step.predicate, ())
        return max(Counter(o if step.backward else s for s, o in pairs).values(), default=0)

    def _untagged(self, spec: Spec, steps: tuple[Step, ...]) -> bool:
        """Whether a column's values need no language filter (one step onto a property the
        rows' type holds no language-tagged text for)."""
        return (spec.tagged is not None and not self.claims and len(steps) == 1
                and steps[0].predicate not in spec.tagged)

    def body(self, spec: Spec) -> Sparql:
        parts = [self.watched(self.rows(spec), var("id"))]
        for name, steps in spec.columns.items():
            languages = () if self._untagged(spec, steps) else spec.languages
            middle = var(spec.through[name]) if name in spec.through else None
            parts.append(Sparql(f"OPTIONAL {{\n{self.path(var('id'), steps, var(name), languages, middle=middle)}\n}}"))
        parts += [computed(name, formula) for name, formula in spec.row_computes.items()]
        if self.held is not None:  # each solution, before the conditions: what the store may go on to hold
            parts.append(Sparql(f"BIND({iri(HELD)}({var('id')}) AS ?held)\nFILTER(?held)"))
        parts += [Sparql(f"FILTER({self.condition(t, spec)})") for t in spec.where]
        return joined(parts, "\n")

    def condition(self, test: Test, spec: Spec) -> Sparql:
        if test.steps:
            end = self.fresh("w")
            pattern = self.path(var("id"), test.steps, end, last_watched=False)
            if test.op == "missing":
                return Sparql(f"NOT EXISTS {{\n{pattern}\n}}")
            if test.op == "exists":
                return Sparql(f"EXISTS {{\n{pattern}\n}}")
            return Sparql(f"EXISTS {{\n{pattern}\nFILTER({self.compare(end, test)})\n}}")
        return self.compare(var(test.subject or "id"), test)

    def compare(self, v: Sparql, test: Test) -> Sparql:
        if test.other is not None:
            return compare_columns(v, test.op, var(test.other))
        return compare_value(v, test.op, test.values)

    def order(self, spec: Spec) -> Sparql:
        """The caller's order (nulls last, numbers as numbers, else text), then every
        output column, so that pages never overlap (`Spec.ties_ordered`); empty for none."""
        keys: list[str] = []
        for name, descending in spec.order:
            v = var(name)
            direction = "DESC" if descending else "ASC"
            # SPARQL sorts unbound first: descending puts nulls last by itself. What is
            # not a number sorts by its text (terms of several kinds sort differently
            # from one store to another). Nulls last as a number: Virtuoso drops !BOUND(v) as a
            # constant where v is always bound (a count) and then refuses the query.
            keys += [] if descending else [f"ASC(IF(BOUND({v}), 0, 1))"]
            keys += [f"{direction}({numeric(v)})", f"{direction}(STR({v}))"]
        if spec.ties_ordered and spec.one_row_each and not spec.grouped and "id" in spec.outputs:
            keys.append("ASC(?c_id)")
        elif spec.ties_ordered:
            keys += [key for n in spec.outputs for key in (["ASC(?c_id)"] if n == "id" else apart(var(n)))]
        return Sparql(" ".join(keys))


def apart(v: Sparql) -> list[str]:
    """Sort keys setting any two terms apart in one total order: IRIs and blank nodes as
    the store orders them, then literals by datatype, language and text. Ordered by the
    store's own comparison, literals of some mixes of types (numbers, text, dates) compare
    inconsistently, and its sort then panics, which aborts the whole process; each of these
    keys holds terms of one kind only (a row's ID is always an IRI, ordered as it is)."""
    return [f'ASC(IF(isLiteral({v}), "", {v}))', f"ASC(DATATYPE({v}))", f"ASC(LANG({v}))", f"ASC(STR({v}))"]


LARGEST = literal(1.7976931348623157e308)
"""The largest finite double."""


def computed(name: str, formula: Formula) -> Sparql:
    """A computed column `?c_name`: the formula's value where it is a finite number, else
    unbound (null), as an overflow is: a double past its range is INF, and INF - INF NaN,
    where an integer or a decimal one is an error. An unbound variable stands for "no
    value" (`?u_name` is bound nowhere): an error written as such (1/0) fails the whole
    query on some stores."""
    value, column = variable(f"f_{name}"), var(name)
    return Sparql(f"BIND({render(formula, lambda n: numeric(var(n)))} AS {value})\n"
                  f"BIND(IF(ABS({value}) <= {LARGEST}, {value}, {variable(f'u_{name}')}) AS {column})")


def is_missing(term: object) -> bool:
    """Whether an answer's cell is MIN's or MAX's stand-in for "no value"."""
    return isinstance(term, Blank) or (isinstance(term, Literal) and term.value == SENTINEL)


def skipped_count(aggregation: Aggregation) -> Sparql:
    """How many of a numeric aggregate's values are no number (text is skipped by min and
    max only where the group has numbers)."""
    v, n = var(aggregation.of), variable("n_" + aggregation.of)
    count = f"COUNT({v}) - COUNT({n})"
    if aggregation.fn in ("min", "max"):
        count = f"IF(COUNT({n}) > 0, {count}, 0)"
    return Sparql(count)


def aggregate(aggregation: Aggregation) -> Sparql:
    """The aggregate over the rows' `?c_x` and its number `?n_x` (bound by the query)."""
    v = var(aggregation.of)
    n = variable("n_" + aggregation.of)
    fn = aggregation.fn
    if fn == "count":
        return Sparql(f"COUNT({v})")
    if fn == "count_distinct":
        return Sparql(f"COUNT(DISTINCT {v})")
    if fn == "sum":
        return Sparql(f"SUM(COALESCE({n}, 0))")
    if fn == "avg":
        return Sparql(f"(SUM(COALESCE({n}, 0)) * 1.0 / COUNT({n}))")
    # A missing value would make MIN / MAX unbound (SPARQL's error rule): it stands in as
    # a value that loses (a blank node sorts first, SENTINEL last), then becomes null.
    # The numbers of a group, where it has any; else its values (dates, text).
    if fn == "max":
        return Sparql(f"IF(COUNT({n}) > 0, MAX(COALESCE({n}, BNODE())), MAX(COALESCE({v}, BNODE())))")
    return Sparql(f"IF(COUNT({n}) > 0, MIN(COALESCE({n}, {literal(SENTINEL)})), MIN(COALESCE({v}, {literal(SENTINEL)})))")
