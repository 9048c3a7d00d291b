"""The book's bridge between graphs: an agent in the medlit bundle carries an entity's
canonical IDs into a gateway over another graph, and back, with nothing else in common.

The other graph is MONDO (cellxgene-ontology-guide) with biomappings' curated mappings
(`support/mappings.py`), which write MeSH as `https://meshb.nlm.nih.gov/record/ui?ui=`
where medlit's entities are `http://id.nlm.nih.gov/mesh/`: the two stores share no IRI.
Oracles: the SSSOM rows themselves, and SPARQL (pyoxigraph) over the graph's own file.
Run on the file, a `bfsql load` store directory and `oxigraph serve`.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.authorities import parse_id
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.errors import NotFound
from gateway.loading import load_store
from support.mappings import SKOS, Mapping, expand, mondo_with_mappings
from support.servers import OxigraphServer
from tests.conftest import shared_data

MEDLIT_MESH = "http://id.nlm.nih.gov/mesh/"


@pytest.fixture(scope="module")
def mondo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Mapping], dict[str, str]]:
    cache = Path(os.environ.get("BFSQL_DATA_CACHE", tmp_path_factory.mktemp("mappings")))
    try:
        return mondo_with_mappings(cache)
    except subprocess.CalledProcessError as error:  # no package index reachable
        if os.environ.get("CI"):
            raise
        pytest.skip(f"biomappings could not be downloaded: {error.stderr.decode(errors='replace')[-300:]}")


@pytest.fixture(scope="module", params=["file", "store directory", "oxigraph serve"])
def mondo_gateway(request: pytest.FixtureRequest, mondo: tuple[Path, list[Mapping], dict[str, str]],
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    path = mondo[0]
    if request.param == "file":
        yield Gateway(EmbeddedBackend.open(path))
    elif request.param == "store directory":
        directory = tmp_path_factory.mktemp("mondo-store")
        load_store([path], directory, show_progress=False)
        yield Gateway(EmbeddedBackend.open(directory))
    else:
        server = OxigraphServer([path])
        try:
            yield Gateway(RemoteBackend(EndpointConfig(url=server.url)))
        finally:
            server.stop()


@pytest.fixture(scope="module")
def mondo_store(mondo: tuple[Path, list[Mapping], dict[str, str]]) -> ox.Store:
    store = ox.Store()
    store.bulk_load(path=str(mondo[0]), format=ox.RdfFormat.N_TRIPLES)
    return store


def medlit_mesh() -> set[str]:
    """The medlit bundle's MeSH entities, as the bundle names them."""
    with open(shared_data("medlit", "entities.jsonl"), encoding="utf-8") as handle:
        return {e["entity_id"] for e in map(json.loads, handle) if e["entity_id"].startswith("MeSH:")}


def crossings(mappings: list[Mapping], predicate: str) -> dict[str, str]:
    """medlit MeSH ID -> the MONDO term a curated `predicate` row pairs it with."""
    held = medlit_mesh()
    found: dict[str, str] = {}
    for row in mappings:
        if row.predicate != predicate:
            continue
        for mesh, other in ((row.subject, row.object), (row.object, row.subject)):
            if mesh.startswith("mesh:") and other.startswith("mondo:") and f"MeSH:{mesh[5:]}" in held:
                found[f"MeSH:{mesh[5:]}"] = "MONDO:" + other[6:]
    return found


def linking(store: ox.Store, url: str) -> set[str]:
    """The oracle: entities with an identity link to `url`, asked of the file itself."""
    rows = store.query(f"SELECT ?x WHERE {{ ?x <{SKOS}exactMatch> <{url}> }}")
    return {row["x"].value for row in rows}  # type: ignore[index, union-attr]


def test_the_round_trip(medlit_gateway: Gateway, mondo_gateway: Gateway, mondo_store: ox.Store,
                        mondo: tuple[Path, list[Mapping], dict[str, str]]) -> None:
    """Every medlit MeSH entity the curators matched exactly to MONDO: its canonical IDs
    from medlit's describe_entity reach that MONDO term in the other gateway (as the
    mappings and the file say), and the MONDO term's canonical IDs reach it back."""
    _, mappings, curie_map = mondo
    pairs = crossings(mappings, "skos:exactMatch")
    assert len(pairs) >= 3, pairs
    for mesh, term in sorted(pairs.items()):
        # In medlit: the entity and the IDs it is known by.
        there = medlit_gateway.describe_entity(mesh)
        assert there.id == mesh
        assert mesh in (there.same_as or [])
        # Carried over: each ID names the MONDO term, as the file says.
        url = expand(mesh.replace("MeSH:", "mesh:"), curie_map)
        assert url is not None
        oracle = {parse_id(x).curie for x in linking(mondo_store, url)}  # type: ignore[union-attr]
        assert oracle == {term}
        for carried in there.same_as or []:
            here = mondo_gateway.describe_entity(carried)
            assert here.id == term, carried
            assert any(f'"{mesh}" identifies {term}' in w for w in here.warnings or []), here.warnings
        # And back: the MONDO term lists the MeSH ID, which names the medlit entity.
        back = mondo_gateway.describe_entity(term)
        assert mesh in (back.same_as or [])
        assert {medlit_gateway.describe_entity(x).id for x in back.same_as or [] if x.startswith("MeSH:")} == {mesh}


def test_a_walk_crosses_as_the_term_itself(mondo_gateway: Gateway, mondo: tuple[Path, list[Mapping], dict[str, str]]) -> None:
    """A walk from the carried MeSH ID is the walk from the MONDO term it names."""
    mesh, term = sorted(crossings(mondo[1], "skos:exactMatch").items())[0]
    arguments = {"max_hops": 2, "predicates": ["rdfs:subClassOf"], "direction": "out", "topology_only": True}
    by_id = mondo_gateway.call("bfs_query", {"seeds": [mesh], **arguments}).model_dump()
    direct = mondo_gateway.call("bfs_query", {"seeds": [term], **arguments}).model_dump()
    assert by_id["seeds"] == [term]
    assert by_id["nodes"] == direct["nodes"] and by_id["edges"] == direct["edges"]
    assert direct["node_count"] > 1


def test_a_narrower_match_is_no_identity(mondo_gateway: Gateway, mondo: tuple[Path, list[Mapping], dict[str, str]]) -> None:
    """`skos:narrowMatch` pairs a MeSH term with a broader MONDO class: not the same thing,
    so the MeSH ID names nothing in the MONDO graph, and the answer says so."""
    narrower = crossings(mondo[1], "skos:narrowMatch")
    exact = crossings(mondo[1], "skos:exactMatch")
    only_narrower = sorted(set(narrower) - set(exact))
    assert only_narrower
    for mesh in only_narrower:
        with pytest.raises(NotFound):
            mondo_gateway.describe_entity(mesh)


def test_without_a_link_the_name_still_finds_it(mondo_gateway: Gateway, mondo_store: ox.Store) -> None:
    """The book's Cushing syndrome (MeSH:D003480): no curated row links it to MONDO (MONDO's
    own cross-references are not in this release), so the ID names nothing there, truthfully;
    a search by its medlit name finds the MONDO term with that label."""
    assert not linking(mondo_store, "https://meshb.nlm.nih.gov/record/ui?ui=D003480")
    with pytest.raises(NotFound):
        mondo_gateway.describe_entity("MeSH:D003480")
    labelled = {row["x"].value for row in mondo_store.query(  # type: ignore[index, union-attr]
        'SELECT ?x WHERE { ?x <http://www.w3.org/2000/01/rdf-schema#label> "Cushing syndrome" }')}
    hits = mondo_gateway.call("search_entities", {"query": "Cushing syndrome", "limit": 3}).model_dump()["results"]
    assert {mondo_gateway.context.ids.to_id(x) for x in labelled} == {hits[0]["id"]}


def test_a_walk_from_the_carried_id_costs_one_query_more(mondo_gateway: Gateway,
                                                          mondo: tuple[Path, list[Mapping], dict[str, str]]) -> None:
    """MeSH is a namespace the project's prefix map names, yet in this graph its IDs are
    identifier nodes: where the store is read in process, that is seen before walking, so
    the walk asks one query more than from the term itself, not a wasted walk and three."""
    if mondo_gateway.backend.capabilities.quads is None:
        pytest.skip("an endpoint's namespaces are told by its prefixes: see docs/canonical-ids.md")
    mesh, term = sorted(crossings(mondo[1], "skos:exactMatch").items())[0]
    mondo_gateway.call("bfs_query", {"seeds": [term]})  # the graph's probes, asked once by any first walk
    counts = []
    for seed in (term, mesh):
        asked: list[str] = []
        mondo_gateway.backend.query_log = lambda query, rows, log=asked: log.append(query)  # type: ignore[attr-defined]
        try:
            mondo_gateway.call("bfs_query", {"seeds": [seed], "max_hops": 2, "topology_only": True})
        finally:
            mondo_gateway.backend.query_log = None  # type: ignore[attr-defined]
        counts.append(len(asked))
    assert counts[1] <= counts[0] + 1, counts
