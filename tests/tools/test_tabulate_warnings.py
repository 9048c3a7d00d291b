"""tabulate says what a page of rows hides, and reads repeated steps and a column's language.

Every expectation is a SPARQL query written here by hand, run by pyoxigraph on the same
store: on random graphs (ties on a small range of values, names shared by suppliers,
missing values, chains and cycles of `broader`), on pyshacl's SHACL and schema.org (an
`rdf:List` read by `rdf:rest*/rdf:first`, `rdfs:subClassOf+`) and on Wikidata's own export
of Douglas Adams (labels by language).
"""

from __future__ import annotations

import importlib.resources
import random
import re
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.errors import InvalidInput
from gateway.resources import demo_path
from tests.conftest import shared_data

X = "http://table.example/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_TYPE = RDF + "type"
STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
PREFIXES = f"PREFIX t: <{X}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"


def literal_value(term: Any) -> object:
    if isinstance(term, ox.Literal):
        value = term.value
        return int(value) if term.datatype.value.endswith("#integer") else value
    return term.value


def select(store: ox.Store, query: str) -> list[list[Any]]:
    return [[row[i] for i in range(len(row))] for row in store.query(PREFIXES + query)]  # type: ignore[union-attr]


def open_gateway(store: ox.Store) -> Gateway:
    return Gateway.open(store, prefixes={"t": X})


def warning(table: Any, start: str) -> str | None:
    return next((w for w in table.warnings if w.startswith(start)), None)


# -- ties split by the page's edge ----------------------------------------------------------
def tied_store(rng: random.Random) -> ox.Store:
    """Items with a score from a small range (many ties), some without one, each in a category."""
    store = ox.Store()
    for i in range(rng.randint(4, 30)):
        item = ox.NamedNode(f"{X}i{i:02d}")
        store.add(ox.Quad(item, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item")))
        if rng.random() < 0.85:
            store.add(ox.Quad(item, ox.NamedNode(X + "score"), ox.Literal(str(rng.randint(0, 4)),
                                                                             datatype=ox.NamedNode(XSD_INTEGER))))
        if rng.random() < 0.8:
            store.add(ox.Quad(item, ox.NamedNode(X + "cat"), ox.NamedNode(f"{X}c{rng.randint(0, 3)}")))
    return store


XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


@pytest.mark.parametrize("number_", range(30))
def test_a_tie_split_by_the_page_edge_is_said_with_its_size(number_: int) -> None:
    rng = random.Random(number_)
    store = tied_store(rng)
    gateway = open_gateway(store)
    descending = rng.random() < 0.5
    # The oracle's order: scores, nulls last, then the ID (the gateway's tie break).
    ordered = select(store, "SELECT ?e ?s WHERE { ?e a t:Item OPTIONAL { ?e t:score ?s } } "
                            f"ORDER BY ASC(!BOUND(?s)) {'DESC' if descending else 'ASC'}(?s) ?e")
    limit = rng.randint(1, max(1, len(ordered) - 1))
    offset = rng.randint(0, max(0, len(ordered) - limit - 1))
    table = gateway.tabulate(type="t:Item", columns={"score": "t:score"}, order_by=[
        {"column": "score", "descending": descending}], limit=limit, offset=offset)
    assert [row[0] for row in table.rows] == [gateway.ids.to_id(r[0].value) for r in ordered[offset:offset + limit]]
    said = warning(table, "order_by: the page ends inside a tie")
    end = offset + limit
    if end >= len(ordered) or ordered[end - 1][1] != ordered[end][1]:
        assert said is None, said
        return
    value = ordered[end - 1][1]
    n = select(store, "SELECT (COUNT(*) AS ?n) WHERE { ?e a t:Item "
                      + (f"; t:score {value} }}" if value is not None else "FILTER NOT EXISTS { ?e t:score ?s } }"))
    on_page = sum(1 for r in ordered[offset:end] if r[1] == value)
    assert said is not None
    assert f": {literal_value(n[0][0])} rows have score = {'null' if value is None else value.value}, " \
           f"{on_page} of them on this page" in said, said


@pytest.mark.parametrize("number_", range(15))
def test_a_tie_among_groups_is_said_with_its_size(number_: int) -> None:
    """The top categories by count: a category past the page with as many items is said."""
    rng = random.Random(100 + number_)
    store = tied_store(rng)
    gateway = open_gateway(store)
    groups = select(store, "SELECT ?c (COUNT(?e) AS ?n) WHERE { ?e a t:Item OPTIONAL { ?e t:cat ?c } } GROUP BY ?c "
                           "ORDER BY DESC(?n) ?c")
    counts = [int(literal_value(n)) for _, n in groups]  # type: ignore[call-overload]
    table = gateway.tabulate(type="t:Item", columns={"cat": "t:cat"}, group_by=["cat"],
                             aggregate={"n": {"fn": "count"}}, order_by=[{"column": "n", "descending": True}], limit=1)
    assert table.rows[0][1] == counts[0]
    said = warning(table, "order_by: the page ends inside a tie")
    if len(counts) < 2 or counts[0] != counts[1]:
        assert said is None, said
    else:
        assert said is not None and f": {counts.count(counts[0])} rows have n = {counts[0]}, 1 of them" in said, said


def test_a_tie_on_medlit_is_said_as_sparql_counts_it(medlit_gateway: Gateway) -> None:
    """The drugs that treat the most diseases (docs/tools.md's example), a page of three:
    every drug treating as many as the third is counted, as SPARQL counts them (every
    statement, asserted or held by a reifier alone, whatever its truth status)."""
    gateway = medlit_gateway
    drug, treats = (gateway.ids.resolve(name, "x", allow_local_name=True).iri for name in ("drug", "TREATS"))
    table = gateway.tabulate(type="drug", columns={"disease": "TREATS"}, group_by=["id"],
                             aggregate={"diseases": {"fn": "count_distinct", "of": "disease"}},
                             order_by=[{"column": "diseases", "descending": True}], limit=3, truth_status=STATUSES)
    counts = [int(row[1].value) for row in gateway.backend.store.query(  # type: ignore[attr-defined]
        f"SELECT ?d (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?d a <{drug}> OPTIONAL {{ {{ ?d <{treats}> ?x }} UNION "
        f"{{ ?r <{RDF}reifies> <<( ?d <{treats}> ?x )>> }} }} }} GROUP BY ?d ORDER BY DESC(?n)",
        use_default_graph_as_union=True)]
    assert [row[1] for row in table.rows] == counts[:3]
    said = warning(table, "order_by: the page ends inside a tie")
    if counts[2] != counts[3]:
        assert said is None
    else:
        shown = counts[:3].count(counts[2])
        assert said is not None and f": {counts.count(counts[2])} rows have diseases = {counts[2]}, {shown} of them" \
            in said, said


# -- names that are no keys, and null groups ------------------------------------------------
def suppliers_store(rng: random.Random, shared: int) -> ox.Store:
    """Suppliers, `shared` of whose names belong to two of them, and orders from them."""
    store = ox.Store()
    names = [f"Supplier {i}" for i in range(rng.randint(shared + 1, shared + 6))]
    suppliers = []
    for i, name in enumerate(names):
        for copy in range(2 if i < shared else 1):
            supplier = ox.NamedNode(f"{X}s{i}_{copy}")
            suppliers.append(supplier)
            store.add(ox.Quad(supplier, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Supplier")))
            store.add(ox.Quad(supplier, ox.NamedNode(LABEL), ox.Literal(name)))
    for i in range(rng.randint(10, 40)):
        order = ox.NamedNode(f"{X}o{i}")
        store.add(ox.Quad(order, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Order")))
        if rng.random() < 0.85:
            store.add(ox.Quad(order, ox.NamedNode(X + "supplier"), rng.choice(suppliers)))
    return store


def merged_groups(said: str) -> tuple[int, dict[str, int]]:
    """(the groups counted, name -> entities) of a warning on merged names."""
    count = re.search(r": (\d+) groups? (each merge|merges)", said)
    examples = {name: int(n) for name, n in re.findall(r'"([^"]+)" \((\d+) entities\)', said)}
    assert count is not None, said
    return int(count.group(1)), examples


@pytest.mark.parametrize("number_", range(12))
def test_a_group_of_a_name_several_entities_share_is_said(number_: int) -> None:
    """Four supplier names, each two suppliers': grouped by the name (on the suppliers, or
    on orders through their supplier), each such group is said to merge them."""
    rng = random.Random(number_)
    store = suppliers_store(rng, shared=rng.choice([0, 1, 4]))
    gateway = open_gateway(store)
    by_rows = gateway.tabulate(type="t:Supplier", columns={"name": "rdfs:label"}, group_by=["name"],
                               aggregate={"n": {"fn": "count"}})
    through = gateway.tabulate(type="t:Order", columns={"name": "t:supplier/rdfs:label"}, group_by=["name"],
                               aggregate={"orders": {"fn": "count"}}, limit=3)
    for table, query in ((by_rows, "SELECT ?l (COUNT(DISTINCT ?s) AS ?k) WHERE { ?s a t:Supplier ; rdfs:label ?l } "
                                   "GROUP BY ?l HAVING (COUNT(DISTINCT ?s) > 1)"),
                         (through, "SELECT ?l (COUNT(DISTINCT ?s) AS ?k) WHERE { ?o a t:Order ; t:supplier ?s . "
                                   "?s rdfs:label ?l } GROUP BY ?l HAVING (COUNT(DISTINCT ?s) > 1)")):
        expected = {row[0].value: int(literal_value(row[1])) for row in select(store, query)}  # type: ignore[call-overload]
        said = warning(table, "group_by name: a name is no key")
        if not expected:
            assert said is None, said
            continue
        assert said is not None
        count, examples = merged_groups(said)
        assert count == len(expected) and examples and examples.items() <= expected.items()
        shown = {row[0] for row in table.rows}
        # Those on the page come first among the examples.
        assert list(examples)[: len(shown & set(expected))] == sorted(
            list(examples)[: len(shown & set(expected))], key=lambda name: name not in shown)


def test_a_column_not_of_names_is_not_said_to_merge() -> None:
    store = suppliers_store(random.Random(3), shared=2)
    table = open_gateway(store).tabulate(type="t:Order", columns={"supplier": "t:supplier"}, group_by=["supplier"],
                                         aggregate={"n": {"fn": "count"}})
    assert not warning(table, "group_by supplier: a name")


@pytest.mark.parametrize("number_", range(12))
def test_a_null_group_says_how_many_rows_lack_the_value(number_: int) -> None:
    rng = random.Random(number_)
    store = suppliers_store(rng, shared=1)
    gateway = open_gateway(store)
    where = [{"column": "n", "op": "exists"}] if rng.random() < 0.3 else []
    table = gateway.tabulate(type="t:Order", columns={"supplier": "t:supplier", "n": "t:supplier/rdfs:label"},
                             where=where, group_by=["supplier"], aggregate={"k": {"fn": "count"}}, limit=1000)
    lacking = select(store, "SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ?o a t:Order "
                            "FILTER NOT EXISTS { ?o t:supplier ?s } }")[0][0]
    n = 0 if where else int(literal_value(lacking))  # type: ignore[call-overload]
    said = warning(table, "group_by supplier: the group with supplier null")
    assert (said is not None) == (n > 0) == any(row[0] is None for row in table.rows)
    if said:
        assert f"holds the {n} rows that have no supplier" in said, said


# -- repeated steps ------------------------------------------------------------------------
def concepts_store(rng: random.Random) -> ox.Store:
    """Concepts with `broader` links: chains, shared ancestors and, at times, a cycle."""
    store = ox.Store()
    concepts = [ox.NamedNode(f"{X}k{i}") for i in range(rng.randint(3, 25))]
    for i, concept in enumerate(concepts):
        store.add(ox.Quad(concept, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Concept")))
        for _ in range(rng.choice([0, 1, 1, 2])):
            target = rng.randrange(len(concepts)) if rng.random() < 0.15 else rng.randrange(i + 1)
            if target != i or rng.random() < 0.3:
                store.add(ox.Quad(concept, ox.NamedNode(X + "broader"), concepts[target]))
        store.add(ox.Quad(concept, ox.NamedNode(LABEL), ox.Literal(f"concept {i}")))
    return store


def pairs(gateway: Gateway, table: Any) -> set[tuple[str, Any]]:
    return {(row[0], row[1]) for row in table.rows}


@pytest.mark.parametrize("number_", range(25))
def test_repeated_steps_equal_sparql_property_paths(number_: int) -> None:
    rng = random.Random(number_)
    store = concepts_store(rng)
    gateway = open_gateway(store)
    for path, sparql in (("t:broader+", "t:broader+"), ("t:broader*", "t:broader*"), ("^t:broader+", "^t:broader+"),
                         ("t:broader*/rdfs:label", "t:broader*/rdfs:label"), ("t:broader/t:broader+", "t:broader/t:broader+")):
        rows = select(store, f"SELECT ?e ?x WHERE {{ ?e a t:Concept OPTIONAL {{ ?e {sparql} ?x }} }}")
        expected = {(gateway.ids.to_id(e.value), None if x is None else
                     x.value if isinstance(x, ox.Literal) else gateway.ids.to_id(x.value)) for e, x in rows}
        table = gateway.tabulate(type="t:Concept", columns={"x": path}, limit=1000)
        assert pairs(gateway, table) == expected, path
        assert table.row_count == len(expected) and not table.more
    where = gateway.tabulate(type="t:Concept", columns={}, where=[{"path": "t:broader+", "op": "=", "value": "t:k0"}],
                             limit=1000)
    below = select(store, "SELECT ?e WHERE { ?e a t:Concept ; t:broader+ t:k0 }")
    assert sorted(row[0] for row in where.rows) == sorted(gateway.ids.to_id(e.value) for (e,) in below)


def pyshacl_asset(name: str) -> Path:
    return Path(str(importlib.resources.files("pyshacl") / "assets" / name))


def test_an_rdf_list_read_by_rest_star_first_on_shacl() -> None:
    """SHACL's `sh:in` lists, each member a row, as SPARQL reads them."""
    path = pyshacl_asset("shacl.ttl")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(path)
    sh = "http://www.w3.org/ns/shacl#"
    rows = select(store, f"SELECT ?s ?m WHERE {{ ?s <{sh}in>/rdf:rest*/rdf:first ?m FILTER(isIRI(?s)) }}".replace(
        "rdf:", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#").replace("#rest*", "#rest>*").replace("#first ", "#first> "))
    holders = sorted({s.value for s, _ in rows})
    assert holders and len(rows) > len(holders)
    table = gateway.tabulate(ids=holders, columns={"member": "sh:in/rdf:rest*/rdf:first"}, limit=1000)
    assert pairs(gateway, table) == {(gateway.ids.to_id(s.value), gateway.ids.to_id(m.value)) for s, m in rows}


def test_superclasses_by_subclass_of_plus_on_schema_org() -> None:
    """schema.org as pyshacl ships it (`http://schema.org/`): each class's superclasses."""
    path = pyshacl_asset("schema.ttl")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(path)
    classes = sorted(row[0].value for row in select(store, "SELECT ?c WHERE { ?c a rdfs:Class FILTER(isIRI(?c)) }"))
    chosen = random.Random(7).sample(classes, 40)
    values = " ".join(f"<{c}>" for c in chosen)
    rows = select(store, f"SELECT ?c ?s WHERE {{ VALUES ?c {{ {values} }} OPTIONAL {{ ?c rdfs:subClassOf+ ?s }} }}")
    table = gateway.tabulate(ids=chosen, columns={"super": "rdfs:subClassOf+"}, limit=1000)
    assert pairs(gateway, table) == {(gateway.ids.to_id(c.value), None if s is None else gateway.ids.to_id(s.value))
                                     for c, s in rows}


def test_a_repeated_step_is_refused_where_filters_could_hide_what_it_crosses() -> None:
    """The demo's statements carry truth statuses: a property path cannot judge them one by one."""
    gateway = Gateway.open(demo_path())
    with pytest.raises(InvalidInput) as refused:
        gateway.tabulate(type="sh:Person", columns={"x": "rel:Knows+"})
    assert refused.value.field == "columns.x" and "transitive_closure_query" in str(refused.value)


# -- a column's language -------------------------------------------------------------------
@pytest.mark.parametrize("tag", ["de", "ja", "fr"])
def test_a_label_column_in_a_language_on_wikidata(tag: str) -> None:
    path = shared_data("wikidata", "Q42.ttl")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(path)
    labelled = select(store, "SELECT DISTINCT ?e WHERE { ?e rdfs:label ?l FILTER(isIRI(?e)) } ORDER BY ?e LIMIT 60")
    ids = [e.value for (e,) in labelled]
    values = " ".join(f"<{e}>" for e in ids)
    rows = select(store, f"SELECT ?e ?l WHERE {{ VALUES ?e {{ {values} }} OPTIONAL {{ ?e rdfs:label ?l "
                         f"FILTER(LANGMATCHES(LANG(?l), '{tag}')) }} }}")
    table = gateway.tabulate(ids=ids, columns={"label": f"rdfs:label@{tag}"}, limit=1000)
    expected = {(gateway.ids.to_id(e.value), None if label is None else label.value) for e, label in rows}
    assert pairs(gateway, table) == expected
    assert any(label is not None for _, label in expected)


@pytest.mark.parametrize(("path", "field"), [
    ("rdfs:label@de/rdfs:label", "columns.x"),  # a language on a step before the last
    ("rdfs:label@", "columns.x"),
    ("rdfs:label@de!", "columns.x"),
    ("*", "columns.x"),
    ("^+", "columns.x"),
    ("^rdfs:label@de", "columns.x"),  # a language backwards
])
def test_a_misread_step_is_refused_naming_its_field(path: str, field: str) -> None:
    gateway = open_gateway(concepts_store(random.Random(1)))
    with pytest.raises(InvalidInput) as refused:
        gateway.tabulate(type="t:Concept", columns={"x": path})
    assert refused.value.field == field


# -- on remote endpoints ---------------------------------------------------------------------
@pytest.mark.parametrize("server", ["oxigraph", "virtuoso"])
def test_remote_endpoints_answer_as_the_embedded_store(server: str, tmp_path: Path) -> None:
    """Repeated steps, a column's language, ties, merged names and null groups over HTTP
    (`oxigraph serve`, Virtuoso; a server not installed skips), as the embedded store answers."""
    from support.servers import OxigraphServer, VirtuosoServer

    store = ox.Store()
    for part in (concepts_store(random.Random(4)), suppliers_store(random.Random(5), shared=3), tied_store(random.Random(2))):
        store.extend(part)
    store.add(ox.Quad(ox.NamedNode(X + "k0"), ox.NamedNode(LABEL), ox.Literal("Begriff", language="de")))
    for tied in ("i98", "i99"):  # the highest score, twice: a page of one ends inside a tie
        store.add(ox.Quad(ox.NamedNode(X + tied), ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Item")))
        store.add(ox.Quad(ox.NamedNode(X + tied), ox.NamedNode(X + "score"),
                          ox.Literal("99", datatype=ox.NamedNode(XSD_INTEGER))))
    path = tmp_path / "data.nt"
    store.dump(output=str(path), format=ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
    calls: list[dict[str, Any]] = [
        {"type": "t:Concept", "columns": {"up": "t:broader+", "name": "t:broader*/rdfs:label"}, "limit": 1000},
        {"type": "t:Concept", "columns": {"de": "rdfs:label@de"}, "limit": 1000},
        {"type": "t:Item", "columns": {"score": "t:score"}, "order_by": [{"column": "score", "descending": True}],
         "limit": 1},
        {"type": "t:Item", "columns": {"score": "t:score"}, "order_by": [{"column": "score"}], "limit": 3},
        {"type": "t:Order", "columns": {"name": "t:supplier/rdfs:label"}, "group_by": ["name"],
         "aggregate": {"n": {"fn": "count"}}, "order_by": [{"column": "n", "descending": True}], "limit": 2},
        # Ascending, nulls last: a key Virtuoso once took for a constant on a count, and refused.
        {"type": "t:Order", "columns": {"name": "t:supplier/rdfs:label"}, "group_by": ["name"],
         "aggregate": {"n": {"fn": "count"}}, "order_by": [{"column": "n"}], "limit": 2},
    ]
    graph = "https://example.org/graph/tables"  # Virtuoso keeps no graph-less triples
    if server == "oxigraph":
        started: OxigraphServer | VirtuosoServer = OxigraphServer([path])
        embedded, url, options = open_gateway(store), started.url, {}
    else:  # Virtuoso reads native's templates in the plain profile only
        started = VirtuosoServer(ox.serialize([ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(graph))
                                               for q in store], format=ox.RdfFormat.N_QUADS).decode())
        embedded = Gateway.open(store, prefixes={"t": X}, profile="plain")
        url, options = started.url, {"profile": "plain", "graphs": [graph]}
    try:
        remote = Gateway.connect(url, prefixes={"t": X}, **options)  # type: ignore[arg-type]
        for arguments in calls:
            local, far = embedded.tabulate(**arguments), remote.tabulate(**arguments)
            assert (sorted(map(repr, far.rows)), far.warnings) == (sorted(map(repr, local.rows)), local.warnings), arguments
        assert any(w.startswith("order_by: the page ends inside a tie") for w in embedded.tabulate(**calls[2]).warnings)
        assert any("a name is no key" in w for w in embedded.tabulate(**calls[4]).warnings)
    finally:
        started.stop()


def test_a_repeated_step_past_what_a_table_may_hold_is_refused_whole() -> None:
    """A chain of 800 `next` links: `next*` from each node reaches every node after it,
    320,400 solutions, past what one table may hold (deadline.HELD_SOLUTIONS): refused
    (TooLarge), never a page of part of it; a page of what it can hold is whole. (Ordered by
    the repeated step's column: no order index makes its page from a few nodes.)"""
    from gateway.deadline import HELD_SOLUTIONS
    from gateway.errors import TooLarge

    store = ox.Store()
    nodes = [ox.NamedNode(f"{X}n{i:04d}") for i in range(800)]
    for i, node in enumerate(nodes):
        store.add(ox.Quad(node, ox.NamedNode(RDF_TYPE), ox.NamedNode(X + "Node")))
        if i + 1 < len(nodes):
            store.add(ox.Quad(node, ox.NamedNode(X + "next"), nodes[i + 1]))
    assert HELD_SOLUTIONS < 800 * 801 // 2
    gateway = open_gateway(store)
    with pytest.raises(TooLarge):
        gateway.tabulate(type="t:Node", columns={"after": "t:next*"}, order_by=[{"column": "after"}], limit=10)
    near = gateway.tabulate(type="t:Node", columns={"after": "t:next*"}, where=[{"column": "id", "op": "in", "value": [
        "t:n0790", "t:n0795"]}], limit=1000)
    assert near.row_count == 10 + 5 and not near.more
