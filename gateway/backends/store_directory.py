"""The layout of a store directory `bfsql load` makes, as far as more than its backend reads
it: `meta.json` and the `generation` every side file beside the data (search index,
statistics) records it was made for.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from gateway.backends.rdf_files import named_rdf
from gateway.errors import InvalidInput, StoreDamaged

logger = logging.getLogger("gateway.store")

META_FILE = "meta.json"
STORE_DIR = "store"
"""The subfolder of a `bfsql load` store directory the store's engine keeps its files in."""

# The engine's words for each trouble (RocksDB's, through pyoxigraph 0.5). `lock file` is
# matched whole: "block checksum mismatch" holds "lock" too, and is no writer.
_HELD = re.compile(r"\block file\b|[/\\]LOCK\b")
_CHECKSUM = re.compile(r"checksum mismatch", re.I)
_DATA_FILE = re.compile(r"\.sst\b|Corruption: (?:bad|truncated|block)", re.I)
"""The engine naming one of its data files (its text then goes on to say its file list "may
be corrupted", whatever it found)."""
_DAMAGE = re.compile(r"Corruption|checksum mismatch", re.I)
_MISSING = re.compile(r"No such file|Column family not found|wal_dir contains existing log file", re.I)


def read_meta(directory: Path) -> dict[str, Any] | None:
    """A store directory's meta.json (None where there is none), or `InvalidInput` saying it
    cannot be read."""
    path = directory / META_FILE
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
        return meta
    except (OSError, ValueError) as error:
        raise InvalidInput(f"{path}: cannot be read ({error}); load the store again", field="path") from None


def store_generation(directory: Path | None) -> str | None:
    """The generation of a `bfsql load` store (what its side files must have been made for)."""
    if directory is None:
        return None
    meta = read_meta(directory)
    return str(meta["generation"]) if meta and meta.get("generation") else None


def store_profile(directory: Path | None) -> str | None:
    """The profile a `bfsql load` store's side files were made with: the name index and
    the statistics say what an entity is as that profile reads it. A store loaded before
    the profile was recorded was loaded with "native"; None: not such a store."""
    meta = read_meta(directory) if directory is not None else None
    return str(meta.get("profile") or "native") if meta else None


def is_store_directory(directory: Path) -> bool:
    """A store `bfsql load` made (meta.json; a `store/` without it is a load killed as it
    began, unless RDF files lie beside it: then it is a folder of one's own files that
    holds a subfolder of that name), or a bare Oxigraph one (RocksDB's CURRENT file)."""
    if (directory / META_FILE).is_file() or (directory / "CURRENT").is_file():
        return True
    return (directory / STORE_DIR).is_dir() and not any(p.is_file() and named_rdf(p) for p in directory.iterdir())


def store_trouble(directory: Path, error: Exception) -> InvalidInput:
    """What is wrong with a store directory whose store would not open, in the gateway's
    words: a load holding it, rights, or damage with how to rebuild it. The engine's file
    names (its lock, manifest and table files) mean nothing to whoever reads this."""
    text = str(error)
    if _HELD.search(text) or _writer_holds(directory / STORE_DIR / "LOCK"):  # a load as it begins, too
        why = _WRITING
    elif "Permission denied" in text:
        why = "the store's files cannot be read or written by this user"
    elif (directory / STORE_DIR).is_dir() and not (directory / META_FILE).is_file():
        # No quad goes in before meta.json says a load is under way: the store is empty or
        # whole, and loading the same files again (a set of quads) completes it.
        why = (f"the last `bfsql load` into this directory did not finish (the {META_FILE} a load writes as it "
               "begins is missing), so its data may be incomplete: run the same load again")
    else:
        return damaged(directory, text)
    return InvalidInput(f"{directory}: {why}", field="path")


_WRITING = ("another process is writing to this store (a `bfsql load` still running?): wait for it to end, "
            "or load into another directory")


def damaged(directory: Path, text: str) -> InvalidInput:
    """A store directory whose engine reported damage, said with the load that rebuilds it."""
    return InvalidInput(f"{directory}: this store directory is damaged: {_damage(directory, text)}; "
                        f"{_rebuild(directory)}", field="path")


def damage_in(directory: Path | None, error: BaseException) -> InvalidInput | None:
    """`damaged` when `error` is the engine reporting a damaged data file while it read the
    store (a query, a copy into memory), else None: the engine raises RuntimeError or OSError
    with its own words, and only these words tell damage from other failures."""
    if directory is None or not isinstance(error, (RuntimeError, OSError)) or not _DAMAGE.search(str(error)):
        return None
    logger.debug("%s: the store's engine said: %s", directory, error)
    return damaged(directory, str(error))


def damage_met(directory: Path | None, error: BaseException) -> StoreDamaged | None:
    """`damage_in` met by a query while the store serves: the caller reads that the store is
    damaged and that its operator must rebuild it, never the server's paths nor the load
    that made it: those are the error's `detail`, which the surfaces log for the operator."""
    found = damage_in(directory, error)
    if found is None:
        return None
    why = _damage(directory or Path(), str(error))
    return StoreDamaged(f"this graph's store is damaged: {why}; its operator must rebuild it (the server's log "
                        "says how)", detail=found.message)


def unfinished_load(directory: Path) -> InvalidInput:
    """What a store whose meta.json says a load is under way is: one being written now (its
    engine's lock held by another process), or one whose load died before it ended."""
    if _writer_holds(directory / STORE_DIR / "LOCK"):
        return InvalidInput(f"{directory}: {_WRITING}", field="path")
    return InvalidInput(f"{directory}: the last `bfsql load` into this store did not finish, so its data "
                        "may be incomplete: run the same load again", field="path")


def _writer_holds(lock: Path) -> bool:
    """Whether another process holds the engine's lock file: RocksDB takes a POSIX record lock
    on it for as long as a writer has the store open."""
    return bool(_holders(lock, "POSIX"))


SERVED_FILE = "served.lock"
"""The file each process serving a store directory holds a shared lock on, for as long as it
has the store open: a read-only store sees the data as it was when it opened, so a load
beside it would leave the server answering from the old data and the new side files at once."""


def hold_served(directory: Path) -> IO[bytes] | None:
    """Mark `directory` as served by this process until the returned file is closed (or the
    process ends: the kernel drops the lock, so no stale mark outlives a killed server). None
    where the directory cannot be written: no load by this user can write there either."""
    try:
        held = open(directory / SERVED_FILE, "ab")  # noqa: SIM115 - held open for the backend's life
    except OSError as error:
        logger.debug("%s: not marked as served (%s)", directory, error)
        return None
    try:
        fcntl.flock(held, fcntl.LOCK_SH | fcntl.LOCK_NB)  # shared: several servers may read one store
    except OSError as error:
        held.close()
        logger.debug("%s: not marked as served (%s)", directory, error)
        return None
    return held


class Marked(Protocol):
    """What holds a store directory open, with its served mark (`hold_served`)."""

    served_mark: IO[bytes] | None


Opened = TypeVar("Opened", bound=Marked)


def held_while(directory: Path, opening: Callable[[], Opened]) -> Opened:
    """What `opening` opens of `directory`, holding the directory's served mark, taken first so
    that no load starts between the open and the mark (dropped if the open fails)."""
    served = hold_served(directory)
    try:
        opened = opening()
    except BaseException:
        release(served)
        raise
    opened.served_mark = served
    return opened


def release(served: IO[bytes] | None) -> None:
    """Drop a served mark `hold_served` took."""
    if served is not None:
        served.close()


def refuse_served(directory: Path) -> None:
    """`InvalidInput` when another process serves `directory` (`hold_served`): a load would
    change the store under it."""
    pids = _holders(directory / SERVED_FILE, "FLOCK")
    if pids:
        raise InvalidInput(f"--store {directory}: is being served by pid {', '.join(map(str, pids))}: stop it "
                           "or load into another directory", field="store")


def _holders(lock: Path, kind: str) -> list[int]:
    """The other processes holding a `kind` ("POSIX" or "FLOCK") lock on `lock`. Read from
    Linux's /proc/locks, without opening the file: closing any descriptor of it would drop a
    POSIX lock this process holds, and opening the store to find out would write to it.
    Elsewhere, none."""
    try:
        info = os.stat(lock)
        locks = Path("/proc/locks").read_text(encoding="ascii")
    except (OSError, ValueError):
        return []  # no lock file (never held), or not Linux
    key = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    # "1: POSIX  ADVISORY  WRITE PID MAJOR:MINOR:INODE START END"; a waiter's line has "->" after its number.
    held = [fields for fields in map(str.split, locks.splitlines()) if len(fields) > 5 and fields[1] != "->"]
    pids = {int(fields[4]) for fields in held if fields[1] == kind and fields[5] == key and fields[4].isdigit()}
    return sorted(pids - {os.getpid()})


def _damage(directory: Path, text: str) -> str:
    if _CHECKSUM.search(text):
        return "a data file does not match its checksum (a disk error, or a copy taken while a load was writing)"
    if _DATA_FILE.search(text):
        return ("a data file is cut short or overwritten (a disk error, a copy taken while a load was writing, or "
                "files changed by hand)")
    if _MISSING.search(text):
        return "some of its data files are missing (a load that was stopped, or files removed)"
    if text.startswith("Corruption"):
        return "the file that lists its data files is damaged (a copy taken while a load was writing?)"
    return "its data files do not open as a store"


LOADS = "loads"
"""meta.json's record of each `bfsql load` into the store: its files and folders (absolute
paths), `rdf_format` and `lenient`, so the loads can be run again from anywhere."""


def load_record(sources: list[Path], *, rdf_format: str | None, lenient: bool) -> dict[str, Any]:
    """One load as `LOADS` records it."""
    return {"files": [str(path.absolute()) for path in sources], "rdf_format": rdf_format, "lenient": lenient}


def write_loads(directory: Path, loads: list[dict[str, Any]]) -> None:
    """Set meta.json's `LOADS` (written whole, as `write_meta` writes the rest)."""
    meta = read_meta(directory) or {}
    meta[LOADS] = loads
    temporary = directory / f".{META_FILE}.{os.getpid()}"
    temporary.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    temporary.replace(directory / META_FILE)


def recorded_loads(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The loads meta.json records; for a store loaded before it recorded them, one load of
    the files its report names (as they were given), so a load added now keeps them."""
    loads = meta.get(LOADS)
    if not isinstance(loads, list):
        files = (meta.get("report") or {}).get("files") or []
        known = isinstance(files, list) and all(isinstance(f, str) for f in files)
        return [{"files": list(dict.fromkeys(files)), "rdf_format": None}] if files and known else []  # a file loaded twice, once
    return [load for load in loads if isinstance(load, dict) and isinstance(load.get("files"), list)
            and all(isinstance(f, str) for f in load["files"]) and isinstance(load.get("rdf_format"), (str, type(None)))]


def _rebuild(directory: Path) -> str:
    """The loads that made the store, with the profile it was made for (its name index is)."""
    try:
        profile = store_profile(directory)
    except InvalidInput:  # meta.json unreadable: the loads are not known either
        profile = None
    options = ["--profile", profile] if profile is not None and profile != "native" else []
    return "remove it and rebuild it with " + load_commands(directory, options)


def load_commands(directory: Path, options: Sequence[str] = ()) -> str:
    """How to make it again: the loads that made it, as meta.json records them, each with
    `options` added."""
    try:
        meta = read_meta(directory) or {}
    except InvalidInput:
        meta = {}
    store = ["--store", str(directory.absolute()), *options]
    commands = [shlex.join(["bfsql", "load", *load["files"],
                            *(["--rdf-format", load["rdf_format"]] if load.get("rdf_format") else []),
                            *(["--lenient"] if load.get("lenient") is True else []), *store])
                for load in recorded_loads(meta)]
    if not commands:
        commands = [f"bfsql load FILE... {shlex.join(store)}"]
    return ", then ".join(f"`{command}`" for command in commands)
