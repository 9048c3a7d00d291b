"""IRIs as a lenient load keeps them, and IDs of any scheme: every tool answers (never a
server error), every ID it returns can be passed back, and IRIs no query can name are
listed, said so and refused as input with a typed error naming the field.

The oracle is the store itself: pyoxigraph lists the triples the file holds.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, NotFound
from gateway.sparql import writable
from tests.conftest import DEMO

EX = "http://example.org/"
ODD = [
    EX + "b c",  # a space: no query can name it
    EX + 'q"uote',
    EX + "ang{le}",
    EX + "zw\u200bx",  # invisible, but a valid IRI: shown escaped, passed back
    EX + "bidi\u202egnp.exe",
    "javascript:alert(1)",
    "did:example:123",
    "tel:+1-555-0100",
]


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, Path]:
    lines = [f"<{EX}a> <{EX}knows> <{odd}> ." for odd in ODD]
    lines += [f"<{EX}b c> <{EX}knows> <{EX}d> .", f'<{EX}zw\u200bx> <http://www.w3.org/2000/01/rdf-schema#label> "zw" .']
    path = tmp_path_factory.mktemp("lenient") / "odd.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Gateway.open(path, lenient=True), path


def _objects(path: Path, subject: str) -> set[str]:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_TRIPLES, lenient=True)
    return {q.object.value for q in store.quads_for_pattern(ox.NamedNode(subject), None, None)}


def test_a_walk_lists_every_neighbour_and_says_which_it_could_not_expand(lenient: tuple[Gateway, Path]) -> None:
    gateway, path = lenient
    walk = gateway.bfs_query(seeds=[EX + "a"], max_hops=2, topology_only=True)
    reached = {n["id"] for n in walk.nodes}  # type: ignore[index]
    assert reached == {gateway.ids.to_id(iri) for iri in _objects(path, EX + "a") | {EX + "a"}}
    unnameable = [o for o in ODD if not writable([o])]
    assert len(unnameable) == 3
    assert any(f"{len(unnameable)} node(s) reached have IRIs no query can name" in w for w in walk.warnings)


def test_scan_path_and_communities_answer(lenient: tuple[Gateway, Path]) -> None:
    gateway, _ = lenient
    scan = gateway.scan_query(node_types=["Statement"])
    assert scan.count == len(ODD)  # `b c knows d` has a subject no query can name: said, not hidden
    assert any("1 subject(s) have IRIs no query can name" in w for w in scan.warnings)
    path = gateway.shortest_path(source=EX + "a", target=EX + "d")
    assert path.found and path.hops == 2
    found = gateway.communities()
    assert found.node_count == len(ODD) + 1 and any("1 subject(s) have IRIs no query can name" in w for w in found.warnings)


def test_every_id_returned_comes_back(lenient: tuple[Gateway, Path]) -> None:
    gateway, _ = lenient
    walk = gateway.bfs_query(seeds=[EX + "a"], max_hops=1, topology_only=True)
    by_id = {gateway.ids.to_id(iri): iri for iri in [*ODD, EX + "a"]}
    for node in walk.nodes:
        shown = node["id"]  # type: ignore[index]
        if writable([by_id[shown]]):
            assert gateway.describe_entity(shown).id == shown
        else:
            with pytest.raises((InvalidInput, NotFound)) as caught:  # a 4xx that says why, never a 500
                gateway.describe_entity(shown)
            assert caught.value.field == "id" and "holds a character no IRI may" in caught.value.message
    shown = {n["id"] for n in walk.nodes}  # type: ignore[index]
    assert not any(c in "".join(shown) for c in "\u200b\u202e")  # invisible characters are shown escaped


def test_a_long_unknown_id_gets_its_hint_from_its_first_words() -> None:
    """The did-you-mean for an unknown ID searches a bounded part of it, so an ID at the
    4,096-character limit costs no more than a short one (no timing asserted here; see
    `python -m bench.reliability`)."""
    gateway = Gateway.open(DEMO)
    with pytest.raises(NotFound) as caught:
        gateway.describe_entity("Irene Adler " * 340)
    assert "wiki:Irene_Adler" in caught.value.message
