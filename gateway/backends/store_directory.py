"""The layout of a store directory `bfsql load` makes, as far as more than its backend reads
it: `meta.json` and the `generation` every side file beside the data (search index,
statistics) records it was made for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gateway.errors import InvalidInput

META_FILE = "meta.json"


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
