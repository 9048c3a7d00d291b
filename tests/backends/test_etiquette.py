"""Etiquette towards endpoints other people run: the User-Agent, public services' limits,
the warning when nobody can be reached, and the budgets a minute.

The budgets run on a test's clock: a real HTTP server on the loopback answers each query
and moves the clock on by the query time it stands for, and the backend's waits move it
on too, so nothing sleeps and no assertion reads the wall clock. Each test's server is an
origin of its own (a fresh port), so no budget is shared with another test.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client

from gateway import Gateway, RateLimited
from gateway import deadline as deadlines
from gateway.backends.embedded import scan_prefixes
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.etiquette import (
    CONTACT_ENV,
    PROJECT_URL,
    SERVICES,
    WIKIMEDIA,
    default_user_agent,
    limits_for,
    service_for,
    user_agent_for,
)
from gateway.backends.remote import RemoteBackend
from gateway.backends.resilience import MINUTE, EndpointShare, RetryPolicy, Window
from gateway.errors import InvalidInput
from gateway.settings import Settings
from gateway.surfaces.mcp import create_mcp_server
from gateway.surfaces.problems import to_problem
from support.servers import OxigraphServer
from tests.conftest import DEMO

QUERY = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"
CONTACT = "mailto:ops@example.org"
PREFIXES = scan_prefixes(DEMO)


@pytest.fixture(autouse=True)
def no_contact_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONTACT_ENV, raising=False)


class Clock:
    """A test's time: moved on by the server (query time) and by the backend's waits."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)


class Endpoint(ThreadingHTTPServer):
    """Answers every query with one row, `query_seconds` of the test's clock after it came in;
    records (start, end) of each and its headers."""

    def __init__(self, clock: Clock, query_seconds: float = 0.0) -> None:
        self.clock, self.query_seconds = clock, query_seconds
        self.busy_for: int | None = None
        """When set, every answer is a 429 asking to wait that many seconds."""
        self.exchanges: list[tuple[float, float]] = []
        self.headers: list[dict[str, str]] = []
        super().__init__(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server_address[1]}/sparql"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                start = endpoint.clock()
                endpoint.clock.advance(endpoint.query_seconds)
                endpoint.exchanges.append((start, endpoint.clock()))
                endpoint.headers.append({k.lower(): v for k, v in self.headers.items()})
                if endpoint.busy_for is not None:
                    self.send_response(429)
                    self.send_header("Retry-After", str(endpoint.busy_for))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = b"?s\n<http://a.example/x>\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/tab-separated-values")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def endpoint(clock: Clock) -> Iterator[Endpoint]:
    server = Endpoint(clock)
    yield server
    server.shutdown()
    server.server_close()


def backend(endpoint: Endpoint, clock: Clock, **options: object) -> RemoteBackend:
    # No result cache: the same query asked again must be a request to count against the budget.
    config = EndpointConfig(endpoint.url, sleep=clock.sleep, cache_ttl=0, **options)  # type: ignore[arg-type]
    EndpointShare.get(endpoint.url, 1, clock=clock)  # the origin's budgets count on the test's clock
    return RemoteBackend(config)


# -- the User-Agent -------------------------------------------------------------------------
def test_the_user_agent_names_the_contact_the_environment_or_the_project(
    endpoint: Endpoint, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend(endpoint, clock, contact=CONTACT).select(QUERY)
    monkeypatch.setenv(CONTACT_ENV, "https://ops.example.org/")
    backend(endpoint, clock).select(QUERY)
    backend(endpoint, clock, contact=CONTACT).select(QUERY)  # the configuration's before the environment's
    backend(endpoint, clock, user_agent="my-tool/2 (me@example.org)", contact=CONTACT).select(QUERY)
    monkeypatch.delenv(CONTACT_ENV)
    backend(endpoint, clock).select(QUERY)
    sent = [headers["user-agent"] for headers in endpoint.headers]
    assert sent == [default_user_agent(CONTACT), default_user_agent("https://ops.example.org/"),
                    default_user_agent(CONTACT), "my-tool/2 (me@example.org)", default_user_agent(PROJECT_URL)]
    import httpx2

    for agent in (sent[0], sent[1], sent[4]):
        tool, contact, library = agent.split(" ")
        assert tool.startswith("bfsql-gateway/") and library == f"httpx2/{httpx2.__version__}"
        assert contact in (f"({CONTACT})", "(https://ops.example.org/)", f"({PROJECT_URL})")


@pytest.mark.parametrize("bad", ["ops@example.org\r\nX-Evil: 1", "", "é@example.org", "x" * 201])
def test_a_contact_that_cannot_go_into_a_header_is_refused_naming_the_field(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidInput) as caught:
        RemoteBackend(EndpointConfig("http://127.0.0.1:9/sparql", contact=bad))
    assert caught.value.field == "contact"
    with pytest.raises(InvalidInput) as caught:
        user_agent_for(EndpointConfig("http://127.0.0.1:9/sparql", user_agent=bad))
    assert caught.value.field == "user_agent"
    if bad:  # an empty variable is no contact, not an error
        monkeypatch.setenv(CONTACT_ENV, bad)
        with pytest.raises(InvalidInput) as caught:
            user_agent_for(EndpointConfig("http://127.0.0.1:9/sparql"))
        assert caught.value.field == CONTACT_ENV


# -- public services --------------------------------------------------------------------------
@pytest.mark.parametrize(("url", "name"), [
    ("https://query.wikidata.org/sparql", "Wikimedia's query services"),
    ("https://query-main.wikidata.org/sparql", "Wikimedia's query services"),
    ("https://query-scholarly.wikidata.org/sparql", "Wikimedia's query services"),
    ("https://commons-query.wikimedia.org/sparql", "Wikimedia's query services"),
    ("https://QLEVER.cs.uni-freiburg.de/api/wikidata", "QLever"),
    ("https://qlever.dev/api/wikidata", "QLever"),
    ("https://dbpedia.org/sparql", "DBpedia"),
    ("https://sparql.uniprot.org/sparql", "SIB's life-science endpoints"),
    ("https://wikidata.org.example.net/sparql", None),  # a look-alike is nobody's public service
    ("https://notwikidata.org/sparql", None),
    ("http://127.0.0.1:7878/query", None),
])
def test_public_services_are_known_by_host(url: str, name: str | None) -> None:
    found = service_for(url)
    assert (found.name if found else None) == name


def test_a_public_service_s_limits_fill_what_the_configuration_leaves_unset() -> None:
    wikidata = "https://query.wikidata.org/sparql"
    anonymous = limits_for(EndpointConfig(wikidata, max_concurrency=8), environ={})
    assert (anonymous.max_concurrency, anonymous.requests_per_minute, anonymous.query_seconds_per_minute) == (
        1, WIKIMEDIA.unidentified_requests_per_minute, 60.0)
    named = limits_for(EndpointConfig(wikidata, contact=CONTACT), environ={})
    assert named.requests_per_minute == WIKIMEDIA.requests_per_minute == 200
    assert limits_for(EndpointConfig(wikidata), environ={CONTACT_ENV: CONTACT}).requests_per_minute == 200
    assert limits_for(EndpointConfig(wikidata, user_agent="mine/1 (me@example.org)"), environ={}).requests_per_minute == 200
    given = limits_for(EndpointConfig(wikidata, requests_per_minute=30, query_seconds_per_minute=20), environ={})
    assert (given.requests_per_minute, given.query_seconds_per_minute) == (30, 20)
    qlever = "https://qlever.cs.uni-freiburg.de/api/wikidata"
    assert limits_for(EndpointConfig(qlever), environ={}).max_concurrency == 2
    assert limits_for(EndpointConfig(qlever, max_concurrency=6), environ={}).max_concurrency == 6  # not fixed
    private = limits_for(EndpointConfig("http://127.0.0.1:7878/query"), environ={})
    assert (private.max_concurrency, private.requests_per_minute, private.query_seconds_per_minute) == (4, None, None)
    assert RemoteBackend(EndpointConfig("https://dbpedia.org/sparql")).max_rows == 10_000
    for service in SERVICES:
        assert service.policy.startswith("https://") and service.max_concurrency >= 1


def test_a_public_service_with_no_contact_is_warned_about(caplog: pytest.LogCaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    with caplog.at_level(logging.WARNING, logger="gateway.remote"):
        RemoteBackend(EndpointConfig("https://query.wikidata.org/sparql"))
    warned = [r for r in caplog.records if r.name == "gateway.remote" and r.levelno == logging.WARNING]
    assert len(warned) == 1 and CONTACT_ENV in warned[0].getMessage() and "10 requests a minute" in warned[0].getMessage()
    for config in (EndpointConfig("https://qlever.dev/api/wikidata", contact=CONTACT),
                   EndpointConfig("https://query.wikidata.org/sparql", user_agent="mine/1 (me@example.org)"),
                   EndpointConfig("http://127.0.0.1:9/sparql")):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="gateway.remote"):
            RemoteBackend(config)
        assert not caplog.records, config
    monkeypatch.setenv(CONTACT_ENV, CONTACT)
    with caplog.at_level(logging.WARNING, logger="gateway.remote"):
        RemoteBackend(EndpointConfig("https://dbpedia.org/sparql"))
    assert not caplog.records


# -- the sliding window, against a brute-force oracle --------------------------------------------
def _room_in(log: list[tuple[float, float]], limit: float, now: float) -> float:
    """The least wait after which less than `limit` was spent in the minute before: tried at
    each moment an entry leaves the window."""
    def spent_at(t: float) -> float:
        return sum(amount for when, amount in log if when > t - MINUTE)

    candidates = sorted({0.0, *(when + MINUTE - now for when, _ in log if when + MINUTE - now > 0)})
    return next(wait for wait in candidates if spent_at(now + wait) < limit)


QUARTERS = st.integers(0, 800).map(lambda n: n / 4)
"""Times and amounts in quarter seconds: exact in binary, so that the oracle's sums are too."""


@given(st.lists(st.tuples(QUARTERS, QUARTERS), max_size=30), QUARTERS.filter(bool), QUARTERS)
def test_the_window_waits_exactly_until_there_is_room(entries: list[tuple[float, float]], limit: float,
                                                      later: float) -> None:
    log = sorted(entries)
    window = Window()
    for when, amount in log:
        window.add(when, amount)
    now = (log[-1][0] if log else 0.0) + later
    assert window.wait_for_room(limit, now) == pytest.approx(_room_in(log, limit, now), abs=1e-6)


# -- budgets, through a backend -------------------------------------------------------------------
def _earliest(previous: list[tuple[float, float]], after: float, fits: object) -> float:
    """The first moment from `after` on at which `fits(t)` holds, tried at each moment
    something leaves the window."""
    assert callable(fits)
    candidates = sorted({after, *(t + MINUTE for pair in previous for t in pair if t + MINUTE > after)})
    return next(t for t in candidates if fits(t))


def test_requests_per_minute_are_kept_to_by_waiting(endpoint: Endpoint, clock: Clock) -> None:
    client = backend(endpoint, clock, requests_per_minute=3)
    for _ in range(8):
        client.select(QUERY)
    sends = [start for start, _ in endpoint.exchanges]
    assert clock.sleeps, "eight requests at three a minute wait"
    for i, sent in enumerate(sends):
        before = sends[:i]
        expected = _earliest([(s, s) for s in before], sends[i - 1] if i else sent,
                             lambda t, before=before: sum(s > t - MINUTE for s in before) < 3)
        assert sent == pytest.approx(expected)


def test_query_seconds_per_minute_are_kept_to_by_waiting(clock: Clock) -> None:
    server = Endpoint(clock, query_seconds=4.0)
    try:
        client = backend(server, clock, query_seconds_per_minute=10)
        for _ in range(7):
            client.select(QUERY)
    finally:
        server.shutdown()
        server.server_close()
    assert clock.sleeps
    for i, (sent, _) in enumerate(server.exchanges):
        before = server.exchanges[:i]
        expected = _earliest(before, before[-1][1] if before else sent,
                             lambda t, before=before: sum(e - s for s, e in before if e > t - MINUTE) < 10)
        assert sent == pytest.approx(expected)


def test_a_budget_is_shared_by_every_backend_of_the_endpoint(endpoint: Endpoint, clock: Clock) -> None:
    one, other = backend(endpoint, clock, requests_per_minute=2), backend(endpoint, clock, requests_per_minute=2,
                                                                          max_concurrency=3)
    for client in (one, other, one, other, one):
        client.select(QUERY)
    sends = [start for start, _ in endpoint.exchanges]
    assert all(sum(t - MINUTE < s <= t for s in sends) <= 2 for t in sends)


def test_no_room_within_the_deadline_is_rate_limited_saying_when(endpoint: Endpoint, clock: Clock) -> None:
    client = backend(endpoint, clock, requests_per_minute=2)
    client.select(QUERY)
    clock.advance(15)
    client.select(QUERY)
    with deadlines.within(5), pytest.raises(RateLimited) as caught:
        client.select(QUERY)
    assert len(endpoint.exchanges) == 2 and not clock.sleeps
    first = endpoint.exchanges[0][0]
    assert caught.value.retry_after == pytest.approx(first + MINUTE - clock())
    seconds = math.ceil(caught.value.retry_after or 0)
    message = str(caught.value)
    assert "2 requests a minute" in message and f"retry after {seconds} s" in message
    problem = to_problem(caught.value)
    assert problem.status == 429 and problem.headers["Retry-After"] == str(seconds)


def test_an_endpoint_s_429_is_reported_with_when_to_retry(endpoint: Endpoint, clock: Clock) -> None:
    endpoint.busy_for = 7
    client = backend(endpoint, clock, retry=RetryPolicy(attempts=1))
    with pytest.raises(RateLimited) as caught:
        client.select(QUERY)
    assert caught.value.retry_after == 7 and "retry after 7 s" in str(caught.value)
    problem = to_problem(caught.value)
    assert problem.status == 429 and problem.headers["Retry-After"] == "7"
    with deadlines.within(3), pytest.raises(RateLimited) as caught:  # the pause it set, past the deadline
        client.select(QUERY)
    assert len(endpoint.exchanges) == 1 and 0 < (caught.value.retry_after or 0) <= 7
    assert f"retry after {math.ceil(caught.value.retry_after or 0)} s" in str(caught.value)


def test_the_caller_is_told_when_to_retry_over_http_and_mcp(oxigraph_server: OxigraphServer) -> None:
    """A gateway on a budget of one request a minute, spent (by a gateway on no budget): its tool call fails with when to
    ask again, as a 429 with Retry-After over HTTP and in the error's text over MCP (the real
    client). The server is reached as localhost: an origin, and so a budget, of its own."""
    url = oxigraph_server.url.replace("127.0.0.1", "localhost")
    arguments = {"id": "wiki:Irene_Adler"}
    assert Gateway.connect(url, prefixes=PREFIXES).call("describe_entity", arguments)  # the call itself is fine
    gateway = Gateway.connect(url, prefixes=PREFIXES, requests_per_minute=1, settings=Settings(deadline=10))
    with pytest.raises(RateLimited) as caught:
        gateway.call("describe_entity", arguments)
    problem = to_problem(caught.value)
    seconds = int(problem.headers["Retry-After"])
    assert problem.status == 429 and 10 <= seconds <= 60 and f"retry after {seconds} s" in problem.detail

    async def over_mcp() -> str:
        async with Client(create_mcp_server(gateway)) as client:
            result = await client.call_tool("describe_entity", arguments)
            assert result.is_error
            return str(result.content[0].text)  # type: ignore[union-attr]

    text = asyncio.run(over_mcp())
    assert text.startswith("rate_limited: ") and "retry after " in text and "1 requests a minute" in text
