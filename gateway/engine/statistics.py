"""The graph's statistics: statements per predicate and per truth status, entities per type.

`describe_schema` reports them, and bare names and "did you mean" hints are resolved
against them. Counting means reading the whole store (about a minute on a million
statements), so they are counted once and kept:

- in memory, per open graph and reader scope;
- on disk, when the data came from files or a store directory: `bfsql load` writes the
  store's own (`statistics-<profile>.json` in the directory); everything else goes to the
  user's cache (`$XDG_CACHE_HOME/bfsql/statistics/`, default `~/.cache/...`), under a key
  made of what the data was read from (paths, sizes, modification times), the profile
  and the reader's scope, so changed data is counted again.

Data that did not come from files (a `Store` handed over, a remote endpoint) is counted
once per process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.backends.store_directory import store_generation
from gateway.engine.canonical_ids import authority_counts
from gateway.engine.census import Census, OtherType, census
from gateway.engine.namespaces import KEY_PATTERN, NamespaceFinder
from gateway.profiles.base import NON_EDGE_PREDICATES, SCHEMA_PREDICATES, as_point
from gateway.profiles.graph import MemoKey
from gateway.profiles.statistics import Statistics
from gateway.sparql import iris, literal
from gateway.terms import BFS, Blank, Literal, status_name, text_of

if TYPE_CHECKING:
    from gateway.engine.context import GraphContext

VERSION = 12
"""Bumped whenever what is counted changes: older files are then ignored."""
logger = logging.getLogger("gateway.statistics")


CONNECTS_KEPT = 3
STATISTICS: MemoKey[Statistics] = MemoKey("statistics")


def statistics(ctx: GraphContext) -> Statistics:
    """The statistics of the graph as `ctx` sees it: from memory, from disk, or counted (or
    as its profile reads them otherwise: `Profile.statistics`)."""
    return ctx.memo(STATISTICS, lambda: ctx.profile.statistics(ctx, lambda: _load_or_count(ctx)))


def store_file(directory: Path, profile: str) -> Path:
    """Where `bfsql load` keeps a store's statistics (for readers of every graph)."""
    return directory / f"statistics-{profile}.json"


def write(path: Path, stats: Statistics, *, generation: str | None = None) -> None:
    """Keep statistics; in a store directory, for the store's `generation` (only a file of
    the current one is read back: a load that died leaves none that misleads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(json.dumps({"version": VERSION, "generation": generation, **asdict(stats)}), encoding="utf-8")
    temporary.replace(path)  # atomic: a reader never sees half a file


def _load_or_count(ctx: GraphContext) -> Statistics:
    places = _places(ctx)
    for path in places:
        directory = ctx.backend.capabilities.directory
        found = _read(path, store_generation(directory) if path.parent == directory else None)
        if found is not None:
            return found
    stats = count(ctx)
    if places:
        try:
            write(places[-1], stats)
        except OSError as error:
            logger.warning("cannot keep the graph's statistics in %s (%s); they will be counted again", places[-1], error)
    return stats


def _places(ctx: GraphContext) -> list[Path]:
    """Files that may hold these statistics, the one to write last."""
    source = ctx.backend.source()
    if source is None:
        return []
    places = []
    directory = ctx.backend.capabilities.directory
    if directory is not None and ctx.scope is None:
        places.append(store_file(directory, ctx.profile.name))
    key = json.dumps([VERSION, source, ctx.profile.name, ctx.scope])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    places.append(Path(base) / "bfsql" / "statistics" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json")
    return places


def _read(path: Path, generation: str | None) -> Statistics | None:
    """What `write` kept (for the store of this `generation`, where one is given)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("version", None) != VERSION or data.pop("generation", None) != generation:
            return None
        data["connects"] = {p: [tuple(pair) for pair in pairs] for p, pairs in data["connects"].items()}
        data["type_literals"] = {t: [tuple(row) for row in rows] for t, rows in data["type_literals"].items()}
        return Statistics(**data)
    except (OSError, ValueError, TypeError):
        return None


# -- counting ---------------------------------------------------------------------------------
def count(ctx: GraphContext, counted: Census | None = None) -> Statistics:
    """Read the statistics from the store (every statement once), from its `census` where
    one is given or can be taken."""
    counted = counted if counted is not None else census(ctx, texts=False)
    predicates = _count_predicates(ctx, counted)
    statuses, reified, untimed_reified, plain = _count_statuses(ctx, counted, predicates)
    return Statistics(
        predicates=predicates,
        types=dict(counted.type_counts) if counted is not None else {
            iri: _int(n) for t, n in ctx.select("type_counts") if (iri := _iri(t)) is not None},
        statuses=statuses, total=reified + plain, reified=reified, plain=plain, unasserted=len(ctx.profile.unasserted()),
        without_asserted_at=plain + untimed_reified, connects=_count_connects(ctx, counted),
        schema_predicates=dict(counted.schema_predicates) if counted is not None else _count_schema_predicates(ctx),
        term_types=_counts(ctx, "term_type_counts"), unused_terms=_counts(ctx, "unused_term_counts"),
        blank_values=dict(counted.blank_values) if counted is not None else _counts(ctx, "blank_counts"),
        type_literals=_count_type_literals(ctx, counted), authorities=authority_counts(ctx, predicates),
        namespaces=_count_namespaces(ctx, counted),
    )


VIRTUOSO_TYPES = "http://www.openlinksw.com/schemas/virtrdf#"
"""Where Virtuoso's DATATYPE puts its own type of a value it stores natively (a
geo:wktLiteral is its virtrdf:Geometry): no answer shows it, as none holds that IRI."""


def count_namespaces(ctx: GraphContext) -> dict[str, int]:
    """`Statistics.namespaces` alone, without the rest of the count (for choosing a profile)."""
    return _count_namespaces(ctx, None)


def _count_namespaces(ctx: GraphContext, counted: Census | None) -> dict[str, int]:
    """The namespaces of the prefix map the data holds IRIs in: from the census where it
    counted them, else from its quads read in process where they can be (any profile: the
    IRIs are the same), else asked in SPARQL."""
    finder = NamespaceFinder({uri for r in ctx.ids.converter.records for uri in (r.uri_prefix, *r.uri_prefix_synonyms)})
    quads = ctx.backend.capabilities.quads
    if counted is not None and counted.namespace_keys is not None:
        for counted_key, times in counted.namespace_keys.items():
            finder.add_key(counted_key, times)
    elif quads is not None:
        finder.add_quads(quads(None)(None, None, None))
    else:
        for key, n in ctx.select("namespace_keys", pattern=literal(KEY_PATTERN)):
            if isinstance(key, Literal) and key.value != VIRTUOSO_TYPES:
                finder.add_key(key.value, _int(n))
    return finder.namespaces()


def _count_statuses(
    ctx: GraphContext, counted: Census | None, predicates: dict[str, int],
) -> tuple[dict[str, int], int, int, int]:
    """(statements per truth status, reified ones, reified ones without assertedAt, plain ones)."""
    statuses: dict[str, int] = {}
    reified = untimed_reified = 0
    if not ctx.profile.has_reifiers:
        plain = sum(predicates.values())
    else:
        rows = ((status, n, counted.untimed[status]) for status, n in counted.statuses.items()) if counted is not None else (
            (status, _int(n), _int(untimed)) for status, n, untimed in ctx.select("status_counts"))
        for status, n, untimed in rows:
            name = status_name(status)
            statuses[name] = statuses.get(name, 0) + n
            reified += n
            untimed_reified += untimed
        plain = counted.plain if counted is not None else _plain_count(ctx)
    if plain:
        statuses["asserted_true"] = statuses.get("asserted_true", 0) + plain
    return dict(sorted(statuses.items())), reified, untimed_reified, plain


def _plain_count(ctx: GraphContext) -> int:
    found = ctx.select("plain_count", excluded=iris(NON_EDGE_PREDICATES, ", "))
    return _int(found[0][0]) if found else 0


def _counts(ctx: GraphContext, query: str) -> dict[str, int]:
    """IRI -> count, from a template of (IRI, count) rows, those counting none left out."""
    return {str(t): _int(n) for t, n in ctx.select(query) if isinstance(t, str) and _int(n)}


def _count_type_literals(ctx: GraphContext, counted: Census | None) -> dict[str, list[tuple[str, str | None, int]]]:
    found: dict[str, list[tuple[str, str | None, int]]] = {}
    rows = ((t, p, dt, n) for (t, p, dt), n in counted.type_literals.items()) if counted is not None else (
        (t, p, _iri(dt), _int(n)) for t, p, dt, n in ctx.select("type_literals"))
    for t, p, dt, n in rows:
        if isinstance(t, str) and isinstance(p, str) and not p.startswith(BFS):
            found.setdefault(t, []).append((p, dt, n))
    return {t: sorted(rows, key=lambda row: (-row[2], row[0], row[1] or "")) for t, rows in found.items()}


def _count_connects(ctx: GraphContext, counted: Census | None) -> dict[str, list[tuple[str | None, str | None, int]]]:
    """Which types each edge predicate connects (of asserted triples; see predicate_types.rq)."""
    pairs: dict[str, list[tuple[str | None, str | None, int]]] = {}
    rows = ((p, st, ot, n) for (p, st, ot), n in counted.connects.items()) if counted is not None else (
        (p, st, ot, _int(n)) for p, st, ot, n in ctx.select("predicate_types", excluded=iris(NON_EDGE_PREDICATES, ", ")))
    for p, st, ot, n in rows:
        if isinstance(p, str):
            pairs.setdefault(p, []).append((_iri(st), _iri(ot), n))
    return {p: _main_pairs(found) for p, found in pairs.items()}


def _main_pairs(found: list[tuple[str | None, str | None, int]]) -> list[tuple[str | None, str | None, int]]:
    """The type pairs worth telling: the most common, then those holding at least a tenth
    of the predicate's triples, `CONNECTS_KEPT` at most (a pair of two triples among
    hundreds is an extraction's noise, and costs every reader of describe_schema)."""
    ranked = sorted(found, key=lambda t: (-t[2], t[0] or "", t[1] or ""))
    total = sum(n for _, _, n in found)
    return [pair for i, pair in enumerate(ranked[:CONNECTS_KEPT]) if i == 0 or 10 * pair[2] >= total]


def _iri(term: object) -> str | None:
    """An IRI; None for any other term (a type may be a blank node or a literal)."""
    return term if isinstance(term, str) and not isinstance(term, (Blank, OtherType)) else None


def _count_predicates(ctx: GraphContext, counted: Census | None) -> dict[str, int]:
    """Edge predicate -> number of statements (asserted triples plus reifier-only ones)."""
    if counted is not None:
        counts = dict(counted.predicates)
    else:
        flags = ["reified"] if ctx.profile.has_reifiers else []
        rows = ctx.select("predicate_counts", flags, excluded=iris(NON_EDGE_PREDICATES, ", "))
        counts = {str(p): _int(n) for p, n in rows if isinstance(p, str)}
    for hit in ctx.profile.unasserted():
        counts[hit.p] = counts.get(hit.p, 0) + 1
    return counts


def _count_schema_predicates(ctx: GraphContext) -> dict[str, int]:
    rows = ctx.select("schema_predicate_counts", predicate_values=iris(SCHEMA_PREDICATES))
    return {str(p): _int(n) for p, n in rows if isinstance(p, str) and _int(n)}


def _int(term: object) -> int:
    return int(term.value) if isinstance(term, Literal) else 0


@dataclass(frozen=True)
class TimeRange:
    """The span of one kind of time value (assertion positions, or validity bounds)."""

    low: str | int | float | bool
    high: str | int | float | bool
    """As JSON shows them (dates as ISO strings)."""
    dated: bool
    """Dates or date-times; else numbers (positions, years): the two never compare."""
    start: object
    """`low` as a query's point compares with it (`gateway.profiles.base.as_point`)."""


TIME_RANGES: MemoKey[dict[str, list[TimeRange]]] = MemoKey("time_ranges")


def time_ranges(ctx: GraphContext) -> dict[str, list[TimeRange]]:
    """"asserted" (positions) and "valid" (validity bounds) -> their spans, numbers first.
    Empty on a graph without statements of their own or too large to read whole."""
    if not ctx.profile.has_reifiers:
        return {}

    def read() -> dict[str, list[TimeRange]]:
        found: dict[str, list[TimeRange]] = {}
        for kind, dated, low, high in ctx.select("time_ranges"):
            if isinstance(low, Literal) and isinstance(high, Literal):
                found.setdefault(str(text_of(kind)), []).append(TimeRange(
                    low.to_python(), high.to_python(), isinstance(dated, Literal) and dated.value == "true", as_point(low)))
        return {kind: sorted(spans, key=lambda span: span.dated) for kind, spans in found.items()}

    return ctx.profile.whole_graph(lambda: ctx.memo(TIME_RANGES, read)) or {}
