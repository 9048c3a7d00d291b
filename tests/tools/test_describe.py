"""describe_entity / describe_entities and input validation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, NotFound, models
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
        detail = gateway.describe_entity(entity)
        if detail.id != entity:  # an identifier node, resolved to the entity carrying it (test_canonical_ids.py)
            continue
        described = detail.relationships or []
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


# -- blank nodes: large, and malformed lists ----------------------------------------------
D = "http://d.example/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def _list_quads(owner: str, members: int, *, end: str = "nil", branch_at: int | None = None) -> list[ox.Quad]:
    """`owner d:members ( m0 m1 ... )`; `end`: "nil" (a proper list), "cycle" (the last cell's
    rest is the third cell), or "none" (no rest at the end); `branch_at`: a cell with two rests."""
    cells = [ox.BlankNode() for _ in range(members)]
    quads = [ox.Quad(ox.NamedNode(owner), ox.NamedNode(D + "members"), cells[0])]
    for i, cell in enumerate(cells):
        quads.append(ox.Quad(cell, ox.NamedNode(RDF + "first"), ox.NamedNode(f"{D}m{i}")))
        if i + 1 < members:
            quads.append(ox.Quad(cell, ox.NamedNode(RDF + "rest"), cells[i + 1]))
        elif end == "nil":
            quads.append(ox.Quad(cell, ox.NamedNode(RDF + "rest"), ox.NamedNode(RDF + "nil")))
        elif end == "cycle":
            quads.append(ox.Quad(cell, ox.NamedNode(RDF + "rest"), cells[2]))
    if branch_at is not None:
        other = ox.BlankNode()
        quads += [ox.Quad(cells[branch_at], ox.NamedNode(RDF + "rest"), other),
                  ox.Quad(other, ox.NamedNode(RDF + "first"), ox.NamedNode(D + "elsewhere")),
                  ox.Quad(other, ox.NamedNode(RDF + "rest"), ox.NamedNode(RDF + "nil"))]
    return [*quads, ox.Quad(ox.NamedNode(owner), ox.NamedNode(RDF + "type"), ox.NamedNode(D + "Thing"))]


def _gateway(quads: list[ox.Quad]) -> Gateway:
    store = ox.Store()
    store.bulk_extend(quads)
    return Gateway.open(store)


def test_a_long_list_shows_its_first_members_and_counts_the_rest() -> None:
    """39,000 members: the first 50 written, the rest counted, within a bound far from
    what the read takes (the whole list was once searched again for each of its cells: 81 s
    for 100,000); a list longer than one read takes is counted by the store, not read.
    The bound is no measure of speed: on a loaded machine the read itself (about 1.5 s
    idle) may take several times that, and a deadline hit there is a typed timeout
    (`test_a_read_of_a_long_list_ends_at_the_calls_deadline`), not a list cut short."""
    gateway = _gateway(_list_quads(D + "x", 39_000))
    described = _answered(lambda: gateway.call("describe_entity", {"id": D + "x"}, deadline=LONG_LIST_BOUND - 2))
    assert described.properties[D + "members"] == [  # type: ignore[index]
        f"( {' '.join(f'{D}m{i}' for i in range(50))} …(+{39_000 - 50}) )"]
    longer = _gateway(_list_quads(D + "x", 100_000))
    described = _answered(lambda: longer.call("describe_entity", {"id": D + "x"}, deadline=LONG_LIST_BOUND - 2))
    assert described.properties[D + "members"] == ["[… 1 blank nodes, 100,000 list members …]"]  # type: ignore[index]


def _answered(call: Callable[[], object]) -> models.EntityDetail:
    """What `call` answered within `LONG_LIST_BOUND` seconds; what it raised, raised here
    (`within` hands an error back as its value: read as an answer, it hid the timeout)."""
    from tests.tools.test_tabulate_bounds import within

    outcome = within(LONG_LIST_BOUND, call)
    if isinstance(outcome, BaseException):
        raise outcome
    assert isinstance(outcome, models.EntityDetail)
    return outcome


LONG_LIST_BOUND = 60.0
"""Seconds the long-list reads are given: the old quadratic read of 39,000 members took
longer, a loaded machine's linear one takes a small part of it."""


def test_many_blank_nodes_show_the_first_and_count_the_rest() -> None:
    from gateway.engine.blanks import BLANKS_SHOWN

    parts = [ox.BlankNode() for _ in range(20_000)]
    quads = [q for i, b in enumerate(parts) for q in (ox.Quad(ox.NamedNode(D + "y"), ox.NamedNode(D + "part"), b),
                                                      ox.Quad(b, ox.NamedNode(D + "size"), ox.Literal(i)))]
    gateway = _gateway(quads)
    shown = gateway.describe_entity(id=D + "y").properties[D + "part"]  # type: ignore[index]
    assert len(shown) == BLANKS_SHOWN + 1 and shown[-1] == f"…(+{20_000 - BLANKS_SHOWN:,} more blank nodes)"
    assert len(gateway.describe_entity(id=D + "y").model_dump_json()) < 20_000
    told = gateway.describe_entities(ids=[D + "y"]).warnings
    assert any(f"20,000 blank nodes, the first {BLANKS_SHOWN} shown" in w for w in told)


def test_blank_nodes_past_what_one_answer_reads_are_counted_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.engine import blanks

    monkeypatch.setattr(blanks, "BLANK_ROWS", 500)
    gateway = _gateway([*_list_quads(D + "x", 1_000), *_list_quads(D + "small", 3)])
    both = gateway.describe_entities(ids=[D + "x", D + "small"])
    by_id = {e.id: e.properties for e in both.entities}
    assert by_id[D + "x"][D + "members"] == ["[… 1 blank nodes, 1,000 list members …]"]  # type: ignore[index]
    assert by_id[D + "small"][D + "members"] == [f"( {D}m0 {D}m1 {D}m2 )"]  # type: ignore[index]
    assert any("1,000 list members" in w and "counted, not shown" in w for w in both.warnings)


@pytest.mark.parametrize(("shape", "shown", "problem"), [
    ({"end": "cycle"}, "m0 m1 m2 m3 m4 …(cycle)", "loops back to its member 3 after 5 (a cycle)"),
    ({"end": "none"}, "m0 m1 m2 m3 m4 …(not a list)", "ends after its member 5 without rdf:nil"),
    ({"branch_at": 1}, "m0 m1 …(branch)", "branches after its member 2 (2 rdf:rest)"),
])
def test_a_malformed_list_is_shown_as_what_it_is(shape: dict[str, object], shown: str, problem: str) -> None:
    gateway = _gateway(_list_quads(D + "x", 5, **shape))  # type: ignore[arg-type]
    members = gateway.describe_entity(id=D + "x").properties[D + "members"]  # type: ignore[index]
    assert members == ["( " + " ".join(f"{D}{w}" if w.startswith("m") else w for w in shown.split()) + " )"]
    told = gateway.describe_entities(ids=[D + "x"]).warnings
    assert told == [f"{D}x: {D}members: a list that {problem}: shown up to there"]
    assert gateway.describe_entity(id=D + "x").warnings == told  # the single-entity form says so too


def test_a_read_of_a_long_list_ends_at_the_calls_deadline() -> None:
    """100,000 members are read whole to show the first 50 (1.5 s in process, more from disk):
    a call with less time is stopped at its deadline, with a typed timeout, not a list cut short."""
    import time

    from gateway.errors import EndpointTimeout

    gateway = _gateway(_list_quads(D + "x", 100_000))
    gateway.call("describe_schema", {})
    started = time.monotonic()
    with pytest.raises(EndpointTimeout):
        gateway.call("describe_entity", {"id": D + "x"}, deadline=0.3)
    assert time.monotonic() - started < 0.3 + 2
