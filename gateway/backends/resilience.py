"""What keeps a remote endpoint's troubles from becoming the caller's: retries, a circuit
breaker, a shared pause and connection slots per endpoint origin, and a watchdog on each
answer.

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


class _Pause:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.until = 0.0
        """No request before this time (monotonic)."""


class EndpointShare:
    """What every backend talking to one endpoint shares: its pause and its slots.

    Both are per origin (scheme, host, port), not per URL: a server's 429 and its
    concurrency limit are the server's, whatever the path, credentials or limit a backend
    was made with. The pause is the origin's alone; the slots are the origin's for each
    concurrency limit (backends asking for the same limit share them; a Wikimedia
    service's is always 1, so all its clients in the process share one slot)."""

    _registry: ClassVar[dict[tuple[Origin, int], EndpointShare]] = {}
    _pauses: ClassVar[dict[Origin, _Pause]] = {}
    _registry_lock = threading.Lock()

    def __init__(self, limit: int, pause: _Pause | None = None) -> None:
        self.slots = threading.BoundedSemaphore(limit)
        self._pause = pause or _Pause()

    @classmethod
    def get(cls, url: str, limit: int) -> EndpointShare:
        key = origin(url)
        with cls._registry_lock:
            pause = cls._pauses.setdefault(key, _Pause())
            return cls._registry.setdefault((key, limit), cls(limit, pause))

    def pause(self, seconds: float) -> None:
        """No request to this origin for `seconds` (a 429's Retry-After holds for all)."""
        with self._pause.lock:
            self._pause.until = max(self._pause.until, time.monotonic() + seconds)

    def wait_needed(self) -> float:
        with self._pause.lock:
            return max(0.0, self._pause.until - time.monotonic())


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
