"""Louvain modularity optimisation, made deterministic by rule rather than by a seed.

The rule (the paper's "Communities" section), so a partition repeats across machines and
library versions: nodes are visited in key order; a node moves to the neighbouring
community of greatest modularity gain, stays where it is on a tie with its own
community, and otherwise goes to the lower-numbered one; after each pass every community
is split into its connected components in the original graph (which never lowers
modularity and keeps the levels nested), and the next pass joins those communities,
taken in the order of their lowest key. A pass that joins nothing ends the run.

Nodes are the integers 0..n-1 in key order; a community is numbered by the lowest node
it started from, so "lower-numbered" is "holding an earlier key".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping

CHECK_EVERY = 1024
"""Node moves between two calls of `check`."""
Partition = list[list[int]]
"""Communities as sorted lists of nodes, largest first, then by their lowest node."""
_TIE = 1e-12
"""Gains closer than this (relative to the graph's weight) are a tie: float sums of the
same numbers in another order must not break the rule."""


def louvain_levels(
    nodes: int, weights: Mapping[tuple[int, int], float], resolution: float = 1.0, check: Callable[[], None] = lambda: None,
) -> list[Partition]:
    """Every pass's partition of nodes 0..`nodes`-1, finest first. `weights` holds each
    undirected edge once, as (lower node, higher node) -> weight (no self-loops). `check`
    is called every `CHECK_EVERY` moves (it raises to stop: a call's deadline)."""
    original: list[list[int]] = [[] for _ in range(nodes)]
    for a, b in weights:
        original[a].append(b)
        original[b].append(a)
    members: list[list[int]] = [[node] for node in range(nodes)]  # supernode -> original nodes
    graph: dict[tuple[int, int], float] = dict(weights)
    levels: list[Partition] = []
    while True:
        moved = _local_moves(len(members), graph, resolution, check)
        joined: dict[int, list[int]] = defaultdict(list)
        for supernode, community in enumerate(moved):
            joined[community].extend(members[supernode])
        parts = _components([sorted(group) for group in joined.values()], original)
        if levels and len(parts) == len(members):
            break  # this pass joined nothing: the last level stands
        levels.append(parts)
        if len(parts) == len(members):
            break  # the first pass joined nothing: every node alone is the one level
        members = sorted(parts, key=lambda group: group[0])
        graph = _aggregate(members, weights)
    return levels


def _local_moves(
    count: int, graph: Mapping[tuple[int, int], float], resolution: float, check: Callable[[], None],
) -> list[int]:
    """Each supernode's community after moving nodes, in order, until none moves."""
    neighbours: list[list[tuple[int, float]]] = [[] for _ in range(count)]
    degree = [0.0] * count
    for (a, b), w in graph.items():
        if a == b:
            degree[a] += 2 * w
            continue
        neighbours[a].append((b, w))
        neighbours[b].append((a, w))
        degree[a] += w
        degree[b] += w
    total = sum(degree)  # 2m
    if total == 0:
        return list(range(count))
    community = list(range(count))
    tot = list(degree)
    tie = _TIE * total
    moved = True
    while moved:
        moved = False
        for node in range(count):
            if not node % CHECK_EVERY:
                check()
            own = community[node]
            links: dict[int, float] = defaultdict(float)
            for other, w in neighbours[node]:
                links[community[other]] += w
            share = resolution * degree[node] / total
            tot[own] -= degree[node]
            best, best_gain = own, links.get(own, 0.0) - share * tot[own]
            for candidate in sorted(links):  # ascending: of equal gains, the lower-numbered is kept
                gain = links[candidate] - share * tot[candidate]
                if gain > best_gain + tie:
                    best, best_gain = candidate, gain
            tot[best] += degree[node]
            if best != own:
                community[node] = best
                moved = True
    return community


def _components(groups: list[list[int]], adjacency: list[list[int]]) -> Partition:
    """Each group split into its connected components in the original graph, numbered by
    size, then by lowest node."""
    parts: Partition = []
    for group in groups:
        inside = set(group)
        seen: set[int] = set()
        for start in group:
            if start in seen:
                continue
            seen.add(start)
            stack, component = [start], []
            while stack:
                node = stack.pop()
                component.append(node)
                for other in adjacency[node]:
                    if other in inside and other not in seen:
                        seen.add(other)
                        stack.append(other)
            parts.append(sorted(component))
    parts.sort(key=lambda members: (-len(members), members[0]))
    return parts


def _aggregate(members: Partition, weights: Mapping[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    """The graph of communities: supernode i is members[i]; weights summed, a community's
    inner weight as its self-loop."""
    owner = {node: i for i, group in enumerate(members) for node in group}
    joined: dict[tuple[int, int], float] = defaultdict(float)
    for (a, b), w in weights.items():
        x, y = sorted((owner[a], owner[b]))
        joined[(x, y)] += w
    return dict(joined)
