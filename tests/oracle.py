"""Reference semantics of bounded BFS, written for clarity rather than speed.

The gateway answers from SPARQL over pyoxigraph; this module answers the same
questions from the `SynthGraph` objects with networkx, sharing no code with
the gateway, so differential tests can compare the two. Each rule of the
model is one small function below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet

import networkx as nx

from support.synth import RDF, Statement, SynthGraph

# (subject, predicate, object, statement id or None, derived_via or None)
Edge = tuple[str, str, str, str | None, str | None]

RDF_SUBJECT = RDF + "subject"
RDF_OBJECT = RDF + "object"
DIRECTIONS = frozenset({"out", "in", "both"})
TRAITS = frozenset({"Symmetric", "Inverse"})
DEFAULT_TRUTH_STATUS: frozenset[str] = frozenset({"asserted_true"})


def is_traversable(
    st: Statement,
    truth_status: AbstractSet[str],
    as_of: int | None,
    valid_at: int | None,
) -> bool:
    return (
        st.status in truth_status
        and _asserted_by(st, as_of)
        and _valid_at(st, valid_at)
    )


def _asserted_by(st: Statement, as_of: int | None) -> bool:
    # No assertedAt means background knowledge, known at any cutoff.
    return as_of is None or st.asserted_at is None or st.asserted_at <= as_of


def _valid_at(st: Statement, valid_at: int | None) -> bool:
    if valid_at is None:
        return True
    after_start = st.valid_from is None or st.valid_from <= valid_at
    before_end = st.valid_until is None or valid_at <= st.valid_until
    return after_start and before_end


def existing_nodes(g: SynthGraph) -> set[str]:
    """Every IRI a seed may name: statement ends (asserted or not) and reifiers.

    rdf:type and trait declarations do not make a node exist.
    """
    nodes = {n for st in g.statements for n in (st.s, st.o)}
    nodes.update(st.id for st in g.statements if st.id is not None)
    return nodes


def inverse_partners(g: SynthGraph) -> dict[str, set[str]]:
    """owl:inverseOf read in both directions: p inverseOf q gives q inverseOf p."""
    partners: dict[str, set[str]] = {}
    for p, q in g.inverses.items():
        partners.setdefault(p, set()).add(q)
        partners.setdefault(q, set()).add(p)
    return partners


def _as_edge(st: Statement) -> Edge:
    return (st.s, st.p, st.o, st.id, None)


def _mirrors(
    st: Statement, g: SynthGraph, expand_traits: AbstractSet[str], partners: dict[str, set[str]]
) -> Iterator[Edge]:
    """Edges a trait derives from one statement; they keep its id."""
    if "Symmetric" in expand_traits and st.p in g.symmetric:
        yield (st.o, st.p, st.s, st.id, f"Symmetric({st.p})")
    if "Inverse" in expand_traits:
        for q in sorted(partners.get(st.p, ())):
            yield (st.o, q, st.s, st.id, f"Inverse({st.p})")


def traversable_edges(
    g: SynthGraph,
    truth_status: AbstractSet[str],
    as_of: int | None,
    valid_at: int | None,
    expand_traits: AbstractSet[str],
    walked: Callable[[str], bool] = lambda p: True,
) -> set[Edge]:
    """Traversable statements plus the mirrors the graph does not already state.

    A plain triple whose subject is a reifier is that statement's data (its
    provenance), not a relationship: only a reified triple about a statement is one.
    """
    reifiers = {st.id for st in g.statements if st.id is not None}
    kept = [
        st for st in g.statements
        if is_traversable(st, truth_status, as_of, valid_at) and not (st.id is None and st.s in reifiers)
        and walked(st.p)
    ]
    stated = {st.triple for st in kept}
    partners = inverse_partners(g)
    edges = {_as_edge(st) for st in kept}
    for st in kept:
        edges.update(m for m in _mirrors(st, g, expand_traits, partners) if m[:3] not in stated)
    return edges


def structural_edges(
    g: SynthGraph, truth_status: AbstractSet[str], as_of: int | None, valid_at: int | None,
    walked: Callable[[str], bool] = lambda p: True,
) -> set[Edge]:
    """A traversable reifier leads to its subject and object, in any direction."""
    edges: set[Edge] = set()
    for st in g.statements:
        if st.id is not None and is_traversable(st, truth_status, as_of, valid_at) and walked(st.p):
            edges.add((st.id, RDF_SUBJECT, st.s, None, None))
            edges.add((st.id, RDF_OBJECT, st.o, None, None))
    return edges


def navigation_graph(
    nodes: Iterable[str], edges: Iterable[Edge], structural: Iterable[Edge], direction: str
) -> nx.MultiDiGraph:
    """u -> v (keyed by the edge identity) whenever expanding u uses that edge to reach v."""
    nav = nx.MultiDiGraph()
    nav.add_nodes_from(nodes)
    for edge in edges:
        s, _, o, _, _ = edge
        if direction in ("out", "both"):
            nav.add_edge(s, o, key=edge)
        if direction in ("in", "both"):
            nav.add_edge(o, s, key=edge)
    for edge in structural:
        nav.add_edge(edge[0], edge[2], key=edge)
    return nav


def bfs_hops(nav: nx.MultiDiGraph, seeds: list[str], max_hops: int) -> dict[str, int]:
    """Distance from the nearest seed, for nodes within max_hops."""
    if not seeds:
        return {}
    hops: dict[str, int] = {}
    for depth, layer in enumerate(nx.bfs_layers(nav, seeds)):
        if depth > max_hops:
            break
        hops.update(dict.fromkeys(layer, depth))
    return hops


def reference_bfs(
    g: SynthGraph,
    seeds: list[str],
    max_hops: int,
    *,
    direction: str = "both",
    truth_status: AbstractSet[str] = DEFAULT_TRUTH_STATUS,
    as_of: int | None = None,
    valid_at: int | None = None,
    expand_traits: AbstractSet[str] = frozenset(),
    predicates: AbstractSet[str] | None = None,
    exclude_predicates: AbstractSet[str] = frozenset(),
) -> tuple[dict[str, int], set[Edge]]:
    """(node -> hop, edges used) of a BFS of at most max_hops from seeds, crossing only
    statements whose predicate is in `predicates` (None: any) and not excluded.

    An edge is reported when it is used while expanding a node at hop <
    max_hops, including edges to nodes already seen; so edges among nodes at
    hop max_hops are not reported.
    """
    _check_arguments(max_hops, direction, expand_traits)
    nodes = existing_nodes(g)
    def walked(p: str) -> bool:
        return (predicates is None or p in predicates) and p not in exclude_predicates

    nav = navigation_graph(
        nodes,
        traversable_edges(g, truth_status, as_of, valid_at, expand_traits, walked),
        structural_edges(g, truth_status, as_of, valid_at, walked),
        direction,
    )
    hops = bfs_hops(nav, [s for s in dict.fromkeys(seeds) if s in nodes], max_hops)
    used = {key for u, _, key in nav.edges(keys=True) if u in hops and hops[u] < max_hops}
    return hops, used


def _check_arguments(max_hops: int, direction: str, expand_traits: AbstractSet[str]) -> None:
    if max_hops < 0:
        raise ValueError("max_hops must be >= 0")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {sorted(DIRECTIONS)}")
    if not set(expand_traits) <= TRAITS:
        raise ValueError(f"unknown traits {sorted(set(expand_traits) - TRAITS)}")


def reference_closure(
    g: SynthGraph,
    start: str,
    predicate: str,
    direction: str = "out",
    truth_status: AbstractSet[str] = DEFAULT_TRUTH_STATUS,
    as_of: int | None = None,
    valid_at: int | None = None,
) -> set[str]:
    """Nodes reachable from start in one or more steps along `predicate`.

    Like SPARQL `p+` (out), `^p+` (in) and `(p|^p)+` (both): start is in the
    result only if a path leads back to it, which under "both" is true as
    soon as start has any such edge. Traits are not expanded.
    """
    _check_arguments(0, direction, frozenset())
    steps = nx.DiGraph()
    reifiers = {st.id for st in g.statements if st.id is not None}
    for st in g.statements:
        if st.id is None and st.s in reifiers:
            continue  # statement data, not a relationship
        if st.p == predicate and is_traversable(st, truth_status, as_of, valid_at):
            if direction in ("out", "both"):
                steps.add_edge(st.s, st.o)
            if direction in ("in", "both"):
                steps.add_edge(st.o, st.s)
    if start not in steps:
        return set()
    # descendants() never includes its source, so start from each first step.
    reached: set[str] = set()
    for first in steps.successors(start):
        reached.add(first)
        reached |= nx.descendants(steps, first)
    return reached
