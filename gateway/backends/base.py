"""The one interface every store sits behind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from gateway.terms import Term

Rows = list[list[Term | None]]
QueryLog = Callable[[str, int], None]
"""Called with each query's text and the number of rows it returned (tests, benchmarks)."""


class Backend(Protocol):
    """A SPARQL store. Queries are SELECTs built from `queries/` templates."""

    name: str
    prefixes: dict[str, str]
    """Prefixes of the whole store: those the data declares (Turtle `@prefix` lines,
    `sh:declare`, `vann:preferredNamespacePrefix`) and those configured."""

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        """The prefixes a reader of these graphs ("default": the default graph) may see: those
        the graphs declare, a file's `@prefix` lines for namespaces the graphs use, and the
        configured ones; never a prefix only another graph gives away."""
        ...

    @property
    def directory(self) -> Path | None:
        """A store directory made by `bfsql load`, which keeps the gateway's own files (search
        index, statistics, cursor key) beside the data; None for anything else."""
        ...

    @property
    def endpoint(self) -> str | None:
        """The SPARQL endpoint's URL for a remote store; None in process."""
        ...

    max_concurrency: int
    """Requests the store may be sent at once (1 in process, and to an endpoint that allows one)."""

    evaluates_checks: bool
    """Whether the store runs the gateway's own functions inside a query (`deadline.ALIVE`,
    `deadline.HELD`): an embedded store does; an endpoint does not know them."""

    def reifier_only(self, graphs: Sequence[str] | None = None) -> Rows | None:
        """The rows of `queries/native/unasserted.rq`, when the backend found them as it loaded
        its data (an embedded store opened from files, unscoped); None means: ask SPARQL."""
        ...

    def reifier_namespaces(self, graphs: Sequence[str] | None = None) -> frozenset[str] | None:
        """The namespaces (each IRI up to its last "/" or "#") of every reifier, found by the
        same pass as `reifier_only`; None means: ask SPARQL."""
        ...

    def load_warnings(self) -> list[str]:
        """What a lenient load let through (empty for anything else)."""
        ...

    def source(self) -> str | None:
        """What the data was read from, as text that changes when the data does (files with
        their sizes and times, a store directory); None when that cannot be told."""
        ...

    def select(self, query: str, *, graphs: Sequence[str] | None = None) -> tuple[list[str], Rows]:
        """Run a SELECT over the union of `graphs` (all graphs when None); return (variables, rows)."""
        ...

    def select_iris(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        """The IRIs bound to the only variable of a SELECT (unbound and non-IRI values skipped)."""
        ...

    def select_lines(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        """Rows of a SELECT as text, values joined by tabs: an IRI or blank node as its
        text, a literal as its lexical form, "" when unbound. For templates whose values
        are IRIs, blank nodes and their own constant strings (a tab is in none of them,
        so the lines sort as the rows' tuples would)."""
        ...

    def select_written(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        """Rows of a SELECT as SPARQL TSV writes them, values joined by tabs: an IRI in
        angle brackets, a blank node as `_:label`, a literal quoted (`results.tsv_text`),
        for a query that reads lines and must tell an IRI from a string."""
        ...

    def close(self) -> None: ...
