"""tabulate keeps its deadline however large the type: a table whose store query runs past
it is answered at the deadline with the typed timeout (`EndpointTimeout`, nothing of the
table shown), or `Unavailable` while the order index it needs is still being built;
never a table late, never one in part.

The store's own checks (`gateway.deadline.ALIVE`) stop a query's joins at the deadline,
but it still reads the rows of its type and sorts what it held, which grows with the type;
so the call waits for a query over a whole type no longer than its deadline
(`gateway.engine.query_threads.by_deadline`). The first tests hold such a query back until the call has
answered (no real query is that slow on demand): the call cannot have waited for it. The
last asks for less time than a table over a real type of 40,000 entities takes, and checks
the typed outcome only (no clock).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.base import TABLE, Backend, Capabilities, Graphs, Shape
from gateway.errors import EndpointTimeout, Unavailable

X = "http://deadline.example/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
TABLE_QUERY = "# A table (tabulate)"
"""How the text of a table's own query begins (queries/*/table.rq); the order index's too."""
GROUPED = "# A grouped table"
ITEMS = 40_000


def items_store(items: int, seed: int = 5) -> ox.Store:
    """Items with a price written as text (as business data has them) and a category."""
    rng = random.Random(seed)
    quads = []
    for i in range(items):
        item = ox.NamedNode(f"{X}i{i}")
        quads += [ox.Quad(item, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item")),
                  ox.Quad(item, ox.NamedNode(X + "price"), ox.Literal(str(rng.randint(1, 10 ** 6) / 100))),
                  ox.Quad(item, ox.NamedNode(X + "category"), ox.NamedNode(f"{X}c{rng.randrange(30)}"))]
    store = ox.Store()
    store.bulk_extend(quads)
    return store


class HeldBack:
    """The store, except that once `hold` is called its queries whose text begins with one
    of `kinds` wait until `release` is set (or a minute, so that a failing test ends): a
    query that runs past the call's deadline whatever the store's checks do. `ended` is set
    once such a query has returned."""

    def __init__(self, backend: Backend, *kinds: str) -> None:
        self._backend, self.kinds = backend, kinds
        self.release, self.ended, self.started = threading.Event(), threading.Event(), threading.Event()
        self.release.set()

    def hold(self) -> None:
        self.release.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    @property
    def capabilities(self) -> Capabilities:
        return replace(self._backend.capabilities)

    def select(self, query: str, shape: Shape[Any] = TABLE, *, graphs: Graphs = None) -> Any:
        if self.release.is_set() or not query.startswith(self.kinds):
            return self._backend.select(query, shape, graphs=graphs)
        self.started.set()
        self.release.wait(60)
        try:
            return self._backend.select(query, shape, graphs=graphs)
        finally:
            self.ended.set()


@pytest.fixture(scope="module")
def store() -> ox.Store:
    return items_store(ITEMS)


@pytest.fixture
def held(store: ox.Store) -> Iterator[tuple[Gateway, HeldBack]]:
    """A gateway over the items whose names and statistics are read (by a table that needs
    no order index), and whose table queries are then held back."""
    backend = HeldBack(Gateway.open(store).backend, TABLE_QUERY, GROUPED)
    gateway = Gateway(backend)  # type: ignore[arg-type]
    gateway.call("tabulate", {"type": X + "Item", "columns": {"price": X + "price", "cat": X + "category"},
                              "group_by": ["cat"], "limit": 1})
    backend.hold()
    try:
        yield gateway, backend
    finally:
        backend.release.set()


GROUPED_TOP = {"type": X + "Item", "columns": {"cat": X + "category"}, "group_by": ["cat"],
               "aggregate": {"n": {"fn": "count"}}, "order_by": [{"column": "n", "descending": True}], "limit": 10}
"""A table no order index answers: the store groups the whole type."""
ORDERED_TOP = {"type": X + "Item", "columns": {"price": X + "price"}, "where": [{"column": "price", "op": ">", "value": 50}],
               "order_by": [{"column": "price", "descending": True}], "limit": 10}
"""A top 10 the order index of the price answers."""


def test_a_table_whose_query_runs_past_the_deadline_is_refused_at_it(held: tuple[Gateway, HeldBack]) -> None:
    gateway, backend = held
    with pytest.raises(EndpointTimeout, match="nothing of it is shown") as raised:
        gateway.call("tabulate", GROUPED_TOP, deadline=0.3)
    assert backend.started.is_set() and not backend.ended.is_set()  # answered while its query still ran
    assert "deadline" in raised.value.message


def test_an_order_index_not_built_by_the_deadline_is_unavailable_not_waited_for(
        held: tuple[Gateway, HeldBack]) -> None:
    """The index's one sort of the type goes on for the next call; this one is told when
    to ask again."""
    gateway, backend = held
    with pytest.raises(Unavailable) as raised:
        gateway.call("tabulate", ORDERED_TOP, deadline=0.3)
    assert backend.started.is_set() and not backend.ended.is_set()
    assert raised.value.retry_after is not None


@pytest.mark.parametrize("arguments", [GROUPED_TOP, {**GROUPED_TOP, "group_by": ["id"], "order_by": [
    {"column": "n", "descending": True}, {"column": "id"}]}])
def test_a_real_table_asked_in_less_time_than_it_takes_is_refused_whole(store: ox.Store,
                                                                         arguments: dict[str, Any]) -> None:
    """Grouping 40,000 items takes the store tens of milliseconds at least; asked within
    one, the table is refused with the typed timeout, never shown in part (the same call
    with time enough is the whole table, as the store's own query says)."""
    gateway = Gateway.open(store)
    answered = gateway.call("tabulate", arguments)
    with pytest.raises(EndpointTimeout, match="nothing of it is shown"):
        gateway.call("tabulate", arguments, deadline=0.001)
    counts = sorted((int(row["n"].value) for row in store.query(  # type: ignore[union-attr]
        f"SELECT ?c (COUNT(*) AS ?n) WHERE {{ ?i a <{X}Item> ; <{X}category> ?c }} GROUP BY ?c")), reverse=True)
    if arguments["group_by"] == ["cat"]:
        assert [row[1] for row in answered.rows] == counts[:10]  # type: ignore[attr-defined]
