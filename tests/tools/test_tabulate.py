"""tabulate: tables over one type, against a Python oracle on random typed graphs, the
walk's statement model, reader scopes, Wikidata's claims and hostile input."""

from __future__ import annotations

import itertools
import json
import operator
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.auth import Reader
from gateway.errors import GatewayError, InvalidInput
from gateway.resources import demo_path
from gateway.surfaces.problems import to_problem
from gateway.tools import TOOLS
from support.synth import STATUSES, random_graph
from tests.conftest import shared_data

X = "http://table.example/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

Term = str | tuple[str, str]
"""An IRI, or a literal as (lexical form, datatype)."""


# -- random typed graphs with literal values, and the oracle --------------------------------
def _number_literal(rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(["int", "int", "decimal", "text-number", "padded", "text", "negative"])
    n = rng.randint(0, 40)
    return {
        "int": (str(n), XSD + "integer"),
        "decimal": (f"{n}.5", XSD + "decimal"),
        "text-number": (str(n), XSD + "string"),
        "padded": (f" {n} ", XSD + "string"),
        "text": (rng.choice(["n/a", "unknown", "ten"]), XSD + "string"),
        "negative": (str(-n), XSD + "integer"),
    }[kind]


class Data:
    """A random graph of items: numbers (often written as text), a category, a name and links."""

    def __init__(self, rng: random.Random) -> None:
        self.items = [f"{X}e{i}" for i in range(rng.randint(3, 18))]
        self.cats = [f"{X}c{i}" for i in range(3)]
        self.values: dict[tuple[str, str], list[Term]] = {}
        self.types: dict[str, str] = {}
        for item in self.items:
            if rng.random() < 0.85 or item == self.items[0]:
                self.types[item] = X + ("Item" if item == self.items[0] else rng.choice(["Item", "Item", "Other"]))
            every = item == self.items[0]  # so that each predicate is in the graph
            for _ in range(1 if every else rng.choice([0, 1, 1, 1, 2])):
                self._add(item, "num", _number_literal(rng))
            if every or rng.random() < 0.8:
                self._add(item, "cat", rng.choice(self.cats))
            if every or rng.random() < 0.8:
                self._add(item, "name", (rng.choice(["Alpha", "beta", "Gamma ray", "delta", "alphabet"]), XSD + "string"))
            for _ in range(1 if every else rng.choice([0, 1, 1, 2])):
                self._add(item, "link", rng.choice(self.items))

    def _add(self, s: str, p: str, o: Term) -> None:
        found = self.values.setdefault((s, p), [])
        if o not in found:
            found.append(o)

    def store(self) -> ox.Store:
        store = ox.Store()
        quads = [ox.Quad(ox.NamedNode(s), ox.NamedNode(RDF_TYPE), ox.NamedNode(t)) for s, t in self.types.items()]
        for cat in self.cats:
            quads.append(ox.Quad(ox.NamedNode(cat), ox.NamedNode(LABEL), ox.Literal(cat[-2:].upper())))
        for (s, p), objects in self.values.items():
            for o in objects:
                term = ox.NamedNode(o) if isinstance(o, str) else ox.Literal(o[0], datatype=ox.NamedNode(o[1]))
                quads.append(ox.Quad(ox.NamedNode(s), ox.NamedNode(X + p), term))
        store.extend(quads)
        return store

    # The oracle: the table's rows, from the objects.
    def column(self, item: str, path: str) -> set[Term | None]:
        if path == "lnum":
            found = {n for link in self.values.get((item, "link"), []) for n in self.values.get((str(link), "num"), [])}
        elif path == "back":
            found = {s for (s, p), objects in self.values.items() if p == "link" and item in objects}
        else:
            found = set(self.values.get((item, path), []))
        return found or {None}

    def rows(self, kind: str, columns: list[str]) -> list[dict[str, Term | None]]:
        table = set()
        for item in self.items:
            if self.types.get(item) != X + kind:
                continue
            for values in itertools.product(*(sorted(self.column(item, c), key=repr) for c in columns)):
                table.add((item, *values))
        return [dict(zip(["id", *columns], row)) for row in table]


PATHS = {"num": f"{X}num", "cat": f"<{X}cat>", "name": f"{X}name", "lnum": f"<{X}link>/<{X}num>", "back": f"^<{X}link>"}


def number(term: Term | None) -> int | float | Decimal | None:
    """The oracle's numeric view: a number literal, or text that reads as one."""
    if term is None or isinstance(term, str):
        return None
    text = term[0].strip()
    for read in (int, Decimal):
        try:
            return read(text)
        except (ValueError, ArithmeticError):
            pass
    return None


def text(term: Term | None) -> str:
    return term if isinstance(term, str) else term[0] if term else ""


OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def passes(row: dict[str, Term | None], condition: dict[str, Any], data: Data) -> bool:
    op = condition["op"]
    if "path" in condition:  # the only path condition drawn: no links
        return not data.values.get((str(row["id"]), "link"))
    v = row[condition["column"]]
    if op == "exists":
        return v is not None
    if op == "missing":
        return v is None
    if v is None:
        return False
    if "other" in condition:
        w = row[condition["other"]]
        if w is None:
            return False
        a, b = number(v), number(w)
        return OPS[op](a, b) if a is not None and b is not None else OPS[op](text(v), text(w))
    value = condition["value"]
    if op in ("contains", "starts_with"):
        test = str.__contains__ if op == "contains" else str.startswith
        return test(text(v).lower(), str(value).lower())
    if isinstance(value, str):  # an IRI (cat)
        equal = v == value
        return equal if op == "=" else not equal
    n = number(v)
    if op in ("=", "!="):
        equal = (not isinstance(v, str) and text(v) == str(value)) or n == value
        return equal if op == "=" else not equal
    return n is not None and OPS[op](n, value)


def random_condition(rng: random.Random, columns: list[str]) -> dict[str, Any]:
    kind = rng.choice(["number", "number", "text", "cat", "presence", "other", "path"])
    if kind == "number" and "num" in columns:
        return {"column": "num", "op": rng.choice(list(OPS)), "value": rng.choice([0, 5, 10, 20.5, -3])}
    if kind == "text" and "name" in columns:
        return {"column": "name", "op": rng.choice(["contains", "starts_with"]), "value": rng.choice(["al", "A", "ray"])}
    if kind == "cat" and "cat" in columns:
        return {"column": "cat", "op": rng.choice(["=", "!="]), "value": f"{X}c{rng.randint(0, 2)}"}
    if kind == "other" and {"num", "lnum"} <= set(columns):
        return {"column": "num", "op": rng.choice(["<", ">=", "="]), "other": "lnum"}
    if kind == "path":
        return {"path": f"<{X}link>", "op": "missing"}
    return {"column": rng.choice(columns), "op": rng.choice(["exists", "missing"])}


def cell(gateway: Gateway, term: Term | None) -> object:
    """How tabulate shows a term."""
    if term is None:
        return None
    if isinstance(term, str):
        return gateway.ids.to_id(term)
    value, datatype = term
    if datatype == XSD + "integer":
        return int(value)
    if datatype == XSD + "decimal":
        return float(value)
    return value


def comparable(value: object) -> object:
    return round(float(value), 6) if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) else value


@pytest.mark.parametrize("number_", range(60))
def test_rows_equal_the_oracle_on_random_graphs(number_: int) -> None:
    rng = random.Random(number_)
    data = Data(rng)
    gateway = Gateway.open(data.store())
    columns = rng.sample(list(PATHS), k=rng.randint(1, 4))
    where = [random_condition(rng, columns) for _ in range(rng.randint(0, 2))]
    arguments: dict[str, Any] = {"type": f"{X}Item", "columns": {c: PATHS[c] for c in columns}, "where": where,
                                 "limit": 1000}
    if "num" in columns and rng.random() < 0.5:
        arguments["order_by"] = [{"column": "num", "descending": rng.random() < 0.5}]
    table = gateway.tabulate(**arguments)
    expected = [r for r in data.rows("Item", columns) if all(passes(r, c, data) for c in where)]
    want = sorted((tuple(comparable(cell(gateway, r[c])) for c in ["id", *columns]) for r in expected), key=repr)
    got = sorted((tuple(comparable(v) for v in row) for row in table.rows), key=repr)
    assert table.columns == ["id", *columns]
    assert got == want, json.dumps(arguments)
    assert table.row_count == len(want) and not table.more
    if "order_by" in arguments:  # numbers in order, then text, then nulls
        i = table.columns.index("num")
        keys = [row[i] for row in table.rows]
        numeric = [k for k in keys if isinstance(k, (int, float)) or (isinstance(k, str) and number((k, "")) is not None)]
        as_numbers = [float(number((k, "")) if isinstance(k, str) else k) for k in numeric]
        descending = arguments["order_by"][0]["descending"]
        assert as_numbers == sorted(as_numbers, reverse=descending)
        assert all(k is None for k in keys[len(keys) - keys.count(None):])


def _aggregate(fn: str, values: list[Term | None]) -> object:
    present = [v for v in values if v is not None]
    numbers = [n for n in map(number, present) if n is not None]
    if fn == "count":
        return len(present)
    if fn == "count_distinct":
        return len(set(present))
    if fn == "sum":
        return sum(numbers)
    if fn == "avg":
        return sum(numbers) / len(numbers) if numbers else None
    pick = min if fn == "min" else max
    if numbers:
        return pick(numbers)
    return pick(text(v) for v in present) if present else None


@pytest.mark.parametrize("number_", range(40))
def test_groups_equal_the_oracle_on_random_graphs(number_: int) -> None:
    rng = random.Random(1000 + number_)
    data = Data(rng)
    gateway = Gateway.open(data.store())
    by = rng.choice([None, ["cat"]])
    aggregates = {
        name: {"fn": fn, "of": of}
        for name, fn, of in rng.sample([("n", "count", "id"), ("k", "count_distinct", "id"), ("s", "sum", "num"),
                                        ("a", "avg", "num"), ("lo", "min", "num"), ("hi", "max", "num"),
                                        ("names", "count", "name")], k=rng.randint(1, 4))
    }
    columns = ["cat", "num", "name"]
    arguments: dict[str, Any] = {"type": f"{X}Item", "columns": {c: PATHS[c] for c in columns},
                                 "aggregate": aggregates}
    having: list[dict[str, Any]] = []
    if by:
        arguments["group_by"] = by
        if rng.random() < 0.5:
            having = [{"column": next(iter(aggregates)), "op": ">=", "value": 2}]
            arguments["having"] = having
    table = gateway.tabulate(**arguments)
    groups: dict[object, list[dict[str, Term | None]]] = {}
    for row in data.rows("Item", columns):
        groups.setdefault(row["cat"] if by else None, []).append(row)
    if not by and not groups:
        groups[None] = []
    want = []
    for key, rows in groups.items():
        values = {name: _aggregate(a["fn"], [r[a["of"]] for r in rows]) for name, a in aggregates.items()}
        first = next(iter(aggregates))
        if having and not (values[first] is not None and float(values[first]) >= 2):  # type: ignore[arg-type]
            continue
        want.append(tuple(comparable(v) for v in ([cell(gateway, key)] if by else []) + list(values.values())))
    got = sorted((tuple(comparable(v) for v in row) for row in table.rows), key=repr)
    assert got == sorted(want, key=repr), json.dumps(arguments)
    assert table.columns == [*(by or []), *aggregates]


def test_computed_columns_and_text_numbers() -> None:
    store = ox.Store()
    store.load(f"""
        @prefix x: <{X}> . @prefix xsd: <{XSD}> .
        x:a a x:Box ; x:w "10" ; x:d 2 ; x:h "3.5"^^xsd:decimal ; x:cat x:small .
        x:b a x:Box ; x:w " 4 " ; x:d 5 ; x:h 1 ; x:cat x:small .
        x:c a x:Box ; x:w "wide" ; x:d 1 ; x:h 1 ; x:cat x:big .
    """.encode(), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(store)
    columns = {"w": f"{X}w", "d": f"{X}d", "h": f"{X}h", "cat": f"{X}cat"}
    table = gateway.tabulate(type=f"{X}Box", columns=columns, compute={"volume": "w * d * h", "flat": "-(h - 1) / 2"},
                             order_by=[{"column": "volume", "descending": True}])
    assert [row[0] for row in table.rows] == [f"{X}a", f"{X}b", f"{X}c"]
    assert [row[5] for row in table.rows] == [70, 20, None]
    assert [row[6] for row in table.rows] == [-1.25, 0, 0]
    grouped = gateway.tabulate(type=f"{X}Box", columns=columns, group_by=["cat"],
                               aggregate={"total": {"fn": "sum", "of": "w"}, "n": {"fn": "count"}},
                               compute={"mean": "total / n"}, order_by=[{"column": "cat"}])
    assert grouped.rows == [[f"{X}big", 0, 1, 0], [f"{X}small", 14, 2, 7]]
    assert any("1 values of w that are not numbers were skipped" in w for w in grouped.warnings)
    wider = gateway.tabulate(type=f"{X}Box", columns=columns, where=[{"column": "w", "op": ">", "other": "d"}])
    assert [row[0] for row in wider.rows] == [f"{X}a", f"{X}c"]  # "wide" > "1" as text: no number to compare


def test_a_computed_value_past_a_numbers_range_is_null() -> None:
    """docs/tools.md: a formula gives a number or null. A double past its range is INF (and
    INF - INF is NaN) where an integer's or a decimal's overflow is an error: each is null,
    and sorts as one (last), never the text "INF" or "NaN"."""
    store = ox.Store()
    store.load(f"""
        @prefix x: <{X}> . @prefix xsd: <{XSD}> .
        x:a a x:Box ; x:w "1e308"^^xsd:double .
        x:b a x:Box ; x:w "2"^^xsd:double .
        x:c a x:Box ; x:w 9223372036854775807 .
    """.encode(), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(store)
    table = gateway.tabulate(type=f"{X}Box", columns={"w": f"{X}w"},
                             compute={"big": "w * 10", "nan": "w * 10 - w * 10", "half": "w / 2"},
                             order_by=[{"column": "big", "descending": True}])
    assert table.rows[0] == [f"{X}b", 2, 20, 0, 1]  # the one number first, the nulls after it
    by_id = {row[0]: row[2:] for row in table.rows}
    assert by_id[f"{X}a"] == [None, None, 5e307]
    assert by_id[f"{X}c"][:2] == [None, None]  # an integer past 64 bits is an error: null too
    grouped = gateway.tabulate(type=f"{X}Box", columns={"w": f"{X}w"}, aggregate={"total": {"fn": "sum", "of": "w"}},
                               compute={"more": "total * 10"})
    assert grouped.rows == [[1e308, None]]


def test_paging_covers_the_table_once() -> None:
    gateway = Gateway.open(demo_path())
    full = gateway.tabulate(type="sh:Person", columns={"home": "rel:LivesAt", "name": "rdfs:label"}, limit=1000)
    pages = []
    for offset in range(0, full.row_count + 3, 3):
        page = gateway.tabulate(type="sh:Person", columns={"home": "rel:LivesAt", "name": "rdfs:label"}, limit=3,
                                offset=offset)
        pages += page.rows
        assert page.more == (offset + 3 < full.row_count)
    assert pages == full.rows
    clamped = gateway.tabulate(type="sh:Person", limit=5000)
    assert clamped.limits.limit == 1000 and any("limit: 5000" in w for w in clamped.warnings)


# -- the statement model: what a walk crosses ----------------------------------------------
def _passes_filters(st: Any, filters: dict[str, Any]) -> bool:
    if st.status not in set(filters.get("truth_status", ["asserted_true"])):
        return False
    at = filters.get("as_of")
    if at is not None and st.asserted_at is not None and st.asserted_at > at:
        return False
    point = filters.get("valid_at")
    return point is None or ((st.valid_from is None or st.valid_from <= point)
                             and (st.valid_until is None or point <= st.valid_until))


@pytest.mark.parametrize("number_", range(30))
def test_statements_crossed_as_the_walk_crosses_them(number_: int) -> None:
    from tests.conftest import random_filters

    rng = random.Random(number_)
    graph = random_graph(rng, rng.randint(4, 15), rng.randint(5, 40), reified=number_ % 3 != 0, meta_fraction=0)
    store = ox.Store()
    store.load(graph.to_ntriples().encode(), format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store)
    filters = random_filters(rng)
    predicate = rng.choice(sorted({st.p for st in graph.statements}))
    kinds = sorted(set(graph.types.values()))
    if not kinds:
        pytest.skip("a graph without types")
    kind = rng.choice(kinds)
    table = gateway.tabulate(type=kind, columns={"o": f"<{predicate}>"}, limit=1000, **filters)
    got = {(row[0], row[1]) for row in table.rows if row[1] is not None}
    want = {(gateway.ids.to_id(st.s), gateway.ids.to_id(st.o)) for st in graph.statements
            if st.p == predicate and graph.types.get(st.s) == kind and _passes_filters(st, filters)}
    assert got == want, (filters, predicate)
    backwards = gateway.tabulate(type=kind, columns={"s": f"^<{predicate}>"}, limit=1000, **filters)
    want_in = {(gateway.ids.to_id(st.o), gateway.ids.to_id(st.s)) for st in graph.statements
               if st.p == predicate and graph.types.get(st.o) == kind and _passes_filters(st, filters)}
    assert {(row[0], row[1]) for row in backwards.rows if row[1] is not None} == want_in


def test_the_demo_statuses_as_the_walk_shows_them() -> None:
    gateway = Gateway.open(demo_path())
    for statuses in ([["asserted_true"]], [STATUSES]):
        for filters in ({}, {"as_of": 485}, {"valid_at": 1890}):
            arguments = {"truth_status": statuses[0], **filters}
            table = gateway.tabulate(ids=["wiki:Irene_Adler"], columns={"o": "rel:Possesses"}, **arguments)
            walk = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, predicates=["rel:Possesses"],
                                     direction="out", topology_only=True, **arguments)
            crossed = {e["object"] if isinstance(e, dict) else e.object for e in walk.edges}  # type: ignore[union-attr]
            assert {row[1] for row in table.rows if row[1] is not None} == crossed, arguments


# -- readers -------------------------------------------------------------------------------
@pytest.mark.parametrize("number_", range(10))
def test_a_reader_sees_rows_of_its_graphs_only(number_: int) -> None:
    rng = random.Random(500 + number_)
    graphs = [f"{X}graph/{i}" for i in range(3)]
    quads = list(Data(rng).store())
    store = ox.Store()  # every triple in one graph or two, at random
    store.extend([ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(g))
                  for q in quads for g in rng.sample(graphs, k=rng.choice([1, 1, 2]))])
    gateway = Gateway.open(store)
    arguments = {"type": f"{X}Item", "columns": {"cat": f"{X}cat", "num": f"{X}num"}, "group_by": ["cat"],
                 "aggregate": {"n": {"fn": "count"}, "total": {"fn": "sum", "of": "num"}}}
    merged = ox.Store()  # a triple held in two graphs is one row for a reader of both
    merged.extend(quads)
    assert gateway.call("tabulate", arguments).rows == Gateway.open(merged).call("tabulate", arguments).rows  # type: ignore[attr-defined]
    for readable in ([graphs[0]], graphs[1:]):
        alone = ox.Store()  # the readable graphs' triples only: the oracle
        alone.extend([ox.Quad(q.subject, q.predicate, q.object)
                      for g in readable for q in store.quads_for_pattern(None, None, None, ox.NamedNode(g))])
        reader = Reader("r", tuple(sorted(readable)))
        try:
            oracle = Gateway.open(alone).call("tabulate", arguments)
        except InvalidInput:  # no Item is typed in these graphs: the reader is told so too
            with pytest.raises(InvalidInput):
                gateway.call("tabulate", arguments, reader=reader)
            continue
        assert gateway.call("tabulate", arguments, reader=reader).rows == oracle.rows  # type: ignore[attr-defined]


# -- Wikidata ------------------------------------------------------------------------------
def test_wikidata_claims_as_the_walk_reads_them() -> None:
    store = ox.Store()
    store.load(path=shared_data("wikidata", "Q42.ttl"), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(store, profile="wikidata")
    table = gateway.tabulate(ids=["wd:Q42"], columns={"award": "wdt:P166", "name": "rdfs:label"}, limit=1000)
    oracle = {gateway.ids.to_id(row["o"].value) for row in store.query("""
        PREFIX p: <http://www.wikidata.org/prop/> PREFIX ps: <http://www.wikidata.org/prop/statement/>
        PREFIX wikibase: <http://wikiba.se/ontology#>
        SELECT ?o WHERE { <http://www.wikidata.org/entity/Q42> p:P166 ?st . ?st ps:P166 ?o ; wikibase:rank ?rank .
                          FILTER(?rank != wikibase:DeprecatedRank) }""")}  # type: ignore[union-attr]
    assert oracle and {row[1] for row in table.rows} == oracle
    assert {row[2] for row in table.rows} == {"Douglas Adams"}  # the reader's language only
    every = gateway.tabulate(ids=["wd:Q42"], columns={"award": "wdt:P166"}, truth_status=STATUSES, limit=1000)
    assert {row[1] for row in every.rows} >= oracle


# -- refusals ------------------------------------------------------------------------------
@pytest.mark.parametrize(("arguments", "field"), [
    ({"type": "sh:Persn"}, "type"),
    ({"type": "sh:Person", "columns": {"home": "rel:LivsAt"}}, "columns.home"),
    ({"type": "sh:Person", "columns": {"home": "rel:LivesAt"}, "order_by": [{"column": "hom"}]}, "order_by[0].column"),
    ({"type": "sh:Person", "where": [{"column": "nope", "op": "exists"}]}, "where[0].column"),
    ({"type": "sh:Person", "columns": {"id": "rdfs:label"}}, "columns.id"),
    ({"type": "sh:Person", "columns": {"a": "rdfs:label"}, "compute": {"a": "1 + 1"}}, "compute.a"),
    ({"type": "sh:Person", "compute": {"x": "__import__('os').system('true')"}}, "compute.x"),
    ({"type": "sh:Person", "compute": {"x": "n * 2"}, "columns": {"n": "rdfs:label"}, "group_by": ["n"],
      "aggregate": {"k": {"fn": "count"}}, "order_by": [{"column": "x"}]}, "order_by[0].column"),
    ({"type": "sh:Person", "having": [{"column": "id", "op": "exists"}]}, "having"),
    ({"type": "sh:Person", "columns": {"a": "rdfs:label//rel:Knows"}}, "columns.a"),
    ({"type": "sh:Person", "columns": {"a": "rdfs:label> } INSERT DATA { <a> <b> <c> } #"}}, "columns.a"),
    ({"type": "sh:Person", "aggregate": {"s": {"fn": "sum", "of": "home"}}}, "aggregate.s.of"),
])
def test_mistakes_are_named(arguments: dict[str, Any], field: str | None) -> None:
    gateway = Gateway.open(demo_path())
    with pytest.raises(InvalidInput) as raised:
        gateway.call("tabulate", arguments)
    if field is not None:
        assert raised.value.field == field, raised.value.message
    assert "\n" not in raised.value.message


HOSTILE = [
    {"type": "sh:Person\" } ; DROP ALL ; #"},
    {"type": "sh:Person", "columns": {"a b": "rdfs:label"}},
    {"type": "sh:Person", "columns": {"x": "<http://e/>} INSERT DATA { <a> <b> <c> }"}},
    {"type": "sh:Person", "columns": {"x": "rdfs:label"}, "where": [{"column": "x", "op": "=", "value": "\" ) } DROP ALL #"}]},
    {"type": "sh:Person", "columns": {"x": "rdfs:label"}, "where": [{"column": "x", "op": "contains", "value": "\\u0000>"}]},
    {"type": "sh:Person", "compute": {"x": "1" * 5000}},
    {"type": "sh:Person", "compute": {"x": "(" * 300 + "1" + ")" * 300}},
    {"type": "sh:Person", "compute": {"x": "1e309"}},
    {"type": "sh:Person", "where": [{"column": "id", "op": "in", "value": []}]},
    {"type": "sh:Person", "where": [{"column": "id", "op": "<", "value": [1, 2]}]},
    {"type": "sh:Person", "where": [{"column": "id", "op": "regex", "value": ".*"}]},
    {"type": "sh:Person", "limit": "all"},
    {"type": "sh:Person", "ids": ["wiki:Irene_Adler"]},
    {"ids": ["x" * 10_000]},
    {"type": "sh:Person", "offset": -1},
    {"type": "sh:Person", "order_by": [{"column": "id", "descending": "yes"}]},
]


@pytest.mark.parametrize("arguments", HOSTILE)
def test_hostile_input_is_refused_or_harmless(arguments: dict[str, Any]) -> None:
    gateway = Gateway.open(demo_path())
    count = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
    before = gateway.backend.select(count)[1]
    try:
        table = gateway.call("tabulate", arguments)
        assert json.dumps(table.model_dump(mode="json"))  # an answer, never a crash
    except GatewayError as error:
        assert 400 <= to_problem(error).status < 500, error
    assert gateway.backend.select(count)[1] == before


def test_the_tool_is_registered_with_its_contract() -> None:
    tool = TOOLS["tabulate"]
    fields = set(tool.input.model_fields)
    assert {"type", "ids", "include_subtypes", "columns", "where", "compute", "group_by", "aggregate", "having",
            "order_by", "limit", "offset", "truth_status", "as_of", "valid_at"} <= fields
    assert set(tool.output.model_fields) >= {"columns", "rows", "row_count", "more", "labels", "warnings", "limits"}


def test_a_hundred_rows_are_compact(medlit_gateway: Gateway) -> None:
    kind = max(medlit_gateway.describe_schema().entity_types, key=lambda t: t.count)
    table = medlit_gateway.tabulate(type=kind.id, columns={"name": "rdfs:label"}, limit=100)
    assert table.row_count == 100 and table.more == (kind.count > 100)
    cells = len(json.dumps(table.rows))
    assert len(table.model_dump_json(exclude_defaults=True)) < cells + 300  # the rows, and little besides


def test_a_column_keeps_the_readers_language_once_the_statistics_are_counted() -> None:
    """Q42 read as plain RDF, its type's statistics counted first: the label column (text in
    dozens of languages) keeps the reader's language, an untagged column is read whole."""
    path = shared_data("wikidata", "Q42.ttl")
    store = ox.Store()
    store.load(path=path, format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(path)
    gateway.describe_schema()  # the statistics, with each type's literal-valued properties
    item = "http://wikiba.se/ontology#Item"
    table = gateway.tabulate(type=item, columns={"name": "rdfs:label", "code": "wdt:P11120"},
                             limit=1000)
    oracle = {(gateway.ids.to_id(r[0].value), r[1].value) for r in store.query(  # type: ignore[union-attr]
        f"SELECT ?x ?l WHERE {{ ?x a <{item}> ; <http://www.w3.org/2000/01/rdf-schema#label> ?l "
        "FILTER(LANGMATCHES(LANG(?l), 'en') || LANGMATCHES(LANG(?l), 'mul')) }")}
    assert oracle and {(row[0], row[1]) for row in table.rows} == oracle
    codes = {r[0].value for r in store.query(  # type: ignore[union-attr]
        f"SELECT ?m WHERE {{ ?x a <{item}> ; <http://www.wikidata.org/prop/direct/P11120> ?m }}")}
    assert codes and {row[2] for row in table.rows} == codes
