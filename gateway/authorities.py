"""The authorities that mint IDs (MeSH, VIAF, ORCID, MONDO...), so that one ID written
different ways in different stores reads as one: `MESH:D003480` in an ontology's xrefs,
`<http://id.nlm.nih.gov/mesh/D003480>` in Wikidata's normalized claims, `"D003480"` under
Wikidata's P486 and `https://meshb.nlm.nih.gov/record/ui?ui=D003480` on a web page are all
`MeSH:D003480`.

Each authority has one preferred prefix (the project map's spelling when it has one, else
the registry's), every other spelling of it (matched in any case), every URL form of its
IDs, its Wikidata property and the pattern of its local IDs. A local ID that fails the
pattern is no ID of that authority. The data is `vocab/authorities.json`, which
`scripts/build-authorities` makes from the Bioregistry (it says which authorities and why);
the gateway reads only the JSON, once, and compiles a pattern the first time it is used.

Everything here takes caller text: it returns None for what it cannot read as an ID, and
never raises.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from types import MappingProxyType
from typing import NotRequired, TypedDict

from gateway.resources import resource_dir

MAX_LENGTH = 4096
"""Longer text is no ID (the gateway's bound on any ID)."""
MAX_LOCAL_LENGTH = 512
"""Longer local IDs are not matched against a pattern: no authority's IDs are near it, and
a registry's pattern is not written to bound its work on hostile text."""

_OWL, _SKOS = "http://www.w3.org/2002/07/owl#", "http://www.w3.org/2004/02/skos/core#"
IDENTITY_PREDICATES: tuple[str, ...] = (
    _OWL + "sameAs",
    _SKOS + "exactMatch",
    "https://schema.org/sameAs",
    "http://schema.org/sameAs",
)
"""Predicates that say their subject and object are the same thing."""
IDENTIFIER_PREDICATES: tuple[str, ...] = (
    "http://www.geneontology.org/formats/oboInOwl#hasDbXref",
    _SKOS + "notation",
    "http://purl.org/dc/terms/identifier",
    "http://purl.org/dc/elements/1.1/identifier",
)
"""Predicates whose literal object is an ID of the subject (or, for an ontology's xrefs, of
the same thing elsewhere), written as a CURIE or a URL."""

# Characters no ID holds: they would break out of `<...>` or a literal, or display as
# something else (controls, spaces, bidi overrides, zero-width and private-use characters).
_UNSAFE = re.compile(r'[\x00-\x20\x7f<>"{}|^`\\]')
_HIDDEN = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cs", "Cn"})
_SEPARATORS = str.maketrans("", "", " -_./")


@dataclass(frozen=True)
class Authority:
    """One authority that mints IDs."""

    prefix: str
    """The preferred spelling: the project map's (vocab/prefixes.json: "MeSH") if it has
    one, else the registry's."""
    synonyms: tuple[str, ...]
    """The other spellings accepted: case variants and the registry's synonyms."""
    uri_prefixes: tuple[str, ...]
    """Every URL form, the canonical one first."""
    wikidata_property: str | None
    """The Wikidata property whose values are its local IDs ("P486" for MeSH)."""
    pattern: str | None
    """The regular expression every local ID matches, when the registry has one."""

    def accepts(self, local: str) -> bool:
        """Whether `local` can be a local ID of this authority."""
        if not local or len(local) > MAX_LOCAL_LENGTH or not _safe(local):
            return False
        compiled = _compiled(self.pattern) if self.pattern else None
        return compiled is None or compiled.fullmatch(local) is not None

    def id(self, local: str) -> CanonicalId | None:
        """The ID `local` of this authority, or None if it cannot be one. A local ID that
        fails the pattern only for a redundant prefix before it (Wikidata's "MONDO_0005301",
        "CVCL_0030", "PR:000013246") is read without it, as the registry reads it."""
        if self.accepts(local):
            return CanonicalId(self, local)
        if self.pattern is None:
            return None
        for banana in _bananas(self):
            if local.startswith(banana) and self.accepts(local[len(banana) :]):
                return CanonicalId(self, local[len(banana) :])
        return None


@dataclass(frozen=True)
class CanonicalId:
    """An ID of an authority, however it was written."""

    authority: Authority
    local: str

    @property
    def curie(self) -> str:
        """The canonical CURIE ("MeSH:D003480")."""
        return f"{self.authority.prefix}:{self.local}"

    def iris(self) -> tuple[str, ...]:
        """Every URL form of this ID, the canonical one first."""
        return tuple(uri + self.local for uri in self.authority.uri_prefixes)

    def literals(self) -> tuple[str, ...]:
        """The identifier literals data writes for it: a CURIE in each spelling of the
        prefix ("MeSH:D003480", "MESH:D003480", "mesh:D003480", "MSH:D003480"...)."""
        return tuple(f"{name}:{self.local}" for name in (self.authority.prefix, *self.authority.synonyms))

    def __str__(self) -> str:
        return self.curie


class _Record(TypedDict):
    """One authority in vocab/authorities.json."""

    prefix: str
    synonyms: list[str]
    uri_prefixes: list[str]
    wikidata: str | None
    pattern: str | None
    banana: NotRequired[str]
    """The redundant prefix some write before a local ID ("CVCL_" for Cellosaurus), when
    it is not a spelling of the prefix."""


class _Registry:
    """The authorities with their lookups, read from the JSON once."""

    def __init__(self, records: list[_Record]) -> None:
        self.authorities = tuple(_authority(record) for record in records)
        self.by_name: dict[str, Authority] = {}
        self.by_uri: dict[str, Authority] = {}
        self.by_property: dict[str, Authority] = {}
        self.bananas = {record["prefix"]: record["banana"] for record in records if record.get("banana")}
        for authority in self.authorities:  # the file's order: the first to claim a name keeps it
            for name in (authority.prefix, *authority.synonyms):
                self.by_name.setdefault(prefix_key(name), authority)
            for uri in authority.uri_prefixes:
                self.by_uri.setdefault(uri, authority)
            if authority.wikidata_property:
                self.by_property.setdefault(authority.wikidata_property, authority)
        # Longest first: the longest URL form an IRI starts with is the one that names it.
        self.uri_lengths = tuple(sorted({len(uri) for uri in self.by_uri}, reverse=True))

    @cached_property
    def property_view(self) -> Mapping[str, Authority]:
        return MappingProxyType(self.by_property)


def _authority(record: _Record) -> Authority:
    prefix = record["prefix"]
    # Data writes the preferred prefix in capitals or in small letters as often as not.
    spellings = dict.fromkeys(s for s in (*record["synonyms"], prefix.upper(), prefix.lower()) if s != prefix)
    return Authority(
        prefix=prefix,
        synonyms=tuple(spellings),
        uri_prefixes=tuple(record["uri_prefixes"]),
        wikidata_property=record["wikidata"] or None,
        pattern=record["pattern"] or None,
    )


@cache
def _registry() -> _Registry:
    with open(resource_dir("vocab") / "authorities.json", encoding="utf-8") as handle:
        records: list[_Record] = json.load(handle)
    return _Registry(records)


@cache
def _bananas(authority: Authority) -> tuple[str, ...]:
    """What may stand before a local ID: the prefix in any spelling, then ":" or "_"."""
    names = (authority.prefix, *authority.synonyms)
    banana = _registry().bananas.get(authority.prefix)
    return (*((banana,) if banana else ()), *(name + peel for name in names for peel in (":", "_")))


@cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:  # the build keeps only patterns Python reads; a hand-edited file may not
        return None


def _safe(text: str) -> bool:
    if _UNSAFE.search(text):
        return False
    return text.isascii() or not any(unicodedata.category(c) in _HIDDEN for c in text)


def _readable(text: object) -> str | None:
    """`text` without surrounding spaces, if it can hold an ID at all."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return None
    text = text.strip()
    return text if text and _safe(text) else None


def prefix_key(prefix: str) -> str:
    """What two spellings of one prefix share: case and separators aside, as the registry
    matches them ("ICD-9", "icd9", "ICD_9")."""
    return prefix.casefold().translate(_SEPARATORS)


def authorities() -> tuple[Authority, ...]:
    """Every authority the registry holds."""
    return _registry().authorities


def authority(prefix: str) -> Authority | None:
    """The authority a prefix names, in any of its spellings, in any case (`prefix_key`)."""
    if not isinstance(prefix, str) or len(prefix) > MAX_LENGTH:
        return None
    return _registry().by_name.get(prefix_key(prefix))


def parse_id(text: str) -> CanonicalId | None:
    """An ID written as a CURIE in any spelling of its prefix, as any URL form of it, or
    as either in angle brackets."""
    if isinstance(text, str) and text[:1] == "<" and text[-1:] == ">" and len(text) <= MAX_LENGTH:
        text = text[1:-1]
    readable = _readable(text)
    if readable is None:
        return None
    return _of_curie(readable) or of_iri(readable)


def of_iri(iri: str) -> CanonicalId | None:
    """The ID an IRI is a URL form of ("http://purl.obolibrary.org/obo/MONDO_0005015" is
    MONDO:0005015, Wikidata's normalized "http://id.nlm.nih.gov/mesh/D003480" MeSH:D003480)."""
    if not isinstance(iri, str) or len(iri) > MAX_LENGTH or not _safe(iri):
        return None
    registry = _registry()
    for length in registry.uri_lengths:
        found = registry.by_uri.get(iri[:length]) if length < len(iri) else None
        # A longer form whose rest fails the pattern is a form for other IDs (the registry
        # lists ".../pmc/articles/PMC" for IDs written without "PMC"): a shorter one may fit.
        parsed = found.id(iri[length:]) if found is not None else None
        if parsed is not None:
            return parsed
    return None


def of_literal(text: str) -> CanonicalId | None:
    """The ID an identifier literal writes ("MESH:D003480", "MONDO:0005015", or a URL)."""
    readable = _readable(text)
    return None if readable is None else _of_curie(readable) or of_iri(readable)


def of_wikidata_claim(property_id: str, value: str) -> CanonicalId | None:
    """The ID a Wikidata claim's value is (("P486", "D003480") is MeSH:D003480); a value
    written as a CURIE of the property's authority ("HP:0000118") is read too."""
    if not isinstance(property_id, str) or len(property_id) > 16:
        return None
    found = _registry().by_property.get(property_id.strip().upper())
    readable = _readable(value)
    if found is None or readable is None:
        return None
    direct = found.id(readable)
    if direct is not None:
        return direct
    curie = _of_curie(readable)
    return curie if curie is not None and curie.authority is found else None


def by_wikidata_property() -> Mapping[str, Authority]:
    """Wikidata property ("P486") -> the authority whose local IDs its values are."""
    return _registry().property_view


def _of_curie(text: str) -> CanonicalId | None:
    prefix, colon, local = text.partition(":")
    if not colon:
        return None
    found = _registry().by_name.get(prefix_key(prefix))
    return None if found is None else found.id(local)
