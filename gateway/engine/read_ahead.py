"""Reading a hop's next slice ahead over HTTP (`ReadAhead`), for `gateway.engine.walk`."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context

from gateway.profiles.base import HopPlan, Profile


class ReadAhead:
    """Over HTTP, a hop read in slices asks for the next slice while the current one is
    read: two round trips and two answers' worth of server time overlap (a plain hop
    only, on an endpoint that takes more than one request at a time).

    The next slice is asked with the edges left before the current slice is admitted, a
    `LIMIT` at least the one the walk would send after it; its answer is cut to that
    `LIMIT`, the rows the store would have returned first. When a budget fills in the
    current slice the answer is dropped: a request the walk did not need, bounded like
    any other by the call's deadline.
    """

    def __init__(self, profile: Profile, plan: HopPlan) -> None:
        self.profile, self.plan = profile, plan
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bfsql-read-ahead")
        self.asked: dict[tuple[int, int], Future[tuple[list[str], bool] | None]] = {}

    def ask(self, key: tuple[int, int], batch: list[str], limit: int) -> None:
        """Start reading slice `key` (hop, slice) with `limit`, by `plan` as it is now (a
        path walk sets each hop's step)."""
        if key not in self.asked:
            # The deadline is a context variable: the worker reads under the caller's.
            self.asked[key] = self.pool.submit(copy_context().run, self.profile.hop_lines, batch, self.plan, limit)

    def has(self, key: tuple[int, int]) -> bool:
        return key in self.asked

    def take(self, key: tuple[int, int], limit: int) -> tuple[list[str], bool] | None:
        """Slice `key` as `hop_lines(..., limit)` would read it."""
        read = self.asked.pop(key).result()
        if read is None:
            return None
        lines = read[0]
        return (lines, False) if len(lines) < limit else (lines[:limit], True)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
