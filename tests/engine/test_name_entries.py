"""What the name index is made of (`collect`), against SPARQL over the same store: on random
graphs whose names repeat through several predicates and graphs, each entity's names are
the distinct ones a SPARQL DISTINCT finds, in IRI order, and the entities kept are those a
name, a readable local name with a degree, or a searched value with a type keeps."""

from __future__ import annotations

import random
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.backends.embedded import EmbeddedBackend
from gateway.engine.context import GraphContext
from gateway.engine.name_entries import collect, own_name, readable_name
from gateway.ids import IdMapper, build_converter, local_name
from gateway.profiles.native import NativeProfile

EX = "http://example.org/"
LABELS = ["http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel",
          "https://schema.org/name"]
ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
DESCRIPTION = "http://www.w3.org/2000/01/rdf-schema#comment"
CITY = EX + "city"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
KINDS = {**dict.fromkeys(LABELS, "label"), ALT: "alt", DESCRIPTION: "description"}
NAMESPACES = [EX, "http://purl.obolibrary.org/obo/", "http://purl.obolibrary.org/obo/HP_", "http://www.wikidata.org/entity/",
              "https://example.org/wiki/", "urn:x:", "http://example.org/a/b#", "http://vocab.example/"]
"""Nested namespaces, a scheme named like a prefix, ones the project's map knows."""


def random_graph(seed: int, *, texts: bool = True) -> str:
    """Named, valued, typed and linked entities; without `texts`, only typed and linked."""
    rng = random.Random(seed)
    words = ["Paris", "paris", "Lyon", "Jane Doe", "Cushing's disease", "Ötzi", "x"]
    entities = [f"{EX}{rng.choice(['e', 'Jane_Doe', 'D00', 'Alpha_Beta'])}{n}" for n in range(40)]
    lines = []
    for x in entities:
        graph = f"<{EX}g{rng.randint(1, 2)}>"
        for _ in range(rng.randint(0, 3) if texts else 0):  # a name through one predicate or several, in one graph or two
            p = rng.choice([*LABELS, ALT, DESCRIPTION])
            text = rng.choice(words)
            literal = f'"{text}"' + rng.choice(["", "@en", "@fr"])
            lines += [f"<{x}> <{p}> {literal} {graph} .", *([f"<{x}> <{p}> {literal} <{EX}g3> ."] * rng.randint(0, 1))]
        if rng.random() < 0.4 and texts:
            lines.append(f'<{x}> <{CITY}> "{rng.choice(words)}" {graph} .')
        if rng.random() < 0.5:
            lines.append(f"<{x}> <{TYPE}> <{EX}Class{rng.randint(1, 2)}> {graph} .")
        if rng.random() < 0.5:
            lines.append(f"<{x}> <{EX}knows> <{rng.choice(entities)}> {graph} .")
    return "\n".join(lines)


def _select(store: ox.Store, query: str) -> list[ox.QuerySolution]:
    solutions = store.query(query, use_default_graph_as_union=True)
    assert isinstance(solutions, ox.QuerySolutions)
    return list(solutions)


@pytest.mark.parametrize("texts", [True, False], ids=["texts", "no text"])
@pytest.mark.parametrize("seed", range(6))
def test_each_entity_has_its_distinct_names_and_the_entities_kept_are_those_told(
    seed: int, texts: bool, tmp_path: Path,
) -> None:
    store = ox.Store()
    store.load(random_graph(seed, texts=texts).encode(), format=ox.RdfFormat.N_QUADS)
    backend = EmbeddedBackend(store)
    entries = list(collect(GraphContext(backend, NativeProfile(backend)), beside=tmp_path))
    assert not list(tmp_path.iterdir())  # the scratch file's name is gone
    assert [e.iri for e in entries] == sorted({e.iri for e in entries})  # IRI order, each once

    names: dict[str, set[tuple[str, str, str | None]]] = {}
    for row in _select(store, "SELECT DISTINCT ?x ?p ?text WHERE { ?x ?p ?text FILTER(isLiteral(?text)) }"):
        if row["p"].value in KINDS:
            text = row["text"]
            names.setdefault(row["x"].value, set()).add((KINDS[row["p"].value], text.value, text.language))
    typed = {row["x"].value for row in _select(store, "SELECT DISTINCT ?x WHERE { ?x a ?t }")}
    valued = {row["x"].value for row in _select(store, f"SELECT DISTINCT ?x WHERE {{ ?x <{CITY}> ?v }}")}
    linked = {row["x"].value for row in _select(
        store, f"SELECT DISTINCT ?x WHERE {{ {{ ?x <{EX}knows> ?y }} UNION {{ ?y <{EX}knows> ?x }} }}")}
    readable = {x for x in linked if "Jane_Doe" in x or "Alpha_Beta" in x}

    by_iri = {e.iri: e for e in entries}
    assert set(by_iri) == set(names) | readable | (valued & typed)
    for iri, entry in by_iri.items():
        told = [(kind, text, language) for kind, text, language in entry.texts if kind != "value"]
        own = [t for t in told if t[0] == "alt" and t[2] is None and t[1] == iri.rsplit("/", 1)[1].replace("_", " ")]
        assert len(told) == len(set(told))  # a name read twice (another predicate, another graph) once
        assert set(told) - set(own) == names.get(iri, set()), iri
        assert bool(own) == ("Jane_Doe" in iri or "Alpha_Beta" in iri), iri  # a readable local name, kept or not
        assert bool([t for t in entry.texts if t[0] == "value"]) == (iri in valued), iri
        assert entry.label is not None or not any(kind == "label" for kind, _, _ in told)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    declared=st.dictionaries(st.sampled_from(["hp", "obo", "ex", "wd", "x"]), st.sampled_from(NAMESPACES), max_size=4),
    vocabulary=st.one_of(st.none(), st.sampled_from(NAMESPACES)),
    iris=st.lists(st.tuples(st.sampled_from(NAMESPACES), st.text("Jan_eDo1:/é\u200b<#", max_size=9)), max_size=30),
)
def test_a_readable_local_name_is_the_ids_whichever_way_it_is_found(
    declared: dict[str, str], vocabulary: str | None, iris: list[tuple[str, str]],
) -> None:
    """`own_name` skips the ID where the IRI's own local name holds no word, and `many_ids`
    skips the prefix map for namespaces it met: neither may change a name the index keeps."""
    ids = IdMapper(build_converter(declared), vocabulary=vocabulary)
    written = [namespace + local for namespace, local in iris]
    many = IdMapper(ids.converter, vocabulary=vocabulary).many_ids()
    assert [own_name(iri, many) for iri in written] == [readable_name(local_name(ids.to_id(iri))) for iri in written]
