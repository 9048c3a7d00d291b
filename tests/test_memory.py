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


OVERLAPPED = """
import sys
from gateway import memory
before = memory.resident()
blocks = [bytearray(4000) for _ in range(6_000)]  # 24 MB, under the threshold
kept = blocks[::64]
if sys.argv[1] == "late":
    memory.ended_late()  # work that ended beside this call, while these blocks were held
del blocks
grown = memory.resident() - before
memory.give_back(before)
print(grown >> 20, (memory.resident() - before) >> 20)
"""


def test_work_that_ended_late_has_the_next_call_hand_back_what_it_freed() -> None:
    """A query left running past its caller's deadline ends beside another call: its own
    hand-back comes while that call holds its memory, and that call grew by less than the
    threshold. The next hand-back frees what both let go all the same."""
    if not memory.resident():
        pytest.skip("no /proc/self/statm here")

    def run(how: str) -> tuple[int, int]:
        done = subprocess.run([sys.executable, "-c", OVERLAPPED, how], capture_output=True, text=True, check=True,
                              cwd=ROOT)
        grown, left = map(int, done.stdout.split())
        return grown, left

    grown, kept = run("alone")
    assert grown < memory.TRIM_AFTER >> 20 and kept >= 16  # the control: under the threshold, kept
    grown, left = run("late")
    assert left < 8


def test_a_forked_child_reads_its_own_resident_memory() -> None:
    """The statm descriptor is kept open across calls: a forked child (the SPARQL sandbox
    forks) must read its own figure, not its parent's. The child grows by 200 MB that the
    parent never holds; the oracle is the child's statm read afresh by its process ID."""
    import os

    if not memory.resident():
        pytest.skip("no /proc/self/statm here")
    memory.resident()  # the parent's descriptor, opened before the fork
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        before = memory.resident()
        grown = b"\x01" * (200 << 20)  # written, so resident
        with open(f"/proc/{os.getpid()}/statm", "rb") as handle:
            fresh = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        os.write(writing, f"{before} {memory.resident()} {fresh} {len(grown)}".encode())
        os._exit(0)
    os.close(writing)
    before, kept, fresh, _ = map(int, os.read(reading, 200).split())
    os.waitpid(child, 0)
    os.close(reading)
    assert abs(kept - fresh) < 16 << 20
    # The child's own growth, which the parent never has. (Not the child against the
    # parent: a forked child's resident set leaves out file-backed pages it has not
    # touched, so the parent can read larger.)
    assert kept - before > 150 << 20


def test_a_search_index_build_leaves_the_graphs_id_cache_as_it_was() -> None:
    """The build asks an ID for every entity; kept in the graph's own cache, a quarter
    million of the build's strings outlived it, each pinning the allocator's arena it sat
    in (0.66 GB on NCBITaxon). The oracle for what was indexed: the file's labelled
    entities, counted by pyoxigraph."""
    import pyoxigraph as ox

    from gateway import Gateway
    from gateway.engine.search import SearchIndex
    from tests.conftest import DEMO

    store = ox.Store()
    store.load(path=DEMO, format=ox.RdfFormat.TRIG)
    query = "SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { GRAPH ?g { ?x <http://www.w3.org/2000/01/rdf-schema#label> ?l } }"
    labelled = int(next(iter(store.query(query)))["n"].value)  # type: ignore[index, arg-type]
    context = Gateway.open(DEMO).context
    before = context.ids.cached
    index = SearchIndex.build(context)
    indexed = index._db.execute("SELECT count(*) FROM entity").fetchone()[0]
    index.close()
    assert labelled > 0 and indexed >= labelled
    assert context.ids.cached == before
