"""The spec's eight worked examples (bfs-ql-spec.txt, "LLM Prompt") on the demo graph.

Expected answers are written out by hand from data/README.md's statement table.
Example 5 (closure) and Example 7 (scan) belong to their own tools; their traversal
halves are checked here through bfs_query where it applies.
"""

from __future__ import annotations

import pyoxigraph as ox

from gateway import Gateway
from gateway.backends.embedded import scan_prefixes
from gateway.models import Edge, Node, Subgraph
from tests.conftest import DEMO, listed_edges, listed_nodes

# Statement IDs of the demo graph -> their triples (data/README.md).
S = {
    "s1": ("wiki:Sherlock_Holmes", "rel:Loves", "wiki:Irene_Adler"),
    "s2": ("wiki:Dr_Watson", "rel:MarriedTo", "wiki:Mary_Morstan"),
    "s3": ("wiki:Sherlock_Holmes", "rel:TravelledTo", "wiki:Odessa"),
    "s4": ("wiki:Count_Von_Kramm", "rel:Employs", "wiki:Sherlock_Holmes"),
    "s5": ("wiki:King_of_Bohemia", "rel:Employs", "wiki:Sherlock_Holmes"),
    "s6": ("obj:photograph", "rel:Involves", "wiki:King_of_Bohemia"),
    "s7": ("wiki:King_of_Bohemia", "rel:EngagedTo", "wiki:Clotilde_Lothman"),
    "s8": ("wiki:Irene_Adler", "rel:Threatens", "wiki:King_of_Bohemia"),
    "s9": ("wiki:Irene_Adler", "rel:Involves", "wiki:King_of_Bohemia"),
    "s10": ("wiki:Irene_Adler", "rel:LivesAt", "wiki:Briony_Lodge"),
    "s11": ("wiki:Irene_Adler", "rel:Knows", "wiki:Godfrey_Norton"),
    "s12": ("wiki:Sherlock_Holmes", "rel:Possesses", "obj:cigar_case"),
    "s13": ("wiki:Dr_Watson", "rel:Doubts", "stmt:s12"),
    "s14": ("wiki:Sherlock_Holmes", "rel:DisguisedAs", "wiki:Drunken_Groom"),
    "s15": ("wiki:Irene_Adler", "rel:MarriedTo", "wiki:Godfrey_Norton"),
    "s16": ("wiki:Sherlock_Holmes", "rel:Possesses", "obj:sovereign"),
    "s17": ("wiki:Sherlock_Holmes", "rel:DisguisedAs", "wiki:Nonconformist_Clergyman"),
    "s18": ("wiki:Street_Loafers", "rel:Injures", "wiki:Nonconformist_Clergyman"),
    "s19": ("wiki:Irene_Adler", "rel:Possesses", "obj:photograph"),
    "s20": ("obj:photograph", "rel:LocatedAt", "wiki:Briony_Lodge"),
    "s21": ("wiki:Irene_Adler", "rel:Knows", "wiki:Sherlock_Holmes"),
    "s22": ("wiki:Sherlock_Holmes", "rel:Possesses", "obj:portrait_of_irene"),
    "s30": ("wiki:Sherlock_Holmes", "rel:Knows", "wiki:Dr_Watson"),
    "s31": ("wiki:Sherlock_Holmes", "rel:LivesAt", "wiki:221B_Baker_Street"),
    "s32": ("wiki:Dr_Watson", "rel:LivesAt", "wiki:221B_Baker_Street"),
    "s33": ("wiki:Dr_Watson", "rel:Authored", "wiki:A_Study_in_Scarlet"),
    "s34": ("wiki:Dr_Watson", "rel:Authored", "wiki:Sign_of_the_Four"),
    "s35": ("wiki:Dr_Watson", "rel:Authored", "wiki:A_Scandal_in_Bohemia"),
    "s36": ("wiki:Sherlock_Holmes", "rel:Authored", "wiki:Monograph_on_Tobacco_Ashes"),
    "s40": ("wiki:Irene_Adler", "rel:Possesses", "obj:photograph"),
    "s42": ("wiki:Godfrey_Norton", "rel:Possesses", "obj:photograph"),
}
STORIES = ["wiki:A_Study_in_Scarlet", "wiki:Sign_of_the_Four", "wiki:A_Scandal_in_Bohemia"]
EdgeId = tuple[str, str, str, str | None]


def stmt(*names: str) -> set[EdgeId]:
    return {(*S[n], f"stmt:{n}") for n in names}


def plain(*triples: tuple[str, str, str]) -> set[EdgeId]:
    return {(*t, None) for t in triples}


def hops(result: Subgraph) -> dict[str, int]:
    levels = [h for h, count in enumerate(result.hop_counts) for _ in range(count)]
    return {n.id: h for n, h in zip(listed_nodes(result), levels, strict=True)}


def edges(result: Subgraph) -> set[EdgeId]:
    """Edge identities; statement IDs are read from full edges and inferred for stubs."""
    found = set()
    for e in listed_edges(result):
        found.add((e.subject, e.predicate, e.object, e.id))
    return found


def is_stub_node(node: Node) -> bool:
    return set(node.model_dump(exclude_none=True)) == {"id", "entity_type"}


def is_stub_edge(edge: Edge) -> bool:
    return set(edge.model_dump(exclude_none=True)) <= {"subject", "predicate", "object", "derived_via"}


def full_edges(result: Subgraph) -> set[EdgeId]:
    return {(e.subject, e.predicate, e.object, e.id) for e in listed_edges(result) if not is_stub_edge(e)}


def bfs(demo: Gateway, **query: object) -> Subgraph:
    result = demo.bfs_query(**query)
    assert isinstance(result, Subgraph)
    return result


def test_example_1_author_publications_with_provenance(demo: Gateway) -> None:
    result = bfs(
        demo, seeds=["wiki:Dr_Watson"], max_hops=1,
        node_filter={"entity_types": ["Publication"]}, edge_filter={"predicates": ["Authored"]},
    )
    assert hops(result) == {
        "wiki:Dr_Watson": 0, "wiki:Sherlock_Holmes": 1, "wiki:Mary_Morstan": 1,
        "wiki:221B_Baker_Street": 1, "stmt:s12": 1, **dict.fromkeys(STORIES, 1),
    }
    full = {n.id for n in listed_nodes(result) if not is_stub_node(n)}
    assert full == set(STORIES)
    assert {n.entity_type for n in listed_nodes(result) if n.id == "stmt:s12"} == {"Statement"}
    # Stub edges carry no statement ID, so compare full and stub edges separately.
    assert full_edges(result) == stmt("s33", "s34", "s35")
    assert {e[:3] for e in edges(result)} == {S[n] for n in ("s2", "s13", "s30", "s32", "s33", "s34", "s35")}
    for edge in listed_edges(result):
        if not is_stub_edge(edge):
            assert edge.truth_status == "asserted_true" and edge.extraction_method == "manual"
            assert edge.confidence == 1.0 and edge.asserted_at is None
            assert edge.provenance and "bfs:sourceDocument" in edge.provenance


def test_example_2_neighbourhood_with_type_filter(demo: Gateway) -> None:
    result = bfs(demo, seeds=["obj:photograph"], max_hops=2, node_filter={"entity_types": ["Person"]})
    assert hops(result) == {
        "obj:photograph": 0,
        "wiki:King_of_Bohemia": 1, "wiki:Irene_Adler": 1, "wiki:Briony_Lodge": 1,
        "wiki:Sherlock_Holmes": 2, "wiki:Clotilde_Lothman": 2, "wiki:Godfrey_Norton": 2,
        "wiki:Bohemia": 2, "wiki:A_Scandal_in_Bohemia": 2, "wiki:St_Johns_Wood": 2,
    }
    persons = {"wiki:King_of_Bohemia", "wiki:Irene_Adler", "wiki:Sherlock_Holmes",
               "wiki:Clotilde_Lothman", "wiki:Godfrey_Norton"}
    assert {n.id for n in listed_nodes(result) if not is_stub_node(n)} == persons
    expected = stmt("s5", "s6", "s7", "s9", "s10", "s11", "s15", "s19", "s20", "s21") | plain(
        ("wiki:King_of_Bohemia", "rel:Rules", "wiki:Bohemia"),
        ("wiki:Irene_Adler", "rel:AppearsIn", "wiki:A_Scandal_in_Bohemia"),
        ("wiki:Briony_Lodge", "rel:PartOf", "wiki:St_Johns_Wood"),
    )
    assert edges(result) == expected  # no edge_filter: every edge is full, with its ID
    assert result.hidden_by_filter["truth_status"] >= 4  # s8, s40, s41, s42


def test_example_3_shared_connections(demo: Gateway) -> None:
    result = bfs(
        demo, seeds=["wiki:Sherlock_Holmes", "wiki:Dr_Watson"], max_hops=2,
        node_filter={"entity_types": ["Publication", "Location"]},
        edge_filter={"predicates": ["Authored", "LivesAt"]},
    )
    level = hops(result)
    assert result.hop_counts == [2, 14, 7]
    for shared in ["wiki:221B_Baker_Street", *STORIES, "wiki:Monograph_on_Tobacco_Ashes", "stmt:s12"]:
        assert level[shared] == 1
    assert level["wiki:Mrs_Hudson"] == 2
    assert len(result.edges) == 33  # 31 relationships + s12's rdf:subject and rdf:object
    full_nodes = {n.id for n in listed_nodes(result) if not is_stub_node(n)}
    assert full_nodes == {*STORIES, "wiki:Monograph_on_Tobacco_Ashes", "wiki:221B_Baker_Street",
                          "wiki:Baker_Street", "wiki:Briony_Lodge", "wiki:Bohemia"}
    assert {e.predicate for e in listed_edges(result) if not is_stub_edge(e)} == {"rel:Authored", "rel:LivesAt"}
    assert full_edges(result) == stmt("s33", "s34", "s35", "s36", "s31", "s32", "s10") | plain(
        ("wiki:Mrs_Hudson", "rel:LivesAt", "wiki:221B_Baker_Street")
    )


def test_example_4_default_truth_status_prunes_traversal(demo: Gateway) -> None:
    narrow = bfs(demo, seeds=["wiki:Sherlock_Holmes"], max_hops=2)
    wide = bfs(
        demo, seeds=["wiki:Sherlock_Holmes"], max_hops=2,
        truth_status=["asserted_true", "disputed", "hypothetical", "retracted"],
    )
    assert (narrow.node_count, narrow.edge_count) == (23, 31)
    assert (wide.node_count, wide.edge_count) == (26, 36)
    only_wide = set(hops(wide)) - set(hops(narrow))
    assert only_wide == {"wiki:Count_Von_Kramm", "wiki:Odessa", "wiki:Street_Loafers"}
    assert hops(wide)["wiki:Street_Loafers"] == 2
    assert edges(wide) - edges(narrow) == stmt("s3", "s4", "s18", "s8", "s40")
    assert not any(e.id == "stmt:s1" for e in listed_edges(wide))  # asserted_false is not listed
    assert narrow.hidden_by_filter.get("truth_status", 0) > 0
    assert {e.truth_status for e in listed_edges(wide)} >= {"disputed", "hypothetical", "retracted"}


def test_example_6_as_of_makes_a_later_statement_unreachable(demo: Gateway) -> None:
    before = bfs(
        demo, seeds=["wiki:Irene_Adler"], max_hops=1, as_of=485,
        edge_filter={"predicates": ["Possesses", "Involves"]},
    )
    assert hops(before) == {
        "wiki:Irene_Adler": 0, "wiki:King_of_Bohemia": 1, "wiki:Briony_Lodge": 1,
        "wiki:Godfrey_Norton": 1, "wiki:A_Scandal_in_Bohemia": 1,
    }
    assert full_edges(before) == stmt("s9")
    assert {e[:3] for e in edges(before)} == {S[n] for n in ("s9", "s10", "s11", "s15")} | {
        ("wiki:Irene_Adler", "rel:AppearsIn", "wiki:A_Scandal_in_Bohemia")
    }
    assert before.hidden_by_filter["as_of"] == 2  # s19 at 512, s21 at 700
    after = bfs(demo, seeds=["wiki:Irene_Adler"], max_hops=1, edge_filter={"predicates": ["Possesses", "Involves"]})
    assert (after.node_count, after.edge_count) == (7, 7)
    assert stmt("s19") <= full_edges(after)
    widened = bfs(demo, seeds=["wiki:Irene_Adler"], max_hops=1, as_of=485, truth_status=["asserted_true", "hypothetical"])
    assert "obj:photograph" in hops(widened) and stmt("s40") <= edges(widened)
    assert (widened.node_count, widened.edge_count) == (6, 6)


def test_example_8_inverse_trait_surfaces_a_derived_edge(demo: Gateway) -> None:
    store = ox.Store()
    store.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    quads = len(store)
    gateway = Gateway.open(store, prefixes=scan_prefixes(DEMO))
    result = bfs(gateway, seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, expand_traits=["Inverse"])
    assert hops(result) == {"wiki:Nonconformist_Clergyman": 0, "wiki:Sherlock_Holmes": 1}
    derived = [e for e in listed_edges(result) if e.derived_via]
    assert [(e.subject, e.predicate, e.object, e.derived_via) for e in derived] == [
        ("wiki:Nonconformist_Clergyman", "rel:HasTrueIdentity", "wiki:Sherlock_Holmes", "Inverse(rel:DisguisedAs)")
    ]
    # The mirror keeps the ID of the statement it was derived from.
    assert edges(result) == stmt("s17") | {
        ("wiki:Nonconformist_Clergyman", "rel:HasTrueIdentity", "wiki:Sherlock_Holmes", "stmt:s17")
    }
    # Nothing was written: same quads, and no HasTrueIdentity triple anywhere.
    assert len(store) == quads
    assert not list(store.quads_for_pattern(None, ox.NamedNode("https://example.org/rel/HasTrueIdentity"), None))
    # Out-only: without traits the seed has no edge; with them Holmes is reached only by the mirror.
    out = bfs(gateway, seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, direction="out")
    assert out.edge_count == 0
    out_traits = bfs(gateway, seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, direction="out", expand_traits=["Inverse"])
    derived = [(e.predicate, e.derived_via) for e in listed_edges(out_traits)]
    assert derived == [("rel:HasTrueIdentity", "Inverse(rel:DisguisedAs)")]
    stub = bfs(gateway, seeds=["wiki:Nonconformist_Clergyman"], max_hops=1, expand_traits=["Inverse"], topology_only=True)
    assert any(e.derived_via == "Inverse(rel:DisguisedAs)" for e in listed_edges(stub))  # stubs keep derived_via


def test_symmetric_trait_and_statement_seed(demo: Gateway) -> None:
    result = bfs(demo, seeds=["wiki:Godfrey_Norton"], max_hops=1, direction="out", expand_traits=["Symmetric"])
    assert {(e.subject, e.predicate, e.object, e.derived_via) for e in listed_edges(result)} == {
        ("wiki:Godfrey_Norton", "rel:Knows", "wiki:Irene_Adler", "Symmetric(rel:Knows)"),
        ("wiki:Godfrey_Norton", "rel:MarriedTo", "wiki:Irene_Adler", "Symmetric(rel:MarriedTo)"),
        ("wiki:Godfrey_Norton", "rel:MemberOf", "wiki:Inner_Temple", None),
    }
    statement = bfs(demo, seeds=["stmt:s12"], max_hops=1)
    assert hops(statement) == {"stmt:s12": 0, "wiki:Sherlock_Holmes": 1, "obj:cigar_case": 1, "wiki:Dr_Watson": 1}
    assert {(e.subject, e.predicate, e.object) for e in listed_edges(statement)} == {
        ("stmt:s12", "rdf:subject", "wiki:Sherlock_Holmes"),
        ("stmt:s12", "rdf:object", "obj:cigar_case"),
        S["s13"],
    }


def test_valid_at_filters_edges_in_force(demo: Gateway) -> None:
    later = bfs(demo, seeds=["wiki:Dr_Watson"], max_hops=1, valid_at=1890)
    assert "wiki:221B_Baker_Street" not in hops(later)
    earlier = bfs(demo, seeds=["wiki:Dr_Watson"], max_hops=1, valid_at=1887)
    assert "wiki:Mary_Morstan" not in hops(earlier) and "wiki:221B_Baker_Street" in hops(earlier)
    assert earlier.hidden_by_filter == {"valid_at": 1}


def test_presentation_filters_never_change_topology(demo: Gateway) -> None:
    base = {"seeds": ["wiki:Sherlock_Holmes", "obj:photograph"], "max_hops": 2}
    variants = [
        {},
        {"topology_only": True},
        {"node_filter": {"entity_types": ["Person"]}},
        {"edge_filter": {"predicates": ["Knows"]}},
        {"node_filter": {"entity_types": []}, "edge_filter": {"predicates": []}},
    ]
    shapes = set()
    for variant in variants:
        result = bfs(demo, **base, **variant)
        shapes.add(
            (tuple(n.id for n in listed_nodes(result)), tuple((e.subject, e.predicate, e.object) for e in listed_edges(result)))
        )
    assert len(shapes) == 1


def test_stubs_carry_exactly_the_stub_fields(demo: Gateway) -> None:
    result = bfs(demo, seeds=["wiki:Sherlock_Holmes"], max_hops=2, topology_only=True)
    for node in listed_nodes(result):
        assert set(node.model_dump(exclude_none=True)) == {"id", "entity_type"}
    for edge in listed_edges(result):
        assert set(edge.model_dump(exclude_none=True)) == {"subject", "predicate", "object"}
