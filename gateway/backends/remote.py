"""A remote SPARQL 1.1 Protocol endpoint behind the `Backend` interface.

One small synchronous client on httpx2 for Wikidata's query service, Virtuoso, an
Oxigraph server or any SPARQL 1.1 endpoint:

- form-encoded POST (``query=`` plus ``default-graph-uri``/``named-graph-uri`` for the
  graphs a query may read), ``Accept: text/tab-separated-values`` with JSON as the
  fallback. A server that does not answer in SPARQL 1.1 TSV (Virtuoso writes IRIs and
  strings alike as quoted text and drops language tags and datatypes) is asked again in
  JSON, and in JSON from then on. Rows are the `gateway.terms` values embedded ones are.
- a User-Agent that meets Wikimedia's policy (tool/version, contact, library/version);
- connect and read timeouts and a deadline for the whole answer, all within the tool
  call's own deadline (`gateway.deadline`), the wait for a connection slot included: a
  stalled or dripping server gets `EndpointTimeout` in time, never a call held for ever;
- a per-endpoint concurrency limit (always 1 for Wikimedia's query services);
- retries only for connection errors, 429 (waiting `Retry-After`, 60 s when absent, for
  every request to the endpoint) and 502/503/504, with capped jittered exponential
  backoff and a cap on attempts;
- a circuit breaker: after N queries in a row failed, fail fast for a cool-down;
- no silent short answer: Virtuoso's row cap (``X-SPARQL-MaxRows``), partial results
  (206, ``X-SQL-State``), a 200 whose body is cut or carries an error text are errors.

Every failure is a typed `BackendError` (`EndpointTimeout`, `RateLimited`,
`UpstreamError`, `Truncated`) whose message says what happened upstream.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, ClassVar
from urllib.parse import urlencode, urlsplit

import httpx2

from gateway import deadline as deadlines
from gateway.backends.base import QueryLog, Rows
from gateway.errors import BackendError, EndpointTimeout, RateLimited, Truncated, Unavailable, UpstreamError
from gateway.terms import DEFAULT_GRAPH, NO_GRAPH, RDF, XSD, Blank, Literal, Term, TripleTerm, line_text, parse_tsv

TSV = "text/tab-separated-values"
JSON = "application/sparql-results+json"
_BARE = str.maketrans("", "", '<>"')  # TSV's brackets and quotes, taken out for select_lines
WIKIMEDIA_HOSTS = (".wikidata.org", ".wikimedia.org")
RETRY_STATUSES = frozenset({502, 503, 504})
_TIMEOUT_TEXT = re.compile(r"TimeoutException|timed? ?out|timeout|S1TAT|SR171", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*(?:OFFSET\s+\d+\s*)?$", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "0"


def default_user_agent(contact: str = "https://w3id.org/bfsql") -> str:
    """A User-Agent per Wikimedia's policy: tool/version (contact) library/version.

    Pass your own contact (a URL or an e-mail address) when you run a gateway against a
    public endpoint, so its operators can reach you rather than block you.
    """
    return f"bfsql-gateway/{_version('bfsql-gateway')} ({contact}) httpx2/{httpx2.__version__}"


def is_wikimedia(url: str) -> bool:
    """Whether `url` is a Wikimedia query service (one request in flight at a time)."""
    host = (urlsplit(url).hostname or "").lower()
    return any(host.endswith(suffix) or host == suffix[1:] for suffix in WIKIMEDIA_HOSTS)


# -- policies ------------------------------------------------------------------------
@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before asking again."""

    attempts: int = 4
    """Attempts per query, the first included."""
    backoff: float = 0.5
    """First backoff in seconds; doubled each attempt, jittered, capped at `backoff_cap`."""
    backoff_cap: float = 30.0
    retry_after_default: float = 60.0
    """The wait after a 429 that names none."""
    max_wait: float = 120.0
    """A `Retry-After` longer than this is not waited out: `RateLimited` at once."""

    def backoff_for(self, attempt: int) -> float:
        ceiling = min(self.backoff_cap, self.backoff * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)  # jitter: clients that failed together spread out


@dataclass(frozen=True)
class BreakerPolicy:
    failures: int = 5
    """Queries failed in a row (after their retries) that open the circuit."""
    cooldown: float = 30.0
    """Seconds the circuit stays open; then queries may try again, and one more failure re-opens it."""


class CircuitBreaker:
    """Fail fast while an endpoint keeps failing, rather than pile up slow failures."""

    def __init__(self, policy: BreakerPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until = 0.0
        self._last: BackendError | None = None

    def check(self, endpoint: str) -> None:
        with self._lock:
            remaining = self._open_until - self._clock()
            if self._failures < self.policy.failures or remaining <= 0:
                return  # closed, or half-open: this query may try
            raise Unavailable(
                f"{endpoint} failed {self._failures} queries in a row (last: {self._last}); "
                f"not asking it again for {remaining:.0f} s (circuit breaker)",
                retry_after=remaining,
            )

    def record(self, error: BackendError | None) -> None:
        with self._lock:
            if error is None:
                self._failures = 0
                return
            self._failures += 1
            self._last = error
            if self._failures >= self.policy.failures:
                self._open_until = self._clock() + self.policy.cooldown


class _Endpoint:
    """What every backend talking to one endpoint shares: its slots and its pause."""

    _registry: ClassVar[dict[tuple[str, int], _Endpoint]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, limit: int) -> None:
        self.slots = threading.BoundedSemaphore(limit)
        self.lock = threading.Lock()
        self.pause_until = 0.0
        """No request before this time (monotonic): a 429's Retry-After holds for all."""

    @classmethod
    def get(cls, url: str, limit: int) -> _Endpoint:
        with cls._registry_lock:
            return cls._registry.setdefault((url, limit), cls(limit))

    def pause(self, seconds: float) -> None:
        with self.lock:
            self.pause_until = max(self.pause_until, time.monotonic() + seconds)

    def wait_needed(self) -> float:
        with self.lock:
            return max(0.0, self.pause_until - time.monotonic())


class _Watchdog:
    """Shuts a response's connection down when its time is up.

    httpx's timeouts bound each read, not the whole answer: a server sending one byte
    just within every read timeout would hold the call for ever. Shutting the socket
    down wakes the blocked read (closing it would not), which then fails; `fired` says
    why.
    """

    def __init__(self, response: httpx2.Response, seconds: float) -> None:
        self.fired = False
        stream = response.extensions.get("network_stream")
        self._socket = stream.get_extra_info("socket") if stream is not None else None
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        if self._socket is not None:
            with contextlib.suppress(OSError):  # closed meanwhile
                self._socket.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class _Retry(Exception):
    """An attempt failed in a way worth another attempt; `error` if there is none left."""

    def __init__(self, error: BackendError, wait: float | None = None, pause_all: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.wait = wait
        self.pause_all = pause_all


class _NotTsv(Exception):
    """The server answered in something other than SPARQL 1.1 TSV: ask in JSON."""


# -- the backend -----------------------------------------------------------------------
class RemoteBackend:
    """A SPARQL 1.1 Protocol endpoint.

    `graphs` is the dataset a query reads when the caller names none: those graphs as
    the default graph (their union) and as the named graphs. None leaves the endpoint's
    own default dataset (on Virtuoso, every graph including its system graphs; start
    `oxigraph serve` with `--union-default-graph` to match an embedded store).
    """

    name = "remote"

    def __init__(
        self,
        endpoint: str,
        *,
        graphs: Sequence[str] | None = None,
        prefixes: dict[str, str] | None = None,
        user_agent: str | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 10.0,
        deadline: float | None = None,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        breaker: BreakerPolicy | None = None,
        result_format: str = "auto",
        max_rows: int | None = None,
        proxy: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if result_format not in ("auto", "tsv", "json"):
            raise ValueError(f"result_format must be auto, tsv or json, not {result_format!r}")
        self.endpoint = endpoint
        self.host = urlsplit(endpoint).netloc or endpoint
        self.graphs = tuple(graphs) if graphs is not None else None
        self.prefixes = dict(prefixes or {})
        self.user_agent = user_agent or default_user_agent()
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.deadline = deadline if deadline is not None else 2 * timeout
        """Seconds for a whole answer: a server dripping bytes never trips the read timeout."""
        # Wikimedia's query services get one request at a time whatever is asked: their
        # usage policy, and a client that trips their limits gets blocked for everyone.
        self.max_concurrency = 1 if is_wikimedia(endpoint) else max(1, max_concurrency or 4)
        self.retry = retry or RetryPolicy()
        self.breaker = CircuitBreaker(breaker or BreakerPolicy())
        self.result_format = result_format
        self.max_rows = max_rows
        """The endpoint's row cap when known; learned from `X-SPARQL-MaxRows` otherwise."""
        self.query_log: QueryLog | None = None
        self.rows_read = 0
        self._sleep = sleep
        self._lock = threading.Lock()
        self._shared = _Endpoint.get(endpoint, self.max_concurrency)
        self._client = httpx2.Client(
            timeout=httpx2.Timeout(timeout, connect=connect_timeout),
            headers={"User-Agent": self.user_agent},
            limits=httpx2.Limits(max_connections=self.max_concurrency),
            proxy=proxy,
            follow_redirects=True,
        )

    # -- Backend ---------------------------------------------------------------------
    directory = None

    def source(self) -> str | None:
        return None  # an endpoint's data can change at any time

    def reifier_only(self, graphs: Sequence[str] | None = None) -> Rows | None:
        return None  # no index to read: the profile asks SPARQL

    def reifier_namespaces(self, graphs: Sequence[str] | None = None) -> frozenset[str] | None:
        return None

    def load_warnings(self) -> list[str]:
        return []

    def select(self, query: str, *, graphs: Sequence[str] | None = None) -> tuple[list[str], Rows]:
        return self._select(query, graphs, lines=False)  # type: ignore[return-value]

    def _select(self, query: str, graphs: Sequence[str] | None, *, lines: bool) -> tuple[list[str], Rows | list[str]]:
        form = self._form(query, self.graphs if graphs is None else graphs)
        self.breaker.check(self.host)
        try:
            header, rows = self._with_retries(form, lines)
        except BackendError as error:
            # Only failures of the endpoint itself count, not a query's bad or cut answer.
            self.breaker.record(error if error.outage else None)
            raise
        self.breaker.record(None)
        self._check_row_cap(query, rows)
        with self._lock:
            self.rows_read += len(rows)
        if self.query_log is not None:
            self.query_log(query, len(rows))
        return header, rows

    def select_iris(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        """The IRIs bound to the only variable of a SELECT (unbound and non-IRI values skipped)."""
        _, rows = self.select(query, graphs=graphs)
        return [row[0] for row in rows if row and type(row[0]) is str]

    def select_lines(self, query: str, *, graphs: Sequence[str] | None = None) -> list[str]:
        """Rows of a SELECT as text, values joined by tabs (see `Backend.select_lines`): from
        standard TSV as the embedded store makes them, with no term per value; from JSON
        (or Virtuoso's TSV) through the parsed terms."""
        _, rows = self._select(query, graphs, lines=True)
        if rows and not isinstance(rows[0], str):
            return ["\t".join(line_text(value) for value in row) for row in rows]
        return rows  # type: ignore[return-value]

    def close(self) -> None:
        self._client.close()

    # -- one query, several attempts -----------------------------------------------------
    @staticmethod
    def _form(query: str, graphs: Sequence[str] | None) -> bytes:
        form = [("query", query)]
        if graphs is not None:
            # The protocol has no name for the default graph, so "default" is dropped:
            # a reader scope can only narrow what is seen, never widen it.
            names = [g for g in graphs if g != DEFAULT_GRAPH] or [NO_GRAPH]
            form += [("default-graph-uri", g) for g in names]
            form += [("named-graph-uri", g) for g in names]
        return urlencode(form).encode("ascii")

    def _with_retries(self, form: bytes, lines: bool = False) -> tuple[list[str], Rows | list[str]]:
        attempt = 0
        while True:
            attempt += 1
            pause = self._shared.wait_needed()
            if pause > 0:
                left = deadlines.remaining()
                if left is not None and pause >= left:
                    raise RateLimited(f"{self.host} asked to wait {pause:.0f} s, past the call's deadline",
                                      retry_after=pause)
                self._sleep(pause)
            try:
                return self._attempt(form, lines)
            except _Retry as retry:
                retry.error.outage = True
                if attempt >= self.retry.attempts:
                    raise retry.error from None
                wait = retry.wait if retry.wait is not None else self.retry.backoff_for(attempt)
                left = deadlines.remaining()
                if wait > self.retry.max_wait or (left is not None and wait >= left):
                    raise retry.error from None
                if retry.pause_all:
                    self._shared.pause(wait)  # the next pass waits it out, as do other threads
                else:
                    self._sleep(wait)
            except EndpointTimeout as error:
                error.outage = True
                raise

    def _attempt(self, form: bytes, lines: bool = False) -> tuple[list[str], Rows | list[str]]:
        if self.result_format != "json":
            try:
                return self._exchange(form, f"{TSV}, {JSON};q=0.9", lines)
            except _NotTsv:
                self.result_format = "json"  # this server's TSV is lossy: JSON from now on
        return self._exchange(form, JSON)

    def _exchange(self, form: bytes, accept: str, lines: bool = False) -> tuple[list[str], Rows | list[str]]:
        """One request, within `deadline` seconds and the call's own deadline, whichever is
        sooner: the wait for a slot, the connection, the headers and every byte of the body."""
        left = deadlines.remaining()
        if left is not None and left <= 0:
            raise EndpointTimeout(f"the call's deadline passed before {self.host} could be asked")
        if not self._shared.slots.acquire(timeout=left):
            raise EndpointTimeout(f"{self.host}: all {self.max_concurrency} connections stayed busy until the "
                                  "call's deadline; the endpoint is slow or stalled")
        try:
            started = time.monotonic()
            left = deadlines.remaining()
            limit = self.deadline if left is None else max(0.001, min(self.deadline, left))
            timeout = httpx2.Timeout(min(self.timeout, limit), connect=min(self.connect_timeout, limit))
            try:
                with self._client.stream("POST", self.endpoint, content=form, timeout=timeout,
                                         headers={**_FORM, "Accept": accept}) as response, _Watchdog(response, limit) as watchdog:
                    self._check_status(response)
                    body = self._read(response, started, limit, watchdog)
            except httpx2.TimeoutException as error:
                raise self._timeout(error) from None
            except httpx2.TransportError as error:
                raise _Retry(UpstreamError(f"{self.host}: connection failed ({_describe(error)})")) from None
        finally:
            self._shared.slots.release()
        return self._parse(response, body, lines)

    def _read(self, response: httpx2.Response, started: float, limit: float, watchdog: _Watchdog) -> bytes:
        chunks: list[bytes] = []
        size = 0
        gave_up = f"{self.host} sent only {{}} bytes of its answer in {limit:.1f} s; gave up (the answer is incomplete)"
        try:
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if time.monotonic() - started > limit:
                    raise EndpointTimeout(gave_up.format(size))
        except httpx2.ReadTimeout:
            raise EndpointTimeout(
                f"{self.host} stalled mid-answer after {size} bytes (read timeout); the answer is incomplete"
            ) from None
        except httpx2.TransportError as error:
            if watchdog.fired:
                raise EndpointTimeout(gave_up.format(size)) from None
            # The answer was cut by the connection; asking again reads it whole.
            raise _Retry(Truncated(
                f"{self.host} closed the connection mid-answer after {size} bytes ({_describe(error)})"
            )) from None
        return b"".join(chunks)

    def _timeout(self, error: httpx2.TimeoutException) -> BackendError | _Retry:
        if isinstance(error, httpx2.ConnectTimeout):
            return _Retry(EndpointTimeout(f"{self.host}: could not connect in time ({_describe(error)})"))
        return EndpointTimeout(f"{self.host} did not answer in time ({_describe(error)}); this is not a 'not found'")

    # -- statuses --------------------------------------------------------------------
    def _check_status(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status == 200:
            return
        text = _excerpt(body := response.read())
        if status == 206:
            raise Truncated(f"{self.host} returned partial results (206){_sql_state(response)}: {text}")
        if status == 429:
            wait = _retry_after(response) or self.retry.retry_after_default
            raise _Retry(
                RateLimited(f"{self.host} is rate limiting us (429); it asks to wait {wait:.0f} s", retry_after=wait),
                wait=wait, pause_all=True,
            )
        if status in RETRY_STATUSES:
            kind = EndpointTimeout if status == 504 else UpstreamError
            raise _Retry(kind(f"{self.host} answered {status} {response.reason_phrase}: {text}"),
                         wait=_retry_after(response))
        if status == 408 or (status >= 500 and _TIMEOUT_TEXT.search(body[:65536].decode("utf-8", "replace"))):
            raise EndpointTimeout(f"{self.host} timed out running the query ({status}): {text}")
        error = UpstreamError(f"{self.host} answered {status} {response.reason_phrase}: {text}")
        error.outage = status >= 500
        raise error

    # -- bodies ----------------------------------------------------------------------
    def _parse(self, response: httpx2.Response, body: bytes, lines: bool = False) -> tuple[list[str], Rows | list[str]]:
        self._check_partial(response)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == TSV:
            return self._parse_tsv(body, lines)
        if kind in (JSON, "application/json"):
            return self._parse_json(body)
        text = _excerpt(body)
        if kind.startswith("text/") or not kind:
            raise _error_text(self.host, text)
        raise UpstreamError(f"{self.host} answered in {kind!r}, neither SPARQL TSV nor JSON: {text}")

    def _check_partial(self, response: httpx2.Response) -> None:
        if "x-sql-state" in response.headers:
            raise Truncated(f"{self.host} returned partial results{_sql_state(response)}")
        cap = response.headers.get("x-sparql-maxrows")
        if cap and cap.strip().isdigit():
            self.max_rows = int(cap)  # checked against the rows and the query's LIMIT in select

    def _check_row_cap(self, query: str, rows: Rows | list[str]) -> None:
        """An answer of exactly the endpoint's row cap to a query asking more is cut short."""
        if self.max_rows is None or len(rows) < self.max_rows:
            return
        match = _LIMIT.search(query.strip())
        asked = int(match.group(1)) if match else None
        if asked is None or asked > self.max_rows:
            raise Truncated(
                f"{self.host} returned {len(rows)} rows, its row cap (X-SPARQL-MaxRows {self.max_rows}), "
                f"to a query asking {'all rows' if asked is None else f'up to {asked}'}; the answer is cut"
            )

    def _parse_tsv(self, body: bytes, as_lines: bool = False) -> tuple[list[str], Rows | list[str]]:
        text = _decode(self.host, body)
        head, _, _ = text.partition("\n")
        if not _standard_tsv_header(head):
            if re.fullmatch(r'"[^"\t]*"(\t"[^"\t]*")*', head):
                raise _NotTsv()  # Virtuoso's TSV: quoted names, IRIs indistinguishable from strings
            raise _error_text(self.host, _excerpt(body))
        if not text.endswith("\n"):
            raise _cut(self.host, text, "its last line has no newline")
        lines = text.split("\n")[:-1]
        width = len(lines[0].split("\t"))
        for number, line in enumerate(lines[1:], start=1):
            if line.count("\t") != width - 1:
                rest = "\n".join(lines[number:])
                raise _cut(self.host, rest, f"row {number} has {line.count(chr(9)) + 1} columns, not {width}")
        if as_lines:  # as EmbeddedBackend.select_lines makes them
            return [v.lstrip("?$") for v in lines[0].split("\t")], text[len(lines[0]) + 1 :].translate(_BARE).split("\n")[:-1]
        try:
            return parse_tsv(body)
        except (ValueError, AssertionError, IndexError) as error:
            raise _cut(self.host, text, f"a term does not parse ({error})") from None

    def _parse_json(self, body: bytes) -> tuple[list[str], Rows]:
        text = _decode(self.host, body)
        try:
            data = json.loads(text)
            header = [str(v) for v in data["head"]["vars"]]
            bindings = data["results"]["bindings"]
            rows = [[_json_term(b[v]) if v in b else None for v in header] for b in bindings]
        except (ValueError, KeyError, TypeError) as error:
            raise _cut(self.host, text, f"its JSON does not parse ({error})") from None
        return header, rows


# -- helpers -------------------------------------------------------------------------
def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _excerpt(body: bytes, size: int = 300) -> str:
    """The start of an error body as one line of text (HTML tags dropped)."""
    text = body[:4096].decode("utf-8", errors="replace")
    text = " ".join(_TAG.sub(" ", text).split())
    return text[:size] + ("..." if len(text) > size else "") if text else "(empty body)"


def _decode(host: str, body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Truncated(f"{host} sent an answer that is not UTF-8 (cut mid-character?): {error}") from None


def _standard_tsv_header(head: str) -> bool:
    """SPARQL 1.1 TSV names each variable with '?' (an empty line: no variables)."""
    return head == "" or all(re.fullmatch(r"[?$][\w\u00b7\u0300-\u036f\u203f-\u2040]+", v) for v in head.split("\t"))


def _error_text(host: str, text: str) -> BackendError:
    if _TIMEOUT_TEXT.search(text):
        return EndpointTimeout(f"{host} timed out (it said so in a 200 answer): {text}")
    return UpstreamError(f"{host} sent an error text instead of results: {text}")


def _cut(host: str, text: str, why: str) -> BackendError:
    """A body that stops mid-way: a timeout the server wrote into it, or a plain cut."""
    tail = text[-8000:]  # Blazegraph's trace: the query echoed, the exception, some 30 frames
    if _TIMEOUT_TEXT.search(tail):
        return EndpointTimeout(f"{host} timed out mid-answer ({why}): {_excerpt(tail.encode())}")
    if re.search(r"Exception|Virtuoso \w+ Error|\bError\b", tail):
        return UpstreamError(f"{host} failed mid-answer ({why}): {_excerpt(tail.encode())}")
    return Truncated(f"{host} sent a cut answer: {why}")


def _sql_state(response: httpx2.Response) -> str:
    state = response.headers.get("x-sql-state")
    message = response.headers.get("x-sql-message")
    return f" (X-SQL-State {state}: {message})" if state else ""


def _retry_after(response: httpx2.Response) -> float | None:
    """`Retry-After` in seconds: a number, or an HTTP date."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _json_term(term: dict[str, Any]) -> Term:
    """A SPARQL JSON term as the `gateway.terms` value the TSV reader makes of it."""
    kind = term["type"]
    value = term.get("value")
    if kind == "uri":
        return str(value)
    if kind == "bnode":
        return Blank(str(value))
    if kind == "triple":
        parts = value or term
        subject, predicate, obj = (_json_term(parts[k]) for k in ("subject", "predicate", "object"))
        return TripleTerm(subject, str(predicate), obj)
    if kind in ("literal", "typed-literal"):
        language = term.get("xml:lang")
        if language:
            return Literal(str(value), RDF + "langString", language)
        datatype = term.get("datatype") or XSD + "string"
        return Literal(str(value), datatype)
    raise ValueError(f"unknown term type {kind!r}")
