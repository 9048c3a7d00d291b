"""communities: a deterministic partition of a bounded subgraph (Louvain, then components).

The subgraph is the neighbourhood of the seeds (as bfs_query walks it) or, without
seeds, every statement passing the filters. Over the configured edge bound it is
refused, never sampled. Direction is dropped, self-loops and the structural edges of
statement nodes are left out, and two entities are joined with a weight equal to the
number of distinct (predicate, direction) statements between them, so a relation
asserted by three sources counts once. Louvain (`gateway.engine.louvain`) visits the
nodes in ID order and breaks ties by rule, not by a random seed, so the answer repeats
across machines and library versions; after each level, every community is split into
its connected components, which never lowers modularity. Levels are reported coarsest
first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gateway import deadline as deadlines
from gateway.engine.context import GraphContext
from gateway.engine.louvain import louvain_levels
from gateway.engine.plan import make_plan
from gateway.engine.search import suggest_ids
from gateway.engine.seeds import resolve_seeds
from gateway.engine.statements import statement_rows, unnamed_subjects
from gateway.engine.walk import TIMEOUTS, EdgeKey, walk
from gateway.errors import EndpointTimeout, InvalidInput, TooLarge
from gateway.models import (
    Communities,
    CommunitiesInput,
    Community,
    CommunityLevel,
    Member,
)
from gateway.profiles.base import STRUCTURAL_OBJECT, STRUCTURAL_SUBJECT
from gateway.settings import clamp
from gateway.terms import Literal

if TYPE_CHECKING:
    import networkx as nx

MAX_HOPS = 4
MAX_SEEDS = 256
"""Distinct seeds whose neighbourhood is partitioned; the rest are unresolved."""


LISTED = 20
"""Communities a level lists, largest first; the rest are counted (ask for one by its ID)."""
SHOWN_MEMBERS = 5
"""Members shown per listed community, the most connected first."""
FULL_MEMBERS = 1000
"""Members at most when one community is asked for in full."""


@dataclass
class Partition:
    """Every level of a partition: level -> communities (node numbers, largest first)."""

    order: list[str]
    """The nodes (IRIs) in ID order; a node's number is its index here."""
    keys: list[EdgeKey]
    """The statements partitioned (structural edges and self-loops among them)."""
    graph: nx.Graph
    levels: list[list[list[int]]]
    modularity: list[float]
    unresolved: list[str]


def communities(ctx: GraphContext, query: CommunitiesInput) -> Communities:
    warnings: list[str] = []
    found = partition(ctx, query, warnings)
    if not 0 <= query.level < len(found.levels):
        raise InvalidInput(f"level {query.level} does not exist: this partition has levels 0 to "
                           f"{len(found.levels) - 1}", field="level")
    parts = found.levels[query.level]
    if query.community is not None and not 0 <= query.community < len(parts):
        raise InvalidInput(f"community {query.community} does not exist at level {query.level}: its communities "
                           f"are 0 to {len(parts) - 1}", field="community")
    if query.community is None:
        chosen = list(enumerate(parts[:LISTED]))
        shown = SHOWN_MEMBERS
        if len(parts) > LISTED:
            warnings.append(f"level {query.level}: the {LISTED} largest of {len(parts)} communities are listed, "
                            f"with their {SHOWN_MEMBERS} most connected members; ask for one with community=ID")
    else:
        chosen = [(query.community, parts[query.community])]
        shown = FULL_MEMBERS
        if len(parts[query.community]) > FULL_MEMBERS:
            warnings.append(f"community {query.community}: its {FULL_MEMBERS} most connected members of "
                            f"{len(parts[query.community])} are listed")
    picked = {number: central(found.graph, members)[:shown] for number, members in chosen}
    labels = ctx.label_texts([found.order[m] for members in picked.values() for m in members])
    levels = []
    for depth, level_parts in enumerate(found.levels):
        listed = [
            Community(id=number, size=len(level_parts[number]),
                      members=[_member(ctx, found.order[m], labels) for m in picked[number]])
            for number, _ in chosen
        ] if depth == query.level else []
        levels.append(CommunityLevel(level=depth, modularity=found.modularity[depth],
                                     community_count=len(level_parts), communities=listed))
    return Communities(
        node_count=len(found.order), edge_count=found.graph.number_of_edges(), levels=levels,
        max_edges=ctx.settings.communities_max_edges, unresolved_seeds=found.unresolved, warnings=warnings,
    )


def _member(ctx: GraphContext, node: str, labels: dict[str, Literal]) -> Member:
    """A member by ID, with its label and, where not the reader's, the label's language."""
    label = labels.get(node)
    return Member(id=ctx.ids.to_id(node), label=label.value if label else None,
                  label_language=ctx.told_language(label) if label else None)


def central(graph: nx.Graph, members: list[int]) -> list[int]:
    """Members by their weighted degree inside the community, highest first, then by ID."""
    inside = graph.subgraph(members)
    return sorted(members, key=lambda m: (-inside.degree(m, weight="weight"), m))


def partition(ctx: GraphContext, query: CommunitiesInput, warnings: list[str]) -> Partition:
    """The whole partition of the query's subgraph, every level, coarsest first."""
    bound = ctx.settings.communities_max_edges
    plan = make_plan(ctx, query.traversal(), warnings)
    unresolved: list[str] = []
    nodes: set[str] = set()
    if query.seeds:
        found = resolve_seeds(ctx, query.seeds, plan, "seeds", warnings, cap=MAX_SEEDS)
        seeds = found.iris
        suggest_ids(ctx, found, "seeds", warnings)
        unresolved = found.unresolved("unresolved_seeds", warnings)
        hops = clamp(query.max_hops, 2, 1, MAX_HOPS, field="max_hops", warnings=warnings)
        result = walk(ctx.profile, seeds, plan, max_hops=hops,
                      max_nodes=2 * bound + len(seeds), max_edges=bound, count_hidden=False)
        if result.cut is not None and result.cut.reason in TIMEOUTS:
            # A partition of part of the neighbourhood is not one of the neighbourhood: none is shown.
            raise EndpointTimeout(f"the neighbourhood could not be read: {TIMEOUTS[result.cut.reason]} at hop "
                                  f"{result.cut.at_hop}; use fewer hops, seeds or predicates", field="max_hops")
        if result.cut is not None:
            raise TooLarge(f"the neighbourhood has more than {bound} edges; use fewer hops, seeds or predicates",
                           field="max_hops")
        keys: list[EdgeKey] = result.edge_keys()
        nodes.update(result.hops)
    else:
        rows, stopped = statement_rows(ctx, plan, None, bound + 1)
        if stopped is not None:
            raise EndpointTimeout(f"the statements could not be read: {TIMEOUTS[stopped]}; give seeds or predicates",
                                  field="predicates")
        if len(rows) > bound:
            raise TooLarge(f"more than {bound} statements match; give seeds or predicates", field="predicates")
        unnamed_subjects(ctx, warnings)
        keys = [key for _, key, _ in rows]
    relations: dict[tuple[str, str], set[tuple[str, bool]]] = defaultdict(set)
    for s, p, o, _, _ in keys:
        if p in (STRUCTURAL_SUBJECT, STRUCTURAL_OBJECT) or s == o:
            nodes.update((s, o))
            continue
        a, b = sorted((s, o))
        relations[(a, b)].add((p, s == a))
        nodes.update((s, o))
    to_id = ctx.ids.to_id
    order = sorted(nodes, key=to_id)
    number = {node: i for i, node in enumerate(order)}
    weights: dict[tuple[int, int], float] = {}
    for (a, b), kinds in relations.items():
        low, high = sorted((number[a], number[b]))
        weights[(low, high)] = len(kinds)
    import networkx as nx  # here, not at the top: 28,000 objects the cycle collector scans on every walk otherwise

    graph = nx.Graph()
    graph.add_nodes_from(range(len(order)))
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weights.items()))
    def check() -> None:  # the partition is Python work no query bounds: it stops at the deadline too
        deadlines.stop_if_expired("the communities could not be found within the call's deadline; use fewer hops, "
                                  "seeds or predicates", field="max_hops")

    levels = louvain_levels(len(order), weights, query.resolution, check)
    levels.reverse()
    modularity = []
    for parts in levels:
        check()
        modularity.append(round(nx.community.modularity(graph, [set(p) for p in parts], weight="weight",
                                                        resolution=query.resolution), 6) if graph.number_of_edges() else 0.0)
    return Partition(order, keys, graph, levels, modularity, unresolved)
