"""The floor: the same walks over compressed sparse rows of integer IDs, in numpy.

No store, no SPARQL, no statement model: the edges a default walk may cross, as an
(m, 3) array of (subject, predicate, object) integers, indexed both ways. Each walk
ends by building the strings a caller receives (a CURIE per node, a triple of CURIEs
per edge), so the figure is what a Python process must at least spend to answer.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class Csr:
    """Edges indexed by subject (`out_*`) and by object (`in_*`)."""

    def __init__(self, edges: np.ndarray, node_name: Callable[[int], str], predicate_name: Callable[[int], str]) -> None:
        self.edges = np.ascontiguousarray(edges, dtype=np.int64)
        self.n = int(self.edges[:, [0, 2]].max()) + 1 if len(self.edges) else 0
        self.node_name = node_name
        self.predicate_name = predicate_name
        self.out_ptr, self.out_edge = _index(self.edges[:, 0], self.n)
        self.in_ptr, self.in_edge = _index(self.edges[:, 2], self.n)

    def _gather(self, frontier: np.ndarray, ptr: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """Edge numbers of every row of the frontier's nodes, in one vectorized pass."""
        starts, ends = ptr[frontier], ptr[frontier + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if not total:
            return np.empty(0, dtype=np.int64)
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return edge[offsets + np.arange(total)]

    def bfs(self, seed: int, max_hops: int, max_nodes: int, max_edges: int) -> tuple[list[str], list[tuple[str, str, str]]]:
        """(node names, edge name triples) of a budgeted walk in both directions.

        Budgets as the gateway applies them: new nodes past `max_nodes` are dropped with
        their edges and the walk ends with that hop; edges stop at `max_edges`.
        """
        seen_node = {seed: 0}
        taken: list[np.ndarray] = []
        taken_count = 0
        seen_edge = np.zeros(len(self.edges), dtype=bool)
        frontier = np.array([seed], dtype=np.int64)
        for hop in range(max_hops):
            # Like the gateway's LIMIT: read only as many rows as the edge budget can still use.
            sizes = (self.out_ptr[frontier + 1] - self.out_ptr[frontier]) + (self.in_ptr[frontier + 1] - self.in_ptr[frontier])
            enough = int(np.searchsorted(np.cumsum(sizes), max_edges - taken_count + 1)) + 1
            part = frontier[:enough]
            rows = np.concatenate([self._gather(part, self.out_ptr, self.out_edge),
                                   self._gather(part, self.in_ptr, self.in_edge)])
            found = np.unique(rows[: max_edges - taken_count + 1])
            found = found[~seen_edge[found]]
            if not len(found):
                break
            s, o = self.edges[found, 0], self.edges[found, 2]
            in_frontier = np.isin(s, frontier)
            other = np.where(in_frontier, o, s)
            new = [n for n in np.unique(other).tolist() if n not in seen_node]
            full = len(seen_node) + len(new) > max_nodes
            if full:
                new = new[: max_nodes - len(seen_node)]
            for n in new:
                seen_node[n] = hop + 1
            if full:
                found = found[np.fromiter((n in seen_node for n in other.tolist()), dtype=bool, count=len(other))]
            found = found[: max_edges - taken_count]
            seen_edge[found] = True
            taken.append(found)
            taken_count += len(found)
            if full or taken_count >= max_edges:
                break
            frontier = np.array(new, dtype=np.int64)
        name, predicate_name = self.node_name, self.predicate_name
        nodes = [name(n) for n in seen_node]
        rows = self.edges[np.concatenate(taken)] if taken else np.empty((0, 3), dtype=np.int64)
        edges = [(name(s), predicate_name(p), name(o)) for s, p, o in rows.tolist()]
        return nodes, edges

    def reach(self, start: int, inward: bool) -> list[str]:
        """Names of every node reachable from `start` (along edges, or against them)."""
        ptr, edge = (self.in_ptr, self.in_edge) if inward else (self.out_ptr, self.out_edge)
        end = 0 if inward else 2
        seen = np.zeros(self.n, dtype=bool)
        seen[start] = True
        frontier = np.array([start], dtype=np.int64)
        while len(frontier):
            nxt = np.unique(self.edges[self._gather(frontier, ptr, edge), end])
            frontier = nxt[~seen[nxt]]
            seen[frontier] = True
        seen[start] = False
        name = self.node_name
        return [name(n) for n in np.flatnonzero(seen).tolist()]

    def distance(self, source: int, target: int, max_hops: int) -> int | None:
        """Hops on the shortest undirected path (bidirectional, a whole level at a time),
        None past max_hops."""
        if source == target:
            return 0
        dist: tuple[dict[int, int], dict[int, int]] = ({source: 0}, {target: 0})
        frontier = [np.array([source], dtype=np.int64), np.array([target], dtype=np.int64)]
        level = [0, 0]
        while level[0] + level[1] < max_hops:
            side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
            f = frontier[side]
            rows = np.concatenate([self._gather(f, self.out_ptr, self.out_edge), self._gather(f, self.in_ptr, self.in_edge)])
            ends = np.unique(self.edges[rows][:, [0, 2]])
            level[side] += 1
            new = [n for n in ends.tolist() if n not in dist[side]]
            for n in new:
                dist[side][n] = level[side]
            meets = [dist[1 - side][n] for n in new if n in dist[1 - side]]
            if meets:
                return level[side] + min(meets)
            if not new:
                return None
            frontier[side] = np.array(new, dtype=np.int64)
        return None


def _index(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr, order.astype(np.int64)
