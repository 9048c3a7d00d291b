"""An embedded Oxigraph store: an RDF file loaded into memory, or an on-disk store directory.

An on-disk store made by `bfsql load` is a directory of the Oxigraph files in ``store/`` and the gateway's own
files beside: ``meta.json`` (prefixes, load report), ``search.sqlite`` (full-text index). A bare Oxigraph directory opens too.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import logging
import os
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from gateway import deadline as deadlines
from gateway.backends import reifiers, store_directory
from gateway.backends.base import (
    IRIS,
    LINES,
    ROWS,
    TABLE,
    WRITTEN,
    Capabilities,
    Graphs,
    LocalStore,
    Quads,
    QueryLog,
    Selects,
    Shape,
    Table,
)
from gateway.backends.file_checks import check_files, read_errors
from gateway.backends.load_report import LoadReport, invalid_language_tags, odd_iri_examples, odd_iris
from gateway.backends.namespaces import graphs_using
from gateway.backends.rdf_files import rdf_format, rdf_sources, syntax_error_text
from gateway.backends.results import tsv_text
from gateway.backends.store_directory import (
    META_FILE,
    STORE_DIR,
    damage_in,
    is_store_directory,
    read_meta,
    store_trouble,
    unfinished_load,
)
from gateway.errors import InvalidInput, UpstreamError
from gateway.sparql import template
from gateway.terms import DEFAULT_GRAPH, NO_GRAPH, Term, from_oxigraph, line_text

_PREFIXED_FORMATS = {ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG, ox.RdfFormat.N3}
_PREFIX_LINE = re.compile(rb"^\s*(?:@prefix|PREFIX)\s+([A-Za-z][\w.\-]*)?:\s*<([^>\s]*)>", re.I)
_TRUE, _FALSE = ox.Literal(True), ox.Literal(False)
_CHECKS = {name: ox.NamedNode(name) for name in (deadlines.ALIVE, deadlines.HELD)}
logger = logging.getLogger("gateway.store")


def store_error(directory: Path, error: Exception) -> InvalidInput:
    """An error of the store's engine, in the gateway's words (the engine's own, on the debug log)."""
    logger.debug("%s: the store's engine said: %s", directory, error)
    return store_trouble(directory, error)


def scan_prefixes(path: Path) -> dict[str, str]:
    """The `@prefix`/`PREFIX` declarations of a Turtle-family file, read line by line."""
    found: dict[str, str] = {}
    with open(path, "rb") as handle:
        for line in handle:
            match = _PREFIX_LINE.match(line)
            if match:
                found[(match.group(1) or b"").decode()] = match.group(2).decode()
    return found


def read_prefix_file(path: Path) -> dict[str, str]:
    """Prefixes from a file: a JSON object (prefix -> namespace IRI), or the `@prefix` /
    `PREFIX` lines of a Turtle, TriG or SPARQL file."""
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
                raise InvalidInput(f"{path}: expected a JSON object of prefix -> namespace IRI", field="prefixes")
            return dict(data)
        return scan_prefixes(path)
    except (OSError, ValueError) as error:
        raise InvalidInput(f"{path}: cannot read prefixes ({error})", field="prefixes") from None


class EmbeddedBackend(Selects):
    """A pyoxigraph `Store` behind the `Backend` interface."""

    name = "embedded"
    served_mark: IO[bytes] | None = None  # the directory's (`hold_served`), for a copy too: its side files are read later

    def __init__(
        self,
        store: ox.Store,
        *,
        prefixes: dict[str, str] | None = None,
        report: LoadReport | None = None,
        directory: Path | None = None,
        store_path: Path | None = None,
        reifier_scan: Future[reifiers.ReifierScan] | None = None,
    ) -> None:
        self.store = store
        self.prefixes = dict(prefixes or {})
        """The whole store's: declared as data, a file's `@prefix` lines, configured."""
        self.configured_prefixes: dict[str, str] = {}
        """Given by whoever opened the store (`Gateway.open(prefixes=...)`): every reader's."""
        self._namespace_graphs: dict[str, list[str]] | None = None
        self._namespace_lock = threading.Lock()
        self.report = report or LoadReport()
        self.directory = directory
        """A store directory made by `bfsql load` (with the gateway's own files), if any."""
        self.store_path = store_path
        """The Oxigraph files of an on-disk store, opened read-only; None in memory."""
        self.query_log: QueryLog | None = None
        self.rows_read = 0
        self._loaded_from: str | None = None
        self._reifier_scan = reifier_scan
        """The reifier-only statements found while the files loaded (`reifiers.start`), or kept beside a store."""

    def found_reifiers(self, found: reifiers.ReifierScan) -> None:
        """The reifier-only statements, read once the store was loaded (`bfsql load`): asked of
        the scan from now on, not of the store in SPARQL."""
        self._reifier_scan = reifiers.done(found)

    # -- opening ------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, lenient: bool = False, in_memory: bool = False) -> EmbeddedBackend:
        """Open an RDF file or a folder of RDF files (`rdf_sources`) into memory, or an on-disk store directory
        read-only (copied into memory with `in_memory`: walks 2.3-2.6x faster, bench/RESULTS.md)."""
        path = Path(path)
        if path.is_dir() and is_store_directory(path):
            backend = store_directory.held_while(path, lambda: cls._open_directory(path))
            if in_memory:
                try:
                    backend.store, backend.store_path = _copied(backend.store), None
                except (OSError, RuntimeError) as error:
                    raise damage_in(path, error) or error from None
            return backend
        if not path.exists():
            raise InvalidInput(f"{path}: no such file or store directory", field="path")
        return cls.open_files(rdf_sources([path]), lenient=lenient)

    @classmethod
    def open_files(cls, files: Sequence[tuple[Path, ox.RdfFormat]], *, lenient: bool = False) -> EmbeddedBackend:
        """RDF files (each with its syntax, `rdf_sources`) loaded into one store in memory."""
        store = ox.Store()
        # What the data was read from, taken now: a file may be gone by the time it is asked.
        loaded = "\n".join([f"files lenient={lenient}", *(
            f"{path.resolve()} {info.st_size} {info.st_mtime_ns} {fmt.file_extension}"
            for path, fmt in files for info in [path.stat()])])
        # Checked before either parse starts: the scan's thread would die on what the check refuses.
        checked = check_files(files)
        scan = reifiers.start(checked, lenient=lenient)  # beside the load, on another core
        report = load_files(store, [path for path, _ in files], lenient=lenient, checked=True, formats=dict(files))
        backend = cls(store, prefixes={**declared_prefixes(store), **_file_prefixes(files)}, report=report,
                      reifier_scan=scan)
        backend._loaded_from = loaded
        return backend

    @classmethod
    def from_store(cls, store: ox.Store, *, prefixes: dict[str, str] | None = None) -> EmbeddedBackend:
        return cls(store, prefixes={**declared_prefixes(store), **(prefixes or {})})

    @classmethod
    def _open_directory(cls, directory: Path) -> EmbeddedBackend:
        meta = read_meta(directory)
        if meta is not None:
            if meta.get("loading"):
                raise unfinished_load(directory)
            try:
                store = ox.Store.read_only(str(directory / STORE_DIR))
            except (OSError, RuntimeError) as error:  # RuntimeError: a damaged store
                raise store_error(directory, error) from None
            try:
                report = LoadReport(**meta.get("report", {}))
            except TypeError as error:
                logger.debug("%s: %s", directory / META_FILE, error)
                raise InvalidInput(f"{directory / META_FILE}: not what `bfsql load` writes; load the store again",
                                   field="path") from None
            found = reifiers.read(directory / reifiers.FILE, meta.get("generation"))
            backend = cls(store, prefixes=meta.get("prefixes", {}), report=report, directory=directory,
                          store_path=directory / STORE_DIR, reifier_scan=None if found is None else reifiers.done(found))
            used = meta.get("namespace_graphs")
            if isinstance(used, dict) and all(isinstance(v, list) for v in used.values()):
                backend._namespace_graphs = used  # found while it loaded: no pass over a large store now
            return backend
        try:
            store = ox.Store.read_only(str(directory))
        except (OSError, RuntimeError) as error:  # RuntimeError: a damaged store
            raise store_error(directory, error) from None
        return cls(store, store_path=directory)

    @property
    def capabilities(self) -> Capabilities:
        """Queries may carry the store's checks (`deadline.ALIVE`, `deadline.HELD`: `_solutions`
        supplies them), and the quads are read in process. Made on each access, so they name
        the store as it is now (`open(in_memory=True)` puts a copy in a directory's place,
        `close` an empty store)."""
        scan = self._reifier_scan
        return Capabilities(
            max_concurrency=1, evaluates_checks=True, directory=self.directory, quads=self._quads,
            reifier_scan=None if scan is None else reifiers.Scanned(scan, self.store),
            local_store=LocalStore(self.store, self.store_path),
        )

    def _quads(self, graphs: Graphs) -> Quads:
        """`Capabilities.quads`: every graph's quads, or those of `graphs` as their union reads them."""
        store = self.store
        if graphs is None:
            return lambda s, p, o: store.quads_for_pattern(s, p, o, None)
        names = [ox.DefaultGraph() if g == DEFAULT_GRAPH else ox.NamedNode(g) for g in graphs]
        return lambda s, p, o: itertools.chain.from_iterable(store.quads_for_pattern(s, p, o, g) for g in names)

    def load_warnings(self) -> list[str]:
        return self.report.warnings()

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        """`Backend.prefixes_for`: declared as data in these graphs, the `@prefix` lines
        whose namespaces they use (`gateway.backends.namespaces`), the configured ones."""
        lines = self._line_prefixes()
        used = self.namespace_graphs()
        visible = {p: ns for p, ns in lines.items() if not set(used.get(ns, ())).isdisjoint(graphs)}
        return {**declared_prefixes(self.store, graphs), **visible, **self.configured_prefixes}

    def _line_prefixes(self) -> dict[str, str]:
        """The whole store's prefixes that came from the files' own lines: neither declared
        as data nor configured."""
        declared = declared_prefixes(self.store)
        return {p: ns for p, ns in self.prefixes.items() if ns not in (declared.get(p), self.configured_prefixes.get(p))}

    def namespace_graphs(self) -> dict[str, list[str]]:
        """Each namespace of the files' `@prefix` lines -> the graphs using it: what `bfsql
        load` found, else found now (one pass over the quads), once."""
        with self._namespace_lock:
            known = self._namespace_graphs if self._namespace_graphs is not None else {}
            missing = sorted(set(self._line_prefixes().values()) - known.keys())
            if missing:
                found = graphs_using(self.store, missing)
                known = {**known, **{ns: found.get(ns, []) for ns in missing}}
            self._namespace_graphs = known
            return known

    def source(self) -> str | None:
        if self.directory is not None:
            meta = self.directory / META_FILE
            return f"store {self.directory.resolve()} {meta.stat().st_mtime_ns if meta.is_file() else 0}"
        # A file read into memory; None for a bare Oxigraph directory or a Store handed
        # over, whose contents cannot be told apart.
        return self._loaded_from

    # -- querying -----------------------------------------------------------------
    def _select(self, query: str, shape: Shape[Any], graphs: Graphs) -> Any:
        if shape is ROWS:
            return self._rows(query, graphs)
        with self._damage_said():
            if shape is TABLE:
                return self._table(query, graphs)
            if shape is LINES:
                return self._lines(query, graphs)
            if shape is WRITTEN:
                return self._written(query, graphs)
            if shape is IRIS:
                return self._iris(query, graphs)
        raise ValueError(f"no such shape: {shape!r}")

    @contextmanager
    def _damage_said(self) -> Iterator[None]:
        """A damaged store's failure as `StoreDamaged`, in the project's words."""
        try:
            yield
        except (RuntimeError, UpstreamError) as error:  # the engine's damage: a RuntimeError, or an OSError wrapped
            damage = store_directory.damage_met(self.directory or self.store_path, error.__cause__ or error)
            if damage is None:
                raise
            raise damage from None

    def _rows(self, query: str, graphs: Graphs) -> Iterator[list[Term | None]]:
        """`ROWS`: `_table`'s rows, each made as it is read."""
        watch = deadlines.Watch()
        read = 0
        named = ox.NamedNode
        with self._damage_said():
            try:
                for solution in self._solutions(query, graphs, watch):
                    read += 1
                    yield [term.value if type(term) is named else from_oxigraph(term) for term in solution]
            except SyntaxError as error:
                raise UpstreamError(f"the store rejected a generated query: {error}") from error
            except OSError as error:
                raise UpstreamError(f"the store failed: {error}") from error
        self.rows_read += read
        if self.query_log is not None:
            self.query_log(query, read)
        watch.check()

    def _table(self, query: str, graphs: Graphs) -> Table:
        watch = deadlines.Watch()
        try:
            solutions = self._solutions(query, graphs, watch)
            header = [v.value for v in solutions.variables]
            # Reading solutions directly is faster in-process than serializing to TSV and
            # parsing it back (measured ~1.5x on 10k-row hops).
            named = ox.NamedNode  # most values are IRIs: read them without a call
            rows = [
                [term.value if type(term) is named else from_oxigraph(term) for term in solution]
                for solution in solutions
            ]
        except SyntaxError as error:  # a template bug, never caller input
            raise UpstreamError(f"the store rejected a generated query: {error}") from error
        except OSError as error:
            raise UpstreamError(f"the store failed: {error}") from error
        # Let the store's answer go here, on the thread that made it (it may be used on no
        # other), not with the frame an error below would carry to another thread.
        del solutions
        self.rows_read += len(rows)
        if self.query_log is not None:
            self.query_log(query, len(rows))
        watch.check()
        return header, rows

    def _solutions(self, query: str, graphs: Graphs, watch: deadlines.Watch) -> ox.QuerySolutions:
        """The solutions of a SELECT, evaluated as they are read: the caller reads them all,
        then asks `watch.check()` whether the store's checks (`deadline.ALIVE`, `deadline.HELD`)
        cut them."""
        if graphs is None and next(iter(self.store.named_graphs()), None) is None:
            scope: dict[str, Any] = {}  # the default graph alone: the union's bookkeeping slows big reads
        else:
            scope = _scope(graphs)
        checks: dict[ox.NamedNode, Callable[..., ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None]] = {
            _CHECKS[name]: check for name, check in watch.functions(_TRUE, _FALSE).items()}
        solutions = self.store.query(query, custom_functions=checks, **scope)
        if not isinstance(solutions, ox.QuerySolutions):
            raise UpstreamError(f"a generated query is not a SELECT: {query[:80]!r}")
        return solutions

    def _iris(self, query: str, graphs: Graphs) -> list[str]:
        """`IRIS`, read from TSV without building a term per row."""
        watch = deadlines.Watch()
        try:
            data = _tsv(self._solutions(query, graphs, watch))
        except (SyntaxError, OSError) as error:
            raise UpstreamError(f"the store failed a generated query: {error}") from error
        watch.check()
        body = data[data.find("\n") + 1 :]
        if body and body.count("\n") == body.count("\n<") + 1 and body.startswith("<") and "<<" not in body:
            found = body[1:-2].split(">\n<")  # every row one IRI: split in C, no per-line test
        else:
            found = [line[1:-1] for line in body.split("\n") if line.startswith("<") and not line.startswith("<<")]
        self.rows_read += len(found)
        if self.query_log is not None:
            self.query_log(query, len(found))
        return found

    def _lines(self, query: str, graphs: Graphs) -> list[str]:
        """`LINES` from TSV in a few passes over the whole text (no term, list or call per
        row): a hop's rows sort and split at the store's own pace. TSV escapes tabs and
        newlines inside literals, so the lines and fields stay whole; deleting the brackets
        and quotes leaves IRIs and the templates' strings bare."""
        if self.report.odd_iris:  # an IRI with a tab or a quote in it would break the lines: the slow way
            return ["\t".join(_line_field(term) for term in row) for row in self._table(query, graphs)[1]]
        return self._tsv_lines(query, graphs, b'<>"')

    def _written(self, query: str, graphs: Graphs) -> list[str]:
        """`WRITTEN`: the store's own TSV, split into lines."""
        if self.report.odd_iris:
            return ["\t".join(tsv_text(term) for term in row) for row in self._table(query, graphs)[1]]
        return self._tsv_lines(query, graphs, b"")

    def _tsv_lines(self, query: str, graphs: Graphs, dropped: bytes) -> list[str]:
        """The rows of a SELECT as the store writes TSV, without the bytes `dropped`."""
        watch = deadlines.Watch()
        try:
            data = self._solutions(query, graphs, watch).serialize(format=ox.QueryResultsFormat.TSV) or b""
        except (SyntaxError, OSError) as error:
            raise UpstreamError(f"the store failed a generated query: {error}") from error
        watch.check()
        body = data[data.find(b"\n") + 1 :]
        lines = (body.translate(None, dropped) if dropped else body).decode().split("\n")
        lines.pop()  # after the last newline
        self.rows_read += len(lines)
        if self.query_log is not None:
            self.query_log(query, len(lines))
        return lines

    def close(self) -> None:
        self.store = ox.Store()
        store_directory.release(self.served_mark)


BYTES_PER_QUAD = 500
"""Memory an in-memory store takes per quad, a little above the load benchmark's 442."""


def fits_in_memory(directory: Path, copies: int = 1, share: float = 0.5) -> bool:
    """Whether `copies` in-memory copies of a `bfsql load` store take at most `share` of the
    memory this machine has free (the quad count read from its meta.json; False if unknown)."""
    try:
        quads = int(json.loads((directory / META_FILE).read_text(encoding="utf-8"))["report"]["quads"])
        free = next(int(line.split()[1]) * 1024 for line in Path("/proc/meminfo").read_text().splitlines()
                    if line.startswith("MemAvailable:"))
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return False
    return quads * BYTES_PER_QUAD * copies <= free * share


def _copied(store: ox.Store) -> ox.Store:
    memory = ox.Store()
    memory.bulk_extend(store.quads_for_pattern(None, None, None, None))
    return memory


def _line_field(term: object) -> str:
    """A value as `LINES` writes it, with a tab or a line end inside an IRI written as
    an escape (`\\u0009`): such an IRI cannot be named in a query anyway."""
    text = line_text(term)  # type: ignore[arg-type]
    return text.replace("\t", "\\u0009").replace("\n", "\\u000A").replace("\r", "\\u000D")


def _tsv(solutions: ox.QuerySolutions) -> str:
    data = solutions.serialize(format=ox.QueryResultsFormat.TSV)  # without an output: the bytes
    return data.decode() if data is not None else ""


def _scope(graphs: Sequence[str] | None) -> dict[str, Any]:
    """The dataset of a query: every graph, or the union of the given ones."""
    if graphs is None:
        return {"use_default_graph_as_union": True}
    return dataset(graphs, graphs)


def dataset(default: Sequence[str], named: Sequence[str]) -> dict[str, Any]:
    """`Store.query`'s dataset arguments for graph names ("default": the store's default
    graph). No name at all is an empty dataset, not the default graph; the default graph
    can be part of the default graph, but it has no name to be a named graph by."""
    graphs = [ox.DefaultGraph() if g == DEFAULT_GRAPH else ox.NamedNode(g) for g in default]
    names = [ox.NamedNode(g) for g in named if g != DEFAULT_GRAPH]
    return {"default_graph": graphs or [ox.NamedNode(NO_GRAPH)], "named_graphs": names or [ox.NamedNode(NO_GRAPH)]}


# -- loading ------------------------------------------------------------------------
def _file_prefixes(files: Sequence[tuple[Path, ox.RdfFormat]]) -> dict[str, str]:
    prefixes: dict[str, str] = {}
    for path, fmt in files:
        if fmt in _PREFIXED_FORMATS:
            prefixes.update(scan_prefixes(path))
    return prefixes


def declared_prefixes(store: ox.Store, graphs: Sequence[str] | None = None) -> dict[str, str]:
    """Prefix -> namespace as the data declares them in triples (`vann:preferredNamespacePrefix`,
    `sh:declare`) in `graphs` (None: all): below a file's own `@prefix` lines, above the
    prefix registry. Where the data gives one prefix two namespaces, neither is taken; nor is
    a namespace that does not end where a local name starts (`/`, `#`, `_`, `:`)."""
    found: dict[str, set[str]] = defaultdict(set)
    solutions = store.query(template("native/declared_prefixes"), **_scope(graphs))
    assert isinstance(solutions, ox.QuerySolutions)  # a SELECT
    for prefix, namespace in solutions:
        found[str(prefix.value)].add(str(namespace.value))
    return {prefix: namespace for prefix, (namespace, *others) in found.items()
            if not others and namespace.endswith(("/", "#", "_", ":"))}


def load_files(
    store: ox.Store,
    paths: Sequence[Path],
    *,
    lenient: bool = False,
    bulk: bool = False,
    progress: Callable[[int], None] | None = None,
    checked: bool = False,
    formats: dict[Path, ox.RdfFormat] | None = None,
) -> LoadReport:
    """Load RDF files into a store, all or nothing per file, each in the syntax `formats`
    gives it, else the one its extension names; each is checked first
    (`file_checks.check_files`, all before any is loaded), unless the caller did (`checked`).

    In lenient mode pyoxigraph accepts what a strict parser refuses (such as the
    language tag ``zh-classical``, longer than BCP 47 allows) and keeps it; the report
    says what was let through, so nothing is lost and nothing is silent.
    """
    report = LoadReport(files=[str(p) for p in paths], lenient=lenient)
    syntaxes = {path: rdf_format(path, (formats or {}).get(path)) for path in paths}
    if not checked:
        check_files(syntaxes.items())
    before = len(store)
    for path in paths:
        fmt = syntaxes[path]
        load = store.bulk_load if bulk else store.load
        try:
            with read_errors(path):  # a cut or false .gz, a file that cannot be read
                if progress is None and path.suffix.lower() != ".gz":
                    # pyoxigraph reads the file itself, without the GIL (reifiers.scan runs beside it)
                    load(path=str(path), format=fmt, lenient=lenient)
                else:
                    with _open_counting(path, progress) as handle:
                        load(handle, format=fmt, lenient=lenient)
        except SyntaxError as error:
            raise InvalidInput(syntax_error_text(path, error, lenient=lenient, fmt=fmt), field="path") from None
        except MemoryError:
            raise InvalidInput(f"{path.name}: a term in it is larger than the parser takes (16 MiB)",
                               field="path") from None
    report.quads = len(store) - before
    if lenient:
        report.invalid_language_tags = invalid_language_tags(store)
        report.odd_iris = odd_iris(store)
        if report.odd_iris:
            report.odd_iri_examples = odd_iri_examples(store, paths)
    return report


class _Counting(io.RawIOBase):
    """A binary file that reports how many bytes were read, for progress bars."""

    def __init__(self, handle: io.BufferedIOBase, progress: Callable[[int], None] | None) -> None:
        self._handle = handle
        self._progress = progress

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self._handle.readinto(buffer)
        if self._progress is not None and count:
            self._progress(count)
        return count

    def close(self) -> None:
        self._handle.close()
        super().close()


def _open_counting(path: Path, progress: Callable[[int], None] | None) -> io.BufferedReader:
    """`path` (gzip-compressed when it ends in .gz) for reading, counting; the caller closes it."""
    handle: io.BufferedIOBase = gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")  # noqa: SIM115
    return io.BufferedReader(_Counting(handle, progress), buffer_size=1 << 20)


def write_meta(
    directory: Path, prefixes: dict[str, str], report: LoadReport, *, generation: str | None, loading: bool = False,
    namespace_graphs: dict[str, list[str]] | None = None, profile: str | None = None,
) -> None:
    """meta.json: the prefixes, the load report and the store's `generation` (every side
    file records the one it was made for); `loading` while a load is under way, so a load
    that dies leaves a store that says so; which graphs use each `@prefix` line's namespace
    (`EmbeddedBackend.namespace_graphs`). Written whole or not at all."""
    meta: dict[str, Any] = {"prefixes": prefixes, "report": asdict(report), "generation": generation}
    if namespace_graphs is not None:
        meta["namespace_graphs"] = namespace_graphs
    if profile is not None:  # what the name index and statistics were made with (`store_profile`)
        meta["profile"] = profile
    if loading:
        meta["loading"] = True
    temporary = directory / f".{META_FILE}.{os.getpid()}"
    temporary.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    temporary.replace(directory / META_FILE)
