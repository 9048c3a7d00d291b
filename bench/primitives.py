"""Benchmarks of the primitives beyond bfs_query, side by side with the store's own cost.

    PYTHONPATH=. python -m bench.primitives [--quick]

- transitive_closure_query on a generated 12-level hierarchy of 100,000 members, against
  the raw SPARQL property path (`p+`) it stands on;
- shortest_path, intersect_subgraphs and scan_query paging on the 1M-triple power-law
  graph, each beside the raw SPARQL it issued and the CSR floor;
- communities on a 100,000-edge graph: time and peak memory (in a child process).

Rewrites the "Primitives" section of bench/RESULTS.md (`python -m bench` runs it with the rest).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from bench.bfs import Runner
from bench.report import ratio, record, spread, write_section
from gateway import Gateway, Settings

DEFAULT_NODES, DEFAULT_EDGES = Settings.default_max_nodes, Settings.default_max_edges

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
TAXON = "http://hierarchy.example/t/"


def hierarchy(members: int, levels: int, seed: int = 1) -> tuple[str, list[int]]:
    """N-Triples of a random tree: level sizes grow geometrically to `members` in total."""
    rng = random.Random(seed)
    ratio = 1.0
    while sum(ratio**level for level in range(1, levels + 1)) < members:
        ratio += 0.01
    sizes = [1] + [max(1, round(ratio**level)) for level in range(1, levels + 1)]
    lines, previous, number = [], [0], 1
    for size in sizes[1:]:
        current = list(range(number, number + size))
        for node in current:
            lines.append(f"<{TAXON}{node}> <{SUBCLASS}> <{TAXON}{rng.choice(previous)}> .")
        previous, number = current, number + size
    return "\n".join(lines), sizes


def timed(call: object, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return times


def bench_closure(repeat: int, members: int) -> dict[str, object]:
    text, sizes = hierarchy(members, 12)
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store, prefixes={"t": TAXON})
    raw_query = f"SELECT DISTINCT ?x WHERE {{ ?x <{SUBCLASS}>+ <{TAXON}0> . FILTER(isIRI(?x)) }} LIMIT 500001"

    def raw() -> None:
        store.query(raw_query, use_default_graph_as_union=True).serialize(format=ox.QueryResultsFormat.TSV)  # type: ignore[union-attr]

    def tool() -> None:
        result = gateway.transitive_closure_query(start="t:0", predicate=SUBCLASS, direction="in", limit=500_000)
        assert result.count == sum(sizes) - 1 and not result.truncated

    tool(), raw()  # warm caches
    gateway_times, raw_times = [], []
    for _ in range(repeat):  # interleaved, so both see the same machine
        gateway_times += timed(tool, 1)
        raw_times += timed(raw, 1)
    return {
        "members": sum(sizes) - 1, "levels": len(sizes) - 1,
        "gateway_ms": 1000 * statistics.median(gateway_times), "raw_ms": 1000 * statistics.median(raw_times),
        "ratio": ratio(gateway_times, raw_times),
    }


@dataclass
class SideBySide:
    """One primitive on the generated graph: gateway, the raw SPARQL it issued, the CSR floor."""

    scenario: str
    outcome: str
    gateway: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)


def _side_by_side(runner: Runner, scenario: str, cases: list[tuple[Callable[[], object], Callable[[], object] | None]],
                  describe: Callable[[list[object]], str], reps: int) -> SideBySide:
    """Per case: two untimed calls, the second capturing its queries (the first fills the
    gateway's caches, such as the graph's vocabulary), then `reps` rounds of (gateway,
    raw replay, floor) in rotating order."""
    row = SideBySide(scenario, "")
    queries, outcomes = [], []
    for call, _ in cases:
        call()
        runner.log.clear()
        outcomes.append(call())
        queries.append(list(runner.log))
    for rep in range(reps):
        for i, ((call, floor), texts) in enumerate(zip(cases, queries, strict=True)):
            steps = ["gateway", "raw", "floor"]
            shift = (rep + i) % 3
            for step in steps[shift:] + steps[:shift]:
                started = time.perf_counter()
                if step == "gateway":
                    call()
                    row.gateway.append(time.perf_counter() - started)
                elif step == "raw":
                    row.raw.append(runner.raw(texts))
                elif floor is not None:
                    floor()
                    row.floor.append(time.perf_counter() - started)
    row.outcome = describe(outcomes)
    return row


def bench_generated(quick: bool) -> tuple[int, list[SideBySide]]:
    """shortest_path, intersect_subgraphs and scan_query paging on the plain generated graph."""
    from bench import data

    spec = data.GraphSpec("plain", False, 100_000 if quick else 1_000_000)
    graph = data.load(spec)
    runner = Runner.for_graph(graph)
    gw, csr = runner.gw, runner.csr
    present = np.flatnonzero(graph.degrees)
    rng = np.random.default_rng(3)
    reps = 2 if quick else 3

    pairs = [tuple(int(x) for x in rng.choice(present, 2, replace=False)) for _ in range(10 if quick else 30)]
    paths = _side_by_side(
        runner, f"shortest_path, {len(pairs)} random pairs, max_hops 6",
        [(lambda a=a, b=b: gw.shortest_path(source=f"e:{a}", target=f"e:{b}", max_hops=6),
          lambda a=a, b=b: csr.distance(a, b, 6)) for a, b in pairs],
        lambda found: (f"{sum(r.found for r in found)}/{len(found)} found, median "  # type: ignore[attr-defined]
                       f"{statistics.median([r.hops for r in found if r.found]):g} hops"),  # type: ignore[attr-defined]
        reps,
    )
    for (a, b), result in zip(pairs, (gw.shortest_path(source=f"e:{a}", target=f"e:{b}", max_hops=6) for a, b in pairs)):
        assert (result.hops if result.found else None) == csr.distance(a, b, 6), (a, b)  # the floor answers the same

    seeds = data.pick_seeds(graph.degrees, 6)
    median = seeds["median"]
    couples = [(median[i], median[i + 1]) for i in range(0, len(median) - 1, 2)]

    def floor_intersect(a: int, b: int) -> set[str]:
        near_a, _ = csr.bfs(a, 2, DEFAULT_NODES, DEFAULT_EDGES)
        near_b, _ = csr.bfs(b, 2, DEFAULT_NODES, DEFAULT_EDGES)
        return set(near_a) & set(near_b)

    intersect = _side_by_side(
        runner, f"intersect_subgraphs, {len(couples)} pairs of median-degree seeds, k 2, topology only",
        [(lambda a=a, b=b: gw.intersect_subgraphs(seeds=[f"e:{a}", f"e:{b}"], k=2, topology_only=True),
          lambda a=a, b=b: floor_intersect(a, b)) for a, b in couples],
        lambda found: "common nodes " + ", ".join(str(len(r.nodes)) for r in found),  # type: ignore[attr-defined]
        reps,
    )

    pages = 5 if quick else 10
    edges = data.edges(spec)
    # The predicate of median use: each page sorts every statement of the predicate (the
    # store has no keyset order), so the most used one (~30% of a Zipf graph) would time
    # that sort, not paging; its cost is in bench/README.md.
    counts = np.bincount(edges[:, 1])
    predicate = int(np.argsort(counts)[len(counts) // 2])

    def scan_all() -> list[object]:
        cursor, found = None, []
        for _ in range(pages):
            page = gw.scan_query(edge_predicates=[f"p:{predicate}"], limit=1000, cursor=cursor)
            found.append(page)
            cursor = page.next_cursor
            if cursor is None:
                break
        return found

    def scan_floor() -> list[tuple[str, str, str]]:
        rows = edges[edges[:, 1] == predicate][: pages * 1000]
        return [(f"e:{s}", f"p:{p}", f"e:{o}") for s, p, o in rows.tolist()]

    scan = _side_by_side(
        runner, f"scan_query, p:{predicate} ({counts[predicate]:,} statements, the median predicate), {pages} pages of 1,000",
        [(scan_all, scan_floor)],
        lambda found: f"{sum(p.count for p in found[0])} statements in {len(found[0])} pages",  # type: ignore[attr-defined,index]
        reps,
    )
    return len(graph.store), [paths, intersect, scan]


COMMUNITIES_CHILD = """
import json, resource, sys, time
import pyoxigraph as ox
sys.path.insert(0, {root!r})
from gateway import Gateway, Settings
store = ox.Store()
store.load(path={path!r}, format=ox.RdfFormat.N_TRIPLES)
gateway = Gateway.open(store, settings=Settings(communities_max_edges={edges}))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
result = gateway.communities()
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": elapsed, "peak_rss_mib": peak / 1024, "growth_mib": (peak - before) / 1024,
                  "nodes": result.node_count, "edges": result.edge_count, "levels": len(result.levels),
                  "communities": len(result.levels[0].communities), "modularity": result.levels[0].modularity}}))
"""


def bench_communities(edges: int) -> dict[str, object]:
    lines = []
    rng = random.Random(5)
    nodes = max(1000, edges // 8)
    for number in range(edges):  # clustered: most edges stay inside one of 50 blocks
        block = rng.randrange(50)
        a = block * (nodes // 50) + rng.randrange(nodes // 50)
        b = block * (nodes // 50) + rng.randrange(nodes // 50) if rng.random() < 0.9 else rng.randrange(nodes)
        lines.append(f"<http://c.example/n{a}> <http://c.example/p{number % 3}> <http://c.example/n{b}> .")
    path = CACHE / f"communities-{edges}.nt"
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    code = COMMUNITIES_CHILD.format(root=str(ROOT), path=str(path), edges=edges + 10)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


SECTION = "## Primitives"


def run(output: Path, *, quick: bool) -> None:
    closure = bench_closure(3 if quick else 7, 10_000 if quick else 100_000)
    closure_verdict = record("transitive_closure_query", "generated 12-level hierarchy: gateway ≤ 1.5× raw `p+`",
                             f"{closure['ratio']:.2f}×", closure["ratio"] <= 1.5)  # type: ignore[operator]
    triples, rows = bench_generated(quick)
    communities = bench_communities(10_000 if quick else 100_000)
    lines = [
        SECTION,
        "",
        ("bench/primitives.py; in-memory stores, the default budgets. Each side-by-side row: per case one untimed "
        "call, then rounds of (a) the gateway call, (b) the SPARQL texts it issued replayed on the store and "
        "serialized as TSV, (c) the CSR floor of `support.csr` (numpy over integer IDs, with the result strings), "
        "in rotating order; medians over cases × rounds, ratios the median of per-sample ratios."),
        "",
        f"On the plain generated graph ({triples:,} quads):",
        "",
        "| scenario | outcome | gateway ms | raw SPARQL ms | gw / raw | CSR floor ms | gw / floor |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        gw_raw, gw_floor = ratio(row.gateway, row.raw), ratio(row.gateway, row.floor)
        lines.append(
            f"| {row.scenario} | {row.outcome} | {spread(row.gateway)} | {spread(row.raw)} | {gw_raw:.2f}× "
            f"| {spread(row.floor)} | {gw_floor:.1f}× |"
        )
        record(row.scenario.split(",")[0], row.scenario + " (recorded)", f"gateway/raw {gw_raw:.2f}×, gateway/floor {gw_floor:.1f}×", None)
    lines += [
        "",
        "| scenario | figures | target |",
        "|---|---|---|",
        (f"| transitive_closure_query, {closure['members']:,}-member {closure['levels']}-level generated hierarchy, all "
        f"descendants of the root | gateway {closure['gateway_ms']:.1f} ms, raw `p+` {closure['raw_ms']:.1f} ms, ratio "
        f"{closure['ratio']:.2f}× | ≤ 1.5×: {closure_verdict} |"),
        (f"| communities, {communities['edges']:,} edges / {communities['nodes']:,} nodes "
        f"| {communities['seconds']:.1f} s, peak RSS {communities['peak_rss_mib']:.0f} MiB (+{communities['growth_mib']:.0f} MiB during the call), "
        f"{communities['levels']} levels, {communities['communities']} communities, modularity {communities['modularity']:.3f} | recorded |"),
        "",
        ("The floor of shortest_path is a bidirectional search for the length alone (checked equal to the gateway's "
        "for every pair); the gateway also picks the path by its tie rule and reads each edge's statement. The floor of "
        "scan_query slices the predicate's rows out of the edge array."),
        "",
    ]
    write_section(output, SECTION, "\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args(argv)
    run(args.output, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
