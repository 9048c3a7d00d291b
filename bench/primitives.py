"""Benchmarks of the primitives beyond bfs_query, side by side with the store's own cost.

    PYTHONPATH=. python -m bench.primitives [--quick]

- transitive_closure_query on a generated 12-level hierarchy of 100,000 members, against
  the raw SPARQL property path (`p+`) it stands on;
- shortest_path between 100 random pairs on the 1M-triple power-law graph: median, p95;
- communities on a 100,000-edge graph: time and peak memory (in a child process).

Prints a table and rewrites the "Primitives" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox

from gateway import Gateway

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
        "ratio": statistics.median(g / r for g, r in zip(gateway_times, raw_times)),
    }


def bench_paths(pairs: int, triples: int) -> dict[str, object]:
    from bench.data import GraphSpec, ntriples  # the bfs benchmark's cached generator

    path, _ = ntriples(GraphSpec("plain", False, triples))
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store)
    nodes = [row[0].value for row in store.query("SELECT DISTINCT ?s WHERE { ?s ?p ?o } LIMIT 20000")]  # type: ignore[union-attr,index]
    rng = random.Random(3)
    times, hops, found = [], [], 0
    for _ in range(pairs):
        source, target = rng.sample(nodes, 2)
        start = time.perf_counter()
        result = gateway.shortest_path(source=source, target=target, max_hops=6)
        times.append(time.perf_counter() - start)
        if result.found:
            found += 1
            hops.append(result.hops)
    times.sort()
    return {
        "pairs": pairs, "triples": len(store), "found": found,
        "median_hops": statistics.median(hops) if hops else None,
        "median_ms": 1000 * statistics.median(times), "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
    }


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    args = parser.parse_args(argv)
    quick = args.quick
    closure = bench_closure(3 if quick else 7, 10_000 if quick else 100_000)
    paths = bench_paths(20 if quick else 100, 100_000 if quick else 1_000_000)
    communities = bench_communities(10_000 if quick else 100_000)
    lines = [
        "## Primitives",
        "",
        f"`PYTHONPATH=. python -m bench.primitives{' --quick' if quick else ''}` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, in-memory store, {resource.getpagesize()}-byte pages).",
        "",
        "| scenario | figures | target |",
        "|---|---|---|",
        f"| transitive_closure_query, {closure['members']:,}-member {closure['levels']}-level hierarchy, all descendants of the root "
        f"| gateway {closure['gateway_ms']:.1f} ms, raw `p+` {closure['raw_ms']:.1f} ms, ratio {closure['ratio']:.2f}x "
        f"| <= 1.5x: {'met' if closure['ratio'] <= 1.5 else 'missed'} |",
        f"| shortest_path, {paths['pairs']} random pairs on {paths['triples']:,} triples (max_hops 6) "
        f"| median {paths['median_ms']:.1f} ms, p95 {paths['p95_ms']:.1f} ms; {paths['found']} found, median {paths['median_hops']} hops | recorded |",
        f"| communities, {communities['edges']:,} edges / {communities['nodes']:,} nodes "
        f"| {communities['seconds']:.1f} s, peak RSS {communities['peak_rss_mib']:.0f} MiB (+{communities['growth_mib']:.0f} MiB during the call), "
        f"{communities['levels']} levels, {communities['communities']} communities, modularity {communities['modularity']:.3f} | recorded |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    write_section(ROOT / "bench" / "RESULTS.md", "## Primitives", text)
    return 0


def write_section(path: Path, heading: str, text: str) -> None:
    """Replace (or append) one `## ` section of a results file, leaving the others alone."""
    old = path.read_text() if path.exists() else ""
    parts = old.split("\n## ")
    kept = [p for i, p in enumerate(parts) if not (i and ("## " + p).startswith(heading))]
    body = "\n## ".join(kept).rstrip()
    path.write_text((body + "\n\n" if body else "") + text.rstrip() + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
