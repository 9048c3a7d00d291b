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
  the time left, and does not retry past it (`EndpointTimeout`).

A single embedded query cannot be interrupted; the templates keep each one bounded (a
hop reads at most its budget plus one row). A call whose caller went away (`abandon`:
the HTTP surface sets it when the client disconnects) counts as expired: it stops at
the next of those points instead of working for nobody.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

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


def remaining() -> float | None:
    deadline = _current.get()
    return None if deadline is None else deadline.remaining()
