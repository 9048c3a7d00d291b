"""Reading a bundle's files into a `Bundle`: entities, relationships, evidence, row by row."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gateway.errors import InvalidInput
from gateway.importers.bundle_model import (
    BUNDLE_BASE,
    ENTITY_MAPPED,
    EVIDENCE_MAPPED,
    LOCAL_PREFIX,
    RELATIONSHIP_MAPPED,
    STANDARD_PREFIXES,
    STATEMENT_PREFIX,
    TRUST_STATUS,
    BadRow,
    Bundle,
    Ids,
    Iri,
    Node,
    Rows,
    Skipped,
    Statement,
    bundle_field,
    checked_iri,
    literals,
    name_iri,
    passage_iri,
    statement_iri,
)


def read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / "manifest.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InvalidInput(f"manifest.json:{error.lineno}: not valid JSON: {error.msg}", field="manifest.json") from None
    if not isinstance(data, dict):
        raise InvalidInput("manifest.json:1: expected a JSON object", field="manifest.json")
    return data


def _part_path(bundle: Bundle, part: str, default: str) -> Path:
    entry = bundle.manifest.get(part)
    name = entry.get("path") if isinstance(entry, dict) else None
    return bundle.directory / (name if isinstance(name, str) and name else default)


def domain_of(manifest: dict[str, Any], directory: Path) -> str:
    domain = manifest.get("domain")
    name = domain if isinstance(domain, str) and domain else directory.resolve().name
    clean = re.sub(r"[^A-Za-z0-9_\-]", "_", name)
    clean = clean if clean[:1].isalpha() else f"b_{clean}"
    # The domain names the prefix of the bundle's types and predicates: keep it off ours.
    return f"{clean}_bundle" if clean in (*STANDARD_PREFIXES, STATEMENT_PREFIX, LOCAL_PREFIX) else clean


def read_entities(bundle: Bundle, rows: Rows) -> None:
    path = _part_path(bundle, "entities", "entities.jsonl")
    if not path.is_file():
        raise InvalidInput(f"{path.name}: no such file in {bundle.directory}", field="directory")
    for number, row in rows.read(path):
        try:
            entity_id, node = _entity(bundle, row)
        except BadRow as problem:
            rows.bad(path, number, str(problem))
            continue
        if entity_id in bundle.entities:
            rows.bad(path, number, f"duplicate entity_id {entity_id!r} (first on line {bundle.entity_lines[entity_id]})")
            continue
        bundle.entities[entity_id] = node
        bundle.entity_lines[entity_id] = number


def _entity(bundle: Bundle, row: dict[str, Any]) -> tuple[str, Node]:
    entity_id = row.get("entity_id")
    iri = bundle.ids.iri(entity_id, "entity_id")
    kind = row.get("entity_type")
    type_iri = name_iri(bundle.base, kind, "entity_type")
    properties = row.get("properties") or {}
    if not isinstance(properties, dict):
        raise BadRow(f"properties must be an object, got {type(properties).__name__}")
    node = Node(iri)
    node.add("rdf:type", [type_iri])
    node.add("rdfs:label", literals(row.get("name")))
    node.add("skos:altLabel", literals(properties.get("synonyms")))
    node.add("bfs:supportingDocument", _document_iris(bundle, row.get("supporting_documents"), "supporting_documents"))
    url = row.get("canonical_url")
    if url is not None:
        node.add("bfs:urlSynonym", [_checked_url(url)])
    for key, value in properties.items():
        if key != "synonyms":
            node.add(bundle_field(key), literals(value))
    for key, value in row.items():
        if key not in ENTITY_MAPPED:
            node.add(bundle_field(key), literals(value))
    bundle.types[str(kind)] = type_iri
    return str(entity_id), node


def _checked_url(url: object) -> Iri:
    if not isinstance(url, str) or not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", url):
        raise BadRow(f"canonical_url {url!r} is not an absolute URL")
    return Iri(checked_iri(url, f"canonical_url {url!r}"))


def _document_iris(bundle: Bundle, value: object, what: str) -> list[Iri]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRow(f"{what} must be a list, got {type(value).__name__}")
    return [bundle.ids.iri(d, what) for d in value]


def read_relationships(bundle: Bundle, rows: Rows) -> None:
    path = _part_path(bundle, "relationships", "relationships.jsonl")
    if not path.is_file():
        raise InvalidInput(f"{path.name}: no such file in {bundle.directory}", field="directory")
    for number, row in rows.read(path):
        try:
            statement = _relationship(bundle, row)
        except BadRow as problem:
            rows.bad(path, number, str(problem))
            continue
        clash = bundle.reifiers.setdefault(statement.reifier, statement.key)
        if clash != statement.key:
            raise InvalidInput(f"{path.name}:{number}: {statement.key!r} and {clash!r} hash to one statement ID", field=path.name)
        if statement.key in bundle.statements:
            first = bundle.statement_lines[statement.key]
            rows.bad(path, number, f"duplicate relationship {statement.key!r} (first on line {first})")
            continue
        bundle.statements[statement.key] = statement
        bundle.statement_lines[statement.key] = number


def _relationship(bundle: Bundle, row: dict[str, Any]) -> Statement:
    ends = []
    for name in ("subject_id", "object_id"):
        value = row.get(name)
        if not isinstance(value, str) or value not in bundle.entities:
            raise BadRow(f"{name} {value!r} is not an entity of this bundle")
        ends.append(value)
    predicate = row.get("predicate")
    predicate_iri = name_iri(bundle.base, predicate, "predicate")
    properties = row.get("properties") or {}
    if not isinstance(properties, dict):
        raise BadRow(f"properties must be an object, got {type(properties).__name__}")
    trust = properties.get("linguistic_trust")
    if trust not in TRUST_STATUS:
        known = ", ".join(str(k) for k in TRUST_STATUS if k)
        raise BadRow(f"linguistic_trust {trust!r} is not one of {known} (or absent)")
    status, asserted = TRUST_STATUS[trust]
    key = f"{ends[0]}:{predicate}:{ends[1]}"
    reifier = Iri(statement_iri(bundle.base, key))
    data = Node(reifier)
    data.add("bfs:truthStatus", [f"bfs:{status}"])
    confidence = row.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))):
        raise BadRow(f"confidence must be a number, got {confidence!r}")
    data.add("bfs:confidence", literals(confidence))
    data.add("bfs:sourceDocument", _document_iris(bundle, row.get("source_documents"), "source_documents"))
    statement = Statement(
        key, (bundle.entities[ends[0]].subject, predicate_iri, bundle.entities[ends[1]].subject),
        reifier, asserted, data,
    )
    _provenance(statement, properties.get("provenance"))
    for name, value in properties.items():
        if name != "provenance":
            data.add(bundle_field(name), literals(value))
    for name, value in row.items():
        if name not in RELATIONSHIP_MAPPED:
            data.add(bundle_field(name), literals(value))
    bundle.predicates[str(predicate)] = predicate_iri
    return statement


def _provenance(statement: Statement, items: object) -> None:
    """Each provenance item (section, sentence, citation markers) as a node of its own,
    so that the section stays paired with its sentence."""
    if items is None:
        return
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise BadRow("properties.provenance must be a list of objects")
    for index, item in enumerate(items, start=1):
        node = Node(Iri(f"{statement.reifier}/provenance/{index}"))
        for name, value in item.items():
            node.add(bundle_field(name), literals(value))
        statement.data.add("bundle:provenance", [node.subject])
        statement.parts.append(node)


def read_evidence(bundle: Bundle, rows: Rows) -> None:
    path = _part_path(bundle, "evidence", "evidence.jsonl")
    if not path.is_file():
        return
    for number, row in rows.read(path):
        try:
            _evidence(bundle, row)
        except BadRow as problem:
            rows.bad(path, number, str(problem))


def _evidence(bundle: Bundle, row: dict[str, Any]) -> None:
    key = row.get("relationship_key")
    statement = bundle.statements.get(key) if isinstance(key, str) else None
    if statement is None:
        raise BadRow(f"relationship_key {key!r} names no relationship of this bundle")
    node = Node(Iri(f"{statement.reifier}/evidence/{statement.evidence + 1}"))
    for name, value in row.items():
        if name == "relationship_key":
            continue
        # The document is a literal on purpose: an IRI-valued triple from a node that
        # is not a reifier would be a traversable edge from the evidence to the paper.
        predicate = f"bfs:{EVIDENCE_MAPPED[name]}" if name in EVIDENCE_MAPPED else bundle_field(name)
        node.add(predicate, literals(value))
    statement.evidence += 1
    statement.data.add("bfs:evidence", [node.subject])
    statement.parts.append(node)
    document, text = row.get("document_id"), row.get("text_span")
    if isinstance(document, str) and document and isinstance(text, str) and text.strip():
        spans = bundle.passages.setdefault(document, {})
        passage = passage_iri(bundle.base, document, spans.setdefault(text, len(spans)))
        if ("bfs:evidencePassage", passage) not in statement.data.pairs:
            statement.data.add("bfs:evidencePassage", [passage])


def paper_metadata(bundle: Bundle) -> None:
    """The manifest's per-paper metadata (study design) as properties of the paper entities."""
    metadata = bundle.manifest.get("metadata")
    papers = metadata.get("papers") if isinstance(metadata, dict) else None
    if not isinstance(papers, dict):
        return
    for paper, fields in papers.items():
        node = bundle.entities.get(paper)
        if node is None or not isinstance(fields, dict):
            continue
        for name, value in fields.items():
            groups = value.items() if isinstance(value, dict) else [(name, value)]
            for key, item in groups:
                node.add(bundle_field(key), literals(item))


def description_of(bundle: Bundle) -> str:
    """The graph description describe_schema shows, from the manifest and the counts."""
    metadata = bundle.manifest.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    papers = metadata.get("papers")
    papers = papers if isinstance(papers, dict) else {}
    kind = "PubMed Central papers" if papers and all(re.fullmatch(r"PMC\d+", p) for p in papers) else "papers"
    kind = kind[:-1] if len(papers) == 1 else kind
    head = f"{bundle.domain}: {len(papers)} {kind}, " if papers else f"{bundle.domain}: "
    text = f"{head}{len(bundle.entities):,} entities, {len(bundle.statements):,} relationships"
    notes = [str(v) for v in (bundle.manifest.get("label"), metadata.get("description")) if isinstance(v, str) and v]
    return text + (f" ({'; '.join(notes)})" if notes else "")


def read_bundle(directory: Path, *, lenient: bool = False) -> tuple[Bundle, list[Skipped]]:
    """Read and check every row of a bundle (nothing is written)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InvalidInput(f"{directory}: no such bundle directory", field="directory")
    manifest = read_manifest(directory)
    domain = domain_of(manifest, directory)
    base = f"{BUNDLE_BASE}{domain}/"
    bundle = Bundle(directory, manifest, domain, base, Ids(base))
    rows = Rows(lenient)
    read_entities(bundle, rows)
    read_relationships(bundle, rows)
    read_evidence(bundle, rows)
    paper_metadata(bundle)
    return bundle, rows.skipped
