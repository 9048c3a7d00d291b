"""The query-text reading of `/sparql`, checked against pyoxigraph itself.

The oracle: pyoxigraph, with a loopback listener as the SERVICE target. Every spelling in
a grid of contexts (what comes before the keyword, how it is written, what is glued after
it, where it stands) that really makes pyoxigraph send a request must be found by
`read_query`; the grid holds the spellings of the reliability probe (SERVICESILENT,
SERVICEex:pname) and the ones it suggests (a number or a boolean glued before).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pyoxigraph as ox
import pytest

from gateway.surfaces.sparql_text import MAX_DEPTH, MAX_OPERATORS, read_query
from tests.surfaces.conftest import Listener


def _grid(port: int) -> Iterator[str]:
    target = f"<http://127.0.0.1:{port}/x>"
    prologue = f"PREFIX ex: <http://127.0.0.1:{port}/> PREFIX : <http://127.0.0.1:{port}/> "
    before = ["", " ", ".", "}", ")", "1", "1.5", "1e1", "true", "false", "ex:x", "ex:", ":", "_:b", "?v", "'s'",
              target, "#c\n", "@en", "a", "UNDEF", "*", "FILTER(true)", "BIND(1 AS ?z)", "VALUES ?q {1}", "{}",
              "OPTIONAL{}", "MINUS{}"]
    spelled = ["SERVICE", "service", "SeRvIcE", "\\u0053ERVICE", "SERVICE\\u0020"]
    after = ["", " ", "SILENT", "silent ", "SILENT" + target, "ex:x", ":x", "?e", target, "ex:"]
    places = ["SELECT * WHERE {{ ?s ?p ?o {b}{k}{a}{n}{{ ?s ?p ?o }} }}",
              "SELECT * WHERE {{ {b}{k}{a}{n}{{ ?s ?p ?o }} }}",
              "SELECT * WHERE {{ ?s ?p {b}{k}{a}{n}{{ ?s ?p ?o }} }}"]
    for b, k, a, place in itertools.product(before, spelled, after, places):
        name = "" if a.endswith((target, "x", "?e", "ex:")) else " " + target
        yield prologue + place.format(b=b, k=k, a=a, n=name)


def test_every_spelling_pyoxigraph_would_send_is_found(listener: Listener) -> None:
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://a.example/s"), ox.NamedNode("http://a.example/p"), ox.NamedNode("http://a.example/o")))
    sent = missed = 0
    for query in _grid(listener.server_address[1]):
        listener.hits.clear()
        try:
            result = store.query(query, use_default_graph_as_union=True)
            list(result)  # type: ignore[call-overload]
        except (SyntaxError, OSError, RuntimeError):
            pass
        if listener.hits:
            sent += 1
            missed += read_query(query).service is None
    assert sent > 400  # the grid does reach pyoxigraph's SERVICE, in many spellings
    assert missed == 0


@pytest.mark.parametrize("query", [
    "SELECT ?service WHERE { ?service ?p ?o }",
    "SELECT * WHERE { ?s ?p 'SERVICE' }",
    "PREFIX ex: <http://x.example/> SELECT * WHERE { ?s ex:SERVICE ?o . _:SERVICE ?p ?o }",
    'SELECT * WHERE { ?s ?p "x"@en-service }',
    "SELECT * WHERE { ?s ?p <http://x.example/SERVICE> } # SERVICE <http://127.0.0.1:9/> {}",
])
def test_service_as_a_name_or_a_value_is_not_the_keyword(query: str) -> None:
    assert read_query(query).service is None


def test_depth_and_operators_are_counted() -> None:
    text = read_query("SELECT * WHERE { { ?s ?p ?o FILTER((1 + 2) * 3 > 0 || ?o = <<( ?s ?p ?o )>>) } }")
    assert text.depth == 4  # { { ( ( at most: the triple term opens after (1 + 2) closed
    assert text.operators == 7  # SELECT's *, FILTER, + * > || =
    assert read_query("SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * 10) + " }").operators == 10  # * and 9 UNION
    assert read_query("SELECT * WHERE { ?s ?p '(((((' }").depth == 1  # strings are not code
    deep = "SELECT * WHERE " + "{" * (MAX_DEPTH + 1) + " ?s ?p ?o " + "}" * (MAX_DEPTH + 1)
    assert read_query(deep).depth == MAX_DEPTH + 1
    chain = "ASK { FILTER(" + " || ".join(["true"] * (MAX_OPERATORS + 2)) + ") }"
    assert read_query(chain).operators == MAX_OPERATORS + 2  # FILTER and the || between MAX_OPERATORS + 2 terms


def test_what_the_limits_let_through_does_not_crash_pyoxigraph() -> None:
    """The bounds sit far below what overflows pyoxigraph's stack (this runs in-process:
    a crash here would kill the test run)."""
    store = ox.Store()
    at_the_limits = [
        "SELECT * WHERE " + "{" * MAX_DEPTH + " ?s ?p ?o " + "}" * MAX_DEPTH,
        "SELECT * WHERE { BIND(" + "CONCAT(" * (MAX_DEPTH - 3) + "'a'" + ")" * (MAX_DEPTH - 3) + " AS ?x) }",
        "SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * MAX_OPERATORS) + " }",
        "SELECT * WHERE { ?s ?p ?o " + " ".join(f"BIND(1 AS ?b{i})" for i in range(MAX_OPERATORS - 1)) + " }",
        "ASK { FILTER(" + " || ".join(["true"] * (MAX_OPERATORS // 2)) + " && " +
        " && ".join(["true"] * (MAX_OPERATORS // 2 - 1)) + ") }",
    ]
    for query in at_the_limits:
        text = read_query(query)
        assert text.depth <= MAX_DEPTH and text.operators <= MAX_OPERATORS, query[:60]
        result = store.query(query)
        if not isinstance(result, ox.QueryBoolean):
            list(result)  # type: ignore[call-overload]


def test_the_operation_is_read_after_the_prologue() -> None:
    assert read_query("PREFIX ex: <http://x/> INSERT DATA { ex:a ex:b ex:c }").looks_like_update
    assert not read_query("PREFIX ex: <http://x/> SELECT * { ?s ?p ?o }").looks_like_update
    assert read_query("SELECT * FROM <http://x/g> { ?s ?p ?o }").uses_from
