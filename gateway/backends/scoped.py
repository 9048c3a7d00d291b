"""A backend seen through one reader's graphs: every query runs over their union only.

Because the scope is applied to every query (the walk's hops, the statement index, the
search index, the schema), an unreadable statement is neither returned nor crossed:
a walk as a reader equals the same walk on a store holding only that reader's graphs.

What the inner backend made over every graph is not handed on: a scope has no store
directory (whose search index and statistics count every graph: a scope builds its own)
and sees only the prefixes its own graphs declare or use (`Backend.prefixes_for`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.backends.base import Backend, Rows


class ScopedBackend:
    def __init__(self, inner: Backend, graphs: tuple[str, ...]) -> None:
        self.inner = inner
        self.graphs = graphs
        self.name = f"{inner.name} (scoped)"
        self.prefixes = inner.prefixes_for(graphs)
        self.endpoint = inner.endpoint
        self.max_concurrency = inner.max_concurrency
        self.evaluates_checks = inner.evaluates_checks

    directory = None

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        return self.inner.prefixes_for([g for g in graphs if g in self.graphs])

    def source(self) -> str | None:
        return self.inner.source()

    def select(self, query: str, *, graphs: Sequence[str] | None = None) -> tuple[list[str], Rows]:
        return self.inner.select(query, graphs=self.graphs)

    def select_iris(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        return self.inner.select_iris(query, graphs=self.graphs)

    def select_lines(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        return self.inner.select_lines(query, graphs=self.graphs)

    def select_written(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        return self.inner.select_written(query, graphs=self.graphs)

    def reifier_only(self, graphs: Sequence[str] | None = None) -> Rows | None:
        return self.inner.reifier_only(self.graphs)

    def reifier_namespaces(self, graphs: Sequence[str] | None = None) -> frozenset[str] | None:
        return self.inner.reifier_namespaces(self.graphs)

    def load_warnings(self) -> list[str]:
        return self.inner.load_warnings()

    def close(self) -> None:
        """The inner backend is shared; the gateway closes it."""
