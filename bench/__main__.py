"""`python -m bench [--quick]`: the bfs_query benchmark (see bench/README.md)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import pyoxigraph as ox

from bench import bfs, data, report

HERE = Path(__file__).parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100k triples, 3 seeds a class, 2 repetitions (~1 min)")
    parser.add_argument("--triples", type=int, help="triples per graph (default 1,000,000; 100,000 with --quick)")
    parser.add_argument("--output", type=Path, help="where to write the report "
                        "(default bench/RESULTS.md; bench/out/RESULTS-quick.md with --quick)")
    args = parser.parse_args(argv)
    n_triples = args.triples or (100_000 if args.quick else 1_000_000)
    per_class, reps, seconds = (3, 2, 1.0) if args.quick else (5, 5, 30.0)
    output = args.output or (HERE / "out" / "RESULTS-quick.md" if args.quick else HERE / "RESULTS.md")
    command = "PYTHONPATH=. python -m bench" + "".join(f" {shlex.quote(a)}" for a in sys.argv[1:] if argv is None)

    started = time.perf_counter()
    infos: list[report.GraphInfo] = []
    results: list[bfs.Result] = []
    for spec in (data.GraphSpec("plain", False, n_triples), data.GraphSpec("reified", True, n_triples)):
        graph = data.load(spec)
        seeds = data.pick_seeds(graph.degrees, per_class)
        runner = bfs.Runner(graph)
        first_call_s = runner.first_call(seeds["median"][0])
        infos.append(report.GraphInfo(
            name=spec.name,
            lines=_lines(spec.path),
            quads=len(graph.store),
            entities=graph.entities,
            statements=_count(graph.store, "?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t")
            if spec.reified else None,
            generate_s=graph.generate_s,
            load_s=graph.load_s,
            first_call_s=first_call_s,
            seeds={c: [(n, int(graph.degrees[n])) for n in seeds[c]] for c in data.SEED_CLASSES},
        ))
        print(f"{spec.name}: {len(graph.store):,} quads, loaded in {graph.load_s:.1f} s; "
              f"first bfs_query {first_call_s:.2f} s; seeds {seeds}", flush=True)
        for scenario in bfs.SCENARIOS:
            results.append(bfs.measure(runner, scenario, seeds[scenario.seed_class], reps=reps, seconds=seconds))
        del runner, graph

    elapsed_s = time.perf_counter() - started
    print()
    print(report.table(results))
    report.write(output, command=command, quick=args.quick, infos=infos, results=results,
                 reps=reps, seconds=seconds, elapsed_s=elapsed_s)
    print(f"\nwrote {output} ({elapsed_s:.0f} s)")
    return 0


def _lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def _count(store: ox.Store, pattern: str) -> int:
    rows = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}")
    return int(next(iter(rows))[0].value)  # type: ignore[arg-type,index,union-attr]


if __name__ == "__main__":
    raise SystemExit(main())
