"""`bfsql load`: bulk-load RDF files into an on-disk store, with the gateway's sidecar files."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from gateway.backends import reifiers
from gateway.backends.embedded import (
    META_FILE,
    STORE_DIR,
    EmbeddedBackend,
    LoadReport,
    declared_prefixes,
    load_files,
    read_meta,
    scan_prefixes,
    store_error,
    write_meta,
)
from gateway.backends.file_checks import check_files
from gateway.backends.rdf_files import rdf_sources
from gateway.deployment_key import KEY_FILE, write_key_file
from gateway.engine import statistics
from gateway.engine.census import census
from gateway.engine.context import GraphContext
from gateway.engine.search import SEARCH_FILE, SearchIndex
from gateway.errors import InvalidInput
from gateway.profiles.native import NativeProfile


def load_store(
    sources: Sequence[Path], directory: Path, *, lenient: bool = False, show_progress: bool = True,
    rdf_format: ox.RdfFormat | None = None,
) -> LoadReport:
    """Load RDF files, and folders of them (`rdf_sources`: `rdf_format` is the syntax of those
    whose extension names none), into the store at `directory` (created if needed) and
    rebuild its search index."""
    for path in sources:
        if not path.exists():
            raise InvalidInput(f"{path}: no such file or folder", field="files")
    syntaxes = dict(rdf_sources(sources, rdf_format))
    files = list(syntaxes)
    # Before the store is touched, and before the scan's thread parses them (it would die on what this refuses).
    checked = check_files(syntaxes.items())
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file of that name, a folder this user may not write
        raise InvalidInput(f"--store {directory}: cannot be made a store directory ({error.strerror})",
                           field="store") from None
    _remove_stale_temporaries(directory)
    previous = read_meta(directory) or {}
    try:  # first: a store another load is writing is left as it is, its meta.json too
        store = ox.Store(str(directory / STORE_DIR))
    except (OSError, RuntimeError) as error:  # RuntimeError: a damaged store
        raise store_error(directory, error) from None
    # Said before a quad goes in, cleared last: a load that dies leaves a store that says so on open.
    write_meta(directory, previous.get("prefixes", {}), LoadReport(**previous.get("report", {})),
               generation=previous.get("generation"), loading=True)
    generation = uuid.uuid4().hex
    total = sum(p.stat().st_size for p in files)
    console = Console(stderr=True, quiet=not show_progress)
    started = time.perf_counter()
    with Progress(
        TextColumn("loading"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
        console=console, disable=not show_progress,
    ) as progress:
        task = progress.add_task("load", total=total)
        scan = reifiers.start(checked, lenient=lenient)
        before = len(store)
        try:
            report = load_files(store, files, lenient=lenient, bulk=True, checked=True, formats=syntaxes,
                                progress=lambda n: progress.advance(task, n))
        except InvalidInput:
            if len(store) == before:  # refused before any quad went in: the store is as it was
                _restore(directory, previous)
            raise
    store.flush()
    prefixes = {**declared_prefixes(store), **previous.get("prefixes", {})}
    for path, fmt in syntaxes.items():
        if fmt in (ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG, ox.RdfFormat.N3):
            prefixes.update(scan_prefixes(path))
    earlier = previous.get("report", {})
    report.files = [*earlier.get("files", []), *report.files]
    report.quads = len(store)
    for tag, count in earlier.get("invalid_language_tags", {}).items():
        report.invalid_language_tags[tag] = report.invalid_language_tags.get(tag, 0) + count
    write_key_file(directory / KEY_FILE)  # kept if it exists: cursors stay valid across loads
    context = GraphContext(backend := EmbeddedBackend(store, prefixes=prefixes), NativeProfile(backend))
    # A large load spends minutes past the bar: say where.
    console.print(f"loaded {report.quads:,} quads in {time.perf_counter() - started:.0f} s")
    with _stage(console, "counted degrees, types and values"):
        counted = census(context)  # the whole-graph counts of both, in one read
    with _stage(console, "made the name index"):
        SearchIndex.build(context, directory / SEARCH_FILE, generation=generation, counted=counted).close()
    _keep_reifier_scan(directory, store, scan.result(), previous, generation)
    with _stage(console, "counted the schema statistics"):  # here, once, not on a process's first describe_schema
        statistics.write(statistics.store_file(directory, context.profile.name), statistics.count(context, counted),
                         generation=generation)
    with _stage(console, "found which graphs use the files' prefixes"):  # for readers of some graphs
        used = backend.namespace_graphs()
    write_meta(directory, prefixes, report, generation=generation, namespace_graphs=used)  # last: the side files are in place
    return report


def _remove_stale_temporaries(directory: Path) -> None:
    """The half-written side files (`.NAME.PID`) of loads that were killed: their process is gone."""
    for path in directory.glob(".*.*"):
        pid = path.name.rsplit(".", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            path.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


@contextmanager
def _stage(console: Console, done: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    console.print(f"{done} in {time.perf_counter() - started:.0f} s")


def _restore(directory: Path, previous: dict[str, Any]) -> None:
    if previous:
        write_meta(directory, previous.get("prefixes", {}), LoadReport(**previous.get("report", {})),
                   generation=previous.get("generation"), namespace_graphs=previous.get("namespace_graphs"))
    else:
        (directory / META_FILE).unlink(missing_ok=True)


def _keep_reifier_scan(
    directory: Path, store: ox.Store, found: reifiers.ReifierScan, previous: dict[str, object], generation: str,
) -> None:
    """Keep the reifier-only statements beside the store, so that opening it costs nothing
    extra. A load onto an earlier one adds to what that kept; the statements are then
    checked against the whole store (a new file may assert an old reifier's triple)."""
    path = directory / reifiers.FILE
    if previous:
        before = reifiers.read(path, str(previous.get("generation")))
        if before is None:
            path.unlink(missing_ok=True)  # the earlier load kept none: the profile asks SPARQL
            return
        found = reifiers.ReifierScan([*before.unasserted, *found.unasserted], before.namespaces | found.namespaces)
    reifiers.write(path, reifiers.unasserted_in(store, found), generation)
