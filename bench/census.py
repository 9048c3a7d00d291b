"""`bfsql load` against the store's own bulk load, and the census's memory.

    PYTHONPATH=. python -m bench.census [--triples 3000000 10000000] [--reified] [--before DIR] [--no-write]

bench/floors.py's typed plain graph (Pareto-weighted endpoints over 20 predicates,
`rdf:type` on every entity) as N-Triples at each size asked; with `--reified`, its RDF 1.2
twin (each edge triple asserted and reified, its reifier with a truth status). In one fresh child process
per size: a bare `pyoxigraph.Store(DIR).bulk_load(path=FILE)`, then the whole `bfsql
load` (`gateway.loading.load_store`, its progress bar on) into another directory, side by
side; the load's own stage times are read from what it prints. The bare load is also
timed *settled*: until the store's background compaction of what it wrote is done (its
process idle for 2 s), which a process that ends at once leaves to the store's next open. In a second child the
census alone (`census_files` over the file, its entities read once as the search index
reads them), its resident memory sampled every 20 ms: *census memory* is its peak above
the resident set before it, and a byte figure per entity (an IRI with an edge triple or an
IRI type). `--before DIR` times the whole load of another copy of the package too (`git
archive COMMIT | tar -x -C DIR`), in the same child, after this one's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import report
from bench.floors import generate

HERE = Path(__file__).resolve().parent
SECTION = "## Census"
REIFIED_SECTION = "## Census of RDF 1.2 graphs"
TARGET = 1.5
"""`bfsql load` at most this multiple of the bare bulk load."""

_LOAD = """
import contextlib, io, json, os, re, sys, time
from pathlib import Path
import pyoxigraph as ox
roots, path, scratch = {roots!r}, Path({path!r}), Path({scratch!r})
store = ox.Store(str(scratch / "bare"))
load = os.getloadavg()[0]
started, cpu = time.perf_counter(), time.process_time()
store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
store.flush()
out = dict(bulk_s=time.perf_counter() - started, bulk_cpu=time.process_time() - cpu)
# The store then compacts what the bulk load wrote, in threads of its own: work a process
# that ends at once leaves to the store's next open. Timed until the process is idle for 2 s.
idle, last = 0, time.process_time()
while idle < 8:
    time.sleep(0.25)
    now = time.process_time()
    idle, last = (idle + 1 if now - last < 0.01 else 0), now
out.update(settled_s=time.perf_counter() - started - 2, settled_cpu=time.process_time() - cpu, quads=len(store))
del store
for n, root in enumerate(roots):
    for name in [m for m in sys.modules if m == "gateway" or m.startswith("gateway.")]:
        del sys.modules[name]
    sys.path.insert(0, root)
    from gateway.loading import load_store
    said = io.StringIO()
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stderr(said):
        load_store([path], scratch / f"load{{n}}", show_progress=True)
    out[f"load{{n}}_s"] = time.perf_counter() - started
    out[f"load{{n}}_cpu"] = time.process_time() - cpu
    out[f"stages{{n}}"] = [(m.group(1), float(m.group(2))) for m in re.finditer(r"^(.*?) in (\\d+) s$", said.getvalue(), re.M)]
    sys.path.remove(root)
out["loadavg"] = (load + os.getloadavg()[0]) / 2
print(json.dumps(out))
"""

_MEMORY = """
import json, os, sys, threading, time
from pathlib import Path
sys.path.insert(0, {root!r})
from gateway.engine.census import census_files

def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

before = peak = rss()
done = threading.Event()
def sample():
    global peak
    while not done.wait(0.02):
        peak = max(peak, rss())
threading.Thread(target=sample, daemon=True).start()
started, cpu = time.perf_counter(), time.process_time()
counted = census_files([Path({path!r})], memory=64 << 20)
entities = sum(1 for _ in counted.pending.tally.items() for _ in _[0])
census_s, census_cpu = time.perf_counter() - started, time.process_time() - cpu
done.set()
peak = max(peak, rss())
print(json.dumps(dict(entities=entities, census_s=census_s, census_cpu=census_cpu, memory=peak - before)))
"""


def _child(code: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def measure(path: Path, roots: list[Path]) -> dict[str, Any]:
    (HERE / ".cache").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bfsql-load-", dir=HERE / ".cache") as scratch:
        found = _child(_LOAD.format(roots=[str(r) for r in roots], path=str(path), scratch=scratch))
    return found | _child(_MEMORY.format(root=str(roots[0]), path=str(path)))


def _timed(found: dict[str, Any], name: str) -> str:
    """Wall-clock seconds (the process's CPU seconds, all its threads): on a shared machine
    the second says how much of the first was work."""
    return f"{float(found[name + '_s']):.1f} ({float(found[name + '_cpu']):.1f})"


def _stages(stages: list[tuple[str, float]]) -> str:
    return "; ".join(f"{name.replace('counted ', '').replace('made the ', '')} {s:.0f}" for name, s in stages)


def run(sizes: list[int], before: Path | None, *, reified: bool = False) -> str:
    rows, worst = [], 0.0
    for triples in sizes:
        # As bench/scale.py: a type for each entity, a second for 1 in 10; reified, 3 lines an edge.
        relationships = int(triples / ((3 if reified else 1) + 1.1 / 3))
        path = generate(relationships, reified=reified, typed=True)
        now = measure(path, [HERE.parent, *([before] if before is not None else [])])
        bulk, load = float(now["bulk_s"]), float(now["load0_s"])
        ratio, settled = load / bulk, load / float(now["settled_s"])
        worst = max(worst, ratio)
        memory, entities = float(now["memory"]) / 2**20, int(now["entities"])
        earlier = (f"{_timed(now, 'load1')} | {float(now['load1_s']) / bulk:.2f} | "
                   if before else "")
        print(f"  {triples:,} (load average {float(now['loadavg']):.1f}): bulk load {_timed(now, 'bulk')} s, "
              f"settled {_timed(now, 'settled')} s; bfsql load {_timed(now, 'load0')} s ({ratio:.2f}x, {settled:.2f}x "
              f"settled); census alone {_timed(now, 'census')} s, "
              f"{memory:,.0f} MiB over {entities:,} entities", flush=True)
        rows.append(f"| {now['quads']:,} | {entities:,} | {float(now['loadavg']):.1f} | {_timed(now, 'bulk')} | "
                    f"{_timed(now, 'settled')} | {earlier}{_timed(now, 'load0')} | {ratio:.2f} | {settled:.2f} | "
                    f"{_stages(now['stages0'])} | "
                    f"{_timed(now, 'census')} | {memory:,.0f} | {float(now['memory']) / entities:.0f} |")
    verdict = report.record("loading", f"bfsql load ≤ {TARGET}x the bulk load", f"at most {worst:.2f}x", worst <= TARGET)
    then_head = "before: bfsql load s (CPU) | x bulk | " if before is not None else ""
    return "\n".join([
        REIFIED_SECTION if reified else SECTION, "",
        (f"`python -m bench.census{' --reified' if reified else ''}` (bench/census.py): bench/floors.py's typed "
         f"{'RDF 1.2 graph (each edge triple reified, with a truth status)' if reified else 'plain graph'} as N-Triples; "
         "in one fresh "
         "process a bare `Store(DIR).bulk_load(path=FILE)` and the whole `bfsql load` (progress bar on) side by side, "
         "its stages as it prints them (s); *settled*: the bulk load until the store's own compaction of what it "
         "wrote is done (the process idle for 2 s), which a process that ends at once leaves to the store's next "
         "open (`bfsql load` returns a settled store); then, in another, the census of the file's text alone (as `bfsql load` "
         "takes it beside the bulk load) and its peak resident memory above the one before it. Seconds are wall-clock, "
         "the process's CPU seconds (all its threads) in brackets; the load average is the machine's (1 min) over the run."
         + (" *Before*: the package at the commit before (`--before`), in the same process." if before else "")), "",
        f"| quads | entities | load average | bulk load s (CPU) | settled s (CPU) | {then_head}bfsql load s (CPU) "
        "| x bulk | x settled | its stages s | census alone s (CPU) | census MiB | B/entity |",
        "|---|---|---|---|---|" + ("---|" * 2 if before is not None else "") + "---|---|---|---|---|---|---|",
        *rows, "",
        f"- bfsql load ≤ {TARGET}x the bulk load: at most {worst:.2f}x — {verdict}", "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.census", description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, nargs="+", default=[3_000_000, 10_000_000])
    parser.add_argument("--reified", action="store_true", help="the RDF 1.2 graph: every edge reified")
    parser.add_argument("--before", type=Path, help="another copy of the package, its whole load timed too")
    report.output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    return report.publish(args, REIFIED_SECTION if args.reified else SECTION,
                          run(args.triples, args.before, reified=args.reified))


if __name__ == "__main__":
    raise SystemExit(main())
