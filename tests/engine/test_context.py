"""GraphContext: naming a predicate by its ID is checked with one probe, and the probe
agrees with the whole-graph vocabulary it stands in for."""

from __future__ import annotations

import random

import pytest

from gateway import Gateway
from gateway.engine.names import VOCABULARY, resolve_terms, vocabulary
from gateway.profiles.base import NON_EDGE_PREDICATES
from tests.conftest import DEMO, gateway_from_ntriples
from tests.synth import random_graph


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
