"""Breadth-first walk over statements: profile queries per hop, bookkeeping in Python.

A hop queries its frontier (in IRI order) in slices of 16, 64, 256, ... nodes, each with
`LIMIT` edges left + 1, and stops at the slice where a budget fills: nodes after it are
not expanded (`truncation.frontier_remaining` counts them), and within it edges are
admitted in key order, so a cut walk is the same on every backend (unless a read was cut
by its `LIMIT`: which rows a store returns first is its own). Over HTTP, where each
query costs a round trip, the whole frontier is one query unless a budget would clearly
fill (`_likely_cut`), and a hop the budget may have cut is asked again in slices
(`_might_cut`): the walk kept is the same. A walk also stops
before a slice once the call's deadline is near (`gateway.deadline`): `truncation.reason`
is then "deadline". A slice whose query times out after an earlier slice was admitted
ends the walk there too, with what was admitted (each slice whole or not at all):
`truncation.reason` "deadline" or "endpoint_timeout" (`deadline.timeout_cause`).

Rules (docs/tools.md, "How a walk is decided"): a hop is one relationship. A node at hop h < max_hops is expanded:
each traversable statement whose subject (direction out) or object (direction in) it
is leads to the other end. A node that is itself a statement leads on to its own
subject and object through the structural edges `rdf:subject` / `rdf:object`,
whatever the direction, if the statement is traversable. With `expand_traits`, a
statement with a symmetric predicate, or a predicate with a declared inverse, is also
mirrored (same hop, marked `derived_via`) unless the graph already states the mirror.
The edges returned are those crossed while expanding nodes at hop < max_hops, so both
ends of each are in the node set and one is closer than max_hops.

A path walk (`walk(steps=...)`) crosses at hop h only step h's predicates, from every node
step h-1 reached (its layer), first reached then or not: a cycle comes back to a node, and
the last layer is where the path ends (`seed step1/step2/...` in SPARQL). A node is listed at
the first hop that reached it; an edge crossed again is not counted again; a statement's
structural edges are no step."""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence, Sized
from itertools import repeat
from typing import TypeVar

from gateway import deadline as deadlines
from gateway.authorities import IDENTITY_PREDICATES
from gateway.engine.read_ahead import ReadAhead
from gateway.engine.walk_result import Cut as Cut
from gateway.engine.walk_result import EdgeKey as EdgeKey
from gateway.engine.walk_result import WalkResult as WalkResult
from gateway.engine.walk_result import edge_key as _key
from gateway.errors import EndpointTimeout
from gateway.profiles.base import (
    STRUCTURAL_OBJECT,
    STRUCTURAL_SUBJECT,
    Hit,
    HopPlan,
    Profile,
    Traits,
)
from gateway.sparql import writable

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

HIDDEN_CAP = 1000
"""At most this many hidden statements are read per hop to count them."""


def walk(
    profile: Profile,
    seeds: Sequence[str],
    plan: HopPlan,
    *,
    max_hops: int,
    max_nodes: int,
    max_edges: int,
    traits: frozenset[str] = frozenset(),
    count_hidden: bool = True,
    types: bool = False,
    on_reached: Callable[[list[str]], None] | None = None,
    steps: Sequence[HopPlan] | None = None,
    held: Sequence[str] = (),
) -> WalkResult:
    """Walk from `seeds` up to `max_hops`, within the budgets. A seed need not be known to
    exist: `WalkResult.touched` lists those the first hop found statements of (they
    exist), so only the others need asking. With `types`, a walk that reads both its hops
    in one query (`_Walker.both_hops`) reads the nodes' types with them. `on_reached` is
    told the seeds, then the nodes each slice of a hop reached, as the walk goes. With
    `steps`, a path walk: hop h follows `steps[h]` (`plan` and `max_hops` are then unused).
    `held`: IRIs to ask `Profile.held` about (with the identity links) in the query that
    reads both hops, where one does (`WalkResult.held`): over HTTP, a question fewer after."""
    result = WalkResult(hops={}, edges={})
    for seed in seeds:
        if len(result.hops) >= max_nodes:
            break
        result.hops.setdefault(seed, 0)
    if steps is not None:
        plan, max_hops = steps[0], len(steps)
        result.layers, result.path_length = [list(result.hops)], len(steps)
    declared = profile.traits() if traits else None
    can = profile.backend.capabilities
    remote = can.round_trips
    ahead = ReadAhead(profile, plan) if remote and declared is None and can.max_concurrency > 1 else None
    walker = _Walker(profile, plan, result, max_nodes=max_nodes, max_edges=max_edges, traits=traits,
                     declared=declared, count_hidden=count_hidden, remote=remote, ahead=ahead, types=types,
                     on_reached=on_reached, steps=steps, held=held)
    if on_reached is not None:
        on_reached(list(result.hops))
    try:
        return walker.run(sorted(result.hops), max_hops)
    finally:
        if walker.ahead is not None:
            walker.ahead.close()


class _Walker:
    """One walk's state and its steps: plan a hop's reads, read a slice, admit its rows,
    stop at a budget or the deadline. `result.cut` set means the walk has stopped."""

    def __init__(
        self, profile: Profile, plan: HopPlan, result: WalkResult, *, max_nodes: int, max_edges: int,
        traits: frozenset[str], declared: Traits | None, count_hidden: bool, remote: bool, ahead: ReadAhead | None,
        types: bool = False, on_reached: Callable[[list[str]], None] | None = None,
        steps: Sequence[HopPlan] | None = None, held: Sequence[str] = (),
    ) -> None:
        self.profile, self.plan, self.result = profile, plan, result
        self.held = held
        self.steps = steps
        self.layer: dict[str, None] | None = None
        """A path walk's current layer: every node this hop's step reached, in order."""
        self.types, self.on_reached = types, on_reached
        self.max_nodes, self.max_edges = max_nodes, max_edges
        self.budgets = (max_nodes, max_edges)
        self.traits, self.declared = traits, declared
        self.count_hidden, self.remote, self.ahead = count_hidden, remote, ahead
        self.deadline = deadlines.current()
        self.hidden_seen: set[tuple[str, ...]] = set()
        self.reads = 0
        """Slices read and admitted whole: a timeout after one keeps them."""

    def run(self, frontier: list[str], max_hops: int) -> WalkResult:
        result = self.result
        start = 0
        # Both hops in one query walk one plan and never go back to a node: no path. A longer
        # walk reads its first two hops so, then the rest hop by hop (a round trip fewer).
        if (self.remote and max_hops >= 2 and self.declared is None and len(frontier) <= FIRST_BATCH
                and self.max_edges <= ONE_TRIP_EDGES and self.steps is None):
            start, frontier = self.both_hops(frontier)
        for hop in range(start, max_hops):
            named = writable(frontier)
            result.unnamed += len(frontier) - len(named)
            if not named:
                break
            if self.steps is not None:
                self.plan, self.layer = self.steps[hop], {}
                if self.ahead is not None:
                    self.ahead.plan = self.plan
            reached = self.hop(hop, named)
            if self.layer is not None and result.layers is not None:
                reached = list(self.layer)
                result.layers.append(reached)
            if result.cut is not None or hop + 1 == max_hops:
                break  # the last layer is not expanded: its order does not matter here
            frontier = sorted(reached)
        return result

    def both_hops(self, seeds: list[str]) -> tuple[int, list[str]]:
        """Over HTTP, a 2-hop walk from a few seeds (one slice a hop) in one query
        (`Profile.two_hop_lines`): (the hop to go on from, its frontier); (2, []) when the
        walk is done. The first hop is admitted as `hop` would; the second only where
        every row came and no budget can fill (then the walk is the same as hop by hop),
        else it is read as `hop` reads it. (2, the nodes the second hop reached) when both
        were admitted, for a longer walk to go on from."""
        result = self.result
        if writable(seeds) != seeds or (self.deadline is not None and self.deadline.nearly_expired()):
            return 0, seeds
        try:
            with deadlines.keeping_reserve():
                read = self.profile.two_hop_lines(seeds, self.plan, limit=self.max_edges - result.edge_count() + 1,
                                                  nodes=self.max_nodes + 1, types=self.types, held=self.held,
                                                  identity=IDENTITY_PREDICATES)
        except EndpointTimeout:
            if deadlines.timeout_cause() != "endpoint_timeout":
                raise
            return 0, seeds  # the endpoint gave up on both hops at once: each alone may be read in time
        if read is None:
            return self.both_statement_hops(seeds)
        if read.held is not None:
            result.held = (frozenset(self.held), read.held)
        reached: list[str] = []
        self._admit_plain(0, seeds, (read.first, read.more), False, reached, len(seeds))
        self.reads += 1
        frontier = sorted(reached)
        if result.cut is not None:
            return 2, []
        if (not read.complete or writable(frontier) != frontier
                or _might_cut(False, len(read.second), result, self.max_nodes, self.max_edges)):
            return 1, frontier
        second: list[str] = []
        _admit_lines(read.second, result, second, 2, len(frontier), self.budgets)
        if self.types:
            result.types = {node: read.types.get(node, []) for node in result.hops}
        return 2, sorted(second)

    def both_statement_hops(self, seeds: list[str]) -> tuple[int, list[str]]:
        """`both_hops` over statements (`Profile.two_hop_statements`): the first hop admitted
        as `hop` would where its rows say what its own read would; the second only where,
        beside that, the query read it from the nodes the first reached and no budget,
        hidden-statement cap or LIMIT can cut it (the walk is then the same as hop by hop)."""
        result = self.result
        cap = HIDDEN_CAP
        limit = self.max_edges + 1
        try:
            with deadlines.keeping_reserve():
                read = self.profile.two_hop_statements(seeds, self.plan, limit=limit, cap=cap, nodes=self.max_nodes + 1,
                                                       types=self.types, held=self.held, identity=IDENTITY_PREDICATES)
        except EndpointTimeout:
            if deadlines.timeout_cause() != "endpoint_timeout":
                raise
            return 0, seeds
        if read is None:
            return 0, seeds
        if read.held is not None:
            result.held = (frozenset(self.held), read.held)
        first = self.profile.hop_rows(read.first, seeds, self.plan, limit, cap, hidden=self._counts_hidden())
        if first is None:
            return 0, seeds
        reached: list[str] = []
        self._admit_statements(0, seeds, False, reached, len(seeds), limit - 1, first)
        self.reads += 1
        frontier = sorted(reached)
        if result.cut is not None:
            return 2, []
        if not read.complete or read.frontier != set(frontier) or writable(frontier) != frontier:
            return 1, frontier
        edges_left = self.max_edges - result.edge_count()
        counted = self._counts_hidden()
        second = self.profile.hop_rows(read.second, frontier, self.plan, edges_left + 1, cap, hidden=counted)
        if (second is None or second[1] or len(second[2]) >= cap
                or _might_cut(False, _crossing_count(second[0], self.plan), result, self.max_nodes, self.max_edges)):
            return 1, frontier
        reached = []
        self._admit_statements(1, frontier, False, reached, len(frontier), edges_left, second)
        if self.types:
            result.types = {node: read.types.get(node, []) for node in result.hops if node in read.typed}
        return 2, sorted(reached)

    def _counts_hidden(self) -> bool:
        """Whether a hop read now counts hidden statements: once a read hit the cap the counts
        are lower bounds, and reading more of them would not change what the answer can say."""
        return self.count_hidden and not self.result.hidden_capped

    def hop(self, hop: int, frontier: list[str]) -> list[str]:
        """Expand `frontier` (the nodes at `hop`, in IRI order) slice by slice; the nodes
        reached, in the order reached."""
        result = self.result
        reached: list[str] = []
        # Over HTTP a round trip costs more than the rows a slice saves: the whole frontier
        # is asked at once, and only a hop a budget may cut is asked again in slices, so
        # the walk is the one the slices give.
        whole = (self.remote and len(frontier) > FIRST_BATCH and not _likely_cut(
            result, len(frontier), len(result.hops) - len(frontier), self.max_nodes, self.max_edges))
        slices = [(0, frontier)] if whole else list(batches(frontier))
        at = 0
        while at < len(slices):
            done = slices[at][0]
            at += 1
            left = len(frontier) - done
            if self.deadline is not None and self.deadline.nearly_expired():
                result.cut = Cut("deadline", hop + 1, left)
                return reached
            before = len(reached)
            try:
                with deadlines.keeping_reserve():
                    again = self._slice(hop, slices, at - 1, whole, reached, len(frontier))
            except EndpointTimeout:
                if not self._keep_on_timeout(hop, left):
                    raise
                return reached
            if self.on_reached is not None and len(reached) > before:
                self.on_reached(reached[before:])
            if again:  # the whole frontier read more than the budgets take: read it in slices
                whole, slices, at = False, list(batches(frontier)), 0
                continue
            self.reads += 1
            if result.cut is not None:
                break
        return reached

    def _slice(
        self, hop: int, slices: list[tuple[int, list[str]]], index: int, whole: bool, reached: list[str], width: int,
    ) -> bool:
        """Read and admit slice `index` of a hop's frontier (`width` nodes), asking for the
        next one meanwhile; True when a whole-frontier read must be sliced instead. Nothing
        of a slice is admitted unless its every query answered."""
        done, batch = slices[index]
        left = width - done
        edges_left = self.max_edges - self.result.edge_count()
        if not whole and index + 1 < len(slices):
            expanded = len(self.result.hops) - width - len(reached) + done
            self._read_ahead((hop, index + 1), slices[index + 1][1], len(batch), expanded, edges_left)
        lines = self._plain_lines((hop, index), batch, edges_left)
        if lines is not None:
            return self._admit_plain(hop, batch, lines, whole, reached, left)
        return self._admit_statements(hop, batch, whole, reached, left, edges_left)

    def _keep_on_timeout(self, hop: int, left: int) -> bool:
        """Whether a walk whose read of hop `hop` met a timeout ends with what its earlier
        reads admitted, cut at that hop with `left` frontier nodes unexpanded (then marked
        so); not where nothing was read yet, nor where the caller went away: the error stands."""
        cause = deadlines.timeout_cause()
        if cause is None or not self.reads:
            return False
        self.result.cut = Cut(cause, hop + 1, left)
        return True

    def _read_ahead(self, key: tuple[int, int], batch: list[str], current: int, expanded: int, edges_left: int) -> None:
        """Ask for the slice after the `current` one while that one is read, unless a budget
        will likely fill first (a plain hop over HTTP only)."""
        if self.ahead is not None and not _likely_cut(self.result, current, expanded, self.max_nodes, self.max_edges):
            self.ahead.ask(key, batch, edges_left + 1)

    def _plain_lines(self, key: tuple[int, int], batch: list[str], edges_left: int) -> tuple[list[str], bool] | None:
        """A plain hop's rows (`Profile.hop_lines`), read ahead or now; None where the hop
        reads statements."""
        if self.ahead is not None and self.ahead.has(key):
            lines = self.ahead.take(key, edges_left + 1)
        else:
            lines = None if self.declared is not None else self.profile.hop_lines(batch, self.plan, edges_left + 1)
        if lines is None and self.ahead is not None:  # the hops read statements: nothing to read ahead
            self.ahead.close()
            self.ahead = None
        return lines

    def _admit_plain(
        self, hop: int, batch: list[str], read: tuple[list[str], bool], whole: bool, reached: list[str], left: int
    ) -> bool:
        """Admit a plain slice's rows; True when a whole-frontier read must be sliced instead."""
        lines, more = read
        result = self.result
        if hop == 0:
            # One seed with rows is touched; several are told apart by their rows.
            result.touched.update(batch if len(batch) == 1 and lines else _near_ends(lines))
        if whole and _might_cut(more, len(lines), result, self.max_nodes, self.max_edges):
            return True
        _admit_lines(lines, result, reached, hop + 1, left, self.budgets, layer=self.layer)
        if result.cut is None and more:
            result.cut = Cut("max_edges", hop + 1, left)
        return False

    def _admit_statements(
        self, hop: int, batch: list[str], whole: bool, reached: list[str], left: int, edges_left: int,
        read: tuple[list[Hit], bool, list[Hit]] | None = None,
    ) -> bool:
        """Read (unless `read` already: hits, more, hidden) and admit a slice's statements;
        True when a whole-frontier read must be sliced instead."""
        result, plan = self.result, self.plan
        if read is not None:
            hits, more, hidden = read
        elif self._counts_hidden():
            hits, more, hidden = self.profile.hop_and_hidden(batch, plan, edges_left + 1, HIDDEN_CAP)
        else:
            (hits, more), hidden = self.profile.hop(batch, plan, edges_left + 1), []
        if hop == 0:
            result.touched.update(batch if len(batch) == 1 and (hits or hidden) else (h.x for h in (*hits, *hidden)))
        if self.steps is not None:  # a path names relationships: a statement's own ends are none of them
            hits, hidden = _relationships(hits), _relationships(hidden)
        found = None if self.declared is None else list(crossings(hits, plan, self.declared, self.traits))
        count = _crossing_count(hits, plan) if found is None else len(found)
        if whole and _might_cut(more, count, result, self.max_nodes, self.max_edges):
            return True
        _count_hidden(hidden, plan, result, self.hidden_seen)
        # Made as they are admitted where no budget can fill: a walk over statements keeps
        # its hits and keys to the end, and a list of them more is more for the collector to sweep.
        rows = found if found is not None else crossings(hits, plan, None, self.traits)
        fill = _may_fill(result.edges, result.hops, count, self.budgets)
        if fill:  # a budget will cut this batch: admit in key order, not in the store's row order
            rows = sorted(rows, key=_crossing_order)
        _admit(rows, result.edges, result, reached, hop + 1, left, self.budgets if fill else None, layer=self.layer)
        if result.cut is None and more:
            result.cut = Cut("max_edges", hop + 1, left)
        return False


def _relationships(hits: list[Hit]) -> list[Hit]:
    """The hits that are relationships of the frontier nodes, not a statement node's own ends."""
    return [h for h in hits if h.via != "s"]


def _may_fill(edges: Sized, hops: Sized, count: int, budgets: tuple[int, int]) -> bool:
    """Whether admitting `count` more edges into `edges` may fill a budget (max_nodes, max_edges)."""
    max_nodes, max_edges = budgets
    return len(edges) + count > max_edges or len(hops) + count > max_nodes


def _admit(
    rows: Iterable[tuple[str, V, K]], edges: dict[K, V], result: WalkResult, reached: list[str], hop: int, left: int,
    budgets: tuple[int, int] | None, *, layer: dict[str, None] | None = None,
) -> None:
    """The walk's one admission rule. Each row (the node the edge leads to, what is kept of
    the edge, its key) in the order given: an edge already held is passed over; past
    max_edges the walk is cut there; an edge to a node not yet reached is admitted with
    the node, unless that would pass max_nodes (then it is left out and the walk marked
    cut, the rows after it still admitted where they lead to nodes held). Nodes reached
    are put at `hop` and in `reached`, in order; `left`: the frontier nodes a cut leaves
    unexpanded. `budgets` (max_nodes, max_edges) None where no budget can fill: the same
    rule without the checks, for a walk's hot path. With `layer` (a path walk), `_admit_path`."""
    if layer is not None:
        _admit_path(rows, edges, result, reached, layer, hop, left, budgets)
        return
    hops = result.hops
    if budgets is None:
        for other, value, key in rows:
            if key not in edges:
                edges[key] = value
                if other not in hops:
                    hops[other] = hop
                    reached.append(other)
        return
    max_nodes, max_edges = budgets
    for other, value, key in rows:
        if key in edges:
            continue
        if len(edges) >= max_edges:
            result.cut = Cut("max_edges", hop, left)
            return
        if other not in hops:
            if len(hops) >= max_nodes:
                result.cut = result.cut or Cut("max_nodes", hop, left)
                continue
            hops[other] = hop
            reached.append(other)
        edges[key] = value


def _admit_path(
    rows: Iterable[tuple[str, V, K]], edges: dict[K, V], result: WalkResult, reached: list[str],
    layer: dict[str, None], hop: int, left: int, budgets: tuple[int, int] | None,
) -> None:
    """`_admit` for a hop of a path walk: the same budgets, but every node a row leads to
    goes in `layer`, new or not, and an edge held before is crossed again, free."""
    hops = result.hops
    max_nodes, max_edges = budgets if budgets is not None else (sys.maxsize, sys.maxsize)
    for other, value, key in rows:
        if key not in edges:
            if len(edges) >= max_edges:
                result.cut = Cut("max_edges", hop, left)
                return
            if other not in hops:
                if len(hops) >= max_nodes:
                    result.cut = result.cut or Cut("max_nodes", hop, left)
                    continue
                hops[other] = hop
                reached.append(other)
            edges[key] = value
        layer[other] = None


TIMEOUTS = {"deadline": "the call's deadline came", "endpoint_timeout": "the endpoint timed out"}
"""What a cut a timeout made (`Cut.reason`) says of its cause."""


def timeout_warning(cut: Cut | None, step: str = "hop", fewer: str | None = "hops") -> list[str]:
    """What an agent reads of a walk (or a closure's levels: `step`) a timeout cut: how far
    it is complete, and how to ask again (with `fewer` of what, where there is a count to lower)."""
    if cut is None or cut.reason not in TIMEOUTS:
        return []
    at, left = cut.at_hop, cut.frontier_remaining
    complete = (f"{step}s 1-{at - 1} are complete" if at > 2 else f"{step} 1 is complete" if at == 2
                else f"{step} 1 is partial")
    before = "seed(s)" if at == 1 else f"node(s) at {step} {at - 1}"
    ask = f"fewer {fewer}, a narrower filter" if fewer else "a narrower filter"
    return [f"{TIMEOUTS[cut.reason]} at {step} {at}: {complete}, and {left} {before} were not expanded; ask again "
            f"with {ask} or a longer deadline"]


def unnamed_warning(result: WalkResult) -> list[str]:
    """What a walk says of the nodes it could not go on from (`WalkResult.unnamed`)."""
    if not result.unnamed:
        return []
    return [f"{result.unnamed} node(s) reached have IRIs no query can name (spaces, control characters or brackets, "
            "kept by a lenient load): they are listed, but the walk did not go on from them"]


def _likely_cut(result: WalkResult, asking: int, expanded: int, max_nodes: int, max_edges: int) -> bool:
    """Whether `asking` more nodes, at the edges per node the `expanded` ones gave, would
    fill a budget several times over: then asking a whole frontier, only to ask again in
    slices, is a round trip and a large answer lost, and reading the slice after them
    ahead is a read the walk will not use. (Degrees vary: a hub seed makes the estimate
    high, hence the margin.)"""
    per_node = result.edge_count() / max(expanded, 1)
    return asking * per_node > 4 * min(max_edges - result.edge_count(), max_nodes - len(result.hops))


def _might_cut(more: bool, rows: int, result: WalkResult, max_nodes: int, max_edges: int) -> bool:
    """Whether a budget may cut a read of `rows` candidate edges (a bound: rows repeat)."""
    return more or result.edge_count() + rows > max_edges or len(result.hops) + rows > max_nodes


FIRST_BATCH = 16
ONE_TRIP_EDGES = 2000
"""The largest edge budget a 2-hop walk is read in one query with (the default budget). A
walk that does not fit reads its rows twice, and the rows such a query may read grow with
the budgets: at 50,000 edges a 2-hop walk from a hub of a 1M-triple graph read 101,000
rows before going on hop by hop (1.1 s, where hop by hop takes 0.2 s), more than the two
round trips a walk that fits saves (1.5x at 25 ms a request, bench/RESULTS.md one_trip)."""
"""Frontier nodes in a hop's first query; each further query of the hop takes 4x more."""


def batches(frontier: list[str]) -> Iterator[tuple[int, list[str]]]:
    """(nodes before the batch, the batch): the frontier in ID order, in growing slices.

    A hop over a wide frontier is a few queries, not one: when a budget fills within
    the first nodes (a hub's neighbours are hubs), the walk stops there instead of
    reading every frontier node's rows up to the edge budget; a frontier of up to 16
    nodes, the common case, is still one query.
    """
    start, size = 0, FIRST_BATCH
    while start < len(frontier):
        yield start, frontier[start : start + size]
        start, size = start + size, size * 4


def crossings(
    hits: list[Hit], plan: HopPlan, declared: Traits | None, traits: frozenset[str]
) -> Iterator[tuple[str, Hit, EdgeKey]]:
    """(the node it leads to, the hit, the edge) for every edge the hits let the walk cross,
    in the hits' order: a statement node's structural edges, a statement along the plan's
    directions, and with `declared` traits its mirrors, unless the graph states them."""
    stated = {(h.s, h.p, h.o) for h in hits if h.via != "s"} if declared is not None else set()
    out, inward = plan.out, plan.inward
    for h in hits:
        via = h.via
        if via == "s":
            yield h.s, h, _key((h.x, STRUCTURAL_SUBJECT, h.s, None, None))
            yield h.o, h, _key((h.x, STRUCTURAL_OBJECT, h.o, None, None))
            continue
        if (via == "o" and out) or (via == "i" and inward):
            yield h.o if via == "o" else h.s, h, _key((h.s, h.p, h.o, h.stmt, None))
        if declared is None:
            continue
        # A mirror (o q s) leaves x the other way round: out of x when x is the object.
        if (via == "i" and out) or (via == "o" and inward):
            for q, kind in declared.mirrors(h.p, traits):
                if (h.o, q, h.s) not in stated:
                    yield h.s if via == "i" else h.o, h, _key((h.o, q, h.s, h.stmt, f"{kind}({h.p})"))


def _crossing_count(hits: list[Hit], plan: HopPlan) -> int:
    """How many crossings `crossings` makes of these hits without mirrors, counted in C."""
    vias = [h.via for h in hits]
    return 2 * vias.count("s") + plan.out * vias.count("o") + plan.inward * vias.count("i")


def _crossing_order(row: tuple[str, Hit, EdgeKey]) -> tuple[str, ...]:
    """The key order crossings are admitted in where a budget may cut: the node led to, then the edge."""
    other, _, key = row
    return other, key[0], key[1], key[2], key[3] or "", key[4] or ""


def candidates(
    hits: list[Hit], plan: HopPlan, declared: Traits | None, traits: frozenset[str]
) -> list[tuple[EdgeKey, Hit, str]]:
    """(edge, hit, the node it leads to) for every edge the hits let the walk cross (`crossings`)."""
    return [(key, hit, other) for other, hit, key in crossings(hits, plan, declared, traits)]


def _near_ends(lines: list[str]) -> Iterator[str]:
    """The frontier node of each `hop_lines` row: the end of the edge that is not the node
    it leads to (a self-loop's either)."""
    for line in lines:
        other, _, key = line.partition("\t")
        yield key[key.rindex("\t") + 1 :] if key.startswith(other + "\t") else key[: key.index("\t")]


def _admit_lines(
    lines: list[str], result: WalkResult, reached: list[str], hop: int, left: int, budgets: tuple[int, int],
    *, layer: dict[str, None] | None = None,
) -> None:
    """`_admit` for the rows of `Profile.hop_lines` (nodes reached at `hop`), over strings: a
    plain graph's walk spends most of its Python here, so nothing is made per row but its
    split (the node led to, the tab, the edge), in C."""
    fill = _may_fill(result.plain, result.hops, len(lines), budgets)
    if fill:
        lines.sort()  # a budget may cut: admit in key order (the node led to, then s, p, o)
    _admit(map(str.partition, lines, repeat("\t")), result.plain, result, reached, hop, left, budgets if fill else None,
           layer=layer)


def _count_hidden(hits: list[Hit], plan: HopPlan, result: WalkResult, seen: set[tuple[str, ...]]) -> None:
    if len(hits) >= HIDDEN_CAP:
        result.hidden_capped = True
    mirrored = set(plan.mirror_predicates)
    for h in hits:
        relevant = (
            h.via == "s"
            or (h.via == "o" and (plan.out or h.p in mirrored))
            or (h.via == "i" and (plan.inward or h.p in mirrored))
        )
        key = (h.stmt,) if h.stmt else (h.s, h.p, h.o)
        if not relevant or key in seen:
            continue
        seen.add(key)
        result.hidden.update(h.failed)
