"""A process tree as /proc sees it: its members, their CPU time and their memory (Linux)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (a server's workers, its SPARQL zygote and their workers)."""
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found + [g for c in found for g in descendants(c)]


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU seconds (user and system) these processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def tree_pss(pid: int) -> int:
    """Bytes of memory `pid` and its descendants hold, shared pages counted once (PSS)."""
    total = 0
    for member in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total
