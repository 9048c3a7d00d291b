"""A timeout after a completed step keeps what was completed, flagged; one before any is an error.

The store is real (the demo graph, embedded); only a timeout on a chosen query is made
up, by a wrapper around it (`TimesOut`): no real store times out on the query a test
names. Every partial answer is checked against an oracle, the same call on the store
itself with fewer hops (or levels), never against figures written here. A test against
a real `oxigraph serve` behind a proxy that answers 504, or stalls, for one hop is in
tests/tools/test_partial_answers_remote.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from gateway import EndpointTimeout, Gateway
from gateway.backends.base import TABLE, Backend, Capabilities, Graphs, Shape
from gateway.errors import BackendError, RateLimited, UpstreamError
from gateway.models import Subgraph
from tests.conftest import DEMO, listed_edges, listed_nodes

HOP = "# One BFS hop"
"""How every hop query's text begins (queries/*/hop*.rq)."""
CLOSURE = "# Transitive closure"
BUDGETS = {"max_nodes": 10_000, "max_edges": 50_000}
"""Budgets no walk here fills: only a timeout may cut it."""


class TimesOut:
    """The store, except that the `nth` of its queries whose text begins with `kind`
    (1-based, each in `nth`) raises `error` (an endpoint's timeout unless told), after
    `before` runs (a caller going away, say)."""

    def __init__(self, backend: Backend, nth: set[int], kind: str = HOP,
                 error: Callable[[], BackendError] = lambda: EndpointTimeout("the endpoint did not answer in time"),
                 before: Callable[[], None] | None = None, round_trips: bool = False) -> None:
        self._backend, self.nth, self.kind, self.error, self.before = backend, nth, kind, error, before
        self.seen = 0
        self.texts: list[str] = []
        self.round_trips = round_trips

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    @property
    def capabilities(self) -> Capabilities:
        """The store's; with `round_trips`, walked as an endpoint over HTTP is (its queries are those an endpoint gets)."""
        return replace(self._backend.capabilities, round_trips=self.round_trips or self._backend.capabilities.round_trips)

    def select(self, query: str, shape: Shape[Any] = TABLE, *, graphs: Graphs = None) -> Any:
        if query.startswith(self.kind):
            self.seen += 1
            self.texts.append(query)
            if self.seen in self.nth:
                if self.before is not None:
                    self.before()
                raise self.error()
        return self._backend.select(query, shape, graphs=graphs)


@pytest.fixture(scope="module")
def store() -> Gateway:
    return Gateway.open(DEMO)


def failing(store: Gateway, *nth: int, **options: Any) -> tuple[Gateway, TimesOut]:
    backend = TimesOut(store.backend, set(nth), **options)
    return Gateway(backend, profile=store.profile), backend  # type: ignore[arg-type]


def hop_queries(store: Gateway, call: Callable[[Gateway], object]) -> int:
    """How many hop queries `call` sends when nothing fails."""
    gateway, backend = failing(store)
    call(gateway)
    return backend.seen


def walked(answer: Subgraph) -> tuple[set[str], set[tuple[str, str, str, str | None]]]:
    return ({n.id for n in listed_nodes(answer)},
            {(e.subject, e.predicate, e.object, e.id) for e in listed_edges(answer)})


def hops_of(answer: Subgraph) -> dict[str, int]:
    """Node ID -> its hop: the nodes are listed by hop, `hop_counts` of each."""
    listed = iter(listed_nodes(answer))
    return {next(listed).id: hop for hop, count in enumerate(answer.hop_counts) for _ in range(count)}


# -- bfs_query ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"])
def test_a_walk_cut_by_a_timeout_keeps_the_hops_it_completed(store: Gateway, seed: str) -> None:
    def bfs(gateway: Gateway, hops: int) -> Subgraph:
        return gateway.bfs_query(seeds=[seed], max_hops=hops, **BUDGETS)  # type: ignore[return-value]

    whole = bfs(store, 3)
    queries = hop_queries(store, lambda g: bfs(g, 3))
    assert queries >= 3 and not whole.truncated
    cut_at: set[int] = set()
    for nth in range(1, queries + 1):
        gateway, _ = failing(store, nth)
        if nth == 1:  # the first hop's only query: nothing was completed
            with pytest.raises(EndpointTimeout):
                bfs(gateway, 3)
            continue
        partial = bfs(gateway, 3)
        assert partial.truncated and partial.truncation is not None
        assert partial.truncation.reason == "endpoint_timeout"
        at = partial.truncation.at_hop
        cut_at.add(at)
        below, above = bfs(store, at - 1), bfs(store, at)
        nodes, edges = walked(partial)
        assert walked(below)[0] <= nodes <= walked(above)[0]
        assert walked(below)[1] <= edges <= walked(above)[1]
        assert partial.hop_counts[: at] == below.hop_counts[: at]
        if partial.truncation.frontier_remaining == below.hop_counts[at - 1]:  # nothing of hop `at` was read
            assert (nodes, edges) == walked(below)
        assert any(f"the endpoint timed out at hop {at}" in w and "fewer hops" in w for w in partial.warnings)
    assert {2, 3} <= cut_at


def test_a_walk_over_plain_data_keeps_its_hops_too(store: Gateway) -> None:
    """Plain data is walked by another query (hop_plain.rq) read as lines."""
    from tests.conftest import gateway_from_ntriples

    lines = "".join(f"<http://example.org/n{i}> <http://example.org/next> <http://example.org/n{j}> .\n"
                    for i in range(30) for j in (2 * i + 1, 2 * i + 2) if j < 30)
    plain = gateway_from_ntriples(lines)

    def bfs(gateway: Gateway, hops: int) -> Subgraph:
        return gateway.bfs_query(seeds=["http://example.org/n0"], max_hops=hops, direction="out",
                                 topology_only=True, **BUDGETS)  # type: ignore[return-value]

    for nth in (2, 3):
        gateway, _ = failing(plain, nth)
        partial = bfs(gateway, 4)
        assert partial.truncation is not None and partial.truncation.at_hop == nth
        assert walked(partial) == walked(bfs(plain, nth - 1))


def test_a_hop_cut_between_its_slices_keeps_the_slices_read() -> None:
    """A frontier of 40 is read in slices of 16 and 24 nodes (in IRI order): a timeout on
    the second keeps what the first reached, and counts the 24 left."""
    from tests.conftest import gateway_from_ntriples

    ex = "http://example.org/"
    star = gateway_from_ntriples("".join(f"<{ex}hub> <{ex}to> <{ex}c{i:02}> .\n<{ex}c{i:02}> <{ex}to> <{ex}g{i:02}> .\n"
                                         for i in range(40)))

    def bfs(gateway: Gateway, hops: int) -> Subgraph:
        return gateway.bfs_query(seeds=[f"{ex}hub"], max_hops=hops, direction="out", topology_only=True,
                                 **BUDGETS)  # type: ignore[return-value]

    gateway, _ = failing(star, 3)
    partial = bfs(gateway, 2)
    assert partial.truncation is not None and partial.truncation.at_hop == 2
    left = partial.truncation.frontier_remaining
    below, above = bfs(star, 1), bfs(star, 2)
    frontier = sorted(n for n, hop in hops_of(below).items() if hop == 1)
    assert 0 < left < len(frontier)
    read = set(frontier[: len(frontier) - left])
    nodes, edges = walked(above)
    kept = {e for e in edges if e[0] not in frontier or e[0] in read}
    assert walked(partial) == ({n for n in nodes if n in hops_of(below) or any(e[2] == n for e in kept)}, kept)


def test_two_hops_in_one_query_the_endpoint_gives_up_on_are_read_hop_by_hop() -> None:
    """Over HTTP a 2-hop walk over plain data is one query (two_hops.rq): when the endpoint
    gives up on it, the hops are asked one at a time, and a timeout on the second keeps the first."""
    from tests.conftest import gateway_from_ntriples

    ex = "http://example.org/"
    tree = gateway_from_ntriples("".join(f"<{ex}n{i}> <{ex}to> <{ex}n{j}> .\n"
                                         for i in range(20) for j in (2 * i + 1, 2 * i + 2) if j < 20))

    def bfs(gateway: Gateway, hops: int) -> Subgraph:
        return gateway.bfs_query(seeds=[f"{ex}n0"], max_hops=hops, direction="out", topology_only=True)  # type: ignore[return-value]

    both = TimesOut(tree.backend, {1}, kind="# Two BFS hops", round_trips=True)
    assert walked(bfs(Gateway(both, profile=tree.profile), 2)) == walked(bfs(tree, 2))  # type: ignore[arg-type]
    assert both.seen == 1  # it was asked, and gave up on
    second = TimesOut(TimesOut(tree.backend, {1}, kind="# Two BFS hops", round_trips=True), {2}, round_trips=True)
    partial = bfs(Gateway(second, profile=tree.profile), 2)  # type: ignore[arg-type]
    assert partial.truncation is not None and (partial.truncation.reason, partial.truncation.at_hop) == (
        "endpoint_timeout", 2)
    assert walked(partial) == walked(bfs(tree, 1))


def test_only_a_timeout_is_kept_in_part(store: Gateway) -> None:
    """A refusal, a rate limit, a query the store rejects: the error, never a short walk."""
    for error in (lambda: RateLimited("slow down", retry_after=60), lambda: UpstreamError("403 Forbidden")):
        gateway, _ = failing(store, 2, error=error)
        with pytest.raises(type(error())):
            gateway.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=3)


def test_a_caller_gone_gets_no_partial_answer(store: Gateway) -> None:
    gone = threading.Event()
    gateway, _ = failing(store, 2, before=gone.set)
    with pytest.raises(EndpointTimeout):
        gateway.call("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 3}, abandoned=gone)


# -- intersect_subgraphs -----------------------------------------------------------------------
def test_an_intersection_keeps_what_its_walks_completed(store: Gateway) -> None:
    seeds = ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"]
    _, plain = failing(store)
    Gateway(plain, profile=store.profile).intersect_subgraphs(seeds=seeds, k=2)  # type: ignore[arg-type]
    first = next(s for s in seeds if store.context.ids.resolve(s, "seeds").iri in plain.texts[0])
    other = next(s for s in seeds if s != first)
    gateway, _ = failing(store, 2)  # the first seed's second hop, first slice: its walk stops at hop 1
    partial = gateway.intersect_subgraphs(seeds=seeds, k=2)
    assert partial.truncated and partial.truncation is not None
    assert (partial.truncation.reason, partial.truncation.at_hop) == ("endpoint_timeout", 2)
    near = hops_of(store.bfs_query(seeds=[first], max_hops=1, **BUDGETS))  # type: ignore[arg-type]
    far = hops_of(store.bfs_query(seeds=[other], max_hops=2, **BUDGETS))  # type: ignore[arg-type]
    assert {n.id: n.distances for n in partial.nodes} == {
        n: {first: near[n], other: far[n]} for n in near.keys() & far.keys()
    }


def test_an_intersection_whose_edges_time_out_keeps_its_nodes(store: Gateway) -> None:
    seeds = ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"]
    whole = store.intersect_subgraphs(seeds=seeds, k=1)
    queries = hop_queries(store, lambda g: g.intersect_subgraphs(seeds=seeds, k=1))
    gateway, _ = failing(store, queries)  # the last: the statements among the nodes found
    partial = gateway.intersect_subgraphs(seeds=seeds, k=1)
    assert partial.truncated and partial.truncation is not None and partial.truncation.at_hop == 2
    assert [(n.id, n.distances) for n in partial.nodes] == [(n.id, n.distances) for n in whole.nodes]
    assert whole.edges and not partial.edges
    assert any("their edges are not listed" in w for w in partial.warnings)


# -- expand_neighbors ------------------------------------------------------------------------
def test_neighbours_past_a_timeout_are_those_of_the_hops_completed(store: Gateway) -> None:
    gateway, _ = failing(store, 2)
    partial = gateway.expand_neighbors(entity_ids=["wiki:Sherlock_Holmes"], depth=2, limit=24)
    oracle = store.expand_neighbors(entity_ids=["wiki:Sherlock_Holmes"], depth=1, limit=24)
    assert partial.truncated
    assert [(n.id, n.score) for n in partial.neighbors] == [(n.id, n.score) for n in oracle.neighbors]
    assert any("the endpoint timed out at hop 2" in w for w in partial.warnings)


# -- transitive_closure_query ------------------------------------------------------------------
def test_a_closure_cut_by_a_timeout_keeps_its_whole_levels(store: Gateway) -> None:
    ask = {"start": "wiki:221B_Baker_Street", "predicate": "PartOf"}
    whole = store.transitive_closure_query(**ask)
    levels = hop_queries(store, lambda g: g.transitive_closure_query(**ask))
    assert whole.method == "per_level" and levels >= 3
    gateway, _ = failing(store, 1)
    with pytest.raises(EndpointTimeout):
        gateway.transitive_closure_query(**ask)
    for nth in range(2, levels + 1):
        gateway, _ = failing(store, nth)
        partial = gateway.transitive_closure_query(**ask)
        oracle = store.bfs_query(seeds=[ask["start"]], max_hops=nth - 1, predicates=[ask["predicate"]],
                                 direction="out", topology_only=True, **BUDGETS)
        assert partial.truncated
        assert any(w.startswith(f"the endpoint timed out at level {nth}:") for w in partial.warnings), partial.warnings
        assert partial.reachable == sorted(n for n, hop in hops_of(oracle).items() if hop)  # type: ignore[arg-type]


def test_a_property_path_the_endpoint_gives_up_on_is_walked_level_by_level() -> None:
    from tests.conftest import gateway_from_ntriples

    chain = gateway_from_ntriples("".join(f"<http://example.org/n{i}> <http://example.org/next> "
                                          f"<http://example.org/n{i + 1}> .\n" for i in range(12)))
    ask = {"start": "http://example.org/n0", "predicate": "http://example.org/next"}
    whole = chain.transitive_closure_query(**ask)
    assert whole.method == "property_path"
    gateway, _ = failing(chain, 1, kind=CLOSURE)
    fallback = gateway.transitive_closure_query(**ask)
    assert (fallback.method, fallback.reachable, fallback.truncated) == ("per_level", whole.reachable, False)
    backend = TimesOut(TimesOut(chain.backend, {1}, kind=CLOSURE), {4})  # the fourth level too
    partial = Gateway(backend, profile=chain.profile).transitive_closure_query(**ask)  # type: ignore[arg-type]
    assert partial.truncated and any(w.startswith("the endpoint timed out at level 4:") for w in partial.warnings)
    oracle = chain.bfs_query(seeds=[ask["start"]], max_hops=3, direction="out", topology_only=True, **BUDGETS)
    assert partial.reachable == sorted(n for n, hop in hops_of(oracle).items() if hop)  # type: ignore[arg-type]


# -- shortest_path ---------------------------------------------------------------------------
def test_a_path_search_cut_by_a_timeout_says_how_far_it_looked(store: Gateway) -> None:
    ask = {"source": "wiki:Dr_Watson", "target": "obj:photograph"}
    found = store.shortest_path(**ask, max_hops=8)
    levels = hop_queries(store, lambda g: g.shortest_path(**ask, max_hops=8))
    assert found.found and found.hops == levels
    gateway, _ = failing(store, 1)
    with pytest.raises(EndpointTimeout):
        gateway.shortest_path(**ask, max_hops=8)
    for nth in range(2, levels + 1):
        gateway, _ = failing(store, nth)
        partial = gateway.shortest_path(**ask, max_hops=8)
        assert not partial.found and partial.reason is not None
        assert partial.reason.startswith(f"truncated (endpoint_timeout): the endpoint timed out at level {nth}")
        assert not store.shortest_path(**ask, max_hops=nth - 1).found  # what the answer says: none that short
        assert partial.reason is not None and f"searching {nth - 1} hops without a path" in partial.reason


# -- scan_query --------------------------------------------------------------------------------
def test_a_scan_page_cut_by_a_timeout_lists_every_match_up_to_its_last_row(store: Gateway) -> None:
    whole = store.scan_query(limit=1000)
    assert whole.next_cursor is None and not whole.warnings
    gateway, _ = failing(store, 1)
    with pytest.raises(EndpointTimeout):
        gateway.scan_query(limit=1000)
    gateway, _ = failing(store, 2)
    page = gateway.scan_query(limit=1000)
    assert any(w.startswith("truncated (endpoint_timeout): the endpoint timed out before this page was full")
               for w in page.warnings), page.warnings
    assert 0 < page.count < whole.count and page.next_cursor is not None
    rest = store.scan_query(limit=1000, cursor=page.next_cursor)  # the cursor goes on where the page stopped
    assert [e.id for e in page.edges] + [e.id for e in rest.edges] == [e.id for e in whole.edges]


# -- what stays an error ---------------------------------------------------------------------------
def test_communities_refuse_a_neighbourhood_a_timeout_cut(store: Gateway) -> None:
    gateway, _ = failing(store, 2)
    with pytest.raises(EndpointTimeout, match="endpoint timed out at hop 2"):
        gateway.communities(seeds=["wiki:Sherlock_Holmes"], max_hops=2)


@pytest.mark.parametrize("nth", [1, 2])
def test_a_table_is_never_shown_in_part(store: Gateway, nth: int) -> None:
    """Its page is read from the order index of its type (the first query: one sort of the
    type, gateway/engine/table_order.py), then asked over the index's first entities (the
    second): a timeout on either leaves nothing of the table shown."""
    gateway, timing_out = failing(store, nth, kind="# A table (tabulate)")
    with pytest.raises(EndpointTimeout, match="nothing of it is shown"):
        gateway.tabulate(type="sh:Person", columns={"name": "rdfs:label"})
    assert timing_out.seen == nth

