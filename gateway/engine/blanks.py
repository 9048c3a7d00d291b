"""The blank nodes an entity owns, written inline in its full data as Turtle writes them:
`[ owl:onProperty ssn:hasSubSystem ; owl:someValuesFrom ssn:System ]`, a list as `( a b c )`.

A restriction, an anonymous agent or a list is part of its owner's data, never silently
dropped; and never more of it than an answer can carry. Bounded so:

- at most `BLANKS_SHOWN` blank values of one property, `PAIRS_SHOWN` properties of one blank
  node and `LIST_ITEMS` members of one list are written; the rest are counted, in the values
  themselves (`…(+N)`, `…(+N more blank nodes)`) and in a warning where the answer has them;
- one read takes at most `BLANK_ROWS` rows (a query cannot name a blank node, so a
  structure is read with its owner, whole): an owner holding more is counted by the store
  (`blank_sizes.rq`) and said so, never shown in part as if whole;
- a list that is no list, one that loops back (a cycle) or branches (a cell with two
  `rdf:rest`), is written up to there and named in a warning: never walked for ever, never
  shown as a proper list.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from gateway.backends.base import Rows
from gateway.deadline import ALIVE
from gateway.engine.context import GraphContext
from gateway.engine.query_threads import by_deadline
from gateway.sparql import iri, iris, writable
from gateway.terms import RDF, Blank, Literal, Term

BLANK_DEPTH = 3
"""Blank nodes inside blank nodes written out at most this deep; deeper ones are `[…]`."""
LIST_ITEMS = 50
"""Members of one rdf:List written out; the rest are counted."""
BLANKS_SHOWN = 100
"""Blank values of one property of one entity written out (the first in text order); the
rest are counted in a warning."""
PAIRS_SHOWN = 50
"""Properties of one blank node written out; the rest are counted."""
BLANK_ROWS = 80_000
"""Rows one read of blank nodes takes at most (about 1.2 s in process, never past the call's
deadline; the rows read as Python values peak near 100 MB, and the allocator keeps some of
that after the call, so more would keep more): a list of about 40,000 members, or 25,000
restrictions; an owner holding more is counted, not shown."""
_FIRST, _REST, _NIL = RDF + "first", RDF + "rest", RDF + "nil"

Content = dict[str, list[tuple[str, Term]]]
"""Blank node -> its (predicate, value) pairs, each once, in the order read."""


class Blanks:
    """What `read` found: per owner, per predicate, the blank values written out, and the
    warnings that say what was left out or is not what it looks like."""

    def __init__(self, to_id: Callable[[str], str]) -> None:
        self.to_id = to_id
        self.owned: dict[str, dict[str, list[str]]] = {}
        self.warnings: list[str] = []

    def of(self, node: str) -> dict[str, list[str]]:
        return self.owned.get(node, {})


def read(ctx: GraphContext, nodes: Sequence[str], held: Mapping[str, Mapping[str, int]] | None = None) -> Blanks:
    """The blank nodes `nodes` own (`queries/native/blank_values.rq`), written out. `held`:
    each node's blank values per predicate, where the caller read them already: an owner of
    more than one read takes is counted so, without reading its blank nodes at all."""
    found = Blanks(ctx.ids.to_id)
    for x in nodes:
        if held is not None and _rows_needed({p: (n, 0) for p, n in held.get(x, {}).items()}) > BLANK_ROWS:
            _counted(found, x, {p: (n, 0) for p, n in held[x].items()})
    for chunk in _chunks([x for x in nodes if x not in found.owned]):
        rows = _rows(ctx, chunk)
        if len(rows) > BLANK_ROWS:  # cut: some owner holds more than one read takes
            big = _sizes(ctx, chunk)
            large = {x for x, sizes in big.items() if _rows_needed(sizes) > BLANK_ROWS // 4}
            rest = [x for x in chunk if x not in large]
            rows = _rows(ctx, rest) if rest else []
            if len(rows) > BLANK_ROWS:
                large, rows = set(chunk), []
            for x in sorted(large):
                _counted(found, x, big.get(x, {}))
        _written(found, rows)
    return found


def _rows(ctx: GraphContext, chunk: Sequence[str]) -> Rows:
    # Where the store runs the gateway's checks, a long read ends at the call's deadline (a
    # typed timeout: never a structure shown in part as if whole), on a thread of its own:
    # what the store does after its checks said no outlasts the deadline.
    checked = ["checked"] if ctx.backend.capabilities.evaluates_checks else []
    text = ctx.profile.render("blank_values", checked, ids=iris(chunk), alive=iri(ALIVE))

    def read() -> Rows:
        return ctx.backend.select(f"{text}\nLIMIT {BLANK_ROWS + 1}")[1]

    return by_deadline(read) if checked else read()


def _sizes(ctx: GraphContext, chunk: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """Owner -> predicate -> (blank values, list members under them), counted by the store."""
    sizes: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    checked = ["checked"] if ctx.backend.capabilities.evaluates_checks else []

    def read() -> Rows:
        return ctx.select("blank_sizes", checked, ids=iris(chunk), alive=iri(ALIVE))

    for x, p, n, cells in by_deadline(read) if checked else read():
        sizes[str(x)][str(p)] = (_int(n), _int(cells))
    return sizes


def _rows_needed(sizes: dict[str, tuple[int, int]]) -> int:
    """About the rows `blank_values.rq` answers for an owner: a few a blank value, two a member."""
    return sum(3 * n + 2 * cells for n, cells in sizes.values())


def _counted(found: Blanks, x: str, sizes: dict[str, tuple[int, int]]) -> None:
    """An owner whose blank nodes are too many to read here: each property's, counted."""
    to_id = found.to_id
    shown = found.owned.setdefault(x, {})
    for p, (n, cells) in sorted(sizes.items()):
        members = f", {cells:,} list members" if cells else ""
        shown[p] = [f"[… {n:,} blank nodes{members} …]"]
        found.warnings.append(f"{to_id(x)}: {to_id(p)}: {n:,} blank nodes{members}, more than one answer reads "
                              f"({BLANK_ROWS:,} rows): counted, not shown")


def _written(found: Blanks, rows: Iterable[Sequence[Term | None]]) -> None:
    owned: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    content: Content = defaultdict(list)
    seen: set[tuple[str, str, Term]] = set()
    for x, p, top, b, q, v in rows:
        owned[str(x)][str(p)].add(str(top if top is not None else b))  # no ?top: ?b is the blank value
        if v is not None and (key := (str(b), str(q), v)) not in seen:
            seen.add(key)
            content[str(b)].append((str(q), v))
    writer = _Writer(content, found)
    for x, by in owned.items():
        for p, tops in by.items():
            texts = sorted(writer.turtle(b, BLANK_DEPTH, (x, p)) for b in tops)
            shown = texts[:BLANKS_SHOWN]
            if len(texts) > BLANKS_SHOWN:  # said in the values too: describe_entity's answer has no warnings
                shown.append(f"…(+{len(texts) - BLANKS_SHOWN:,} more blank nodes)")
                found.warnings.append(f"{found.to_id(x)}: {found.to_id(p)}: {len(texts):,} blank nodes, the first "
                                      f"{BLANKS_SHOWN} shown")
            found.owned.setdefault(x, {})[p] = shown


class _Writer:
    def __init__(self, content: Content, found: Blanks) -> None:
        self.content = content
        self.found = found
        self.to_id = found.to_id
        self.told: set[tuple[str, str, str]] = set()

    def turtle(self, node: str, depth: int, owner: tuple[str, str]) -> str:
        """A blank node as Turtle text: a list as `( ... )`, anything else as `[ p v ; ... ]`."""
        if depth <= 0 or node not in self.content:
            return "[…]"
        own = self.content[node]
        if any(q == _FIRST for q, _ in own):
            return self._list(node, depth, owner)
        pairs = sorted(f"{self.to_id(q)} {self._value(v, depth - 1, owner)}" for q, v in own[:PAIRS_SHOWN])
        more = f" ; …(+{len(own) - PAIRS_SHOWN})" if len(own) > PAIRS_SHOWN else ""
        return f"[ {' ; '.join(pairs)}{more} ]"

    def _list(self, head: str, depth: int, owner: tuple[str, str]) -> str:
        """The members in order, followed along `rdf:rest` from `head` once each: where the
        cells stop being a list (a loop, a branch, a cell without one member or going on to
        something that is no cell), the members up to there and a warning naming it."""
        cells: list[str] = []
        place: dict[str, int] = {}
        cell, unread = head, False
        kind = problem = ""
        while True:
            if cell in place:
                kind, problem = "cycle", f"loops back to its member {place[cell] + 1} after {len(cells)} (a cycle)"
                break
            place[cell] = len(cells)
            cells.append(cell)
            own = self.content[cell]
            firsts = sum(q == _FIRST for q, _ in own)
            rests = [v for q, v in own if q == _REST]
            if firsts != 1:
                kind, problem = "not a list", f"has {firsts} values at its member {len(cells)} (rdf:first)"
                break
            if len(rests) > 1:
                kind, problem = "branch", f"branches after its member {len(cells)} ({len(rests)} rdf:rest)"
                break
            following = rests[0] if rests else None
            if following == _NIL:
                break
            if not isinstance(following, Blank):
                kind = "not a list"
                problem = (f"ends after its member {len(cells)} without rdf:nil" if following is None else
                           f"goes on after its member {len(cells)} to {self._value(following, 0, owner)}, no list cell")
                break
            if str(following) not in self.content:  # not read: nested too deep
                unread = True
                break
            cell = str(following)
        items = []
        for c in cells[:LIST_ITEMS]:
            member = next((v for q, v in self.content[c] if q == _FIRST), None)
            items.append(self._value(member, depth - 1, owner))
        more = f" …(+{len(cells) - LIST_ITEMS})" if len(cells) > LIST_ITEMS else ""
        if unread:
            more += " …"
        if problem:
            more += f" …({kind})"
            self._warn(owner, f"a list that {problem}: shown up to there")
        return f"( {' '.join(items)}{more} )"

    def _warn(self, owner: tuple[str, str], text: str) -> None:
        key = (*owner, text)
        if key not in self.told:
            self.told.add(key)
            x, p = owner
            self.found.warnings.append(f"{self.to_id(x)}: {self.to_id(p)}: {text}")

    def _value(self, term: Term | None, depth: int, owner: tuple[str, str]) -> str:
        if isinstance(term, Blank):
            return self.turtle(str(term), depth, owner)
        if isinstance(term, Literal):
            return json.dumps(term.value, ensure_ascii=False)
        return self.to_id(str(term)) if term is not None else "[…]"


def _int(term: object) -> int:
    return int(term.value) if isinstance(term, Literal) and term.value.isdigit() else 0


def _chunks(items: Sequence[str], size: int = 2000) -> Iterable[Sequence[str]]:
    """IRIs in slices for VALUES blocks, those no query can name left out (`sparql.writable`)."""
    items = writable(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]
