"""What the name index is made of: every entity with a name, a readable local name or a
searched value, with its degree, types and sitelinks, gathered through a scratch SQLite
file (`collect`) so that a graph's names are never all held in Python at once.
"""

from __future__ import annotations

import itertools
import os
import re
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

from gateway.engine.census import UNSEARCHED, Census, Entity, census
from gateway.engine.context import GraphContext
from gateway.engine.presentation import TypeNames, bookkeeping
from gateway.ids import IdMapper, local_name, shown_as_is
from gateway.profiles.base import NON_EDGE_PREDICATES
from gateway.sparql import iris
from gateway.terms import Literal, pick_literal

BATCH = 50_000
"""Rows written to SQLite at a time."""
_READABLE = re.compile(r"[^\W\d_]{3,}")
_CODE = re.compile(r"[0-9a-f]{8,}|[A-Z]?\d+")


def readable_name(local: str) -> str | None:
    """An ID's local name as a name (`Cushing's_disease`), or None for a code (`D003480`)."""
    if not _READABLE.search(local) or _CODE.fullmatch(local):
        return None
    return local.replace("_", " ")


def own_name(iri: str, to_id: Callable[[str], str]) -> str | None:
    """The readable name of an IRI's ID (`readable_name`). An ID's local name ends the
    IRI's own (the ID is a prefix and the rest of the IRI), so where the IRI's holds no
    word, neither does the ID's, and the ID is not made: a graph of codes (`n/123`,
    `HP_0001336`, `Q42`) then costs no lookup in the prefix map an entity."""
    local = local_name(iri)
    if local.isdigit() and local.isascii():  # a number, as most codes are: no regular expression asked
        return None
    if not _READABLE.search(local) and shown_as_is(local):  # as the ID shows it: no escape adds letters
        return None
    return readable_name(local_name(to_id(iri)))


@dataclass(slots=True)
class Entry:
    """One entity as the index keeps it."""

    iri: str
    label: str | None
    label_language: str | None
    entity_type: str
    """Its types as an answer names them (`TypeNames`)."""
    degree: int
    sitelinks: int
    types: list[str]
    """Its IRI types, each once, sorted."""
    texts: list[tuple[str, str, str | None]]
    """(kind, text, language): "label", "alt" (a synonym; its readable local name last), and
    "description" and "value", which are searched as text only."""


_KINDS = ("label", "alt", "description", "value")
"""The kinds of text the index is made of, in the order an entity's are read back."""
_VALUE = _KINDS.index("value")
_ENTITY = -1
"""The staged row of an entity's degree, types and readable local name (before its names)."""
_StagedRow = tuple[str, int, str, str | None, int, str, str | None, int]
"""(IRI, kind, text, language, degree, types, readable local name, sitelinks)."""


def collect(ctx: GraphContext, counted: Census | None = None, *, beside: Path | None = None) -> Iterator[Entry]:
    """Every entity the index holds, in IRI order: those with a name, a readable local name
    (Jane_Doe) or a searched value. What is read from the store (names; degrees, types and
    text values from `counted` or the store's `census` where it can be taken, else SPARQL)
    is read before this returns, into a scratch file in `beside` (`_Staged`); the entries
    are made from it as they are asked for."""
    # The graph's own mapper keeps the last `ID_CACHE_SIZE` IRIs it was asked: asked for
    # every entity here, it would keep a quarter million strings made among the build's
    # millions, each pinning the allocator's arena it sits in (0.66 GB on NCBITaxon,
    # bench/RESULTS.md). One of the build's own is let go with it; the IDs are the same.
    to_id = IdMapper(ctx.ids.converter, vocabulary=ctx.ids.vocabulary).many_ids()
    counted = counted if counted is not None else census(ctx)
    entities, text_rows = _counts(ctx) if counted is None else (counted.entities, counted.text_values)
    staged = _Staged(beside)
    try:
        staged.texts(_named_rows(ctx))
        # Names and bfs: values are no text values where these are read (`census.UNSEARCHED`,
        # text_values.rq); the data's own bookkeeping is known only here.
        hidden = bookkeeping(ctx)
        staged.texts((str(x), _VALUE, text.value, text.language) for x, p, text in text_rows
                   if isinstance(text, Literal) and str(p) not in hidden)
        staged.entities(_entity_rows(entities, to_id, every=bool(staged.text_rows)))
        sitelinks = [(str(x), _count(n)) for x, n in ctx.select("sitelinks")]
        staged.ordered(sitelinks)
    except BaseException:
        staged.close()
        raise
    return _entries(ctx, staged, to_id)


def _named_rows(ctx: GraphContext) -> Iterator[tuple[str, int, str, str | None]]:
    for x, kind, text in ctx.profile.rows("names"):
        if isinstance(text, Literal) and isinstance(x, str):
            kind = kind.value if isinstance(kind, Literal) else "label"
            # A kind the templates do not bind is read as a synonym.
            yield x, _KINDS.index(kind) if kind in _KINDS else _KINDS.index("alt"), text.value, text.language


def _entity_rows(
    entities: Iterable[Entity], to_id: Callable[[str], str], *, every: bool,
) -> Iterator[tuple[str, int, str, str | None]]:
    """(IRI, degree, types, readable local name) of each entity with a degree or a type;
    the readable name only where it can keep the entity in the index (it has a degree).
    Without `every` (no name or value was staged), only those a readable name keeps: no
    other can make an entry (a graph of codes without names then stages next to nothing)."""
    for x, degree, kinds in entities:
        own = own_name(x, to_id) if degree else None
        if every or own is not None:
            yield x, degree, "\t".join(kinds), own


class _Staged:
    """What the index is made of, in a scratch SQLite file (its name gone once opened)
    rather than in Python: held as Python objects, the names of a 50M-triple graph (9.8M
    entities) took the loader to 19.1 GiB (docs/scaling.md). Read back in IRI order, an
    entity's own row (`_ENTITY`) first, then its labels, synonyms, descriptions and
    values, each kind in the order it was read."""

    def __init__(self, beside: Path | None) -> None:
        self.text_rows = 0
        """Names and values staged so far."""
        handle, name = tempfile.mkstemp(prefix=".bfsql-names-", suffix=".sqlite", dir=beside)
        os.close(handle)
        try:
            self._db = sqlite3.connect(name, check_same_thread=False)
            self._db.executescript("""
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                CREATE TABLE staged(iri TEXT NOT NULL, kind INTEGER NOT NULL, text TEXT NOT NULL DEFAULT '',
                                    lang TEXT, degree INTEGER NOT NULL DEFAULT 0, types TEXT NOT NULL DEFAULT '',
                                    own TEXT);
                CREATE TABLE sitelinks(iri TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
            """)
        finally:
            Path(name).unlink(missing_ok=True)

    def texts(self, rows: Iterable[tuple[str, int, str, str | None]]) -> None:
        """Names and values: (IRI, kind, text, language)."""
        self.text_rows += self._add("INSERT INTO staged(iri, kind, text, lang) VALUES (?, ?, ?, ?)", rows)

    def entities(self, rows: Iterable[tuple[str, int, str, str | None]]) -> None:
        """(IRI, degree, types, readable local name)."""
        self._add(f"INSERT INTO staged(iri, kind, degree, types, own) VALUES (?, {_ENTITY}, ?, ?, ?)", rows)

    def _add(self, insert: str, rows: Iterable[tuple[object, ...]]) -> int:
        """The rows added."""
        rows = iter(rows)
        added = 0
        with self._db:
            while batch := list(itertools.islice(rows, BATCH)):
                self._db.executemany(insert, batch)
                added += len(batch)
        return added

    def ordered(self, sitelinks: list[tuple[str, int]]) -> None:
        """The last of what is staged (each entity's sitelinks), then the order `read` reads it in."""
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO sitelinks VALUES (?, ?)", sitelinks)
            # Every column in the index: `read` then reads it in order, not each row from
            # the table at random (0.93 -> 0.66 s for 196k entities, the index made included).
            self._db.execute("CREATE INDEX staged_order ON staged(iri, kind, text, lang, degree, types, own)")

    def read(self) -> Iterator[list[_StagedRow]]:
        """Each entity's rows (IRI, kind, text, language, degree, types, own, sitelinks), IRI by IRI;
        not those of an entity with neither a text nor a readable local name, which no entry
        keeps (most of a graph of codes: told apart here, without a row read into Python)."""
        rows = self._db.execute(
            "SELECT s.iri, s.kind, s.text, s.lang, s.degree, s.types, s.own, coalesce(l.n, 0) FROM staged s "
            "LEFT JOIN sitelinks l ON l.iri = s.iri "
            f"WHERE s.kind != {_ENTITY} OR s.own IS NOT NULL "
            f"OR EXISTS (SELECT 1 FROM staged t WHERE t.iri = s.iri AND t.kind > {_ENTITY}) "
            "ORDER BY s.iri, s.kind, s.rowid")
        for _, group in itertools.groupby(rows, key=itemgetter(0)):
            yield list(group)

    def close(self) -> None:
        self._db.close()


def _entries(ctx: GraphContext, staged: _Staged, to_id: Callable[[str], str]) -> Iterator[Entry]:
    """The entries of the staged rows: an entity named, with a degree and a readable local
    name, or typed with a searched value."""
    kinds = TypeNames(to_id)
    try:
        for rows in staged.read():
            iri, kind, _, _, degree, types, own, sitelinks = rows[0]
            if kind == _ENTITY:
                del rows[0]
            else:
                degree, types, own = 0, "", None
            named = any(row[1] != _VALUE for row in rows)
            if not (named or (degree and own) or (types and rows)):
                continue
            if not degree:  # not asked while staged
                own = own_name(iri, to_id)
            typed = types.split("\t") if types else []
            rows = _once(rows)
            labels = [Literal(row[2], None, row[3]) for row in rows if row[1] == 0]
            label = labels[0] if len(labels) == 1 else pick_literal(labels, ctx.settings.languages)
            yield Entry(
                iri, label.value if label else None, label.language if label else None, kinds(typed), degree,
                sitelinks, sorted(set(typed)),
                [(_KINDS[row[1]], row[2], row[3]) for row in rows] + ([("alt", own, None)] if own else []),
            )
    finally:
        staged.close()


def _once(rows: list[_StagedRow]) -> list[_StagedRow]:
    """An entity's rows, a name read again (the same text of the same kind, through another
    of its kind's predicates or in another graph) left out: names.rq reads them all."""
    seen: set[tuple[int, str, str | None]] = set()
    kept = []
    for row in rows:
        key = row[1:4]
        if row[1] == _VALUE or key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def _counts(ctx: GraphContext) -> tuple[list[Entity], Sequence[Sequence[object]]]:
    """(each entity's degree and types, text values) asked in SPARQL, where no census can be taken."""
    degrees = {str(x): int(n.value) for x, n in ctx.select("degrees", excluded=iris(NON_EDGE_PREDICATES, ", "))
               if isinstance(n, Literal)}
    types: dict[str, list[str]] = defaultdict(list)
    for x, t in ctx.select("entity_types"):
        if isinstance(t, str):
            types[str(x)].append(t)
    entities = [(x, degrees.get(x, 0), types.get(x, [])) for x in degrees.keys() | types.keys()]
    return entities, ctx.select("text_values", unsearched=iris(UNSEARCHED, ", "))


def _count(term: object) -> int:
    try:
        return int(term.value) if isinstance(term, Literal) else 0
    except ValueError:
        return 0
