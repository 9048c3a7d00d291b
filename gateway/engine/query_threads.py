"""Store queries waited for no longer than the call's deadline (`by_deadline`).

The embedded store's checks (`deadline.ALIVE`) stop a checked query's joins at the
deadline, but the store still passes every remaining candidate through a check that says
no, and sorts what it holds: past the deadline by a time that grows with what the query
reads (1-2 s for 100,000 rows on a loaded machine). Run on a thread of its own, such a
query ends by itself while its call answers at its deadline.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar, cast

from gateway import deadline as deadlines
from gateway import memory
from gateway.errors import EndpointTimeout

T = TypeVar("T")

WAIT_STEP = 0.25
"""How often a call waiting for its query looks whether its caller went away."""
QUERIES = ThreadPoolExecutor(max_workers=16, thread_name_prefix="bfsql-query")
"""Where long embedded queries run (`by_deadline`), while the call waits for them no
longer than its deadline. Threads kept: starting one a query cost 1-3 ms on a busy
machine. A query left running past its caller's deadline holds one until its checks end
it; a call finding them all held waits in line, within its own deadline."""


def by_deadline(run: Callable[[], T]) -> T:
    """`run()`'s answer (an embedded store's query), waited for no longer than the call's
    deadline: past it, `EndpointTimeout` while the query ends on its own thread. A query
    that ends after its caller left hands back what it held (`memory.ended_late`: the
    call's own `give_back` came too early to see it)."""
    if deadlines.remaining() is None:
        return run()
    left = threading.Event()

    def alone() -> T | None:
        try:
            answer: T | None = run()
        except BaseException:
            if not left.is_set():
                raise
            answer = None
        if left.is_set():
            # Nobody waits for it: what the query held goes now (its rows, or the frames of
            # its error), before the memory is handed back.
            answer = None
            memory.ended_late()
        return answer

    answer = QUERIES.submit(contextvars.copy_context().run, alone)
    while True:
        try:
            return cast(T, answer.result(timeout=max(0.0, min(deadlines.remaining() or 0.0, WAIT_STEP))))
        except FutureTimeout:
            deadline = deadlines.current()
            if deadline is not None and deadline.expired():
                left.set()
                answer.cancel()  # not begun yet (every thread held): never begun
                gone = deadline.abandoned is not None and deadline.abandoned.is_set()
                raise EndpointTimeout("the query was stopped: its caller went away" if gone
                                      else f"the query was stopped at the call's deadline ({deadline.seconds:g} s)") from None
