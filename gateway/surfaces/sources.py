"""The data a command is given: one RDF file, a store directory, a bundle directory, or
several RDF files and folders of them, read into memory, as `bfsql query`, `serve` and
`mcp` take them.

Several files (or a folder) are read into memory on every start; a store directory made
by `bfsql load` opens at once, so the line that says what was read also says the load
command that would make one of the same files."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gateway.api import Gateway, profile_named
from gateway.backends.embedded import EmbeddedBackend, is_store_directory
from gateway.backends.rdf_files import left_out, rdf_sources, syntax_named
from gateway.errors import InvalidInput
from gateway.importers.bundle import is_bundle, open_bundle
from gateway.resources import demo_path


def open_data(
    sources: Sequence[Path], *, lenient: bool = False, rdf_format: str | None = None,
    say: Callable[[str], None] = lambda line: None, **options: Any,
) -> Gateway:
    """A gateway over `sources` (none: the demo graph); `options` as `open_bundle` takes them
    (prefixes, settings, in_memory, profile). `say` is given the line naming what several files or
    a folder were read into, and the `bfsql load` command that keeps them in a store, and
    what in a folder was left out."""
    given = syntax_named(rdf_format) if rdf_format else None
    paths = list(sources) or [demo_path()]
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"{path}: no such file, folder or store directory", field="path")
    gateway = _open(paths, lenient=lenient, given=given, **options)
    for line in left_out([p for p in paths if not _whole(p)], given):
        say(line)
    backend = gateway.backend
    stores = any(p.is_dir() and is_store_directory(p) for p in paths)  # a bare Oxigraph one has no directory
    if isinstance(backend, EmbeddedBackend) and backend.directory is None and not stores and (
            len(backend.report.files) > 1 or any(p.is_dir() for p in paths)):
        say(loaded_line(paths, backend.report.files, backend.report.quads, lenient=lenient, rdf_format=rdf_format,
                        profile=options.get("profile")))
    return gateway


def _whole(path: Path) -> bool:
    """A store or bundle directory: opened as one, never read as a folder of files."""
    return path.is_dir() and (is_bundle(path) or is_store_directory(path))


def _open(paths: Sequence[Path], *, lenient: bool, given: Any, **options: Any) -> Gateway:
    if len(paths) == 1 and (given is None or _whole(paths[0])):
        return open_bundle(paths[0], lenient=lenient, **options)
    alone = [p for p in paths if _whole(p)]
    if alone:
        raise InvalidInput(f"{alone[0]}: a store or bundle directory is opened alone, not with other data "
                           "(`bfsql load FILE... --store DIR` adds files to a store)", field="path")
    return _open_files(paths, lenient=lenient, given=given, **options)


def _open_files(paths: Sequence[Path], *, lenient: bool, given: Any, **options: Any) -> Gateway:
    backend = EmbeddedBackend.open_files(rdf_sources(paths, given), lenient=lenient)
    prefixes = options.get("prefixes") or {}
    backend.prefixes.update(prefixes)
    backend.configured_prefixes.update(prefixes)
    return Gateway(backend, settings=options.get("settings"),
                   profile=profile_named(options.get("profile") or "native", backend))


def loaded_line(paths: Sequence[Path], files: Sequence[str], quads: int, *, lenient: bool,
                rdf_format: str | None, profile: str | None = None) -> str:
    """What was read into memory, and the command that keeps it in a store: `bfsql load` for
    RDF files and folders (with the profile asked for: a store's name index is made for
    one), `bfsql import-bundle` for a bundle (whose files are not RDF)."""
    store = f"{paths[0].resolve().name.split('.')[0] or 'graph'}-store"
    lenient_option = ["--lenient"] if lenient else []
    if len(paths) == 1 and is_bundle(paths[0]):
        command = shlex.join(["bfsql", "import-bundle", str(paths[0]), *lenient_option, "--store", store])
        read = f"the bundle {shlex.quote(str(paths[0]))}"
    else:
        options = [*(["--rdf-format", rdf_format] if rdf_format else []), *lenient_option,
                   *(["--profile", profile] if profile else [])]
        command = shlex.join(["bfsql", "load", *map(str, paths), *options, "--store", store])
        read = f"{len(files)} file{'' if len(files) == 1 else 's'}"
    return (f"read {read} into memory ({quads:,} triples), as on every start; to keep it in a store that "
            f"opens at once: {command}, then give {store} instead")
