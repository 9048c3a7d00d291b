"""Memory a call took, handed back to the system when it ends.

glibc keeps what a process freed for its own reuse, and objects in reference cycles wait
for the collector's next full pass: after a call that read millions of rows (a large
table, a hub's communities) the server's resident memory stays at that call's peak
although nothing holds it. A call that grew the process by more than `TRIM_AFTER`
collects its cycles and asks glibc to return its free pages (`malloc_trim`), so a
server's memory follows what it holds, not the largest call it ever answered.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
from collections.abc import Callable
from functools import cache

TRIM_AFTER = 32 * 1024 * 1024
"""Growth over a call, in bytes, past which free memory is handed back."""


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_opening = threading.Lock()
_statm: tuple[int, int] | None = None
"""(process ID, descriptor) of /proc/self/statm, kept open: opening it took half of the
two reads every call makes. The process ID tells a forked child to open its own."""
_late = False
"""Set by `ended_late` until the next hand-back."""


def resident() -> int:
    """This process's resident memory in bytes (0 where /proc does not tell)."""
    global _statm
    try:
        kept = _statm
        if kept is None or kept[0] != os.getpid():
            with _opening:
                if _statm is None or _statm[0] != os.getpid():
                    _statm = (os.getpid(), os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC))
                kept = _statm
        return int(os.pread(kept[1], 256, 0).split()[1]) * _PAGE
    except (OSError, ValueError, IndexError, AttributeError):
        return 0


def give_back(before: int) -> None:
    """Hand free memory back to the system if the process grew past `TRIM_AFTER` since
    `before`, or work ended late since the last hand-back (`ended_late`): what only
    reference cycles hold first (a large call's graph of objects would otherwise wait for
    the collector's next full pass), then what the allocator keeps."""
    global _late
    if not before or (not _late and resident() - before <= TRIM_AFTER):
        return
    _late = False
    _hand_back()


def _hand_back() -> None:
    gc.collect()
    if (trim := _malloc_trim()) is not None:
        trim(0)


def ended_late() -> None:
    """Work ended after its call did (a query left running past its deadline,
    `query_threads.by_deadline`): no call's `give_back` saw what it held, and a call running
    beside it began with it counted. What it freed is handed back now, and again when the
    next call ends (what it freed while others held theirs)."""
    global _late
    _hand_back()
    _late = True


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None on another C library."""
    name = ctypes.util.find_library("c")
    try:
        found: Callable[[int], int] | None = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None
    return found
