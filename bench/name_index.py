"""The name index's build from a loaded store: its time, and its memory as the graph grows.

    PYTHONPATH=. python -m bench.name_index [--triples 1000000 3000000 10000000] [--before DIR] [--no-write]

bench/scale.py's graph (bench/floors.py's typed plain graph with an `rdfs:label` on every
entity) at each size asked, loaded by `bfsql load` (its seconds, its peak resident set as
the kernel keeps it, the name index's stage as it prints it). Then, in a fresh child
process, the store opened read-only, its census taken from the store, and the name index
built from it into a new file (`SearchIndex.build`, as `bfsql load` makes it): seconds
(CPU seconds in brackets) and the peak resident memory above the one before the build,
sampled every 20 ms, in all and per entity indexed. `--before DIR` loads and builds with
another copy of the package too (`git archive COMMIT | tar -x -C DIR`), each right after
this one's, so that both meet the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import report
from bench.floors import generate
from bench.scale import relationships_for, write_labels

HERE = Path(__file__).resolve().parent
SECTION = "## Name index"

_BUILD = """
import json, os, sys, threading, time
sys.path.insert(0, {root!r})
from pathlib import Path
import pyoxigraph as ox
from gateway.api import profile_named
from gateway.backends.embedded import EmbeddedBackend
from gateway.engine.census import census
from gateway.engine.context import GraphContext
from gateway.engine.search import SearchIndex

def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

backend = EmbeddedBackend(ox.Store.read_only({store!r}))
context = GraphContext(backend, profile_named("native", backend)(backend))
counted = census(context)
before = peak = rss()
done = threading.Event()
def sample():
    global peak
    while not done.wait(0.02):
        peak = max(peak, rss())
threading.Thread(target=sample, daemon=True).start()
started, cpu = time.perf_counter(), time.process_time()
index = SearchIndex.build(context, Path({path!r}), counted=counted)
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
done.set()
peak = max(peak, rss())
entities = index._db.execute("SELECT count(*) FROM entity").fetchone()[0]
print(json.dumps(dict(seconds=seconds, cpu=cpu, memory=peak - before, entities=entities, load=os.getloadavg()[0])))
"""


def build(root: Path, store: Path, scratch: Path) -> dict[str, Any]:
    path = scratch / "index.sqlite"
    path.unlink(missing_ok=True)
    code = _BUILD.format(root=str(root), store=str(store), path=str(path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def load(root: Path, files: list[Path], store: Path) -> dict[str, Any]:
    """`bfsql load` of `files` by the package at `root`: seconds, peak bytes resident, the name index's seconds."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); from gateway.surfaces.cli import main; sys.exit(main())"
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code, "load", "--store", str(store), *map(str, files)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    said = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)  # the kernel's high-water mark of the process comes with it
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"bfsql load failed:\n{said[-3000:]}")
    stage = re.search(r"made the name index in (\d+) s", said)
    return {"seconds": time.perf_counter() - started, "peak": usage.ru_maxrss * 1024,
            "index_s": float(stage.group(1)) if stage else float("nan")}


def _loaded(found: dict[str, Any]) -> str:
    return f"{found['seconds']:.0f} | {found['index_s']:.0f} | {found['peak'] / 2**30:.2f}"


def _cell(found: dict[str, Any]) -> str:
    return (f"{found['seconds']:.1f} ({found['cpu']:.1f}) | {found['memory'] / 2**20:,.0f} | "
            f"{found['memory'] / found['entities']:,.0f}")


def run(sizes: list[int], before: Path | None) -> str:
    rows = []
    for triples in sizes:
        relationships = relationships_for(triples)
        files = [generate(relationships, reified=False, typed=True), write_labels(max(relationships // 3, 10))]
        (HERE / ".cache").mkdir(exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="bfsql-names-", dir=HERE / ".cache"))
        try:
            loads = [(root, scratch / f"store{n}") for n, root in enumerate([HERE.parent, *([before] if before else [])])]
            loaded = [load(root, files, store) for root, store in loads]
            store = scratch / "store0" / "store"
            now = build(HERE.parent, store, scratch)
            then = build(before, store, scratch) if before is not None else None
            earlier = (f"{_loaded(loaded[1])} | {_cell(then)} | {now['seconds'] / then['seconds']:.2f} | "
                       if then else "")
            print(f"  {triples:,}: {now['entities']:,} entities indexed; load {_loaded(loaded[0])}; build {_cell(now)}"
                  + (f"; before: load {_loaded(loaded[1])}; build {_cell(then)}" if then else ""), flush=True)
            rows.append(f"| {triples:,} | {now['entities']:,} | {(now['load'] + (then or now)['load']) / 2:.1f} | "
                        f"{earlier}{_loaded(loaded[0])} | {_cell(now)} |")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    then_head = ("before: load s | before: index stage s | before: load peak GiB | before: build s (CPU) | "
                 "before: build MiB | before: B/entity | build now / before | " if before else "")
    return "\n".join([
        SECTION, "",
        ("`python -m bench.name_index` (bench/name_index.py): bench/scale.py's graph (typed, a label on every entity), "
         "loaded by `bfsql load` (seconds, the name index's stage as it prints it, the loader's peak resident set); "
         "then in a fresh process each the store opened read-only, its census taken, and "
         "the name index built from it (`SearchIndex.build`): seconds (CPU seconds), and the peak resident memory "
         "above the one before the build (sampled every 20 ms), in all and per entity indexed."
         + (" *Before*: another copy of the package (`--before`), its load and build each right after this one's."
            if before else "")),
        "",
        f"| triples | entities indexed | load average | {then_head}load s | index stage s | load peak GiB | "
        "build s (CPU) | build MiB | B/entity |",
        "|---|---|---|" + ("---|" * 7 if before else "") + "---|---|---|---|---|---|",
        *rows, "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.name_index", description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, nargs="+", default=[1_000_000, 3_000_000, 10_000_000])
    parser.add_argument("--before", type=Path, help="another copy of the package, its build measured too")
    report.output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    return report.publish(args, SECTION, run(args.triples, args.before))


if __name__ == "__main__":
    raise SystemExit(main())
