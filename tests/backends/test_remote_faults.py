"""Fault injection: the remote client against a scripted fake endpoint on 127.0.0.1.

A real server will not produce a 429, a cut body or a reset on demand, so this is the
one place with a fake: a tiny threaded http.server answering each request from a
script. Every fault must end in a typed error (or a correct answer after a retry),
never a silently short answer; retries are capped, Retry-After is honoured, and a
Wikimedia endpoint never has more than one request in flight.
"""

from __future__ import annotations

import email.utils
import json
import logging
import socket
import struct
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import parse_qs

import pytest

from gateway import (
    EndpointTimeout,
    Gateway,
    InvalidInput,
    NotFound,
    RateLimited,
    Truncated,
    Unavailable,
    UpstreamError,
)
from gateway import deadline as deadlines
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.etiquette import default_user_agent, is_wikimedia
from gateway.backends.remote import BreakerPolicy, RemoteBackend, RetryPolicy
from gateway.terms import XSD, Literal
from tests.test_hostile_ids import HOSTILE, calls, spliced

TSV = "text/tab-separated-values; charset=utf-8"
JSON = "application/sparql-results+json"
GOOD_TSV = b'?x\t?n\n<http://example.org/a>\t1\n<http://example.org/b>\t"two"@en\n'
GOOD_ROWS = [["http://example.org/a", Literal("1", XSD + "integer")],
             ["http://example.org/b", Literal("two", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "en")]]
QUERY = "SELECT ?x ?n WHERE { ?x ?p ?n } LIMIT 10"
JAVA_TIMEOUT = (
    "SPARQL-QUERY: queryStr=SELECT ...\njava.util.concurrent.ExecutionException: "
    "java.util.concurrent.TimeoutException\n\tat java.util.concurrent.FutureTask.report(FutureTask.java:122)\n"
)


# -- the fake endpoint -----------------------------------------------------------------
@dataclass
class Reply:
    status: int = 200
    body: bytes = GOOD_TSV
    content_type: str | None = TSV
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds before the status line."""
    reset: bool = False
    """Close the connection with a TCP reset instead of answering."""
    stall_after: int | None = None
    """Send this many body bytes (announcing all of them), then hold the connection."""
    drip: float = 0.0
    """Seconds between body bytes."""


class FakeEndpoint:
    """Answers the n-th request with the n-th reply (the last one repeats); records them."""

    def __init__(self, *replies: Reply | Callable[[bytes], Reply]) -> None:
        self.replies = list(replies) or [Reply()]
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"

    def _next(self, body: bytes) -> Reply:
        with self._lock:
            index = len(self.bodies)
            self.bodies.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        reply = self.replies[min(index, len(self.replies) - 1)]
        return reply(body) if callable(reply) else reply

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def queries(self) -> list[str]:
        return [parse_qs(body.decode("ascii")).get("query", [""])[0] for body in self.bodies]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.headers.append(dict(self.headers))
                fake.paths.append(self.path)
                reply = fake._next(body)
                try:
                    self._answer(reply)
                finally:
                    fake._done()

            def _answer(self, reply: Reply) -> None:
                if reply.delay:
                    fake._stop.wait(reply.delay)
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                self.send_response(reply.status)
                if reply.content_type:
                    self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if reply.stall_after is not None:
                    self.wfile.write(reply.body[: reply.stall_after])
                    self.wfile.flush()
                    fake._stop.wait(3.0)  # bounded: the client gives up long before
                    self.close_connection = True
                    return
                if reply.drip:
                    for byte in reply.body:
                        if fake._stop.wait(reply.drip):
                            break
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    return
                self.wfile.write(reply.body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


class Sleeps(list[float]):
    """Stands in for time.sleep: records each wait instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture()
def sleeps() -> Sleeps:
    return Sleeps()


def backend(fake: FakeEndpoint, sleeps: Sleeps | None = None, **options: object) -> RemoteBackend:
    options.setdefault("timeout", 2.0)
    # The fake answers each request with the next reply of its script, and these tests count
    # the requests a fault makes: every select must reach it, so no result cache here.
    options.setdefault("cache_ttl", 0)
    return RemoteBackend(EndpointConfig(fake.url, sleep=sleeps if sleeps is not None else Sleeps(), **options))  # type: ignore[arg-type]


def fails_with(kind: type[Exception], fake: FakeEndpoint, sleeps: Sleeps | None = None, **options: object) -> Exception:
    with pytest.raises(kind) as caught:
        backend(fake, sleeps, **options).select(QUERY)
    return caught.value


# -- answers ------------------------------------------------------------------------------
def test_tsv_answer_and_request_shape() -> None:
    with FakeEndpoint() as fake:
        client = backend(fake, graphs=["http://g/1", "http://g/2"])
        assert client.select(QUERY) == (["x", "n"], GOOD_ROWS)
        assert client.rows_read == 2
    form = parse_qs(fake.bodies[0].decode())
    assert form == {"query": [QUERY], "default-graph-uri": ["http://g/1", "http://g/2"],
                    "named-graph-uri": ["http://g/1", "http://g/2"]}
    headers = {k.lower(): v for k, v in fake.headers[0].items()}
    assert headers["content-type"] == "application/x-www-form-urlencoded"
    assert headers["accept"].startswith("text/tab-separated-values")
    assert headers["user-agent"] == default_user_agent()


def test_reader_with_no_graphs_sees_an_empty_dataset() -> None:
    with FakeEndpoint() as fake:
        backend(fake, graphs=["http://g/1"]).select(QUERY, graphs=[])
    assert parse_qs(fake.bodies[0].decode())["default-graph-uri"] == ["urn:bfsql:no-graph"]


def test_user_agent_meets_wikimedia_policy_and_is_configurable() -> None:
    # tool/version (contact) library/version
    import re

    assert re.fullmatch(r"bfsql-gateway/\S+ \((https?://|mailto:|[^@\s]+@)\S+\) httpx2/\S+", default_user_agent())
    with FakeEndpoint() as fake:
        backend(fake, user_agent="my-agent/1.0 (ops@example.org)").select(QUERY)
    assert {k.lower(): v for k, v in fake.headers[0].items()}["user-agent"] == "my-agent/1.0 (ops@example.org)"


def test_json_answer_when_the_server_has_no_tsv() -> None:
    body = json.dumps({"head": {"vars": ["x", "n"]}, "results": {"bindings": [
        {"x": {"type": "uri", "value": "http://example.org/a"},
         "n": {"type": "typed-literal", "datatype": XSD + "integer", "value": "1"}},
        {"x": {"type": "uri", "value": "http://example.org/b"}, "n": {"type": "literal", "xml:lang": "en", "value": "two"}},
    ]}}).encode()
    with FakeEndpoint(Reply(body=body, content_type=JSON)) as fake:
        assert backend(fake).select(QUERY) == (["x", "n"], GOOD_ROWS)


def test_virtuoso_style_tsv_is_asked_again_in_json_and_then_always_json() -> None:
    lossy = Reply(body=b'"x"\t"n"\n"http://example.org/a"\t1\n"http://example.org/b"\t"two"\n')
    body = json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": [
        {"x": {"type": "typed-literal", "datatype": XSD + "decimal", "value": "1"}}]}}).encode()
    with FakeEndpoint(lossy, Reply(body=body, content_type=JSON)) as fake:
        client = backend(fake)
        assert client.select(QUERY)[1] == [[Literal("1", XSD + "decimal")]]
        client.select(QUERY)
    accepts = [{k.lower(): v for k, v in h.items()}["accept"] for h in fake.headers]
    assert accepts[0].startswith("text/tab-separated-values") and accepts[1:] == [JSON, JSON]


# -- rate limits ----------------------------------------------------------------------------
def test_429_retry_after_is_honoured(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(429, b"slow down", "text/plain", {"Retry-After": "7"}), Reply()) as fake:
        assert backend(fake, sleeps).select(QUERY)[1] == GOOD_ROWS
    assert len(fake.bodies) == 2 and sleeps == [pytest.approx(7, abs=0.5)]


def test_429_retry_after_as_an_http_date(sleeps: Sleeps) -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    with FakeEndpoint(Reply(429, b"", None, {"Retry-After": when}), Reply()) as fake:
        backend(fake, sleeps).select(QUERY)
    assert sleeps == [pytest.approx(30, abs=2)]


def test_429_without_retry_after_waits_60_seconds(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(429, b"", None), Reply()) as fake:
        backend(fake, sleeps).select(QUERY)
    assert sleeps == [pytest.approx(60, abs=0.5)]


def test_429_with_html_body_ends_rate_limited_after_capped_attempts(sleeps: Sleeps) -> None:
    html = b"<!DOCTYPE html><html><head><title>Too many requests</title></head><body><p>Slow down</p></body></html>"
    with FakeEndpoint(Reply(429, html, "text/html", {"Retry-After": "5"})) as fake:
        error = fails_with(RateLimited, fake, sleeps, retry=RetryPolicy(attempts=3))
    assert len(fake.bodies) == 3 and sleeps == [pytest.approx(5, abs=0.5)] * 2
    assert error.retry_after == 5 and "429" in error.message and "<" not in error.message  # type: ignore[attr-defined]


def test_429_asking_too_long_a_wait_is_not_waited_out(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(429, b"", None, {"Retry-After": "3600"})) as fake:
        error = fails_with(RateLimited, fake, sleeps)
    assert len(fake.bodies) == 1 and not sleeps and error.retry_after == 3600  # type: ignore[attr-defined]


# -- server errors and timeouts -------------------------------------------------------------
def test_500_with_a_java_timeout_is_a_timeout_not_retried(sleeps: Sleeps, caplog: pytest.LogCaptureFixture) -> None:
    """Told from the body's text, which the caller is not shown (the debug log has it)."""
    caplog.set_level(logging.DEBUG, logger="gateway.remote")
    with FakeEndpoint(Reply(500, JAVA_TIMEOUT.encode(), "text/plain")) as fake:
        error = fails_with(EndpointTimeout, fake, sleeps)
    assert len(fake.bodies) == 1 and "timed out" in error.message and "500" in error.message  # type: ignore[attr-defined]
    assert "TimeoutException" not in error.message and "TimeoutException" in caplog.text  # type: ignore[attr-defined]


def test_other_500_and_400_are_upstream_errors_not_retried(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="gateway.remote")
    for status, meaning in ((500, "failed running the query"), (400, "refused the query")):
        with FakeEndpoint(Reply(status, b"Virtuoso 37000 Error SP030: syntax error", "text/plain")) as fake:
            error = fails_with(UpstreamError, fake)
        assert len(fake.bodies) == 1 and str(status) in error.message and meaning in error.message  # type: ignore[attr-defined]
        assert "SP030" not in error.message  # type: ignore[attr-defined]
    assert "SP030" in caplog.text  # the endpoint's own words are for the server's log


def test_503_is_retried_with_capped_jittered_backoff(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(503, b"busy", "text/plain"), Reply(503, b"busy", "text/plain"), Reply()) as fake:
        assert backend(fake, sleeps, retry=RetryPolicy(backoff=1.0, backoff_cap=1.5)).select(QUERY)[1] == GOOD_ROWS
    assert len(fake.bodies) == 3
    assert 0.5 <= sleeps[0] <= 1.0 and 0.75 <= sleeps[1] <= 1.5  # jittered, doubled, capped


def test_503_forever_gives_up_after_the_attempt_cap(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(503, b"busy", "text/plain")) as fake:
        error = fails_with(UpstreamError, fake, sleeps, retry=RetryPolicy(attempts=4))
    assert len(fake.bodies) == 4 and len(sleeps) == 3 and "503" in error.message  # type: ignore[attr-defined]


def test_504_forever_is_a_timeout(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(504, b"gateway timeout", "text/plain")) as fake:
        fails_with(EndpointTimeout, fake, sleeps, retry=RetryPolicy(attempts=2))
    assert len(fake.bodies) == 2


def test_connection_reset_is_retried_then_reported(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(reset=True), Reply()) as fake:
        assert backend(fake, sleeps).select(QUERY)[1] == GOOD_ROWS
    with FakeEndpoint(Reply(reset=True)) as fake:
        error = fails_with(UpstreamError, fake, sleeps, retry=RetryPolicy(attempts=3))
    assert len(fake.bodies) == 3 and "connection" in error.message  # type: ignore[attr-defined]


def test_stalled_body_is_a_timeout() -> None:
    with FakeEndpoint(Reply(stall_after=10)) as fake:
        error = fails_with(EndpointTimeout, fake, timeout=0.3)
    assert len(fake.bodies) == 1 and "stalled" in error.message  # type: ignore[attr-defined]


def test_slow_answer_is_a_timeout_never_not_found() -> None:
    with FakeEndpoint(Reply(delay=1.5)) as fake:
        gateway = Gateway.connect(fake.url, timeout=0.3)
        with pytest.raises(EndpointTimeout) as caught:
            gateway.describe_entity("http://example.org/a")
    assert not isinstance(caught.value, NotFound) and "in time" in caught.value.message


def test_dripping_body_meets_the_deadline() -> None:
    with FakeEndpoint(Reply(drip=0.05)) as fake:
        error = fails_with(EndpointTimeout, fake, timeout=1.0, deadline=0.3)
    assert "bytes" in error.message  # type: ignore[attr-defined]


def test_the_call_deadline_cuts_a_drip_slower_than_nothing_else_notices() -> None:
    """Each byte arrives well within the read timeout and the answer's own deadline is far:
    only the call's deadline can end it, and it does so mid-read, not at the next byte."""
    with FakeEndpoint(Reply(drip=0.8)) as fake:
        client = backend(fake, timeout=5.0, deadline=60.0)
        started = time.monotonic()
        with deadlines.within(1.0), pytest.raises(EndpointTimeout, match="bytes"):
            client.select(QUERY)
    assert time.monotonic() - started < 1.5  # the next byte was due at 1.6 s


def test_a_caller_going_away_ends_the_answer_it_waited_for() -> None:
    """A dripping answer and a far deadline: the caller leaving (an HTTP disconnect, an MCP
    cancel) ends the read at once, rather than at the deadline, for nobody."""
    with FakeEndpoint(Reply(drip=0.8)) as fake:
        client = backend(fake, timeout=5.0, deadline=60.0)
        gone = threading.Event()
        threading.Timer(0.5, gone.set).start()
        started = time.monotonic()
        with deadlines.within(8.0, gone), pytest.raises(EndpointTimeout):
            client.select(QUERY)
    assert time.monotonic() - started < 1.5


def test_the_wait_for_a_connection_slot_ends_with_the_call_deadline() -> None:
    with FakeEndpoint(Reply(delay=3.0)) as fake:
        client = backend(fake, timeout=10.0, max_concurrency=1)
        holder = threading.Thread(target=client.select, args=(QUERY,), daemon=True)
        holder.start()
        while not fake.bodies:
            time.sleep(0.01)
        with deadlines.within(0.5), pytest.raises(EndpointTimeout, match="busy"):
            client.select(QUERY)
        assert len(fake.bodies) == 1  # the second query never left


# -- silent truncation ----------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    GOOD_TSV[:-1],                                   # last line without its newline
    GOOD_TSV[:-9],                                   # cut inside a term
    b"?x\t?n\n<http://example.org/a>\n",           # a row with a column missing
])
def test_cut_tsv_is_truncated(body: bytes) -> None:
    with FakeEndpoint(Reply(body=body)) as fake:
        fails_with(Truncated, fake)


def test_cut_json_is_truncated() -> None:
    body = b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://exa'
    with FakeEndpoint(Reply(body=body, content_type=JSON)) as fake:
        fails_with(Truncated, fake)


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (
            Reply(body=b"Virtuoso 42000 Error The estimated execution time exceeds the limit", content_type="text/plain"),
            UpstreamError,
        ),
        (Reply(body=b"Virtuoso S1T00 Error SR171: Transaction timed out", content_type=JSON), EndpointTimeout),
        (Reply(body=GOOD_TSV + JAVA_TIMEOUT.encode()), EndpointTimeout),  # Blazegraph: results, then the trace
        (Reply(body=b"<html><body>Internal error</body></html>", content_type="text/html"), UpstreamError),
        (Reply(body=b"Virtuoso 22023 Error SR...: something broke\n", content_type=TSV), UpstreamError),
    ],
)
def test_200_carrying_an_error_text_is_an_error(reply: Reply, kind: type[Exception]) -> None:
    with FakeEndpoint(reply) as fake:
        fails_with(kind, fake)


def test_virtuoso_row_cap_is_truncation() -> None:
    capped = Reply(headers={"X-SPARQL-MaxRows": "2"})
    with FakeEndpoint(capped) as fake:
        error = fails_with(Truncated, fake)  # LIMIT 10, 2 rows: cut
        assert "X-SPARQL-MaxRows" in error.message  # type: ignore[attr-defined]
        assert backend(fake).select("SELECT ?x ?n WHERE { ?x ?p ?n } LIMIT 2")[1] == GOOD_ROWS  # asked 2: whole


def test_known_row_cap_without_header_is_truncation() -> None:
    """LIMIT n+1: an answer of exactly the endpoint's cap to a query asking more is cut."""
    with FakeEndpoint() as fake:
        fails_with(Truncated, fake, max_rows=2)
        assert backend(fake, max_rows=5).select(QUERY)[1] == GOOD_ROWS


def test_206_partial_results_are_truncated_or_a_timeout() -> None:
    """Virtuoso's anytime query stopped at its time limit (S1TAT) is a timeout, which a walk
    answers with the hops it completed; any other partial answer is a cut one."""
    headers = {"X-SQL-State": "S1TAT", "X-SQL-Message": "RC...: Returning incomplete results, query interrupted"}
    for status in (206, 200):
        with FakeEndpoint(Reply(status, headers=headers)) as fake:
            error = fails_with(EndpointTimeout, fake)
        assert "S1TAT" in error.message and "time limit" in error.message  # type: ignore[attr-defined]
        with FakeEndpoint(Reply(status, headers={**headers, "X-SQL-State": "42000"})) as fake:
            error = fails_with(Truncated, fake)
        assert "42000" in error.message  # type: ignore[attr-defined]


def test_truncation_reaches_the_tool_as_an_error_not_a_short_walk() -> None:
    def answer(body: bytes) -> Reply:
        return Reply(body=b"?x\n<http://example.org/a>") if b"VALUES" in body else Reply(body=b"?r\n")

    with FakeEndpoint(answer) as fake:
        gateway = Gateway.connect(fake.url)
        with pytest.raises(Truncated):
            gateway.bfs_query(seeds=["http://example.org/a"])


# -- protection of the endpoint ---------------------------------------------------------------
def test_circuit_breaker_fails_fast_then_tries_again(sleeps: Sleeps) -> None:
    with FakeEndpoint(Reply(503, b"down", "text/plain")) as fake:
        client = backend(fake, sleeps, retry=RetryPolicy(attempts=1), breaker=BreakerPolicy(failures=2, cooldown=0.3))
        for _ in range(2):
            with pytest.raises(UpstreamError):
                client.select(QUERY)
        with pytest.raises(Unavailable, match="circuit breaker") as refused:
            client.select(QUERY)
        assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 0.3  # 503 + Retry-After
        assert len(fake.bodies) == 2  # the third query never left
        time.sleep(0.4)
        fake.replies = [Reply()]
        assert client.select(QUERY)[1] == GOOD_ROWS  # half-open: one query tried, and it worked
        assert client.select(QUERY)[1] == GOOD_ROWS


def test_query_errors_do_not_open_the_circuit() -> None:
    with FakeEndpoint(Reply(400, b"syntax error", "text/plain")) as fake:
        client = backend(fake, breaker=BreakerPolicy(failures=1, cooldown=60))
        for _ in range(3):
            with pytest.raises(UpstreamError, match="400"):
                client.select(QUERY)
    assert len(fake.bodies) == 3


def _hammer(client: RemoteBackend, threads: int = 6, each: int = 3) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(each):
                client.select(QUERY)
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert not errors


def test_wikidata_never_gets_more_than_one_request_in_flight() -> None:
    assert is_wikimedia("https://query.wikidata.org/sparql") and not is_wikimedia("http://127.0.0.1:1/sparql")
    with FakeEndpoint(Reply(delay=0.05)) as fake:
        # The fake stands in for query.wikidata.org as an HTTP proxy: nothing leaves this machine.
        # No result cache: the same query asked 18 times must make 18 requests to count.
        client = RemoteBackend(EndpointConfig("http://query.wikidata.org/sparql", proxy=fake.url.rsplit("/", 1)[0],
                                              max_concurrency=8, contact="mailto:tests@example.org", cache_ttl=0))
        _hammer(client)
    assert len(fake.bodies) == 18 and fake.max_in_flight == 1
    assert fake.paths[0] == "http://query.wikidata.org/sparql"


def test_other_endpoints_run_requests_side_by_side() -> None:
    """The control for the test above: the counter does see parallel requests."""
    with FakeEndpoint(Reply(delay=0.05)) as fake:
        _hammer(backend(fake, max_concurrency=4))
    assert 1 < fake.max_in_flight <= 4


# -- no caller string reaches the endpoint as query text ----------------------------------
@pytest.fixture(scope="module")
def empty_endpoint() -> Iterator[tuple[FakeEndpoint, Gateway]]:
    """An endpoint whose graph is empty, and one gateway in front of it."""
    empty = json.dumps({"head": {"vars": []}, "results": {"bindings": []}}).encode()
    with FakeEndpoint(Reply(body=empty, content_type=JSON)) as fake:
        # No result cache: every call's queries must reach the fake to be inspected.
        gateway = Gateway.connect(fake.url, prefixes={"wiki": "https://example.org/wiki/"}, cache_ttl=0)
        yield fake, gateway
        gateway.close()


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_ids_never_reach_the_endpoint(empty_endpoint: tuple[FakeEndpoint, Gateway], hostile: str) -> None:
    fake, gateway = empty_endpoint
    before = len(fake.bodies)
    refused = 0
    for tool, arguments in calls(hostile):
        try:
            gateway.call(tool, arguments)
        except InvalidInput:
            refused += 1  # refused before any query: nothing to leak
        except NotFound:
            pass  # not in the (empty) graph: fine, as long as nothing leaked
    sent = fake.bodies[before:]
    assert sent or refused == len(calls(hostile)), "the gateway sent nothing, so the check below proves nothing"
    assert not [body for body in sent if spliced(urllib.parse.unquote_plus(body.decode()))]


def test_ordinary_ids_do_reach_the_endpoint(empty_endpoint: tuple[FakeEndpoint, Gateway]) -> None:
    fake, gateway = empty_endpoint
    gateway.bfs_query(seeds=["wiki:Sherlock_Holmes"])
    assert any("https://example.org/wiki/Sherlock_Holmes" in q for q in fake.queries())


def test_a_query_is_form_encoded_as_the_standard_library_encodes_it() -> None:
    """`form_quote` is a faster `quote_plus`: every ASCII character, hostile IDs, text
    beyond ASCII and random strings come out the same."""
    import random

    from gateway.backends.remote import form_quote

    rng = random.Random(7)
    ascii_chars = "".join(map(chr, range(128)))
    texts = [ascii_chars, "", "%%2B++ \t\n", "SELECT ?x WHERE { <http://a.example/b?c=d&e=f#g> ?p \"é\" }", *HOSTILE]
    texts += ["".join(rng.choice(ascii_chars) for _ in range(rng.randint(1, 200))) for _ in range(500)]
    for text in texts:
        assert form_quote(text) == urllib.parse.quote_plus(text), repr(text)
