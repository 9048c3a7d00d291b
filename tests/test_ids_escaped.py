"""IDs the gateway shows escaped (`ex:has\\u0020space`), passed back by a caller.

A lenient load keeps IRIs no SPARQL query can name (a space, a quote, braces). The gateway
shows them escaped; passed back, such an ID is refused with a typed error that says what
it is, never sent to search_entities (which only finds the same ID again), and nothing of
it reaches SPARQL. An escaped invisible character (a valid IRI) reads back to its node.

The oracle is pyoxigraph's own lenient load of the same Turtle file.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, NotFound
from gateway.sparql import writable

EX = "http://example.org/"
TURTLE = f"""@prefix ex: <{EX}> .
ex:a ex:knows <{EX}has space>, <{EX}ang{{le}}>, <{EX}zw\u200bx>, ex:b .
<{EX}has space> ex:knows ex:b .
"""


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, Path]:
    path = tmp_path_factory.mktemp("escaped") / "odd.ttl"
    path.write_text(TURTLE, encoding="utf-8")
    return Gateway.open(path, lenient=True), path


def _neighbours(path: Path) -> set[str]:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE, lenient=True)
    return {q.object.value for q in store.quads_for_pattern(ox.NamedNode(EX + "a"), None, None)}


def test_every_shown_id_reaches_its_node_or_says_no_query_can_name_it(lenient: tuple[Gateway, Path]) -> None:
    gateway, path = lenient
    held = _neighbours(path)
    assert len(held) == 4 and len(writable(sorted(held))) == 2  # the file holds both kinds
    walk = gateway.bfs_query(seeds=["ex:a"], max_hops=1)
    shown = {gateway.ids.to_id(iri): iri for iri in held}
    assert {n.id for n in walk.nodes} == {*shown, "ex:a"}
    for node_id, iri in shown.items():
        if writable([iri]):
            assert gateway.describe_entity(node_id).id == node_id
            continue
        assert "\\u" in node_id
        with pytest.raises((InvalidInput, NotFound)) as caught:  # a 4xx that says why, never a 500
            gateway.describe_entity(node_id)
        assert caught.value.field == "id"
        assert "no query can name" in caught.value.message and "search_entities" not in caught.value.message


def test_a_walk_from_a_shown_unnameable_id_says_why_it_is_unresolved(lenient: tuple[Gateway, Path]) -> None:
    gateway, _ = lenient
    node_id = gateway.ids.to_id(EX + "has space")
    walk = gateway.bfs_query(seeds=[node_id, "ex:a"], max_hops=1)
    assert node_id in walk.unresolved_seeds
    told = [w for w in walk.warnings if w.startswith("seeds[0]")]
    assert len(told) == 1 and "no query can name" in told[0] and "search_entities" not in told[0]


def test_an_escaped_id_the_graph_lacks_never_reaches_sparql(lenient: tuple[Gateway, Path]) -> None:
    gateway, _ = lenient
    queries: list[str] = []
    gateway.backend.query_log = lambda query, rows: queries.append(query)  # type: ignore[attr-defined]
    try:
        for hostile in ("ex:NOTHERE\\u0020x", "ex:NOTHERE\\u003E } ; DROP ALL", f"{EX}NOTHERE\\u007B\\u007D"):
            with pytest.raises((InvalidInput, NotFound)) as caught:
                gateway.describe_entity(hostile)
            assert caught.value.field == "id"
            gateway.bfs_query(seeds=[hostile], max_hops=1)
    finally:
        gateway.backend.query_log = None  # type: ignore[attr-defined]
    assert not [q for q in queries if "NOTHERE" in q]


def test_the_raw_iri_is_never_answered_with_an_id_no_tool_can_ask_about(lenient: tuple[Gateway, Path]) -> None:
    """`<…has space>` as written is no IRI: the did-you-mean lists no unnameable ID (asked
    back, it could only be refused), while search_entities still shows the node."""
    gateway, _ = lenient
    unnameable = gateway.ids.to_id(EX + "has space")
    assert unnameable in {h.id for h in gateway.search_entities("has space").results}
    with pytest.raises((InvalidInput, NotFound)) as caught:
        gateway.describe_entity(f"<{EX}has space>")
    assert unnameable not in caught.value.message
