"""gateway.importers: a JSON-lines bundle as RDF 1.2, checked against the bundle's own rows.

The real bundle is read from ../shared/data/medlit (these tests skip only where that
folder is absent); the malformed bundles are small fixtures in tests/resources/bundles/.
Every expectation is computed from the JSON rows, not copied from the gateway.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from gateway import Gateway, InvalidInput
from gateway.demos.medlit import run_medlit_demo
from gateway.importers.bundle import (
    bundle_prefixes,
    import_bundle,
    import_bundle_command,
    load_bundle_store,
    load_into_store,
    open_bundle,
)
from gateway.importers.bundle_model import BOOKKEEPING, BundleReport, statement_iri
from gateway.models import TRUTH_STATUSES, Subgraph
from tests.conftest import listed_edges, listed_nodes, shared_data

ALL = list(TRUTH_STATUSES)
FIXTURES = Path(__file__).parents[1] / "resources" / "bundles"
SEED = "RxNorm:3251"
CUSHING = "DBPedia:Cushing's_disease"
HYPOTHETICAL_TRUST = {"suggested", "speculative"}
# Fields mapped to something other than a bundle:<field> literal.
ENTITY_MAPPED = {"entity_id", "entity_type", "name", "canonical_url", "properties", "supporting_documents"}
RELATIONSHIP_MAPPED = {"subject_id", "predicate", "object_id", "confidence", "source_documents", "properties"}
EVIDENCE_FIELDS = {"document_id": "bfs:documentId", "start_offset": "bfs:startOffset",
                   "end_offset": "bfs:endOffset", "text_span": "bfs:textSpan"}


# -- the bundle, as JSON and as a graph ------------------------------------------------
def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def curie(bundle_id: str) -> str:
    """The gateway's ID for a bundle ID: the same, or PMC:<PMCID> for a bare PMCID."""
    return bundle_id if ":" in bundle_id else f"PMC:{bundle_id}"


def key(row: dict[str, Any]) -> str:
    return f"{row['subject_id']}:{row['predicate']}:{row['object_id']}"


def status(row: dict[str, Any]) -> str:
    return "hypothetical" if row["properties"].get("linguistic_trust") in HYPOTHETICAL_TRUST else "asserted_true"


class Medlit:
    """The bundle's rows."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        self.entities = jsonl(directory / "entities.jsonl")
        self.relationships = jsonl(directory / "relationships.jsonl")
        self.evidence = jsonl(directory / "evidence.jsonl")
        self.evidence_by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in self.evidence:
            self.evidence_by_key[row["relationship_key"]].append(row)
        self.papers: dict[str, dict[str, Any]] = self.manifest["metadata"]["papers"]
        # Passage IDs: each paper's distinct evidence texts numbered from 0 in file order.
        numbered: dict[str, dict[str, int]] = defaultdict(dict)
        self.passage_ids = {}
        for row in self.evidence:
            texts = numbered[row["document_id"]]
            index = texts.setdefault(row["text_span"], len(texts))
            self.passage_ids[(row["document_id"], row["text_span"])] = f"passage:{row['document_id']}-{index}"


@pytest.fixture(scope="module")
def medlit() -> Medlit:
    return Medlit(shared_data("medlit"))


@pytest.fixture(scope="module")
def imported(medlit: Medlit, tmp_path_factory: pytest.TempPathFactory) -> BundleReport:
    return import_bundle(medlit.directory, tmp_path_factory.mktemp("medlit") / "medlit.trig")


@pytest.fixture(scope="module")
def gw(imported: BundleReport) -> Gateway:
    return Gateway.open(imported.out)


def reference_walk(relationships: list[dict[str, Any]], seed: str, hops: int) -> tuple[dict[str, int], list[str]]:
    """An independent BFS over the JSON rows, both directions, with the gateway's edge
    rule: an edge is returned when both ends are in the node set and one is closer than
    `hops`. Returns (node -> hop, relationship keys)."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for r in relationships:
        neighbours[r["subject_id"]].add(r["object_id"])
        neighbours[r["object_id"]].add(r["subject_id"])
    hop = {seed: 0}
    frontier = [seed]
    for level in range(1, hops + 1):
        reached = []
        for x in frontier:
            for y in sorted(neighbours[x] - hop.keys()):
                hop[y] = level
                reached.append(y)
        frontier = reached
    edges = [key(r) for r in relationships
             if r["subject_id"] in hop and r["object_id"] in hop and min(hop[r["subject_id"]], hop[r["object_id"]]) < hops]
    return hop, edges


# -- lossless: counts -----------------------------------------------------------------
def test_the_import_counts_every_row_of_the_bundle(imported: BundleReport, medlit: Medlit) -> None:
    statuses = Counter(status(r) for r in medlit.relationships)
    assert (imported.entities, imported.statements) == (len(medlit.entities), len(medlit.relationships)) == (1900, 2184)
    assert imported.evidence == len(medlit.evidence) == 587
    assert imported.passages == len({(e["document_id"], e["text_span"]) for e in medlit.evidence})
    assert imported.provenance == sum(len(r["properties"].get("provenance", [])) for r in medlit.relationships)
    assert (imported.asserted, imported.hypothetical) == (statuses["asserted_true"], statuses["hypothetical"])
    assert imported.skipped == []
    assert imported.local_schemes == {"prov": "https://w3id.org/bfsql/bundle/medlit/prov/"}


def test_the_graph_holds_every_entity_statement_and_evidence_row(gw: Gateway, medlit: Medlit) -> None:
    schema = gw.describe_schema()
    passages = {(row["document_id"], row["text_span"]) for row in medlit.evidence}
    expected_types = Counter(e['entity_type'] for e in medlit.entities) + Counter({"bfs:Passage": len(passages)})
    assert {t.id: t.count for t in schema.entity_types} == expected_types
    expected_predicates = Counter(r['predicate'] for r in medlit.relationships) + Counter({"bfs:passageOf": len(passages)})
    schema_terms = {"rdf:type", "rdfs:subPropertyOf"}  # the bundle's typing and declarations, walked when named
    assert {p.id: p.count for p in schema.predicates if p.id not in schema_terms} == expected_predicates
    statuses = Counter(status(r) for r in medlit.relationships)
    assert schema.truth_statuses == dict(statuses + Counter({"asserted_true": len(passages)}))  # passageOf is plain
    counts = schema.statements
    assert (counts.total, counts.reified, counts.plain, counts.unasserted) == (
        2184 + len(passages), 2184, len(passages), statuses["hypothetical"])
    # Every statement, read back through scan_query: evidence links per key; the
    # bookkeeping (provenance links, creation time) only through describe_entities.
    evidence: Counter[str] = Counter()
    passages_of: dict[str, int] = {}
    provenance: Counter[str] = Counter()
    ids = []
    cursor = None
    while True:
        page = gw.scan_query(truth_status=ALL, limit=1000, cursor=cursor)
        for edge in listed_edges(page):
            ids.append(edge.id)
            data = edge.provenance or {}
            evidence[edge.id] += len(data.get("bfs:evidence", []))  # type: ignore[index]
            passages_of[edge.id] = len(data.get("bfs:evidencePassage", []))  # type: ignore[index]
            assert not {"bundle:provenance", "bundle:created_at", "bundle:evidence_count"} & set(data)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(ids) == 2184
    assert sum(evidence.values()) == len(medlit.evidence)
    # One passage link per distinct (paper, text) of the statement's evidence rows.
    assert sorted(passages_of.values()) == sorted(
        len({(row["document_id"], row["text_span"]) for row in medlit.evidence_by_key[key(r)]})
        for r in medlit.relationships)
    for start in range(0, len(ids), 100):
        for entity in gw.describe_entities(ids=ids[start : start + 100]).entities:  # type: ignore[arg-type]
            assert entity.statement is not None and entity.statement.provenance is not None
            assert "bundle:created_at" in entity.statement.provenance
            provenance[entity.id] += len(entity.statement.provenance.get("bundle:provenance", []))
    assert sum(provenance.values()) == sum(len(r["properties"].get("provenance", [])) for r in medlit.relationships)


# -- lossless: a round trip of entities and relationships ---------------------------------
def entity_sample(medlit: Medlit) -> list[dict[str, Any]]:
    """Every 23rd entity, and one of each ID scheme and type, and every entity with a
    synonym list longer than one or a non-ASCII ID."""
    picked: dict[str, dict[str, Any]] = {e["entity_id"]: e for e in medlit.entities[::23]}
    firsts: dict[str, dict[str, Any]] = {}
    for e in medlit.entities:
        scheme = e["entity_id"].split(":")[0] if ":" in e["entity_id"] else "PMC"
        firsts.setdefault(f"scheme {scheme}", e)
        firsts.setdefault(f"type {e['entity_type']}", e)
        if len(e["properties"]["synonyms"]) > 1 or not e["entity_id"].isascii() or "'" in e["entity_id"]:
            picked[e["entity_id"]] = e
    picked.update({e["entity_id"]: e for e in firsts.values()})
    return list(picked.values())


def test_entities_round_trip_with_every_field(gw: Gateway, medlit: Medlit) -> None:
    sample = entity_sample(medlit)
    assert len(sample) > 100
    described = {}
    for start in range(0, len(sample), 100):
        chunk = sample[start : start + 100]
        result = gw.describe_entities([curie(e["entity_id"]) for e in chunk])
        assert result.unresolved == []
        described.update({d.id: d for d in result.entities})
    for row in sample:
        entity = described[curie(row["entity_id"])]
        properties = entity.properties or {}
        assert entity.entity_type == row['entity_type']
        assert entity.label == row["name"]
        assert entity.alt_labels == (sorted(row["properties"]["synonyms"]) or None)
        assert sorted(properties.get("bfs:supportingDocument", [])) == sorted(curie(d) for d in row["supporting_documents"])
        expected = {f"bundle:{k}": [v] for k, v in row.items() if k not in ENTITY_MAPPED and v is not None}
        for fields in medlit.papers.get(row["entity_id"], {}).values():
            expected.update({f"bundle:{k}": [v] for k, v in fields.items() if v is not None})
        assert properties.get("bfs:urlSynonym") == ([row["canonical_url"]] if row["canonical_url"] else None)
        mapped = ("bfs:supportingDocument", "bfs:urlSynonym")
        assert {k: v for k, v in properties.items() if k not in mapped} == expected, row["entity_id"]


def test_every_canonical_url_answers_for_its_entity(gw: Gateway, medlit: Medlit) -> None:
    with_url = [e for e in medlit.entities if e["canonical_url"]]
    assert {e["entity_id"].split(":")[0] for e in with_url} == {"DBPedia", "MeSH", "UniProt", "HGNC"}
    result = gw.describe_entities([e["canonical_url"] for e in with_url[:100]])
    assert result.unresolved == []
    assert [d.id for d in result.entities] == [e["entity_id"] for e in with_url[:100]]
    for e in with_url[100:]:
        assert gw.describe_entity(e["canonical_url"]).id == e["entity_id"]


def relationship_sample(medlit: Medlit) -> list[dict[str, Any]]:
    """Every 41st relationship, and every one with evidence or provenance items beyond
    one, every hypothetical one and every self-loop."""
    picked = {key(r): r for r in medlit.relationships[::41]}
    for r in medlit.relationships:
        items = len(r["properties"].get("provenance", []))
        several = items > 1 or len(medlit.evidence_by_key[key(r)]) > 1
        if several or status(r) == "hypothetical" or r["subject_id"] == r["object_id"]:
            picked[key(r)] = r
    return list(picked.values())


def full_edge(gw: Gateway, row: dict[str, Any]) -> Any:
    """The relationship as describe_entity gives it (bookkeeping too), found as a full
    bfs_query edge walking out of its subject (which leaves the bookkeeping out)."""
    predicate = row['predicate']
    result = gw.bfs_query(
        seeds=[curie(row["subject_id"])], max_hops=1, direction="out", truth_status=ALL,
        edge_filter={"predicates": [predicate]}, node_filter={"entity_types": []},
    )
    assert isinstance(result, Subgraph)
    found = [e for e in listed_edges(result) if e.predicate == predicate and e.object == curie(row["object_id"])]
    assert len(found) == 1 and found[0].id is not None, key(row)
    described = gw.describe_entity(found[0].id).statement
    assert described is not None
    walked = {k: v for k, v in (described.provenance or {}).items() if not k.startswith("bundle:")
              or k[len("bundle:"):] not in BOOKKEEPING}
    assert found[0].model_copy(update={"provenance": walked or None}) == described.model_copy(
        update={"provenance": walked or None})
    assert not {f"bundle:{name}" for name in BOOKKEEPING} & set(found[0].provenance or {})
    return described


def test_relationships_round_trip_with_every_field(gw: Gateway, medlit: Medlit) -> None:
    sample = relationship_sample(medlit)
    assert len(sample) > 100
    for row in sample:
        edge = full_edge(gw, row)
        data = dict(edge.provenance or {})
        assert edge.id == gw.context.ids.to_id(statement_iri("https://w3id.org/bfsql/bundle/medlit/", key(row)))
        assert edge.truth_status == status(row)
        assert edge.confidence == row["confidence"]
        assert sorted(data.pop("bfs:sourceDocument")) == sorted(curie(d) for d in row["source_documents"])
        evidence_ids = data.pop("bfs:evidence", [])
        cited = {(e["document_id"], e["text_span"]) for e in medlit.evidence_by_key[key(row)]}
        assert sorted(data.pop("bfs:evidencePassage", [])) == sorted(medlit.passage_ids[c] for c in cited), key(row)
        provenance_ids = data.pop("bundle:provenance", [])
        expected = {f"bundle:{k}": [v] for k, v in row.items() if k not in RELATIONSHIP_MAPPED and v is not None}
        expected.update({f"bundle:{k}": [v] for k, v in row["properties"].items() if k != "provenance"})
        assert data == expected, key(row)
        parts = gw.describe_entities([*evidence_ids, *provenance_ids]) if evidence_ids or provenance_ids else None
        described = {d.id: d.properties or {} for d in parts.entities} if parts else {}
        # Evidence spans and provenance items come back in file order (their IRIs number them).
        spans = [described[i] for i in sorted(evidence_ids, key=lambda i: int(i.rsplit("/", 1)[1]))]
        assert spans == [_evidence_properties(e) for e in medlit.evidence_by_key[key(row)]], key(row)
        items = [described[i] for i in sorted(provenance_ids, key=lambda i: int(i.rsplit("/", 1)[1]))]
        assert items == [_provenance_properties(p) for p in row["properties"].get("provenance", [])], key(row)


def _evidence_properties(row: dict[str, Any]) -> dict[str, list[Any]]:
    found = {EVIDENCE_FIELDS.get(k, f"bundle:{k}"): [v] for k, v in row.items() if k != "relationship_key" and v is not None}
    return dict(sorted(found.items()))


def _provenance_properties(item: dict[str, Any]) -> dict[str, list[Any]]:
    found = {f"bundle:{k}": (sorted(v) if isinstance(v, list) else [v]) for k, v in item.items() if v is not None}
    return {k: v for k, v in sorted(found.items()) if v}


# -- the book's worked example ----------------------------------------------------------------
def test_describe_schema_lists_the_bundles_types_and_sixteen_predicates(gw: Gateway, medlit: Medlit) -> None:
    schema = gw.describe_schema()
    assert schema.graph_description.startswith("medlit: 38 PubMed Central papers, 1,900 entities, 2,184 relationships")
    assert {t.id for t in schema.entity_types} == {e['entity_type'] for e in medlit.entities} | {"bfs:Passage"}
    assert {t.label for t in schema.entity_types} == {None}  # a label that repeats the ID is left out
    predicates = {p.id: p for p in schema.predicates}
    # The book's sixteen, and the passages' link to their paper, walked only when named, as
    # are the schema terms (each entity's type, the bundle's sub-property declarations).
    walked = {p for p, info in predicates.items() if not info.walked_when_named}
    assert walked == {r['predicate'] for r in medlit.relationships}
    assert set(predicates) - walked == {"bfs:passageOf", "rdf:type", "rdfs:subPropertyOf"}
    assert predicates["rdf:type"].count >= len(medlit.entities)
    assert predicates["INCREASES_RISK"].label is None  # "increases risk" says no more than the ID
    assert predicates["INTERACTS_WITH"].traits == ["Symmetric"]
    assert predicates["SUBTYPE_OF"].traits == ["Transitive"]
    assert schema.named_graphs == ["graph"]
    # The bundle's own spelling of each ID scheme is the CURIE prefix.
    for prefix in ("RxNorm", "MeSH", "DBPedia", "UniProt", "HGNC", "ORCID", "ROR", "PMC", "prov"):
        assert prefix in schema.prefixes


def test_search_ranks_the_drug_first_and_the_two_papers_next(gw: Gateway) -> None:
    hits = gw.search_entities("desmopressin").results
    assert (hits[0].id, hits[0].entity_type, hits[0].match) == (SEED, "drug", "exact_label")
    assert {h.id for h in hits[1:3]} == {"PMC:PMC11128938", "PMC:PMC10436086"}
    assert {h.entity_type for h in hits[1:3]} == {"paper"}


def test_two_hops_from_desmopressin_reach_84_nodes_and_99_edges(gw: Gateway, medlit: Medlit) -> None:
    result = gw.bfs_query(seeds=[SEED], max_hops=2, topology_only=True, truth_status=ALL)
    assert isinstance(result, Subgraph)
    assert (result.node_count, result.edge_count) == (84, 99)
    hops, edges = reference_walk(medlit.relationships, SEED, 2)
    assert {n.id for n in listed_nodes(result)} == {curie(n) for n in hops}
    assert result.hop_counts == [list(hops.values()).count(h) for h in range(3)] == [1, 5, 78]
    returned = Counter((e.subject, e.predicate, e.object) for e in listed_edges(result))
    by_key = {key(r): r for r in medlit.relationships}
    assert returned == Counter((curie(by_key[k]["subject_id"]), by_key[k]['predicate'],
                                curie(by_key[k]["object_id"])) for k in edges)
    assert result.hidden_by_filter == {}


def test_the_default_truth_status_hides_the_suggested_and_speculative_claims(gw: Gateway, medlit: Medlit) -> None:
    result = gw.bfs_query(seeds=[SEED], max_hops=2, topology_only=True)
    asserted = [r for r in medlit.relationships if status(r) == "asserted_true"]
    hops, edges = reference_walk(asserted, SEED, 2)
    assert (result.node_count, result.edge_count) == (len(hops), len(edges)) == (58, 66)
    # Hidden: hypothetical statements next to a node the walk expanded (closer than 2 hops).
    hidden = [r for r in medlit.relationships if status(r) == "hypothetical"
              and any(hops.get(end, 2) < 2 for end in (r["subject_id"], r["object_id"]))]
    assert result.hidden_by_filter == {"truth_status": len(hidden)} == {"truth_status": 4}


def test_describe_entity_answers_the_dbpedia_url_with_the_curie(gw: Gateway, medlit: Medlit) -> None:
    row = next(e for e in medlit.entities if e["entity_id"] == CUSHING)
    entity = gw.describe_entity("https://dbpedia.org/page/Cushing's_disease")
    assert (entity.id, entity.entity_type, entity.label) == (CUSHING, "disease", "Cushing disease")
    assert entity.alt_labels == ["CD"]
    assert entity.properties is not None
    assert entity.properties["bfs:supportingDocument"] == sorted(curie(d) for d in row["supporting_documents"])
    assert "PMC:PMC11128938" in entity.properties["bfs:supportingDocument"]


# -- context economy: characters as served over HTTP ----------------------------------------
def served(result: Any) -> int:
    return len(result.model_dump_json(exclude_none=True))


def test_topology_only_default_layout_is_at_most_14000_characters(gw: Gateway) -> None:
    result = gw.bfs_query(seeds=[SEED], max_hops=2, topology_only=True, truth_status=ALL)
    assert served(result) <= 14_000


def test_topology_only_compact_layout_names_its_nodes_in_at_most_10000_characters(gw: Gateway) -> None:
    result = gw.bfs_query(seeds=[SEED], max_hops=2, topology_only=True, truth_status=ALL, layout="compact")
    assert isinstance(result.nodes, dict)
    labels = {node: label for group in result.nodes.values() for node, label in group.items()}
    assert len(labels) == result.node_count == 84
    assert labels["MeSH:D003480"] == "Cushing syndrome" and labels["RxNorm:47579"] == "cabergoline"
    assert labels["DBPedia:Cushing's_disease"] is None  # the ID says as much
    assert all(label is None or len(label) <= 60 for label in labels.values())
    assert any(label and label.endswith("…") for label in labels.values())  # a paper's title, cut
    assert served(result) <= 10_000


def test_full_metadata_is_at_most_110000_characters(gw: Gateway) -> None:
    result = gw.bfs_query(seeds=[SEED], max_hops=2, truth_status=ALL)
    assert (result.node_count, result.edge_count) == (84, 99)
    assert served(result) <= 110_000


# -- malformed bundles ----------------------------------------------------------------------
MALFORMED = {
    "bad_json": (
        "entities.jsonl:2: not valid JSON: Unterminated string starting at (column 259)",
        ["entities.jsonl:2: not valid JSON: Unterminated string starting at (column 259)",
         "relationships.jsonl:1: object_id \"DBPedia:Cushing's_disease\" is not an entity of this bundle",
         "evidence.jsonl:1: relationship_key \"RxNorm:3251:TREATS:DBPedia:Cushing's_disease\" "
         "names no relationship of this bundle"],
        (2, 1, 0),
    ),
    "unknown_entity": (
        "relationships.jsonl:2: object_id 'RxNorm:999999' is not an entity of this bundle",
        ["relationships.jsonl:2: object_id 'RxNorm:999999' is not an entity of this bundle"],
        (3, 1, 1),
    ),
    "duplicate_id": (
        "entities.jsonl:3: duplicate entity_id 'RxNorm:3251' (first on line 1)",
        ["entities.jsonl:3: duplicate entity_id 'RxNorm:3251' (first on line 1)",
         "relationships.jsonl:3: duplicate relationship \"RxNorm:3251:TREATS:DBPedia:Cushing's_disease\" (first on line 1)"],
        (3, 2, 1),
    ),
    "orphan_evidence": (
        "relationships.jsonl:2: linguistic_trust 'certain' is not one of asserted, suggested, speculative (or absent)",
        ["relationships.jsonl:2: linguistic_trust 'certain' is not one of asserted, suggested, speculative (or absent)",
         "evidence.jsonl:2: relationship_key 'RxNorm:3251:CAUSES:PMC11128938' names no relationship of this bundle"],
        (3, 1, 1),
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_bundle_stops_naming_file_and_line_and_writes_nothing(name: str, tmp_path: Path) -> None:
    out = tmp_path / "graph.trig"
    out.write_text("# the previous graph\n")
    with pytest.raises(InvalidInput) as caught:
        import_bundle(FIXTURES / name, out)
    assert caught.value.message == MALFORMED[name][0]
    assert out.read_text() == "# the previous graph\n"
    assert [p.name for p in tmp_path.iterdir()] == ["graph.trig"]


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_lenient_mode_reports_each_skipped_row_and_imports_the_rest(name: str, tmp_path: Path) -> None:
    report = import_bundle(FIXTURES / name, tmp_path / "graph.trig", lenient=True)
    assert [str(s) for s in report.skipped] == MALFORMED[name][1]
    assert (report.entities, report.statements, report.evidence) == MALFORMED[name][2]
    schema = Gateway.open(report.out).describe_schema()
    assert sum(t.count for t in schema.entity_types if t.id != "bfs:Passage") == report.entities
    assert schema.statements.total == report.statements + report.passages


# -- IDs ------------------------------------------------------------------------------------
def test_unknown_schemes_and_bare_ids_get_bundle_namespaces(tmp_path: Path) -> None:
    report = import_bundle(FIXTURES / "valid", tmp_path / "valid.trig")
    assert report.local_schemes == {"FOO": "https://w3id.org/bfsql/bundle/tiny/FOO/",
                                    "local": "https://w3id.org/bfsql/bundle/tiny/local/"}
    assert (report.asserted, report.hypothetical) == (2, 2)
    gw = Gateway.open(report.out)
    assert gw.describe_entity("FOO:1").label == "foo gene"
    assert gw.describe_entity("local:thing-7").entity_type == "evidence"
    assert gw.describe_entity("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC11128938").id == "PMC:PMC11128938"
    assert gw.describe_entity("pmc:PMC11128938").id == "PMC:PMC11128938"
    # Speculative and suggested claims are reifiers only: crossed when asked for.
    narrow = gw.bfs_query(seeds=["FOO:1"], max_hops=1)
    wide = gw.bfs_query(seeds=["FOO:1"], max_hops=1, truth_status=["hypothetical"])
    assert (narrow.node_count, narrow.hidden_by_filter) == (1, {"truth_status": 2})
    assert wide.node_count == 3


def test_statement_ids_depend_only_on_the_relationship() -> None:
    base = "https://w3id.org/bfsql/bundle/medlit/"
    assert statement_iri(base, f"{SEED}:TREATS:{CUSHING}") == f"{base}stmt/0f12ad31d150"
    assert statement_iri(base, f"{SEED}:TREATS:{CUSHING}") != statement_iri(base, f"{SEED}:CAUSES:{CUSHING}")


# -- loading, the command line and the demo ---------------------------------------------------
def test_the_trig_loads_into_an_on_disk_store_and_a_pyoxigraph_store(imported: BundleReport, tmp_path: Path) -> None:
    load_bundle_store(Path(imported.out), tmp_path / "store")
    with Gateway.open(tmp_path / "store") as disk:
        walk = disk.bfs_query(seeds=[SEED], max_hops=2, topology_only=True, truth_status=ALL)
        assert (walk.node_count, walk.edge_count) == (84, 99)
        assert disk.describe_entity("https://dbpedia.org/page/Cushing's_disease").id == CUSHING
        assert disk.search_entities("desmopressin").results[0].id == SEED
    store = load_into_store(Path(imported.out))
    memory = Gateway.open(store, prefixes=bundle_prefixes(Path(imported.out)))
    assert memory.describe_entity("prov:6cd78681e5a64235909191b39d103eee").id == "prov:6cd78681e5a64235909191b39d103eee"


def test_import_bundle_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny.trig"
    assert import_bundle_command([str(FIXTURES / "valid"), "--out", str(out), "--store", str(tmp_path / "store")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["entities"], printed["statements"], printed["skipped"]) == (5, 4, 0)
    assert printed["store"]["quads"] == printed["quads"]
    assert import_bundle_command([str(FIXTURES / "unknown_entity"), "--out", str(tmp_path / "bad.trig")]) == 2
    assert "relationships.jsonl:2:" in capsys.readouterr().err
    assert not (tmp_path / "bad.trig").exists()
    assert import_bundle_command([str(FIXTURES / "unknown_entity"), "--out", str(tmp_path / "ok.trig"), "--lenient"]) == 0
    captured = capsys.readouterr()
    assert "bfsql: skipped relationships.jsonl:2:" in captured.err and json.loads(captured.out)["skipped"] == 1


def test_open_bundle_imports_a_bundle_directory() -> None:
    with open_bundle(FIXTURES / "valid") as gw:
        assert gw.search_entities("desmopressin").results[0].id == SEED


def test_the_medlit_demo_walks_the_books_session(gw: Gateway, capsys: pytest.CaptureFixture[str]) -> None:
    run_medlit_demo(gw)
    out = capsys.readouterr().out
    for text in ("bfsql query describe_schema '{}'", "TREATS goes drug -> disease", "First: DBPedia:Cushing's_disease",
                 "12 treatments", "strongest_evidence_quote", "PMC:PMC11128938", "84 nodes, 99 edges",
                 '"weakest_edge": {"index": 0'):
        assert text in out, text


def write_bundle(directory: Path, entities: list[Any], relationships: list[Any]) -> Path:
    directory.mkdir()
    for name, rows in (("entities.jsonl", entities), ("relationships.jsonl", relationships)):
        (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return directory


GOOD = [{"entity_id": "RxNorm:3251", "entity_type": "drug", "name": "desmopressin"},
        {"entity_id": "MeSH:D003480", "entity_type": "disease", "name": "Cushing syndrome"}]
TREATS = {"subject_id": "RxNorm:3251", "predicate": "TREATS", "object_id": "MeSH:D003480"}


@pytest.mark.parametrize(("entity", "relationship", "message"), [
    ({"entity_id": "MeSH:D 1", "entity_type": "disease"}, TREATS, "entities.jsonl:3: entity_id 'MeSH:D 1' is not a valid IRI"),
    ({"entity_id": "MeSH:D1", "entity_type": "disease", "canonical_url": "meshb D1"}, TREATS,
     "entities.jsonl:3: canonical_url 'meshb D1' is not an absolute URL"),
    ({"entity_id": "MeSH:D1"}, TREATS, "entities.jsonl:3: entity_type must be a non-empty string, got None"),
    ({"entity_id": "MeSH:D1", "entity_type": "disease"}, {**TREATS, "confidence": "high"},
     "relationships.jsonl:1: confidence must be a number, got 'high'"),
    ({"entity_id": "MeSH:D1", "entity_type": "disease"}, {**TREATS, "properties": {"provenance": "abstract"}},
     "relationships.jsonl:1: properties.provenance must be a list of objects"),
    ({"entity_id": "MeSH:D1", "entity_type": "disease"}, {**TREATS, "predicate": ""},
     "relationships.jsonl:1: predicate must be a non-empty string, got ''"),
])
def test_each_bad_field_is_named_with_its_line(entity: Any, relationship: Any, message: str, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "b", [*GOOD, entity], [relationship])
    with pytest.raises(InvalidInput) as caught:
        import_bundle(bundle, tmp_path / "b.trig")
    assert caught.value.message == message
    assert not (tmp_path / "b.trig").exists()


def test_odd_but_valid_rows_import(tmp_path: Path) -> None:
    """No manifest, a null-only provenance item, control characters, nested values and
    a non-ASCII predicate: all kept."""
    entities = [*GOOD, {"entity_id": "DBPedia:17α-Hydroxyprogesterone", "entity_type": "hormone",
                        "name": "17α-OHP\t\"quoted\"\n", "properties": {"synonyms": [], "extra": {"a": [1, 2]}}}]
    relationships = [{**TREATS, "properties": {"provenance": [{"section": None, "sentence": None}]}},
                     {"subject_id": "DBPedia:17α-Hydroxyprogesterone", "predicate": "ÉLÈVE",
                      "object_id": "MeSH:D003480", "confidence": 1e-05}]
    report = import_bundle(write_bundle(tmp_path / "odd", entities, relationships), tmp_path / "odd.trig")
    assert (report.domain, report.description) == ("odd", "odd: 3 entities, 2 relationships")
    gw = Gateway.open(report.out)
    hormone = gw.describe_entity("DBPedia:17α-Hydroxyprogesterone")
    assert hormone.label == "17α-OHP\t\"quoted\"\n"
    assert hormone.properties == {"bundle:extra": ['{"a": [1, 2]}']}
    edge = listed_edges(gw.bfs_query(seeds=["MeSH:D003480"], max_hops=1, edge_filter={"predicates": ["ÉLÈVE"]}))
    assert [(e.predicate, e.confidence) for e in edge if e.confidence] == [("odd:ÉLÈVE", 1e-05)]


def test_the_schema_says_treats_goes_from_drugs_to_diseases(gw: Gateway) -> None:
    (treats,) = [p for p in gw.describe_schema().predicates if p.id == "TREATS"]
    assert treats.connects[0] == "drug -> disease (29)"
