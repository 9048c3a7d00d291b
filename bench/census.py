"""The census `bfsql load` takes after its bulk load: seconds and memory against the bulk load itself.

    PYTHONPATH=. python -m bench.census [--triples 1000000 3000000] [--before DIR] [--no-write]

bench/floors.py's typed plain graph (Pareto-weighted endpoints over 20 predicates,
`rdf:type` on every entity) at each size asked, bulk-loaded into an on-disk store as
`bfsql load` does; then the census (gateway/engine/census.py) over it, its entities read
once as the search index reads them. Each size in a fresh child process, its resident
memory sampled every 20 ms: *census memory* is the peak during the census above the
resident set after the bulk load, and a byte figure per entity (an entity: an IRI with an
edge triple or an IRI type). `--before DIR` measures another copy of the package too
(`git archive COMMIT | tar -x -C DIR`: the census before a change), side by side.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import report
from bench.floors import generate

HERE = Path(__file__).resolve().parent
SECTION = "## Census"
TARGET = 0.5
"""Census seconds at most this multiple of the bulk load's (so `bfsql load` can stay near 1.5x)."""

_CHILD = """
import json, os, shutil, sys, threading, time
from pathlib import Path
sys.path.insert(0, {root!r})
import pyoxigraph as ox
from gateway.backends.embedded import EmbeddedBackend
from gateway.engine.census import census
from gateway.engine.context import GraphContext
from gateway.profiles.native import NativeProfile

def rss():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

directory = Path({scratch!r})
store = ox.Store(str(directory / "store"))
started = time.perf_counter()
store.bulk_load(path={path!r}, format=ox.RdfFormat.N_TRIPLES)
store.flush()
bulk_s = time.perf_counter() - started
quads = len(store)
context = GraphContext(backend := EmbeddedBackend(store), NativeProfile(backend))  # its prefix tables are no census's
before = peak = rss()
done = threading.Event()
def sample():
    global peak
    while not done.wait(0.02):
        peak = max(peak, rss())
threading.Thread(target=sample, daemon=True).start()
started = time.perf_counter()
counted = census(context)
if hasattr(counted, "entities"):
    entities = sum(1 for _ in counted.entities)  # read once, as the search index reads them
else:
    entities = len(counted.degrees.keys() | counted.entity_types.keys())
census_s = time.perf_counter() - started
done.set()
peak = max(peak, rss())
print(json.dumps(dict(quads=quads, entities=entities, bulk_s=bulk_s, census_s=census_s, before=before, peak=peak)))
"""


def measure(path: Path, root: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bfsql-census-", dir=HERE / ".cache") as scratch:
        code = _CHILD.format(root=str(root), path=str(path), scratch=scratch)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run(sizes: list[int], before: Path | None) -> str:
    rows, worst = [], 0.0
    for triples in sizes:
        relationships = int(triples / (1 + 1.1 / 3))  # as bench/scale.py: a type for each entity, a second for 1 in 10
        path = generate(relationships, reified=False, typed=True)
        now = measure(path, HERE.parent)
        then = measure(path, before) if before is not None else None
        ratio = now["census_s"] / now["bulk_s"]
        worst = max(worst, ratio)
        memory = (now["peak"] - now["before"]) / 2**20
        earlier = (f"{then['census_s']:.1f} | {then['census_s'] / then['bulk_s']:.2f} | "
                   f"{(then['peak'] - then['before']) / 2**20:,.0f} | {(then['peak'] - then['before']) / then['entities']:.0f} | "
                   if then is not None else "")
        print(f"  {triples:,}: bulk load {now['bulk_s']:.1f} s, census {now['census_s']:.1f} s ({ratio:.2f}x), "
              f"{memory:,.0f} MiB over {now['entities']:,} entities", flush=True)
        rows.append(f"| {now['quads']:,} | {now['entities']:,} | {now['bulk_s']:.1f} | {earlier}{now['census_s']:.1f} | "
                    f"{ratio:.2f} | {memory:,.0f} | {(now['peak'] - now['before']) / now['entities']:.0f} |")
    verdict = report.record("loading", f"census ≤ {TARGET}x the bulk load", f"at most {worst:.2f}x", worst <= TARGET)
    then_head = "before: census s | x bulk | MiB | B/entity | " if before is not None else ""
    return "\n".join([
        SECTION, "",
        ("`python -m bench.census` (bench/census.py): bench/floors.py's typed plain graph bulk-loaded into an on-disk "
         "store, then the census over it in the same fresh process (entities read once, as the search index reads "
         "them); memory is the peak resident set during the census above the one after the bulk load."
         + (" *Before*: the package at the commit before the census read text (`--before`)." if before else "")), "",
        f"| quads | entities | bulk load s | {then_head}census s | x bulk | census MiB | B/entity |",
        "|---|---|---|" + ("---|" * 4 if before is not None else "") + "---|---|---|---|",
        *rows, "",
        f"- census ≤ {TARGET}x the bulk load: at most {worst:.2f}x — {verdict}", "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.census", description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, nargs="+", default=[1_000_000, 3_000_000])
    parser.add_argument("--before", type=Path, help="another copy of the package, measured too")
    report.output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    return report.publish(args, SECTION, run(args.triples, args.before))


if __name__ == "__main__":
    raise SystemExit(main())
