"""Opening a reified graph and asking the first question, against loading it bare.

    PYTHONPATH=. python bench/first_call.py            # the 1M-line reified graph; updates RESULTS.md
    PYTHONPATH=. python bench/first_call.py --no-write

Side by side in one process, interleaved, `--rounds` times each: a bare pyoxigraph
`Store.bulk_load` of the file, and `Gateway.open(file)` followed by its first
`bfs_query` (1 hop from a subject of the file, topology only), which needs the
reifier-only statements (found by a second thread parsing the file beside the load,
gateway/backends/reifiers.py). The target (issue: no first-call stall) is a median ratio
of at most 1.5.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pyoxigraph as ox

from bench import data

HERE = Path(__file__).resolve().parent
SECTION = "## First call on a reified graph"
TARGET = 1.5


def bare(path: Path) -> float:
    started = time.perf_counter()
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
    return time.perf_counter() - started


def gateway_first_call(path: Path, seed: str) -> float:
    from gateway import Gateway

    started = time.perf_counter()
    gateway = Gateway.open(path)
    gateway.bfs_query(seeds=[gateway.context.ids.to_id(seed)], max_hops=1, topology_only=True)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish, record

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="the reified graph's size (bench/data.py)")
    parser.add_argument("--rounds", type=int, default=3)
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    path, _ = data.ntriples(data.GraphSpec("reified", True, args.lines))
    with path.open() as lines:
        seed = lines.readline().split(" ", 1)[0].strip("<>")
    loads, firsts = [], []
    for _ in range(args.rounds):
        loads.append(bare(path))
        firsts.append(gateway_first_call(path, seed))
    ratio = statistics.median(firsts) / statistics.median(loads)
    verdict = record("first call", f"open + first bfs_query on the {args.lines:,}-line reified graph ≤ {TARGET}× a bare "
                     "bulk load", f"{ratio:.2f}×", ratio <= TARGET)
    text = "\n".join([
        SECTION, "",
        f"`bench/first_call.py` on `{path.name}` ({args.lines:,} lines), {args.rounds} interleaved rounds: a bare "
        "`Store.bulk_load`, and `Gateway.open` + the first `bfs_query` (1 hop, topology only), which reads the "
        "reifier-only statements (found by a thread parsing the file beside the load: `gateway/backends/reifiers.py`).", "",
        "| bare bulk load s | open + first bfs_query s | ratio | target | |",
        "|---:|---:|---:|---:|---|",
        f"| {statistics.median(loads):.2f} ({min(loads):.2f}–{max(loads):.2f}) | "
        f"{statistics.median(firsts):.2f} ({min(firsts):.2f}–{max(firsts):.2f}) | {ratio:.2f}× | ≤ {TARGET}× | {verdict} |",
        "",
    ])
    return publish(args, SECTION, text)


if __name__ == "__main__":
    sys.exit(main())
