"""Checks the synthetic graphs and the reference oracle before anything relies on them.

(a) the generator's RDF says what its objects say, read back through
pyoxigraph; (b) the oracle gives hand-computed answers on tiny graphs and
agrees with a plain-loop BFS and with SPARQL property paths on random ones;
(c) the benchmark stream parses and is heavy-tailed.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter, deque
from collections.abc import Set as AbstractSet

import pyoxigraph as ox
import pytest

from support.synth import (
    BFS,
    BFS_ASSERTED_AT,
    BFS_TRUTH_STATUS,
    BFS_VALID_FROM,
    BFS_VALID_UNTIL,
    ENTITY,
    OWL_INVERSE_OF,
    OWL_SYMMETRIC,
    PREDICATE,
    RDF_REIFIES,
    RDF_TYPE,
    STATEMENT,
    STATUSES,
    Statement,
    SynthGraph,
    default_status,
    power_law_ntriples,
    random_graph,
)
from tests.oracle import (
    RDF_OBJECT,
    RDF_SUBJECT,
    Edge,
    existing_nodes,
    inverse_partners,
    is_traversable,
    reference_bfs,
    reference_closure,
)


def E(name: str) -> str:
    return ENTITY + name


def P(name: str) -> str:
    return PREDICATE + name


def S(name: str) -> str:
    return STATEMENT + name


def plain(s: str, p: str, o: str) -> Statement:
    return Statement(None, E(s), P(p), E(o))


def reified(rid: str, s: str, p: str, o: str, **data: object) -> Statement:
    return Statement(S(rid), E(s), P(p), E(o), **data)  # type: ignore[arg-type]


def random_graphs() -> list[SynthGraph]:
    """A spread of sizes and settings; every fourth graph is plain-only."""
    graphs = []
    for seed in range(24):
        rng = random.Random(seed)
        n_nodes = rng.choice([5, 8, 15, 30, 60])
        graphs.append(
            random_graph(
                rng,
                n_nodes,
                rng.randint(n_nodes, 3 * n_nodes),
                reified=seed % 4 != 0,
                meta_fraction=0.15,
            )
        )
    return graphs


RANDOM_GRAPHS = random_graphs()


# --- (a) generator vs pyoxigraph ---------------------------------------------


def load(text: str, fmt: ox.RdfFormat) -> ox.Store:
    store = ox.Store()
    store.load(text, format=fmt)
    return store


def quads(store: ox.Store) -> set[str]:
    return {str(q) for q in store}


def literal_int(store: ox.Store, subject: ox.NamedNode, prop: str) -> int | None:
    values = [q.object for q in store.quads_for_pattern(subject, ox.NamedNode(prop), None)]
    assert len(values) <= 1
    return int(values[0].value) if values else None


def read_status(store: ox.Store, reifier: ox.NamedNode, asserted: bool) -> str:
    values = [q.object.value for q in store.quads_for_pattern(reifier, ox.NamedNode(BFS_TRUTH_STATUS), None)]
    assert len(values) <= 1
    return values[0].removeprefix(BFS) if values else default_status(asserted)


def read_back(store: ox.Store) -> list[Statement]:
    """The statements a reader of the RDF would see, by the model's rules."""
    found: list[Statement] = []
    reified_triples: set[tuple[str, str, str]] = set()
    for q in store.quads_for_pattern(None, ox.NamedNode(RDF_REIFIES), None):
        t = q.object
        assert isinstance(t, ox.Triple)
        asserted = any(store.quads_for_pattern(t.subject, t.predicate, t.object))
        triple = (t.subject.value, t.predicate.value, t.object.value)
        reified_triples.add(triple)
        found.append(
            Statement(
                q.subject.value,
                *triple,
                status=read_status(store, q.subject, asserted),
                asserted=asserted,
                asserted_at=literal_int(store, q.subject, BFS_ASSERTED_AT),
                valid_from=literal_int(store, q.subject, BFS_VALID_FROM),
                valid_until=literal_int(store, q.subject, BFS_VALID_UNTIL),
            )
        )
    for q in store:
        if not q.predicate.value.startswith(PREDICATE):
            continue  # rdf:reifies (triple-term object), statement data, schema
        triple = (q.subject.value, q.predicate.value, q.object.value)
        if triple not in reified_triples:
            found.append(Statement(None, *triple))
    return found


def statement_key(st: Statement) -> tuple[str, ...]:
    return tuple(str(v) for v in vars(st).values())


@pytest.mark.parametrize("g", RANDOM_GRAPHS)
def test_turtle_and_ntriples_load_to_the_same_quads(g: SynthGraph) -> None:
    nt = load(g.to_ntriples(), ox.RdfFormat.N_TRIPLES)
    ttl = load(g.to_turtle(), ox.RdfFormat.TURTLE)
    assert quads(nt) == quads(ttl)
    assert len(nt) > 0


@pytest.mark.parametrize("g", RANDOM_GRAPHS)
def test_reifies_count_and_base_triples(g: SynthGraph) -> None:
    store = load(g.to_ntriples(), ox.RdfFormat.N_TRIPLES)
    reifies = list(store.quads_for_pattern(None, ox.NamedNode(RDF_REIFIES), None))
    assert len(reifies) == sum(st.id is not None for st in g.statements)
    for st in g.statements:
        present = any(store.quads_for_pattern(ox.NamedNode(st.s), ox.NamedNode(st.p), ox.NamedNode(st.o)))
        assert present == st.asserted, st


@pytest.mark.parametrize("g", RANDOM_GRAPHS)
def test_store_reads_back_the_model(g: SynthGraph) -> None:
    store = load(g.to_turtle(), ox.RdfFormat.TURTLE)
    assert sorted(map(statement_key, read_back(store))) == sorted(map(statement_key, g.statements))
    types = {q.subject.value: q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(RDF_TYPE), None)}
    symmetric = {p for p, t in types.items() if t == OWL_SYMMETRIC}
    assert symmetric == g.symmetric
    assert {n: t for n, t in types.items() if t != OWL_SYMMETRIC} == g.types
    inverses = {q.subject.value: q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(OWL_INVERSE_OF), None)}
    assert inverses == g.inverses


def test_generator_covers_the_cases_tests_need() -> None:
    statements = [st for g in RANDOM_GRAPHS for st in g.statements]
    reifiers = {st.id for st in statements if st.id is not None}
    with_id = [st for st in statements if st.id is not None]
    by_triple = Counter((g_index, st.triple) for g_index, g in enumerate(RANDOM_GRAPHS) for st in g.statements if st.id)
    assert any(st.s == st.o for st in statements), "self-loops"
    assert any(n > 1 for n in by_triple.values()), "parallel statements"
    assert any(st.s in reifiers or st.o in reifiers for st in statements), "meta-statements"
    assert any(st.id is None for st in statements) and with_id, "plain and reified mixed"
    assert {st.status for st in with_id} == set(STATUSES)
    assert 0.1 < sum(not st.asserted for st in with_id) / len(with_id) < 0.35, "about 20% reifier-only"
    implicit = [st for g in RANDOM_GRAPHS for st in g.statements if st.id in g.implicit_status]
    assert {st.status for st in implicit} == {"asserted_true", "hypothetical"}
    shapes = {(st.valid_from is None, st.valid_until is None) for st in with_id}
    assert len(shapes) == 4, "no validity, both bounds, and each bound alone"
    assert any(st.asserted_at is None for st in with_id) and any(st.asserted_at is not None for st in with_id)


def test_plain_graphs_have_only_plain_triples() -> None:
    g = random_graph(random.Random(7), 20, 50, reified=False)
    assert g.statements and all(st.id is None for st in g.statements)
    assert g.symmetric == {P("0")} and g.inverses == {P("1"): P("2")}


def test_omitted_status_must_match_the_default_rule() -> None:
    st = reified("1", "a", "0", "b", status="disputed")
    with pytest.raises(ValueError):
        SynthGraph([st], implicit_status=frozenset({S("1")}))


# --- (b) oracle on hand-made graphs ------------------------------------------

PATH = SynthGraph([plain("a", "0", "b"), plain("b", "0", "c"), plain("c", "0", "d")])
AB, BC, CD = ((E(x), P("0"), E(y), None, None) for x, y in ("ab", "bc", "cd"))


def hops(**named: int) -> dict[str, int]:
    return {E(name): hop for name, hop in named.items()}


@pytest.mark.parametrize(
    ("seed", "direction", "max_hops", "expected_hops", "expected_edges"),
    [
        ("a", "out", 3, hops(a=0, b=1, c=2, d=3), {AB, BC, CD}),
        ("d", "in", 3, hops(d=0, c=1, b=2, a=3), {AB, BC, CD}),
        ("a", "both", 3, hops(a=0, b=1, c=2, d=3), {AB, BC, CD}),
        ("d", "both", 3, hops(d=0, c=1, b=2, a=3), {AB, BC, CD}),
        ("d", "out", 3, hops(d=0), set()),
        ("a", "in", 3, hops(a=0), set()),
        ("a", "out", 2, hops(a=0, b=1, c=2), {AB, BC}),
        ("b", "both", 1, hops(b=0, a=1, c=1), {AB, BC}),
        ("b", "out", 9, hops(b=0, c=1, d=2), {BC, CD}),
    ],
)
def test_path(
    seed: str, direction: str, max_hops: int, expected_hops: dict[str, int], expected_edges: set[Edge]
) -> None:
    assert reference_bfs(PATH, [E(seed)], max_hops, direction=direction) == (expected_hops, expected_edges)


def test_max_hops_zero_returns_only_existing_seeds() -> None:
    g = SynthGraph([reified("r", "a", "0", "b", status="hypothetical", asserted=False)])
    # Ends of an untraversable, unasserted statement and its reifier still exist.
    assert reference_bfs(g, [E("a"), E("b"), S("r"), E("nowhere")], 0) == ({E("a"): 0, E("b"): 0, S("r"): 0}, set())
    assert reference_bfs(PATH, [E("b")], 0) == (hops(b=0), set())
    assert reference_bfs(PATH, [E("zzz")], 3) == ({}, set())


def test_hypothetical_statement_cuts_the_path_by_default() -> None:
    g = SynthGraph(
        [
            reified("1", "a", "0", "b"),
            reified("2", "b", "0", "c", status="hypothetical"),
            plain("c", "0", "d"),
        ]
    )
    assert reference_bfs(g, [E("a")], 3, direction="out") == (
        hops(a=0, b=1),
        {(E("a"), P("0"), E("b"), S("1"), None)},
    )
    wider, edges = reference_bfs(g, [E("a")], 3, direction="out", truth_status={"asserted_true", "hypothetical"})
    assert wider == hops(a=0, b=1, c=2, d=3)
    assert (E("b"), P("0"), E("c"), S("2"), None) in edges
    # A statement whose status is not asked for is never traversable.
    assert reference_bfs(g, [E("a")], 3, truth_status={"hypothetical"})[0] == hops(a=0)


def test_as_of_cutoff_is_inclusive_and_timeless_statements_always_count() -> None:
    g = SynthGraph(
        [
            reified("1", "a", "0", "b", asserted_at=5),
            reified("2", "b", "0", "c", asserted_at=10),
            reified("3", "c", "0", "d"),
        ]
    )
    assert reference_bfs(g, [E("a")], 3, as_of=7)[0] == hops(a=0, b=1)
    assert reference_bfs(g, [E("a")], 3, as_of=10)[0] == hops(a=0, b=1, c=2, d=3)
    assert reference_bfs(g, [E("a")], 3)[0] == hops(a=0, b=1, c=2, d=3)
    assert reference_bfs(g, [E("c")], 3, direction="out", as_of=0)[0] == hops(c=0, d=1)


@pytest.mark.parametrize(
    ("valid_at", "expected"),
    [
        (None, hops(a=0, b=1, c=1, d=1)),
        (9, hops(a=0, d=1)),
        (12, hops(a=0, b=1, d=1)),
        (20, hops(a=0, b=1, c=1)),
        (21, hops(a=0, c=1)),
    ],
)
def test_valid_at_window_is_inclusive(valid_at: int | None, expected: dict[str, int]) -> None:
    g = SynthGraph(
        [
            reified("1", "a", "0", "b", valid_from=10, valid_until=20),
            reified("2", "a", "0", "c", valid_from=15),
            reified("3", "a", "0", "d", valid_until=12),
        ]
    )
    assert reference_bfs(g, [E("a")], 2, valid_at=valid_at)[0] == expected


def doubt_graph(doubted_status: str) -> SynthGraph:
    return SynthGraph(
        [
            reified("doubted", "x", "0", "y", status=doubted_status),
            Statement(S("doubt"), E("critic"), P("doubts"), S("doubted")),
        ]
    )


META = (E("critic"), P("doubts"), S("doubted"), S("doubt"), None)
TO_SUBJECT = (S("doubted"), RDF_SUBJECT, E("x"), None, None)
TO_OBJECT = (S("doubted"), RDF_OBJECT, E("y"), None, None)


def test_meta_statement_reaches_the_doubted_statements_ends() -> None:
    g = doubt_graph("asserted_true")
    assert reference_bfs(g, [E("critic")], 2, direction="out") == (
        {E("critic"): 0, S("doubted"): 1, E("x"): 2, E("y"): 2},
        {META, TO_SUBJECT, TO_OBJECT},
    )
    # Structural edges ignore direction; the critic arrives by the "in" rule.
    assert reference_bfs(g, [S("doubted")], 1, direction="in") == (
        {S("doubted"): 0, E("x"): 1, E("y"): 1, E("critic"): 1},
        {META, TO_SUBJECT, TO_OBJECT},
    )
    # Nothing leads from an entity back to the reifier of its statement.
    assert S("doubted") not in reference_bfs(g, [E("x")], 3)[0]


def test_untraversable_reifier_has_no_structural_edges() -> None:
    g = doubt_graph("disputed")
    assert reference_bfs(g, [E("critic")], 3) == ({E("critic"): 0, S("doubted"): 1}, {META})


def traits_graph(*extra: Statement) -> SynthGraph:
    return SynthGraph(
        [reified("sym", "a", "0", "b"), reified("inv", "c", "1", "d"), plain("e", "2", "f"), *extra],
        symmetric=frozenset({P("0")}),
        inverses={P("1"): P("2")},
    )


def test_symmetric_mirror() -> None:
    g = traits_graph()
    mirror = (E("b"), P("0"), E("a"), S("sym"), f"Symmetric({P('0')})")
    assert reference_bfs(g, [E("b")], 1, direction="out") == (hops(b=0), set())
    assert reference_bfs(g, [E("b")], 1, direction="out", expand_traits={"Symmetric"}) == (hops(b=0, a=1), {mirror})
    # Under "both" the original and its mirror are both used from either end.
    original = (E("a"), P("0"), E("b"), S("sym"), None)
    assert reference_bfs(g, [E("a")], 1, expand_traits={"Symmetric"})[1] == {original, mirror}


def test_inverse_mirror_works_from_either_declared_side() -> None:
    g = traits_graph()
    from_p1 = (E("d"), P("2"), E("c"), S("inv"), f"Inverse({P('1')})")
    from_p2 = (E("f"), P("1"), E("e"), None, f"Inverse({P('2')})")
    assert reference_bfs(g, [E("d")], 1, direction="out", expand_traits={"Inverse"}) == (hops(d=0, c=1), {from_p1})
    assert reference_bfs(g, [E("f")], 1, direction="out", expand_traits={"Inverse"}) == (hops(f=0, e=1), {from_p2})
    # Traits are opt-in one by one.
    assert reference_bfs(g, [E("d")], 1, direction="out", expand_traits={"Symmetric"}) == (hops(d=0), set())
    assert inverse_partners(g) == {P("1"): {P("2")}, P("2"): {P("1")}}


def test_mirror_is_dropped_when_the_graph_already_states_it() -> None:
    stated = reified("back", "b", "0", "a")
    g = traits_graph(stated)
    _, edges = reference_bfs(g, [E("b")], 1, direction="out", expand_traits={"Symmetric"})
    assert edges == {(E("b"), P("0"), E("a"), S("back"), None)}
    # An untraversable statement does not state anything for this purpose.
    g = traits_graph(reified("back", "b", "0", "a", status="retracted"))
    _, edges = reference_bfs(g, [E("b")], 1, direction="out", expand_traits={"Symmetric"})
    assert edges == {(E("b"), P("0"), E("a"), S("sym"), f"Symmetric({P('0')})")}


def test_self_loop() -> None:
    g = SynthGraph([plain("a", "0", "a"), plain("a", "0", "b")])
    loop, ab = (E("a"), P("0"), E("a"), None, None), (E("a"), P("0"), E("b"), None, None)
    for direction in ("out", "both"):
        assert reference_bfs(g, [E("a")], 1, direction=direction) == (hops(a=0, b=1), {loop, ab})
    assert reference_bfs(g, [E("a")], 1, direction="in") == (hops(a=0), {loop})
    symmetric_loop = SynthGraph(g.statements, symmetric=frozenset({P("0")}))
    # The mirror of a loop is the loop itself, which the graph states.
    assert loop in reference_bfs(symmetric_loop, [E("a")], 1, expand_traits={"Symmetric"})[1]
    assert len(reference_bfs(symmetric_loop, [E("a")], 1, direction="out", expand_traits={"Symmetric"})[1]) == 2


def test_edges_between_nodes_at_the_last_hop_are_not_used() -> None:
    g = SynthGraph([plain("a", "0", "b"), plain("a", "0", "c"), plain("b", "0", "c")])
    bc = (E("b"), P("0"), E("c"), None, None)
    assert bc not in reference_bfs(g, [E("a")], 1)[1]
    assert bc in reference_bfs(g, [E("a")], 2)[1]


def test_hop_is_distance_to_the_nearest_seed_and_parallel_statements_are_distinct() -> None:
    g = SynthGraph([*PATH.statements, reified("1", "d", "0", "e"), reified("2", "d", "0", "e")])
    found, edges = reference_bfs(g, [E("a"), E("e")], 9)
    assert found == hops(a=0, b=1, c=2, d=1, e=0)
    assert {(E("d"), P("0"), E("e"), S(r), None) for r in "12"} <= edges


def test_bad_arguments_are_rejected() -> None:
    for kwargs in ({"direction": "sideways"}, {"expand_traits": {"Transitive"}}):
        with pytest.raises(ValueError):
            reference_bfs(PATH, [E("a")], 1, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        reference_bfs(PATH, [E("a")], -1)


def test_closure_on_a_cycle_with_a_tail() -> None:
    g = SynthGraph([plain("a", "0", "b"), plain("b", "0", "c"), plain("c", "0", "a"), plain("c", "0", "d")])
    assert reference_closure(g, E("a"), P("0")) == {E("a"), E("b"), E("c"), E("d")}
    assert reference_closure(g, E("d"), P("0")) == set()
    assert reference_closure(g, E("d"), P("0"), direction="in") == {E("a"), E("b"), E("c")}
    assert reference_closure(PATH, E("a"), P("0")) == {E("b"), E("c"), E("d")}
    assert reference_closure(PATH, E("a"), P("0"), direction="both") == {E("a"), E("b"), E("c"), E("d")}
    assert reference_closure(PATH, E("a"), P("1")) == set()


def test_closure_filters_statements() -> None:
    g = SynthGraph([reified("1", "a", "0", "b", asserted_at=3), reified("2", "b", "0", "c", status="disputed")])
    assert reference_closure(g, E("a"), P("0")) == {E("b")}
    assert reference_closure(g, E("a"), P("0"), truth_status={"asserted_true", "disputed"}) == {E("b"), E("c")}
    assert reference_closure(g, E("a"), P("0"), as_of=2) == set()


# --- (b) oracle vs a plain loop and vs SPARQL on random graphs ---------------


def naive_bfs(
    g: SynthGraph,
    seeds: list[str],
    max_hops: int,
    direction: str,
    truth_status: AbstractSet[str],
    as_of: int | None,
    valid_at: int | None,
    expand_traits: AbstractSet[str],
) -> tuple[dict[str, int], set[Edge]]:
    """The rules as a textbook queue, to catch misuse of networkx in the oracle."""
    reifiers = {st.id for st in g.statements if st.id is not None}
    live = [
        st for st in g.statements
        if is_traversable(st, truth_status, as_of, valid_at) and not (st.id is None and st.s in reifiers)
    ]
    stated = {st.triple for st in live}
    partners = inverse_partners(g)
    candidates: list[Edge] = [(st.s, st.p, st.o, st.id, None) for st in live]
    for st in live:
        if "Symmetric" in expand_traits and st.p in g.symmetric:
            candidates.append((st.o, st.p, st.s, st.id, f"Symmetric({st.p})"))
        for q in partners.get(st.p, set()) if "Inverse" in expand_traits else set():
            candidates.append((st.o, q, st.s, st.id, f"Inverse({st.p})"))
    candidates = [e for e in candidates if e[4] is None or e[:3] not in stated]
    nodes = existing_nodes(g)
    found = {s: 0 for s in seeds if s in nodes}
    queue, used = deque(found), set()
    while queue:
        x = queue.popleft()
        if found[x] >= max_hops:
            continue
        steps: list[tuple[Edge, str]] = []
        for e in candidates:
            if direction in ("out", "both") and e[0] == x:
                steps.append((e, e[2]))
            if direction in ("in", "both") and e[2] == x:
                steps.append((e, e[0]))
        for st in live:
            if st.id == x:
                steps += [((x, RDF_SUBJECT, st.s, None, None), st.s), ((x, RDF_OBJECT, st.o, None, None), st.o)]
        for edge, neighbour in steps:
            used.add(edge)
            if neighbour not in found:
                found[neighbour] = found[x] + 1
                queue.append(neighbour)
    return found, used


def random_query(rng: random.Random, g: SynthGraph) -> dict[str, object]:
    nodes = sorted(existing_nodes(g))
    return {
        "seeds": rng.sample(nodes, k=min(len(nodes), rng.randint(1, 3))),
        "max_hops": rng.randint(0, 4),
        "direction": rng.choice(["out", "in", "both"]),
        "truth_status": set(rng.sample(STATUSES, k=rng.randint(1, 3))) | {"asserted_true"},
        "as_of": rng.choice([None, rng.randint(0, 100)]),
        "valid_at": rng.choice([None, rng.randint(0, 100)]),
        "expand_traits": set(rng.sample(["Symmetric", "Inverse"], k=rng.randint(0, 2))),
    }


@pytest.mark.parametrize("index", range(len(RANDOM_GRAPHS)))
def test_oracle_agrees_with_a_plain_loop(index: int) -> None:
    g = RANDOM_GRAPHS[index]
    rng = random.Random(index)
    for _ in range(25):
        query = random_query(rng, g)
        seeds, max_hops = query.pop("seeds"), query.pop("max_hops")
        expected = naive_bfs(g, seeds, max_hops, **query)  # type: ignore[arg-type]
        assert reference_bfs(g, seeds, max_hops, **query) == expected, query  # type: ignore[arg-type]


def test_oracle_edges_join_reported_nodes() -> None:
    for index, g in enumerate(RANDOM_GRAPHS):
        query = random_query(random.Random(100 + index), g)
        found, edges = reference_bfs(g, query.pop("seeds"), query.pop("max_hops"), **query)  # type: ignore[arg-type]
        assert all(e[0] in found and e[2] in found for e in edges)


SPARQL_PATH = {"out": "<{p}>+", "in": "^<{p}>+", "both": "(<{p}>|^<{p}>)+"}


@pytest.mark.parametrize("direction", ["out", "in", "both"])
def test_closure_matches_sparql_property_paths_on_plain_graphs(direction: str) -> None:
    for seed in range(6):
        g = random_graph(random.Random(seed), 12, 30, reified=False, n_predicates=2)
        store = load(g.to_ntriples(), ox.RdfFormat.N_TRIPLES)
        for start, p in itertools.product(sorted(existing_nodes(g))[:6], (P("0"), P("1"))):
            path = SPARQL_PATH[direction].format(p=p)
            rows = store.query(f"SELECT DISTINCT ?x WHERE {{ <{start}> {path} ?x }}")
            assert {row["x"].value for row in rows} == reference_closure(g, start, p, direction)


# --- (c) benchmark stream ----------------------------------------------------


def test_power_law_stream_parses_and_is_heavy_tailed() -> None:
    lines = list(power_law_ntriples(20_000, seed=1, reified=True))
    assert 20_000 <= len(lines) <= 20_006
    assert all(line.endswith(" .\n") for line in lines)
    store = load("".join(lines), ox.RdfFormat.N_TRIPLES)
    statements = list(store.quads_for_pattern(None, ox.NamedNode(RDF_REIFIES), None))
    degree = Counter(end.value for q in statements for end in (q.object.subject, q.object.object))
    assert max(degree.values()) >= 20 * statistics.median(degree.values())
    statuses = Counter(q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(BFS_TRUTH_STATUS), None))
    assert statuses.total() == len(statements)
    assert 0.75 < statuses[BFS + "asserted_true"] / len(statements) < 0.85


def test_power_law_plain_stream_is_deterministic() -> None:
    first = list(power_law_ntriples(5_000, seed=3, reified=False))
    assert first == list(power_law_ntriples(5_000, seed=3, reified=False))
    assert first != list(power_law_ntriples(5_000, seed=4, reified=False))
    assert len(first) == 5_000
    assert len(load("".join(first), ox.RdfFormat.N_TRIPLES)) <= 5_000
