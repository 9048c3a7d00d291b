"""The deployment's secret: what scan cursors are sealed with.

Every process serving the same data must use the same secret (several `bfsql serve`
workers, a restart), and no caller may know it. It is found, in this order:

1. `Settings.cursor_secret`, when the program sets one;
2. the environment variable `BFSQL_CURSOR_KEY`;
3. the file `cursor.key` of a store directory, written by `bfsql load`;
4. the user's key file, `$XDG_DATA_HOME/bfsql/cursor.key` (default
   `~/.local/share/bfsql/cursor.key`), created on first use, readable by the user only.

Where no file can be written, a key for this process alone is made, and a warning logged:
cursors then end with the process.
"""

from __future__ import annotations

import logging
import os
import secrets
from functools import cache
from pathlib import Path

KEY_FILE = "cursor.key"
ENVIRONMENT = "BFSQL_CURSOR_KEY"
logger = logging.getLogger("gateway.keys")


def deployment_key(directory: Path | None = None) -> bytes:
    """The secret for data served from `directory` (a store directory), or for this user."""
    from_environment = os.environ.get(ENVIRONMENT, "").strip()
    if from_environment:
        return from_environment.encode()
    if directory is not None and (directory / KEY_FILE).is_file():
        return (directory / KEY_FILE).read_bytes().strip()
    return _user_key(_user_key_path())


def write_key_file(path: Path) -> bytes:
    """The key in `path`, made (random, mode 0600) if the file does not exist yet.

    Created exclusively, so processes racing to make it all end up with the one that won.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
    key = path.read_bytes().strip()
    if not key:
        raise OSError(f"{path} is empty")
    return key


def _user_key_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bfsql" / KEY_FILE


@cache
def _user_key(path: Path) -> bytes:
    try:
        return write_key_file(path)
    except OSError as error:
        logger.warning("cannot keep a cursor key in %s (%s); scan cursors will end with this process "
                       "(set %s to share one)", path, error, ENVIRONMENT)
        return secrets.token_urlsafe(32).encode()
