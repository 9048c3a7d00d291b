"""What an agent reads about Wikidata statements and entities: labels in a language chain
(`mul`), qualifiers and references apart, typed values (a quantity's unit).

Expectations are counted from the raw triples with pyoxigraph's triple patterns, never
with the profile's own templates. "Today's" Q42 is built from the stored export the way
Wikidata has written labels since 2024: one `@mul` label where every language agreed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.profiles.wikidata import WikidataProfile
from gateway.settings import Settings
from tests.conftest import listed_edges, listed_nodes, shared_data

WD = "http://www.wikidata.org/entity/"
CLAIM = "http://www.wikidata.org/prop/"
WIKIBASE = "http://wikiba.se/ontology#"
PROV = "http://www.w3.org/ns/prov#wasDerivedFrom"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
NAMES = (RDFS_LABEL, "http://www.w3.org/2004/02/skos/core#prefLabel", "http://schema.org/name")
SCHEMA = "http://schema.org/"
EVERY = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
EXPORTS = [
    (("wikidata", "Q42.ttl"), False),
    (("wikidata", "RdfRepositoryUpdaterIntegrationTest.Q42-munged.ttl"), False),
    (("wikidata", "RdfRepositoryUpdaterIntegrationTest.Q513-munged.ttl"), True),
    (("wikidata", "Q37599471.ttl"), False),
]


def load(parts: tuple[str, str], lenient: bool = False) -> ox.Store:
    store = ox.Store()
    store.load(path=str(shared_data(*parts)), format=ox.RdfFormat.TURTLE, lenient=lenient)
    return store


def gateway_of(store: ox.Store, parts: tuple[str, str], settings: Settings | None = None) -> Gateway:
    backend = EmbeddedBackend.from_store(store, prefixes=scan_prefixes(shared_data(*parts)))
    return Gateway(backend, profile=WikidataProfile, settings=settings)


def term(node: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> str:
    return node.value if isinstance(node, ox.NamedNode) else str(node)


def item_statements(store: ox.Store, entity: str) -> dict[str, str]:
    """Statement node IRI -> claim property ID ("P69") of the entity's entity-valued claims."""
    found = {}
    for quad in store.quads_for_pattern(ox.NamedNode(WD + entity), None, None):
        name = quad.predicate.value[len(CLAIM):]
        if not quad.predicate.value.startswith(CLAIM) or "/" in name or name == "P31":
            continue
        for value in store.quads_for_pattern(quad.object, ox.NamedNode(CLAIM + "statement/" + name), None):
            if isinstance(value.object, ox.NamedNode) and value.object.value.startswith(WD) \
                    and not value.object.value.startswith(WD + "statement/"):
                found[quad.object.value] = name
    return found


def properties_of(store: ox.Store, node: ox.NamedNode, namespace: str, value_namespace: str) -> Counter[str]:
    """Property ID -> values of one node in a qualifier or reference namespace, a typed
    value (value node) and its plain literal counted once."""
    plain: dict[str, set[str]] = defaultdict(set)
    typed: Counter[str] = Counter()
    for quad in store.quads_for_pattern(node, None, None):
        iri = quad.predicate.value
        if iri.startswith(value_namespace):
            typed[iri[len(value_namespace):]] += 1
        elif iri.startswith(namespace) and "/" not in iri[len(namespace):]:
            plain[iri[len(namespace):]].add(term(quad.object))
    counts = Counter({p: len(v) for p, v in plain.items()})
    for p, n in typed.items():
        counts[p] = max(counts[p], n)
    return counts


def _order(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items())


def shown_counts(groups: dict[str, list[Any]] | None, prefix: str) -> Counter[str]:
    return Counter({key.removeprefix(prefix): len(values) for key, values in (groups or {}).items()})


# -- qualifiers and references apart ---------------------------------------------------------
@pytest.mark.parametrize(("parts", "lenient"), EXPORTS)
def test_references_are_one_group_each_and_qualifiers_apart(parts: tuple[str, str], lenient: bool) -> None:
    store = load(parts, lenient)
    gateway = gateway_of(store, parts)
    entity = next(q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(SCHEMA + "about"), None)
                  if q.object.value.startswith(WD))[len(WD):]
    statements = item_statements(store, entity)
    assert statements
    walk = gateway.bfs_query(seeds=[f"wd:{entity}"], max_hops=1, direction="out", truth_status=EVERY,
                             edge_filter={"predicates": sorted({f"wdt:{p}" for p in statements.values()})},
                             max_edges=50_000, max_nodes=10_000)
    edges = {e.id: e for e in listed_edges(walk) if e.subject == f"wd:{entity}"}
    to_id = gateway.context.ids.to_id
    assert set(edges) == {to_id(s) for s in statements}
    with_several = 0
    for statement in statements:
        edge = edges[to_id(statement)]
        node = ox.NamedNode(statement)
        references = [q.object for q in store.quads_for_pattern(node, ox.NamedNode(PROV), None)]
        assert len(edge.references or []) == len(set(references)), statement
        expected = sorted((properties_of(store, r, CLAIM + "reference/", CLAIM + "reference/value/") for r in set(references)),
                          key=_order)
        assert sorted((shown_counts(g, "pr:") for g in edge.references or []), key=_order) == expected, statement
        qualifiers = properties_of(store, node, CLAIM + "qualifier/", CLAIM + "qualifier/value/")
        for quad in store.quads_for_pattern(node, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), None):
            if quad.object.value.startswith(CLAIM + "novalue/"):
                qualifiers[quad.object.value[len(CLAIM + "novalue/"):]] += 1
        assert shown_counts(edge.qualifiers, "pq:") == qualifiers, statement
        rank = next(store.quads_for_pattern(node, ox.NamedNode(WIKIBASE + "rank"), None)).object.value
        assert edge.rank == rank[len(WIKIBASE):-len("Rank")].lower()
        assert edge.provenance is None  # nothing left pooled
        with_several += len(references) > 1
    if parts[1] == "Q42.ttl":
        assert with_several >= 10  # the statements whose references a pooled dict could not tell apart


@pytest.mark.parametrize(("parts", "lenient"), EXPORTS)
def test_quantities_keep_their_unit_and_bounds(parts: tuple[str, str], lenient: bool) -> None:
    """Every quantity value node of the entity's literal claims shows as amount + unit."""
    store = load(parts, lenient)
    gateway = gateway_of(store, parts)
    subject = next(q.object for q in store.quads_for_pattern(None, ox.NamedNode(SCHEMA + "about"), None)
                   if q.object.value.startswith(WD))
    properties = gateway.describe_entity(subject.value).properties or {}
    expected: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for claim in store.quads_for_pattern(subject, None, None):
        name = claim.predicate.value[len(CLAIM):]
        if not claim.predicate.value.startswith(CLAIM) or "/" in name:
            continue
        rank = next(store.quads_for_pattern(claim.object, ox.NamedNode(WIKIBASE + "rank"), None)).object.value
        for value in store.quads_for_pattern(claim.object, ox.NamedNode(CLAIM + "statement/value/" + name), None):
            fields = {q.predicate.value[len(WIKIBASE):]: q.object for q in store.quads_for_pattern(value.object, None, None)}
            if "quantityAmount" in fields and not rank.endswith("DeprecatedRank"):
                unit = fields["quantityUnit"].value
                expected[f"wdt:{name}"].append({"amount": float(fields["quantityAmount"].value),
                                                "unit": None if unit == WD + "Q199" else "wd:" + unit[len(WD):]})
    shown = {
        p: [{"amount": float(v["amount"]), "unit": v.get("unit")} for v in
            ((x.get("value", x)) for x in values if isinstance(x, dict))
            if isinstance(v, dict) and "amount" in v]
        for p, values in properties.items()
    }
    for p, values in expected.items():
        assert sorted(shown[p], key=str) == sorted(values, key=str), p
    if parts[1] == "Q42.ttl":
        assert expected["wdt:P2048"] == [{"amount": 1.96, "unit": "wd:Q11573"}]  # 1.96 metre


# -- labels: the language chain ----------------------------------------------------------------
PAINTER, NAMESAKE = "Q21454969", "Q99999999"


def todays_q42(path: Path) -> Path:
    """Q42 as Wikidata writes it today: "Douglas Adams" once as @mul (no @en, and no other
    language repeating it); its namesake the painter (wd:Q21454969, already named in Q42's
    P1889 "different from") with an @en label and one sitelink; and an invented namesake
    with no sitelink but more statements than Q42 (so only sitelinks put Q42 first)."""
    store = load(("wikidata", "Q42.ttl"))
    q42 = ox.NamedNode(WD + "Q42")
    for predicate in NAMES:
        for quad in list(store.quads_for_pattern(q42, ox.NamedNode(predicate), None)):
            if quad.object.value == "Douglas Adams" or quad.object.language in ("en", "en-gb", "en-ca"):
                store.remove(quad)
        store.add(ox.Quad(q42, ox.NamedNode(predicate), ox.Literal("Douglas Adams", language="mul")))
    lines = []
    for entity, label, sitelinks, claims in ((PAINTER, "British painter", 1, 1), (NAMESAKE, "namesake", 0, 400)):
        lines.append(f'<{WD}{entity}> <{RDFS_LABEL}> "Douglas Adams"@en ; <{SCHEMA}description> "{label}"@en .')
        lines.append(f'<https://www.wikidata.org/wiki/Special:EntityData/{entity}> <{SCHEMA}about> <{WD}{entity}> ; '
                     f'<{WIKIBASE}sitelinks> "{sitelinks}"^^<http://www.w3.org/2001/XMLSchema#integer> .')
        for i in range(claims):
            statement = f"{WD}statement/{entity}-{i}"
            lines.append(f"<{WD}{entity}> <{CLAIM}P1344> <{statement}> .")
            lines.append(f"<{statement}> <{WIKIBASE}rank> <{WIKIBASE}NormalRank> ; <{CLAIM}statement/P1344> <{WD}Q{1000 + i}> .")
    store.load("\n".join(lines).encode(), format=ox.RdfFormat.TURTLE)
    path.write_bytes(ox.serialize(store, format=ox.RdfFormat.N_QUADS))
    return path


@pytest.fixture(scope="module")
def today(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return todays_q42(tmp_path_factory.mktemp("today") / "q42-today.nq")


def open_today(path: Path, settings: Settings | None = None) -> Gateway:
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_QUADS)
    return gateway_of(store, ("wikidata", "Q42.ttl"), settings)


def test_a_mul_label_names_an_entity_without_an_english_one(today: Path) -> None:
    gateway = open_today(today)
    douglas = gateway.describe_entity("wd:Q42")
    assert douglas.label == "Douglas Adams"
    walk = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, layout="compact")
    assert "Douglas Adams" in str(walk.model_dump())
    # English alone (no mul): the chain falls to "any" language, and the name is lost.
    english = open_today(today, Settings(languages=("en",))).describe_entity("wd:Q42")
    assert english.label != "Douglas Adams"


def test_search_ranks_equal_names_by_sitelinks_then_statements(today: Path) -> None:
    gateway = open_today(today)
    hits = gateway.search_entities("Douglas Adams").results
    assert [h.id for h in hits[:3]] == ["wd:Q42", f"wd:{PAINTER}", f"wd:{NAMESAKE}"]
    assert all(h.match == "exact_label" for h in hits[:3])
    assert hits[0].label == "Douglas Adams"
    # Without sitelinks (the degree alone), the invented namesake's 400 statements would win.
    degrees = {h.id: h.degree for h in hits[:3]}
    assert degrees[f"wd:{NAMESAKE}"] > degrees["wd:Q42"] > degrees[f"wd:{PAINTER}"]


def test_aliases_follow_the_chain(today: Path) -> None:
    """Aliases in a wanted language (or none) are shown, others are not."""
    store = ox.Store()
    store.load(path=str(today), format=ox.RdfFormat.N_QUADS)
    aliases = defaultdict(set)
    alt_label = ox.NamedNode("http://www.w3.org/2004/02/skos/core#altLabel")
    for quad in store.quads_for_pattern(ox.NamedNode(WD + "Q42"), alt_label, None):
        aliases[quad.object.language].add(quad.object.value)
    shown = set(open_today(today).describe_entity("wd:Q42").alt_labels or [])
    wanted = {
        a for language, values in aliases.items() if language in ("en", "mul") or language.startswith("en-") for a in values
    }
    assert shown == wanted and wanted


def test_nodes_in_a_walk_are_labelled_in_the_chain(today: Path) -> None:
    gateway = open_today(today)
    nodes = {n.id: n for n in listed_nodes(gateway.bfs_query(seeds=[f"wd:{PAINTER}"], max_hops=1, direction="in"))}
    assert nodes["wd:Q42"].label == "Douglas Adams"


# -- valid_at: open bounds are marked ------------------------------------------------------------
def test_valid_at_marks_the_bounds_a_statement_does_not_state() -> None:
    parts = ("wikidata", "Q42.ttl")
    store = load(parts)
    gateway = gateway_of(store, parts)
    walk = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, direction="out", valid_at=1960, topology_only=False)
    to_id = gateway.context.ids.to_id
    qualifier = CLAIM + "qualifier/"
    marked = 0
    for statement in item_statements(store, "Q42"):
        edge = next((e for e in listed_edges(walk) if e.id == to_id(statement)), None)
        if edge is None:
            continue
        stated = {
            q.predicate.value[len(qualifier) :]
            for q in store.quads_for_pattern(ox.NamedNode(statement), None, None)
            if q.predicate.value.startswith(qualifier)
        }
        expected = [bound for bound, names in (("start", {"P580", "P585"}), ("end", {"P582", "P585"})) if not stated & names]
        assert (edge.open_bounds or []) == expected, statement
        marked += bool(expected) and len(expected) < 2
    residences = [e for e in listed_edges(walk) if e.predicate == "wdt:P551" and e.object == "wd:Q159288"]
    assert [e.open_bounds for e in residences] == [["start"]]  # Santa Barbara: ended 2001, start unknown
    assert marked >= 1
    # Without valid_at nothing is marked.
    plain = gateway.bfs_query(seeds=["wd:Q42"], max_hops=1, direction="out", topology_only=False)
    assert all(e.open_bounds is None for e in listed_edges(plain))


NOVALUE_PARTY = """
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wds: <http://www.wikidata.org/entity/statement/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix pq: <http://www.wikidata.org/prop/qualifier/> .
@prefix wdno: <http://www.wikidata.org/prop/novalue/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
wd:Q1 rdfs:label "a politician"@en ; p:P102 wds:none, wds:party ; p:P39 wds:office .
wds:none a wikibase:Statement, wdno:P102 ; wikibase:rank wikibase:NormalRank ;
  pq:P580 "2021-01-01T00:00:00Z"^^xsd:dateTime ; pq:P582 "2022-01-01T00:00:00Z"^^xsd:dateTime .
wds:party a wikibase:Statement ; wikibase:rank wikibase:NormalRank ; ps:P102 wd:Q2 ;
  pq:P580 "1990-01-01T00:00:00Z"^^xsd:dateTime ; pq:P582 "2020-12-31T00:00:00Z"^^xsd:dateTime .
wds:office a wikibase:Statement ; wikibase:rank wikibase:NormalRank ; ps:P39 wd:Q3 .
wd:Q2 rdfs:label "a party"@en .
wd:Q3 rdfs:label "an office"@en .
"""


def test_novalue_keeps_its_qualifiers_and_obeys_valid_at() -> None:
    store = ox.Store()
    store.load(NOVALUE_PARTY.encode(), format=ox.RdfFormat.TURTLE)
    gateway = Gateway(EmbeddedBackend.from_store(store), profile=WikidataProfile)
    none = {
        "value": "novalue",
        "id": "wds:none",
        "qualifiers": {"pq:P580": ["2021-01-01T00:00:00Z"], "pq:P582": ["2022-01-01T00:00:00Z"]},
    }
    assert (gateway.describe_entity("wd:Q1").properties or {})["wdt:P102"] == [none]
    for year, shown in ((1960, False), (2021, True), (2023, False)):
        walk = gateway.bfs_query(seeds=["wd:Q1"], max_hops=1, valid_at=year)
        politician = next(n for n in listed_nodes(walk) if n.id == "wd:Q1")
        assert ((politician.properties or {}).get("wdt:P102") == [none]) is shown, year
        # The item-valued party statement obeys the same rule as an edge.
        assert any(e.object == "wd:Q2" for e in listed_edges(walk)) is (1990 <= year <= 2020), year
    # An office with no dates is kept at any time, marked as known through neither bound.
    office = next(e for e in listed_edges(gateway.bfs_query(seeds=["wd:Q1"], max_hops=1, valid_at=1960)) if e.object == "wd:Q3")
    assert office.open_bounds == ["start", "end"]


def test_text_in_another_language_says_which() -> None:
    """Text in the reader's language is plain; in another, `{text, language}` (P1477, birth
    name, is a monolingual text in English)."""
    parts = ("wikidata", "Q42.ttl")
    english = gateway_of(load(parts), parts).describe_entity("wd:Q42").properties or {}
    german = gateway_of(load(parts), parts, Settings(languages=("de", "mul"))).describe_entity("wd:Q42").properties or {}
    assert english["wdt:P1477"] == ["Douglas Noël Adams"]
    assert german["wdt:P1477"] == [{"text": "Douglas Noël Adams", "language": "en"}]
