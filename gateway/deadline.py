"""Every tool call has a deadline; the code that can stop or wait reads it here.

`Gateway.call` opens one (`Settings.deadline` seconds, or what the caller asks up to
`Settings.max_deadline`) in a context variable, so it follows the call into whatever it
runs without being passed along. What reads it:

- walks (bfs_query, intersect_subgraphs, communities) stop between hop queries once
  `nearly_expired` — a fifth of the time is kept to present what was found — and say so
  (`truncation.reason: "deadline"`);
- level-by-level searches (transitive_closure_query, shortest_path) stop between levels
  and say so in their answer;
- the remote backend waits for a connection slot, and for each answer, no longer than
  the time left, and does not retry past it (`EndpointTimeout`);
- a walk, closure, path search or scan page whose query meets a timeout after it completed
  a step (the call's deadline, or the endpoint's own: a 504, a read timeout) keeps the
  steps it completed and says why it stopped (`timeout_cause`): "deadline" or
  "endpoint_timeout".

A single embedded query cannot be interrupted from outside; most templates keep each one
bounded (a hop reads at most its budget plus one row). A query whose work the data decides
(tabulate's paths through hubs) carries the store's own checks instead: the functions
`ALIVE` and `HELD`, called by the embedded store on every binding and every solution the
query marks with them, answer false once the call's deadline has passed, its caller has
gone, or the query has made more bindings or holds more solutions than it may (`Watch`).
The store then drops every later binding at once, so the query ends within moments; the
backend raises `EndpointTimeout` or `TooLarge` rather than hand back what is left. A
remote endpoint does not know the functions: queries sent there never carry them, and the
HTTP client's own deadline bounds them.

A call whose caller went away (`abandoned`: the HTTP surface sets it when the client
disconnects, the MCP surface when the client cancels the request or leaves) counts as
expired: it stops at the next of those points instead of working for nobody.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, TypeVar

from gateway.errors import EndpointTimeout, TooLarge

T = TypeVar("T")

RESERVE = 0.2
"""The share of a call's time a walk leaves for presenting what it found."""


@dataclass(frozen=True)
class Deadline:
    seconds: float
    end: float
    """On `time.monotonic()`'s clock."""
    abandoned: threading.Event | None = None
    """Set when nobody waits for the answer any more."""

    def remaining(self) -> float:
        if self.abandoned is not None and self.abandoned.is_set():
            return 0.0
        return self.end - time.monotonic()

    def expired(self) -> bool:
        return self.remaining() <= 0

    def nearly_expired(self) -> bool:
        return self.remaining() <= RESERVE * self.seconds


_current: ContextVar[Deadline | None] = ContextVar("deadline", default=None)


@contextmanager
def within(seconds: float, abandoned: threading.Event | None = None) -> Iterator[Deadline]:
    """Run the block with a deadline `seconds` from now (or as soon as `abandoned` is set)."""
    deadline = Deadline(seconds, time.monotonic() + seconds, abandoned)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current() -> Deadline | None:
    """The running call's deadline; None outside a tool call."""
    return _current.get()


def stop_if_expired(message: str, field: str | None = None) -> None:
    """`EndpointTimeout(message)` once the running call's deadline passed or its caller left:
    for work in Python between reads (a partition, a layout) that no query bounds."""
    deadline = _current.get()
    if deadline is not None and deadline.expired():
        raise EndpointTimeout(message, field=field)


CauseOfTimeout = Literal["deadline", "endpoint_timeout"]
EXPIRED = 0.01
"""The share of a call's time that a query stopped at its deadline may leave past it (the
clock read after the stop)."""


@contextmanager
def keeping_reserve() -> Iterator[None]:
    """Run the block with the call's deadline brought forward by its reserve (`RESERVE`):
    for a step whose work is kept when a later one times out (a hop, a level, a scan's
    slice), so that a query the deadline stops leaves the time to present what the steps
    before it found."""
    deadline = _current.get()
    if deadline is None:
        yield
        return
    token = _current.set(Deadline(deadline.seconds, deadline.end - RESERVE * deadline.seconds, deadline.abandoned))
    try:
        yield
    finally:
        _current.reset(token)


def timeout_cause() -> CauseOfTimeout | None:
    """Why the query that just raised `EndpointTimeout` stopped, for an answer that keeps
    the steps done before it: "deadline" when the call's time is gone up to its reserve
    (no such step is begun later, nor waited for past it: `keeping_reserve`),
    "endpoint_timeout" when the store gave up first; None when the caller went away,
    where an answer kept in part has nobody to read it (the error stands)."""
    deadline = _current.get()
    if deadline is None:
        return "endpoint_timeout"
    if deadline.abandoned is not None and deadline.abandoned.is_set():
        return None
    return "deadline" if deadline.remaining() <= (RESERVE + EXPIRED) * deadline.seconds else "endpoint_timeout"


def remaining() -> float | None:
    deadline = _current.get()
    return None if deadline is None else deadline.remaining()


ALIVE = "https://w3id.org/bfsql/function#alive"
"""The store's check: `FILTER(<ALIVE>(?v))` after the pattern that binds `?v` is true
while the query may go on. A function of one variable, so that the store evaluates it
where that variable is bound, inside the join, not after it: once it is false, the
pattern matches nothing more and the joins after it have nothing to multiply."""
HELD = "https://w3id.org/bfsql/function#held"
"""The store's count of what a query holds: `BIND(<HELD>(?v) AS ?held) FILTER(?held)` at
the end of a query's pattern is evaluated once for each of its solutions (what its
DISTINCT, GROUP BY and ORDER BY keep), and is false, as `ALIVE` is, once there were more
than the query may hold (`holding`), or the deadline passed."""
BINDINGS = 2_000_000
"""Bindings (`ALIVE` calls) one checked query may make unless its caller says otherwise
(`holding`): the store may keep each (a join's table), about 70 bytes a binding measured,
140 MB in all."""
HELD_SOLUTIONS = 200_000
"""Solutions one checked query may hold unless its caller says otherwise (`holding`): about
350 bytes each where the store keeps them (DISTINCT, ORDER BY), 70 MB in all; and what it
sorts once stopped (ORDER BY still sorts what it holds) takes about a second."""

_bounds: ContextVar[tuple[int, int]] = ContextVar("bounds", default=(BINDINGS, HELD_SOLUTIONS))


@contextmanager
def holding(bindings: int, solutions: int) -> Iterator[None]:
    """Checked queries run in the block may make at most `bindings` bindings and hold at
    most `solutions` solutions each."""
    token = _bounds.set((bindings, solutions))
    try:
        yield
    finally:
        _bounds.reset(token)


class Watch:
    """What one checked store query may still do: the call's deadline and its caller, and
    counts of the bindings it made and the solutions it holds. Once a check says no, every
    check says no for good, so the store drops everything after that point."""

    __slots__ = ("bindings", "deadline", "held", "kept", "seen", "stopped")

    def __init__(self) -> None:
        self.deadline = current()
        self.bindings, self.held = _bounds.get()
        self.seen = self.kept = 0
        self.stopped: str | None = None
        """Why the checks said no: "deadline", "abandoned", "bindings" or "held"; None while
        they have not."""

    def functions(self, yes: T, no: T) -> dict[str, Callable[[object], T]]:
        """`ALIVE` and `HELD` as the store calls them: `yes` while the query may go on, then
        `no` for good. The store calls them from inside its evaluation, once a binding, so
        each does as little as it can (a clock read, the caller's event)."""
        deadline = self.deadline
        end = deadline.end if deadline is not None else math.inf
        abandoned = deadline.abandoned if deadline is not None else None
        bindings, held = self.bindings, self.held
        clock = time.monotonic

        def alive(_: object) -> T:
            if self.stopped is None:
                self.seen += 1
                if self.seen > bindings:
                    self.stopped = "bindings"
                elif clock() >= end:
                    self.stopped = "deadline"
                elif abandoned is not None and abandoned.is_set():
                    self.stopped = "abandoned"
                else:
                    return yes
            return no

        def kept(_: object) -> T:
            if self.stopped is None:
                self.kept += 1
                if self.kept > held:
                    self.stopped = "held"
                elif clock() >= end:
                    self.stopped = "deadline"
                elif abandoned is not None and abandoned.is_set():
                    self.stopped = "abandoned"
                else:
                    return yes
            return no

        return {ALIVE: alive, HELD: kept}

    def check(self) -> None:
        """Raise if a check stopped the query: what the store answered is then not the whole
        answer, and nothing of it may be shown as if it were."""
        if self.stopped == "held":
            raise TooLarge(f"the query was stopped on reaching {self.held:,} solutions, the most one query may "
                           "hold in memory")
        if self.stopped == "bindings":
            raise TooLarge(f"the query was stopped after {self.bindings:,} bindings, the most one query may "
                           "hold in memory")
        if self.stopped == "abandoned":
            raise EndpointTimeout("the query was stopped: its caller went away")
        if self.stopped == "deadline":
            seconds = self.deadline.seconds if self.deadline is not None else 0
            raise EndpointTimeout(f"the query was stopped at the call's deadline ({seconds:g} s)")
