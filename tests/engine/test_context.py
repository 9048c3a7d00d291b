"""GraphContext: naming a predicate by its ID is checked with one probe, and the probe
agrees with the whole-graph vocabulary it stands in for."""

from __future__ import annotations

import random
import threading
import time

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, Unavailable, UpstreamError
from gateway import deadline as deadlines
from gateway.auth import Reader
from gateway.engine.context import CALLER_KEYS, OWN_KEYS
from gateway.engine.names import VOCABULARY, resolve_terms, vocabulary
from gateway.engine.statistics import STATISTICS
from gateway.profiles.base import NON_EDGE_PREDICATES
from gateway.profiles.graph import MemoKey
from support.synth import random_graph
from tests.conftest import DEMO, gateway_from_ntriples


def _verdicts(gateway: Gateway, names: list[str], *, probe: bool) -> list[set[str]]:
    ctx = gateway.context_for(None)
    if not probe:
        vocabulary(ctx)  # computed first: the probe is skipped
    return [resolve_terms(ctx, [name], "edge_predicates", kind="predicate", warnings=[]) for name in names]


@pytest.mark.parametrize("seed", range(40))
def test_probe_equals_vocabulary_on_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    graph = random_graph(rng, rng.randint(3, 12), rng.randint(1, 25), reified=seed % 2 == 0)
    text = graph.to_ntriples()
    candidates = sorted({p for st in graph.statements for p in [st.p]} | set(NON_EDGE_PREDICATES[:4]))
    candidates += ["http://synth.example/p/99", "http://www.w3.org/2000/01/rdf-schema#label"]
    probed = _verdicts(gateway_from_ntriples(text), candidates, probe=True)
    counted = _verdicts(gateway_from_ntriples(text), candidates, probe=False)
    assert probed == counted


def test_a_literal_valued_predicate_is_not_an_edge() -> None:
    warnings: list[str] = []
    ctx = Gateway.open(DEMO).context_for(None)
    assert resolve_terms(ctx, ["rdfs:label"], "edge_predicates", kind="predicate", warnings=warnings) == set()
    assert warnings and ctx.computed(VOCABULARY)  # fell back to the vocabulary, for a hint


# -- values computed once per graph, within each call's deadline --------------------------------
def test_a_value_not_ready_by_the_deadline_is_unavailable_and_goes_on_being_computed() -> None:
    ctx = Gateway.open(DEMO).context_for(None)
    release = threading.Event()

    def slow() -> str:
        release.wait(30)
        return "counted"

    with deadlines.within(0.3), pytest.raises(Unavailable) as refused:
        ctx.memo(MemoKey("slow_count"), slow)  # told so while `slow` still waits
    assert refused.value.retry_after is not None and "slow count" in refused.value.message
    release.set()
    with deadlines.within(5):
        assert ctx.memo(MemoKey("slow_count"), slow) == "counted"  # the same computation, finished: not started again


def test_a_failed_computation_is_tried_again() -> None:
    ctx = Gateway.open(DEMO).context_for(None)
    tries = []

    def flaky() -> int:
        tries.append(1)
        if len(tries) == 1:
            raise UpstreamError("the store failed")
        return 7

    with pytest.raises(UpstreamError):
        ctx.memo(MemoKey("flaky"), flaky)
    assert ctx.memo(MemoKey("flaky"), flaky) == 7


def test_values_keyed_by_what_callers_name_are_bounded() -> None:
    ctx = Gateway.open(DEMO).context_for(None)
    for i in range(CALLER_KEYS + 50):
        ctx.memo(MemoKey("probe", (f"http://example.org/p{i}",)), lambda: True)
    assert len(ctx._caller_named) == CALLER_KEYS


def test_values_under_the_codes_own_keys_are_bounded_too() -> None:
    ctx = Gateway.open(DEMO).context_for(None)
    for i in range(OWN_KEYS + 50):
        assert ctx.memo(MemoKey(f"value_{i}"), lambda i=i: i) == i
    assert len(ctx._memo) == OWN_KEYS


def test_a_new_scope_of_a_large_store_answers_within_its_deadline() -> None:
    """A reader's first call on 400,000 quads in four graphs: the scope's statistics are
    counted once (in SPARQL that took 2.6 s here, minutes on larger stores); the call does
    not wait for the count past its deadline (it is told so while the count goes on), and a
    call after the count is answered from it."""
    store = ox.Store()
    label, kind, link = (ox.NamedNode(p) for p in ("http://www.w3.org/2000/01/rdf-schema#label",
                                                    "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                                                    "http://example.org/links"))
    graphs = [ox.NamedNode(f"http://example.org/g{i}") for i in range(4)]
    store.bulk_extend(
        quad for i in range(100_000) for quad in (
            ox.Quad(ox.NamedNode(f"http://example.org/e{i}"), label, ox.Literal(f"entity {i}"), graphs[i % 4]),
            ox.Quad(ox.NamedNode(f"http://example.org/e{i}"), kind, ox.NamedNode(f"http://example.org/T{i % 7}"),
                    graphs[i % 4]),
            ox.Quad(ox.NamedNode(f"http://example.org/e{i}"), link, ox.NamedNode(f"http://example.org/e{(i * 31) % 100_000}"),
                    graphs[(i + 1) % 4]),
            ox.Quad(ox.NamedNode(f"http://example.org/e{i}"), link, ox.NamedNode(f"http://example.org/e{(i * 7) % 100_000}"),
                    graphs[(i + 2) % 4]),
        )
    )
    gateway = Gateway.open(store)
    reader = Reader("r", (graphs[0].value, graphs[1].value))
    alone = ox.Store()
    alone.bulk_extend(q for q in store if q.graph_name in graphs[:2])
    expected = Gateway.open(alone).call("describe_schema", {}, deadline=300)
    with pytest.raises(Unavailable) as refused:
        gateway.call("describe_schema", {}, reader=reader, deadline=0.1)
    assert refused.value.retry_after is not None
    assert not gateway.context_for(reader).computed(STATISTICS)  # told before the count was done
    later = None
    for _ in range(240):  # the count goes on without a caller
        try:
            later = gateway.call("describe_schema", {}, reader=reader, deadline=1.0)
            break
        except Unavailable:
            time.sleep(0.5)
    assert later == expected


def test_tables_naming_predicates_that_are_not_there_keep_nothing_past_the_bound() -> None:
    """500 tables naming unknown predicates once left 503 values for the life of the process."""
    gateway = Gateway.open(DEMO)
    for i in range(500):
        with pytest.raises(InvalidInput, match="no such predicate"):
            gateway.call("tabulate", {"type": "sh:Person", "columns": {"x": f"<https://example.org/nothing{i}>"}})
    ctx = gateway.context
    assert len(ctx._memo) < 50 and len(ctx._caller_named) <= CALLER_KEYS
