"""bfs_query against the least SPARQL that gives the same edges, in process and over HTTP.

    PYTHONPATH=. python -m bench.floors [--relationships N] [--seeds K] [--no-write]

Two graphs drawn here with numpy, not by the project's own generator (`support.synth`):
entities with Pareto-distributed weights, relationships between weighted endpoints over
20 predicates, so a 2- or 3-hop walk from many entities holds 1,000 to 10,000 edges:

- **plain**: the relationships as triples;
- **RDF 1.2**: each triple asserted and reified (`<r> rdf:reifies <<( s p o )>>`) with a
  `bfs:truthStatus` (80% asserted_true, the rest hypothetical, disputed or retracted);
- **typed** (plain and RDF 1.2): the same, with `rdf:type` on every entity (one of 12
  classes; every 10th entity a second one), as real graphs type their nodes.

Seeds are entities whose walk at the maximum budget is uncut and holds 1k-10k edges.
Each is walked, side by side and interleaved, by:

- **gateway**: `bfs_query(seeds=[seed], max_hops=h, topology_only=True)` at the maximum
  budget (10,000 nodes, 50,000 edges), default truth status;
- **floor**: one hand-written SPARQL query per hop over the whole frontier (out and in),
  read as TSV, the frontier kept in a Python dict. On the RDF 1.2 graph the query reads
  each triple's reifier and status with the triple (`LATERAL`, the store's fastest
  shape) and keeps asserted_true statements. On a typed graph the walk crosses no
  `rdf:type` triple (nor does the gateway's), and one more query reads every node's types.

Both run in process (pyoxigraph, in memory), in process on an on-disk store of the same
file (`Store(path).bulk_load`, opened read-only: what `Gateway.open(DIR)` does), and
against `oxigraph serve` over it (the gateway through `Gateway.connect`, the floor through
one HTTP client's connection pool). The edges must be the same; the target is gateway
<= 1.75x the floor. The on-disk rows against the in-memory ones say what serving a store
directory from memory gains (`bfsql serve DIR` does when it fits).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx2
import numpy as np
import pyoxigraph as ox

from bench.remote import Server

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SECTION = "## Statement model and plain walks against the least SPARQL"
TARGET = 1.75
TYPED_TARGETS = {"in process": 1.5, "oxigraph serve": 1.2}
"""Typed graphs: gateway at most this multiple of the typed floor."""
NODE, REL, STMT = "http://floor.example/n/", "http://floor.example/r/", "http://floor.example/s/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
BFS = "https://w3id.org/bfsql#"
PREFIXES = {"n": NODE, "r": REL, "s": STMT}
STATUSES = (("asserted_true", 0.8), ("hypothetical", 0.1), ("disputed", 0.05), ("retracted", 0.05))
MAX_NODES, MAX_EDGES = 10_000, 50_000


# -- the graphs ------------------------------------------------------------------------
CLASS = "http://floor.example/c/"


def generate(relationships: int, *, reified: bool, typed: bool = False, seed: int = 11) -> Path:
    """The N-Triples file (cached): `relationships` edges over relationships / 3 entities."""
    kind = ("rdf12" if reified else "plain") + ("-typed" if typed else "")
    path = CACHE / f"floor-{kind}-{relationships}-s{seed}.nt"
    if path.is_file():
        return path
    rng = np.random.default_rng(seed)
    entities = max(relationships // 3, 10)
    weights = rng.pareto(1.2, entities) + 1
    weights /= weights.sum()
    subjects = rng.choice(entities, relationships, p=weights)
    objects = rng.choice(entities, relationships, p=weights)
    predicates = rng.integers(0, 20, relationships)
    names, shares = zip(*STATUSES, strict=True)
    statuses = rng.choice(len(names), relationships, p=shares)
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as out:
        for i, (s, p, o, t) in enumerate(zip(subjects, predicates, objects, statuses, strict=True)):
            triple = f"<{NODE}{s}> <{REL}{p}> <{NODE}{o}>"
            out.write(f"{triple} .\n")
            if reified:
                out.write(f"<{STMT}{i}> <{RDF}reifies> <<( {triple} )>> .\n")
                out.write(f"<{STMT}{i}> <{BFS}truthStatus> <{BFS}{names[t]}> .\n")
        for entity in range(entities) if typed else ():
            out.write(f"<{NODE}{entity}> <{RDF}type> <{CLASS}{entity % 12}> .\n")
            if entity % 10 == 0:
                out.write(f"<{NODE}{entity}> <{RDF}type> <{CLASS}{12 + entity % 3}> .\n")
    partial.rename(path)
    return path


# -- the floor: one query per hop ------------------------------------------------------
_PLAIN = """SELECT ?n ?s ?p ?o WHERE {{
  VALUES ?x {{ {frontier} }}
  {{ ?x ?p ?o . BIND(?x AS ?s) BIND(?o AS ?n) }} UNION {{ ?s ?p ?x . BIND(?s AS ?n) BIND(?x AS ?o) }}
  FILTER(isIRI(?n))
}}"""
_STATUS_AWARE = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX bfs: <https://w3id.org/bfsql#>
SELECT ?n ?s ?p ?o ?r WHERE {{
  VALUES ?x {{ {frontier} }}
  {{ ?x ?p ?o . BIND(?x AS ?s) BIND(?o AS ?n) }} UNION {{ ?s ?p ?x . BIND(?s AS ?n) BIND(?x AS ?o) }}
  FILTER(isIRI(?n))
  LATERAL {{ OPTIONAL {{ ?r rdf:reifies <<( ?s ?p ?o )>> OPTIONAL {{ ?r bfs:truthStatus ?ts }} }} }}
  FILTER(COALESCE(?ts, bfs:asserted_true) = bfs:asserted_true)
}}"""


def _typed(template: str) -> str:
    """The hop query crossing no rdf:type triple."""
    head, _, tail = template.rpartition("}}")
    return f"{head}  FILTER(?p != <{RDF}type>)\n}}}}{tail}"


_TYPES = f"SELECT ?x ?t WHERE {{{{ VALUES ?x {{{{ {{nodes}} }}}} ?x <{RDF}type> ?t }}}}"


def floor_walk(run: Callable[[str], bytes], seed: str, hops: int, *, reified: bool,
               typed: bool = False) -> tuple[dict[str, set[str]], set[str], int]:
    """(nodes with their types, edges as "s p o r" IRIs, queries) of the least walk: each
    hop one query; on a typed graph, one more for the types of every node reached (the
    hop query reading them itself, `OPTIONAL { ?n rdf:type ?t }`, takes oxigraph ~20x
    as long: 300 ms where the two take 13 + 62 ms)."""
    template = _typed(_STATUS_AWARE if reified else _PLAIN) if typed else _STATUS_AWARE if reified else _PLAIN
    found: dict[str, set[str]] = {seed: set()}
    edges: set[str] = set()
    frontier = [seed]
    queries = 0
    for hop in range(hops):
        if not frontier:
            break
        body = run(template.format(frontier=" ".join(f"<{x}>" for x in frontier)))
        queries += 1
        following = []
        for line in body.translate(None, b"<>").decode().split("\n")[1:-1]:
            other, _, key = line.partition("\t")
            if key in edges:
                continue
            edges.add(key)
            if other not in found:
                found[other] = set()
                following.append(other)
        frontier = following
    if typed:
        body = run(_TYPES.format(nodes=" ".join(f"<{x}>" for x in found)))
        queries += 1
        for line in body.translate(None, b"<>").decode().split("\n")[1:-1]:
            node, _, kind = line.partition("\t")
            found[node].add(kind)
    return found, edges, queries


def in_process(store: ox.Store) -> Callable[[str], bytes]:
    def run(query: str) -> bytes:
        # The default graph alone (these graphs have no named ones): the union's bookkeeping
        # costs big reads more, and the gateway leaves it out too.
        return store.query(query).serialize(format=ox.QueryResultsFormat.TSV) or b""  # type: ignore[union-attr]

    return run


def over_http(client: httpx2.Client, url: str) -> Callable[[str], bytes]:
    def run(query: str) -> bytes:
        response = client.post(url, data={"query": query}, headers={"Accept": "text/tab-separated-values"})
        response.raise_for_status()
        return response.content

    return run


# -- measuring ---------------------------------------------------------------------------
@dataclass
class Row:
    graph: str
    where: str
    hops: int
    edges: list[int] = field(default_factory=list)
    gateway: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    queries: tuple[int, int] = (0, 0)
    same: bool = True

    def ratio(self) -> float:
        return statistics.median(g / f for g, f in zip(self.gateway, self.floor, strict=True))


def pick_seeds(run: Callable[[str], bytes], entities: int, hops: int, count: int, *, reified: bool,
               typed: bool, edges: tuple[int, int] = (1000, 10_000), max_nodes: int = MAX_NODES) -> list[str]:
    """Entities whose floor walk holds `edges` (by default 1k-10k) and at most `max_nodes`
    nodes (by default the maximum budget's)."""
    rng = np.random.default_rng(hops)
    picked: list[str] = []
    for candidate in rng.permutation(entities)[:4000]:
        seed = f"{NODE}{candidate}"
        nodes, found, _ = floor_walk(run, seed, hops, reified=reified, typed=typed)
        if edges[0] <= len(found) <= edges[1] and len(nodes) <= max_nodes:
            picked.append(seed)
            if len(picked) == count:
                break
    return picked


def measure(relationships: int, seeds: int, reps: int, progress: Callable[[str], None] = print,
            places: Sequence[str] = ("in process", "on disk", "oxigraph serve"), graphs: Sequence[str] = ()) -> list[Row]:
    from gateway import Gateway

    rows: list[Row] = []
    chosen_for: dict[bool, dict[int, list[str]]] = {}
    for typed, reified in ((False, False), (False, True), (True, False), (True, True)):
        graph = ("RDF 1.2" if reified else "plain") + (" typed" if typed else "")
        if graphs and graph not in graphs:
            continue
        path = generate(relationships, reified=reified, typed=typed)
        store = ox.Store()
        store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
        local = in_process(store)
        if reified not in chosen_for:  # the typed graph has the same relationships: the same seeds
            chosen_for[reified] = {h: pick_seeds(local, relationships // 3, h, seeds, reified=reified, typed=typed)
                                   for h in (2, 3)}
        chosen = chosen_for[reified]
        server = Server(path)
        scratch = Path(tempfile.mkdtemp(prefix="bfsql-floors-"))
        ox.Store(str(scratch / "store")).bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
        disk = ox.Store.read_only(str(scratch / "store"))
        try:
            with httpx2.Client(timeout=300) as client:
                everywhere: list[tuple[str, Gateway, Callable[[str], bytes]]] = [
                    ("in process", Gateway.open(store, prefixes=PREFIXES), local),
                    ("on disk", Gateway.open(scratch / "store", prefixes=PREFIXES), in_process(disk)),
                    ("oxigraph serve", Gateway.connect(server.url, prefixes=PREFIXES, timeout=300, cache_ttl=0),
                     over_http(client, server.url)),
                ]
                for where, gateway, run in [place for place in everywhere if place[0] in places]:
                    gateway.bfs_query(seeds=["n:0"], max_hops=1, topology_only=True)  # reads what the profile keeps
                    for hops, picked in chosen.items():
                        row = Row(graph, where, hops)
                        log: list[int] = []
                        gateway.backend.query_log = lambda text, count, log=log: log.append(count)  # type: ignore[attr-defined]
                        for seed in picked:
                            call = {"seeds": [seed], "max_hops": hops, "topology_only": True,
                                    "max_nodes": MAX_NODES, "max_edges": MAX_EDGES}
                            answer = gateway.bfs_query(**call)
                            nodes, edges, floor_queries = floor_walk(run, seed, hops, reified=reified, typed=typed)
                            row.same &= _same(gateway, answer, nodes, edges) and not answer.truncated
                            row.queries = (len(log), floor_queries)
                            row.edges.append(len(edges))
                            for rep in range(reps):
                                ways = [("gateway", partial(gateway.bfs_query, **call)),
                                        ("floor", partial(floor_walk, run, seed, hops, reified=reified, typed=typed))]
                                for name, way in ways[rep % 2:] + ways[: rep % 2]:
                                    started = time.perf_counter()
                                    way()
                                    getattr(row, name).append(time.perf_counter() - started)
                            log.clear()
                        rows.append(row)
                        progress(f"  {graph:8} {where:15} {hops} hops: gateway {statistics.median(row.gateway) * 1e3:.1f} ms, "
                                 f"floor {statistics.median(row.floor) * 1e3:.1f} ms, {row.ratio():.2f}x, same edges {row.same}")
        finally:
            server.stop()
            shutil.rmtree(scratch, ignore_errors=True)
    return rows


def _same(gateway: object, answer: object, floor_nodes: dict[str, set[str]], floor_edges: set[str]) -> bool:
    """Whether the gateway crossed the floor's edges: (subject, predicate, object) as IDs,
    counted (two statements of one triple are two edges on both sides); and named each
    node's type as one of the floor's (the first in ID order, "Entity" for none)."""
    to_id = gateway.context.ids.to_id  # type: ignore[attr-defined]
    mine = Counter((e["subject"], e["predicate"], e["object"]) for e in answer.edges)  # type: ignore[attr-defined]
    theirs = Counter(tuple(to_id(part) for part in key.split("\t")[:3]) for key in floor_edges)
    kinds = {n["id"]: n["entity_type"] for n in answer.nodes}  # type: ignore[attr-defined]
    wanted = {to_id(n): min((to_id(t) for t in types), default="Entity") for n, types in floor_nodes.items()}
    return mine == theirs and kinds == wanted


def report(rows: Sequence[Row], relationships: int, seeds: int, reps: int) -> str:
    from bench.report import record

    lines = [
        SECTION,
        "",
        (f"`python -m bench.floors` (bench/floors.py): {relationships:,} relationships drawn with numpy (not "
         f"`support.synth`), plain and RDF 1.2 (every triple reified with a status, 80% asserted_true), each also typed "
         f"(`rdf:type` on every entity; the floor reads every node's types in one more query); {seeds} seeds a "
         f"row whose uncut walk holds 1k-10k edges, {reps} repetitions each, gateway and floor interleaved. The floor is "
         "one hand-written query per hop (TSV; on RDF 1.2 the reifier and status read with each triple by LATERAL). "
         "Times are medians in ms; the ratio is the median of per-sample ratios."),
        "",
        "| graph | where | hops | edges (median) | queries gw / floor | gateway ms | floor ms | gateway / floor | same edges | |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.ratio()
        target = TYPED_TARGETS.get(row.where, TYPED_TARGETS["in process"]) if row.graph.endswith("typed") else TARGET
        verdict = record(
            "bfs_query vs the least SPARQL",
            f"{row.graph}, {row.where}, {row.hops} hops, 1k-10k edges: gateway ≤ {target}× the floor, same edges",
            f"{ratio:.2f}×, same edges: {'yes' if row.same else 'no'}",
            (ratio <= target and row.same) if target is not None and row.where != "on disk" else None,
        )
        lines.append(
            f"| {row.graph} | {row.where} | {row.hops} | {statistics.median(row.edges):,.0f} | {row.queries[0]} / {row.queries[1]} | "
            f"{statistics.median(row.gateway) * 1e3:.1f} | {statistics.median(row.floor) * 1e3:.1f} | {ratio:.2f}× | "
            f"{'yes' if row.same else '**no**'} | {verdict} |"
        )
    memory = {(r.graph, r.hops): statistics.median(r.gateway) for r in rows if r.where == "in process"}
    disk = [statistics.median(r.gateway) / memory[(r.graph, r.hops)] for r in rows if r.where == "on disk"]
    if disk:
        lines += ["", (f"From an on-disk store the gateway takes {min(disk):.1f}-{max(disk):.1f}× its time in memory: "
                       "`bfsql serve DIR` copies a store directory into memory when it fits (docs/http.md).")]
        record("store directories", "bfsql serve DIR: the faster of memory and disk by default, where it fits",
               f"on disk {min(disk):.1f}-{max(disk):.1f}× in memory; memory is the default", min(disk) >= 1)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish

    parser = argparse.ArgumentParser(prog="python -m bench.floors", description=__doc__.split("\n")[0])
    parser.add_argument("--relationships", type=int, default=300_000)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--where", default="in process,on disk,oxigraph serve", help="comma-separated places")
    parser.add_argument("--graphs", default="", help="comma-separated graphs (default all: plain, RDF 1.2, plain typed, "
                        "RDF 1.2 typed)")
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    rows = measure(args.relationships, args.seeds, args.reps, places=args.where.split(","),
                   graphs=[g for g in args.graphs.split(",") if g])
    text = report(rows, args.relationships, args.seeds, args.reps)
    return publish(args, SECTION, text)


if __name__ == "__main__":
    raise SystemExit(main())
