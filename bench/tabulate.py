"""`python -m bench.tabulate [--items N] [--reps R]`: tabulate against the same question
written by hand in SPARQL, side by side in one run, in process (embedded pyoxigraph) and
over `oxigraph serve` on 127.0.0.1, on a typed product graph whose prices are written as
text (as business data writes them); and the characters an agent reads for each question
through tabulate against the route without it (scan_query every item, describe_entities
each page, then filter, group and sort in its head).

Writes the "tabulate against hand-written SPARQL" section of bench/RESULTS.md (target:
tabulate at most 1.3x the hand query). Needs the `oxigraph` binary (`pip install oxigraph`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from bench import report
from bench.remote import Server
from gateway import Gateway

X = "http://shop.example/"
PREFIXES = f"PREFIX x: <{X}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
HEADING = "## tabulate against hand-written SPARQL"
TARGET = 1.3


def product_graph(items: int, seed: int = 7) -> ox.Store:
    rng = random.Random(seed)
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    integer = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
    quads = []
    for i in range(items):
        item = ox.NamedNode(f"{X}item{i}")
        quads.append(ox.Quad(item, rdf_type, ox.NamedNode(X + "Item")))
        quads.append(ox.Quad(item, ox.NamedNode(X + "price"), ox.Literal(str(rng.randint(1, 1000)))))
        quads.append(ox.Quad(item, ox.NamedNode(X + "weight"), ox.Literal(str(rng.randint(1, 50)), datatype=integer)))
        quads.append(ox.Quad(item, ox.NamedNode(X + "category"), ox.NamedNode(f"{X}cat{rng.randint(0, 40)}")))
        if rng.random() < 0.7:
            quads.append(ox.Quad(item, ox.NamedNode(X + "manager"), ox.NamedNode(f"{X}person{rng.randint(0, 200)}")))
    store = ox.Store()
    store.extend(quads)
    return store


QUESTIONS: list[tuple[str, dict[str, object], str]] = [
    ("the 10 heaviest items over a price of 500",
     {"type": X + "Item", "columns": {"price": X + "price", "weight": X + "weight"},
      "where": [{"column": "price", "op": ">", "value": 500}],
      "order_by": [{"column": "weight", "descending": True}], "limit": 10},
     PREFIXES + """SELECT ?i ?price ?weight WHERE { ?i a x:Item ; x:price ?price ; x:weight ?weight .
       FILTER(xsd:integer(?price) > 500) } ORDER BY DESC(?weight) ?i LIMIT 11"""),
    ("per category, average price where at least 10 items",
     {"type": X + "Item", "columns": {"cat": X + "category", "price": X + "price"}, "group_by": ["cat"],
      "aggregate": {"n": {"fn": "count"}, "avg": {"fn": "avg", "of": "price"}},
      "having": [{"column": "n", "op": ">=", "value": 10}], "order_by": [{"column": "avg", "descending": True}]},
     PREFIXES + """SELECT ?cat (COUNT(?i) AS ?n) (AVG(xsd:integer(?price)) AS ?avg) WHERE {
       ?i a x:Item ; x:category ?cat ; x:price ?price } GROUP BY ?cat HAVING (COUNT(?i) >= 10)
       ORDER BY DESC(?avg) LIMIT 51"""),
    ("items with no manager",
     {"type": X + "Item", "where": [{"path": X + "manager", "op": "missing"}], "limit": 1000},
     PREFIXES + """SELECT ?i WHERE { ?i a x:Item . FILTER NOT EXISTS { ?i x:manager ?m } } ORDER BY ?i LIMIT 1001"""),
]


def interleaved(runs: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """Median milliseconds of each run, the runs taking turns (after one warm-up each)."""
    for run in runs.values():
        run()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            samples[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(times) for name, times in samples.items()}


def characters(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> int:
    return len(gateway.call(tool, arguments).model_dump_json(exclude_none=True))


def without_tabulate(gateway: Gateway) -> tuple[int, int]:
    """(calls, characters) of reading every item's data: scan_query pages, each page's
    items through describe_entities. Each of the questions needs every item's values."""
    calls = read = 0
    cursor = None
    while True:
        page = gateway.scan_query(node_types=[X + "Item"], limit=1000, cursor=cursor)
        calls += 1
        read += len(page.model_dump_json(exclude_none=True))
        ids = [node.id for node in page.nodes]
        for start in range(0, len(ids), 100):
            calls += 1
            read += characters(gateway, "describe_entities", {"ids": ids[start:start + 100]})
        cursor = page.next_cursor
        if cursor is None:
            return calls, read


def measure(items: int, reps: int) -> str:
    store = product_graph(items)
    embedded = Gateway.open(store)
    with tempfile.TemporaryDirectory() as directory:
        nt = Path(directory) / "items.nt"
        store.dump(str(nt), ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
        server = Server(nt)
        try:
            remote = Gateway.connect(server.url, timeout=120, cache_ttl=0)
            rows = []
            for title, arguments, sparql in QUESTIONS:
                times = interleaved({
                    "embedded": lambda a=arguments: embedded.call("tabulate", a),
                    "embedded hand": lambda q=sparql: list(store.query(q)),  # type: ignore[arg-type]
                    "remote": lambda a=arguments: remote.call("tabulate", a),
                    "remote hand": lambda q=sparql: remote.backend.select(q),
                }, reps)
                rows.append((title, arguments, times))
        finally:
            server.stop()
    calls, route = without_tabulate(embedded)
    lines = [
        HEADING, "",
        f"`python -m bench.tabulate --items {items} --reps {reps}`: a typed product graph of {items:,} items whose "
        "prices are written as text; the same question through tabulate and as hand-written SPARQL, in process "
        "(embedded pyoxigraph) and over `oxigraph serve` on 127.0.0.1 (the hand query sent by the same HTTP client), "
        f"medians of {reps} interleaved runs in one process. Characters: the JSON an agent reads; without tabulate, "
        f"every item's data read through scan_query and describe_entities ({calls} calls, the same for each question).",
        "",
        "| question | tabulate ms | hand SPARQL ms | ratio | over HTTP: tabulate ms | hand ms | ratio | "
        "characters: tabulate | without tabulate |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for title, arguments, t in rows:
        local = t["embedded"] / t["embedded hand"]
        over = t["remote"] / t["remote hand"]
        verdicts = [report.record("tabulate", f"{title}, {where}: at most {TARGET}x hand SPARQL", f"{ratio:.2f}x",
                                  ratio <= TARGET) for where, ratio in (("in process", local), ("over HTTP", over))]
        lines.append(f"| {title} | {t['embedded']:.1f} | {t['embedded hand']:.1f} | {local:.2f} ({verdicts[0]}) | "
                     f"{t['remote']:.1f} | {t['remote hand']:.1f} | {over:.2f} ({verdicts[1]}) | "
                     f"{characters(embedded, 'tabulate', arguments):,} | {route:,} |")
    lines += ["", NOTE]
    return "\n".join(lines) + "\n"


NOTE = """What the hand queries leave out and tabulate does not: each column is an OPTIONAL (a
missing value is null, not a dropped row); rows are distinct solutions; every value is read
through its numbers-as-text view (a number as it is, else its text cast as an integer, a
decimal or a double, then the same trimmed); nulls sort last, numbers as numbers and text as
text, and every output column breaks ties so that pages never overlap."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tabulate", description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=9)
    report.output_arguments(parser, Path(__file__).parent / "RESULTS.md")
    args = parser.parse_args(argv)
    return report.publish(args, HEADING, measure(args.items, args.reps))


if __name__ == "__main__":
    raise SystemExit(main())
