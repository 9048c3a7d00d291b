"""A remote SPARQL 1.1 Protocol endpoint behind the `Backend` interface.

One small synchronous client on httpx2 for Wikidata's query service, Virtuoso, an
Oxigraph server or any SPARQL 1.1 endpoint:

- form-encoded POST (``query=`` plus ``default-graph-uri``/``named-graph-uri`` for the
  graphs a query may read), ``Accept: text/tab-separated-values`` with JSON as the
  fallback. A server that does not answer in SPARQL 1.1 TSV (Virtuoso writes IRIs and
  strings alike as quoted text and drops language tags and datatypes) is asked again in
  JSON, and in JSON from then on. Rows are the `gateway.terms` values embedded ones are.
- a User-Agent that meets Wikimedia's policy (tool/version, contact, library/version), and
  the limits public services ask kept to (`gateway.backends.etiquette`);
- connect and read timeouts and a deadline for the whole answer, all within the tool
  call's own deadline (`gateway.deadline`), the wait for a connection slot included: a
  stalled or dripping server gets `EndpointTimeout` in time, never a call held for ever;
- a per-endpoint concurrency limit (always 1 for Wikimedia's query services) and budgets
  of requests and of query time a minute, shared by every client of the endpoint in the
  process: a request waits for room within the call's deadline, else `RateLimited` says
  when there is room again;
- retries only for connection errors, 429 (waiting `Retry-After`, 60 s when absent, for
  every request to the endpoint) and 502/503/504, with capped jittered exponential
  backoff and a cap on attempts;
- a circuit breaker: after N queries in a row failed, fail fast for a cool-down;
- no silent short answer: Virtuoso's row cap (``X-SPARQL-MaxRows``), partial results
  (206, ``X-SQL-State``), a 200 whose body is cut or carries an error text are errors;
- credentials (`auth=`, `headers=`, the URL's userinfo or the environment:
  `gateway.backends.credentials`), never shown: the endpoint is named without its
  userinfo everywhere, and every message passes `gateway.redaction` last;
- redirects followed only within the endpoint's origin (scheme, host, port), at most
  `MAX_REDIRECTS`: the query and the credentials never go to another server;
- an answer at most `max_body` decoded bytes (`gateway.backends.bodies`), refused before
  it is read when its Content-Length says more.

Every failure is a typed `BackendError` (`EndpointTimeout`, `RateLimited`,
`UpstreamError`, `Truncated`) whose message says what happened upstream in the gateway's
own words: an endpoint's error body is never passed on (it goes to the log at debug
level). The retry, breaker and slot policies are in `gateway.backends.resilience`;
answers are read into rows, lines or errors in `gateway.backends.results`.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import quote_plus, urlencode, urlsplit

import httpx2

from gateway import deadline as deadlines
from gateway import redaction
from gateway.backends import bodies, etiquette, results
from gateway.backends.base import IRIS, LINES, ROWS, TABLE, WRITTEN, Capabilities, Graphs, QueryLog, Selects, Shape
from gateway.backends.credentials import NO_CREDENTIALS, credentials_for
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.resilience import (
    BreakerPolicy,
    CircuitBreaker,
    EndpointShare,
    Retry,
    RetryPolicy,
    Watchdog,
    origin,
    retry_after,
)
from gateway.backends.result_cache import ResultCache
from gateway.backends.results import JSON, TIMEOUT_TEXT, TSV, Body, NotTsv, excerpt
from gateway.errors import BackendError, EndpointTimeout, InvalidInput, RateLimited, Truncated, UpstreamError
from gateway.terms import DEFAULT_GRAPH, NO_GRAPH

R = TypeVar("R")
RETRIED = frozenset({429, 502, 503, 504})
"""Statuses asked again after a wait (a 429's for every client of the endpoint)."""
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*(?:OFFSET\s+\d+\s*)?$", re.IGNORECASE)
_FORM = {"Content-Type": "application/x-www-form-urlencoded"}
_NO_AUTH = httpx2.Auth()
"""Handed to httpx so that it adds no credentials of its own (a redirect's userinfo):
the backend's own auth flow is driven in `_authenticated`."""
ERROR_BODY_READ = 64 << 10
"""Bytes of an error answer read, to tell a timeout from other failures and for the debug log."""
logger = logging.getLogger("gateway.remote")


# -- the backend -----------------------------------------------------------------------
class RemoteBackend(Selects):
    """A SPARQL 1.1 Protocol endpoint, as its `EndpointConfig` says.

    A query names the graphs it reads, or reads `EndpointConfig.graphs`. Credentials:
    `auth` (any httpx2 auth), `headers` (an API key's, say), the URL's userinfo, or the
    environment (`gateway.backends.credentials`).
    """

    name = "remote"
    MAX_REDIRECTS = 5
    """Redirects followed within the endpoint's origin per request; one more is refused (a loop)."""

    def __init__(self, config: EndpointConfig) -> None:
        self.config = config
        credentials = credentials_for(config.url, auth=config.auth, headers=config.headers)
        if config.proxy:
            redaction.register_url(config.proxy)
        self.endpoint = credentials.url
        """The endpoint's URL without its userinfo: the form shown anywhere."""
        parts = urlsplit(self.endpoint)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise InvalidInput(f"the endpoint must be an http or https URL, not {self.endpoint[:80]!r}", field="endpoint")
        self.host = parts.netloc
        self._auth = credentials.auth or _NO_AUTH
        self._credentials_source = credentials.source
        self._origin = origin(self.endpoint)
        self.graphs = tuple(config.graphs) if config.graphs is not None else None
        self.prefixes = dict(config.prefixes or {})
        self.deadline = config.deadline if config.deadline is not None else 2 * config.timeout
        """Seconds for a whole answer: a server dripping bytes never trips the read timeout."""
        limits = etiquette.limits_for(config)
        self.max_concurrency = limits.max_concurrency
        self.requests_per_minute = limits.requests_per_minute
        self.query_seconds_per_minute = limits.query_seconds_per_minute
        self.capabilities = Capabilities(max_concurrency=self.max_concurrency, round_trips=True, endpoint=self.endpoint)
        self.retry = config.retry or RetryPolicy()
        self.breaker = CircuitBreaker(config.breaker or BreakerPolicy())
        self.result_format = config.result_format
        """"json" from the first answer whose TSV is lossy on."""
        self.max_rows = limits.max_rows
        """The endpoint's row cap when known; learned from `X-SPARQL-MaxRows` otherwise."""
        self.query_log: QueryLog | None = None
        self.rows_read = 0
        self.cache = ResultCache.configured(config.cache_ttl, config.cache_max_bytes, self.host)
        self._sleep = config.sleep
        self._lock = threading.Lock()
        self._shared = EndpointShare.get(self.endpoint, self.max_concurrency)
        self._client = httpx2.Client(
            timeout=httpx2.Timeout(config.timeout, connect=config.connect_timeout),
            headers={"User-Agent": etiquette.user_agent_for(config), "Accept-Encoding": bodies.ACCEPT_ENCODING,
                     **credentials.headers},
            limits=httpx2.Limits(max_connections=self.max_concurrency),
            proxy=config.proxy,
            follow_redirects=False,  # followed in `_send`, within the endpoint's origin only
        )
        etiquette.warn_if_unidentified(config, self.endpoint)

    # -- Backend ---------------------------------------------------------------------
    def source(self) -> str | None:
        return None  # an endpoint's data can change at any time

    def load_warnings(self) -> list[str]:
        return []

    def prefixes_for(self, graphs: Sequence[str]) -> dict[str, str]:
        return self.prefixes  # configured for the endpoint, none read from its data: every reader's

    def _select(self, query: str, shape: Shape[Any], graphs: Graphs) -> Any:
        if shape is TABLE:
            return self._ask(query, graphs, results.rows)
        if shape is ROWS:  # an endpoint's answer comes whole
            return iter(self._ask(query, graphs, results.rows)[1])
        if shape is LINES:  # from standard TSV with no term per value, from JSON through the parsed terms
            return self._ask(query, graphs, results.lines)[1]
        if shape is WRITTEN:
            return self._ask(query, graphs, results.written)[1]
        if shape is IRIS:
            return [row[0] for row in self._ask(query, graphs, results.rows)[1] if row and type(row[0]) is str]
        raise ValueError(f"no such shape: {shape!r}")

    def _ask(
        self, query: str, graphs: Graphs, read: Callable[[Body], tuple[list[str], list[R]]]
    ) -> tuple[list[str], list[R]]:
        """One query's answer, `read` into rows or lines: from the result cache when it
        holds it (or an identical request is in flight), else from the endpoint."""
        form = self._form(query, self.graphs if graphs is None else graphs)
        if self.cache is None:
            header, rows = self._fetch(query, form, read)[1]
        else:
            header, rows = self.cache.answer((form, read), lambda: self._fetch(query, form, read), read, query)
        with self._lock:
            self.rows_read += len(rows)
        if self.query_log is not None:
            self.query_log(query, len(rows))
        return header, rows

    def _fetch(
        self, query: str, form: bytes, read: Callable[[Body], tuple[list[str], list[R]]]
    ) -> tuple[Body, tuple[list[str], list[R]]]:
        """The endpoint's answer to `form`: the body read, and what `read` made of it."""
        kept: list[Body] = []

        def keeping(body: Body) -> tuple[list[str], list[R]]:
            answer = read(body)
            kept.append(body)  # only a body that reads (TSV a server writes lossily does not)
            return answer

        self.breaker.check(self.host)
        try:
            header, rows = self._with_retries(form, keeping)
        except BackendError as error:
            _scrub(error)
            # Only failures of the endpoint itself count, not a query's bad or cut answer.
            self.breaker.record(error if error.outage else None)
            raise
        self.breaker.record(None)
        self._check_row_cap(query, rows)
        return kept[-1], (header, rows)

    def close(self) -> None:
        self._client.close()

    # -- one query, several attempts -----------------------------------------------------
    @staticmethod
    def _form(query: str, graphs: Sequence[str] | None) -> bytes:
        form = "query=" + form_quote(query)
        if graphs is not None:
            # The protocol has no name for the default graph, so "default" is dropped:
            # a reader scope can only narrow what is seen, never widen it.
            names = [g for g in graphs if g != DEFAULT_GRAPH] or [NO_GRAPH]
            form += "&" + urlencode([*(("default-graph-uri", g) for g in names), *(("named-graph-uri", g) for g in names)])
        return form.encode("ascii")

    def _with_retries(self, form: bytes, read: Callable[[Body], tuple[list[str], list[R]]]) -> tuple[list[str], list[R]]:
        attempt = 0
        while True:
            attempt += 1
            self._wait_out_pause()
            try:
                return self._attempt(form, read)
            except Retry as retry:
                self._before_retry(retry, attempt)
            except EndpointTimeout as error:
                error.outage = True
                raise

    def _before_retry(self, retry: Retry, attempt: int) -> None:
        """The wait before the next attempt waited (a 429's by every client of the endpoint), or
        the attempt's error raised when no attempt, or no time, is left."""
        retry.error.outage = True
        wait = retry.wait if retry.wait is not None else self.retry.backoff_for(attempt)
        if retry.pause_all:
            # Every client of the endpoint waits it out, this one on its next pass; and so does
            # the next call, when this one gives up.
            self._shared.pause(wait)
        left = deadlines.remaining()
        if attempt >= self.retry.attempts or wait > self.retry.max_wait or (left is not None and wait >= left):
            raise retry.error from None
        if not retry.pause_all:
            self._sleep(wait)

    def _wait_out_pause(self) -> None:
        """The endpoint's pause (a 429's `Retry-After`) waited out, within the call's deadline."""
        pause = self._shared.wait_needed()
        if pause <= 0:
            return
        left = deadlines.remaining()
        if left is not None and pause >= left:
            raise RateLimited(f"{self.host} asked to wait {math.ceil(pause)} s, past the call's deadline "
                              f"(retry after {math.ceil(pause)} s)", retry_after=pause)
        self._sleep(pause)

    def _attempt(self, form: bytes, read: Callable[[Body], tuple[list[str], list[R]]]) -> tuple[list[str], list[R]]:
        if self.result_format != "json":
            try:
                return read(self._exchange(form, f"{TSV}, {JSON};q=0.9"))
            except NotTsv:
                self.result_format = "json"  # this server's TSV is lossy: JSON from now on
        return read(self._exchange(form, JSON))

    def _exchange(self, form: bytes, accept: str) -> Body:
        """One request, within `deadline` seconds and the call's own deadline, whichever is
        sooner: the wait for a slot, the connection, the headers and every byte of the body."""
        left = deadlines.remaining()
        if left is not None and left <= 0:
            raise EndpointTimeout(f"the call's deadline passed before {self.host} could be asked")
        self._wait_for_room()
        left = deadlines.remaining()
        if not self._shared.slots.acquire(timeout=left):
            raise EndpointTimeout(f"{self.host}: all {self.max_concurrency} connections stayed busy until the "
                                  "call's deadline; the endpoint is slow or stalled")
        sent = self._shared.now()
        try:
            started = time.monotonic()
            left = deadlines.remaining()
            limit = self.deadline if left is None else max(0.001, min(self.deadline, left))
            timeout = httpx2.Timeout(min(self.config.timeout, limit), connect=min(self.config.connect_timeout, limit))
            try:
                response = self._send(form, accept, timeout, started + limit)
                try:
                    call = deadlines.current()  # its caller going away ends the answer too
                    with Watchdog(response, max(0.001, limit - (time.monotonic() - started)),
                                  call.abandoned if call is not None else None) as watchdog:
                        self._check_status(response)
                        self._check_length(response)
                        body = self._read(response, started, limit, watchdog)
                finally:
                    response.close()
            except httpx2.TimeoutException as error:
                raise self._timeout(error) from None
            except httpx2.TransportError as error:
                raise Retry(UpstreamError(f"{self.host}: connection failed ({_describe(error)})")) from None
            except httpx2.HTTPError as error:  # any other failure of the exchange: typed, never a 500
                raise UpstreamError(f"{self.host}: the exchange failed ({_describe(error)})") from None
        finally:
            self._shared.spent(self._shared.now() - sent)
            self._shared.slots.release()
        self._check_partial(response)
        return Body(self.host, response.headers.get("content-type", "").split(";")[0].strip().lower(), body)

    def _wait_for_room(self) -> None:
        """Until the endpoint's budgets leave room for one more request (counted
        here), within the call's deadline; past it, `RateLimited` saying when there is room."""
        while (wait := self._shared.reserve(self.requests_per_minute, self.query_seconds_per_minute)) is not None:
            left = deadlines.remaining()
            if left is not None and wait.seconds >= left:
                seconds = math.ceil(wait.seconds)
                raise RateLimited(f"{self.host}: {wait.reason}; there is room again in {seconds} s, past the call's "
                                  f"deadline (retry after {seconds} s)", retry_after=wait.seconds)
            self._sleep(wait.seconds)

    def _send(self, form: bytes, accept: str, timeout: httpx2.Timeout, until: float) -> httpx2.Response:
        """The endpoint's answer to the query (headers read, body not), after its challenges
        and its redirects within its own origin.

        A redirect elsewhere would send the query (a 307 sends the body again) to a server
        nobody configured and read its answer as the store's; so it is refused, and with it
        any chance of the credentials going along."""
        request = self._client.build_request("POST", self.endpoint, content=form, timeout=timeout,
                                             headers={**_FORM, "Accept": accept})
        for _ in range(self.MAX_REDIRECTS + 1):
            if time.monotonic() > until:
                raise EndpointTimeout(f"{self.host} did not answer in time (redirects and challenges included)")
            response = self._authenticated(request)
            if not response.has_redirect_location:
                return response
            response.close()  # a redirect's body is never read
            target = response.next_request
            if target is None:
                raise UpstreamError(f"{self.host} redirected the query ({response.status_code}) to a location "
                                    "that is no URL; the gateway did not follow it")
            if origin(str(target.url)) != self._origin:
                logger.warning("%s redirected a query to %s; not followed (another origin)", self.host,
                               redaction.redact(redaction.public_url(str(target.url.copy_with(query=None)))))
                raise UpstreamError(f"{self.host} redirected the query ({response.status_code}) to another server; "
                                    "the gateway follows redirects only within the endpoint's own scheme, host and "
                                    "port, so it was not followed (configure the endpoint's final URL)")
            request = target
        raise UpstreamError(f"{self.host} redirected the query more than {self.MAX_REDIRECTS} times (a redirect "
                            "loop?); the gateway gave up")

    def _authenticated(self, request: httpx2.Request) -> httpx2.Response:
        """`request` sent with the backend's credentials, answering the endpoint's challenge
        (Digest) if it makes one. A challenge's body is never read: it may be of any size."""
        flow = self._auth.sync_auth_flow(request)
        try:
            outgoing = next(flow)
            while True:
                response = self._client.send(outgoing, stream=True, auth=_NO_AUTH)
                try:
                    outgoing = flow.send(response)
                except StopIteration:
                    return response
                except BaseException:
                    response.close()
                    raise
                response.close()  # a challenge, answered with the next request
        finally:
            flow.close()

    def _read(self, response: httpx2.Response, started: float, limit: float, watchdog: Watchdog) -> bytes:
        # One buffer that grows in place (a large one is mapped pages, handed back to the
        # system when freed), not a list of chunks joined at the end.
        buffer = bytearray()
        try:
            self._fill(buffer, response, started, limit, watchdog)
        except BaseException:
            # The error's traceback keeps this frame, and so the buffer, for as long as the
            # error lives (up to the problem document): the bytes read are handed back now.
            del buffer[:]
            raise
        return bytes(buffer)

    def _fill(self, buffer: bytearray, response: httpx2.Response, started: float, limit: float,
              watchdog: Watchdog) -> None:
        gave_up = f"{self.host} sent only {{}} bytes of its answer in {limit:.1f} s; gave up (the answer is incomplete)"
        try:
            for chunk in bodies.decoded(response, self.host):
                buffer += chunk
                if len(buffer) > self.config.max_body:
                    raise UpstreamError(f"{self.host} sent an answer over {self.config.max_body} bytes (max_body); "
                                        "the gateway stopped reading it")
                if time.monotonic() - started > limit:
                    raise EndpointTimeout(gave_up.format(len(buffer)))
        except httpx2.ReadTimeout:
            raise EndpointTimeout(
                f"{self.host} stalled mid-answer after {len(buffer)} bytes (read timeout); the answer is incomplete"
            ) from None
        except httpx2.TransportError as error:
            if watchdog.fired:
                raise EndpointTimeout(gave_up.format(len(buffer))) from None
            # The answer was cut by the connection; asking again reads it whole.
            raise Retry(Truncated(
                f"{self.host} closed the connection mid-answer after {len(buffer)} bytes ({_describe(error)})"
            )) from None

    def _timeout(self, error: httpx2.TimeoutException) -> BackendError | Retry:
        if isinstance(error, httpx2.ConnectTimeout):
            return Retry(EndpointTimeout(f"{self.host}: could not connect in time ({_describe(error)})"))
        return EndpointTimeout(f"{self.host} did not answer in time ({_describe(error)}); this is not a 'not found'")

    # -- statuses --------------------------------------------------------------------
    def _check_status(self, response: httpx2.Response) -> None:
        """A status other than 200 as a typed error, in the gateway's own words: the
        endpoint's body is read (a bounded start of it) only to tell a timeout it reports
        from other failures, and goes to the log at debug level, never to the caller."""
        status = response.status_code
        if status == 200:
            return
        body = self._read_some(response)
        if body:
            logger.debug("%s answered %d; its body began: %s", self.host, status, redaction.redact(excerpt(body)))
        said = f"{self.host} answered {status} {_phrase(status)}"
        if status == 206:
            raise _partial(self.host, response, " (206)")
        if status in RETRIED:
            raise self._retry(response, said)
        if status in (401, 403):
            raise self._refused(status)
        if status == 408 or (status >= 500 and TIMEOUT_TEXT.search(body.decode("utf-8", "replace"))):
            raise EndpointTimeout(f"{self.host} timed out running the query ({status})")
        meaning = "the endpoint failed running the query" if status >= 500 else "the endpoint refused the query"
        error = UpstreamError(f"{said}: {meaning} (its own text is in the gateway's log at debug level)")
        error.outage = status >= 500
        raise error

    def _retry(self, response: httpx2.Response, said: str) -> Retry:
        """A 429, 502, 503 or 504: worth asking again, after the wait the endpoint names."""
        if response.status_code == 429:
            wait = retry_after(response) or self.retry.retry_after_default
            return Retry(RateLimited(f"{self.host} is rate limiting us (429); it asks to wait {math.ceil(wait)} s "
                                     f"(retry after {math.ceil(wait)} s)", retry_after=wait),
                         wait=wait, pause_all=True)
        kind = EndpointTimeout if response.status_code == 504 else UpstreamError
        meaning = ("a server in front of the endpoint gave up waiting for it" if response.status_code == 504
                   else "the endpoint (or a server in front of it) could not take the query")
        return Retry(kind(f"{said}: {meaning}"), wait=retry_after(response))

    def _refused(self, status: int) -> UpstreamError:
        """A 401 or 403: the credentials were refused, or none were given."""
        said = f"{self.host} answered {status} {_phrase(status)}"
        if self.config.auth is NO_CREDENTIALS:  # an endpoints file's entry: the environment's are not its
            return UpstreamError(f"{said}: the endpoint wants credentials and its entry in the endpoints file has "
                                 "none (give them in the entry's auth table)")
        if self._credentials_source is None:
            return UpstreamError(f"{said}: the endpoint wants credentials and the gateway has none (give them in the "
                                 "environment as BFSQL_ENDPOINT_USER and BFSQL_ENDPOINT_PASSWORD, or "
                                 "BFSQL_ENDPOINT_TOKEN)")
        return UpstreamError(f"{said}: the endpoint refused the gateway's credentials (from "
                             f"{self._credentials_source})")

    def _read_some(self, response: httpx2.Response) -> bytes:
        """The start of an error answer, at most `ERROR_BODY_READ` decoded bytes; the rest is
        never read (the connection is closed instead)."""
        found = bytearray()
        try:
            for chunk in bodies.decoded(response, self.host):
                found += chunk[: ERROR_BODY_READ - len(found)]
                if len(found) >= ERROR_BODY_READ:
                    break
        except (httpx2.TransportError, BackendError):
            pass  # what arrived is enough to classify the status by
        return bytes(found)

    def _check_length(self, response: httpx2.Response) -> None:
        """An answer that says it is over `max_body` is refused before a byte of it is read."""
        declared = response.headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > self.config.max_body:
            raise UpstreamError(f"{self.host} announced an answer of {int(declared)} bytes, over the gateway's "
                                f"{self.config.max_body} (max_body); it was not read")

    # -- answers ---------------------------------------------------------------------
    def _check_partial(self, response: httpx2.Response) -> None:
        if "x-sql-state" in response.headers:
            raise _partial(self.host, response, "")
        cap = response.headers.get("x-sparql-maxrows")
        if cap and cap.strip().isdigit():
            self.max_rows = int(cap)  # checked against the rows and the query's LIMIT in select

    def _check_row_cap(self, query: str, rows: Sequence[object]) -> None:
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


_ESCAPED = tuple((c, f"%{ord(c):02X}") for c in map(chr, range(128))
                 if c not in "%+ " and not (c.isascii() and (c.isalnum() or c in "_.-~")))


def form_quote(text: str) -> str:
    """`text` as a form field's value, as `urllib.parse.quote_plus` writes it: a walk's
    queries name thousands of IRIs, and quote_plus spends a Python step on each character
    (6 ms for 5,000 IRIs); ASCII text is escaped a character kind at a time instead."""
    if not text.isascii():
        return quote_plus(text)
    text = text.replace("%", "%25").replace("+", "%2B")
    for char, escaped in _ESCAPED:
        if char in text:
            text = text.replace(char, escaped)
    return text.replace(" ", "+")


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _partial(host: str, response: httpx2.Response, status: str) -> BackendError:
    """Virtuoso's partial results: a timeout when its state says so (an anytime query stopped at
    the server's time limit, so that a walk keeps the hops it completed), else a cut answer."""
    if response.headers.get("x-sql-state", "").strip() == "S1TAT":
        return EndpointTimeout(f"{host} stopped the query at its time limit and returned partial results{status}"
                               f"{_sql_state(response)}; they were not used")
    return Truncated(f"{host} returned partial results{status}{_sql_state(response)}")


def _sql_state(response: httpx2.Response) -> str:
    """Virtuoso's SQL state code, which says why results are partial (S1TAT: a timeout).
    Its message, text of the endpoint's, is left out; so is a state that is no code."""
    state = response.headers.get("x-sql-state", "").strip()
    return f" (X-SQL-State {state})" if re.fullmatch(r"[A-Z0-9]{5}", state) else ""


def _phrase(status: int) -> str:
    """The standard reason phrase: the endpoint's own is its text, and is not shown."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _scrub(error: BackendError) -> None:
    """Every secret taken out of the message, whatever path brought one in (the last line:
    messages name the endpoint without userinfo to begin with)."""
    cleaned = redaction.redact(error.message)
    if cleaned != error.message:
        error.message = cleaned
        error.args = (cleaned,)
