"""A backend seen through one reader's graphs: every query runs over their union only.

Because the scope is applied to every query (the walk's hops, the statement index, the
search index, the schema), an unreadable statement is neither returned nor crossed:
a walk as a reader equals the same walk on a store holding only that reader's graphs.

What the inner backend made over every graph is not handed on: a scope has no store
directory (whose search index and statistics count every graph: a scope builds its own)
and sees only the prefixes its own graphs declare or use (`Backend.prefixes_for`). A scope
wraps the one `select`, always with its graphs, and declares its own `Capabilities`, each
one it keeps named: what reads data (the quads, the reifier scan) reads its graphs only,
and a capability the inner backend gains later stays off here until a scope says how it
is scoped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gateway.backends.base import Backend, Capabilities, Graphs, Quads, ReifierIndex, Rows, Selects, Shape


class ScopedBackend(Selects):
    def __init__(self, inner: Backend, graphs: tuple[str, ...]) -> None:
        self._inner = inner
        self.graphs = graphs
        self.name = f"{inner.name} (scoped)"
        self.prefixes = inner.prefixes_for(graphs)
        self.capabilities = _scoped(inner.capabilities, graphs)

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        return self._inner.prefixes_for([g for g in graphs if g in self.graphs])

    def source(self) -> str | None:
        return self._inner.source()

    def _select(self, query: str, shape: Shape[Any], graphs: Graphs) -> Any:
        return self._inner.select(query, shape, graphs=self.graphs)

    def load_warnings(self) -> list[str]:
        return self._inner.load_warnings()

    def close(self) -> None:
        """The inner backend is shared; the gateway closes it."""


def _scoped(inner: Capabilities, graphs: tuple[str, ...]) -> Capabilities:
    """What a scope of these graphs can do: how the store is asked, and what reads data
    over the scope's graphs; no store directory, no store handed out whole."""
    quads, scan = inner.quads, inner.reifier_scan
    return Capabilities(
        max_concurrency=inner.max_concurrency,
        evaluates_checks=inner.evaluates_checks,
        round_trips=inner.round_trips,
        endpoint=inner.endpoint,
        quads=None if quads is None else _ScopedQuads(quads, graphs),
        reifier_scan=None if scan is None else _ScopedScan(scan, graphs),
    )


class _ScopedQuads:
    """The quads of a scope's graphs, whatever graphs are asked for."""

    def __init__(self, inner: Callable[[Graphs], Quads], graphs: tuple[str, ...]) -> None:
        self._inner = inner
        self._graphs = graphs

    def __call__(self, graphs: Graphs = None) -> Quads:
        return self._inner(self._graphs)


class _ScopedScan:
    """A reifier scan read over a scope's graphs only."""

    def __init__(self, inner: ReifierIndex, graphs: tuple[str, ...]) -> None:
        self._inner = inner
        self._graphs = graphs

    def unasserted(self, graphs: Graphs = None) -> Rows | None:
        return self._inner.unasserted(self._graphs)

    def namespaces(self, graphs: Graphs = None) -> frozenset[str] | None:
        return self._inner.namespaces(self._graphs)
