"""The layout of a store directory `bfsql load` makes, as far as more than its backend reads
it: `meta.json` and the `generation` every side file beside the data (search index,
statistics) records it was made for.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from gateway.errors import InvalidInput

META_FILE = "meta.json"
STORE_DIR = "store"
"""The subfolder of a `bfsql load` store directory the store's engine keeps its files in."""

# The engine's words for each trouble (RocksDB's, through pyoxigraph 0.5). `lock file` is
# matched whole: "block checksum mismatch" holds "lock" too, and is no writer.
_HELD = re.compile(r"\block file\b|[/\\]LOCK\b")
_CHECKSUM = re.compile(r"checksum mismatch|Corruption: (?:bad|truncated|block)", re.I)
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


def store_trouble(directory: Path, error: Exception) -> InvalidInput:
    """What is wrong with a store directory whose store would not open, in the gateway's
    words: a load holding it, rights, or damage with how to rebuild it. The engine's file
    names (its lock, manifest and table files) mean nothing to whoever reads this."""
    text = str(error)
    if _HELD.search(text):
        why = ("another process is writing to this store (a `bfsql load` still running?): wait for it to end, "
               "or load into another directory")
    elif "Permission denied" in text:
        why = "the store's files cannot be read or written by this user"
    elif (directory / STORE_DIR).is_dir() and not (directory / META_FILE).is_file():
        # No quad goes in before meta.json says a load is under way: the store is empty or
        # whole, and loading the same files again (a set of quads) completes it.
        why = (f"the last `bfsql load` into this directory did not finish (the {META_FILE} a load writes as it "
               "begins is missing), so its data may be incomplete: run the same load again")
    else:
        why = f"this store directory is damaged: {_damage(directory, text)}; {_rebuild(directory)}"
    return InvalidInput(f"{directory}: {why}", field="path")


def _damage(directory: Path, text: str) -> str:
    if _CHECKSUM.search(text):
        return "a data file does not match its checksum (a disk error, or a copy taken while a load was writing)"
    if _MISSING.search(text):
        return "some of its data files are missing (a load that was stopped, or files removed)"
    if text.startswith("Corruption"):
        return "the file that lists its data files is damaged (a copy taken while a load was writing?)"
    return "its data files do not open as a store"


def _rebuild(directory: Path) -> str:
    """How to make it again: the load that made it when its meta.json names the files."""
    try:
        files = ((read_meta(directory) or {}).get("report") or {}).get("files") or []
    except InvalidInput:
        files = []
    known = all(isinstance(f, str) for f in files)
    given = shlex.join(dict.fromkeys(files)) if files and known else "FILE..."  # a file loaded twice, once
    return f"remove it and rebuild it with `bfsql load {given} --store {shlex.quote(str(directory))}`"
