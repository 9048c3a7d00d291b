"""A table's top rows without sorting its whole type: an order index per (type, column).

A table ordered by a column of one forward step (or by the ID, as a table in no asked order
is) is, for its first pages, the table of the few entities that come first in that order. `order_index` asks the store once for
the first `PREFIX` entities of the type in the table's own order (the same SPARQL order
keys `TableQuery.order` writes: nulls last, numbers as numbers, then text, then the ID),
and the index is kept per open graph. `top` then walks it: it asks the table's own query
(filters, columns, order and page unchanged) over the first entities of the index, more of
them each time, until the page it gets is provably the whole table's page.

Why the answer is the full sort's. After `j` entries of the index, every row whose place in
the order comes strictly before entry `j`'s has its entity among the entities asked (the
index holds every (entity, value) pair of the type in that order). So once the page asked
over them ends (its row past the page included) strictly before entry `j`, no row of
another entity can come before any of its rows: it is the whole table's page. The store
orders both queries, so no order is written twice. "Strictly before" is told from the
index alone: a row's pair at a position before the first of the entries that tie with
entry `j` (the same text, and the same ID where the column is the only order key, since
the ID breaks its ties next).

A table the index cannot answer (grouped, or ordered by a longer path) is still sorted
whole, but by the caller's order first (`by_places`): what makes its order total, the
columns after it (the ID first), is the costly part of the sort, since the store compares
IRIs by their text, read from its dictionary (at 1M triples 0.55 of the 0.67 s a top 10
of 16k groups took). The first query finds the places of the order the page covers; a
second one, only where rows of one place stand at the page's edges or in it, reads the
rows of those places, in the full order, from the same offset counted from the first of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from gateway.engine.tables import Spec, TableQuery, Test, is_missing
from gateway.terms import Blank, Literal

PREFIX = 9_999
"""Entries (entity, value) an index keeps: the head of the order, enough for a page of 1,000
rows where one row in ten passes the filters. About 2 MB each; a graph keeps at most
`context.CALLER_KEYS` of them. A page the head cannot answer is made by the full query.
Its query reads one more (LIMIT 10000): the most rows Virtuoso sorts, so that the query
runs as written on every store tests/backends/test_rows.py holds, though only embedded
stores are sent it."""
FIRST = 64
"""Entities the first query of a walk asks for at least (then four times more each time)."""
WIDTH = 12
"""Entities the first query of a walk asks for each row it needs: a filter one row in five
passes (a top 10 under a weight) then fills the page the first time but about once in 300.
A second query costs more than the first one's extra entities, and the round a page needs
would follow the data, not the graph's size."""

Rows = list[list[object]]


@dataclass(frozen=True)
class OrderIndex:
    """The first entries of a type's (entity, value) pairs in a table's order."""

    entries: tuple[tuple[str, object], ...]
    complete: bool
    """Whether the entries are all the type's pairs."""
    runs: tuple[int, ...]
    """Per entry, the position of the first entry it ties with (see `ties`)."""
    positions: dict[tuple[str, object], int]
    """Where each pair stands (its first position)."""


def first_key(spec: Spec) -> tuple[str, bool]:
    """The table's first order key: its first order column, else the ID (a table in no
    asked order is in the order of its columns, the ID first)."""
    return spec.order[0] if spec.order else ("id", False)


def order_spec(spec: Spec) -> Spec:
    """The index's own table: the rows of `spec`'s type and its first order column, in that
    column's order then by ID (`TableQuery.order`'s keys), `PREFIX` of them."""
    name = first_key(spec)[0]
    columns = {name: spec.columns[name]} if name != "id" else {}
    return replace(spec, rows_ids=(), columns=columns, row_computes={}, where=[], group_by=None, aggregates={},
                   group_computes={}, having=[], order=spec.order[:1], limit=PREFIX, offset=0,
                   outputs=["id", *columns], through={})


def indexable(spec: Spec, builder: TableQuery) -> bool:
    """Whether the index can answer `spec`: rows of a type, not grouped, ordered first by the
    ID or a column of one forward step (what one pair per entity and value places), on
    statements the profile reads as triples (no claims: their values repeat)."""
    if spec.grouped or spec.rows_type is None or spec.through or builder.claims:
        return False
    name = first_key(spec)[0]
    steps = spec.columns.get(name, ())
    one_step = len(steps) == 1 and not steps[0].backward and not steps[0].repeat
    return (name == "id" or one_step) and spec.offset + spec.limit < PREFIX


def by_entity(spec: Spec) -> bool:
    """Whether the ID breaks the first order key's ties next (or is that key): the entries
    that tie are then those of one entity only."""
    return len(spec.order) <= 1 or first_key(spec)[0] == "id"


def build(rows: Sequence[Sequence[object]], only_key: bool) -> OrderIndex:
    """The index from the answer of `order_spec`'s query (`PREFIX` + 1 rows at most);
    `only_key`: entries tie within one entity only (`by_entity`)."""
    entries = tuple((str(row[0]), row[1] if len(row) > 1 else None) for row in rows[:PREFIX])
    runs: list[int] = []
    for i, (entity, value) in enumerate(entries):
        same = i > 0 and _place(value) == _place(entries[i - 1][1]) and (not only_key or entity == entries[i - 1][0])
        runs.append(runs[-1] if same else i)
    positions: dict[tuple[str, object], int] = {}
    for i, entry in enumerate(entries):
        positions.setdefault(entry, i)
    return OrderIndex(entries, len(rows) <= PREFIX, tuple(runs), positions)


def _place(value: object) -> tuple[str, str]:
    """What two values tying in the order share: their text (SPARQL's STR; a blank node
    has none, as no value has). Values of one text may still differ as numbers ("5" and
    "5.0" do not: their texts differ): then the entries are taken as tied, which only
    asks for more entities, never fewer."""
    if value is None:
        return ("null", "")
    if isinstance(value, Blank):
        return ("blank", "")
    return ("text", value.value if isinstance(value, Literal) else str(value))


def top(index: OrderIndex, spec: Spec, run: Callable[[Spec], Rows]) -> Rows | None:
    """The page of `spec` (its row past the page included), asked over ever more of the
    index's first entities (`run` answers a spec over listed rows); None where the index's
    entries run out before the page is certain (the full query makes it)."""
    name = first_key(spec)[0]
    column = spec.outputs.index(name) if name != "id" else None
    wanted = spec.offset + spec.limit + 1
    size = min(len(index.entries), max(FIRST, WIDTH * wanted))
    while True:
        entities = list(dict.fromkeys(entity for entity, _ in index.entries[:size]))
        rows = run(spec.over(entities))
        if size == len(index.entries) and index.complete:
            return rows
        if len(rows) > spec.limit and _before(index, rows[spec.limit], column, size - 1):
            return rows
        if size == len(index.entries):
            return None
        size = min(len(index.entries), 4 * size)


def _before(index: OrderIndex, row: Sequence[object], column: int | None, last: int) -> bool:
    """Whether `row` comes strictly before every entry that ties with entry `last`."""
    position = index.positions.get((str(row[0]), None if column is None else row[column]))
    return position is not None and position < index.runs[last]


@dataclass(frozen=True)
class Head:
    """Rows of a table in the caller's order alone, from a little before a page (`by_places`)."""

    rows: Rows
    places: list[tuple[str, str]]
    """Each row's place: its first order column's (`_place`)."""
    complete: bool
    """Whether the rows are all the table's from the first one read."""
    ids: int | None
    """The ID's column, where the table over some of its entities holds their rows as the
    whole table does (rows not grouped, or grouped by the ID among others); else None."""

    def entities(self, places: set[tuple[str, str]]) -> list[str] | None:
        """The entities of every row of these places, where the head holds all of them (a
        place's rows stand together: a row of another place after them says so); else None."""
        at = [i for i, place in enumerate(self.places) if place in places]
        if self.ids is None or not at or (at[-1] == len(self.rows) - 1 and not self.complete):
            return None
        return list(dict.fromkeys(str(self.rows[i][self.ids]) for i in at))

    def narrowed(self, name: str, check: Spec) -> Spec:
        """A check's table (`table_warnings`: the count of a tie the page ends in) over the
        entities of the tied place's rows, where the head holds them all; else `check`."""
        test = check.tie(name)
        if test is None or check.rows_type is None or None in test.values:
            return check
        entities = self.entities({("text", str(value)) for value in test.values})
        return check if entities is None else check.over(entities)


def by_places(spec: Spec, run: Callable[[Spec], Rows]) -> tuple[Rows, Head] | None:
    """The page of `spec` (its row past the page included) from the caller's order alone,
    and then, where places tie, from the rows of the places it covers (over the entities
    holding them where the head shows them all); and the head, which can narrow the
    checks. None where a place is no value's text (nulls and blank nodes do not stand
    together in both directions of the order: the table's own query makes the page).

    Why the answer is the full sort's. Rows of one place (the same text in the first order
    column) share their keys in that column, so they stand together in either order, the
    rows of earlier places before them. The head holds the caller's order from `FIRST`
    rows before the page (a deep page's rows before those are not read) to past the row
    past the page. Where the page's first place begins within it, the rows before that
    place are before it in the full order too, and their number is known; where it begins
    at the head's first row, it may begin earlier (the full query makes the page). Where
    the page's places are each one row's, and the rows beside the page are of other
    places, the caller's order is the full one there. Else the rows of the page's places
    are one run of the full order, starting where the first of them starts in the head."""
    name = spec.order[0][0]
    column = spec.outputs.index(name)
    start = max(0, spec.offset - FIRST)  # a deep page: its rows and a few before, not all before it
    wanted = spec.offset + spec.limit + 1 - start
    read = 2 * wanted + FIRST  # more than the page: the places at its edges most often end within them
    rows = run(replace(spec, ties_ordered=False, offset=start, limit=read))
    at = spec.offset - start
    if any(_place(row[column])[0] != "text" or is_missing(row[column]) for row in rows[at:wanted]):
        return None
    by_id = "id" in spec.outputs and (not spec.grouped or "id" in (spec.group_by or []))
    head = Head(rows, [_place(row[column]) for row in rows], len(rows) <= read,
                spec.outputs.index("id") if by_id else None)
    page = head.places[at:wanted]
    if not page:
        return [], head
    first = head.places.index(page[0])
    if first == 0 and start > 0:
        return None  # the first place's rows may begin before those read
    if len(set(page)) == len(page) and first == at and head.places[wanted:wanted + 1] != page[-1:]:
        return rows[at:wanted], head
    tied = Test("tie", name, values=tuple(dict.fromkeys(text for _, text in page)))
    part = replace(spec.tested([tied]), offset=spec.offset - start - first)
    entities = head.entities(set(page))
    return run(part.over(entities) if entities is not None else part), head


def narrowed(index: OrderIndex, spec: Spec, check: Spec) -> Spec:
    """A check's table (`table_warnings`: the count of a tie the page ends in) over the
    entities the index says hold the tied value, where it holds all of them: the pairs of
    one text tie, so they stand together in the order, and an entry of another text after
    them (or the index is the whole type) says none is past the index. Else `check` as it is."""
    name = first_key(spec)[0]
    test = check.tie(name)
    if name == "id" or check.rows_type is None or test is None or test.values[0] is None:
        return check
    place = ("text", str(test.values[0]))
    held = [i for i, (_, value) in enumerate(index.entries) if _place(value) == place]
    if not held or (held[-1] == len(index.entries) - 1 and not index.complete):
        return check
    entities = list(dict.fromkeys(index.entries[i][0] for i in held))
    return check.over(entities)
