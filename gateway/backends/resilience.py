"""What keeps a remote endpoint's troubles from becoming the caller's, and the gateway
from becoming the endpoint's: retries, a circuit breaker, a shared pause, budgets
(requests and query time a minute) and connection slots per endpoint origin, and a
watchdog on each answer.

`gateway.backends.remote` applies them; each is small and tested through it.
"""

from __future__ import annotations

import contextlib
import email.utils
import random
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

import httpx2

from gateway.errors import BackendError, Unavailable


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


Origin = tuple[str, str, int]
"""(scheme, host, port): what a server is, whatever the path (RFC 6454)."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> Origin:
    """The origin of `url`, its port filled in (http://h/ and http://h:80/ are one)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # not a port number: no server's origin equals it
        port = -1
    return scheme, (parts.hostname or "").lower(), port if port is not None else DEFAULT_PORTS.get(scheme, 0)


MINUTE = 60.0
"""The window a budget is counted over."""


class Window:
    """What was spent in the last `span` seconds: a sliding window's log of (time, amount).

    The query-time budget is only known once an answer is read, so the amount is
    counted after the fact; a limiter admitting a weight beforehand (a token bucket)
    cannot model that, and one log serves both budgets."""

    def __init__(self, span: float = MINUTE) -> None:
        self.span = span
        self._log: deque[tuple[float, float]] = deque()
        self._total = 0.0

    def add(self, now: float, amount: float) -> None:
        self._log.append((now, amount))
        self._total += amount

    def wait_for_room(self, limit: float, now: float) -> float:
        """Seconds until less than `limit` is spent in the window (0: there is room now)."""
        while self._log and self._log[0][0] <= now - self.span:
            self._total -= self._log.popleft()[1]
        if not self._log:
            self._total = 0.0  # no rounding left over from the sums
        spent = self._total
        for when, amount in self._log:  # oldest first: each that leaves the window frees its amount
            if spent < limit:
                break
            spent -= amount
            if spent < limit:
                return max(0.0, when + self.span - now)
        return 0.0


@dataclass(frozen=True)
class Wait:
    """No room for a request yet: for `seconds`, because of `reason`."""

    seconds: float
    reason: str


class _OriginState:
    """What every client of one origin shares, whatever its path or concurrency limit."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.lock = threading.Lock()
        self.clock = clock
        self.until = 0.0
        """No request before this time (a 429's pause)."""
        self.requests = Window()
        self.query_time = Window()


class EndpointShare:
    """What every backend talking to one endpoint shares: its pause, its budgets and its slots.

    All are per origin (scheme, host, port), not per URL: a server's 429, its limits and
    its concurrency are the server's, whatever the path, credentials or limit a backend
    was made with. The pause and the budgets' windows are the origin's alone (each
    backend checks them against its own limits); the slots are the origin's for each
    concurrency limit (backends asking for the same limit share them; a Wikimedia
    service's is always 1, so all its clients in the process share one slot)."""

    _registry: ClassVar[dict[tuple[Origin, int], EndpointShare]] = {}
    _origins: ClassVar[dict[Origin, _OriginState]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, limit: int, state: _OriginState | None = None) -> None:
        self.slots = threading.BoundedSemaphore(limit)
        self._state = state or _OriginState(time.monotonic)

    @classmethod
    def get(cls, url: str, limit: int, *, clock: Callable[[], float] = time.monotonic) -> EndpointShare:
        """The share of `url`'s origin for `limit` slots. `clock` (tests give one) counts the
        origin's pause and budgets; the first backend of an origin sets it."""
        key = origin(url)
        with cls._registry_lock:
            state = cls._origins.setdefault(key, _OriginState(clock))
            return cls._registry.setdefault((key, limit), cls(limit, state))

    def now(self) -> float:
        return self._state.clock()

    def pause(self, seconds: float) -> None:
        """No request to this origin for `seconds` (a 429's Retry-After holds for all)."""
        state = self._state
        with state.lock:
            state.until = max(state.until, state.clock() + seconds)

    def wait_needed(self) -> float:
        """Seconds left of the origin's pause."""
        state = self._state
        with state.lock:
            return max(0.0, state.until - state.clock())

    def reserve(self, requests_per_minute: int | None, query_seconds_per_minute: float | None) -> Wait | None:
        """Room for one more request within the budgets given: None, the request counted (so
        that two threads never both take the last room), or how long to wait."""
        state = self._state
        with state.lock:
            now = state.clock()
            waits = [Wait(0.0, "")]
            if requests_per_minute is not None:
                waits.append(Wait(state.requests.wait_for_room(requests_per_minute, now),
                                  f"the budget of {requests_per_minute} requests a minute is spent"))
            if query_seconds_per_minute is not None:
                waits.append(Wait(state.query_time.wait_for_room(query_seconds_per_minute, now),
                                  f"the budget of {query_seconds_per_minute:g} s of query time a minute is spent"))
            longest = max(waits, key=lambda wait: wait.seconds)
            if longest.seconds > 0:
                return longest
            state.requests.add(now, 1)
            return None

    def spent(self, seconds: float) -> None:
        """`seconds` of query time used (from sending a query to its answer read)."""
        state = self._state
        with state.lock:
            state.query_time.add(state.clock(), max(0.0, seconds))


class Watchdog:
    """Shuts a response's connection down when its time is up, or when the call's caller
    went away (`abandoned`).

    httpx's timeouts bound each read, not the whole answer: a server sending one byte
    just within every read timeout would hold the call for ever. Shutting the socket
    down wakes the blocked read (closing it would not), which then fails; `fired` says
    why.
    """

    def __init__(self, response: httpx2.Response, seconds: float, abandoned: threading.Event | None = None) -> None:
        self.fired = False
        stream = response.extensions.get("network_stream")
        self._socket = stream.get_extra_info("socket") if stream is not None else None
        self._end = time.monotonic() + seconds
        self._abandoned = abandoned
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="bfsql-watchdog", daemon=True)

    def _watch(self) -> None:
        while not self._done.wait(min(WATCH_STEP, max(0.0, self._end - time.monotonic()))):
            if time.monotonic() >= self._end or (self._abandoned is not None and self._abandoned.is_set()):
                self._fire()
                return

    def _fire(self) -> None:
        self.fired = True
        if self._socket is not None:
            with contextlib.suppress(OSError):  # closed meanwhile
                self._socket.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()


WATCH_STEP = 0.1
"""How often a watchdog looks whether the call's caller went away."""


class Retry(Exception):
    """An attempt failed in a way worth another attempt; `error` if there is none left."""

    def __init__(self, error: BackendError, wait: float | None = None, pause_all: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.wait = wait
        self.pause_all = pause_all


def retry_after(response: httpx2.Response) -> float | None:
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
