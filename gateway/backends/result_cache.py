"""A remote endpoint's answers kept for a while: the same query asked again within the
TTL is answered without a request.

Keyed by everything that decides the answer: the request form sent (the query text and
the dataset's graphs, which carry the reader's scope, so two scopes never share an
entry) and the reading the answer is read into. What is held is the answer's decoded
body, counted at its length plus the form's (the key) and a measured per-entry overhead,
so the bound (`EndpointConfig.cache_max_bytes`) is the memory held: least recently used
answers go first once it is reached, and an answer larger than the whole bound is not
kept. A hit reads the body again, so every caller gets rows of its own (bytes are
immutable: nothing a caller does to its rows reaches the cache). Errors are never kept.

Single-flight: while one call's request for a key is in flight, the others asking the same
key wait for it, each within its own call's deadline (`EndpointTimeout` once it passes),
and get its answer or a copy of its error. A leader that failed because its own deadline
passed (or its caller left) answers nobody: a waiter still in time asks again itself.

Hits are visible: each call's hits and misses (`counting`, which the HTTP surface opens
around a tool call and shows as the `BFSQL-Cache` header), the process's (`stats`), and
each hit at debug level on the `gateway.remote` logger (the query's start, secrets taken
out).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from cachetools import TTLCache

from gateway import deadline as deadlines
from gateway import redaction
from gateway.backends.results import Body
from gateway.errors import BackendError, EndpointTimeout

A = TypeVar("A")
Key = tuple[bytes, object]
"""The form sent, and the reading its answer is read into."""
ENTRY_OVERHEAD = 800
"""Bytes one entry holds besides its body and form, measured with tracemalloc (the entry,
the body object, the key, the cache's three maps and its expiry link, two bytes objects' headers):
590 to 760, as the maps grow; rounded up, so that the bound is never passed."""
WAIT_SLICE = 0.1
"""Seconds a waiter waits before it looks again at its own deadline and caller."""
logger = logging.getLogger("gateway.remote")


@dataclass
class CacheCount:
    """One tool call's answers from the cache (`hits`: no request of its own, including a
    wait for another call's identical request) and requests sent (`misses`)."""

    hits: int = 0
    misses: int = 0

    def header(self) -> str:
        return f"hits={self.hits}; misses={self.misses}"


_count: ContextVar[CacheCount | None] = ContextVar("cache_count", default=None)
_counting = threading.Lock()  # a walk's queries run on several threads into one count


@contextmanager
def counting() -> Iterator[CacheCount]:
    """Count the block's hits and misses (the threads it starts with its context included)."""
    count = CacheCount()
    token = _count.set(count)
    try:
        yield count
    finally:
        _count.reset(token)


def _counted(hit: bool) -> None:
    count = _count.get()
    if count is not None:
        with _counting:
            if hit:
                count.hits += 1
            else:
                count.misses += 1


@dataclass(frozen=True)
class CacheStats:
    """The process's count for one endpoint's cache."""

    hits: int
    """Answers served from an entry."""
    shared: int
    """Answers taken from another call's identical request in flight."""
    misses: int
    """Requests sent."""
    waiting: int
    """Calls waiting now for another call's identical request."""
    entries: int
    bytes: int
    """Bytes held, as counted against `max_bytes`."""
    max_bytes: int
    ttl: float


@dataclass(frozen=True)
class _Entry:
    body: Body
    size: int
    stored: float


class _Flight:
    """One request in flight, and what it ended with."""

    __slots__ = ("body", "done", "error", "waiters")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.body: Body | None = None
        self.error: BackendError | None = None
        self.waiters = 0


class ResultCache:
    """One endpoint's answers, at most `max_bytes` of them, each for `ttl` seconds on `clock`."""

    def __init__(self, ttl: float, max_bytes: int, *, endpoint: str = "the endpoint",
                 clock: Callable[[], float] = time.monotonic) -> None:
        if ttl <= 0 or max_bytes <= 0:
            raise ValueError("a result cache needs a positive TTL and bound (0 turns it off: no cache is made)")
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.endpoint = endpoint
        self._clock = clock
        self._entries: TTLCache[Key, _Entry] = TTLCache(maxsize=max_bytes, ttl=ttl, timer=clock,
                                                        getsizeof=_size)
        self._flights: dict[Key, _Flight] = {}
        self._lock = threading.Lock()
        self._hits = self._shared = self._misses = 0

    @classmethod
    def configured(cls, ttl: float, max_bytes: int, endpoint: str) -> ResultCache | None:
        """The cache an endpoint's settings ask for; None when either is 0 (no memory held)."""
        return cls(ttl, max_bytes, endpoint=endpoint) if ttl > 0 and max_bytes > 0 else None

    def answer(self, key: Key, fetch: Callable[[], tuple[Body, A]], read: Callable[[Body], A], query: str) -> A:
        """`read` of the answer kept for `key`, or of the one an identical request in flight
        brings; else `fetch`'s (one request), kept unless it is an error or too large."""
        while True:
            found = self._look(key)
            if isinstance(found, _Entry):
                _counted(hit=True)
                logger.debug("%s: answered from the result cache (%d bytes, %.0f s old): %s", self.endpoint,
                             len(found.body.data), self._clock() - found.stored, _excerpt(query))
                return read(found.body)
            flight, leading = found
            if leading:
                _counted(hit=False)
                return self._lead(key, flight, fetch)
            body = self._follow(flight)
            if body is not None:
                with self._lock:
                    self._shared += 1
                _counted(hit=True)
                logger.debug("%s: answered by an identical request in flight: %s", self.endpoint, _excerpt(query))
                return read(body)
            # The leader gave up for reasons of its own: ask again (one waiter leads).

    def _look(self, key: Key) -> _Entry | tuple[_Flight, bool]:
        """The entry for `key`; else the request in flight for it, joined, or a new one to
        lead (True)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._hits += 1
                return entry
            flight = self._flights.get(key)
            if flight is not None:
                flight.waiters += 1
                return flight, False
            flight = self._flights[key] = _Flight()
            self._misses += 1
            return flight, True

    def _lead(self, key: Key, flight: _Flight, fetch: Callable[[], tuple[Body, A]]) -> A:
        try:
            body, answer = fetch()
        except BackendError as error:
            # An error is every waiter's too, unless it came of this call's own deadline or
            # caller: a waiter with time left then asks again.
            left = deadlines.remaining()
            if left is None or left > 0:
                flight.error = error
            raise
        else:
            flight.body = body
            entry = _Entry(body, ENTRY_OVERHEAD + len(key[0]) + len(body.data), self._clock())
            with self._lock:
                if entry.size <= self.max_bytes:
                    self._entries[key] = entry
            return answer
        finally:
            with self._lock:
                del self._flights[key]
            flight.done.set()

    def _follow(self, flight: _Flight) -> Body | None:
        """What the request in flight ended with (its error raised as this call's own), within
        this call's deadline; None when it ended with nothing to share."""
        try:
            while not flight.done.wait(_slice()):
                left = deadlines.remaining()
                if left is not None and left <= 0:
                    raise EndpointTimeout(f"the call's deadline passed while the same query, asked by another call, "
                                          f"was still running at {self.endpoint}")
        finally:
            with self._lock:
                flight.waiters -= 1
        if flight.error is not None:
            raise copy.copy(flight.error)  # an object of its own: one error raised in many threads shares its traceback
        return flight.body

    def stats(self) -> CacheStats:
        with self._lock:
            self._entries.expire()
            waiting = sum(flight.waiters for flight in self._flights.values())
            return CacheStats(self._hits, self._shared, self._misses, waiting, len(self._entries),
                              int(self._entries.currsize), self.max_bytes, self.ttl)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _size(entry: _Entry) -> int:
    return entry.size


def _slice() -> float:
    left = deadlines.remaining()
    return WAIT_SLICE if left is None else max(0.0, min(WAIT_SLICE, left))


def _excerpt(query: str) -> str:
    return redaction.redact(" ".join(query.split())[:160])
