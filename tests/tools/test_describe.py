"""describe_entity / describe_entities and input validation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, NotFound
from gateway.models import RelationshipCount
from tests.conftest import DEMO, demo_reification, shared_data


def test_describe_entity_gives_full_data_and_relationship_counts(demo: Gateway) -> None:
    irene = demo.describe_entity("https://example.org/wiki/Irene_Adler")
    assert irene.id == "wiki:Irene_Adler" and irene.label == "Irene Adler"
    assert irene.alt_labels == ["Irene Norton", "The Woman"]
    counts = {(r.predicate, r.direction): (r.count, r.other_statuses) for r in irene.relationships}
    assert counts[("rel:Possesses", "out")] == (1, {"hypothetical": 1})  # s19 asserted, s40 reifier only
    assert counts[("rel:Loves", "in")] == (0, {"asserted_false": 1})  # s1, reifier only


def _reification() -> Gateway:
    store = ox.Store()
    store.load(demo_reification().encode(), format=ox.RdfFormat.N_QUADS)
    return Gateway.open(store)


def _wikidata() -> Gateway:
    return Gateway.open(shared_data("wikidata", "Q42.ttl"))


GRAPHS: dict[str, Callable[[], Gateway]] = {"native": lambda: Gateway.open(DEMO), "reification": _reification,
                                            "wikidata": _wikidata}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_relationship_counts_are_what_a_one_hop_walk_crosses(name: str) -> None:
    """For every entity: `count` equals the edges a default 1-hop walk crosses per
    predicate and direction, and count + other_statuses those of a walk over every status."""
    gateway = GRAPHS[name]()
    checked = 0
    entities = sorted({n["id"] for n in gateway.bfs_query(seeds=[SEEDS[name]], max_hops=2, topology_only=True,
                                                          truth_status=EVERY).nodes})[:60]  # type: ignore[index]
    for entity in entities:
        described = gateway.describe_entity(entity).relationships or []
        for statuses, read in ((None, _default), (EVERY, _every)):
            walk = gateway.bfs_query(seeds=[entity], max_hops=1, truth_status=statuses, topology_only=True,
                                     max_nodes=10_000, max_edges=50_000)
            assert not walk.truncated
            crossed: Counter[tuple[str, str]] = Counter()
            for edge in walk.edges:
                if edge.get("derived_via"):  # type: ignore[union-attr]
                    continue
                ends = (edge["subject"], edge["object"])  # type: ignore[index]
                for direction, end in (("out", ends[0]), ("in", ends[1])):
                    if end == entity:
                        crossed[(edge["predicate"], direction)] += 1  # type: ignore[index]
            counted = Counter({(r.predicate, r.direction): read(r) for r in described if read(r)})
            assert counted == crossed, (entity, statuses)
            checked += 1
    assert checked >= 20, checked


EVERY = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
SEEDS = {"native": "wiki:Irene_Adler", "reification": "https://example.org/wiki/Irene_Adler", "wikidata": "wd:Q42"}


def _default(count: RelationshipCount) -> int:
    return count.count


def _every(count: RelationshipCount) -> int:
    return count.count + sum((count.other_statuses or {}).values())


def test_describe_a_statement(demo: Gateway) -> None:
    s12 = demo.describe_entity("stmt:s12")
    assert s12.entity_type == "Statement" and s12.statement is not None
    assert (s12.statement.subject, s12.statement.predicate, s12.statement.object) == (
        "wiki:Sherlock_Holmes", "rel:Possesses", "obj:cigar_case")
    assert s12.statement.confidence == 0.94 and s12.statement.asserted_at == 412
    s42 = demo.describe_entity("stmt:s42")
    assert s42.statement is not None and s42.statement.truth_status == "hypothetical"


def test_describe_entities_lists_unresolved(demo: Gateway) -> None:
    result = demo.describe_entities(["wiki:Dr_Watson", "wiki:Moriarty", "nosuch:x"])
    assert [e.id for e in result.entities] == ["wiki:Dr_Watson"]
    assert result.unresolved == ["nosuch:x", "wiki:Moriarty"] or set(result.unresolved) == {"nosuch:x", "wiki:Moriarty"}


def test_absent_entity_is_not_found(demo: Gateway) -> None:
    with pytest.raises(NotFound) as caught:
        demo.describe_entity("wiki:Moriarty")
    assert caught.value.field == "id"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"seeds": []}, "seeds"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "truth_status": ["true"]}, "truth_status.0"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "direction": "sideways"}, "direction"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "max_hop": 2}, "max_hop"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "as_of": 1.5}, "as_of"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "as_of": "yesterday"}, "as_of"),
        ({"seeds": ["wiki:Sherlock_Holmes"], "expand_traits": ["Transitive"]}, "expand_traits.0"),
        ({"seeds": "wiki:Sherlock_Holmes"}, "seeds"),
    ],
)
def test_bad_arguments_name_the_field(demo: Gateway, arguments: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        demo.call("bfs_query", arguments)
    assert caught.value.field == field


def test_unknown_tool(demo: Gateway) -> None:
    with pytest.raises(InvalidInput):
        demo.call("drop_graph", {})


def test_describe_schema_summarises_the_graph(demo: Gateway) -> None:
    schema = demo.describe_schema()
    assert schema.profile == "native"
    assert schema.graph_description.startswith("Sherlock Holmes demo: A Scandal in Bohemia")
    types = {t.id: t.count for t in schema.entity_types}
    assert types == {"sh:Person": 11, "sh:Location": 9, "sh:Object": 4, "sh:Publication": 4, "sh:Organization": 2}
    predicates = {p.id: p for p in schema.predicates}
    assert predicates["rel:Knows"].traits == ["Symmetric"]
    assert predicates["rel:DisguisedAs"].inverse_of == "rel:HasTrueIdentity"
    assert predicates["rel:Possesses"].count == 6
    assert schema.truth_statuses == {"asserted_false": 1, "asserted_true": 38, "disputed": 2, "hypothetical": 4, "retracted": 1}
    assert schema.statements.total == 46 and schema.statements.without_asserted_at == 21
    assert schema.as_of_range and (schema.as_of_range.min, schema.as_of_range.max) == (3, 760)
    assert schema.valid_at_range and (schema.valid_at_range.min, schema.valid_at_range.max) == (1881, 1904)
    assert schema.prefixes["wiki"] == "https://example.org/wiki/"


def test_the_schema_says_which_types_each_predicate_connects(demo: Gateway) -> None:
    """Against the triples read from the file: (subject type, object type) pairs per predicate."""
    from collections import Counter

    import pyoxigraph as ox

    from gateway.profiles.base import NON_EDGE_PREDICATES
    from tests.conftest import DEMO

    triples = {(q.subject, q.predicate, q.object) for q in ox.parse(path=str(DEMO), format=ox.RdfFormat.TRIG)}
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    types: dict[ox.NamedNode, list[str | None]] = {}
    for s, p, o in triples:
        if p == rdf_type and isinstance(o, ox.NamedNode):
            types.setdefault(s, []).append(o.value)  # type: ignore[arg-type]
    reifies = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies")
    for s, p, _ in triples:  # an untyped end that is a statement counts as bfs:Statement
        if p == reifies and s not in types:
            types[s] = ["https://w3id.org/bfsql#Statement"]  # type: ignore[index]
    pairs: dict[str, Counter[tuple[str | None, str | None]]] = {}
    for s, p, o in triples:
        if isinstance(s, ox.NamedNode) and isinstance(o, ox.NamedNode) and p.value not in NON_EDGE_PREDICATES:
            for st in types.get(s, [None]):
                for ot in types.get(o, [None]):
                    pairs.setdefault(p.value, Counter())[(st, ot)] += 1
    to_id = demo.context.ids.to_id
    schema = demo.describe_schema()
    checked = 0
    for predicate in schema.predicates:
        iri = demo.context.ids.resolve(predicate.id, "p").iri
        found = pairs.get(iri, Counter())
        ranked = sorted(found.items(), key=lambda kv: (-kv[1], kv[0][0] or "", kv[0][1] or ""))[:3]
        # The most common pair, then those holding a tenth of the predicate's triples.
        expected = [(pair, n) for i, (pair, n) in enumerate(ranked) if i == 0 or 10 * n >= found.total()]
        assert predicate.connects == [f"{to_id(st) if st else '?'} -> {to_id(ot) if ot else '?'} ({n})"
                                      for (st, ot), n in expected], predicate.id
        checked += bool(predicate.connects)
    assert checked >= 10


def test_describe_schema_lists_the_largest_and_counts_the_rest() -> None:
    """Hundreds of types and predicates (a store of many vocabularies): the most common
    are listed, the rest counted in a warning, and every tool still takes them by name."""
    import pyoxigraph as ox

    from gateway.tools.describe_schema import LISTED

    ex = "http://data.example/"
    store = ox.Store()
    kinds = LISTED + 20
    for k in range(kinds):  # type k has k + 1 entities, each with k + 1 edges of predicate k
        for i in range(k + 1):
            entity = ox.NamedNode(f"{ex}e{k}_{i}")
            store.add(ox.Quad(entity, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                              ox.NamedNode(f"{ex}T{k}")))
            store.add(ox.Quad(entity, ox.NamedNode(f"{ex}p{k}"), ox.NamedNode(f"{ex}e0_0")))
    gateway = Gateway.open(store)
    schema = gateway.describe_schema()
    assert sorted(t.count for t in schema.entity_types) == list(range(kinds - LISTED + 1, kinds + 1))
    assert sorted(p.count for p in schema.predicates if not p.walked_when_named) == \
        list(range(kinds - LISTED + 2, kinds + 1))  # rdf:type, the most used, takes one place
    assert any(w.startswith(f"entity_types: the {LISTED} with the most entities are listed, of {kinds}; the other "
                            f"{kinds - LISTED} have at most {kinds - LISTED} each") for w in schema.warnings)
    unlisted = f"{ex}T0"  # past the cap, and still a type every tool takes
    assert gateway.scan_query(node_types=[unlisted]).count == 1
    assert not gateway.bfs_query(seeds=[f"{ex}e1_0"], predicates=[f"{ex}p1"]).warnings
