"""tabulate's top rows through the order index (gateway/engine/table_order.py): every page
the index answers is the page of the full sort (the table's own query over the whole type,
the oracle), on random graphs with ties, nulls, numbers written as text, several values per
entity, filters, both directions and pages; and the index answers (it is not bypassed), on
embedded stores only."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.engine import table_order
from support.servers import OxigraphServer

X = "http://order.example/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _value(rng: random.Random) -> ox.Literal | ox.NamedNode:
    n = rng.randint(0, 12)  # few values: many ties
    kind = rng.choice(["int", "int", "text", "text", "decimal", "double", "padded", "word", "iri"])
    return {
        "int": lambda: ox.Literal(str(n), datatype=ox.NamedNode(XSD + "integer")),
        "text": lambda: ox.Literal(str(n)),
        "decimal": lambda: ox.Literal(f"{n}.0", datatype=ox.NamedNode(XSD + "decimal")),
        "double": lambda: ox.Literal(f"{n}e0", datatype=ox.NamedNode(XSD + "double")),
        "padded": lambda: ox.Literal(f" {n} "),
        "word": lambda: ox.Literal(rng.choice(["n/a", "ten", "Ten", "2020-01-0" + str(n % 9 + 1)])),
        "iri": lambda: ox.NamedNode(f"{X}v{n}"),
    }[kind]()


def _store(rng: random.Random, items: int) -> ox.Store:
    quads = []
    for i in range(items):
        item = ox.NamedNode(f"{X}e{rng.randint(0, 10 ** 6)}_{i}")  # IDs in no order of their own
        quads.append(ox.Quad(item, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + ("Item" if rng.random() < 0.9 else "Other"))))
        for predicate, present in (("v", 0.8), ("w", 0.7)):
            for _ in range(rng.choice([1, 1, 1, 2]) if rng.random() < present else 0):
                quads.append(ox.Quad(item, ox.NamedNode(X + predicate), _value(rng)))
    store = ox.Store()
    store.extend(quads)
    return store


def _questions(rng: random.Random) -> Iterator[dict[str, Any]]:
    wheres: list[list[dict[str, Any]]] = [
        [], [{"column": "w", "op": ">", "value": 4}], [{"column": "w", "op": "exists"}],
        [{"column": "v", "op": "<=", "value": "7"}], [{"column": "w", "op": "contains", "value": "e"}],
        [{"path": X + "w", "op": "missing"}],
    ]
    for _ in range(24):
        descending = rng.random() < 0.5
        columns = {"v": X + "v", "w": X + "w"} if rng.random() < 0.7 else {"v": X + "v"}
        order = [{"column": rng.choice(["v", "v", "v", "id"]), "descending": descending}]
        if rng.random() < 0.1:
            order = []
        elif rng.random() < 0.5:
            order.append({"column": rng.choice([c for c in ("w", "id") if c in [*columns, "id"]]),
                          "descending": rng.random() < 0.5})
        where = [c for c in rng.choice(wheres) if c.get("column", "w") in columns or "path" in c]
        yield {"type": X + "Item", "columns": columns, "where": where, "order_by": order,
               "limit": rng.randint(1, 8), "offset": rng.choice([0, 0, 1, 5, 20])}


class Used:
    """How many pages the index answered, and how many the caller's order first
    (`by_places`); the oracle's calls bypass both: the table's own query, sorted whole."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answered = self.by_places = 0
        self.bypass = False
        walk, indexable, places = table_order.top, table_order.indexable, table_order.by_places

        def top(*args: Any) -> Any:
            rows = walk(*args)
            self.answered += rows is not None
            return rows

        def by_places(*args: Any) -> Any:
            if self.bypass:
                return None
            found = places(*args)
            self.by_places += found is not None
            return found

        monkeypatch.setattr(table_order, "top", top)
        monkeypatch.setattr(table_order, "indexable", lambda *args: not self.bypass and indexable(*args))
        monkeypatch.setattr(table_order, "by_places", by_places)

    def compare(self, store: ox.Store, questions: Iterator[dict[str, Any]]) -> int:
        """Each question's page against the full sort's (of another gateway on the store);
        how many were asked."""
        gateway, oracle = Gateway.open(store), Gateway.open(store)
        asked = 0
        for arguments in questions:
            asked += 1
            assert gateway.call("tabulate", arguments).model_dump() == self.full(oracle, arguments), arguments
        return asked

    def full(self, gateway: Gateway, arguments: dict[str, Any]) -> dict[str, Any]:
        self.bypass = True
        try:
            return gateway.call("tabulate", arguments).model_dump()
        finally:
            self.bypass = False


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("prefix", [10_000, 150])
def test_pages_through_the_index_are_the_full_sorts(seed: int, prefix: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`prefix` 150: an index holding the head of the order only, so that some pages need
    more than it holds (and are made by the full query)."""
    monkeypatch.setattr(table_order, "PREFIX", prefix)
    monkeypatch.setattr(table_order, "FIRST", 8)  # several rounds of the walk on small graphs
    monkeypatch.setattr(table_order, "WIDTH", 1)
    rng = random.Random(seed)
    store = _store(rng, rng.randint(200, 600))
    used = Used(monkeypatch)
    asked = used.compare(store, _questions(rng))
    assert used.answered >= asked // 2  # most pages came from the index


def test_pages_follow_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paging through the whole table with the index: no row twice, none left out."""
    monkeypatch.setattr(table_order, "FIRST", 8)
    monkeypatch.setattr(table_order, "WIDTH", 1)
    rng = random.Random(11)
    store = _store(rng, 300)
    used = Used(monkeypatch)
    gateway = Gateway.open(store)
    arguments: dict[str, Any] = {"type": X + "Item", "columns": {"v": X + "v"},
                                 "order_by": [{"column": "v", "descending": True}], "limit": 7}
    rows: list[Any] = []
    offset = 0
    while True:
        page = gateway.call("tabulate", {**arguments, "offset": offset})
        rows += page.rows
        offset += 7
        if not page.more:
            break
    whole = used.full(gateway, {**arguments, "limit": 1000})
    assert rows == whole["rows"]
    assert used.answered > 1


def test_tables_the_index_cannot_answer_are_the_full_querys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grouped tables, orders by a computed column or a path of two steps, and ID lists
    are not the index's: they are made as before (a list of IDs is short already)."""
    rng = random.Random(3)
    store = _store(rng, 200)
    used = Used(monkeypatch)
    gateway = Gateway.open(store)
    for arguments in [
        {"type": X + "Item", "columns": {"v": X + "v"}, "compute": {"d": "v * 2"}, "order_by": [{"column": "d"}]},
        {"type": X + "Item", "columns": {"v": X + "v"}, "group_by": ["v"], "aggregate": {"n": {"fn": "count"}},
         "order_by": [{"column": "n", "descending": True}]},
        {"type": X + "Item", "columns": {"v": f"{X}v/^{X}v"}, "order_by": [{"column": "v"}], "limit": 5},
        {"ids": [f"{X}e1_1", f"{X}e2_2"], "columns": {"v": X + "v"}, "order_by": [{"column": "v"}]},
    ]:
        assert gateway.call("tabulate", arguments).model_dump() == used.full(gateway, arguments)
    assert used.answered == 0


def _grouped_questions(rng: random.Random) -> Iterator[dict[str, Any]]:
    """Tables no order index answers: grouped (by the ID, or by a value), or through two steps."""
    for _ in range(30):
        descending = rng.random() < 0.5
        page = {"limit": rng.randint(1, 8), "offset": rng.choice([0, 0, 1, 5, 20, 60, 90, 150])}  # deep: read from near it
        shape = rng.randrange(4)
        if shape == 0:  # a top k of the entities by a count: ties on every count
            of = rng.choice(["v", "w"])
            yield {"type": X + "Item", "columns": {of: X + of}, "group_by": ["id"],
                   "aggregate": {"n": {"fn": "count", "of": of}}, "order_by": [{"column": "n", "descending": descending}],
                   **page}
        elif shape == 1:  # groups of a value: numbers, text and IRIs side by side
            yield {"type": X + "Item", "columns": {"v": X + "v"}, "group_by": ["v"], "aggregate": {"n": {"fn": "count"}},
                   "order_by": [{"column": rng.choice(["n", "v"]), "descending": descending}], **page}
        elif shape == 2:  # two order keys, the second one breaking some ties
            yield {"type": X + "Item", "columns": {"v": X + "v", "w": X + "w"}, "group_by": ["id", "v"],
                   "aggregate": {"n": {"fn": "count", "of": "w"}},
                   "order_by": [{"column": "n", "descending": descending}, {"column": "v", "descending": rng.random() < 0.5}],
                   **page}
        else:  # rows through two steps, conditions on them
            where = rng.choice([[], [{"column": "v", "op": ">", "value": 3}], [{"column": "v", "op": "exists"}]])
            yield {"type": X + "Item", "columns": {"v": f"{X}w/^{X}w/{X}v"}, "where": where,
                   "order_by": [{"column": "v", "descending": descending}], **page}


@pytest.mark.parametrize("seed", range(6))
def test_pages_by_places_are_the_full_sorts(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sorted by the caller's order first, then the tied places' rows (over the entities
    holding them where the first query shows them all): every page is the full sort's,
    whatever the values (numbers written several ways, text, IRIs, nulls)."""
    rng = random.Random(seed)
    store = _store(rng, rng.randint(100, 400))
    used = Used(monkeypatch)
    asked = used.compare(store, _grouped_questions(rng))
    assert used.by_places >= asked // 2


def test_a_top_k_by_a_count_is_the_counts_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entities with the most values, against the values counted in Python from the
    store's quads (ties in ID order, as the table's order puts them), on every page."""
    rng = random.Random(7)
    store = _store(rng, 500)
    used = Used(monkeypatch)
    gateway = Gateway.open(store)
    items = {str(q.subject.value) for q in store.quads_for_pattern(None, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item"))}
    counts = dict.fromkeys(items, 0)
    for quad in store.quads_for_pattern(None, ox.NamedNode(X + "v"), None):
        if quad.subject.value in counts:
            counts[quad.subject.value] += 1
    expected = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    for offset in (0, 3, 50, 130, 470):
        page = gateway.call("tabulate", {"type": X + "Item", "columns": {"v": X + "v"}, "group_by": ["id"],
                                         "aggregate": {"n": {"fn": "count", "of": "v"}},
                                         "order_by": [{"column": "n", "descending": True}], "limit": 25, "offset": offset})
        assert [tuple(row) for row in page.rows] == expected[offset:offset + 25]
    assert used.by_places == 5


def test_one_row_an_entity_is_ordered_by_its_id_alone() -> None:
    """Where no column has two values for one entity, the ID sets rows apart without the keys
    of every column: the pages are still the order's own (against a sort in Python), and a
    column with two values for one entity keeps them."""
    rng = random.Random(13)
    store = ox.Store()
    for i in range(300):
        item = ox.NamedNode(f"{X}e{rng.randint(0, 10 ** 6)}_{i}")
        store.add(ox.Quad(item, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item")))
        value = ox.Literal(str(rng.randint(0, 9)), datatype=ox.NamedNode(XSD + "integer"))
        store.add(ox.Quad(item, ox.NamedNode(X + "v"), value))
        if i % 3 == 0:
            store.add(ox.Quad(item, ox.NamedNode(X + "w"), ox.Literal(str(i))))
    first = next(iter(store.quads_for_pattern(None, ox.NamedNode(X + "w"), None))).subject
    store.add(ox.Quad(first, ox.NamedNode(X + "w"), ox.Literal("again")))  # two values: one entity
    gateway = Gateway.open(store)
    queries: list[str] = []
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
    values = {q.subject.value: int(q.object.value) for q in store.quads_for_pattern(None, ox.NamedNode(X + "v"), None)}
    expected = sorted(values.items(), key=lambda item: (-item[1], item[0]))
    for offset in (0, 7, 100, 290):
        queries.clear()
        page = gateway.call("tabulate", {"type": X + "Item", "columns": {"v": X + "v"}, "compute": {"half": "v / 2"},
                                         "order_by": [{"column": "v", "descending": True}], "limit": 9, "offset": offset})
        assert [(row[0], row[1]) for row in page.rows] == expected[offset:offset + 9]
        assert not any("IF(isLiteral(" in q for q in queries)
    queries.clear()
    gateway.call("tabulate", {"type": X + "Item", "columns": {"v": X + "v", "w": X + "w"},
                              "order_by": [{"column": "v", "descending": True}], "limit": 9})
    assert any("IF(isLiteral(?c_w)" in q for q in queries)


MIXED = """
import random, sys
import pyoxigraph as ox
from gateway import Gateway
X, XSD, TYPE = "http://mixed.example/", "http://www.w3.org/2001/XMLSchema#", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
rng = random.Random(2)  # a graph whose values made the sort panic
def typed(text, kind):
    return ox.Literal(text, datatype=ox.NamedNode(XSD + kind))
def value():
    n = rng.randint(0, 12)
    return rng.choice([typed(str(n), "integer"), ox.Literal(str(n)), typed(f"{n}.0", "decimal"),
                       ox.Literal(f"{n}", language="en"), typed(f"{n}e0", "double"), typed("NaN", "double"),
                       typed(f"2020-01-0{n % 9 + 1}", "date"),
                       ox.NamedNode(f"{X}v{n}"), typed("true", "boolean"), ox.BlankNode(f"b{n}")])
store = ox.Store()
for i in range(400):
    store.add(ox.Quad(ox.NamedNode(f"{X}e{i}"), ox.NamedNode(TYPE), ox.NamedNode(X + "Item")))
    store.add(ox.Quad(ox.NamedNode(f"{X}e{i}"), ox.NamedNode(X + "v"), value()))
gateway = Gateway.open(store)
for arguments in [{"group_by": ["v"], "aggregate": {"n": {"fn": "count"}}, "order_by": [{"column": "n", "descending": True}]},
                  {"group_by": ["v"], "aggregate": {"n": {"fn": "count"}}, "order_by": [{"column": "v"}]},
                  {"order_by": [{"column": "v", "descending": True}], "limit": 7}]:
    gateway.call("tabulate", {"type": X + "Item", "columns": {"v": X + "v"}, **arguments})
print("answered")
"""


def test_values_of_mixed_types_are_ordered_without_aborting_the_process() -> None:
    """Ordered by the terms themselves, literals of mixed types (numbers, text, dates)
    made the store's sort panic on this graph, which aborts the process (here a child's)."""
    done = subprocess.run([sys.executable, "-c", MIXED], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0 and "answered" in done.stdout, done.stderr[-2000:]


@pytest.mark.parametrize("prefix", [40, 10_000])
def test_a_tie_the_page_ends_in_is_counted_whole(prefix: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tie's rows are counted over the entities the index holds for its value only where
    it holds them all: 100 items share the top value, and an index of 40 entries holds some."""
    monkeypatch.setattr(table_order, "PREFIX", prefix)
    store = ox.Store()
    for i in range(160):
        item = ox.NamedNode(f"{X}e{i:03d}")
        store.add(ox.Quad(item, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item")))
        store.add(ox.Quad(item, ox.NamedNode(X + "v"), ox.Literal(str(99 if i % 8 < 5 else i % 8))))
    used = Used(monkeypatch)
    gateway = Gateway.open(store)
    queries: list[str] = []
    gateway.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
    arguments = {"type": X + "Item", "columns": {"v": X + "v"}, "order_by": [{"column": "v", "descending": True}],
                 "limit": 3}
    page = gateway.call("tabulate", arguments)
    assert used.answered == 1
    (count,) = [q for q in queries if 'STR(?c_v) IN ("99")' in q]
    assert ("VALUES ?c_id" in count) == (prefix > 100)  # over the index's entities where it holds them all
    assert any("100 rows have v = " in w for w in page.warnings)  # type: ignore[attr-defined]
    assert page.model_dump() == used.full(gateway, arguments)


def test_an_endpoint_gets_the_tables_own_query_and_no_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only an embedded store builds or reads an order index: an endpoint (`oxigraph serve`
    over the same file) is sent the table's own queries over the whole type, and its page
    is the embedded store's."""
    rng = random.Random(5)
    store = _store(rng, 300)
    path = tmp_path / "items.nt"
    store.dump(path, format=ox.RdfFormat.N_QUADS)
    server = OxigraphServer([path])
    try:
        remote = Gateway.connect(server.url, cache_ttl=0)
        queries: list[str] = []
        remote.backend.query_log = lambda text, rows: queries.append(text)  # type: ignore[attr-defined]
        used = Used(monkeypatch)
        embedded = Gateway.open(store)
        for arguments in [{"type": X + "Item", "columns": {"v": X + "v"}, "where": [{"column": "v", "op": ">", "value": 3}],
                           "order_by": [{"column": "v", "descending": True}], "limit": 5},
                          {"type": X + "Item", "columns": {"w": X + "w"}, "limit": 5}]:
            queries.clear()
            assert remote.call("tabulate", arguments).model_dump() == embedded.call("tabulate", arguments).model_dump()
            tables = [q for q in queries if q.startswith("# A table")]  # the page, then a tie's count if any
            assert tables and all(f"<{X}Item>" in q and "VALUES ?c_id" not in q for q in tables)
            assert not any(f"LIMIT {table_order.PREFIX + 1}" in q for q in queries)
        assert used.answered == 2  # the embedded store's pages came from its index
    finally:
        server.stop()
