"""bfs_query's relation-path walks (`path`) against oracles that share no code with the
gateway: SPARQL property paths run by pyoxigraph over the same store (`seed :r1/^:r2 ?end`,
`(:r|^:r)` for both ways), and, for graphs of statements under traversal filters, a walk
step by step over tests/oracle.py's traversable edges."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.errors import InvalidInput
from gateway.models import CompactSubgraph, Subgraph
from support.synth import predicate, random_graph
from tests.conftest import gateway_from_ntriples, listed_edges, listed_nodes, random_filters, shared_data
from tests.oracle import existing_nodes, traversable_edges

NS = "http://path.example/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
Triple = tuple[str, str, str]
Step = tuple[list[str], str]
"""A path step as the oracles take it: (predicate IRIs, direction)."""


# -- oracles ----------------------------------------------------------------------------
def sparql_step(predicates: Sequence[str], direction: str) -> str:
    ways = [f"<{p}>" for p in predicates if direction in ("out", "both")]
    ways += [f"^<{p}>" for p in predicates if direction in ("in", "both")]
    return "(" + "|".join(ways) + ")"


def sparql_layers(store: ox.Store, seeds: Iterable[str], steps: Sequence[Step]) -> list[set[str]]:
    """The nodes each prefix of the path reaches from the seeds: `seed step1/.../stepi ?end`."""
    values = " ".join(f"<{s}>" for s in seeds)
    layers = []
    for i in range(1, len(steps) + 1):
        path = "/".join(sparql_step(*step) for step in steps[:i])
        rows = store.query(f"SELECT DISTINCT ?end WHERE {{ VALUES ?seed {{ {values} }} ?seed {path} ?end }}",
                           use_default_graph_as_union=True)
        assert isinstance(rows, ox.QuerySolutions)
        layers.append({row["end"].value for row in rows if isinstance(row["end"], ox.NamedNode)})
    return layers


def crossed(triples: Iterable[Triple], layers: Sequence[set[str]], steps: Sequence[Step]) -> set[Triple]:
    """The triples step i crosses from layer i-1 (layers[0]: the seeds)."""
    edges = set()
    for (predicates, direction), before in zip(steps, layers, strict=False):
        for s, p, o in triples:
            if p in predicates and ((direction != "in" and s in before) or (direction != "out" and o in before)):
                edges.add((s, p, o))
    return edges


def first_hops(layers: Sequence[set[str]]) -> dict[str, int]:
    hops: dict[str, int] = {}
    for hop, layer in enumerate(layers):
        for node in layer:
            hops.setdefault(node, hop)
    return hops


def answer_hops(answer: Subgraph) -> dict[str, int]:
    hops = [hop for hop, count in enumerate(answer.hop_counts) for _ in range(count)]
    return {node.id: hop for node, hop in zip(listed_nodes(answer), hops, strict=True)}


def as_path(steps: Sequence[Step], walk_direction: str, rng: random.Random) -> list[dict[str, Any]]:
    """The steps as `path` takes them, a step walking the walk's direction sometimes left unsaid."""
    return [
        {"predicates": predicates} if direction == walk_direction and rng.random() < 0.5
        else {"predicates": predicates, "direction": direction}
        for predicates, direction in steps
    ]


# -- random typed multigraphs, checked against SPARQL property paths ------------------------
def node(i: int) -> str:
    return f"{NS}n{i}"


def random_multigraph(rng: random.Random) -> tuple[list[Triple], list[str]]:
    """Parallel edges of several predicates, self-loops, cycles, and rdf:type (crossed only
    where a step names it): (the triples, the predicates)."""
    n = rng.randint(2, 25)
    predicates = [f"{NS}p{k}" for k in range(rng.randint(1, 4))]
    triples = set()
    for _ in range(rng.randint(1, 3 * n)):
        s = rng.randrange(n)
        o = s if rng.random() < 0.1 else rng.randrange(n)
        triples.add((node(s), rng.choice(predicates), node(o)))
    for i in range(n):
        if i == 0 or rng.random() < 0.5:
            triples.add((node(i), RDF_TYPE, f"{NS}T{rng.randrange(3)}"))
    return sorted(triples), sorted({p for _, p, _ in triples} - {RDF_TYPE})  # a path names what is there


def store_of(triples: Iterable[Triple]) -> ox.Store:
    store = ox.Store()
    store.extend(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), ox.NamedNode(o)) for s, p, o in triples)
    return store


def random_steps(rng: random.Random, predicates: list[str], length: int) -> list[Step]:
    named = [*predicates, RDF_TYPE] if rng.random() < 0.2 else predicates
    return [(rng.sample(named, k=rng.randint(1, min(2, len(named)))), rng.choice(["out", "in", "both"]))
            for _ in range(length)]


@pytest.mark.parametrize("number", range(120))
def test_a_path_walk_is_the_sparql_property_path(number: int) -> None:
    rng = random.Random(number)
    triples, predicates = random_multigraph(rng)
    store = store_of(triples)
    gateway = Gateway.open(store_of(triples))
    in_graph = sorted({t[0] for t in triples} | {t[2] for t in triples})
    for _ in range(4):
        seeds = rng.sample(in_graph, k=min(len(in_graph), rng.choice([1, 1, 2, 3])))
        steps = random_steps(rng, predicates, rng.randint(1, 3))
        direction = rng.choice(["out", "in", "both"])
        answer = gateway.bfs_query(seeds=seeds, path=as_path(steps, direction, rng), direction=direction,
                                   max_nodes=10_000, max_edges=50_000)
        assert isinstance(answer, Subgraph)
        layers = [set(seeds), *sparql_layers(store, seeds, steps)]
        ends = sorted(layers[-1])
        assert answer.path_ends is not None
        assert (list(answer.path_ends.ids), answer.path_ends.total) == (ends, len(ends))
        assert not answer.truncated and answer.path_ends.truncated is None
        assert answer.max_hops == len(steps)
        assert answer_hops(answer) == first_hops(layers)
        to_id = gateway.context.ids.to_id
        assert ({(e.subject, e.predicate, e.object) for e in listed_edges(answer)}
                == {(s, to_id(p), o) for s, p, o in crossed(triples, layers, steps)})


def test_a_node_on_the_path_twice_is_where_it_ends() -> None:
    """A self-loop and a 2-cycle: the seed is at hop 0, its neighbour at hop 1, and both
    end the path (the walk goes back through nodes it has listed already)."""
    a, b, r = f"{NS}a", f"{NS}b", f"{NS}r"
    triples = [(a, r, a), (a, r, b), (b, r, a)]
    gateway = Gateway.open(store_of(triples))
    for length in (1, 2, 3):
        answer = gateway.bfs_query(seeds=[a], path=[{"predicates": [r], "direction": "out"}] * length)
        assert isinstance(answer, Subgraph)
        assert answer.path_ends is not None and list(answer.path_ends.ids) == [a, b]
        assert answer.hop_counts == [1, 1] and answer.edge_count == (2 if length == 1 else 3)
    back = gateway.bfs_query(seeds=[b], path=[{"predicates": [r], "direction": "out"}, {"predicates": [r]}],
                             direction="in")
    assert back.path_ends is not None and list(back.path_ends.ids) == [a, b]  # b -> a, then a <- a, a <- b


@pytest.mark.parametrize("number", range(60))
def test_a_path_cut_by_a_budget_says_so(number: int) -> None:
    """Budgets below what the path needs cut it, and the answer says so; what it lists is
    then part of the oracle's, and a walk the budgets did not cut is the oracle's whole."""
    rng = random.Random(1000 + number)
    triples, predicates = random_multigraph(rng)
    store = store_of(triples)
    gateway = Gateway.open(store_of(triples))
    seeds = [rng.choice(sorted({t[0] for t in triples}))]
    steps = random_steps(rng, predicates, rng.randint(1, 3))
    layers = [set(seeds), *sparql_layers(store, seeds, steps)]
    edges, nodes = crossed(triples, layers, steps), set().union(*layers)
    max_nodes, max_edges = rng.randint(1, len(nodes) + 1), rng.randint(0, len(edges) + 1)
    answer = gateway.bfs_query(seeds=seeds, path=as_path(steps, "both", rng), max_nodes=max_nodes,
                               max_edges=max_edges)
    assert isinstance(answer, Subgraph) and answer.path_ends is not None
    to_id = gateway.context.ids.to_id
    edges = {(s, to_id(p), o) for s, p, o in edges}
    listed = {(e.subject, e.predicate, e.object) for e in listed_edges(answer)}
    assert answer.node_count <= max_nodes and answer.edge_count <= max_edges
    if max_nodes < len(nodes) or max_edges < len(edges):
        assert answer.truncated and answer.truncation is not None
        assert answer.truncation.reason in ("max_nodes", "max_edges")
    if answer.truncated:
        assert answer.path_ends.truncated is True
        assert set(answer.path_ends.ids) <= layers[-1] and listed <= edges
        assert {n.id for n in listed_nodes(answer)} <= nodes
    else:
        assert answer.path_ends.truncated is None
        assert set(answer.path_ends.ids) == layers[-1] and listed == edges


def test_every_end_is_listed_within_the_node_budget() -> None:
    hub, r = f"{NS}hub", f"{NS}r"
    triples = [(hub, r, node(i)) for i in range(150)]
    gateway = Gateway.open(store_of(triples))
    answer = gateway.bfs_query(seeds=[hub], path=[{"predicates": [r]}], topology_only=True)
    assert answer.path_ends is not None and not answer.truncated and answer.path_ends.truncated is None
    assert answer.path_ends.ids == sorted(node(i) for i in range(150)) and answer.path_ends.total == 150
    cut = gateway.bfs_query(seeds=[hub], path=[{"predicates": [r]}], topology_only=True, max_nodes=101)
    assert cut.truncated and cut.path_ends is not None and cut.path_ends.truncated is True
    assert cut.path_ends.total == len(cut.path_ends.ids) == 100


# -- statements under traversal filters, checked against tests/oracle.py ----------------------
def oracle_layers(graph: Any, seeds: list[str], steps: Sequence[Step], query: dict[str, Any]) -> list[set[str]]:
    """Layer by layer over the statements the filters let a walk cross (no structural step:
    a path names relationships)."""
    statuses = frozenset(query.get("truth_status", ["asserted_true"]))
    layers = [set(seeds)]
    for predicates, direction in steps:
        def walked(p: str, named: list[str] = predicates) -> bool:
            return p in named

        edges = traversable_edges(graph, statuses, query.get("as_of"), query.get("valid_at"),
                                  frozenset(query.get("expand_traits", [])), walked)
        before, reached = layers[-1], set()
        for s, _, o, _, _ in edges:
            if direction != "in" and s in before:
                reached.add(o)
            if direction != "out" and o in before:
                reached.add(s)
        layers.append(reached)
    return layers


@pytest.mark.parametrize("number", range(80))
def test_a_path_over_statements_keeps_the_traversal_filters(number: int) -> None:
    rng = random.Random(5000 + number)
    graph = random_graph(rng, rng.randint(4, 30), rng.randint(3, 70), reified=number % 4 != 0)
    gateway = gateway_from_ntriples(graph.to_ntriples())
    to_id: Callable[[str], str] = gateway.context.ids.to_id
    nodes = sorted(existing_nodes(graph))
    predicates = [predicate(k) for k in range(4)]
    for _ in range(4):
        seeds = rng.sample(nodes, k=min(len(nodes), rng.choice([1, 2])))
        steps: list[Step] = [(rng.sample(predicates, k=rng.randint(1, 2)), rng.choice(["out", "in", "both"]))
                             for _ in range(rng.randint(1, 3))]
        query: dict[str, Any] = {**random_filters(rng)}
        if rng.random() < 0.3:
            query["expand_traits"] = rng.sample(["Symmetric", "Inverse"], k=rng.randint(1, 2))
        used = {st.p for st in graph.statements}
        path = [{"predicates": [to_id(p) for p in names], "direction": way} for names, way in steps]
        if any(not used & set(names) for names, _ in steps):
            with pytest.raises(InvalidInput) as refused:
                gateway.bfs_query(seeds=[to_id(s) for s in seeds], path=path, **query)
            assert refused.value.field is not None and refused.value.field.startswith("path.")
            continue
        steps = [([p for p in names if p in used], way) for names, way in steps]
        path = [{"predicates": [to_id(p) for p in names], "direction": way} for names, way in steps]
        answer = gateway.bfs_query(seeds=[to_id(s) for s in seeds], path=path, max_nodes=10_000, max_edges=50_000,
                                   topology_only=True, **query)
        layers = oracle_layers(graph, seeds, steps, query)
        assert answer.path_ends is not None and not answer.truncated
        assert list(answer.path_ends.ids) == sorted(to_id(n) for n in layers[-1])
        assert isinstance(answer, Subgraph)
        assert answer_hops(answer) == {to_id(n): h for n, h in first_hops(layers).items()}


# -- hostile input ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small() -> Gateway:
    return Gateway.open(store_of([(f"{NS}a", f"{NS}r", f"{NS}b"), (f"{NS}b", f"{NS}s", f"{NS}c")]))


@pytest.mark.parametrize(("arguments", "field"), [
    ({"path": [{"predicates": [f"{NS}r"]}] * 7}, "path"),
    ({"path": []}, "path"),
    ({"path": [{"predicates": [f"{NS}r"]}, {"predicates": []}]}, "path.1.predicates"),
    ({"path": [{"predicates": [f"{NS}r"]}, {"predicates": [f"{NS}nope"]}]}, "path.1.predicates"),
    ({"path": [{"predicates": [f"{NS}r", "p:"]}]}, "path.0.predicates"),
    ({"path": [{"predicates": [f"{NS}r"], "direction": "sideways"}]}, "path.0.direction"),
    ({"path": [{"predicates": [f"{NS}r"], "hops": 2}]}, "path.0.hops"),
    ({"path": [{"predicates": [" "]}]}, "path.0.predicates.0"),
    ({"path": [{"predicates": [f"{NS}r"]}], "predicates": [f"{NS}r"]}, "predicates"),
    ({"path": [{"predicates": [f"{NS}r"]}], "exclude_predicates": [f"{NS}s"]}, "exclude_predicates"),
    ({"path": [{"predicates": [f"{NS}r"]}], "max_hops": 2}, "max_hops"),
    ({"path": "r/s"}, "path"),
])
def test_a_hostile_path_is_refused_naming_the_field(small: Gateway, arguments: dict[str, Any], field: str) -> None:
    from gateway.surfaces.problems import to_problem

    with pytest.raises(InvalidInput) as refused:
        small.bfs_query(seeds=[f"{NS}a"], **arguments)
    assert refused.value.field == field, refused.value.message
    problem = to_problem(refused.value)  # what HTTP and MCP answer
    assert 400 <= problem.status < 500 and problem.field == field


def test_max_hops_the_path_s_length_and_null_fields_are_taken(small: Gateway) -> None:
    path = [{"predicates": [f"{NS}r"], "direction": None}, {"predicates": [f"{NS}s"], "direction": "out"}]
    for extra in ({"max_hops": 2}, {"max_hops": None, "predicates": None}, {}):
        answer = small.bfs_query(seeds=[f"{NS}a"], path=path, **extra)
        assert answer.path_ends is not None and list(answer.path_ends.ids) == [f"{NS}c"]
    plain = small.bfs_query(seeds=[f"{NS}a"], max_hops=2)
    assert plain.path_ends is None and "path_ends" not in plain.model_dump(exclude_none=True)


def test_a_path_beyond_the_configured_hops_is_refused() -> None:
    from gateway.settings import Settings

    gateway = Gateway.open(store_of([(f"{NS}a", f"{NS}r", f"{NS}b")]), settings=Settings(max_hops=2))
    with pytest.raises(InvalidInput) as refused:
        gateway.bfs_query(seeds=[f"{NS}a"], path=[{"predicates": [f"{NS}r"]}] * 3)
    assert refused.value.field == "path"


# -- real data: the medlit bundle -------------------------------------------------------------
MEDLIT_PATHS: list[list[tuple[str, str]]] = [
    [("TREATS", "out"), ("TREATS", "in")],  # what else treats what this drug treats
    [("TREATS", "out"), ("CAUSES", "in")],
    [("TREATS", "out"), ("SUBTYPE_OF", "both"), ("TREATS", "in")],
    [("AUTHORED", "in"), ("AFFILIATED_WITH", "out")],
    [("CITES", "in"), ("CITES", "out")],
    [("INHIBITS", "out"), ("REGULATES", "both")],
]


@pytest.fixture(scope="module")
def medlit() -> Gateway:
    from gateway.importers.bundle import open_bundle

    return open_bundle(shared_data("medlit"))


def test_medlit_paths_are_the_sparql_property_paths(medlit: Gateway) -> None:
    ctx = medlit.context
    store = ctx.profile.backend.store  # type: ignore[attr-defined]
    iri = {name: ctx.ids.resolve(name, "predicate", allow_local_name=True).iri for name in
           {name for path in MEDLIT_PATHS for name, _ in path}}
    rng = random.Random(48)
    checked = 0
    for names in MEDLIT_PATHS:
        steps: list[Step] = [([iri[name]], way) for name, way in names]  # type: ignore[list-item]
        first, way = steps[0][0][0], steps[0][1]
        starts = _subjects(store, first, way)
        for seed in rng.sample(starts, k=min(8, len(starts))):
            answer = medlit.bfs_query(seeds=[ctx.ids.to_id(seed)], layout="compact", topology_only=True,
                                      path=[{"predicates": [name], "direction": way} for name, way in names])
            assert isinstance(answer, CompactSubgraph) and answer.path_ends is not None
            assert not answer.truncated
            ends = sparql_layers(store, [seed], steps)[-1]
            assert list(answer.path_ends.ids) == sorted(ctx.ids.to_id(e) for e in ends)
            assert answer.path_ends.labels is None  # the compact nodes carry them
            checked += bool(ends)
    assert checked >= 20  # most of the paths asked end somewhere


def test_path_ends_are_labelled_where_the_nodes_are_stubs(medlit: Gateway) -> None:
    """The default layout's stubs carry no label: path_ends gives the ends' labels, the
    same as the compact layout's nodes; full nodes carry their own."""
    path = [{"predicates": ["TREATS"], "direction": "out"}, {"predicates": ["TREATS"], "direction": "in"}]
    compact = medlit.bfs_query(seeds=["RxNorm:3251"], path=path, layout="compact", topology_only=True)
    stubs = medlit.bfs_query(seeds=["RxNorm:3251"], path=path, topology_only=True)
    full = medlit.bfs_query(seeds=["RxNorm:3251"], path=path)
    assert compact.path_ends is not None and stubs.path_ends is not None and full.path_ends is not None
    shown = {i: label for group in compact.nodes.values() for i, label in group.items() if label is not None}
    assert stubs.path_ends.labels and stubs.path_ends.labels == {i: shown[i] for i in compact.path_ends.ids if i in shown}
    assert full.path_ends.labels is None and full.path_ends.ids == stubs.path_ends.ids == compact.path_ends.ids


def _subjects(store: ox.Store, predicate_iri: str, way: str) -> list[str]:
    """The nodes a step along `predicate_iri` can start from, sorted."""
    end = "?x" if way != "in" else "?y"
    rows = store.query(f"SELECT DISTINCT {end} WHERE {{ ?x <{predicate_iri}> ?y }}", use_default_graph_as_union=True)
    assert isinstance(rows, ox.QuerySolutions)
    return sorted(row[0].value for row in rows)


# -- over HTTP: oxigraph serve ---------------------------------------------------------------
def test_a_path_over_a_remote_store_is_the_embedded_one(oxigraph_server: Any, demo: Gateway) -> None:
    schema = demo.describe_schema()
    remote = Gateway.connect(oxigraph_server.url, prefixes=schema.prefixes)
    seeds = ["wiki:Sherlock_Holmes"]
    names = [p.id for p in schema.predicates if p.count > 1 and not p.id.startswith(("rdf:", "rdfs:", "owl:"))][:4]
    assert names
    ended = 0
    for first in names:
        for second in names:
            path = [{"predicates": [first], "direction": "both"}, {"predicates": [second], "direction": "out"}]
            here = demo.bfs_query(seeds=seeds, path=path, topology_only=True)
            there = remote.bfs_query(seeds=seeds, path=path, topology_only=True)
            assert there.path_ends == here.path_ends
            assert (there.hop_counts, there.edges) == (here.hop_counts, here.edges)
            ended += bool(here.path_ends and here.path_ends.total)
    assert ended


# -- the strict tool list ----------------------------------------------------------------------
def test_the_strict_tool_list_takes_a_path_as_a_strict_model_sends_it(small: Gateway) -> None:
    """OpenAI's strict mode closes every object and sends every field, null for those not
    wanted: `path`'s steps are closed, their direction nullable, and such a call is a path walk."""
    from jsonschema import Draft202012Validator

    from gateway.tools.json_schemas import strict_tool_list, tool_schemas

    (listed,) = [t["function"] for t in strict_tool_list(tool_schemas()) if t["function"]["name"] == "bfs_query"]
    parameters = listed["parameters"]
    path = parameters["properties"]["path"]
    assert path["type"] == ["array", "null"] and path["items"]["additionalProperties"] is False
    assert path["items"]["required"] == ["predicates", "direction"]
    assert None in path["items"]["properties"]["direction"]["enum"]
    arguments: dict[str, Any] = dict.fromkeys(parameters["properties"])
    arguments.update(seeds=[f"{NS}a"], path=[{"predicates": [f"{NS}r"], "direction": None},
                                             {"predicates": [f"{NS}s"], "direction": "out"}])
    Draft202012Validator(parameters).validate(arguments)
    answer = small.bfs_query(**arguments)
    assert answer.path_ends is not None and list(answer.path_ends.ids) == [f"{NS}c"]


def test_a_wide_path_over_a_remote_store_is_the_property_path(tmp_path: Any) -> None:
    """Frontiers past one slice (read whole over HTTP, sliced where a budget may cut, the
    next slice read ahead): each hop by its own step, the same walk as in process."""
    from support.servers import OxigraphServer

    rng = random.Random(7)
    r, s = f"{NS}r", f"{NS}s"
    triples = sorted({(node(0), r, node(rng.randint(1, 300))) for _ in range(200)}
                     | {(node(rng.randint(1, 300)), s, node(rng.randint(0, 400))) for _ in range(1500)}
                     | {(node(rng.randint(0, 400)), r, node(rng.randint(0, 400))) for _ in range(300)})
    file = tmp_path / "wide.nt"
    file.write_text("".join(f"<{a}> <{b}> <{c}> .\n" for a, b, c in triples))
    store = store_of(triples)
    server = OxigraphServer([file])
    try:
        remote, local = Gateway.connect(server.url), Gateway.open(store_of(triples))
        for path, budgets in (
            ([(r, "out"), (s, "out")], {}),
            ([(r, "out"), (s, "both"), (r, "in")], {"max_nodes": 10_000, "max_edges": 50_000}),
            ([(r, "out"), (s, "out"), (s, "in")], {"max_edges": 700}),
        ):
            steps: list[Step] = [([p], way) for p, way in path]
            asked = [{"predicates": [p], "direction": way} for p, way in path]
            there = remote.bfs_query(seeds=[node(0)], path=asked, topology_only=True, **budgets)
            here = local.bfs_query(seeds=[node(0)], path=asked, topology_only=True, **budgets)
            assert there.path_ends is not None and here.path_ends is not None
            assert there.truncated == (budgets.get("max_edges") == 700) and there.hop_counts[1] > 16
            if not there.truncated:
                assert there.path_ends.ids == sorted(sparql_layers(store, [node(0)], steps)[-1])
            assert (there.path_ends, there.hop_counts, there.truncation) == (here.path_ends, here.hop_counts,
                                                                            here.truncation)
    finally:
        server.stop()


@pytest.mark.parametrize("number", range(40))
def test_a_path_in_named_graphs_is_the_property_path_in_them(number: int) -> None:
    """graphs=[g]: the path walks g's triples only, the property path inside GRAPH g; the
    presentation filters choose full or stub and change no end."""
    rng = random.Random(9000 + number)
    triples, predicates = random_multigraph(rng)
    graphs = [f"{NS}g{k}" for k in range(2)]
    quads = [(t, rng.choice(graphs)) for t in triples]
    store = ox.Store()
    store.extend(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), ox.NamedNode(o), ox.NamedNode(g)) for (s, p, o), g in quads)
    gateway = Gateway.open(store)
    seed = rng.choice(sorted({t[0] for t in triples}))
    steps = random_steps(rng, predicates, rng.randint(1, 3))
    path = as_path(steps, "both", rng)
    everywhere = gateway.bfs_query(seeds=[seed], path=path, topology_only=True)
    for graph in graphs:
        held = {t for t, g in quads if g == graph}
        if not {p for _, p, _ in held} >= {p for names, _ in steps for p in names}:
            continue  # a step's predicate absent from the graph is refused (tested apart)
        answer = gateway.bfs_query(seeds=[seed], path=path, graphs=[graph], topology_only=True)
        rows = store.query(f"SELECT DISTINCT ?end WHERE {{ GRAPH <{graph}> {{ <{seed}> "
                           f"{'/'.join(sparql_step(*step) for step in steps)} ?end }} }}")
        assert isinstance(rows, ox.QuerySolutions)
        assert answer.path_ends is not None and everywhere.path_ends is not None
        assert answer.path_ends.ids == sorted(row["end"].value for row in rows)
        assert set(answer.path_ends.ids) <= set(everywhere.path_ends.ids)
    full = gateway.bfs_query(seeds=[seed], path=path, node_filter={"entity_types": []}, edge_filter={"predicates": []},
                             layout="compact")
    assert full.path_ends is not None and everywhere.path_ends is not None
    assert full.path_ends.ids == everywhere.path_ends.ids


def test_a_path_a_timeout_cuts_keeps_its_first_steps_and_says_so() -> None:
    """The store times out on the second step's query: the answer is the first step's walk
    (the same call with that step alone), marked cut at hop 2, its ends marked incomplete."""
    from tests.tools.test_partial_answers import TimesOut

    a, r, s = f"{NS}a", f"{NS}r", f"{NS}s"
    store = Gateway.open(store_of([(a, r, node(i)) for i in range(5)] + [(node(i), s, node(i + 10)) for i in range(5)]))
    backend = TimesOut(store.backend, {2})
    gateway = Gateway(backend, profile=store.profile)  # type: ignore[arg-type]
    path = [{"predicates": [r], "direction": "out"}, {"predicates": [s], "direction": "out"}]
    cut = gateway.bfs_query(seeds=[a], path=path, topology_only=True)
    first = store.bfs_query(seeds=[a], path=path[:1], topology_only=True)
    assert cut.truncation is not None and (cut.truncation.reason, cut.truncation.at_hop) == ("endpoint_timeout", 2)
    assert cut.path_ends is not None and cut.path_ends.truncated is True and cut.path_ends.ids == []
    assert (cut.nodes, cut.edges) == (first.nodes, first.edges) and any("timed out" in w for w in cut.warnings)
