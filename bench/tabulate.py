"""`python -m bench.tabulate [--items N] [--reps R]`: tabulate against the same question
written by hand in SPARQL, side by side in one run, in process (embedded pyoxigraph) and
over `oxigraph serve` on 127.0.0.1, on a typed product graph whose prices are written as
text (as business data writes them); and the characters an agent reads for each question
through tabulate against the route without it (scan_query every item, describe_entities
each page, then filter, group and sort in its head).

Writes the "tabulate against hand-written SPARQL" section of bench/RESULTS.md (target:
tabulate at most 1.3x the hand query). Needs the `oxigraph` binary (`pip install oxigraph`).

`python -m bench.tabulate --scale 1000000,10000000 [--reps R]`: a top-10 with a filter on
the product graph at each size (in triples), through tabulate (its order index) against
the hand query in process and over `oxigraph serve`; writes the "tabulate top-k by graph
size" section (targets: p50 at the largest size at most 2x p50 at the smallest, and at most
the hand query over `oxigraph serve`).
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
from gateway.errors import Unavailable

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


SCALE_HEADING = "## tabulate top-k by graph size"
TOP_K = ("the 10 most expensive items under a weight of 10",
         {"type": X + "Item", "columns": {"price": X + "price", "weight": X + "weight"},
          "where": [{"column": "weight", "op": "<", "value": 10}],
          "order_by": [{"column": "price", "descending": True}], "limit": 10},
         PREFIXES + """SELECT ?i ?price ?weight WHERE { ?i a x:Item ; x:price ?price ; x:weight ?weight .
           FILTER(?weight < 10) } ORDER BY DESC(xsd:decimal(?price)) ?i LIMIT 11""")
TRIPLES_PER_ITEM = 4.7
"""Type, price, weight and category, and a manager for 7 items in 10."""


def write_items(path: Path, triples: int, seed: int = 7) -> int:
    """The product graph of about `triples` triples as N-Triples (prices as text with cents:
    few ties at any size); the number of items."""
    rng = random.Random(seed)
    items = int(triples / TRIPLES_PER_ITEM)
    typed = f"<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{X}Item> .\n"
    integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    with path.open("w", encoding="utf-8") as out:
        for i in range(items):
            item = f"<{X}item{i}> "
            lines = [item + typed,
                     f'{item}<{X}price> "{rng.randint(100, 10 ** 8) / 100}" .\n',
                     f'{item}<{X}weight> "{rng.randint(1, 50)}"^^{integer} .\n',
                     f"{item}<{X}category> <{X}cat{rng.randint(0, 40)}> .\n"]
            if rng.random() < 0.7:
                lines.append(f"{item}<{X}manager> <{X}person{rng.randint(0, 200)}> .\n")
            out.writelines(lines)
    return items


ACROSS = 25
"""Turns of the top-10 at every size, side by side, for the growth from the smallest size."""


def measure_scale(sizes: list[int], reps: int) -> str:
    """Each size's hand queries beside tabulate (its stores then kept open), then tabulate at
    every size taking turns: the growth is measured in one stretch of the machine's load,
    none of the sizes' calls after a minute-long hand query that the others did not follow."""
    measured = [_measure_size(triples, reps) for triples in sizes]
    arguments = TOP_K[1]
    across = interleaved({str(triples): lambda g=gateway: g.call("tabulate", arguments)
                          for triples, *_, gateway in measured}, ACROSS)
    print(f"side by side: {across}", flush=True)
    rows = [(triples, items, first_s, {**times, "beside hand": times["tabulate"], "tabulate": across[str(triples)]}, same)
            for triples, items, first_s, times, same, _ in measured]
    return _scale_report(sizes, reps, TOP_K[0], rows)


def _measure_size(triples: int, reps: int) -> tuple[int, int, tuple[float, float], dict[str, float], bool, Gateway]:
    """(triples, items, the seconds of the graph's first reads and of the type's (its
    statistics, the order index's build), the medians, whether tabulate's rows are the hand query's, the gateway kept
    open) at one size."""
    _, arguments, sparql = TOP_K
    with tempfile.TemporaryDirectory() as directory:
        nt = Path(directory) / "items.nt"
        items = write_items(nt, triples)
        store = ox.Store()
        store.bulk_load(path=str(nt), format=ox.RdfFormat.N_TRIPLES)
        embedded = Gateway.open(store)
        started = time.perf_counter()
        # The same table over one listed item (no order index makes it): the graph's first
        # reads (vocabulary, the predicates' degrees), timed apart from the type's and the index's.
        listed = {name: value for name, value in arguments.items() if name != "type"}
        _first_answer(embedded, {**listed, "ids": [f"{X}item0"]})
        reads_s = time.perf_counter() - started
        started = time.perf_counter()
        first = _first_answer(embedded, arguments)
        first_s = (reads_s, time.perf_counter() - started)
        server = Server(nt)
        try:
            remote = Gateway.connect(server.url, timeout=300, cache_ttl=0)
            times = interleaved({
                "tabulate": lambda: embedded.call("tabulate", arguments),
                "hand": lambda: list(store.query(sparql)),  # type: ignore[arg-type]
                "served hand": lambda: remote.backend.select(sparql),
            }, reps)
            served = remote.backend.select(sparql)[1][:10]
        finally:
            server.stop()
    shown = [(str(row[0]), str(row[1])) for row in first.rows]  # type: ignore[attr-defined]
    same = shown == [(str(row[0]), getattr(row[1], "value", None)) for row in served]
    print(f"{triples:,} triples: first reads {first_s[0]:.1f} s, order index {first_s[1]:.1f} s, medians {times}, "
          f"same rows {same}", flush=True)
    return triples, items, first_s, times, same, embedded


def _first_answer(gateway: Gateway, arguments: dict[str, Any]) -> Any:
    """The first call's answer, asked again as its `Unavailable` says while the graph's
    first reads (the vocabulary, the order index) go on past a call's deadline."""
    while True:
        try:
            return gateway.call("tabulate", arguments)
        except Unavailable as error:
            time.sleep(min(error.retry_after or 1.0, 5.0))


def _scale_report(sizes: list[int], reps: int, title: str, rows: list[Any]) -> str:
    lines = [
        SCALE_HEADING, "",
        f"`python -m bench.tabulate --scale {','.join(str(s) for s in sizes)} --reps {reps}`: {title}, on the product "
        "graph of each size (prices as text with cents); tabulate in process (embedded pyoxigraph, in memory) "
        "through its order index (gateway/engine/table_order.py), the hand query in process and over `oxigraph serve` "
        f"on 127.0.0.1, medians of {reps} interleaved runs after one warm-up each, the index built; then *tabulate "
        f"ms*: the top-10 at every size taking turns, medians of {ACROSS} (the growth is read from these: the "
        "runs beside the hand queries each follow a query of seconds over the whole store, longer at the larger "
        "size, likely leaving the caches cold for the next: 1M against 3M triples in one process, the page's "
        "query took the same time). *first reads*: "
        "the same table over one listed item (no index makes it) on the newly opened graph, until it answers (asked "
        "again as its `Unavailable` says): the graph's vocabulary and the predicates' degrees, read once. *type and "
        "order index*: then the top-10 itself until it answers (asked again so, at most 5 s later): the type's "
        "statistics, read once, and the order index's one sort of the type (once per open graph, type and order "
        "column), then the page.",
        "",
        "| triples | items | first reads s | type and order index s | tabulate ms | tabulate ms beside the hand "
        "queries | hand SPARQL ms | over `oxigraph serve`: hand ms | tabulate / served hand | same rows |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for triples, items, first_s, t, same in rows:
        lines.append(f"| {triples:,} | {items:,} | {first_s[0]:.1f} | {first_s[1]:.1f} | {t['tabulate']:.1f} | "
                     f"{t['beside hand']:.1f} | {t['hand']:.1f} | "
                     f"{t['served hand']:.1f} | {t['tabulate'] / t['served hand']:.3f} | {'yes' if same else 'NO'} |")
    small, large = rows[0][3]["tabulate"], rows[-1][3]["tabulate"]
    growth = large / small
    verdicts = [
        report.record("tabulate", f"top-10 with a filter: p50 at {sizes[-1]:,} triples at most 2x p50 at "
                      f"{sizes[0]:,}", f"{growth:.2f}x", growth <= 2),
        report.record("tabulate", f"top-10 with a filter at {sizes[-1]:,} triples: at most the hand query over "
                      "oxigraph serve", f"{rows[-1][3]['tabulate'] / rows[-1][3]['served hand']:.3f}x",
                      rows[-1][3]["tabulate"] <= rows[-1][3]["served hand"]),
    ]
    lines += ["", f"p50 at {sizes[-1]:,} against {sizes[0]:,}: {growth:.2f}x ({verdicts[0]}); against the hand query "
              f"over `oxigraph serve` at {sizes[-1]:,}: {verdicts[1]}."]
    return "\n".join(lines) + "\n"


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
    parser.add_argument("--scale", help="sizes in triples, comma-separated: the top-k by graph size instead")
    report.output_arguments(parser, Path(__file__).parent / "RESULTS.md")
    args = parser.parse_args(argv)
    if args.scale:
        sizes = [int(size) for size in args.scale.split(",")]
        return report.publish(args, SCALE_HEADING, measure_scale(sizes, args.reps))
    return report.publish(args, HEADING, measure(args.items, args.reps))


if __name__ == "__main__":
    raise SystemExit(main())
