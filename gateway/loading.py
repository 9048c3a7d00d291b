"""`bfsql load`: bulk-load RDF files into an on-disk store, with the gateway's sidecar files."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
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

from gateway.api import profile_named
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
from gateway.backends.store_directory import load_record, recorded_loads, refuse_served, write_loads
from gateway.deployment_key import KEY_FILE, write_key_file
from gateway.engine import statistics
from gateway.engine.census import Census, FileCensus, census, census_files, finish_files
from gateway.engine.context import GraphContext
from gateway.engine.search import SEARCH_FILE, SearchIndex
from gateway.errors import InvalidInput
from gateway.profiles import profile_class
from gateway.settings import Settings


def load_store(
    sources: Sequence[Path], directory: Path, *, lenient: bool = False, show_progress: bool = True,
    rdf_format: ox.RdfFormat | None = None, profile: str | None = None,
) -> LoadReport:
    """Load RDF files, and folders of them (`rdf_sources`: `rdf_format` is the syntax of those
    whose extension names none), into the store at `directory` (created if needed) and
    rebuild its search index and statistics as `profile` reads the data ("auto": detected;
    unset: the one the store was loaded with before, else "native"), recorded in meta.json."""
    for path in sources:
        if not path.exists():
            raise InvalidInput(f"{path}: no such file or folder", field="files")
    refuse_served(directory)  # a server's read-only store would go on answering from the old data
    if profile not in (None, "auto"):
        profile_class(profile)  # an unknown name refused before the store is touched
    syntaxes = dict(rdf_sources(sources, rdf_format))
    files = list(syntaxes)
    failed = threading.Event()
    reading: set[int] = set()  # the census's descriptors of the files: the bar follows the store's
    # Begun before the files' checks, which read them on one core while it reads them on the
    # other; stopped (`failed`) where the load is refused or the store already holds quads.
    beside = _census_beside(files, syntaxes, failed, reading) if not lenient else None
    try:
        check_files(syntaxes.items())  # before the store is touched
        store, before, previous = _open_store(directory)
        # Said before a quad goes in, cleared last: a load that dies leaves a store that says so on open.
        write_meta(directory, previous.get("prefixes", {}), LoadReport(**previous.get("report", {})),
                   generation=previous.get("generation"), loading=True, profile=previous.get("profile"))
        total = sum(p.stat().st_size for p in files)
    except BaseException:
        failed.set()
        raise
    if before:  # counted from the store, after the load
        failed.set()
        beside = None
    generation = uuid.uuid4().hex
    console = Console(stderr=True, quiet=not show_progress)
    started = time.perf_counter()
    with Progress(
        TextColumn("loading"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
        console=console, disable=not show_progress,
    ) as progress:
        task = progress.add_task("load", total=total)
        try:
            # No progress callback: pyoxigraph then reads each file by its path, without the GIL and
            # without a Python file object between it and the disk; the bar follows the file position.
            with _following(files, lambda done: progress.update(task, completed=done), show_progress, reading):
                report = load_files(store, files, lenient=lenient, bulk=True, checked=True, formats=syntaxes)
        except BaseException as error:
            failed.set()
            if isinstance(error, InvalidInput) and len(store) == before:  # refused before any quad went in
                _restore(directory, previous)
            raise
        progress.update(task, completed=total)
    store.flush()
    prefixes = {**declared_prefixes(store), **previous.get("prefixes", {})}
    for path, fmt in syntaxes.items():
        if fmt in (ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG, ox.RdfFormat.N3):
            prefixes.update(scan_prefixes(path))
    earlier = previous.get("report", {})
    report.files = [*earlier.get("files", []), *report.files]
    report.quads += before  # load_files counted the store's quads after the load: not scanned again
    for tag, count in earlier.get("invalid_language_tags", {}).items():
        report.invalid_language_tags[tag] = report.invalid_language_tags.get(tag, 0) + count
    write_key_file(directory / KEY_FILE)  # kept if it exists: cursors stay valid across loads
    backend = EmbeddedBackend(store, prefixes=prefixes)
    context = GraphContext(backend, profile_named(profile or previous.get("profile") or "native", backend)(backend))
    # A large load spends minutes past the bar: say where.
    console.print(f"loaded {report.quads:,} quads in {time.perf_counter() - started:.0f} s")
    with _stage(console, "counted degrees, types and values"):
        counted = _finish_census(beside, context, report.quads)
    with _stage(console, "found the reifier-only statements"):  # this load's and earlier ones'
        found = _reifier_only(store, counted)
        backend.found_reifiers(found)  # what the statistics count them from
    with _stage(console, "made the name index"):
        SearchIndex.build(context, directory / SEARCH_FILE, generation=generation, counted=counted).close()
    reifiers.write(directory / reifiers.FILE, found, generation)
    with _stage(console, "counted the schema statistics"):  # here, once, not on a process's first describe_schema
        statistics.write(statistics.store_file(directory, context.profile.name), statistics.count(context, counted),
                         generation=generation)
    with _stage(console, "found which graphs use the files' prefixes"):  # for readers of some graphs
        used = backend.namespace_graphs()
    write_meta(directory, prefixes, report, generation=generation, namespace_graphs=used,
               profile=context.profile.name)  # last: the side files are in place
    write_loads(directory, [*recorded_loads(previous), load_record(
        list(sources), rdf_format=rdf_format.file_extension if rdf_format else None, lenient=lenient)])
    return report


def _open_store(directory: Path) -> tuple[ox.Store, int, dict[str, Any]]:
    """(the store at `directory`, made if need be; the quads it holds; its meta.json as it was)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file of that name, a folder this user may not write
        raise InvalidInput(f"--store {directory}: cannot be made a store directory ({error.strerror})",
                           field="store") from None
    _remove_stale_temporaries(directory)
    previous = read_meta(directory) or {}
    try:  # first: a store another load is writing is left as it is, its meta.json too
        store = ox.Store(str(directory / STORE_DIR))
        return store, len(store), previous  # len reads the store's files: where a damaged one first shows
    except (OSError, RuntimeError) as error:  # RuntimeError: a damaged store
        raise store_error(directory, error) from None


def _census_beside(files: Sequence[Path], syntaxes: dict[Path, ox.RdfFormat],
                   failed: threading.Event, reading: set[int]) -> Future[FileCensus] | None:
    """The census of N-Triples files read from their text in a thread while the store bulk-loads
    them (pyoxigraph lets go of the GIL: the two take two cores); None for other syntaxes,
    whose text this does not read (the store is counted after the load)."""
    if not files or any(syntaxes[path] != ox.RdfFormat.N_TRIPLES for path in files):
        return None
    executor = ThreadPoolExecutor(1, thread_name_prefix="bfsql-census")
    try:
        return executor.submit(census_files, files, memory=Settings().census_memory, stop=failed.is_set,
                               reading=reading)
    finally:
        executor.shutdown(wait=False)


def _finish_census(beside: Future[FileCensus] | None, context: GraphContext, quads: int) -> Census | None:
    """The census read beside the load where its text counts as the store does, else the store's own."""
    if beside is not None:
        counted = finish_files(beside.result(), context, quads)
        if counted is not None:
            return counted
    return census(context)  # the whole-graph counts of both, in one read


def _reifier_only(store: ox.Store, counted: Census | None) -> reifiers.ReifierScan:
    """The store's reifier-only statements: none where the census saw every reified triple
    asserted (the store's reifiers are then not read again: ~12 us each on disk), else those
    of the triples it did not see asserted, asked of the store."""
    if counted is None:
        return reifiers.in_store(store)
    if not len(counted.maybe_unasserted):
        return reifiers.ReifierScan([], counted.reifier_namespaces)
    return reifiers.in_store(store, counted.maybe_unasserted)


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
                   generation=previous.get("generation"), namespace_graphs=previous.get("namespace_graphs"),
                   profile=previous.get("profile"))
        write_loads(directory, recorded_loads(previous))
    else:
        (directory / META_FILE).unlink(missing_ok=True)


_POLL = 0.2
"""Seconds between two looks at how far the load has read."""


@contextmanager
def _following(files: Sequence[Path], show: Callable[[int], None], enabled: bool,
               others: set[int]) -> Iterator[None]:
    """Tell `show` the bytes of `files` read so far while the body loads them in order, from
    the position of the file descriptor the parser holds on each (Linux's /proc/self/fdinfo;
    elsewhere the bar moves when the load ends), not of `others` (the census's, on the same files)."""
    stop = threading.Event()
    sizes = [p.stat().st_size for p in files]
    names = {os.path.realpath(p): n for n, p in enumerate(files)}

    def follow() -> None:
        while not stop.wait(_POLL):
            at = _reading(names, others)
            if at is not None:
                show(sum(sizes[:at[0]]) + at[1])

    watcher = threading.Thread(target=follow, name="bfsql-load-progress", daemon=True)
    if enabled and Path("/proc/self/fdinfo").is_dir():
        watcher.start()
    try:
        yield
    finally:
        stop.set()
        if watcher.is_alive():
            watcher.join()


def _reading(names: dict[str, int], others: set[int]) -> tuple[int, int] | None:
    """(the index of the file being read, its descriptor's position), or None when none is
    open; not by the descriptors in `others`."""
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for fd in descriptors:
        try:
            at = names.get(os.readlink(f"/proc/self/fd/{fd}"))
            if at is None or int(fd) in others:
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as info:
                position = int(info.readline().split()[1])  # its first line: "pos: N"
        except (OSError, ValueError, IndexError):
            continue  # closed meanwhile
        return at, position
    return None
