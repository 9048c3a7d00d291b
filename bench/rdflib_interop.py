"""rdflib interop: what the `rdflib` extra costs, how fast an rdflib graph opens, and how fast
answers become RDF.

    PYTHONPATH=. python bench/rdflib_interop.py                  # print, update bench/RESULTS.md
    PYTHONPATH=. python bench/rdflib_interop.py --triples 20000 --no-write

- the extra: installed size of rdflib and pyparsing (what `pip install ".[rdflib]"` adds),
  and `import rdflib`'s cumulative time (`python -X importtime`, median of 5 fresh processes);
- opening: rdflib's parse, then `Gateway.open(graph)` (the term-by-term copy and profile
  detection) beside `Gateway.open(file)`, for the largest Wikidata export (Q42.ttl, when the
  shared data is beside the checkout) and generated graphs: plain N-Triples and the same
  statements in the reification shape (`support.synth.power_law_ntriples`, seed 7);
- answers: `to_rdflib` and `to_oxigraph` of a full 2-hop walk with the `Settings` caps
  from the generated graphs' busiest node.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import rdflib

from bench.report import output_arguments, publish
from gateway import Gateway
from gateway.profiles.reification import native_to_reification
from support.synth import power_law_ntriples

HERE = Path(__file__).resolve().parent
SECTION = "## rdflib interop"
Q42 = HERE.parent.parent / "shared" / "data" / "wikidata" / "Q42.ttl"


def timed(action: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The median seconds of `repeat` runs, and the last run's result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def installed_mib(*distributions: str) -> float:
    size = 0
    for name in distributions:
        for file in importlib.metadata.distribution(name).files or ():
            located = Path(str(file.locate()))
            if located.is_file():
                size += located.stat().st_size
    return size / 2**20


def import_ms(module: str, runs: int = 5) -> float:
    """Cumulative import time of `module` in a fresh interpreter, median of `runs`."""
    found = []
    for _ in range(runs):
        ran = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                             capture_output=True, text=True, check=True)
        line = next(x for x in reversed(ran.stderr.splitlines()) if x.rstrip().endswith(f"| {module}"))
        found.append(int(line.split("|")[1]) / 1000)
    return statistics.median(found)


def open_row(name: str, path: Path, fmt: str) -> tuple[str, Gateway]:
    parse_s, graph = timed(lambda: rdflib.Graph().parse(path, format=fmt), repeat=1)
    open_s, through = timed(lambda: Gateway.open(graph))
    file_s, _ = timed(lambda: Gateway.open(path, profile="auto"))
    triples = len(graph)
    row = (f"| {name} | {triples:,} | {through.profile.name} | {parse_s:.2f} | {open_s:.3f} "
           f"| {triples / open_s / 1000:,.0f}k | {file_s:.3f} |")
    return row, through


def answer_row(name: str, gateway: Gateway) -> str:
    subjects = Counter(e.subject for e in gateway.scan_query(limit=1000).edges)
    hub = min(subjects, key=lambda s: (-subjects[s], s))
    walk = gateway.bfs_query(seeds=[hub], max_hops=2, max_nodes=10_000, max_edges=50_000)
    rdflib_s, graph = timed(lambda: walk.to_rdflib(gateway))
    oxigraph_s, quads = timed(lambda: walk.to_oxigraph(gateway))
    return (f"| {name} | {walk.node_count:,} | {walk.edge_count:,} | {walk.truncated} | {len(graph):,} | {rdflib_s * 1000:.0f} "
            f"| {len(quads):,} | {oxigraph_s * 1000:.0f} |")


def measure(triples: int) -> str:
    lines = [
        SECTION, "",
        f"The extra: rdflib {rdflib.__version__} and pyparsing take {installed_mib('rdflib', 'pyparsing'):.1f} MiB "
        f"installed; `import rdflib` takes {import_ms('rdflib'):.0f} ms (the gateway's own `import gateway.api` "
        f"{import_ms('gateway.api'):.0f} ms, which never imports rdflib).", "",
        "Opening (seconds; `Gateway.open(graph)` is the copy into an in-memory store and profile detection):", "",
        "| data | triples | profile | rdflib parse | Gateway.open(graph) | triples/s | Gateway.open(file) |",
        "|---|---|---|---|---|---|---|",
    ]
    opened: list[tuple[str, Gateway]] = []
    with tempfile.TemporaryDirectory() as folder:
        if Q42.is_file():
            lines.append(open_row("Q42.ttl (Wikidata)", Q42, "turtle")[0])
        plain = Path(folder) / "plain.nt"
        plain.write_text("".join(power_law_ntriples(triples, seed=7, reified=False)), encoding="utf-8")
        row, gateway = open_row(f"generated, plain ({triples:,} lines)", plain, "nt")
        lines.append(row)
        opened.append(("plain", gateway))
        reified = Path(folder) / "reification.nt"
        native = "".join(power_law_ntriples(triples // 3, seed=7, reified=True))
        reified.write_text(native_to_reification(native), encoding="utf-8")
        row, gateway = open_row(f"generated, reification ({triples // 3:,} RDF 1.2 lines converted)", reified, "nt")
        lines.append(row)
        opened.append(("reification", gateway))
    lines += [
        "", "Answers as RDF (milliseconds): a full 2-hop walk (max_nodes 10,000, max_edges 50,000) from the "
        "most frequent subject of the first 1,000 statements scanned:", "",
        "| graph | nodes | edges | truncated | to_rdflib triples | to_rdflib ms | to_oxigraph quads | to_oxigraph ms |",
        "|---|---|---|---|---|---|---|---|",
        *(answer_row(name, gateway) for name, gateway in opened),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, default=200_000, help="lines of the generated plain graph")
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    return publish(args, SECTION, measure(args.triples))


if __name__ == "__main__":
    raise SystemExit(main())
