"""shortest_path: fewest hops between two IDs, by a bidirectional walk, ties broken by key.

The walk expands the smaller frontier one level at a time (one hop query per level),
forward from the source and backward from the target, until the two meet. Every step
that stays on some shortest path is kept, and the path is then read from the source
taking, at each node, the step with the smallest key (predicate ID, next node ID,
statement ID, subject ID): the answer does not depend on the store's row order.

The confidence product and the weakest edge summarise the path found; both are omitted
when any edge on it states no confidence (an absent confidence is not a zero). The path
is the shortest, not the most confident.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace

from gateway import deadline as deadlines
from gateway.engine.context import GraphContext
from gateway.engine.plan import make_plan
from gateway.engine.presentation import full_edges
from gateway.engine.search import suggest_ids
from gateway.engine.seeds import resolve_seeds
from gateway.engine.walk import TIMEOUTS, EdgeKey, candidates
from gateway.errors import EndpointTimeout
from gateway.models import ShortestPath, ShortestPathInput, WeakestEdge
from gateway.profiles.base import STRUCTURAL_OBJECT, STRUCTURAL_SUBJECT, Hit, HopPlan
from gateway.settings import clamp

MAX_HOPS = 8
ROWS_PER_LEVEL = 200_000
Step = tuple[str, EdgeKey, Hit]  # (next node, edge, hit)


def shortest_path(ctx: GraphContext, query: ShortestPathInput) -> ShortestPath:
    warnings: list[str] = []
    max_hops = clamp(query.max_hops, 4, 1, MAX_HOPS, field="max_hops", warnings=warnings)
    plan = make_plan(ctx, query.traversal(), warnings)
    unresolved: list[str] = []
    ends: list[str | None] = []
    for field, name in (("source", query.source), ("target", query.target)):
        found = resolve_seeds(ctx, [name], plan, field, warnings, cap=1)
        suggest_ids(ctx, found, field, warnings)
        ends.append(found.iris[0] if found.iris else None)
        unresolved += found.missing
    source, target = ends
    to_id = ctx.ids.to_id
    answer = dict(
        source=to_id(source) if source else query.source.strip(),
        target=to_id(target) if target else query.target.strip(),
        max_hops=max_hops, unresolved=unresolved, warnings=warnings,
    )
    if source is None or target is None:
        return ShortestPath(found=False, reason="source or target is not in this graph", **answer)  # type: ignore[arg-type]
    if source == target:
        return ShortestPath(found=True, hops=0, nodes=[to_id(source)], reason="source and target are the same", **answer)  # type: ignore[arg-type]
    if plan.predicates == ():
        return ShortestPath(found=False, reason="no predicate to walk: none of predicates is in this graph "
                            "(see warnings)", **answer)  # type: ignore[arg-type]
    search = _Search(ctx, plan, source, target)
    length = search.run(max_hops)
    if length is None:
        return ShortestPath(found=False, reason=search.reason or f"no path within {max_hops} hops", **answer)  # type: ignore[arg-type]
    steps = search.read_path(length)
    nodes = [source, *(node for node, _, _ in steps)]
    edges = full_edges(ctx, [(key, hit) for _, key, hit in steps], valid_at=query.valid_at)
    confidences = [e.confidence for e in edges if e.confidence is not None]
    product = weakest = None
    if confidences and len(confidences) == len(edges):
        product = math.prod(confidences)
        index = min(range(len(confidences)), key=confidences.__getitem__)
        weakest = WeakestEdge(index=index, id=edges[index].id, confidence=confidences[index])
    return ShortestPath(
        found=True, hops=length, nodes=[to_id(n) for n in nodes], edges=edges,
        confidence_product=product, weakest_edge=weakest, **answer,  # type: ignore[arg-type]
    )


class _Search:
    """Level-by-level search from both ends, keeping every step on a shortest path."""

    def __init__(self, ctx: GraphContext, plan: HopPlan, source: str, target: str) -> None:
        self.ctx = ctx
        self.plan = plan
        self.structural = plan.predicates is None
        self.forward_dist = {source: 0}
        self.backward_dist = {target: 0}
        self.forward_frontier = [source]
        self.backward_frontier = [target]
        self.forward_steps: dict[str, list[Step]] = defaultdict(list)  # u -> steps u->v, dist_f(v) = dist_f(u)+1
        self.backward_steps: dict[str, list[Step]] = defaultdict(list)  # z -> steps z->y, dist_b(y) = dist_b(z)-1
        self.source, self.target = source, target
        self.reason: str | None = None

    def run(self, max_hops: int) -> int | None:
        radius = 0
        deadline = deadlines.current()
        while radius < max_hops and self.forward_frontier and self.backward_frontier:
            forward = len(self.forward_frontier) <= len(self.backward_frontier)
            if deadline is not None and deadline.nearly_expired():
                self._stop("deadline", radius)
                return None
            try:
                with deadlines.keeping_reserve():
                    self._expand_forward() if forward else self._expand_backward()
            except EndpointTimeout:
                cause = deadlines.timeout_cause()
                if cause is None or radius == 0:  # nothing searched: nothing to answer
                    raise
                self._stop(cause, radius)
                return None
            radius += 1
            meeting = [self.forward_dist[n] + self.backward_dist[n] for n in self.forward_dist if n in self.backward_dist]
            if meeting:
                return min(meeting)
        return None

    def _stop(self, cause: str, radius: int) -> None:
        """The search ends after `radius` levels without a path: `cause` came at the next."""
        self.reason = (f"truncated ({cause}): {TIMEOUTS[cause]} at level {radius + 1}, after searching {radius} hops "
                       f"without a path: no path is {radius} hops or shorter, nothing is said of longer ones; ask again "
                       "with fewer hops or predicates, or a longer deadline")

    def _hits(self, frontier: list[str], plan: HopPlan) -> list[Hit]:
        hits, more = self.ctx.profile.hop(sorted(frontier), plan, ROWS_PER_LEVEL)
        if more:
            self.reason = f"a level read more than {ROWS_PER_LEVEL} statements; the search stopped there"
            return []
        return hits

    def _expand_forward(self) -> None:
        hits = self._hits(self.forward_frontier, self.plan)
        new: set[str] = set()
        for key, hit, other in candidates(hits, self.plan, None, frozenset()):
            if hit.via == "s" and not self.structural:
                continue
            here = hit.x
            depth = self.forward_dist[here] + 1
            if self.forward_dist.setdefault(other, depth) == depth:
                self.forward_steps[here].append((other, key, hit))
                new.add(other)
        self.forward_frontier = sorted(new)

    def _expand_backward(self) -> None:
        """Steps z -> y into the frontier: z is the other end, or the statement itself."""
        hits = self._hits(self.backward_frontier, replace(self.plan, direction="both"))
        new: set[str] = set()
        for h in hits:
            if h.via == "s":
                continue
            y = h.x
            into = []
            if h.via == "i" and self.plan.out:
                into.append((h.s, EdgeKey(h.s, h.p, h.o, h.stmt, None)))
            if h.via == "o" and self.plan.inward:
                into.append((h.o, EdgeKey(h.s, h.p, h.o, h.stmt, None)))
            if h.stmt is not None and self.structural:
                into.append((h.stmt, EdgeKey(h.stmt, STRUCTURAL_SUBJECT if h.via == "o" else STRUCTURAL_OBJECT, y, None, None)))
            depth = self.backward_dist[y] + 1
            for z, key in into:
                if self.backward_dist.setdefault(z, depth) == depth:
                    self.backward_steps[z].append((y, key, h))
                    new.add(z)
        self.backward_frontier = sorted(new)

    def read_path(self, length: int) -> list[Step]:
        """From the source, the smallest-key step that keeps a shortest path, until the target."""
        to_id = self.ctx.ids.to_id
        on_path = self._forward_nodes_on_path(length)
        steps: list[Step] = []
        here = self.source
        for position in range(length):
            remaining = length - position - 1
            options = [
                s for s in self.forward_steps.get(here, ())
                if s[0] in on_path and self.forward_dist[s[0]] == position + 1
            ] + [
                s for s in self.backward_steps.get(here, ()) if self.backward_dist.get(s[0]) == remaining
            ] + [
                s for s in self.forward_steps.get(here, ()) if self.backward_dist.get(s[0]) == remaining
            ]
            best = min(options, key=lambda s: (to_id(s[1][1]), to_id(s[0]), to_id(s[1][3]) if s[1][3] else "", to_id(s[1][0])))
            steps.append(best)
            here = best[0]
        return steps

    def _forward_nodes_on_path(self, length: int) -> set[str]:
        """Forward-explored nodes from which the target is reachable in exactly the remaining hops."""
        good = {n for n, d in self.forward_dist.items() if self.backward_dist.get(n) == length - d}
        by_depth = sorted(self.forward_dist, key=lambda n: -self.forward_dist[n])
        for node in by_depth:
            if node not in good and any(next_ in good for next_, _, _ in self.forward_steps.get(node, ())):
                good.add(node)
        return good
