"""The one interface every store sits behind: `select`, its answer in the shape the caller
asks for, and what the store declares it can do beyond that (`Capabilities`).

The engine and the profiles ask a backend's `capabilities`, never its type: a backend
that can do more says so there, and a scope (`gateway.backends.scoped`) declares its own,
so that nothing made over every graph reaches a reader of some.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Generic, Protocol, TypeVar, overload

import pyoxigraph as ox

from gateway.terms import Term

T = TypeVar("T")
Rows = list[list[Term | None]]
Table = tuple[list[str], Rows]
"""A SELECT's variables and its rows."""
Graphs = Sequence[str] | None
"""The graphs a query reads, their union ("default": the default graph); None: the store's own dataset."""
QueryLog = Callable[[str, int], None]
"""Called with each query's text and the number of rows it returned (tests, benchmarks)."""


class Shape(Generic[T]):
    """What `Backend.select` hands back: one of `TABLE`, `ROWS`, `IRIS`, `LINES`, `WRITTEN`. Each
    backend reads its answers into each shape its own fastest way."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Shape({self.name!r})"


TABLE: Final[Shape[Table]] = Shape("table")
"""(variables, rows): every value a `gateway.terms` value (None where unbound)."""
ROWS: Final[Shape[Iterator[list[Term | None]]]] = Shape("rows")
"""`TABLE`'s rows, read as they are asked for: a whole-graph read (every name, for the name
index) that must not be held whole as Python terms. Read them all, on the thread that asked;
a backend whose answers come whole hands back an iterator over them."""
IRIS: Final[Shape[list[str]]] = Shape("iris")
"""The IRIs bound to the only variable (unbound and non-IRI values skipped): the long ID
lists of a transitive closure, with no term made per row."""
LINES: Final[Shape[list[str]]] = Shape("lines")
"""Rows as text, values joined by tabs: an IRI or blank node as its text, a literal as its
lexical form, "" when unbound. For templates whose values are IRIs, blank nodes and their
own constant strings (a tab is in none of them, so the lines sort as the rows' tuples would)."""
WRITTEN: Final[Shape[list[str]]] = Shape("written")
"""Rows as SPARQL TSV writes them, values joined by tabs: an IRI in angle brackets, a blank
node as `_:label`, a literal quoted (`results.tsv_text`), for a query that reads lines and
must tell an IRI from a string."""

Quads = Callable[[Any, ox.NamedNode | None, Any], Iterable[ox.Quad]]
"""The quads matching a pattern (subject, predicate, object; None for any), each graph's
quads as the union of the graphs read reads them: a triple once for each of its graphs."""


class ReifierIndex(Protocol):
    """The reifier-only statements a store found as it read its files, in the rows of
    `queries/native/unasserted.rq` (the native profile's: `gateway.backends.reifiers`)."""

    def unasserted(self, graphs: Graphs = None) -> Rows | None:
        """The template's rows over `graphs`; None means: ask SPARQL."""
        ...

    def namespaces(self, graphs: Graphs = None) -> frozenset[str] | None:
        """The namespaces (each IRI up to its last "/" or "#") of every reifier over
        `graphs`; None means: ask SPARQL."""
        ...


@dataclass(frozen=True)
class LocalStore:
    """A pyoxigraph store this process holds, for a surface that serves it itself (the
    /sparql sandbox): the store, and its files where it is on disk."""

    store: ox.Store
    path: Path | None


@dataclass(frozen=True)
class Capabilities:
    """What a store can do beyond `select`, as it declares it. A field left at its default
    is a thing the store does not do: a scope names each one it keeps."""

    max_concurrency: int = 1
    """Requests the store may be sent at once (1 in process, and to an endpoint that allows one)."""
    evaluates_checks: bool = False
    """Whether the store runs the gateway's own functions inside a query (`deadline.ALIVE`,
    `deadline.HELD`): an embedded store does; an endpoint does not know them."""
    round_trips: bool = False
    """Whether each query is a request to a server: a walk then asks fewer, larger queries
    (a whole frontier, two hops in one request, the nodes' types with its hops, the next
    slice while one is read)."""
    endpoint: str | None = None
    """The URL queries are sent to, without its userinfo (what tells one service from another)."""
    directory: Path | None = None
    """A store directory made by `bfsql load`, which keeps the gateway's own files (search
    index, statistics, cursor key) beside the data; never a scope's (they count every graph)."""
    quads: Callable[[Graphs], Quads] | None = None
    """The quads of these graphs (None: every graph the store reads), read in process (the
    census counts them); None where they cannot be."""
    reifier_scan: ReifierIndex | None = None
    """What the store found of reifier-only statements as it loaded its files."""
    local_store: LocalStore | None = None
    """The pyoxigraph store itself, whole: never a scope's."""


class Backend(Protocol):
    """A SPARQL store. Queries are SELECTs built from `queries/` templates."""

    name: str
    prefixes: dict[str, str]
    """Prefixes of the whole store: those the data declares (Turtle `@prefix` lines,
    `sh:declare`, `vann:preferredNamespacePrefix`) and those configured."""

    @property
    def capabilities(self) -> Capabilities:
        """What the store can do beyond `select`."""
        ...

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        """The prefixes a reader of these graphs ("default": the default graph) may see: those
        the graphs declare, a file's `@prefix` lines for namespaces the graphs use, and the
        configured ones; never a prefix only another graph gives away."""
        ...

    def load_warnings(self) -> list[str]:
        """What a lenient load let through (empty for anything else)."""
        ...

    def source(self) -> str | None:
        """What the data was read from, as text that changes when the data does (files with
        their sizes and times, a store directory); None when that cannot be told."""
        ...

    @overload
    def select(self, query: str, *, graphs: Graphs = None) -> Table: ...

    @overload
    def select(self, query: str, shape: Shape[T], *, graphs: Graphs = None) -> T: ...

    def close(self) -> None: ...


class Selects:
    """`Backend.select` typed by the shape asked for (a `TABLE` unless told), for a backend
    that reads its answers in `_select`."""

    @overload
    def select(self, query: str, *, graphs: Graphs = None) -> Table: ...

    @overload
    def select(self, query: str, shape: Shape[T], *, graphs: Graphs = None) -> T: ...

    def select(self, query: str, shape: Shape[Any] = TABLE, *, graphs: Graphs = None) -> Any:
        """Run a SELECT over the union of `graphs` (the store's own dataset when None); its
        answer in `shape`."""
        return self._select(query, shape, graphs)

    def _select(self, query: str, shape: Shape[Any], graphs: Graphs) -> Any:
        raise NotImplementedError
