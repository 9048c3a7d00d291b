"""bfs_query on the generated power-law graphs: the scenario table and the size sweep.

`run_bfs` measures every scenario of `bench.bfs` on the plain and reified graphs (both
budgets); `run_sizes` measures the default-budget scenarios on plain graphs of each
size, to show how the figures move with the graph.
"""

from __future__ import annotations

import gc
import statistics
import time
from pathlib import Path

import pyoxigraph as ox

from bench import bfs, data, report
from bench.bfs import DEFAULT


def _graph_info(spec: data.GraphSpec, graph: data.Graph, first_call_s: float, seeds: dict[str, list[int]]) -> report.GraphInfo:
    return report.GraphInfo(
        name=spec.name if spec.n_triples == 1_000_000 else f"{spec.name}-{spec.n_triples // 1000}k",
        lines=_lines(spec.path),
        quads=len(graph.store),
        entities=graph.entities,
        statements=_count(graph.store, "?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t") if spec.reified else None,
        generate_s=graph.generate_s,
        load_s=graph.load_s,
        first_call_s=first_call_s,
        seeds={c: [(n, int(graph.degrees[n])) for n in seeds[c]] for c in data.SEED_CLASSES},
    )


def _walk(spec: data.GraphSpec, scenarios: tuple[bfs.Scenario, ...], per_class: int, reps: int, seconds: float,
          ) -> tuple[report.GraphInfo, list[bfs.Result]]:
    graph = data.load(spec)
    seeds = data.pick_seeds(graph.degrees, per_class)
    runner = bfs.Runner.for_graph(graph)
    first_call_s = runner.first_call(seeds["median"][0])
    info = _graph_info(spec, graph, first_call_s, seeds)
    print(f"{info.name}: {len(graph.store):,} quads, loaded in {graph.load_s:.1f} s; "
          f"first bfs_query {first_call_s:.2f} s; seeds {seeds}", flush=True)
    results = [bfs.measure(runner, s, seeds[s.seed_class], reps=reps, seconds=seconds) for s in scenarios]
    for result in results:
        result.graph = info.name
    del runner, graph
    gc.collect()
    return info, results


def run_bfs(output: Path, *, quick: bool, command: str) -> None:
    """The scenario table on plain and reified graphs of 1M triples (100k when quick)."""
    n_triples = 100_000 if quick else 1_000_000
    per_class, reps, seconds = (3, 2, 1.0) if quick else (5, 3, 6.0)
    started = time.perf_counter()
    infos: list[report.GraphInfo] = []
    results: list[bfs.Result] = []
    for spec in (data.GraphSpec("plain", False, n_triples), data.GraphSpec("reified", True, n_triples)):
        info, found = _walk(spec, bfs.SCENARIOS, per_class, reps, seconds)
        infos.append(info)
        results += found
    print()
    print(report.table(results))
    report.write(output, command=command, quick=quick, infos=infos, results=results,
                 reps=reps, seconds=seconds, elapsed_s=time.perf_counter() - started)


SIZES_SECTION = "## bfs_query by graph size"


def run_sizes(output: Path, *, quick: bool) -> None:
    """Default-budget scenarios on plain graphs of 100k, 1M and 5M triples."""
    sizes = (100_000, 300_000) if quick else (100_000, 1_000_000, 5_000_000)
    scenarios = tuple(s for s in bfs.SCENARIOS if s.budget == DEFAULT)
    per_class, reps, seconds = (3, 2, 1.0) if quick else (5, 3, 4.0)
    infos: list[report.GraphInfo] = []
    rows: list[bfs.Result] = []
    for size in sizes:
        info, found = _walk(data.GraphSpec("plain", False, size), scenarios, per_class, reps, seconds)
        infos.append(info)
        rows += found
    lines = [
        SIZES_SECTION,
        "",
        ("The default-budget scenarios of the table above (max_nodes 1,000, max_edges 2,000) on plain graphs of "
         f"each size from the same generator, {per_class} seeds a class, up to {reps} repetitions each "
         "(interleaved as above)."),
        "",
        *report.graph_lines(infos)[:2 + len(infos)],
        "",
        report.table(rows),
        "",
        "gateway ms, median per scenario, by size:",
        "",
        "| hops | seeds | " + " | ".join(i.name for i in infos) + " |",
        "|---|---|" + "---|" * len(infos),
    ]
    for scenario in scenarios:
        medians = [statistics.median(r.gateway) for r in rows if r.scenario == scenario]
        lines.append(f"| {scenario.hops} | {scenario.seed_class} | " + " | ".join(f"{bfs.ms(m)}" for m in medians) + " |")
    lines.append("")
    report.write_section(output, SIZES_SECTION, "\n".join(lines))


def _lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def _count(store: ox.Store, pattern: str) -> int:
    rows = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}")
    return int(next(iter(rows))[0].value)  # type: ignore[arg-type,index,union-attr]
