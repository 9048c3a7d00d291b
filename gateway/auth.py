"""Readers: who may read which named graphs.

A readers file (TOML) maps bearer tokens, stored as SHA-256 hashes, to named graphs;
an optional anonymous reader serves requests without a token:

    [anonymous]
    graphs = ["https://example.org/graph/canon"]

    [readers.holmes]
    token_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    graphs = ["https://example.org/graph/canon", "https://example.org/graph/casebook"]
    trusted = true

A graph named "default" is the store's default graph. A trusted reader may give its
calls more time than the default deadline (up to `Settings.max_deadline`); every reader
may give them less. Without a readers file every request reads every graph, and is
trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path

from gateway.errors import InvalidInput, Unauthorized


@dataclass(frozen=True)
class Reader:
    name: str
    graphs: tuple[str, ...] | None
    """Readable named graphs, sorted; None reads everything."""
    trusted: bool = False
    """May ask for longer deadlines than the default."""



def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh bearer token and the hash to put in a readers file."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


class Readers:
    def __init__(self, readers: dict[str, tuple[str, Reader]], anonymous: Reader | None) -> None:
        self._by_hash = readers  # token hash -> (hash, reader)
        self.anonymous = anonymous

    @classmethod
    def open(cls, path: Path) -> Readers:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise InvalidInput(f"{path}: not a readable TOML readers file ({error})", field="readers") from None
        readers = {}
        for name, entry in sorted(data.get("readers", {}).items()):
            digest = str(entry.get("token_sha256", "")).lower()
            if len(digest) != 64:
                raise InvalidInput(f"{path}: reader {name!r} needs token_sha256 (64 hex digits)", field="readers")
            readers[digest] = (digest, Reader(name, _graphs(entry, path, name), _trusted(entry, path, name)))
        anonymous = data.get("anonymous")
        if anonymous is None:
            return cls(readers, None)
        return cls(readers, Reader("anonymous", _graphs(anonymous, path, "anonymous"), _trusted(anonymous, path, "anonymous")))

    def authenticate(self, token: str | None) -> Reader:
        """The reader a bearer token names (or the anonymous reader); `Unauthorized` otherwise."""
        if token is None:
            if self.anonymous is None:
                raise Unauthorized("a bearer token is required")
            return self.anonymous
        digest = hash_token(token)
        for known, reader in self._by_hash.values():
            if hmac.compare_digest(known, digest):
                return reader
        raise Unauthorized("unknown bearer token")


def _graphs(entry: dict[str, object], path: Path, name: str) -> tuple[str, ...]:
    graphs = entry.get("graphs")
    if not isinstance(graphs, list) or not all(isinstance(g, str) for g in graphs):
        raise InvalidInput(f"{path}: reader {name!r} needs graphs = [...] (IRIs or \"default\")", field="readers")
    return tuple(sorted(set(graphs)))


def _trusted(entry: dict[str, object], path: Path, name: str) -> bool:
    trusted = entry.get("trusted", False)
    if not isinstance(trusted, bool):
        raise InvalidInput(f"{path}: reader {name!r}: trusted must be true or false", field="readers")
    return trusted
