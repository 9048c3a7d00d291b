"""search_entities: names to IDs, from a SQLite FTS5 index kept beside the store.

Names and queries are compared normalised (`normalize`): case, Unicode forms, possessives
and punctuation do not count, so "Cushing's disease" is "Cushing disease". An ID's
readable local name (a DBpedia title such as `Cushing's_disease`) is indexed as a
synonym of its entity.

Ranking, in tiers, every tier filling the answer up to `limit` in turn: an exact label,
then an exact synonym, then a label or synonym that starts with the query, then
full-text matches over labels, synonyms, descriptions and the short text values of
named or typed entities (an address, a city, a code; bookkeeping aside), every word, then
any word, ranked by BM25. A name written as the query is (case and punctuation too)
ranks before one equal only once normalised: "Singer-Songwriter" before
"Singer-songwriter". The score says how well a hit matched (`SCORES`; a prefix by the
share of the name the query is, full text by BM25); hits of the same match and score
are marked `tied`, and among them the more important entity comes first: more
sitelinks (Wikidata's articles about it, where the graph has them), then better
connected (`degree`: the relationships it takes part in, shown in each hit); IDs break
what is left.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import tempfile
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gateway.authorities import parse_id
from gateway.backends.store_directory import store_generation, store_profile
from gateway.engine.census import Census
from gateway.engine.context import GraphContext, quoted
from gateway.engine.name_entries import BATCH, Entry, collect
from gateway.engine.presentation import full_nodes, node_types
from gateway.engine.seeds import TOLD, Seeds, resolve_seeds
from gateway.errors import InvalidInput
from gateway.ids import MAX_ID_LENGTH, local_name
from gateway.models import Match, SearchHit
from gateway.models.outputs import EXACT_SCORES
from gateway.profiles.base import HopPlan
from gateway.profiles.graph import EntitySearch, MemoKey
from gateway.terms import language_matches

logger = logging.getLogger("gateway.search")
SEARCH_FILE = "search.sqlite"
"""The index a store directory made by `bfsql load` keeps beside its data."""

FORMAT = 8
"""The index layout (`PRAGMA user_version`); an older index file is rebuilt (in a scratch file)."""
SCHEMA = """
CREATE TABLE entity(id INTEGER PRIMARY KEY, iri TEXT UNIQUE NOT NULL, label TEXT, label_lang TEXT,
                    entity_type TEXT NOT NULL, degree INTEGER NOT NULL, sitelinks INTEGER NOT NULL);
CREATE TABLE name(entity INTEGER NOT NULL, kind INTEGER NOT NULL, norm TEXT NOT NULL, text TEXT NOT NULL, lang TEXT);
CREATE TABLE type(entity INTEGER NOT NULL, type TEXT NOT NULL);
CREATE VIRTUAL TABLE fulltext USING fts5(entity UNINDEXED, text, tokenize="porter unicode61 remove_diacritics 2");
CREATE TABLE made_for(generation TEXT);
"""
INDEXES = """
CREATE INDEX name_norm ON name(norm);
CREATE INDEX type_type ON type(type, entity);
"""
_LABEL, _ALT = 0, 1
SCORES = EXACT_SCORES
"""The exact grades' scores; a prefix scores between 0.7 and 0.8, full text below 0.7."""
_PREFIX, _FULL_TEXT = 4, 5
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "in", "into", "is", "it", "of", "on", "or",
    "that", "the", "this", "to", "was", "with", "der", "die", "das", "und", "von", "le", "la", "les", "de", "des", "du",
    "et", "el", "los", "las", "y", "il", "di",
})
"""Words too common to make a full-text match on their own, where a query has others
(English, and the articles and conjunctions of German, French, Spanish and Italian)."""
_POSSESSIVE = re.compile(r"(\w)['\u2019]s\b")
_PUNCTUATION = re.compile(r"[^\w]+")


SEARCH_INDEX: MemoKey[EntitySearch] = MemoKey("search_index")


def search_index(ctx: GraphContext) -> EntitySearch:
    """The graph's name index, as its profile finds names (`Profile.entity_searcher`:
    Wikidata's own EntitySearch on its query service, label lookups on a graph too large to
    index); by default the store's index file when it has one, else one built in a
    scratch file (`SearchIndex.write`), once per graph."""

    def local_index() -> SearchIndex:
        directory = ctx.backend.capabilities.directory
        # The store's file indexes every graph: a reader's scope builds its own.
        if directory is not None and ctx.scope is None and (directory / SEARCH_FILE).is_file():
            stored = SearchIndex.open(directory / SEARCH_FILE)
            made_with = store_profile(directory)
            if stored.format == FORMAT and stored.generation == store_generation(directory) \
                    and made_with == ctx.profile.name:
                return stored
            # Made by an older version, for another load of the store (one that died before
            # it was rebuilt), or with another profile's entity types: read the names again.
            logger.warning("%s is not this store's index for profile %s (made with %s); names are read again "
                           "(bfsql load --profile %s rebuilds it)", directory / SEARCH_FILE, ctx.profile.name,
                           made_with, ctx.profile.name)
            stored.close()
        return SearchIndex.build(ctx)

    return ctx.memo(SEARCH_INDEX, lambda: ctx.profile.entity_searcher(ctx, local_index, lambda nodes: node_types(ctx, nodes)))


def search_entities_in(ctx: GraphContext, query: str, types: set[str] | None, limit: int,
                       warnings: list[str]) -> list[SearchHit]:
    """search_entities' hits: the entities a query naming a canonical ID resolves to
    first (`by_canonical_id`), then the name index's, each entity once, at most `limit`;
    ties marked (`mark_ties`), a tie the limit cuts said in `warnings`, a label in
    another language than the reader's with its language."""
    first = by_canonical_id(ctx, query, types, limit, warnings)
    seen = {hit.id for hit in first}
    searcher = search_index(ctx)
    # One more: whether the last hit listed ties with one left out (from a search scoring
    # by grade, `graded`; Wikidata's own search scores its ranks among the hits asked for).
    asked = limit + 1 if getattr(searcher, "graded", False) else limit
    named = [hit for hit in searcher.search(query, types, asked, ctx.ids.to_id) if hit.id not in seen]
    hits = mark_ties([*first, *named][:limit + 1])
    if len(hits) > limit and hits[limit].tied and _same_grade(hits[limit - 1], hits[limit]):
        tied = sum(_same_grade(hit, hits[limit]) for hit in hits[:limit])
        warnings.append(f"results: the last {tied} tie with more not listed (same match and score); "
                        "raise limit to see them")
    reader = ctx.settings.language
    return [_reader_label(hit, reader) for hit in hits[:limit]]


def mark_ties(hits: list[SearchHit]) -> list[SearchHit]:
    """Hits with the same match and score marked `tied`: the order among them is the
    gateway's choice (sitelinks, then degree), not a better match."""
    grades = Counter((hit.match, hit.score) for hit in hits)
    return [hit.model_copy(update={"tied": True}) if grades[(hit.match, hit.score)] > 1 else hit for hit in hits]


def _same_grade(a: SearchHit, b: SearchHit) -> bool:
    return (a.match, a.score) == (b.match, b.score)


def _reader_label(hit: SearchHit, reader: str) -> SearchHit:
    """The hit with its label's language only where that is not the reader's."""
    if hit.label_language is None or language_matches(hit.label_language, reader):
        return hit.model_copy(update={"label_language": None}) if hit.label_language else hit
    return hit


def by_canonical_id(ctx: GraphContext, query: str, types: set[str] | None, limit: int,
                    warnings: list[str]) -> list[SearchHit]:
    """The entities a query that parses as a canonical ID (`MeSH:D003480` in any spelling
    a registry knows, or any of its URLs) names: the entity itself, or those whose data
    links it (`gateway.engine.seeds`), said in `warnings`; matched "canonical_id"."""
    text = query.strip()
    if not text or len(text) > MAX_ID_LENGTH or any(c.isspace() for c in text) or parse_id(text) is None:
        return []
    told: list[str] = []
    entities = resolve_seeds(ctx, [text], HopPlan(), "query", told, cap=limit).iris
    if not entities:
        return []
    warnings += [w for w in told if " identifies " in w]
    kinds = node_types(ctx, entities)
    if types is not None:
        entities = [x for x in entities if types & set(kinds.get(x, ()))]
    nodes = full_nodes(ctx, entities, kinds)
    return [SearchHit(id=nodes[x].id, label=nodes[x].label, label_language=nodes[x].label_language,
                      entity_type=nodes[x].entity_type, score=1.0, match="canonical_id") for x in entities]


SUGGESTED_FROM = 8
"""Words of an unknown ID a did-you-mean search reads: a name is a few words, and each
word more costs the full-text search more (an ID of 100,000 words held a worker for
minutes)."""


def suggest_ids(ctx: GraphContext, seeds: Seeds, field: str, warnings: list[str]) -> None:
    """A warning for each seed that names nothing in the graph (the first `TOLD`; the rest
    are counted), with the entities whose names look like it (a seed that is no ID at all
    has had its own warning)."""
    missing = seeds.missing
    for name in missing[:TOLD]:
        words = " ".join(local_name(name).replace("_", " ").split()[:SUGGESTED_FROM])
        hits = search_index(ctx).search(words, None, 3, ctx.ids.to_id) if words else []
        picks = [h.id for h in hits if h.id != name and _askable(ctx, h.id)]
        if name in seeds.not_ids:  # no ID at all: its own warning said why; a name like it may help
            if picks:
                warnings.append(f"{field}: {quoted(name)}: did you mean {', '.join(picks)}?")
            continue
        hint = f"did you mean {', '.join(picks)}?" if picks else "search_entities finds IDs by name"
        warnings.append(f"{field}: {quoted(name)} is not in this graph{_prefix_note(ctx, name)}; {hint}")
    if len(missing) > TOLD:
        warnings.append(f"{field}: {len(missing) - TOLD} more are not in this graph (listed as unresolved); "
                        "search_entities finds IDs by name")


def _askable(ctx: GraphContext, id_: str) -> bool:
    """Whether a tool can be asked about this ID: not one of an IRI no query can name (kept
    by a lenient load), which a suggestion would only send the reader back to."""
    try:
        ctx.ids.resolve(id_, "id")
    except InvalidInput:
        return False
    return True


def _prefix_note(ctx: GraphContext, name: str) -> str:
    """For an ID read as an IRI of its own scheme: that no prefix of that name is known."""
    prefix, _, rest = name.partition(":")
    if rest and not name.startswith("<") and not rest.startswith("//") and not ctx.ids.knows_prefix(prefix):
        near = ctx.ids.near_prefixes(prefix)
        hint = f"; did you mean the prefix {', '.join(near)}?" if near else ""
        return f" (no prefix {prefix!r} is known here: it was read as an IRI{hint})"
    return ""


def normalize(text: str) -> str:
    """A name as search compares it: case-folded, NFKC, without possessives or punctuation."""
    if text.isascii():
        # ASCII is its own NFKC form, lower() folds its case as casefold() does, and its
        # punctuation is a byte table's: a name costs no regular expression (2.5 -> 0.4 us).
        if "'" in text:
            text = _POSSESSIVE.sub(r"\1", text.lower())
        return " ".join(text.encode().translate(_ASCII_FOLDED).decode().split())
    text = _POSSESSIVE.sub(r"\1", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(_PUNCTUATION.sub(" ", text).split())


_ASCII_FOLDED = bytes(c + 32 if 65 <= c <= 90 else c if chr(c).isalnum() or c == 95 else 32 for c in range(128)) \
    + bytes(range(128, 256))
"""ASCII letters in lower case, and what `_PUNCTUATION` takes as a space."""


class SearchIndex:
    """A full-text index of entity names. Thread-safe; read-only once built."""

    graded = True
    """Scores say how a hit matched, not where it ranks (one hit more asked shows a tie cut)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> SearchIndex:
        uri = f"file:{path}?mode=ro"
        return cls(sqlite3.connect(uri, uri=True, check_same_thread=False))

    @classmethod
    def build(cls, ctx: GraphContext, path: Path | None = None, *, generation: str | None = None,
              counted: Census | None = None) -> SearchIndex:
        """Every name in the graph in a new index (`collect`, then `write`): in the file
        `path`, for the store's `generation`, else in a scratch file; degrees, types and text values from the store's
        `census` where one is given or can be taken."""
        return cls.write(collect(ctx, counted, beside=path.parent if path else None), path, generation=generation)

    @classmethod
    def write(cls, entries: Iterable[Entry], path: Path | None = None, *, generation: str | None = None) -> SearchIndex:
        """An index of `entries` (each entity once) in the file `path`, made beside it and
        moved into place whole, for the store's `generation`; without `path`, in a scratch
        file (`_scratch`). The entries are read as they come: none is kept once its rows
        are written."""
        if path is None:
            return cls._scratch(entries, generation)
        building = path.with_name(f".{path.name}.{os.getpid()}")
        building.unlink(missing_ok=True)
        db = cls._fill(sqlite3.connect(str(building), check_same_thread=False), entries, generation)
        building.replace(path)
        return cls(db)

    @classmethod
    def _scratch(cls, entries: Iterable[Entry], generation: str | None) -> SearchIndex:
        """An index in a temporary file whose name is gone once it is written, not in memory:
        a graph's names held in SQLite's memory took as much again as the store (1.4 GB
        beside NCBITaxon's 1.6 GB, bench/RESULTS.md); from a file only SQLite's small page
        cache is resident, the rest read through the system's file cache. The open
        connection keeps the file until it closes: once built, nothing is left behind,
        whether the process ends or dies."""
        handle, name = tempfile.mkstemp(prefix="bfsql-search-", suffix=".sqlite")
        os.close(handle)
        try:
            db = cls._fill(sqlite3.connect(name, check_same_thread=False), entries, generation)
        finally:
            Path(name).unlink(missing_ok=True)
        return cls(db)

    @staticmethod
    def _fill(db: sqlite3.Connection, entries: Iterable[Entry], generation: str | None) -> sqlite3.Connection:
        db.executescript(SCHEMA)
        # A fresh file the build replaces whole: no journal, rows inserted in batches.
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        with db:
            batch: dict[str, list[tuple[object, ...]]] = {"entity": [], "type": [], "name": [], "fulltext": []}
            for number, entry in enumerate(entries, start=1):
                batch["entity"].append((number, entry.iri, entry.label, entry.label_language, entry.entity_type,
                                        entry.degree, entry.sitelinks))
                batch["type"].extend((number, t) for t in entry.types)
                _name_rows(batch, number, entry.texts)
                if len(batch["fulltext"]) >= BATCH:
                    _insert(db, batch)
            _insert(db, batch)
            db.executescript(INDEXES)
            db.execute("INSERT INTO made_for VALUES (?)", (generation,))
            db.execute(f"PRAGMA user_version = {FORMAT}")
        return db

    @property
    def format(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    @property
    def generation(self) -> str | None:
        """The store generation the index was made for (None: not a store's)."""
        with self._lock:
            try:
                row = self._db.execute("SELECT generation FROM made_for").fetchone()
            except sqlite3.Error:  # an older layout
                return None
            return str(row[0]) if row and row[0] is not None else None

    def close(self) -> None:
        self._db.close()

    def search(self, query: str, types: set[str] | None, limit: int, to_id: Callable[[str], str]) -> list[SearchHit]:
        norm = normalize(query)
        found: dict[int, _Found] = {}
        names: dict[int, tuple[str, str | None]] = {}  # entity -> the name it matched (text, language)
        type_clause, type_args = self._type_clause(types)
        with self._lock:
            self._exact(found, names, query, norm, type_clause, type_args)
            if norm and len(found) < limit:
                self._prefixes(found, names, norm, limit, type_clause, type_args)
            words = [f'"{word}"' for word in norm.split()]
            # Every word first; then, to fill the answer, any of them (ranked lower by BM25),
            # stopwords left out: "the" alone matches most descriptions, so a name holding
            # only it would rank level with a real match of the query's other words.
            content = [f'"{word}"' for word in norm.split() if word not in STOPWORDS] or words
            for match in dict.fromkeys((" ".join(words), " OR ".join(content))):
                if match and len(found) < limit:
                    self._full_text(found, match, limit, type_clause, type_args)
            ranked = sorted(found.items(), key=lambda item: (*item[1].order, item[0]))[:limit]
            details = {
                row[0]: row[1:]
                for row in self._db.execute(
                    f"SELECT id, iri, label, label_lang, entity_type FROM entity WHERE id IN ({','.join('?' * len(ranked))})",
                    [entity for entity, _ in ranked],
                )
            }
        hits = []
        for entity, hit in ranked:
            iri, label, label_language, kind = details[entity]
            text, language = names.get(entity, (None, None))
            told = text is not None and text != label  # a synonym, or a name in another language, matched
            hits.append(SearchHit(id=to_id(iri), label=label, label_language=label_language, entity_type=kind,
                                  score=hit.score, match=hit.how, degree=hit.degree, matched=text if told else None,
                                  language=language if told else None))
        return hits

    def _exact(self, found: dict[int, _Found], names: dict[int, tuple[str, str | None]], query: str, norm: str,
               type_clause: str, type_args: list[str]) -> None:
        """Labels and synonyms equal to the query once normalised; those written as the
        query is grade above (`SCORES`)."""
        rows = self._db.execute(
            f"SELECT name.entity, kind, sitelinks, degree, text, lang {_NAMED} WHERE norm = ? {type_clause} "
            "ORDER BY kind, lang IS NOT NULL, lang, text", (norm, *type_args)
        ).fetchall()
        written = _as_written(query)
        for entity, kind, links, degree, text, language in rows:
            grade = (0 if kind == _LABEL else 2) + (_as_written(text) != written)
            how: Match = "exact_label" if kind == _LABEL else "alt_label"
            if _keep(found, entity, _Found(grade, SCORES[grade], links, degree, how)):
                names[entity] = (text, language)

    def _prefixes(self, found: dict[int, _Found], names: dict[int, tuple[str, str | None]], norm: str, limit: int,
                  type_clause: str, type_args: list[str]) -> None:
        """Names that start with the query, scored by the share of the name it is."""
        rows = self._db.execute(
            f"SELECT name.entity, norm, sitelinks, degree, text, lang {_NAMED} WHERE norm > ? AND norm < ? "
            f"{type_clause} ORDER BY length(norm), sitelinks DESC, degree DESC, name.entity LIMIT ?",
            (norm, norm + "\U0010ffff", *type_args, limit * 4),
        ).fetchall()
        for entity, name, links, degree, text, language in rows:
            score = round(0.7 + 0.1 * len(norm) / len(name), 4)
            if _keep(found, entity, _Found(_PREFIX, score, links, degree, "prefix")):
                names[entity] = (text, language)

    def _full_text(self, found: dict[int, _Found], match: str, limit: int, type_clause: str,
                   type_args: list[str]) -> None:
        rows = self._db.execute(
            "SELECT best.entity, best.rank, sitelinks, degree FROM (SELECT entity, min(rank) AS rank FROM "
            "(SELECT entity, bm25(fulltext) AS rank FROM fulltext WHERE fulltext MATCH ? ORDER BY rank LIMIT ?) "
            f"WHERE 1 {type_clause} GROUP BY entity ORDER BY rank, entity LIMIT ?) AS best "
            "JOIN entity ON entity.id = best.entity",
            (match, limit * 20, *type_args, limit * 4),
        ).fetchall()
        for entity, rank, links, degree in rows:
            score = round(0.7 * -float(rank) / (1 - float(rank)), 4)
            _keep(found, entity, _Found(_FULL_TEXT, score, links, degree, "full_text"))

    @staticmethod
    def _type_clause(types: set[str] | None) -> tuple[str, list[str]]:
        if types is None:
            return "", []
        marks = ",".join("?" * len(types))
        return f"AND entity IN (SELECT entity FROM type WHERE type IN ({marks}))", sorted(types)



_NAMED = "FROM name JOIN entity ON entity.id = name.entity"


@dataclass(frozen=True, slots=True)
class _Found:
    """How an entity matched: its grade (0 to 3 exact, `SCORES`; then prefix, full text),
    score, sitelinks and degree."""

    grade: int
    score: float
    links: int
    degree: int
    how: Match

    @property
    def order(self) -> tuple[float, ...]:
        """Better grade, then score; among equals (a tie) more sitelinks, then degree."""
        return (self.grade, -self.score, -self.links, -self.degree)


def _keep(found: dict[int, _Found], entity: int, match: _Found) -> bool:
    """Whether `match` is the entity's best so far (kept)."""
    if entity in found and found[entity].order <= match.order:
        return False
    found[entity] = match
    return True


def _as_written(text: str) -> str:
    """A name as written, Unicode form and spacing aside: what an exact-case match compares."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _name_rows(batch: dict[str, list[tuple[object, ...]]], number: int, texts: list[tuple[str, str, str | None]]) -> None:
    """Entity `number`'s names (each spelling once a kind: one written as a query is
    ranks above one equal once normalised) and full-text rows."""
    seen: set[tuple[int, str]] = set()
    for kind, text, language in texts:
        if kind not in ("description", "value"):  # names; a description or a value is text only
            grade = _LABEL if kind == "label" else _ALT
            if (grade, text) not in seen:
                seen.add((grade, text))
                batch["name"].append((number, grade, normalize(text), text, language))
        batch["fulltext"].append((number, text))


_INSERTS = {
    "entity": "INSERT INTO entity VALUES (?, ?, ?, ?, ?, ?, ?)",
    "type": "INSERT INTO type VALUES (?, ?)",
    "name": "INSERT INTO name VALUES (?, ?, ?, ?, ?)",
    "fulltext": "INSERT INTO fulltext(entity, text) VALUES (?, ?)",
}


def _insert(db: sqlite3.Connection, batch: dict[str, list[tuple[object, ...]]]) -> None:
    for table, rows in batch.items():
        db.executemany(_INSERTS[table], rows)
        rows.clear()

