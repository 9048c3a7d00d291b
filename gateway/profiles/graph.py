"""The open graph as a profile's strategies see it, and what they hand back.

A profile decides how statistics, names and entity search are read (counted, probed,
looked up), but the graph they are read from is the engine's (`GraphContext`): values
computed once per open graph, the ID mapper, the settings, labels. Profiles sit below the
engine, so they name what they need of it here (`Graph`), and the engine hands itself in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from gateway.ids import IdMapper
from gateway.models import SearchHit
from gateway.settings import Settings

T = TypeVar("T")


@dataclass(frozen=True)
class MemoKey(Generic[T]):
    """Where `Graph.memo` keeps a value, typed by the value: `MemoKey[Statistics]("statistics")`.

    A key without `detail` is the code's own (a module constant): one value each, kept as
    long as the graph is open. A key with `detail` holds what a caller named (an IRI in a
    table's path): such values are kept in bounded number, the least recently used
    dropped first, so that calls naming thousands of IRIs keep no more than that.
    """

    name: str
    """What the value is, as a message names it (`slow_count` is "slow count")."""
    detail: tuple[str, ...] = ()

    @property
    def caller_named(self) -> bool:
        return bool(self.detail)

    def __str__(self) -> str:
        return " ".join((self.name, *self.detail))


class Graph(Protocol):
    """What a profile's strategies read of the open graph, besides the profile itself."""

    @property
    def ids(self) -> IdMapper: ...

    @property
    def settings(self) -> Settings: ...

    def memo(self, key: MemoKey[T], compute: Callable[[], T]) -> T:
        """`compute()`, once per open graph (see `GraphContext.memo`)."""
        ...

    def labels(self, iris: Sequence[str], /) -> dict[str, str]:
        """The preferred label of each IRI that has one."""
        ...


class EntitySearch(Protocol):
    """How search_entities finds entities by name: a full-text index, a service's own
    search, label lookups."""

    def search(self, query: str, types: set[str] | None, limit: int, to_id: Callable[[str], str]) -> list[SearchHit]:
        """Up to `limit` entities named like `query`, best first; `types`: only entities of
        one of these types (an empty set: none)."""
        ...

    def close(self) -> None: ...


class TermResolver(Protocol):
    """Predicate or type names to the IRIs the graph uses (`gateway.engine.names`)."""

    def __call__(self, names: Sequence[str], field: str, *, kind: str, warnings: list[str]) -> set[str]:
        """IRIs for the names; a name not in the graph is told in `warnings`."""
        ...


TypesOf = Callable[[Sequence[str]], dict[str, list[str]]]
"""Nodes -> the types of those that have any (`gateway.engine.presentation.node_types`)."""
