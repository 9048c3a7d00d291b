"""What a large call took is handed back when it ends, so a server's memory follows what it
holds, not the largest call it answered (glibc keeps freed memory for its own reuse)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gateway import memory
from tests.conftest import ROOT

FRAGMENTED = """
import sys
from gateway import memory
before = memory.resident()
blocks = [bytearray(4000) for _ in range(60_000)]  # 240 MB in blocks glibc serves from its heap
kept = blocks[::64]  # a few stay: the heap cannot simply shrink from its top
del blocks
grown = memory.resident() - before
if sys.argv[1] == "give_back":
    memory.give_back(before)
print(grown >> 20, (memory.resident() - before) >> 20)
"""


def _grown_and_left(how: str) -> tuple[int, int]:
    done = subprocess.run([sys.executable, "-c", FRAGMENTED, how], capture_output=True, text=True, check=True, cwd=ROOT)
    grown, left = map(int, done.stdout.split())
    return grown, left


def test_freed_memory_is_handed_back_past_the_threshold() -> None:
    if not memory.resident():
        pytest.skip("no /proc/self/statm here")
    grown, kept = _grown_and_left("keep")
    assert grown > 200 and kept > 200  # the control: glibc keeps it
    grown, left = _grown_and_left("give_back")
    assert grown > 200 and left < 64
