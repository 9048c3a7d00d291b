"""The result cache of a remote endpoint, against a real `oxigraph serve`.

Requests are counted by a small proxy between the gateway and the server, which forwards
each one as it came and can hold requests (to line callers up behind one in flight) or
answer them with an error. What each test checks is the proxy's count and the answers,
against the same calls with no cache, against the embedded store, or against what the
endpoint answers directly.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs

import httpx2
import pytest
import uvicorn

from gateway import EndpointTimeout, Gateway, UpstreamError
from gateway import deadline as deadlines
from gateway.auth import Reader
from gateway.backends.base import LINES, ROWS, TABLE
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.backends.result_cache import ResultCache, counting
from gateway.backends.scoped import ScopedBackend
from gateway.surfaces.http import CACHE_HEADER, create_app
from support.servers import OxigraphServer
from tests.conftest import DEMO
from tests.surfaces.conftest import free_port

CANON = "https://example.org/graph/canon"
CASEBOOK = "https://example.org/graph/casebook"
HOLMES = "https://example.org/wiki/Sherlock_Holmes"
IRENE = "https://example.org/wiki/Irene_Adler"
QUERY = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o LIMIT 50"
PATIENCE = 20.0
"""Seconds a test waits for threads to line up before it gives up (never a timing assert)."""


class CountingProxy:
    """Forwards each POST to the endpoint and records its form. `hold()` keeps requests
    until `release()`; `failing` answers 400 instead of forwarding."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.forms: list[bytes] = []
        self.arrived = threading.Event()
        self.failing = False
        self._gate: threading.Event | None = None
        self._lock = threading.Lock()
        self._client = httpx2.Client(timeout=60)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/query"

    def hold(self) -> None:
        self.arrived.clear()
        self._gate = threading.Event()

    def release(self) -> None:
        if self._gate is not None:
            self._gate.set()
        self._gate = None

    def queries(self) -> list[str]:
        return [parse_qs(form.decode("ascii"))["query"][0] for form in self.forms]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                form = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with proxy._lock:
                    proxy.forms.append(form)
                gate = proxy._gate
                proxy.arrived.set()
                if gate is not None:
                    gate.wait(PATIENCE)
                if proxy.failing:
                    status, kind, body = 400, "text/plain", b"Parser error"
                else:
                    answer = proxy._client.post(proxy.upstream, content=form, headers={
                        "Content-Type": self.headers["Content-Type"], "Accept": self.headers["Accept"]})
                    status, kind, body = answer.status_code, answer.headers["content-type"], answer.content
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()
        self._client.close()


@pytest.fixture()
def proxy(oxigraph_server: OxigraphServer) -> Iterator[CountingProxy]:
    with CountingProxy(oxigraph_server.url) as running:
        yield running


def remote(proxy: CountingProxy, **options: Any) -> RemoteBackend:
    return RemoteBackend(EndpointConfig(proxy.url, **options))


def until(condition: Callable[[], bool]) -> None:
    """Wait for `condition` (threads lining up), failing the test if it never holds."""
    end = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < end, "the callers never lined up"
        time.sleep(0.01)


CALLS: list[tuple[str, dict[str, object]]] = [
    ("bfs_query", {"seeds": [HOLMES], "max_hops": 2}),
    ("describe_entity", {"id": IRENE}),
    ("search_entities", {"query": "Adler"}),
]


def answers(gateway: Gateway, reader: Reader | None = None) -> list[dict[str, Any]]:
    return [gateway.call(name, arguments, reader=reader).model_dump(mode="json") for name, arguments in CALLS]


# -- one request per distinct query ---------------------------------------------------------
def test_identical_tool_calls_send_each_query_once(proxy: CountingProxy) -> None:
    cached = Gateway.connect(proxy.url)
    first = answers(cached)
    sent = len(proxy.forms)
    assert sent > 0
    assert answers(cached) == first
    assert len(proxy.forms) == sent  # the second round was answered from the cache
    assert max(Counter(proxy.forms).values()) == 1  # no query was ever sent twice
    stats = cached.backend.cache.stats()  # type: ignore[attr-defined]
    assert stats.misses == sent and stats.hits > 0 and stats.entries == sent

    # The control: with the cache off, the same calls answer the same and do reach the endpoint again.
    uncached = Gateway.connect(proxy.url, cache_ttl=0)
    assert answers(uncached) == first
    before = len(proxy.forms)
    assert answers(uncached) == first
    assert len(proxy.forms) > before


def test_a_hit_reads_the_same_answer_in_every_shape(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    direct = remote(proxy, cache_ttl=0)
    for shape in (TABLE, LINES):
        assert backend.select(QUERY, shape) == backend.select(QUERY, shape) == direct.select(QUERY, shape)
    assert proxy.queries().count(QUERY) == 2 + 2  # once per reading with the cache, every time without
    assert list(backend.select(QUERY, ROWS)) == direct.select(QUERY)[1]  # an endpoint's answer, whole


def test_rows_a_caller_changes_do_not_change_the_cache(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    header, rows = backend.select(QUERY)
    expected = [list(row) for row in rows]
    rows[0][0] = "changed"
    rows.append(["added", None, None])
    header.append("x")
    assert backend.select(QUERY) == (["s", "p", "o"], expected)
    again = backend.select(QUERY)
    again[1].clear()
    assert backend.select(QUERY)[1] == expected
    assert len(proxy.forms) == 1


# -- time and memory ------------------------------------------------------------------------
def test_an_entry_is_not_served_past_its_ttl(proxy: CountingProxy) -> None:
    now = [1000.0]
    backend = remote(proxy)
    backend.cache = ResultCache(10, 1 << 20, endpoint=backend.host, clock=lambda: now[0])
    first = backend.select(QUERY)
    now[0] += 9.9
    assert backend.select(QUERY) == first and len(proxy.forms) == 1
    now[0] += 0.2  # 10.1 s old: asked again, and kept anew
    assert backend.select(QUERY) == first and len(proxy.forms) == 2
    now[0] += 5
    assert backend.select(QUERY) == first and len(proxy.forms) == 2


def _distinct(number: int) -> str:
    return f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o }} ORDER BY ?s ?p ?o OFFSET {number} LIMIT 20"


def test_memory_stays_within_the_bound_and_is_counted_honestly(proxy: CountingProxy) -> None:
    bound = 64 << 10
    backend = remote(proxy, cache_max_bytes=bound)
    cache = backend.cache
    assert cache is not None
    for number in range(60):
        backend.select(_distinct(number))
        assert cache.stats().bytes <= bound
    full = cache.stats()
    assert 0 < full.entries < 60  # the bound was reached: older answers went

    # The most recent answer is kept, the first one went; asking it again sends it again.
    sent = len(proxy.forms)
    backend.select(_distinct(59))
    assert len(proxy.forms) == sent
    backend.select(_distinct(0))
    assert len(proxy.forms) == sent + 1

    # What the cache holds is what it counts (at most; the overhead is rounded up). Only
    # memory the backends' code allocated counts: other threads of the test run (servers,
    # pools) free memory of their own meanwhile.
    ours = [tracemalloc.Filter(True, "*/gateway/backends/*", all_frames=True)]

    def allocated() -> int:
        return sum(stat.size for stat in tracemalloc.take_snapshot().filter_traces(ours).statistics("filename"))

    gc.collect()
    tracemalloc.start(64)
    try:
        for number in range(60, 300):
            backend.select(_distinct(number))
        gc.collect()
        held = allocated()
        counted = cache.stats().bytes
        cache.clear()
        gc.collect()
        freed = held - allocated()
    finally:
        tracemalloc.stop()
    assert counted <= bound
    assert 0.6 * counted <= freed <= counted


def test_an_answer_larger_than_the_bound_is_not_kept(proxy: CountingProxy) -> None:
    backend = remote(proxy, cache_max_bytes=2_000)
    small = "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 1"
    for query in (QUERY, QUERY, small, small):
        backend.select(query)
    assert proxy.queries() == [QUERY, QUERY, small]
    stats = backend.cache.stats()  # type: ignore[union-attr]
    assert stats.entries == 1 and stats.bytes <= 2_000


def test_off_by_configuration(proxy: CountingProxy) -> None:
    for options in ({"cache_ttl": 0}, {"cache_max_bytes": 0}):
        backend = remote(proxy, **options)
        assert backend.cache is None
        before = len(proxy.forms)
        assert backend.select(QUERY) == backend.select(QUERY)
        assert len(proxy.forms) == before + 2


def test_errors_are_never_kept(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    proxy.failing = True
    with pytest.raises(UpstreamError):
        backend.select(QUERY)
    proxy.failing = False
    assert backend.select(QUERY) == remote(proxy, cache_ttl=0).select(QUERY)
    assert backend.cache.stats().entries == 1  # type: ignore[union-attr]


# -- single flight --------------------------------------------------------------------------
def _callers(backend: RemoteBackend, number: int, seconds: float = PATIENCE) -> tuple[list[threading.Thread], list[Any]]:
    """`number` threads asking QUERY, each in a call of `seconds`; what each got, in order."""
    got: list[Any] = [None] * number

    def ask(index: int) -> None:
        with deadlines.within(seconds):
            try:
                got[index] = backend.select(QUERY)
            except Exception as error:  # the test looks at each one
                got[index] = error

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(number)]
    return threads, got


def test_concurrent_identical_queries_send_one_request(proxy: CountingProxy) -> None:
    backend = remote(proxy, max_concurrency=8)
    proxy.hold()
    threads, got = _callers(backend, 6)
    threads[0].start()
    assert proxy.arrived.wait(PATIENCE)
    for thread in threads[1:]:
        thread.start()
    until(lambda: backend.cache.stats().waiting == 5)  # type: ignore[union-attr]
    proxy.release()
    for thread in threads:
        thread.join()
    expected = remote(proxy, cache_ttl=0).select(QUERY)
    assert all(answer == expected for answer in got)
    assert len({id(answer[1]) for answer in got}) == 6  # rows of its own for each caller
    assert proxy.queries().count(QUERY) == 2  # one for the six, one for the control
    stats = backend.cache.stats()  # type: ignore[union-attr]
    assert (stats.misses, stats.shared, stats.waiting) == (1, 5, 0)


def test_a_waiter_whose_deadline_passes_gets_a_timeout(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    proxy.hold()
    (leader,), led = _callers(backend, 1)
    leader.start()
    assert proxy.arrived.wait(PATIENCE)
    with deadlines.within(0.3), pytest.raises(EndpointTimeout, match="another call"):
        backend.select(QUERY)
    proxy.release()
    leader.join()
    assert led[0] == remote(proxy, cache_ttl=0).select(QUERY)
    assert proxy.queries().count(QUERY) == 2


def test_the_leaders_failure_reaches_every_waiter_as_its_own(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    proxy.hold()
    proxy.failing = True
    threads, got = _callers(backend, 4)
    threads[0].start()
    assert proxy.arrived.wait(PATIENCE)
    for thread in threads[1:]:
        thread.start()
    until(lambda: backend.cache.stats().waiting == 3)  # type: ignore[union-attr]
    proxy.release()
    for thread in threads:
        thread.join()
    assert all(isinstance(error, UpstreamError) for error in got)
    assert len({id(error) for error in got}) == 4
    assert len({error.message for error in got}) == 1
    assert len(proxy.forms) == 1 and backend.cache.stats().entries == 0  # type: ignore[union-attr]


def test_a_leader_out_of_time_leaves_the_query_to_a_waiter(proxy: CountingProxy) -> None:
    """The leader's own deadline is no error of the endpoint: a waiter with time left asks itself."""
    backend = remote(proxy)
    proxy.hold()
    (leader,), led = _callers(backend, 1, seconds=0.5)
    (waiter,), waited = _callers(backend, 1)
    leader.start()
    assert proxy.arrived.wait(PATIENCE)
    waiter.start()
    until(lambda: backend.cache.stats().waiting == 1)  # type: ignore[union-attr]
    leader.join()
    assert isinstance(led[0], EndpointTimeout)
    proxy.release()
    waiter.join()
    assert waited[0] == remote(proxy, cache_ttl=0).select(QUERY)
    assert proxy.queries().count(QUERY) == 3  # the leader's, the waiter's own, the control


# -- reader scopes ----------------------------------------------------------------------------
def test_two_scopes_never_share_an_entry(proxy: CountingProxy) -> None:
    backend = remote(proxy)
    canon, both = ScopedBackend(backend, (CANON,)), ScopedBackend(backend, (CANON, CASEBOOK))
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    in_canon, in_both = canon.select(count), both.select(count)
    assert len(proxy.forms) == 2 and in_canon != in_both  # the same text, read over other graphs
    assert canon.select(count) == in_canon and both.select(count) == in_both and len(proxy.forms) == 2
    assert in_canon == remote(proxy, cache_ttl=0, graphs=[CANON]).select(count)
    assert in_both == remote(proxy, cache_ttl=0, graphs=[CANON, CASEBOOK]).select(count)


def test_readers_calls_answer_as_on_their_own_graphs(proxy: CountingProxy) -> None:
    """Two readers asking the same calls through one cached gateway: each gets what it gets
    with no cache (which differs between them), and the second reader's queries were sent,
    not taken from the first's entries."""
    canon, both = Reader("canon", (CANON,)), Reader("both", (CANON, CASEBOOK))
    uncached = Gateway.connect(proxy.url, cache_ttl=0)
    expected = {reader: answers(uncached, reader) for reader in (canon, both)}
    assert expected[canon] != expected[both]
    start = len(proxy.forms)
    cached = Gateway.connect(proxy.url)
    assert answers(cached, canon) == expected[canon]
    first = set(proxy.forms[start:])
    assert answers(cached, both) == expected[both]
    assert answers(cached, canon) == expected[canon]
    second = set(proxy.forms[start:]) - first
    assert second and all(b"casebook" in form for form in second)
    assert max(Counter(proxy.forms[start:]).values()) == 1


# -- hits visible ---------------------------------------------------------------------------
def test_each_hit_is_logged_at_debug_level(proxy: CountingProxy, caplog: pytest.LogCaptureFixture) -> None:
    backend = remote(proxy)
    with caplog.at_level(logging.DEBUG, logger="gateway.remote"):
        backend.select(QUERY)
        assert not [r for r in caplog.records if "result cache" in r.getMessage()]
        backend.select(QUERY)
    hits = [r.getMessage() for r in caplog.records if "result cache" in r.getMessage()]
    assert len(hits) == 1 and "SELECT ?s ?p ?o WHERE" in hits[0] and backend.host in hits[0]


def test_a_calls_count_sees_its_own_hits_and_misses(proxy: CountingProxy) -> None:
    gateway = Gateway.connect(proxy.url)
    with counting() as first:
        answers(gateway)
    with counting() as second:
        answers(gateway)
    assert first.misses == len(proxy.forms) > 0
    assert second.misses == 0 and second.hits > 0


class _Served:
    """The HTTP API over a gateway, in a real uvicorn server on a thread."""

    def __init__(self, gateway: Gateway) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(create_app(gateway), host="127.0.0.1", port=self.port,
                                                    log_level="critical"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> httpx2.Client:
        self.thread.start()
        until(lambda: self.server.started)
        self.client = httpx2.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=60)
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.client.close()
        self.server.should_exit = True
        self.thread.join()


def _header(answer: httpx2.Response) -> dict[str, int]:
    assert answer.status_code == 200, answer.text
    return {name.strip(): int(value) for name, _, value in
            (part.partition("=") for part in answer.headers[CACHE_HEADER].split(";"))}


def test_the_http_answer_says_the_calls_hits_and_misses(proxy: CountingProxy) -> None:
    body = {"seeds": [HOLMES], "max_hops": 2}
    with _Served(Gateway.connect(proxy.url)) as client:
        first = client.post("/v1/tools/bfs_query", json=body)
        assert _header(first) == {"hits": _header(first)["hits"], "misses": len(proxy.forms)}
        sent = len(proxy.forms)
        second = client.post("/v1/tools/bfs_query", json=body)
        assert second.json() == first.json() and len(proxy.forms) == sent
        assert _header(second)["misses"] == 0 and _header(second)["hits"] > 0
        drawn = client.post("/v1/tools/bfs_query?format=svg", json=body)  # the walk, then its labels
        assert _header(drawn)["misses"] == len(proxy.forms) - sent and _header(drawn)["hits"] > 0
    for gateway in (Gateway.connect(proxy.url, cache_ttl=0), Gateway.open(DEMO)):
        with _Served(gateway) as client:
            answer = client.post("/v1/tools/bfs_query", json=body)
            assert answer.status_code == 200 and CACHE_HEADER not in answer.headers
