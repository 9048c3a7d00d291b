"""Reifier-only statements, found by reading a file while the store loads it.

Nothing in a store indexes the inside of a triple term, so the statements whose triple
is not asserted (`<< s p o ~ r >>` with no `s p o`) take one pass over every
`rdf:reifies`. Asked of the store once it is loaded, that pass is a SPARQL MINUS over
every triple (~2.3 s for 244k reifiers in a 1M-line graph) or a membership test per
reifier (~7 us each in Python), and the first call waited for it. pyoxigraph lets go of
the GIL while it loads, so `EmbeddedBackend.open` hands the same files to a second
thread that parses them twice, with pyoxigraph's own parser: once for the reifiers and
their triples, once to strike out the triples that are asserted. On a 1M-line graph
the scan ends within a second of the load (bench/RESULTS.md, "First call on a reified
graph").
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyoxigraph as ox

from gateway.backends.base import Graphs, Rows
from gateway.backends.file_checks import CheckedFiles
from gateway.terms import from_oxigraph, namespace

REIFIES = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")
_STATEMENT_TERMS = [ox.NamedNode("https://w3id.org/bfsql#" + t) for t in ("truthStatus", "assertedAt", "validFrom", "validUntil")]
FILE = "reifiers.json"
"""Where `bfsql load` keeps a store directory's scan (`gateway.loading`: a later load adds
its own and checks what was kept against the whole store)."""


@dataclass(frozen=True)
class ReifierScan:
    unasserted: list[tuple[ox.NamedNode, str, str, str]]
    """(reifier, subject, predicate, object) for each reifier whose triple no graph asserts; IRIs only, as the
    walk follows IRIs (a reifier in several graphs may be listed more than once)."""
    namespaces: frozenset[str]
    """`terms.namespace` of every reifier IRI."""


def scan(paths: Sequence[tuple[Path, ox.RdfFormat]], *, lenient: bool = False) -> ReifierScan:
    """The reifier-only statements of these files, as `load_files` would load them (files
    `file_checks.check_files` passed: it parses them)."""
    named, triple_term = ox.NamedNode, ox.Triple
    reifiers: dict[ox.Triple, list[ox.NamedNode]] = {}
    namespaces: set[str] = set()
    for quad in _quads(paths, lenient):
        if quad.predicate != REIFIES or type(quad.subject) is not named:
            continue
        reifier, triple = quad.subject, quad.object
        namespaces.add(namespace(reifier.value))
        if type(triple) is triple_term and type(triple.subject) is named and type(triple.object) is named:
            reifiers.setdefault(triple, []).append(reifier)
    if reifiers:
        predicates = {triple.predicate for triple in reifiers}
        for quad in _quads(paths, lenient):
            if quad.predicate in predicates:
                reifiers.pop(quad.triple, None)  # asserted, in whichever graph
    unasserted = [(reifier, str(triple.subject.value), triple.predicate.value, str(triple.object.value))  # type: ignore[union-attr]
                  for triple, found in reifiers.items() for reifier in found]
    return ReifierScan(unasserted, frozenset(namespaces))


def start(files: CheckedFiles, *, lenient: bool = False) -> Future[ReifierScan]:
    """`scan` in a thread of its own, to run beside the load. Only files `check_files` passed:
    this thread parses them at once, and pyoxigraph's parser kills the process on a file
    nesting deeper (the load refusing such a file later cannot stop it)."""
    executor = ThreadPoolExecutor(1, thread_name_prefix="bfsql-reifiers")
    try:
        return executor.submit(scan, files, lenient=lenient)
    finally:
        executor.shutdown(wait=False)


def _quads(paths: Sequence[tuple[Path, ox.RdfFormat]], lenient: bool) -> Iterator[ox.Quad]:
    for path, fmt in paths:
        if path.suffix.lower() != ".gz":
            yield from ox.parse(path=path, format=fmt, lenient=lenient)  # read without the GIL
            continue
        with gzip.open(path, "rb") as handle:
            yield from ox.parse(handle, format=fmt, lenient=lenient)  # type: ignore[arg-type]


def in_store(store: ox.Store, maybe: npt.NDArray[np.int64] | None = None) -> ReifierScan:
    """The reifier-only statements of the whole store, read from its `rdf:reifies` index
    range once the quads are in (what `scan` finds in files, without parsing them again):
    a lookup a reifier, nothing on a graph without reifiers. `maybe`: the hashes of the
    only triples (their `s p o` N-Triples text, sorted) that may be unasserted, the census's:
    the others are asked no more (on disk a lookup costs ~20 us)."""
    named, triple_term = ox.NamedNode, ox.Triple
    unasserted: list[tuple[ox.NamedNode, str, str, str]] = []
    namespaces: set[str] = set()
    rows = (row for row in store.quads_for_pattern(None, REIFIES, None) if type(row.subject) is named)
    while batch := list(itertools.islice(rows, 10_000)):
        namespaces.update(namespace(r.value) for r, _, _, _ in batch)
        edges = [(r, t, t.subject.value, t.object.value) for r, _, t, _ in batch
                 if type(t) is triple_term and type(t.subject) is named and type(t.object) is named]
        if maybe is not None and edges:
            keys = np.fromiter((hash(str(edge[1]).encode()) for edge in edges), dtype=np.int64, count=len(edges))
            edges = [edge for edge, asked in zip(edges, np.isin(keys, maybe).tolist(), strict=True) if asked]
        for r, t, s, o in edges:
            if next(iter(store.quads_for_pattern(t.subject, t.predicate, t.object)), None) is None:
                unasserted.append((r, s, t.predicate.value, o))
    return ReifierScan(unasserted, frozenset(namespaces))


class Scanned:
    """What the scan beside a load found, as the `ReifierIndex` an embedded store offers
    (`Capabilities.reifier_scan`): the rows of `queries/native/unasserted.rq` over every
    graph, each reifier's own data read from `store`. Under a graph scope it knows nothing
    (what a scope asserts differs): SPARQL answers."""

    def __init__(self, scan: Future[ReifierScan], store: ox.Store) -> None:
        self._scan = scan
        self._store = store

    def unasserted(self, graphs: Graphs = None) -> Rows | None:
        found = self._found(graphs)
        if found is None:
            return None
        rows: Rows = []
        for reifier, *triple in found.unasserted:
            data: dict[ox.NamedNode, object] = {}
            for quad in self._store.quads_for_pattern(reifier, None, None):  # one read, then its four terms
                data.setdefault(quad.predicate, quad.object)
            values = [from_oxigraph(data[term]) if term in data else None for term in _STATEMENT_TERMS]
            rows.append([reifier.value, *triple, *values])
        return rows

    def namespaces(self, graphs: Graphs = None) -> frozenset[str] | None:
        found = self._found(graphs)
        return None if found is None else found.namespaces

    def _found(self, graphs: Graphs) -> ReifierScan | None:
        if graphs is not None:
            return None
        try:
            return self._scan.result()
        except (SyntaxError, OSError, ValueError):
            return None  # the load itself said what was wrong; SPARQL can still answer


def done(found: ReifierScan) -> Future[ReifierScan]:
    """A scan already at hand (read from a store directory), as `start` would give it."""
    future: Future[ReifierScan] = Future()
    future.set_result(found)
    return future


def write(path: Path, found: ReifierScan, generation: str) -> None:
    """Keep a scan for the store of this `generation` (`gateway.backends.embedded.write_meta`)."""
    data = {"unasserted": [[r.value, s, p, o] for r, s, p, o in found.unasserted], "namespaces": sorted(found.namespaces),
            "generation": generation}
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(json.dumps(data), encoding="utf-8")
    temporary.replace(path)  # atomic: a reader never sees half a file


def read(path: Path, generation: str | None) -> ReifierScan | None:
    """What `write` kept for this `generation`; None when there is no such file, it cannot
    be read, or it was made for another generation of the store (then SPARQL is asked)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if generation is None or data.get("generation") != generation:
            return None
        unasserted = [(ox.NamedNode(r), str(s), str(p), str(o)) for r, s, p, o in data["unasserted"]]
        return ReifierScan(unasserted, frozenset(str(n) for n in data["namespaces"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
