"""`python -m bench.tabulate [ITEMS]`: tabulate against the same question written by hand in
SPARQL, side by side in one run, in process (embedded pyoxigraph), on a typed product
graph whose prices are written as text (as business data writes them).

Prints a Markdown table: median milliseconds of each, and the ratio (target <= 1.3).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

import pyoxigraph as ox

from gateway import Gateway

X = "http://shop.example/"
PREFIXES = f"PREFIX x: <{X}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "


def product_graph(items: int, seed: int = 7) -> ox.Store:
    rng = random.Random(seed)
    quads = []
    for i in range(items):
        item = ox.NamedNode(f"{X}item{i}")
        quads.append(ox.Quad(item, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), ox.NamedNode(X + "Item")))
        quads.append(ox.Quad(item, ox.NamedNode(X + "price"), ox.Literal(str(rng.randint(1, 1000)))))
        quads.append(ox.Quad(item, ox.NamedNode(X + "weight"), ox.Literal(str(rng.randint(1, 50)),
                                                                           datatype=ox.NamedNode(
                                                                               "http://www.w3.org/2001/XMLSchema#integer"))))
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


def median_ms(run: Callable[[], object], repeat: int = 7) -> float:
    run()  # warm
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(items: int) -> None:
    store = product_graph(items)
    gateway = Gateway.open(store)
    print(f"| question ({items:,} items) | tabulate ms | hand SPARQL ms | ratio |")
    print("|---|---|---|---|")
    for title, arguments, sparql in QUESTIONS:
        ours = median_ms(lambda a=arguments: gateway.call("tabulate", a))
        hand = median_ms(lambda q=sparql: list(store.query(q)))  # type: ignore[arg-type]
        print(f"| {title} | {ours:.1f} | {hand:.1f} | {ours / hand:.2f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
