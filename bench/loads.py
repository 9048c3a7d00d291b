"""Load time and memory per triple: in memory (`Gateway.open(FILE)`) and on disk (`bfsql load`).

    PYTHONPATH=. python -m bench.loads --serving [--graphs typed-1M,typed-3M,hpo,ncbitaxon]

Each measurement runs in a fresh child process, so one load's memory does not hide in
another's: *in memory* is the resident set added by bulk-loading the file into an
in-memory pyoxigraph store, per quad; *on disk* is `bfsql load`'s two steps timed
apart (the bulk load, then the search index it builds over labels) and the store
directory's size per quad.

*Serving* (`--serving` alone, or with the rest): the resident set a bare pyoxigraph
in-memory store takes for the file (`Store.load`, the store's own floor) against
`Gateway.open(FILE)`'s, after the open and after a search_entities, a describe_schema
and a 2-hop bfs_query (the search index, the counts and the statistics they build), each
in its own child process, one after the other in the same run; the target is the gateway
at most `MAX_SERVING_RATIO` times the bare store. `--baseline DIR` measures the gateway of
an older checkout too, in the same run (DIR holds its `gateway/`, `queries/`, `vocab/` and
`data/`: `git archive REV gateway queries vocab data | tar -x -C DIR`): a change's before and after side by side.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import report

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Load time and memory per triple"
MAX_BYTES_PER_TRIPLE = 400
MIN_TRIPLES_PER_S = 100_000
MAX_SERVING_RATIO = 1.3
"""`Gateway.open(FILE)` serving, after its first calls, at most this multiple of the bare store's bytes a quad."""
SERVING = "### Serving from memory: the gateway against the bare store"

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
        *serving(files),
    ]
    report.write_section(output, SECTION, "\n".join(lines))


_SERVING_CHILD = """
import json, os, resource, sys, threading, time
sys.path.insert(0, {root!r})
import pyoxigraph as ox
from gateway.api import Gateway  # imported before the first reading: code is not data
from gateway.errors import Unavailable

def rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def ready(call, *args, **fields):
    while True:  # a large graph's index may take longer than a call waits for it
        try:
            return call(*args, **fields)
        except Unavailable:
            time.sleep(1)

path = {path!r}
before = rss()
found = dict()
started = time.perf_counter()
if {gateway!r}:
    gateway = Gateway.open(path)
    store = gateway.backend.store
else:
    store = ox.Store()
    store.load(path=path, format=ox.RdfFormat.from_extension(path.rsplit(".", 1)[-1]))
found.update(quads=len(store), open_s=time.perf_counter() - started, open=rss() - before)
if {gateway!r}:
    labels = store.query("SELECT ?l WHERE {{ ?x <http://www.w3.org/2000/01/rdf-schema#label> ?l }} LIMIT 1")
    label = next((str(row[0].value) for row in labels), "name")
    seed = next(iter(store.quads_for_pattern(None, None, None, None))).subject.value
    started = time.perf_counter()
    ready(gateway.search_entities, label, limit=5)
    ready(gateway.describe_schema)
    ready(gateway.bfs_query, seeds=[gateway.ids.to_id(seed)], max_hops=2, topology_only=True)
    for thread in threading.enumerate():  # a memo hands its memory back after its answer: read after that
        if thread.name.startswith("bfsql-memo"):
            thread.join()
    found.update(calls_s=time.perf_counter() - started, calls=rss() - before)
found["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps(found))
"""


def measure_serving(path: Path, *, gateway: bool, root: Path = ROOT) -> dict[str, float]:
    """One serving measurement in a fresh child, importing the gateway from `root`."""
    code = _SERVING_CHILD.format(root=str(root), path=str(path), gateway=gateway)
    # Run outside any checkout, so the child imports `root`'s gateway and no other.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def serving(files: Sequence[tuple[str, Path]], baseline: Path | None = None) -> list[str]:
    """The serving table: per file the bare store, then the gateway (the `baseline`
    checkout's first, if given), in fresh child processes."""
    lines = [
        SERVING,
        "",
        ("Each in a fresh child process, the bare store and the gateway one after the other per graph "
         "(bench/loads.py `--serving`). *Bare*: `pyoxigraph.Store().load(FILE)`, the store's own in-memory floor. "
         "*Gateway*: `Gateway.open(FILE)`, resident memory added after the open, then after a search_entities "
         "(a label of the graph), a describe_schema and a 2-hop topology_only bfs_query; *peak*: the highest "
         "resident set above the start."),
        "",
        *([f"*Baseline*: the gateway of an older checkout (`--baseline {baseline.name}`), after the same calls, "
           "measured between the two.", ""] if baseline is not None else []),
        ("| graph | quads | bare B/quad | gateway open B/quad | after the calls B/quad | after / bare "
         f"| peak B/quad | open s | calls s |{' baseline after the calls B/quad | baseline / bare |' * bool(baseline)}"),
        f"|---|---|---|---|---|---|---|---|---|{'---|---|' * bool(baseline)}",
    ]
    worst = 0.0
    for name, path in files:
        bare = measure_serving(path, gateway=False)
        old = measure_serving(path, gateway=True, root=baseline) if baseline is not None else None
        served = measure_serving(path, gateway=True)
        quads = served["quads"]
        ratio = served["calls"] / bare["open"]
        worst = max(worst, ratio)
        print(f"  {name}: bare {bare['open'] / quads:.0f} B/quad, gateway {served['calls'] / quads:.0f} "
              f"({ratio:.2f}x)" + (f", baseline {old['calls'] / quads:.0f}" if old is not None else ""), flush=True)
        lines.append(
            f"| {name} | {quads:,} | {bare['open'] / quads:.0f} | {served['open'] / quads:.0f} "
            f"| {served['calls'] / quads:.0f} | {ratio:.2f}× | {served['peak'] / quads:.0f} "
            f"| {served['open_s']:.1f} | {served['calls_s']:.1f} |"
            + (f" {old['calls'] / quads:.0f} | {old['calls'] / bare['open']:.2f}× |" if old is not None else "")
        )
    verdict = report.record("loading", f"in-memory serving ≤ {MAX_SERVING_RATIO}× the bare store's bytes a quad",
                            f"at most {worst:.2f}×", worst <= MAX_SERVING_RATIO)
    return [*lines, "", f"- in-memory serving ≤ {MAX_SERVING_RATIO}× the bare store: at most {worst:.2f}× — {verdict}", ""]


def graphs(names: Sequence[str]) -> list[tuple[str, Path]]:
    """The named graphs' files, made (and cached) where they are not yet."""
    from bench import floors
    from support import datasets

    cache = ROOT / "bench" / ".cache"
    made: dict[str, Callable[[], tuple[str, Path]]] = {
        "typed-1M": lambda: ("typed 1M relationships", floors.generate(1_000_000, reified=False, typed=True)),
        "typed-3M": lambda: ("typed 3M relationships", floors.generate(3_000_000, reified=False, typed=True)),
        "hpo": lambda: ("HPO annotations", datasets.prepare("hpo-annotations", cache)),
        "ncbitaxon": lambda: ("NCBITaxon", datasets.prepare("ncbitaxon", cache)),
    }
    return [made[name]() for name in names]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serving", action="store_true", help="only the serving table (the rest of the section kept)")
    parser.add_argument("--graphs", default="typed-1M,typed-3M,hpo,ncbitaxon", help="comma-separated graphs for --serving")
    parser.add_argument("--baseline", type=Path, help="an older checkout (its gateway/, queries/, vocab/, data/), measured beside")
    report.output_arguments(parser, ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args(argv)
    if not args.serving:
        parser.error("the whole stage runs from `python -m bench --only loads`; here, --serving")
    baseline = args.baseline.resolve() if args.baseline is not None else None
    if baseline is not None and not (baseline / "gateway" / "__init__.py").is_file():
        parser.error(f"--baseline {baseline}: no gateway/ package in it")
    table = "\n".join(serving(graphs(args.graphs.split(",")), baseline))
    print(table)
    if not args.no_write:
        old = args.output.read_text(encoding="utf-8") if args.output.is_file() else ""
        section = re.search(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", old, re.DOTALL | re.MULTILINE)
        kept = section.group(0).split(SERVING)[0].rstrip("\n") if section else SECTION
        report.write_section(args.output, SECTION, f"{kept}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
