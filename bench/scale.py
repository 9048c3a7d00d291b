"""Where one machine ends: a 50M-triple typed graph in an on-disk store, served by `bfsql serve DIR`.

    PYTHONPATH=. python -m bench.scale [--triples 50000000] [--seconds 30] [--no-write]

Not part of `python -m bench`: at 50M triples `bfsql load` takes tens of minutes on a
2-core machine (docs/scaling.md, "Scale run"), and the files take ~20 GB of disk.
The graph is bench/floors.py's typed plain graph (Pareto-weighted endpoints over 20
predicates, `rdf:type` on every entity) drawn at the size asked. Measured:

- `bfsql load --store DIR FILE`: seconds, triples a second, the store's bytes a triple;
- `bfsql serve DIR --on-disk`: memory (PSS of its processes) after start and after the walks;
- walks: 8 clients at once, each its own HTTP connection, calling
  `POST /v1/tools/bfs_query {"seeds": [S], "max_hops": h, "topology_only": true}` at the
  default budget for `--seconds` per hop count (1, 2, 3), seeds drawn uniformly from the
  entities (so most are of low degree, a few hubs); latency p50 / p99, calls a second,
  and the share of walks a budget cut.

The section is written into docs/scaling.md.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx2
import numpy as np

from bench import report
from bench.floors import NODE, generate
from bench.http_load import Server
from support.processes import tree_pss

HEADING = "## Scale run: one machine"
CLIENTS = 8
HERE = Path(__file__).resolve().parent


def _walks(url: str, seeds: list[str], hops: int, seconds: float) -> tuple[list[float], int, int]:
    """(latencies, calls, cut) of CLIENTS clients calling bfs_query for `seconds`."""
    latencies: list[float] = []
    cut = calls = 0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def client(number: int) -> None:
        nonlocal cut, calls
        rng = np.random.default_rng(number)
        with httpx2.Client(timeout=300) as http:
            while time.perf_counter() < stop:
                seed = seeds[int(rng.integers(len(seeds)))]
                started = time.perf_counter()
                answer = http.post(f"{url}/v1/tools/bfs_query",
                                   json={"seeds": [seed], "max_hops": hops, "topology_only": True})
                took = time.perf_counter() - started
                answer.raise_for_status()
                with lock:
                    latencies.append(took)
                    calls += 1
                    cut += bool(answer.json().get("truncated"))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, calls, cut


def measure(triples: int, seconds: float, progress: Callable[[str], None] = print) -> str:
    # floors' typed graph: relationships, then one type a third of them (entities) and a
    # second type for every 10th entity.
    relationships = int(triples / (1 + 1.1 / 3))
    started = time.perf_counter()
    path = generate(relationships, reified=False, typed=True)
    lines = sum(1 for _ in path.open("rb"))
    progress(f"  graph: {lines:,} triples in {path} ({time.perf_counter() - started:.0f} s)")
    scratch = Path(tempfile.mkdtemp(prefix="bfsql-scale-", dir=HERE / ".cache"))
    bfsql = str(Path(sys.executable).with_name("bfsql"))
    try:
        store = scratch / "store"
        started = time.perf_counter()
        # Its stage lines ("loaded ... in N s", "made the name index in N s") are kept.
        loading = subprocess.run([bfsql, "load", "--store", str(store), str(path)], check=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        load_s = time.perf_counter() - started
        stages = [line.strip() for line in loading.stderr.splitlines() if re.search(r" in \d+ s$", line)]
        progress("  " + "; ".join(stages))
        size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
        progress(f"  load: {load_s:.0f} s, {lines / load_s:,.0f} triples/s, {size / lines:.0f} bytes a triple")
        server = Server(store, 1, "--on-disk")
        try:
            server.wait_ready()
            memory_start = tree_pss(server.process.pid) / 2**20
            entities = relationships // 3
            seeds = [f"{NODE}{n}" for n in np.random.default_rng(1).integers(0, entities, 2000)]
            rows = []
            for hops in (1, 2, 3):
                _walks(server.url, seeds[:50], hops, 2)  # warm-up
                latencies, calls, cut = _walks(server.url, seeds, hops, seconds)
                quantiles = statistics.quantiles(latencies, n=100)
                rows.append(f"| {hops} | {calls:,} | {calls / seconds:.1f} | {quantiles[49] * 1e3:.0f} | "
                            f"{quantiles[98] * 1e3:.0f} | {cut / calls:.0%} |")
                progress(f"  {hops} hops: {calls} calls, p50 {quantiles[49] * 1e3:.0f} ms, p99 {quantiles[98] * 1e3:.0f} ms")
            memory_end = tree_pss(server.process.pid) / 2**20
        finally:
            server.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return "\n".join([
        HEADING, "",
        f"`python -m bench.scale --triples {triples} --seconds {seconds:g}` (bench/scale.py), on the 2-core, 24 GiB "
        f"machine the benchmarks run on: bench/floors.py's typed plain graph drawn at {lines:,} triples "
        f"({relationships:,} relationships over {relationships // 3:,} entities, each typed).", "",
        f"- `bfsql load`: {load_s:.0f} s, {lines / load_s:,.0f} triples a second ({'; '.join(stages)}); the store "
        f"holds {size / 2**30:.1f} GiB, {size / lines:.0f} bytes a triple.",
        f"- `bfsql serve DIR --on-disk`: answering after {server.ready_s:.1f} s; memory (PSS of its processes) "
        f"{memory_start:,.0f} MiB after start, {memory_end:,.0f} MiB after the walks (the store's pages are the OS's "
        "cache, not counted).",
        f"- walks: {CLIENTS} clients at once, {seconds:g} s per row, `bfs_query` at the default budget (1,000 nodes, "
        "2,000 edges), topology_only, seeds drawn uniformly from the entities:", "",
        "| hops | calls | calls a second | p50 ms | p99 ms | cut by a budget |",
        "|---|---|---|---|---|---|",
        *rows, "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, default=50_000_000)
    parser.add_argument("--seconds", type=float, default=30)
    report.output_arguments(parser, HERE.parent / "docs" / "scaling.md")
    args = parser.parse_args(argv)
    return report.publish(args, HEADING, measure(args.triples, args.seconds))


if __name__ == "__main__":
    raise SystemExit(main())
