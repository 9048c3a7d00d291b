"""scan_query paging and the spec's Examples 5 (closure) and 7 (scan) on the demo graph."""

from __future__ import annotations

import math
import random

import pytest

from gateway import Gateway, InvalidInput
from support.synth import random_graph
from tests.conftest import gateway_from_ntriples


def test_example_5_partof_closure(demo: Gateway) -> None:
    result = demo.transitive_closure_query(start="wiki:Baker_Street", predicate="PartOf")
    assert result.reachable == ["wiki:England", "wiki:London", "wiki:Marylebone"]
    inward = demo.transitive_closure_query(start="wiki:London", predicate="rel:PartOf", direction="in")
    assert inward.reachable == ["wiki:221B_Baker_Street", "wiki:Baker_Street", "wiki:Briony_Lodge",
                                "wiki:Marylebone", "wiki:St_Johns_Wood"]


def test_example_7_every_unsettled_statement(demo: Gateway) -> None:
    page = demo.scan_query(truth_status=["disputed", "hypothetical"])
    assert page.kind == "statements" and page.next_cursor is None
    assert {(e.id, e.truth_status) for e in page.edges} == {
        ("stmt:s3", "hypothetical"), ("stmt:s8", "disputed"), ("stmt:s18", "disputed"),
        ("stmt:s40", "hypothetical"), ("stmt:s41", "hypothetical"), ("stmt:s42", "hypothetical"),
    }
    assert all(e.provenance or e.confidence is not None for e in page.edges)  # returned in full


def test_scan_by_predicate_and_by_type(demo: Gateway) -> None:
    disguises = demo.scan_query(edge_predicates=["DisguisedAs"], truth_status=["asserted_true"])
    assert [e.id for e in disguises.edges] == ["stmt:s14", "stmt:s17"]
    places = demo.scan_query(node_types=["Location"])
    assert places.kind == "entities" and places.count == 9
    assert all(n.label for n in places.nodes)


def pages(gateway: Gateway, size: int, **query: object) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        page = gateway.scan_query(limit=size, cursor=cursor, **query)
        assert page.count <= size
        seen += [n.id for n in page.nodes] + [f"{e.subject} {e.predicate} {e.object} {e.id}" for e in page.edges]
        cursor = page.next_cursor
        if cursor is None:
            return seen


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_paging_yields_every_item_exactly_once(demo: Gateway, size: int) -> None:
    everything = pages(demo, 10_000, truth_status=["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"])
    assert len(everything) == len(set(everything)) == 46
    assert (
        pages(demo, size, truth_status=["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]) == everything
    )
    people = pages(demo, size, node_types=["Person", "Location"])
    assert len(people) == len(set(people)) == 20


@pytest.mark.parametrize("number", range(20))
def test_paging_on_random_graphs(number: int) -> None:
    rng = random.Random(number)
    graph = random_graph(rng, 20, 60, reified=number % 2 == 0)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    whole = pages(gateway, 1000)
    for size in (1, 7):
        assert pages(gateway, size) == whole
    reifiers = {st.id for st in graph.statements if st.id}
    expected = [st for st in graph.statements if st.status == "asserted_true" and (st.id or st.s not in reifiers)]
    assert len(whole) == len(set(whole)) == len(expected)


def test_cursor_survives_a_new_gateway_and_refuses_tampering(demo: Gateway) -> None:
    from tests.conftest import DEMO

    first = demo.scan_query(node_types=["Person"], limit=3)
    assert first.next_cursor
    again = Gateway.open(DEMO).scan_query(node_types=["Person"], limit=3, cursor=first.next_cursor)
    assert again.nodes[0].id > first.nodes[-1].id
    tampered = first.next_cursor[:-2] + ("A" if first.next_cursor[-2] != "A" else "B") + first.next_cursor[-1]
    for bad in (tampered, "garbage", first.next_cursor + "x"):
        with pytest.raises(InvalidInput) as caught:
            demo.scan_query(node_types=["Person"], limit=3, cursor=bad)
        assert caught.value.field == "cursor"
    with pytest.raises(InvalidInput):  # a cursor replayed with other filters
        demo.scan_query(node_types=["Location"], limit=3, cursor=first.next_cursor)


def test_scan_refuses_mixing_entities_and_statements(demo: Gateway) -> None:
    with pytest.raises(InvalidInput) as caught:
        demo.scan_query(node_types=["Person"], edge_predicates=["Knows"])
    assert caught.value.field == "node_types"


def test_closure_bad_input_is_an_answer_with_warnings(demo: Gateway) -> None:
    unknown = demo.transitive_closure_query(start="wiki:London", predicate="PartOff")
    assert unknown.reachable == [] and "did you mean rel:PartOf" in " ".join(unknown.warnings)
    absent = demo.transitive_closure_query(start="wiki:Atlantis", predicate="PartOf")
    assert absent.unresolved == ["wiki:Atlantis"] and absent.reachable == []


def test_path_edge_cases(demo: Gateway) -> None:
    same = demo.shortest_path(source="wiki:Irene_Adler", target="wiki:Irene_Adler")
    assert same.found and same.hops == 0 and same.edges == []
    far = demo.shortest_path(source="wiki:Odessa", target="wiki:England", max_hops=3)
    assert not far.found and far.reason and "3 hops" in far.reason
    plain = demo.shortest_path(source="wiki:221B_Baker_Street", target="wiki:London")
    assert plain.found and plain.hops == 3 and plain.confidence_product is None and plain.weakest_edge is None
    k = demo.intersect_subgraphs(seeds=["wiki:Sherlock_Holmes", "wiki:Dr_Watson"], k=99)
    assert k.k == 4


def test_the_weakest_edge_points_into_the_path(medlit_gateway: Gateway) -> None:
    path = medlit_gateway.shortest_path(
        source="RxNorm:3251", target="DBPedia:Cushing's_disease", truth_status=["asserted_true", "hypothetical", "disputed"]
    )
    assert path.found and path.edges and path.weakest_edge is not None
    confidences = [edge.confidence for edge in path.edges]
    assert path.weakest_edge.confidence == min(confidences)  # type: ignore[type-var]
    assert path.edges[path.weakest_edge.index].confidence == path.weakest_edge.confidence
    assert path.edges[path.weakest_edge.index].id == path.weakest_edge.id
    assert path.confidence_product is not None
    assert abs(path.confidence_product - math.prod(confidences)) < 1e-12  # type: ignore[arg-type]


def test_cursors_are_short_and_page_through_everything(medlit_gateway: Gateway) -> None:
    everything = medlit_gateway.scan_query(truth_status=["asserted_true", "hypothetical"], limit=1000)
    seen, cursor = [], None
    while True:
        page = medlit_gateway.scan_query(truth_status=["asserted_true", "hypothetical"], limit=97, cursor=cursor)
        seen += page.edges
        cursor = page.next_cursor
        if cursor is None:
            break
        assert len(cursor) <= 200
    assert len(seen) > 1000 and seen[: len(everything.edges)] == everything.edges
