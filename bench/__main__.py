"""`python -m bench [--quick]`: every benchmark scenario in one run, and `bench/RESULTS.md`.

Stages, in order (`--only` picks some): bfs (the scenario table: gateway, raw SPARQL,
one query per node, CSR floor), sizes (100k / 1M / 5M triples), real (NCBITaxon
closure, HPO annotations), primitives (shortest_path, intersect_subgraphs,
scan_query, closure, communities), loads (time and memory per triple), remote
(`oxigraph serve`), http (`bfsql serve`, 1 and 2 workers), reliability (hostile requests
against `bfsql serve`), medlit (response sizes), conversation (the book's two questions as an
agent's MCP conversation, in characters, beside the commit before the agent-experience work),
first_call (open + first bfs_query on the 1M-line reified graph against a bare bulk load),
floors (plain and RDF 1.2 walks against the least per-hop SPARQL, in process and over
`oxigraph serve`), latency (the gateway against one request per node, 5 in flight, behind
a proxy adding 0, 5 and 25 ms a request), rdflib (the extra's size and import time, opening
rdflib graphs, answers as rdflib graphs and pyoxigraph quads), tabulate (against the same
question in hand-written SPARQL, in process and over `oxigraph serve`), one_trip (2-hop walks in
one request against hop by hop behind a proxy adding 0 and 25 ms a request), questions (questions on
published vocabularies through the tools, against SPARQL: score and characters read).
Data is prepared from packages and cached in bench/.cache/. The full run rewrites
bench/RESULTS.md; a quick run writes bench/out/RESULTS-quick.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench import report

HERE = Path(__file__).parent
CACHE = HERE / ".cache"


def _bfs(output: Path, quick: bool, command: str) -> None:
    from bench import walks

    walks.run_bfs(output, quick=quick, command=command)


def _sizes(output: Path, quick: bool, command: str) -> None:
    from bench import walks

    walks.run_sizes(output, quick=quick)


def _real(output: Path, quick: bool, command: str) -> None:
    from bench import real

    real.run(output, quick=quick)


def _primitives(output: Path, quick: bool, command: str) -> None:
    from bench import primitives

    primitives.run(output, quick=quick)


def _loads(output: Path, quick: bool, command: str) -> None:
    from bench import data, loads
    from support import datasets

    sizes = (100_000,) if quick else (1_000_000, 5_000_000)
    files = [(f"plain {n // 1000}k" if n < 1_000_000 else f"plain {n // 1_000_000}M", data.ntriples(data.GraphSpec("plain", False, n))[0])
             for n in sizes]
    files.append(("reified 1M" if not quick else "reified 100k",
                  data.ntriples(data.GraphSpec("reified", True, 100_000 if quick else 1_000_000))[0]))
    if not quick:
        files.append(("NCBITaxon", datasets.prepare("ncbitaxon", CACHE)))
    files.append(("HPO annotations", datasets.prepare("hpo-annotations", CACHE)))
    loads.run(output, files, scratch=CACHE / "scratch")


def _remote(output: Path, quick: bool, command: str) -> None:
    from bench import remote

    remote.run(output, quick=quick)


def _http(output: Path, quick: bool, command: str) -> None:
    from bench import http_load

    argv = ["--output", str(output)] + (["--quick"] if quick else ["--seconds", "10", "--rounds", "200"])
    http_load.main(argv)


def _reliability(output: Path, quick: bool, command: str) -> None:
    from bench import reliability

    reliability.run(output, quick=quick)


def _conversation(output: Path, quick: bool, command: str) -> None:
    import subprocess

    from bench import conversation

    known = subprocess.run(["git", "cat-file", "-e", f"{conversation.BASELINE}^{{commit}}"], cwd=HERE.parent,
                           capture_output=True).returncode == 0
    conversation.main(["--output", str(output), *(["--baseline", conversation.BASELINE] if known else [])])


def _first_call(output: Path, quick: bool, command: str) -> None:
    from bench import first_call

    first_call.main(["--output", str(output), *(["--lines", "100000"] if quick else [])])


def _floors(output: Path, quick: bool, command: str) -> None:
    from bench import floors

    floors.main(["--output", str(output), *(["--relationships", "60000", "--seeds", "2", "--reps", "1"] if quick else [])])


def _latency(output: Path, quick: bool, command: str) -> None:
    from bench import latency

    latency.main(["--output", str(output), *(["--delays", "0,25"] if quick else [])])


def _rdflib(output: Path, quick: bool, command: str) -> None:
    from bench import rdflib_interop

    rdflib_interop.main(["--output", str(output), *(["--triples", "20000"] if quick else [])])


def _medlit(output: Path, quick: bool, command: str) -> None:
    from bench import medlit_sizes

    medlit_sizes.main(["--output", str(output)])


def _tabulate(output: Path, quick: bool, command: str) -> None:
    from bench import tabulate

    tabulate.main(["--output", str(output), *(["--items", "2000", "--reps", "3"] if quick else [])])


def _one_trip(output: Path, quick: bool, command: str) -> None:
    from bench import one_trip

    one_trip.main(["--output", str(output), *(["--seeds", "2", "--reps", "3"] if quick else [])])


def _questions(output: Path, quick: bool, command: str) -> None:
    from bench import questions

    questions.main(["--output", str(output)])


STAGES: dict[str, Callable[[Path, bool, str], None]] = {
    "bfs": _bfs, "sizes": _sizes, "real": _real, "primitives": _primitives, "loads": _loads,
    "remote": _remote, "http": _http, "reliability": _reliability, "medlit": _medlit,
    "conversation": _conversation, "first_call": _first_call, "floors": _floors, "latency": _latency,
    "rdflib": _rdflib, "tabulate": _tabulate, "one_trip": _one_trip, "questions": _questions,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small graphs, few repetitions: a smoke run (~5 min)")
    parser.add_argument("--only", help=f"comma-separated stages (default all: {', '.join(STAGES)})")
    parser.add_argument("--output", type=Path, help="the report (default bench/RESULTS.md; bench/out/RESULTS-quick.md with --quick)")
    args = parser.parse_args(argv)
    stages = args.only.split(",") if args.only else list(STAGES)
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        parser.error(f"unknown stage(s) {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    output: Path = args.output or (HERE / "out" / "RESULTS-quick.md" if args.quick else HERE / "RESULTS.md")
    command = "python -m bench" + "".join(f" {shlex.quote(a)}" for a in (sys.argv[1:] if argv is None else argv))
    if not args.only:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(report.TITLE, encoding="utf-8")  # a full run replaces the whole report

    started = time.perf_counter()
    timings: list[tuple[str, float]] = []
    for name in stages:
        print(f"\n== {name} ==", flush=True)
        begun = time.perf_counter()
        STAGES[name](output, args.quick, command)
        timings.append((name, time.perf_counter() - begun))
    report.write_summary(output, command=command, quick=args.quick, timings=timings,
                         elapsed_s=time.perf_counter() - started)
    print(f"\nwrote {output} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
