"""Load time and memory per triple: in memory (`Gateway.open(FILE)`) and on disk (`bfsql load`).

Each measurement runs in a fresh child process, so one load's memory does not hide in
another's: *in memory* is the resident set added by bulk-loading the file into an
in-memory pyoxigraph store, per quad; *on disk* is `bfsql load`'s two steps timed
apart (the bulk load, then the search index it builds over labels) and the store
directory's size per quad.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench import report

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Load time and memory per triple"
MAX_BYTES_PER_TRIPLE = 400
MIN_TRIPLES_PER_S = 100_000

_CHILD = """
import json, os, resource, shutil, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {root!r})
import pyoxigraph as ox

def rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

path = Path({path!r})
lines = sum(1 for _ in open(path, "rb"))
if {on_disk!r}:
    from gateway.backends.embedded import EmbeddedBackend, load_files
    from gateway.engine.context import GraphContext
    from gateway.profiles.native import NativeProfile
    from gateway.engine.search import SearchIndex
    directory = Path(tempfile.mkdtemp(dir={scratch!r}))
    try:
        store = ox.Store(str(directory / "store"))
        started = time.perf_counter()
        load_files(store, [path], bulk=True)
        store.flush()
        load_s = time.perf_counter() - started
        quads = len(store)
        size = sum(f.stat().st_size for f in (directory / "store").rglob("*") if f.is_file())
        started = time.perf_counter()
        context = GraphContext(backend := EmbeddedBackend(store), NativeProfile(backend))
        SearchIndex.build(context, directory / "search.sqlite").close()
        index_s = time.perf_counter() - started
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps(dict(lines=lines, quads=quads, load_s=load_s, index_s=index_s, bytes=size)))
else:
    from gateway.backends.embedded import load_files
    before = rss()
    store = ox.Store()
    started = time.perf_counter()
    load_files(store, [path])  # what Gateway.open(FILE) does
    load_s = time.perf_counter() - started
    quads = len(store)
    after = rss()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(dict(lines=lines, quads=quads, load_s=load_s, bytes=after - before, peak=peak - before)))
"""


def measure(path: Path, *, on_disk: bool, scratch: Path) -> dict[str, float]:
    code = _CHILD.format(root=str(ROOT), path=str(path), on_disk=on_disk, scratch=str(scratch))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run(output: Path, files: list[tuple[str, Path]], *, scratch: Path) -> None:
    """One in-memory and one on-disk load per file; a table and the targets."""
    scratch.mkdir(parents=True, exist_ok=True)
    lines = [
        SECTION,
        "",
        ("Each load in a fresh child process (bench/loads.py). *In memory*: the in-memory store `Gateway.open(FILE)` "
         "builds (its loader, timed alone), resident memory added and the peak above the starting point. "
         "*On disk*: the two steps of `bfsql load FILE --store DIR`, timed apart: the bulk load into an on-disk "
         "store (rate in N-Triples lines a second), then the label search index; and the store's bytes on disk."),
        "",
        ("| graph | N-Triples lines | quads | in memory: load s | lines/s | bytes/quad resident | peak bytes/quad "
        "| on disk: load s | lines/s | bytes/quad on disk | search index s |"),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    worst_memory, worst_rate = 0.0, float("inf")
    for name, path in files:
        memory = measure(path, on_disk=False, scratch=scratch)
        disk = measure(path, on_disk=True, scratch=scratch)
        per_quad = memory["bytes"] / memory["quads"]
        rate_memory = memory["lines"] / memory["load_s"]
        rate_disk = disk["lines"] / disk["load_s"]
        worst_memory, worst_rate = max(worst_memory, per_quad), min(worst_rate, rate_disk)
        print(f"  {name}: in memory {memory['load_s']:.1f} s, {per_quad:.0f} B/quad; on disk {disk['load_s']:.1f} s "
              f"({rate_disk:,.0f} lines/s), index {disk['index_s']:.1f} s", flush=True)
        lines.append(
            f"| {name} | {memory['lines']:,} | {memory['quads']:,} | {memory['load_s']:.1f} | {rate_memory:,.0f} "
            f"| {per_quad:.0f} | {memory['peak'] / memory['quads']:.0f} | {disk['load_s']:.1f} | {rate_disk:,.0f} "
            f"| {disk['bytes'] / disk['quads']:.0f} | {disk['index_s']:.1f} |"
        )
    memory_verdict = report.record("loading", f"memory per loaded triple in memory ≤ {MAX_BYTES_PER_TRIPLE} bytes",
                                   f"at most {worst_memory:.0f} bytes/quad", worst_memory <= MAX_BYTES_PER_TRIPLE)
    rate_verdict = report.record("loading", f"on-disk load ≥ {MIN_TRIPLES_PER_S:,} triples/s",
                                 f"at least {worst_rate:,.0f} lines/s", worst_rate >= MIN_TRIPLES_PER_S)
    lines += [
        "",
        f"- memory per loaded triple in memory ≤ {MAX_BYTES_PER_TRIPLE} bytes: at most {worst_memory:.0f} — {memory_verdict}",
        f"- on-disk load ≥ {MIN_TRIPLES_PER_S:,} triples/s: at least {worst_rate:,.0f} — {rate_verdict}",
        "",
    ]
    report.write_section(output, SECTION, "\n".join(lines))
