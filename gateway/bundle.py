"""Import a JSON-lines property-graph bundle as RDF 1.2 TriG the gateway reads.

A bundle (such as ``../shared/data/medlit``) is a directory of:

    manifest.json         domain, label, file names, metadata (per-paper study design)
    entities.jsonl        one entity a line: entity_id, entity_type, name, canonical_url,
                          properties.synonyms, supporting_documents, mention counts ...
    relationships.jsonl   one relationship a line: subject_id, predicate, object_id,
                          confidence, source_documents, properties.linguistic_trust,
                          properties.provenance, strongest_evidence_quote ...
    evidence.jsonl        one evidence span a line, keyed by relationship_key
                          ``subject:PREDICATE:object``

`import_bundle` writes one TriG file, all or nothing (a temporary file, parsed back
by Oxigraph, then renamed). The mapping, field by field, is in data/README.md
("medlit"); in short:

- An entity is its ID's IRI (RxNorm, MeSH, DBPedia, ... through vocab/prefixes.json,
  so `RxNorm:3251` stays `RxNorm:3251`), typed ``<domain>:<entity_type>``, labelled
  with `name`, `skos:altLabel` per synonym, `bfs:supportingDocument` per document,
  `bfs:urlSynonym <canonical_url>`, every other field a ``bundle:<field>`` literal.
- A relationship is a reifier ``stmt:<hash>``: ``s p o ~ r {| ... |}`` when
  `linguistic_trust` is asserted or absent (asserted_true), ``<< s p o ~ r >>`` only
  when it is suggested or speculative (hypothetical). It carries `bfs:confidence`,
  `bfs:sourceDocument`, its provenance items and evidence spans as IRI nodes under its
  own IRI, and every other field as a ``bundle:<field>`` literal.

Every failure is an `InvalidInput` naming the file and line; with ``lenient=True`` the
bad row is skipped and listed in the report instead (rows that name a skipped row are
skipped in turn, each listed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pyoxigraph as ox

from gateway.errors import GatewayError, InvalidInput
from gateway.ids import check_iri, load_prefix_records

if TYPE_CHECKING:
    from gateway.api import Gateway
    from gateway.backends.embedded import LoadReport

BFS = "https://w3id.org/bfsql#"
BUNDLE = "https://w3id.org/bfsql/bundle#"
"""Namespace of the bundle format's own fields (``bundle:usage_count``), shared by every domain."""
BUNDLE_BASE = "https://w3id.org/bfsql/bundle/"
"""Each domain gets ``BUNDLE_BASE + domain + "/"`` for its types, predicates and local IDs."""
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"

STANDARD_PREFIXES: dict[str, str] = {
    "rdf": RDF,
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": XSD,
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dcterms": "http://purl.org/dc/terms/",
    "void": "http://rdfs.org/ns/void#",
    "bfs": BFS,
    "bundle": BUNDLE,
}
STATEMENT_PREFIX = "stmt"
LOCAL_PREFIX = "local"
"""CURIE prefix of bundle IDs that have no scheme and match no known pattern."""

# `prov:` in a bundle is the pipeline's provisional ID scheme (entities not yet matched
# to an authority), not W3C PROV-O: it gets a namespace of the bundle's own.
BUNDLE_LOCAL_SCHEMES = frozenset({"prov"})
# IDs written without a colon that are a known scheme's full local ID: a PMCID keeps
# its "PMC" (the identifiers.org / Bioregistry form), so PMC11128938 is PMC:PMC11128938.
COLONLESS_SCHEMES: tuple[tuple[re.Pattern[str], str], ...] = ((re.compile(r"^PMC\d+$"), "PMC"),)

# linguistic_trust -> (truth status, whether the base triple is asserted).
TRUST_STATUS: dict[str | None, tuple[str, bool]] = {
    None: ("asserted_true", True),
    "asserted": ("asserted_true", True),
    "suggested": ("hypothetical", False),
    "speculative": ("hypothetical", False),
}
# Traits declared by predicate name, only where the name says it: an interaction or an
# association holds both ways; a subtype of a subtype is a subtype. They change no
# walk unless a caller asks for expand_traits (and closure follows any predicate).
SYMMETRIC = frozenset({"INTERACTS_WITH", "ASSOCIATED_WITH"})
TRANSITIVE = frozenset({"SUBTYPE_OF"})

# Relationship and entity fields mapped to something other than a bundle:<field> literal.
_ENTITY_MAPPED = frozenset({"entity_id", "entity_type", "name", "canonical_url", "properties", "supporting_documents"})
_RELATIONSHIP_MAPPED = frozenset({"subject_id", "predicate", "object_id", "confidence", "source_documents", "properties"})
_EVIDENCE_MAPPED = {
    "document_id": "documentId", "start_offset": "startOffset", "end_offset": "endOffset", "text_span": "textSpan",
}

_PN_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?")
_PN_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_SURROGATE = re.compile(r"[\ud800-\udfff]")


# -- the report ---------------------------------------------------------------------
@dataclass(frozen=True)
class Skipped:
    """A row lenient mode left out, and why."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class BundleReport:
    """What an import read and wrote."""

    out: str
    domain: str
    description: str
    entities: int = 0
    statements: int = 0
    asserted: int = 0
    hypothetical: int = 0
    evidence: int = 0
    provenance: int = 0
    quads: int = 0
    prefixes: dict[str, str] = field(default_factory=dict)
    local_schemes: dict[str, str] = field(default_factory=dict)
    """Bundle ID schemes no prefix map knows, with the namespace minted for each."""
    skipped: list[Skipped] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = [str(s) for s in self.skipped]
        return data


class Iri(str):
    """A full IRI held unwritten (as opposed to a Turtle term held as written)."""


class _BadRow(Exception):
    """One row cannot be imported; the caller adds file and line."""


class _Rows:
    """Reads a JSON-lines file; bad rows raise, or are recorded in lenient mode."""

    def __init__(self, lenient: bool) -> None:
        self.lenient = lenient
        self.skipped: list[Skipped] = []

    def bad(self, path: Path, line: int, reason: str) -> None:
        if not self.lenient:
            raise InvalidInput(f"{path.name}:{line}: {reason}", field=path.name)
        self.skipped.append(Skipped(path.name, line, reason))

    def read(self, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, object) for each non-blank line that is a JSON object."""
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    row = json.loads(text.rstrip("\r\n"))
                except json.JSONDecodeError as error:
                    self.bad(path, number, f"not valid JSON: {error.msg} (column {error.colno})")
                    continue
                if not isinstance(row, dict):
                    self.bad(path, number, f"expected a JSON object, got {type(row).__name__}")
                    continue
                yield number, row


# -- IDs ------------------------------------------------------------------------------
class _Ids:
    """Bundle IDs to IRIs, remembering the namespaces used (for the @prefix lines)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.known: dict[str, tuple[str, str]] = {}  # folded prefix -> (canonical prefix, namespace)
        for record in load_prefix_records():
            for name in (record["prefix"], *record.get("prefix_synonyms", ())):  # type: ignore[misc]
                self.known.setdefault(str(name).casefold(), (str(record["prefix"]), str(record["uri_prefix"])))
        self.used: dict[str, str] = {}
        self.local: dict[str, str] = {}

    def iri(self, value: object, what: str) -> Iri:
        if not isinstance(value, str) or not value:
            raise _BadRow(f"{what} must be a non-empty string, got {value!r}")
        prefix, local = self._split(value)
        if prefix.casefold() in BUNDLE_LOCAL_SCHEMES or prefix.casefold() not in self.known:
            namespace = self._local_namespace(prefix, value, what)
        else:
            prefix, namespace = self.known[prefix.casefold()]
            self.used[prefix] = namespace
        return Iri(_checked(namespace + local, f"{what} {value!r}"))

    @staticmethod
    def _split(value: str) -> tuple[str, str]:
        if ":" in value:
            prefix, local = value.split(":", 1)
            return prefix, local
        for pattern, scheme in COLONLESS_SCHEMES:
            if pattern.match(value):
                return scheme, value
        return LOCAL_PREFIX, value

    def _local_namespace(self, prefix: str, value: str, what: str) -> str:
        if not _PN_PREFIX.fullmatch(prefix) or prefix in STANDARD_PREFIXES or prefix == STATEMENT_PREFIX:
            raise _BadRow(f"{what} {value!r}: cannot use {prefix!r} as an ID scheme")
        return self.local.setdefault(prefix, f"{self.base}{prefix}/")


def _checked(iri: str, what: str) -> str:
    try:
        return check_iri(iri, what)
    except InvalidInput:
        raise _BadRow(f"{what} is not a valid IRI") from None


def statement_iri(base: str, key: str) -> str:
    """A stable statement IRI from the relationship key: the same relationship in a
    later bundle version gets the same ID."""
    return f"{base}{STATEMENT_PREFIX}/{hashlib.sha256(key.encode()).hexdigest()[:12]}"


# -- Turtle terms ---------------------------------------------------------------------
class _Terms:
    """Writes IRIs as prefixed names where the local part allows it, else as <IRI>."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = prefixes
        self._by_length = sorted(prefixes.items(), key=lambda kv: -len(kv[1]))

    def iri(self, iri: str) -> str:
        for prefix, namespace in self._by_length:
            if iri.startswith(namespace) and _PN_LOCAL.fullmatch(iri[len(namespace):]):
                return f"{prefix}:{iri[len(namespace):]}"
        return f"<{iri}>"


def _string(text: str) -> str:
    if _SURROGATE.search(text):
        raise _BadRow("a string holds an unpaired UTF-16 surrogate")
    escaped = "".join(_ESCAPES.get(c, c if c >= " " and c != "\x7f" else f"\\u{ord(c):04X}") for c in text)
    return f'"{escaped}"'


def _literals(value: Any) -> list[str]:
    """A JSON value as Turtle literals: one per list item; nothing for null."""
    if value is None:
        return []
    if isinstance(value, list):
        return [text for item in value for text in (_nested(item) if isinstance(item, (list, dict)) else _literals(item))]
    if isinstance(value, dict):
        return _nested(value)
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, float):
        return [_decimal(value)]
    text = str(value)
    if _DATETIME.fullmatch(text) and _is_datetime(text):
        return [f"{_string(text)}^^xsd:dateTime"]
    return [_string(text)]


def _nested(value: Any) -> list[str]:
    """Structure the bundle nests where this mapping expects none: kept whole, as rdf:JSON."""
    return [f"{_string(json.dumps(value, ensure_ascii=False, sort_keys=True))}^^rdf:JSON"]


def _decimal(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return f'"{"NaN" if math.isnan(value) else ("INF" if value > 0 else "-INF")}"^^xsd:double'
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


def _is_datetime(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
        return True
    except ValueError:
        return False


def _name_iri(namespace: str, name: object, what: str) -> Iri:
    """An IRI whose local name is the bundle's spelling (percent-encoded only if it must be)."""
    if not isinstance(name, str) or not name.strip():
        raise _BadRow(f"{what} must be a non-empty string, got {name!r}")
    return Iri(_checked(namespace + _escape_local(name), f"{what} {name!r}"))


# -- the bundle, read ---------------------------------------------------------------------
@dataclass
class _Node:
    """A subject and its (predicate, object) pairs, as Turtle terms."""

    subject: str
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def add(self, predicate: str, objects: Sequence[str]) -> None:
        self.pairs.extend((predicate, o) for o in objects)


@dataclass
class _Statement:
    key: str
    triple: tuple[str, str, str]
    reifier: str
    asserted: bool
    data: _Node
    parts: list[_Node] = field(default_factory=list)
    """Provenance items and evidence spans: nodes of their own under the statement's IRI."""
    evidence: int = 0


@dataclass
class _Bundle:
    directory: Path
    manifest: dict[str, Any]
    domain: str
    base: str
    ids: _Ids
    terms: _Terms | None = None
    entities: dict[str, _Node] = field(default_factory=dict)
    entity_lines: dict[str, int] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    predicates: dict[str, str] = field(default_factory=dict)
    statements: dict[str, _Statement] = field(default_factory=dict)
    statement_lines: dict[str, int] = field(default_factory=dict)
    reifiers: dict[str, str] = field(default_factory=dict)


def _manifest(directory: Path) -> dict[str, Any]:
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


def _part_path(bundle: _Bundle, part: str, default: str) -> Path:
    entry = bundle.manifest.get(part)
    name = entry.get("path") if isinstance(entry, dict) else None
    return bundle.directory / (name if isinstance(name, str) and name else default)


def _domain(manifest: dict[str, Any], directory: Path) -> str:
    domain = manifest.get("domain")
    name = domain if isinstance(domain, str) and domain else directory.resolve().name
    clean = re.sub(r"[^A-Za-z0-9_\-]", "_", name)
    clean = clean if clean[:1].isalpha() else f"b_{clean}"
    # The domain names the prefix of the bundle's types and predicates: keep it off ours.
    return f"{clean}_bundle" if clean in (*STANDARD_PREFIXES, STATEMENT_PREFIX, LOCAL_PREFIX) else clean


def _read_entities(bundle: _Bundle, rows: _Rows) -> None:
    path = _part_path(bundle, "entities", "entities.jsonl")
    if not path.is_file():
        raise InvalidInput(f"{path.name}: no such file in {bundle.directory}", field="directory")
    for number, row in rows.read(path):
        try:
            entity_id, node = _entity(bundle, row)
        except _BadRow as problem:
            rows.bad(path, number, str(problem))
            continue
        if entity_id in bundle.entities:
            rows.bad(path, number, f"duplicate entity_id {entity_id!r} (first on line {bundle.entity_lines[entity_id]})")
            continue
        bundle.entities[entity_id] = node
        bundle.entity_lines[entity_id] = number


def _entity(bundle: _Bundle, row: dict[str, Any]) -> tuple[str, _Node]:
    entity_id = row.get("entity_id")
    iri = bundle.ids.iri(entity_id, "entity_id")
    kind = row.get("entity_type")
    type_iri = _name_iri(bundle.base, kind, "entity_type")
    properties = row.get("properties") or {}
    if not isinstance(properties, dict):
        raise _BadRow(f"properties must be an object, got {type(properties).__name__}")
    node = _Node(iri)
    node.add("rdf:type", [type_iri])
    node.add("rdfs:label", _literals(row.get("name")))
    node.add("skos:altLabel", _literals(properties.get("synonyms")))
    node.add("bfs:supportingDocument", _document_iris(bundle, row.get("supporting_documents"), "supporting_documents"))
    url = row.get("canonical_url")
    if url is not None:
        node.add("bfs:urlSynonym", [_checked_url(url)])
    for key, value in properties.items():
        if key != "synonyms":
            node.add(_field(key), _literals(value))
    for key, value in row.items():
        if key not in _ENTITY_MAPPED:
            node.add(_field(key), _literals(value))
    bundle.types[str(kind)] = type_iri
    return str(entity_id), node


def _checked_url(url: object) -> Iri:
    if not isinstance(url, str) or not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", url):
        raise _BadRow(f"canonical_url {url!r} is not an absolute URL")
    return Iri(_checked(url, f"canonical_url {url!r}"))


def _document_iris(bundle: _Bundle, value: object, what: str) -> list[Iri]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _BadRow(f"{what} must be a list, got {type(value).__name__}")
    return [bundle.ids.iri(d, what) for d in value]


def _field(name: str) -> str:
    """The predicate term for a bundle field: bundle:<field>, the field's own spelling."""
    if _PN_LOCAL.fullmatch(name):
        return f"bundle:{name}"
    return f"<{_checked(BUNDLE + _escape_local(name), f'field {name!r}')}>"


def _escape_local(name: str) -> str:
    """A name as an IRI's last segment: letters and digits of any script kept, the rest
    percent-encoded (so a name cannot add a path, query or fragment)."""
    return re.sub(r"[^\w.~-]", lambda m: quote(m.group(), safe=""), name)


def _read_relationships(bundle: _Bundle, rows: _Rows) -> None:
    path = _part_path(bundle, "relationships", "relationships.jsonl")
    if not path.is_file():
        raise InvalidInput(f"{path.name}: no such file in {bundle.directory}", field="directory")
    for number, row in rows.read(path):
        try:
            statement = _relationship(bundle, row)
        except _BadRow as problem:
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


def _relationship(bundle: _Bundle, row: dict[str, Any]) -> _Statement:
    ends = []
    for name in ("subject_id", "object_id"):
        value = row.get(name)
        if not isinstance(value, str) or value not in bundle.entities:
            raise _BadRow(f"{name} {value!r} is not an entity of this bundle")
        ends.append(value)
    predicate = row.get("predicate")
    predicate_iri = _name_iri(bundle.base, predicate, "predicate")
    properties = row.get("properties") or {}
    if not isinstance(properties, dict):
        raise _BadRow(f"properties must be an object, got {type(properties).__name__}")
    trust = properties.get("linguistic_trust")
    if trust not in TRUST_STATUS:
        known = ", ".join(str(k) for k in TRUST_STATUS if k)
        raise _BadRow(f"linguistic_trust {trust!r} is not one of {known} (or absent)")
    status, asserted = TRUST_STATUS[trust]
    key = f"{ends[0]}:{predicate}:{ends[1]}"
    reifier = Iri(statement_iri(bundle.base, key))
    data = _Node(reifier)
    data.add("bfs:truthStatus", [f"bfs:{status}"])
    confidence = row.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))):
        raise _BadRow(f"confidence must be a number, got {confidence!r}")
    data.add("bfs:confidence", _literals(confidence))
    data.add("bfs:sourceDocument", _document_iris(bundle, row.get("source_documents"), "source_documents"))
    statement = _Statement(
        key, (bundle.entities[ends[0]].subject, predicate_iri, bundle.entities[ends[1]].subject),
        reifier, asserted, data,
    )
    _provenance(statement, properties.get("provenance"))
    for name, value in properties.items():
        if name != "provenance":
            data.add(_field(name), _literals(value))
    for name, value in row.items():
        if name not in _RELATIONSHIP_MAPPED:
            data.add(_field(name), _literals(value))
    bundle.predicates[str(predicate)] = predicate_iri
    return statement


def _provenance(statement: _Statement, items: object) -> None:
    """Each provenance item (section, sentence, citation markers) as a node of its own,
    so that the section stays paired with its sentence."""
    if items is None:
        return
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise _BadRow("properties.provenance must be a list of objects")
    for index, item in enumerate(items, start=1):
        node = _Node(Iri(f"{statement.reifier}/provenance/{index}"))
        for name, value in item.items():
            node.add(_field(name), _literals(value))
        statement.data.add("bundle:provenance", [node.subject])
        statement.parts.append(node)


def _read_evidence(bundle: _Bundle, rows: _Rows) -> None:
    path = _part_path(bundle, "evidence", "evidence.jsonl")
    if not path.is_file():
        return
    for number, row in rows.read(path):
        try:
            _evidence(bundle, row)
        except _BadRow as problem:
            rows.bad(path, number, str(problem))


def _evidence(bundle: _Bundle, row: dict[str, Any]) -> None:
    key = row.get("relationship_key")
    statement = bundle.statements.get(key) if isinstance(key, str) else None
    if statement is None:
        raise _BadRow(f"relationship_key {key!r} names no relationship of this bundle")
    node = _Node(Iri(f"{statement.reifier}/evidence/{statement.evidence + 1}"))
    for name, value in row.items():
        if name == "relationship_key":
            continue
        # The document is a literal on purpose: an IRI-valued triple from a node that
        # is not a reifier would be a traversable edge from the evidence to the paper.
        predicate = f"bfs:{_EVIDENCE_MAPPED[name]}" if name in _EVIDENCE_MAPPED else _field(name)
        node.add(predicate, _literals(value))
    statement.evidence += 1
    statement.data.add("bfs:evidence", [node.subject])
    statement.parts.append(node)


def _paper_metadata(bundle: _Bundle) -> None:
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
                node.add(_field(key), _literals(item))


def _description(bundle: _Bundle) -> str:
    """The graph description describe_schema shows, from the manifest and the counts."""
    metadata = bundle.manifest.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    papers = metadata.get("papers") if isinstance(metadata.get("papers"), dict) else {}
    kind = "PubMed Central papers" if papers and all(re.fullmatch(r"PMC\d+", p) for p in papers) else "papers"
    kind = kind[:-1] if len(papers) == 1 else kind
    head = f"{bundle.domain}: {len(papers)} {kind}, " if papers else f"{bundle.domain}: "
    text = f"{head}{len(bundle.entities):,} entities, {len(bundle.statements):,} relationships"
    notes = [str(v) for v in (bundle.manifest.get("label"), metadata.get("description")) if isinstance(v, str) and v]
    return text + (f" ({'; '.join(notes)})" if notes else "")


# -- writing ----------------------------------------------------------------------------------
def _prefixes(bundle: _Bundle) -> dict[str, str]:
    schemes = {*bundle.ids.used, *bundle.ids.local}
    if bundle.domain in schemes:
        raise InvalidInput(f"the bundle's domain {bundle.domain!r} is also one of its ID schemes", field="manifest.json")
    prefixes = dict(STANDARD_PREFIXES)
    # The empty prefix marks the bundle's vocabulary: the gateway writes its types and
    # predicates as bare names ("drug", "TREATS"), as the bundle spells them.
    prefixes[""] = bundle.base
    prefixes[bundle.domain] = bundle.base
    prefixes[STATEMENT_PREFIX] = f"{bundle.base}{STATEMENT_PREFIX}/"
    prefixes.update(sorted(bundle.ids.used.items()))
    prefixes.update(sorted(bundle.ids.local.items()))
    return prefixes


def _render(bundle: _Bundle, description: str) -> Iterator[str]:
    terms = _Terms(_prefixes(bundle))
    graph = f"{bundle.base}graph"
    yield f"# {bundle.domain} bundle imported by gateway.bundle from {bundle.directory.name}/ (see data/README.md).\n"
    for prefix, namespace in terms.prefixes.items():
        yield f"@prefix {prefix}: <{namespace}> .\n"
    yield f"\n{terms.iri(graph)} {{\n"
    yield from _block(_dataset(bundle, graph, description), terms)
    yield from _schema(bundle, terms)
    for node in bundle.entities.values():
        yield from _block(node, terms)
    for statement in bundle.statements.values():
        yield from _statement(statement, terms)
    yield "}\n"


def _dataset(bundle: _Bundle, graph: str, description: str) -> _Node:
    node = _Node(graph)
    node.add("rdf:type", ["void:Dataset"])
    # Only dcterms:description: the gateway shows the first (sorted) of several texts.
    node.add("dcterms:description", [_string(description)])
    for name, value in bundle.manifest.items():
        if not isinstance(value, (dict, list)):
            node.add(_field(name), _literals(value))
    metadata = bundle.manifest.get("metadata")
    for name, value in (metadata.items() if isinstance(metadata, dict) else ()):
        if name != "papers":
            node.add(_field(name), _literals(value))
    return node


def _schema(bundle: _Bundle, terms: _Terms) -> Iterator[str]:
    for name, iri in sorted(bundle.types.items()):
        yield f"  {terms.iri(iri)} a rdfs:Class ; rdfs:label {_string(name)} .\n"
    for name, iri in sorted(bundle.predicates.items()):
        kinds = ["owl:ObjectProperty"]
        kinds += ["owl:SymmetricProperty"] if name in SYMMETRIC else []
        kinds += ["owl:TransitiveProperty"] if name in TRANSITIVE else []
        label = name.replace("_", " ").lower()
        yield f"  {terms.iri(iri)} a {', '.join(kinds)} ; rdfs:label {_string(label)} .\n"


def _block(node: _Node, terms: _Terms) -> Iterator[str]:
    if node.pairs:  # an item whose every field is null is only linked to, with no data
        yield f"  {terms.iri(node.subject)} {_pairs(node.pairs, terms)} .\n"


def _pairs(pairs: list[tuple[str, str]], terms: _Terms, indent: str = "\n      ") -> str:
    def term(text: str) -> str:
        return terms.iri(text) if isinstance(text, Iri) else text

    grouped: dict[str, list[str]] = {}
    for predicate, value in pairs:
        grouped.setdefault(predicate, []).append(term(value))
    return f" ;{indent}".join(f"{term(p)} {' , '.join(vs)}" for p, vs in grouped.items())


def _statement(statement: _Statement, terms: _Terms) -> Iterator[str]:
    s, p, o = (terms.iri(t) for t in statement.triple)
    reifier = terms.iri(statement.reifier)
    data = _pairs(statement.data.pairs, terms, "\n        ")
    if statement.asserted:
        yield f"  {s} {p} {o} ~ {reifier} {{|\n        {data} |}} .\n"
    else:
        yield f"  << {s} {p} {o} ~ {reifier} >>\n        {data} .\n"
    for part in statement.parts:
        yield from _block(part, terms)


def _write_atomically(out: Path, lines: Iterator[str]) -> int:
    """Write to a temporary file beside `out`, parse it back, and only then rename it:
    a failure never leaves a half graph where the graph should be."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    except OSError as error:
        raise InvalidInput(f"{out}: cannot write there ({error.strerror})", field="out") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.writelines(lines)
        quads = sum(1 for _ in ox.parse(path=temporary, format=ox.RdfFormat.TRIG))
        os.replace(temporary, out)
        return quads
    except _BadRow as problem:  # only the manifest's text is checked this late
        raise InvalidInput(f"manifest.json: {problem}", field="manifest.json") from None
    except SyntaxError as error:
        raise InvalidInput(f"{out.name}: the TriG written does not parse back ({error})", field="out") from None
    except OSError as error:
        raise InvalidInput(f"{out}: cannot write there ({error.strerror})", field="out") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


# -- the API ---------------------------------------------------------------------------------
def read_bundle(directory: Path, *, lenient: bool = False) -> tuple[_Bundle, list[Skipped]]:
    """Read and check every row of a bundle (nothing is written)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InvalidInput(f"{directory}: no such bundle directory", field="directory")
    manifest = _manifest(directory)
    domain = _domain(manifest, directory)
    base = f"{BUNDLE_BASE}{domain}/"
    bundle = _Bundle(directory, manifest, domain, base, _Ids(base))
    rows = _Rows(lenient)
    _read_entities(bundle, rows)
    _read_relationships(bundle, rows)
    _read_evidence(bundle, rows)
    _paper_metadata(bundle)
    return bundle, rows.skipped


def import_bundle(
    directory: Path, out: Path | None = None, *, lenient: bool = False, description: str | None = None,
) -> BundleReport:
    """Convert the bundle in `directory` to RDF 1.2 TriG at `out` (default: ./<dir>.trig).

    Strict by default: the first bad row raises `InvalidInput` naming file and line, and
    nothing is written. `lenient=True` skips bad rows (and rows naming them) and lists
    each in `BundleReport.skipped`. `description` replaces the graph description made
    from the manifest.
    """
    bundle, skipped = read_bundle(directory, lenient=lenient)
    out = Path(out) if out is not None else Path.cwd() / f"{Path(directory).resolve().name}.trig"
    text = description or _description(bundle)
    quads = _write_atomically(out, _render(bundle, text))
    statements = list(bundle.statements.values())
    return BundleReport(
        out=str(out), domain=bundle.domain, description=text,
        entities=len(bundle.entities), statements=len(statements),
        asserted=sum(s.asserted for s in statements), hypothetical=sum(not s.asserted for s in statements),
        evidence=sum(s.evidence for s in statements),
        provenance=sum(len(s.parts) - s.evidence for s in statements),
        quads=quads, prefixes=_prefixes(bundle), local_schemes=dict(bundle.ids.local), skipped=skipped,
    )


def load_into_store(trig: Path, store: ox.Store | None = None) -> ox.Store:
    """The TriG in a pyoxigraph Store (a new in-memory one unless given). Open it with
    `Gateway.open(store, prefixes=bundle_prefixes(trig))` so IDs come back as CURIEs."""
    store = store if store is not None else ox.Store()
    store.bulk_load(path=str(trig), format=ox.RdfFormat.TRIG)
    return store


def bundle_prefixes(trig: Path) -> dict[str, str]:
    """The @prefix lines of an imported TriG (its own schemes, such as prov: and stmt:)."""
    from gateway.backends.embedded import scan_prefixes

    return scan_prefixes(Path(trig))


def load_bundle_store(trig: Path, directory: Path, *, lenient: bool = False, show_progress: bool = False) -> LoadReport:
    """Bulk-load the TriG into the on-disk store at `directory` (prefixes and search index beside it)."""
    from gateway.loading import load_store

    return load_store([Path(trig)], Path(directory), lenient=lenient, show_progress=show_progress)


def is_bundle(path: Path) -> bool:
    path = Path(path)
    return path.is_dir() and ((path / "entities.jsonl").is_file() or (path / "manifest.json").is_file())


def open_bundle(source: Path, *, lenient: bool = False) -> Gateway:
    """A Gateway over a bundle directory (imported to a temporary TriG, loaded into
    memory), or over an RDF file or store directory as `Gateway.open` takes them."""
    from gateway.api import Gateway

    source = Path(source)
    if not is_bundle(source):
        return Gateway.open(source, lenient=lenient)
    with tempfile.TemporaryDirectory(prefix="bfsql-bundle-") as scratch:
        report = import_bundle(source, Path(scratch) / f"{source.resolve().name}.trig", lenient=lenient)
        return Gateway.open(report.out)


def default_medlit_dir() -> Path:
    """The medlit bundle: $BFSQL_MEDLIT, else ../shared/data/medlit beside a checkout."""
    from gateway.resources import resource_dir

    configured = os.environ.get("BFSQL_MEDLIT")
    candidates = [Path(configured)] if configured else []
    candidates.append(resource_dir("data").parent.parent / "shared" / "data" / "medlit")
    for candidate in candidates:
        if is_bundle(candidate):
            return candidate
    raise InvalidInput(
        f"the medlit bundle is not at {candidates[-1]}; set BFSQL_MEDLIT to its directory", field="data",
    )


# -- the command line ---------------------------------------------------------------------
def add_import_bundle_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`import-bundle DIR --out FILE.trig [--store DIR] [--lenient]`."""
    parser.add_argument("directory", type=Path, help="the bundle directory (manifest.json, entities.jsonl, ...)")
    parser.add_argument("--out", type=Path, default=None, help="the TriG file to write (default ./<DIR name>.trig)")
    parser.add_argument("--store", type=Path, default=None, help="also bulk-load it into this on-disk store directory")
    parser.add_argument("--lenient", action="store_true", help="skip bad rows, listing each, instead of stopping")
    return parser


def import_bundle_command(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """`bfsql import-bundle`: takes parsed arguments (from `add_import_bundle_arguments`)
    or an argv list. Prints the report as JSON and each skipped row on stderr."""
    if not isinstance(args, argparse.Namespace):
        parser = add_import_bundle_arguments(argparse.ArgumentParser(prog="bfsql import-bundle"))
        args = parser.parse_args(args)
    try:
        report = import_bundle(args.directory, args.out, lenient=args.lenient)
        summary = report.to_dict()
        if args.store is not None:
            loaded = load_bundle_store(Path(report.out), args.store, show_progress=True)
            summary["store"] = {"directory": str(args.store), "quads": loaded.quads}
    except GatewayError as error:
        print(f"bfsql: {error.message}", file=sys.stderr)
        return 2 if error.code == "invalid_input" else 1
    for row in report.skipped:
        print(f"bfsql: skipped {row}", file=sys.stderr)
    summary.pop("skipped")
    summary["skipped"] = len(report.skipped)
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 0


# -- the medlit demo --------------------------------------------------------------------
ALL_STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]


def run_medlit_demo(gateway: Gateway) -> None:
    """The book's worked session ("Desmopressin in the Medlit Graph"), step by step."""
    from gateway.models import Subgraph

    schema = gateway.describe_schema()
    _step(
        "1. Orient", "describe_schema()",
        "Entity types and predicates come from the graph: nothing to memorize, nothing to guess.",
        {"graph_description": schema.graph_description,
         "entity_types": [f"{t.id} ({t.count})" for t in schema.entity_types],
         "predicates": [f"{p.id} ({p.count})" + (f" {p.traits}" if p.traits else "") for p in schema.predicates],
         "truth_statuses": schema.truth_statuses},
    )
    search = gateway.search_entities("desmopressin", limit=5)
    _step(
        "2. Resolve", 'search_entities("desmopressin")',
        "The drug is an exact label match; two papers mention it in their titles. The ID is what the walk takes.",
        [{"id": h.id, "entity_type": h.entity_type, "label": h.label, "match": h.match} for h in search.results],
    )
    survey = gateway.bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True, truth_status=ALL_STATUSES)
    assert isinstance(survey, Subgraph)
    size = len(survey.model_dump_json(exclude_none=True))
    _step(
        "3. Survey the topology",
        'bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True, truth_status=[all five])',
        f"{survey.node_count} nodes, {survey.edge_count} edges, all stubs: {size:,} characters. "
        "The hubs are the traversal axes the book reads off this survey.",
        {"hop_counts": survey.hop_counts, "hubs": _hubs(gateway, survey), "hidden_by_filter": survey.hidden_by_filter},
    )
    default = gateway.bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True)
    _step(
        "3b. The same walk with the default truth_status",
        'bfs_query(seeds=["RxNorm:3251"], max_hops=2, topology_only=True)',
        "Suggested and speculative claims are hypothetical: crossed only when asked for; hidden_by_filter says how many.",
        {"node_count": default.node_count, "edge_count": default.edge_count, "hidden_by_filter": default.hidden_by_filter},
    )
    entity = gateway.describe_entity("https://dbpedia.org/page/Cushing's_disease")
    _step(
        "4. Drill down selectively", "describe_entity(\"https://dbpedia.org/page/Cushing's_disease\")",
        "The canonical URL resolves to the entity's CURIE; full data is paid for only here.",
        entity.model_dump(exclude_none=True),
    )


def _step(title: str, call: str, lesson: str, payload: Any) -> None:
    """One step of a demo: the call, what it returned (abridged), what it shows."""
    print(f"\n== {title}\n>>> {call}")
    print(json.dumps(payload, indent=1, ensure_ascii=False)[:2400])
    print(f"-- {lesson}")


def _hubs(gateway: Gateway, survey: Any, top: int = 4) -> dict[str, str]:
    """The best-connected nodes of a subgraph (its traversal axes), with their labels."""
    degree: dict[str, int] = {}
    for edge in survey.edges:
        for end in {edge.subject, edge.object}:
            degree[end] = degree.get(end, 0) + 1
    best = sorted(degree.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    labels = {e.id: e.label for e in gateway.describe_entities([node for node, _ in best]).entities}
    return {node: f"{labels.get(node)}: {count} edges" for node, count in best}
