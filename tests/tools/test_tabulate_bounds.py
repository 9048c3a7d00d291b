"""tabulate within its deadline and its memory budget, on a graph with hubs: a path through
them multiplies the rows by the hubs' links, which no single embedded query could be
stopped in before the store's check (`gateway.deadline.ALIVE`).

The graph: people, each a member of one of a few organisations (the first has more than
half of them: `memberOf/^memberOf` from one person reaches tens of thousands), knowing one
other person, living in one of 50 cities.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway, deadline
from gateway.errors import EndpointTimeout, GatewayError, TooLarge
from support.servers import OxigraphServer

tabulate_module = importlib.import_module("gateway.tools.tabulate")

X = "http://hub.example/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
HUBS = 20
PEOPLE = 50_000
THROUGH_HUBS = {
    # Four steps, one backwards, grouped: minutes and gigabytes without the store's checks.
    "type": X + "Person",
    "columns": {"city": f"<{X}memberOf>/^<{X}memberOf>/<{X}knows>/<{X}city>"},
    "group_by": ["city"],
    "aggregate": {"n": {"fn": "count"}},
}
CROSSED = {
    # One step each, but a hub's members twice over: a row per pair of members.
    "type": X + "Org",
    "columns": {"a": f"^<{X}memberOf>", "b": f"^<{X}memberOf>"},
    "aggregate": {"n": {"fn": "count"}},
}


def hub_quads(people: int, seed: int = 1) -> list[ox.Quad]:
    rng = random.Random(seed)
    rdf_type = ox.NamedNode(RDF_TYPE)
    member, knows, city = (ox.NamedNode(X + p) for p in ("memberOf", "knows", "city"))
    quads = [ox.Quad(ox.NamedNode(f"{X}h{h}"), rdf_type, ox.NamedNode(X + "Org")) for h in range(HUBS)]
    for i in range(people):
        person = ox.NamedNode(f"{X}e{i}")
        hub = min(int(rng.paretovariate(1.2)) - 1, HUBS - 1)
        quads += [ox.Quad(person, rdf_type, ox.NamedNode(X + "Person")),
                  ox.Quad(person, member, ox.NamedNode(f"{X}h{hub}")),
                  ox.Quad(person, knows, ox.NamedNode(f"{X}e{rng.randrange(people)}")),
                  ox.Quad(person, city, ox.Literal(f"c{rng.randrange(50)}"))]
    return quads


def hub_store(people: int = PEOPLE) -> ox.Store:
    store = ox.Store()
    store.bulk_extend(hub_quads(people))
    return store


@pytest.fixture(scope="module")
def hubs() -> Gateway:
    gateway = Gateway.open(hub_store())
    # Names, types and predicates read once, so that what is measured below is the table.
    gateway.call("tabulate", {"type": X + "Person", "columns": {"city": f"<{X}city>"}, "limit": 1})
    return gateway


def within(seconds: float, call: Callable[[], object]) -> object:
    """What `call` answered or raised, or a failure when it has not within `seconds` (it is
    left running on a thread of its own: there is no stopping it from here)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as error:
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"no answer within {seconds:g} s: the call runs on past its deadline")
    return outcome[0]


def resident_mib(*, trim: bool = True) -> float:
    """This process's resident memory, with what the allocator keeps freed handed back first
    (glibc keeps freed memory for reuse; `malloc_trim` gives it back to the system). After a
    call, measured untrimmed: the gateway hands back what a large call took itself."""
    if trim:
        with contextlib.suppress(OSError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    pytest.skip("no /proc/self/status here")


def test_a_path_through_hubs_stops_at_its_deadline_and_gives_its_memory_back(hubs: Gateway) -> None:
    """Without the checks this table ran for minutes and grew to gigabytes; with them it is
    refused within its deadline, and what the store held for it is freed."""
    before = resident_mib()
    seconds = 3.0
    started = time.monotonic()
    outcome = within(seconds + 2, lambda: hubs.call("tabulate", THROUGH_HUBS, deadline=seconds))
    # Stopped at the deadline, or (on a faster machine) at what one query may hold first.
    assert isinstance(outcome, (EndpointTimeout, TooLarge)), outcome
    assert time.monotonic() - started <= seconds + 2
    assert "nothing of it is shown" in outcome.message and "narrow it" in outcome.message
    # The call answers at its deadline; its query stops on its own thread moments later
    # (its checks say no, the store drops what it held) and hands the memory back then.
    handed_back = time.monotonic() + 5
    while resident_mib(trim=False) - before > 64 and time.monotonic() < handed_back:
        time.sleep(0.1)
    assert resident_mib(trim=False) - before <= 64


def test_one_step_columns_crossed_on_a_hub_stop_at_the_deadline_too(hubs: Gateway) -> None:
    """Each column one step, but a row per pair of a hub's members: the size the table would
    have is known before it runs, so it carries the check."""
    seconds = 2.0
    outcome = within(seconds + 2, lambda: hubs.call("tabulate", CROSSED, deadline=seconds))
    assert isinstance(outcome, (EndpointTimeout, TooLarge)), outcome


def test_a_readers_table_carries_the_checks_too() -> None:
    """Through a reader's scope (every query handed to the embedded store) the table is
    bounded the same way."""
    from gateway.auth import Reader

    graph = ox.NamedNode(X + "graph")
    store = ox.Store()
    store.bulk_extend(ox.Quad(q.subject, q.predicate, q.object, graph) for q in hub_quads(20_000))
    gateway = Gateway.open(store)
    reader = Reader("reader", graphs=(graph.value,))
    # The reader's scope reads its names and counts once, which a busy machine may take
    # longer than the table's deadline over: done first, so that what is timed is the table
    # (as the `hubs` fixture does).
    gateway.call("tabulate", {"type": X + "Person", "columns": {"city": f"<{X}city>"}, "limit": 1}, reader=reader,
                 deadline=60)
    seconds = 2.0
    started = time.monotonic()
    outcome = within(seconds + 2, lambda: gateway.call("tabulate", THROUGH_HUBS, reader=reader, deadline=seconds))
    assert isinstance(outcome, (EndpointTimeout, TooLarge)), outcome
    assert time.monotonic() - started <= seconds + 2


def test_a_caller_gone_stops_the_table() -> None:
    """The HTTP and MCP surfaces set `abandoned` when the caller leaves: the store's check
    reads it, so the query ends then, not at the deadline."""
    gateway = Gateway.open(hub_store(20_000))
    gateway.call("tabulate", {"type": X + "Person", "columns": {"city": f"<{X}city>"}, "limit": 1}, deadline=60)
    gone = threading.Event()
    threading.Timer(0.5, gone.set).start()
    started = time.monotonic()
    outcome = within(30, lambda: gateway.call("tabulate", THROUGH_HUBS, deadline=120, abandoned=gone))
    assert isinstance(outcome, EndpointTimeout) and "went away" in outcome.message, outcome
    assert time.monotonic() - started <= 0.5 + 2


def test_a_table_past_the_bindings_budget_is_refused_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    gateway = Gateway.open(hub_store(300))
    whole = gateway.call("tabulate", THROUGH_HUBS)
    assert whole.rows  # type: ignore[attr-defined]
    monkeypatch.setattr(tabulate_module, "BINDINGS", 5_000, raising=False)
    with pytest.raises(TooLarge) as refused:
        gateway.call("tabulate", THROUGH_HUBS)
    assert "5,000 bindings" in refused.value.message and "nothing of it is shown" in refused.value.message


def test_a_type_with_more_rows_than_the_solutions_held_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows of a checked table are read up to the solutions it may hold and one more
    (each row is one at least): a larger type is refused, never shown as a table of some of
    its entities. (Ordered by a path of two steps: no order index makes its page.)"""
    gateway = Gateway.open(hub_store(2_000))
    monkeypatch.setattr(tabulate_module, "HELD", 1_500, raising=False)
    with pytest.raises(TooLarge):
        gateway.call("tabulate", {"type": X + "Person", "columns": {"peer": f"<{X}memberOf>/^<{X}memberOf>"},
                                  "order_by": [{"column": "peer"}], "limit": 5})


def test_a_bounded_table_runs_without_the_check_and_a_hub_table_with_it() -> None:
    gateway = Gateway.open(hub_store(600))
    queries: list[str] = []
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]

    def checked(arguments: dict[str, Any]) -> bool:
        queries.clear()
        gateway.call("tabulate", arguments)
        table = [q for q in queries if "?c_id" in q and "COUNT(*) AS ?n" not in q][-1]
        return deadline.ALIVE in table

    assert not checked({"type": X + "Person", "columns": {"city": f"<{X}city>", "org": f"<{X}memberOf>"},
                        "where": [{"path": f"<{X}knows>", "op": "exists"}]})
    assert not checked({"type": X + "Person", "columns": {"city": f"<{X}knows>/<{X}city>"}})  # one value a step
    assert checked({"type": X + "Person", "columns": {"peer": f"<{X}memberOf>/^<{X}memberOf>"},  # through a hub
                    "order_by": [{"column": "peer"}]})  # (over the whole type: no order index answers it)
    # A hub's members twice over, a row per pair: (20 organisations + 600 memberships) x the
    # most members of one, within what a table kept in groups reads unchecked.
    assert not checked(CROSSED)
    gateway = Gateway.open(hub_store(6_000))  # ten times the pairs of members: 100 times the rows
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
    with contextlib.suppress(TooLarge):  # stopped at the bindings one query may make
        checked(CROSSED)
    assert deadline.ALIVE in [q for q in queries if "?c_id" in q and "COUNT(*) AS ?n" not in q][-1]


def test_a_large_type_counted_in_groups_is_read_whole_and_its_rows_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grouped table through one value a step keeps only its groups: read without the
    checks however many rows (within what the time left allows). Its rows listed whole are
    kept to be ordered: past what a query may hold, refused, unless the order index of
    their first order column makes the page (gateway/engine/table_order.py)."""
    monkeypatch.setattr(tabulate_module, "SMALL", 100, raising=False)
    monkeypatch.setattr(tabulate_module, "HELD", 1_000, raising=False)
    gateway = Gateway.open(hub_store(3_000))
    queries: list[str] = []
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
    counted = gateway.call("tabulate", {"type": X + "Person", "columns": {"city": f"<{X}city>"}, "group_by": ["city"],
                                        "aggregate": {"n": {"fn": "count"}}, "limit": 100})
    assert sum(row[1] for row in counted.rows) == 3_000  # type: ignore[attr-defined]
    assert not any(deadline.ALIVE in q for q in queries)
    listed = {"type": X + "Person", "columns": {"city": f"<{X}city>", "peer": f"<{X}knows>/<{X}city>"}}
    with pytest.raises(TooLarge):
        gateway.call("tabulate", {**listed, "order_by": [{"column": "peer"}]})
    assert gateway.call("tabulate", {**listed, "order_by": [{"column": "city"}], "limit": 10}).row_count == 10


SPECS: list[dict[str, Any]] = [
    THROUGH_HUBS,
    {"type": X + "Person", "columns": {"city": f"<{X}city>", "friend": f"<{X}knows>", "org": f"<{X}memberOf>"},
     "where": [{"path": f"<{X}knows>/<{X}city>", "op": "=", "value": "c3"}], "order_by": [{"column": "city"}],
     "limit": 40},
    {"type": X + "Org", "columns": {"member": f"^<{X}memberOf>", "city": f"^<{X}memberOf>/<{X}city>"},
     "group_by": ["city"], "aggregate": {"n": {"fn": "count"}, "members": {"fn": "count_distinct", "of": "member"}},
     "having": [{"column": "n", "op": ">", "value": 3}], "order_by": [{"column": "n", "descending": True}]},
    {"type": X + "Person", "where": [{"path": f"^<{X}knows>", "op": "missing"}], "limit": 1000},
]


@pytest.mark.parametrize("arguments", SPECS, ids=range(len(SPECS)))
def test_the_checked_query_answers_as_the_unchecked_one(arguments: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    gateway = Gateway.open(hub_store(300))
    monkeypatch.setattr(tabulate_module, "checks", lambda backend: False)
    plain = gateway.call("tabulate", arguments).model_dump()
    monkeypatch.setattr(tabulate_module, "checks", lambda backend: True)
    monkeypatch.setattr(tabulate_module, "_bounded", lambda ctx, builder, spec: False)
    assert gateway.call("tabulate", arguments).model_dump() == plain


@pytest.fixture(scope="module")
def served_hubs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("hubs") / "hubs.nt"
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"{quad.triple}.\n" for quad in hub_quads(5_000))
    server = OxigraphServer([path])
    yield server
    server.stop()


def test_an_endpoint_never_gets_the_check_and_its_deadline_bounds_the_call(served_hubs: Any) -> None:
    """A remote store does not know the function: the table is asked without it, and the
    HTTP client's deadline (the call's) ends the wait."""
    gateway = Gateway.connect(served_hubs.url)
    queries: list[str] = []
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
    assert gateway.call("tabulate", {"type": X + "Person", "columns": {"city": f"<{X}knows>/<{X}city>"},
                                     "limit": 3}).rows  # type: ignore[attr-defined]
    seconds = 2.0
    started = time.monotonic()
    outcome = within(seconds + 2, lambda: gateway.call("tabulate", THROUGH_HUBS, deadline=seconds))
    assert isinstance(outcome, GatewayError) and not isinstance(outcome, TooLarge), outcome
    assert isinstance(outcome, EndpointTimeout), outcome
    assert time.monotonic() - started <= seconds + 2
    assert queries and not any(deadline.ALIVE in q for q in queries)
