"""One set of tool calls, four stores, identical answers.

The demo graph is served four ways: embedded native (the reference), `oxigraph serve`
native over HTTP, embedded in the reification profile (the demo converted), and Virtuoso
7 in the reification profile (the same conversion). Every call must give the same
`model_dump()` on each; a difference is a bug in a template, a profile or the client.
The plain profile is checked the same way on the demo's plain twin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, NotFound
from gateway.auth import Reader
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.profiles.reification import PlainProfile, ReificationProfile
from tests.conftest import (
    CANON,
    CASEBOOK,
    DEMO,
    DEMO_GRAPHS,
    PLAIN_GRAPH,
    demo_plain,
    demo_reification,
)

ALL = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
CALLS: list[tuple[str, dict[str, Any]]] = [
    # bfs_query: directions, every traversal filter, traits, presentation, layouts, budgets
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2}),
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3, "topology_only": True, "direction": "out"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "direction": "in"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "as_of": 485, "topology_only": True, "layout": "compact"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ALL}),
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2, "truth_status": ["hypothetical", "disputed"]}),
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2, "truth_status": ["asserted_false", "retracted"]}),
    ("bfs_query", {"seeds": ["wiki:Dr_Watson"], "max_hops": 2, "valid_at": 1890}),
    ("bfs_query", {"seeds": ["wiki:Dr_Watson"], "max_hops": 2, "valid_at": 1885, "as_of": 300, "direction": "out"}),
    ("bfs_query", {"seeds": ["wiki:Nonconformist_Clergyman"], "max_hops": 1, "expand_traits": ["Inverse"],
                   "edge_filter": {"predicates": ["DisguisedAs"]}}),
    ("bfs_query", {"seeds": ["wiki:Godfrey_Norton"], "max_hops": 2, "expand_traits": ["Symmetric"], "direction": "out"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "expand_traits": ["Symmetric", "Inverse"],
                   "direction": "in", "truth_status": ALL}),
    ("bfs_query", {"seeds": ["stmt:s12"], "max_hops": 2}),
    ("bfs_query", {"seeds": ["wiki:Dr_Watson", "obj:photograph", "wiki:Moriarty"], "max_hops": 1,
                   "node_filter": {"entity_types": ["sh:Person"]}, "edge_filter": {"predicates": ["Possesses", "Knowz"]}}),
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3, "max_nodes": 12, "max_edges": 15}),
    ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3, "predicates": ["Knows", "rel:Doubts"],
                   "truth_status": ALL, "topology_only": True}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "exclude_predicates": ["Knows"],
                   "expand_traits": ["Inverse"]}),
    ("intersect_subgraphs", {"seeds": ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"], "k": 2,
                             "exclude_predicates": ["Knows"]}),
    # the other tools
    ("describe_entity", {"id": "wiki:Irene_Adler"}),
    ("describe_entity", {"id": "https://example.org/wiki/King_of_Bohemia"}),
    ("describe_entity", {"id": "stmt:s13"}),
    ("describe_entities", {"ids": ["stmt:s40", "wiki:Odessa", "wiki:Moriarty", "rel:Knows"]}),
    ("search_entities", {"query": "the woman"}),
    ("search_entities", {"query": "König"}),
    ("search_entities", {"query": "photograph", "entity_types": ["sh:Object"], "limit": 5}),
    ("transitive_closure_query", {"start": "wiki:221B_Baker_Street", "predicate": "PartOf"}),
    ("transitive_closure_query", {"start": "wiki:London", "predicate": "rel:PartOf", "direction": "in"}),
    ("scan_query", {"truth_status": ["disputed", "hypothetical"], "limit": 3}),
    ("scan_query", {"edge_predicates": ["Possesses"], "truth_status": ALL, "as_of": 500}),
    ("scan_query", {"valid_at": 1890, "limit": 50}),
    ("scan_query", {"node_types": ["sh:Person", "sh:Object"], "limit": 5}),
    ("shortest_path", {"source": "wiki:Mrs_Hudson", "target": "wiki:Irene_Adler"}),
    ("shortest_path", {"source": "wiki:Odessa", "target": "wiki:Street_Loafers", "truth_status": ALL}),
    ("shortest_path", {"source": "wiki:Dr_Watson", "target": "obj:cigar_case", "predicates": ["Doubts", "Possesses"]}),
    ("describe_schema", {}),
    # list filters: empty (refused, naming the field), one value, every value
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": []}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ["disputed"]}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "predicates": []}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "predicates": ["Possesses"], "truth_status": ALL}),
    ("shortest_path", {"source": "wiki:Mrs_Hudson", "target": "wiki:Irene_Adler", "predicates": []}),
    ("search_entities", {"query": "Irene", "entity_types": []}),
    ("search_entities", {"query": "Baker", "entity_types": ["sh:Location"]}),
    ("scan_query", {"node_types": []}),
    ("scan_query", {"edge_predicates": []}),
    ("scan_query", {"edge_predicates": ["Possesses", "Knows", "Threatens"], "truth_status": ALL}),
    ("scan_query", {"node_types": ["Statement"], "limit": 5}),
]
STORES = ["oxigraph-native", "embedded-reification", "virtuoso-reification"]
PREFIXES = scan_prefixes(DEMO)


def _embedded(nquads: str, profile: type) -> Gateway:
    store = ox.Store()
    store.load(nquads.encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    return Gateway(EmbeddedBackend.from_store(store, prefixes=PREFIXES), profile=profile)


@pytest.fixture(scope="module")
def reference() -> Gateway:
    # The prefixes configured, as for the endpoints: every reader's (a file's own lines are
    # shown to a reader only for the namespaces its graphs use).
    return Gateway.open(DEMO, prefixes=PREFIXES)


@pytest.fixture(scope="module")
def stores(request: pytest.FixtureRequest) -> Iterator[dict[str, Callable[[], Gateway]]]:
    """Each store opened on first use, so one missing server skips only its own tests."""
    opened: dict[str, Gateway] = {}

    def opener(name: str) -> Callable[[], Gateway]:
        def open_() -> Gateway:
            if name not in opened:
                opened[name] = _open(name, request)
            return opened[name]
        return open_

    yield {name: opener(name) for name in STORES}
    for gateway in opened.values():
        gateway.close()


def _open(name: str, request: pytest.FixtureRequest) -> Gateway:
    if name == "embedded-reification":
        return _embedded(demo_reification(), ReificationProfile)
    if name == "oxigraph-native":
        server = request.getfixturevalue("oxigraph_server")
        return Gateway.connect(server.url, prefixes=PREFIXES)
    server = request.getfixturevalue("virtuoso_server")
    return Gateway.connect(server.url, profile="reification", prefixes=PREFIXES, graphs=DEMO_GRAPHS)


def _answer(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's answer, or the caller-facing error it raised (a NotFound is an answer too)."""
    try:
        dump = gateway.call(tool, arguments).model_dump()
    except (InvalidInput, NotFound) as error:
        return error.to_dict()
    dump.pop("profile", None)  # describe_schema names the profile, which differs by design
    if dump.get("truncated"):
        # A hop reads at most budget+1 rows with no ORDER BY (docs/tools.md), so which
        # statements a cut walk keeps is the store's choice; its size and cut are not.
        keep = ("seeds", "limits", "truncated", "truncation", "node_count", "edge_count", "hop_counts")
        return {key: dump[key] for key in keep}
    return dump


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CALLS)])
def test_same_answer_as_embedded_native(
    reference: Gateway, stores: dict[str, Callable[[], Gateway]], store: str, tool: str, arguments: dict[str, Any]
) -> None:
    expected = _answer(reference, tool, arguments)
    assert _answer(stores[store](), tool, arguments) == expected


def test_the_calls_say_something(reference: Gateway) -> None:
    """The reference answers are not trivially empty, so agreement means something."""
    walk = reference.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=2)
    assert walk.node_count > 10 and walk.hidden_by_filter
    assert reference.scan_query(truth_status=["disputed", "hypothetical"], limit=3).next_cursor
    assert reference.shortest_path(source="wiki:Odessa", target="wiki:Street_Loafers", truth_status=ALL).found


def test_describe_schema_names_the_profile(stores: dict[str, Callable[[], Gateway]]) -> None:
    assert stores["virtuoso-reification"]().describe_schema().profile == "reification"


# -- the plain profile: the demo's asserted triples, no statement model -------------------
PLAIN_CALLS = [c for c in CALLS if c[0] != "describe_schema"] + [("describe_schema", {})]


@pytest.fixture(scope="module")
def plain_reference() -> Gateway:
    return _embedded(demo_plain(), PlainProfile)


@pytest.fixture(scope="module")
def plain_virtuoso(virtuoso_server: Any) -> Gateway:
    return Gateway.connect(virtuoso_server.url, profile="plain", prefixes=PREFIXES, graphs=[PLAIN_GRAPH])


@pytest.mark.parametrize(("tool", "arguments"), PLAIN_CALLS, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(PLAIN_CALLS)])
def test_plain_profile_on_virtuoso(
    plain_reference: Gateway, plain_virtuoso: Gateway, tool: str, arguments: dict[str, Any]
) -> None:
    assert _answer(plain_virtuoso, tool, arguments) == _answer(plain_reference, tool, arguments)


def test_plain_profile_agrees_with_native_on_plain_data(plain_reference: Gateway) -> None:
    """On data without statements the plain profile walks as the native one does."""
    native = _embedded(demo_plain(), type(Gateway.open(DEMO).context.profile))
    for tool, arguments in PLAIN_CALLS:
        assert _answer(plain_reference, tool, arguments) == _answer(native, tool, arguments), tool


# -- readers: the graphs a reader may see reach the endpoint ---------------------------------
READER_CALLS = [
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ALL}),
    ("bfs_query", {"seeds": ["obj:photograph"], "max_hops": 1}),
    ("describe_entities", {"ids": ["stmt:s40", "stmt:s19", "wiki:Odessa"]}),
    ("scan_query", {"truth_status": ALL, "limit": 100}),
    ("describe_schema", {}),
]


@pytest.mark.parametrize("graphs", [(CASEBOOK,), (CANON,), ()], ids=["casebook", "canon", "none"])
@pytest.mark.parametrize("store", ["oxigraph-native", "virtuoso-reification"])
def test_reader_scope_reaches_the_endpoint(
    reference: Gateway, stores: dict[str, Callable[[], Gateway]], store: str, graphs: tuple[str, ...]
) -> None:
    """A reader's walk over HTTP equals the embedded walk restricted to the same graphs, so
    the endpoint honours default-graph-uri/named-graph-uri (the casebook holds statements
    the canon does not, and the reverse)."""
    reader = Reader("tester", graphs)
    for tool, arguments in READER_CALLS:
        expected = _strip(reference.call(tool, arguments, reader=reader).model_dump())
        assert _strip(stores[store]().call(tool, arguments, reader=reader).model_dump()) == expected, tool


def _strip(dump: dict[str, Any]) -> dict[str, Any]:
    dump.pop("profile", None)
    return dump


def test_virtuoso_tsv_is_replaced_by_json_and_oxigraph_keeps_tsv(stores: dict[str, Callable[[], Gateway]]) -> None:
    """Virtuoso's TSV quotes IRIs like strings and drops language tags: the client asks in
    JSON instead. Oxigraph's TSV is SPARQL 1.1 TSV and stays in use."""
    virtuoso, oxigraph = stores["virtuoso-reification"](), stores["oxigraph-native"]()
    virtuoso.describe_entity("wiki:King_of_Bohemia")
    oxigraph.describe_entity("wiki:King_of_Bohemia")
    assert virtuoso.backend.result_format == "json"  # type: ignore[attr-defined]
    assert oxigraph.backend.result_format == "auto"  # type: ignore[attr-defined]
