"""A bundle as the importer holds it: its nodes and statements, IDs, Turtle terms, the report."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gateway.errors import InvalidInput
from gateway.ids import check_iri, load_prefix_records
from gateway.terms import BFS, RDF, XSD

BUNDLE = "https://w3id.org/bfsql/bundle#"
"""Namespace of the bundle format's own fields (``bundle:usage_count``), shared by every domain."""
BUNDLE_BASE = "https://w3id.org/bfsql/bundle/"
"""Each domain gets ``BUNDLE_BASE + domain + "/"`` for its types, predicates and local IDs."""

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
PASSAGE_PREFIX = "passage"
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
ENTITY_MAPPED = frozenset({"entity_id", "entity_type", "name", "canonical_url", "properties", "supporting_documents"})
RELATIONSHIP_MAPPED = frozenset({"subject_id", "predicate", "object_id", "confidence", "source_documents", "properties"})
BOOKKEEPING = frozenset({
    "created_at", "usage_count", "source", "status", "first_seen_document", "first_seen_section",
    "total_mentions", "evidence_count", "provenance",
})
"""Bundle fields that record how the bundle was made, declared `rdfs:subPropertyOf
bfs:bookkeeping`: walking tools leave them out, describe_entity shows them."""
EVIDENCE_MAPPED = {
    "document_id": "documentId", "start_offset": "startOffset", "end_offset": "endOffset", "text_span": "textSpan",
}

PN_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?")
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
    passages: int = 0
    """Distinct evidence texts, each a passage of its paper."""
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


class BadRow(Exception):
    """One row cannot be imported; the caller adds file and line."""


class Rows:
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
class Ids:
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
            raise BadRow(f"{what} must be a non-empty string, got {value!r}")
        prefix, local = self._split(value)
        if prefix.casefold() in BUNDLE_LOCAL_SCHEMES or prefix.casefold() not in self.known:
            namespace = self._local_namespace(prefix, value, what)
        else:
            prefix, namespace = self.known[prefix.casefold()]
            self.used[prefix] = namespace
        return Iri(checked_iri(namespace + local, f"{what} {value!r}"))

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
        if not _PN_PREFIX.fullmatch(prefix) or prefix in STANDARD_PREFIXES or prefix in (STATEMENT_PREFIX, PASSAGE_PREFIX):
            raise BadRow(f"{what} {value!r}: cannot use {prefix!r} as an ID scheme")
        return self.local.setdefault(prefix, f"{self.base}{prefix}/")


def checked_iri(iri: str, what: str) -> str:
    try:
        return check_iri(iri, what)
    except InvalidInput:
        raise BadRow(f"{what} is not a valid IRI") from None


def passage_iri(base: str, document: str, index: int) -> Iri:
    """A passage's IRI: its document's ID and its index, in the bundle's passage namespace."""
    return Iri(f"{base}{PASSAGE_PREFIX}/{escape_local(document)}-{index}")


def statement_iri(base: str, key: str) -> str:
    """A stable statement IRI from the relationship key: the same relationship in a
    later bundle version gets the same ID."""
    return f"{base}{STATEMENT_PREFIX}/{hashlib.sha256(key.encode()).hexdigest()[:12]}"


# -- Turtle terms ---------------------------------------------------------------------
class Terms:
    """Writes IRIs as prefixed names where the local part allows it, else as <IRI>."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = prefixes
        self._by_length = sorted(prefixes.items(), key=lambda kv: -len(kv[1]))

    def iri(self, iri: str) -> str:
        for prefix, namespace in self._by_length:
            if iri.startswith(namespace) and PN_LOCAL.fullmatch(iri[len(namespace):]):
                return f"{prefix}:{iri[len(namespace):]}"
        return f"<{iri}>"


def turtle_string(text: str) -> str:
    if _SURROGATE.search(text):
        raise BadRow("a string holds an unpaired UTF-16 surrogate")
    escaped = "".join(_ESCAPES.get(c, c if c >= " " and c != "\x7f" else f"\\u{ord(c):04X}") for c in text)
    return f'"{escaped}"'


def literals(value: Any) -> list[str]:
    """A JSON value as Turtle literals: one per list item; nothing for null."""
    if value is None:
        return []
    if isinstance(value, list):
        return [text for item in value for text in (_nested(item) if isinstance(item, (list, dict)) else literals(item))]
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
        return [f"{turtle_string(text)}^^xsd:dateTime"]
    return [turtle_string(text)]


def _nested(value: Any) -> list[str]:
    """Structure the bundle nests where this mapping expects none: kept whole, as rdf:JSON."""
    return [f"{turtle_string(json.dumps(value, ensure_ascii=False, sort_keys=True))}^^rdf:JSON"]


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


def name_iri(namespace: str, name: object, what: str) -> Iri:
    """An IRI whose local name is the bundle's spelling (percent-encoded only if it must be)."""
    if not isinstance(name, str) or not name.strip():
        raise BadRow(f"{what} must be a non-empty string, got {name!r}")
    return Iri(checked_iri(namespace + escape_local(name), f"{what} {name!r}"))


# -- the bundle, read ---------------------------------------------------------------------
@dataclass
class Node:
    """A subject and its (predicate, object) pairs, as Turtle terms."""

    subject: str
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def add(self, predicate: str, objects: Sequence[str]) -> None:
        self.pairs.extend((predicate, o) for o in objects)


@dataclass
class Statement:
    key: str
    triple: tuple[str, str, str]
    reifier: str
    asserted: bool
    data: Node
    parts: list[Node] = field(default_factory=list)
    """Provenance items and evidence spans: nodes of their own under the statement's IRI."""
    evidence: int = 0


@dataclass
class Bundle:
    directory: Path
    manifest: dict[str, Any]
    domain: str
    base: str
    ids: Ids
    terms: Terms | None = None
    entities: dict[str, Node] = field(default_factory=dict)
    entity_lines: dict[str, int] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    predicates: dict[str, str] = field(default_factory=dict)
    statements: dict[str, Statement] = field(default_factory=dict)
    statement_lines: dict[str, int] = field(default_factory=dict)
    reifiers: dict[str, str] = field(default_factory=dict)
    passages: dict[str, dict[str, int]] = field(default_factory=dict)
    """Document ID -> its distinct evidence texts, each with its index in bundle order."""


def bundle_field(name: str) -> str:
    """The predicate term for a bundle field: bundle:<field>, the field's own spelling."""
    if PN_LOCAL.fullmatch(name):
        return f"bundle:{name}"
    return f"<{checked_iri(BUNDLE + escape_local(name), f'field {name!r}')}>"


def escape_local(name: str) -> str:
    """A name as an IRI's last segment: letters and digits of any script kept, the rest
    percent-encoded (so a name cannot add a path, query or fragment)."""
    return re.sub(r"[^\w.~-]", lambda m: quote(m.group(), safe=""), name)
