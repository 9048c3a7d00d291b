"""Every template, rendered with every flag it has, gives the same rows remote and embedded.

Rows are compared as multisets (in order where the query has ORDER BY). The one
difference allowed is Virtuoso's: it has no boolean type and answers 1 and 0, which the
profiles read as true and false.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pyoxigraph as ox
import pytest

from gateway.backends import results
from gateway.backends.base import Backend
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.engine.namespaces import KEY_PATTERN
from gateway.profiles.base import NON_EDGE_PREDICATES, HopPlan, time_filters
from gateway.resources import resource_dir
from gateway.sparql import Sparql, integer, iri, iris, literal, render, template, triples
from gateway.terms import XSD, Literal
from tests.conftest import DEMO, DEMO_GRAPHS, demo_reification

W = "https://example.org/wiki/"
S = "https://example.org/stmt/"
BFS = "https://w3id.org/bfsql#"
NODES = [W + "Sherlock_Holmes", W + "Irene_Adler", W + "King_of_Bohemia", W + "Odessa", W + "Nonconformist_Clergyman",
         S + "s12", S + "s13", S + "s40", "https://example.org/obj/photograph"]
RDFS_LABEL, REL_KNOWS = "http://www.w3.org/2000/01/rdf-schema#label", "https://example.org/rel/Knows"
SLOTS: dict[str, Sparql] = {
    "excluded": iris(NON_EDGE_PREDICATES, ", "), "ids": iris(NODES), "frontier": iris(NODES), "id": iri(W + "Irene_Adler"),
    "truth_status": iris([BFS + "asserted_true", BFS + "disputed", BFS + "hypothetical"], ", "), "limit": integer(1000),
    "predicates": iris(["https://example.org/rel/Possesses", "https://example.org/rel/Knows"], ", "),
    "predicate_values": iris(["https://example.org/rel/Possesses", "https://example.org/rel/Knows"]),
    "trait_predicates": iris(["https://example.org/rel/Knows", "https://example.org/rel/DisguisedAs"], ", "),
    "after": literal("https://example.org/obj/photograph"),
    "types": iris(["https://example.org/schema/Person"], ", "), "start": iri(W + "221B_Baker_Street"),
    "type_values": iris(["https://example.org/schema/Person", "http://www.w3.org/2000/01/rdf-schema#Class"]),
    "predicate": iri("https://example.org/rel/PartOf"), "kind": iri(BFS + "bookkeeping"),
    "document": iri(W + "A_Scandal_in_Bohemia"), "first": integer(0), "window": integer(3),
    "triples": triples([(W + "Irene_Adler", "https://example.org/rel/Possesses", "https://example.org/obj/photograph")]),
    "seeds": iris(NODES[:2]), "seed_list": iris(NODES[:2], ", "), "nodes": integer(1000), "first_limit": integer(1000),
    "second_limit": integer(1000), "types_limit": integer(1000),
    "iris": iris(NODES[:2]), "others": iris(NODES[2:4]), "literals": literal("Irene Adler"),
    "claims": Sparql(f"({iri(RDFS_LABEL)} {literal('Irene Adler')}) ({iri(REL_KNOWS)} {iri(W + 'Irene_Adler')})"),
    "claim_predicates": iris([REL_KNOWS]),
    "spellings": iris(["http://example.org/wiki/Irene_Adler", W + "Dr_Watson"]),
    "identity": iris([REL_KNOWS]), "identity_list": iris([REL_KNOWS], ", "), "identifiers": iris([RDFS_LABEL]),
    "incoming": Sparql(f"{{ SELECT ?x ?p ?v WHERE {{ VALUES ?x {{ {iris(NODES)} }} ?v {iri(REL_KNOWS)} ?x . "
                       f"BIND({iri(REL_KNOWS)} AS ?p) }} }}"),
    "pattern": literal(KEY_PATTERN),
    "statements": iris(NODES[5:8]), "names": iris([RDFS_LABEL], ", "), "unsearched": iris([RDFS_LABEL], ", "),
    "fields": iris([BFS + "truthStatus", BFS + "confidence"]),
    "truth_texts": literal(BFS + "asserted_true"), "typed": iris(NODES[:3]),
    **time_filters(HopPlan(as_of=485, valid_at=1890))[1],
}
FLAG_SETS = [
    [], ["reified"], ["predicates", "as_of", "valid_at", "after"], ["out"],
    ["traversable", "reified", "out", "in"], ["hidden", "reified", "out", "in", "as_of", "valid_at", "timed"],
    ["traversable", "reified", "out", "in_traits", "as_of", "timed", "predicates"], ["hidden", "reified", "out_traits", "in"],
    ["every", "reified", "out", "in", "valid_at", "timed"],
    ["out", "in", "types"], ["in", "types", "predicates"], ["generic", "own"], ["graphs", "spellings"],
]


FRAGMENTS = {"same_as_in", "hop_ends", "two_hop_statements"}
"""Templates that are a branch of another (same_as.rq's `incoming`), not a query of their own,
or composed of others (two_hop_statements.rq: tests/engine/test_one_request.py runs it)."""
NATIVE_ONLY = {"two_hops", "describe"}
"""Templates the reification profile never sends (`ReificationProfile.two_hop_lines`;
describe_entity reads an entity in one query over native statements only: describe_read.py)."""


def _names(profile: str) -> list[str]:
    """The templates that are whole queries of fixed slots (tabulate's are composed: `_tables`)."""
    return sorted(p.stem for p in (resource_dir("queries") / "native").glob("*.rq")
                  if not p.stem.startswith("table") and p.stem not in FRAGMENTS
                  and (profile == "native" or p.stem not in NATIVE_ONLY))


SH, REL, RDFS = "https://example.org/schema/", "https://example.org/rel/", "http://www.w3.org/2000/01/rdf-schema#"
TABLES = [
    {"type": SH + "Person", "columns": {"name": RDFS + "label", "home": f"<{REL}LivesAt>/<{RDFS}label>"},
     "where": [{"column": "name", "op": "contains", "value": "o"}], "order_by": [{"column": "home", "descending": True}]},
    {"type": SH + "Person", "columns": {"home": REL + "LivesAt", "has": REL + "Possesses"}, "group_by": ["home"],
     "aggregate": {"n": {"fn": "count"}, "things": {"fn": "count_distinct", "of": "has"}},
     "having": [{"column": "n", "op": ">=", "value": 1}], "as_of": 600, "valid_at": 1890},
    {"type": SH + "Person", "where": [{"path": f"^<{REL}Knows>", "op": "missing"}], "compute": {"x": "2 / 4"}},
]
"""tabulate calls whose generated queries run on both backends."""


def _tables(profile_name: str) -> list[tuple[str, str]]:
    """The queries tabulate sends for `TABLES`, as the profile writes them."""
    from gateway import Gateway

    gateway = Gateway.open(DEMO) if profile_name == "native" else None
    if gateway is None:
        store = ox.Store()
        store.load(demo_reification().encode(), format=ox.RdfFormat.N_QUADS)
        gateway = Gateway.open(store, profile="reification")
    sent: list[str] = []
    select = gateway.backend.select

    def recording(query: str, **kw: Any) -> Any:
        if "?c_id" in query:
            sent.append(query)
        return select(query, **kw)

    gateway.backend.select = recording  # type: ignore[method-assign]
    for arguments in TABLES:
        gateway.call("tabulate", arguments)
    return [("tabulate", text) for text in sent]


def _cases(profile: str) -> list[tuple[str, str]]:
    """(template, query) for each distinct rendering; LIMIT 1 probes are left out (any row will do)."""
    found: dict[str, str] = {}
    for name in _names(profile):
        for flags in FLAG_SETS:
            text = render(f"{profile}/{name}", flags, **SLOTS)
            if not re.search(r"LIMIT 1\s*$", text):
                found.setdefault(text, name)
    return [(name, text) for text, name in found.items()]


def _key(rows: list[list[Any]], ordered: bool) -> list[tuple[str, ...]]:
    def cell(term: Any) -> str:
        if isinstance(term, Literal) and term.datatype == XSD + "boolean":
            return repr(Literal("1" if term.value == "true" else "0", XSD + "integer"))
        return repr(term)

    keys = [tuple(cell(t) for t in row) for row in rows]
    return keys if ordered else sorted(keys)


def _total(text: str) -> bool:
    """Whether the query orders its rows wholly: a table's query asking where the places of
    its order fall (`table_order.by_places`) sorts by the caller's order alone, its ties
    left in each store's own order, without the keys that set any two rows apart."""
    order = re.search(r"^ORDER BY (.*)$", text, re.MULTILINE)
    return order is not None and ("?c_" not in order.group(1) or "ASC(?c_id)" in order.group(1)
                                  or "ASC(IF(isLiteral(" in order.group(1))


def _compare(local: Backend, remote: Backend, text: str) -> None:
    header, rows = local.select(text)
    remote_header, remote_rows = remote.select(text)
    ordered = _total(text)
    assert remote_header == header
    assert _key(remote_rows, ordered) == _key(rows, ordered)


@pytest.fixture(scope="module")
def backends(request: pytest.FixtureRequest) -> Callable[[str], tuple[Backend, Backend]]:
    def pair(profile: str) -> tuple[Backend, Backend]:
        store = ox.Store()
        if profile == "native":
            store.load(path=DEMO, format=ox.RdfFormat.TRIG)
            server = request.getfixturevalue("oxigraph_server")
            return EmbeddedBackend.from_store(store), RemoteBackend(EndpointConfig(server.url))
        store.load(demo_reification().encode(), format=ox.RdfFormat.N_QUADS)
        server = request.getfixturevalue("virtuoso_server")
        return EmbeddedBackend.from_store(store), RemoteBackend(EndpointConfig(server.url, graphs=DEMO_GRAPHS))

    return pair


@pytest.mark.parametrize(("name", "text"), _cases("native") + _tables("native"), ids=lambda v: v if "\n" not in v else "")
def test_oxigraph_server_rows_equal_embedded(backends: Callable[[str], tuple[Backend, Backend]], name: str, text: str) -> None:
    _compare(*backends("native"), text)


@pytest.mark.parametrize(("name", "text"), _cases("reification") + _tables("reification"),
                         ids=lambda v: v if "\n" not in v else "")
def test_virtuoso_rows_equal_embedded(backends: Callable[[str], tuple[Backend, Backend]], name: str, text: str) -> None:
    _compare(*backends("reification"), text)


def _columns(text: str) -> list[str]:
    """The variables a SELECT answers with, in order: `?x` and `(... AS ?x)` alike."""
    match = re.search(r"SELECT (?:DISTINCT )?(.*?) WHERE", text, re.DOTALL)
    assert match, text
    head = match.group(1)
    inner = re.compile(r"\(([^()]*)\)")
    while inner.search(head):  # innermost groups first: an aggregate's (*) leaves nothing
        head = inner.sub(lambda m: " ".join(re.findall(r"AS (\?\w+)\s*$", m.group(1))), head)
    return re.findall(r"\?\w+", head)


def test_reification_templates_keep_native_columns() -> None:
    """hop.rq and the rest answer with the columns the native profile's Python reads."""
    for path in sorted((resource_dir("queries") / "reification").glob("*.rq")):
        if path.stem.startswith("table"):  # a fragment of tabulate's queries, with no columns of its own
            continue
        assert _columns(path.read_text(encoding="utf-8")) == _columns(template(f"native/{path.stem}")), path.name


def test_reification_templates_take_the_native_slots_and_flags() -> None:
    """A template the native profile renders with new slots or flags needs its twin updated."""
    tags = re.compile(r"\{\{[#^/]?(\w+)\}\}")
    for path in sorted((resource_dir("queries") / "reification").glob("*.rq")):
        native = set(tags.findall(template(f"native/{path.stem}")))
        assert set(tags.findall(path.read_text(encoding="utf-8"))) == native, path.name


def test_written_rows_are_the_same_from_tsv_and_json() -> None:
    """`results.written` (rows as SPARQL TSV writes them) reads a JSON answer as the TSV one."""
    tsv = (b'?a\t?b\t?c\n<http://x/a>\t"a \\"b\\"\\tc"@en\t_:b0\n'
           b'<<( <http://x/s> <http://x/p> "o" )>>\t"5"^^<http://www.w3.org/2001/XMLSchema#integer>\t\n')
    json_body = {"head": {"vars": ["a", "b", "c"]}, "results": {"bindings": [
        {"a": {"type": "uri", "value": "http://x/a"}, "b": {"type": "literal", "value": 'a "b"\tc', "xml:lang": "en"},
         "c": {"type": "bnode", "value": "b0"}},
        {"a": {"type": "triple", "value": {"subject": {"type": "uri", "value": "http://x/s"},
                                           "predicate": {"type": "uri", "value": "http://x/p"},
                                           "object": {"type": "literal", "value": "o"}}},
         "b": {"type": "literal", "value": "5", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}},
    ]}}
    from_tsv = results.written(results.Body("h", results.TSV, tsv))
    from_json = results.written(results.Body("h", results.JSON, json.dumps(json_body).encode()))
    assert from_tsv == from_json == (["a", "b", "c"], tsv.decode().split("\n")[1:-1])
    assert results.lines(results.Body("h", results.TSV, tsv))[1] == [
        line.translate(str.maketrans("", "", '<>"')) for line in from_tsv[1]]
