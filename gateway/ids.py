"""Canonical IDs: every ID in and out of the gateway passes through one `IdMapper`.

Input may be a CURIE (any case of a known prefix, or a prefix synonym), a full IRI
(in either scheme, http or https, of its namespace), an IRI in angle brackets (never read
as a CURIE), or, for predicates and types, a bare local name that is unambiguous in the
graph. Output is the canonical CURIE, or the whole IRI when no prefix covers it.

One ID names one IRI, up to its http/https spelling (`same_iri`): a page or document
about an entity (``https://www.wikidata.org/wiki/Q42``) is another node, never shown under
the entity's CURIE; `gateway.authorities` reads such a URL as the entity's ID on input
(docs/canonical-ids.md, "One ID, one node").

Validation happens here, before anything can reach SPARQL text: an ID that cannot be
an IRI raises `InvalidInput` naming the field; a well-formed ID the gateway cannot map
(an unknown prefix, a bare name for an entity) comes back as ``None`` so the caller can
report it as unresolved.
"""

from __future__ import annotations

import csv
import difflib
import importlib.resources
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache

import curies
import pyoxigraph as ox

from gateway.errors import InvalidInput
from gateway.resources import resource_dir

MAX_ID_LENGTH = 4096

# Characters that can never appear in an IRI (RFC 3987) and would break out of `<...>`.
_FORBIDDEN = re.compile(r'[\x00-\x20\x7f<>"{}|^`\\]')
# Control, format (bidi overrides, zero-width), separator, private-use and surrogate characters:
# an ID holding one is shown with it escaped (`\u202E`), so it never displays as another.
_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cs"})
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_BARE = re.compile(r"^[A-Za-z_][\w\-]*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
# IRIs whose scheme is one of these are taken as IRIs even without "//".
_OPAQUE_SCHEMES = frozenset({"urn", "mailto", "tag", "info", "doi", "isbn", "data"})


class UnnameableId(InvalidInput):
    """An ID written as the gateway shows an IRI no SPARQL query can name (kept by a lenient
    load): refused like any such IRI, but told as what it is, since searching for it only
    finds the same ID again."""


@dataclass(frozen=True)
class Resolution:
    """What an input ID resolved to: an IRI, or the reason it did not."""

    iri: str | None
    reason: str | None = None


def load_prefix_records() -> list[dict[str, object]]:
    """The project's extended prefix map (`vocab/prefixes.json`)."""
    with open(resource_dir("vocab") / "prefixes.json", encoding="utf-8") as handle:
        records: list[dict[str, object]] = json.load(handle)
    return records


# Namespaces a registry's prefix would misname: a whole site (`w3id:bfsql/hpo#x` for
# `https://w3id.org/bfsql/hpo#x`; prefix.cc maps hosts to whims), or the domains reserved
# for examples (RFC 2606), whose "ex" is someone's habit, not a name the data chose.
_UNNAMEABLE_NAMESPACE = re.compile(r"^[a-z]+://([^/]+/?|([^/]*\.)?example(\.(org|com|net))?[/#:].*)$", re.IGNORECASE)
# URI schemes a registry also lists as prefixes: `did:web:x` or `geo:48.2,16.3` in the data is
# an IRI of that scheme, never a CURIE to expand.
_URI_SCHEMES = frozenset({
    "about", "acct", "ark", "bitcoin", "blob", "cid", "crid", "data", "dav", "dict", "did", "dns", "doi", "feed",
    "file", "ftp", "geo", "gopher", "hdl", "http", "https", "im", "imap", "info", "ipp", "isbn", "issn", "jabber",
    "javascript", "jdbc", "ldap", "lsid", "magnet", "mailto", "mid", "news", "nfs", "nntp", "odbc",
    "opaquelocktoken", "pop", "pres", "rtsp", "service", "session", "sip", "sips", "sms", "snmp", "ssh", "tag", "tel",
    "telnet", "tftp", "tv", "urn", "uuid", "vnc", "ws", "wss", "xmpp",
})


@cache
def registry_prefixes() -> tuple[tuple[str, str], ...]:
    """(prefix, namespace) for every canonical entry of a well-kept prefix registry (the
    `prefixmaps` package's merged map: Bioregistry, prefix.cc, OBO, W3ID and others), for
    namespaces neither the project's map nor the data names. Read from its CSVs: loading
    them through the package's own API takes seconds. The merged map writes a linked-data
    vocabulary's prefix in OBO's capitals (`TIME`); prefix.cc's spelling of the same name
    (`time`) is the one its users write."""
    data = importlib.resources.files("prefixmaps") / "data"
    with (data / "prefixcc.csv").open(encoding="utf-8") as handle:
        spelled = {row["namespace"]: row["prefix"] for row in csv.DictReader(handle) if row["status"] == "canonical"}
    with (data / "merged.csv").open(encoding="utf-8") as handle:
        rows = [(row["prefix"], row["namespace"]) for row in csv.DictReader(handle) if row["status"] == "canonical"]
    return tuple(
        (spelled[uri] if spelled.get(uri, "").casefold() == prefix.casefold() else prefix, uri) for prefix, uri in rows
        if _is_usable_namespace(uri) and not _UNNAMEABLE_NAMESPACE.match(uri) and prefix.casefold() not in _URI_SCHEMES
    )


def build_converter(extra_prefixes: Mapping[str, str] | None = None) -> Prefixes:
    """`converter_for`, shared by every graph with the same prefixes (it takes ~0.1 s to build)."""
    return converter_for(tuple(sorted((extra_prefixes or {}).items())))


@lru_cache(maxsize=16)
def converter_for(extra_prefixes: tuple[tuple[str, str], ...]) -> Prefixes:
    """One converter from the project's prefix map plus a store's own prefixes, then the
    prefix registry's (`registry_prefixes`) for namespaces neither names.

    A store's prefix wins a name clash (its author chose it). A store prefix for a
    namespace the project map knows keeps the map's prefix as the ID's, but the data's
    spelling of the namespace is what an ID expands to (`schema:Monday` is
    `http://schema.org/Monday` in data that declares `http://schema.org/`), and the
    store's prefix name is read as a synonym (`sdo:Monday`). A registry entry never
    renames a namespace nor takes a prefix already given.

    A record's URI prefix synonyms other than its namespace's http/https spelling (a
    page's, a resolver's: `_other_resources`) are left out: an IRI there is another
    resource than the one the CURIE names.

    `curies.chain` would merge these layers otherwise: the first layer's prefix and
    spelling both lead (`sdo:Monday` as the ID), and a registry entry whose prefix is taken
    joins that record as another spelling of it (payswarm's namespace read as Wikidata's
    `ps:`). So the layers are laid by the rules above.
    """
    records = [curies.Record(**r) for r in load_prefix_records()]  # type: ignore[arg-type]
    owners = {uri: record.prefix for record in records for uri in _other_resources(record)}
    for record in records:
        record.uri_prefix_synonyms = [u for u in record.uri_prefix_synonyms if u not in owners]
    for prefix, uri in extra_prefixes:
        if prefix and _is_usable_namespace(uri):
            records = _with_data_prefix(records, prefix, uri)
    chosen = frozenset(name.casefold() for r in records for name in (r.prefix, *r.prefix_synonyms))
    taken = set(owners) - {uri for r in records for uri in (r.uri_prefix, *r.uri_prefix_synonyms)}
    kept = {r.prefix for r in records}
    pages = {page: owners[page] for page in sorted(taken) if owners[page] in kept}
    return Prefixes([*records, *_registry_records(records, taken)], chosen=chosen, pages=pages)


def same_iri(one: str, other: str) -> bool:
    """Whether two IRIs (or namespaces) are one written in two schemes, http and https: the
    only spellings an ID merges. Any other URL form of an ID (Wikidata's
    `https://www.wikidata.org/wiki/Q42` page, DBpedia's `/page/`, a resolver's) names another
    resource, which a graph may hold beside the entity with statements of its own."""
    if one == other:
        return True
    scheme, sep, rest = one.partition("://")
    other_scheme, other_sep, other_rest = other.partition("://")
    return bool(sep and other_sep) and rest == other_rest and {scheme, other_scheme} <= {"http", "https"}


def _other_resources(record: curies.Record) -> list[str]:
    """The URI prefix synonyms of a prefix-map record that are no spelling of its namespace
    (`same_iri`): read by `gateway.authorities` as URL forms of an ID, never compressed to
    the ID, so that two nodes of one graph never share one."""
    return [uri for uri in record.uri_prefix_synonyms if not same_iri(uri, record.uri_prefix)]


def _with_data_prefix(records: list[curies.Record], prefix: str, uri: str) -> list[curies.Record]:
    """The records with a store's `@prefix prefix: <uri>` laid over them (`converter_for`
    says how)."""
    known = next((r for r in records if uri == r.uri_prefix or uri in r.uri_prefix_synonyms), None)
    if known is None:
        kept = [r for r in records if r.prefix != prefix and prefix not in r.prefix_synonyms]
        return [*kept, curies.Record(prefix=prefix, uri_prefix=uri)]
    if uri != known.uri_prefix:  # the data's spelling of a known namespace: expand to it
        others = [known.uri_prefix, *(u for u in known.uri_prefix_synonyms if u != uri)]
        known.uri_prefix, known.uri_prefix_synonyms = uri, others
    if prefix != known.prefix and not any(prefix in (r.prefix, *r.prefix_synonyms) for r in records):
        known.prefix_synonyms = [*known.prefix_synonyms, prefix]
    return records


def _registry_records(records: list[curies.Record], taken: set[str]) -> list[curies.Record]:
    """The registry's entries for namespaces `records` lack, under prefixes (in any case)
    they do not use. Not for the `taken` ones either (the project map's other resources of
    an ID: a registry prefix for Wikidata's pages would read `wikidata:Q42`, a synonym of
    `wd:`, as the page)."""
    names = {name.casefold() for r in records for name in (r.prefix, *r.prefix_synonyms)}
    namespaces = {uri for r in records for uri in (r.uri_prefix, *r.uri_prefix_synonyms)} | taken
    added = []
    for prefix, uri in registry_prefixes():
        if prefix.casefold() not in names and uri not in namespaces:
            names.add(prefix.casefold())
            namespaces.add(uri)
            added.append(curies.Record(prefix=prefix, uri_prefix=uri))
    return added


class Prefixes(curies.Converter):
    """A converter that knows which prefixes the project and the data chose (`chosen`,
    casefolded), as against those only the registry gives: a misspelt prefix is told
    with the chosen ones."""

    def __init__(self, records: list[curies.Record], *, chosen: frozenset[str],
                 pages: Mapping[str, str] | None = None) -> None:
        super().__init__(records, strict=False)
        self.chosen = chosen
        self.pages = dict(pages or {})
        """Namespace of pages about IDs -> the prefix of the IDs' own namespace
        (`https://www.wikidata.org/wiki/` -> `wd`): read as that ID where the graph holds
        no such page (`IdMapper.spellings`), never compressed to it."""


def _is_usable_namespace(uri: str) -> bool:
    return bool(_SCHEME.match(uri)) and not _FORBIDDEN.search(uri)


class IdMap(dict[str, str]):
    """IRI -> ID, a plain dict to read at C speed, that maps an IRI it lacks on lookup."""

    __slots__ = ("to_id",)

    def __init__(self, known: dict[str, str], to_id: Callable[[str], str]) -> None:
        super().__init__(known)
        self.to_id = to_id

    def __missing__(self, iri: str) -> str:
        found = self[iri] = self.to_id(iri)
        return found


ID_CACHE_SIZE = 1 << 18
"""IRIs whose IDs are kept (tens of MB at most): a long-running server would otherwise keep
every IRI it ever answered with. Past it the cache starts again."""
_NAMESPACES_MET = 32
"""Namespaces `many_ids` remembers: each IRI in none of them is tried against all."""


class IdMapper:
    """Canonicalizes IDs in both directions for one graph."""

    def __init__(self, converter: curies.Converter, *, vocabulary: str | None = None) -> None:
        self.converter = converter
        # The data's empty prefix (`@prefix : <...>`) names its own vocabulary: its terms
        # come out as bare names ("AUTHORED", "drug"), the cheapest form for an agent.
        self.vocabulary = vocabulary if vocabulary and _is_usable_namespace(vocabulary) else None
        self._out: dict[str, str] = {}
        self._local_names: dict[str, list[str]] = {}
        # The converter's prefix map, made once: `Converter.expand` builds it anew on every
        # call (20 of a seed's 24 us).
        self._expansions = dict(converter.prefix_map)
        # Prefixes match in any case: "RXNORM:3251" and "rxnorm:3251" mean RxNorm:3251.
        self._prefix_by_fold: dict[str, str] = {}
        for record in converter.records:
            for name in (record.prefix, *record.prefix_synonyms):
                self._prefix_by_fold.setdefault(name.casefold(), record.prefix)

    def namespace(self, prefix: str) -> str | None:
        """The namespace a prefix of the converter names (its own, not a synonym's)."""
        return self._expansions.get(prefix)

    def spellings(self, iri: str) -> list[str]:
        """The same IRI in the other spellings of its namespace (`https://schema.org/X` for
        `http://schema.org/X`), for data that uses a spelling its prefixes do not declare;
        for a page about an ID (`https://www.wikidata.org/wiki/Q42`), the ID's IRI in each
        spelling, tried where the graph holds no such page (never the other way round: an
        entity's ID never reaches a page about it)."""
        for page, prefix in self._pages:
            if iri.startswith(page):
                own = self._expansions[prefix] + iri[len(page) :]
                return [own, *self.spellings(own)]
        for forms in self._spelled_several_ways:
            for form in forms:
                if iri.startswith(form):
                    rest = iri[len(form) :]
                    return [other + rest for other in forms if other != form]
        return []

    @cached_property
    def _pages(self) -> list[tuple[str, str]]:
        """(namespace of pages, prefix of their IDs), longest page namespace first."""
        pages = self.converter.pages if isinstance(self.converter, Prefixes) else {}
        found = [(page, prefix) for page, prefix in pages.items() if prefix in self._expansions]
        return sorted(found, key=lambda pair: -len(pair[0]))

    @cached_property
    def _spelled_several_ways(self) -> list[tuple[str, ...]]:
        """The namespaces with more than one spelling (a few among thousands of records:
        `spellings` runs for every seed)."""
        return [forms for record in self.converter.records
                if len(forms := (record.uri_prefix, *record.uri_prefix_synonyms)) > 1]

    # -- output ---------------------------------------------------------------
    def to_id(self, iri: str) -> str:
        """The canonical ID of an IRI: its CURIE, or the IRI itself."""
        known = self._out
        cached = known.get(iri)
        if cached is None:
            bracketed = False
            if self.vocabulary and iri.startswith(self.vocabulary) and _BARE.match(iri[len(self.vocabulary) :]):
                cached = iri[len(self.vocabulary) :]
            else:
                cached = self.converter.compress(iri, passthrough=True) or iri
                if cached != iri and cached.startswith("//", cached.find(":") + 1):
                    cached = iri  # `wd://x` would be read back as a URL of the scheme `wd`
                # `data:Q1`, an IRI of the scheme `data`, where the data's `data:` is a prefix
                bracketed = cached == iri and self._read_as_curie(iri)
            if not cached.isascii() or _FORBIDDEN.search(cached):
                cached = shown(cached)
            if bracketed:
                cached = f"<{cached}>"
            if len(known) >= ID_CACHE_SIZE:
                known = self._out = {}  # replaced, not cleared: a call reading the old one keeps it
            known[iri] = cached
        return cached

    @property
    def cached(self) -> int:
        """IRIs the IRI -> ID cache holds now (at most `ID_CACHE_SIZE`)."""
        return len(self._out)

    def id_map(self, iris: Iterable[str]) -> IdMap:
        """IRI -> ID for many IRIs (a walk's nodes), filled in for any other IRI looked up:
        `to_id` without a call per IRI."""
        seen, to_id = self._out.get, self.to_id
        return IdMap({iri: seen(iri) or to_id(iri) for iri in iris}, to_id)

    def to_ids(self, iris: Iterable[str]) -> list[str]:
        """Canonical IDs of many IRIs (a closure's), as `many_ids` makes them."""
        return list(map(self.many_ids(), iris))

    def many_ids(self) -> Callable[[str], str]:
        """`to_id` for many IRIs (a closure's, a graph's entities): those in a namespace met
        before that no longer namespace could claim skip the prefix map's lookup (a walk
        through a trie in Python, a character at a time) and the cache, which would
        otherwise grow by every ID a large answer holds."""
        met: dict[str, str] = {}
        """Leaf namespace -> its prefix and colon; a few a graph, asked in the order met."""
        to_id, vocabulary = self.to_id, self.vocabulary

        def one(iri: str) -> str:
            for namespace, prefix in met.items():
                # Two leaf namespaces are never both an IRI's: one would extend the other.
                if iri.startswith(namespace):
                    cut = len(namespace)
                    if (len(iri) > cut and shown_as_is(iri) and not iri.startswith("//", cut)
                            and not (vocabulary and iri.startswith(vocabulary))):
                        return prefix + iri[cut:]
                    break
            curie = to_id(iri)
            head, _, local = curie.partition(":")
            namespace = iri[: len(iri) - len(local)]
            if (len(met) < _NAMESPACES_MET and curie != iri and local and iri.endswith(local)
                    and namespace in self._leaf_namespaces and not (vocabulary and namespace.startswith(vocabulary))):
                met[namespace] = head + ":"
            return curie

        return one

    @cached_property
    def _leaf_namespaces(self) -> frozenset[str]:
        """URI prefixes no other known URI prefix extends."""
        namespaces = sorted({uri for r in self.converter.records for uri in (r.uri_prefix, *r.uri_prefix_synonyms)})
        return frozenset(
            ns for i, ns in enumerate(namespaces) if not (i + 1 < len(namespaces) and namespaces[i + 1].startswith(ns))
        )

    # -- input ----------------------------------------------------------------
    def knows_prefix(self, prefix: str) -> bool:
        """Whether `prefix` (in any case) names a namespace here."""
        return prefix.casefold() in self._prefix_by_fold

    def near_prefixes(self, prefix: str) -> list[str]:
        """The known prefixes nearest `prefix` (a misspelt one), at most three."""
        chosen = self.converter.chosen if isinstance(self.converter, Prefixes) else self._prefix_by_fold
        close = difflib.get_close_matches(prefix.casefold(), [p for p in self._prefix_by_fold if p in chosen], n=3,
                                          cutoff=0.6)
        return list(dict.fromkeys(self._prefix_by_fold[c] for c in close))

    def register_local_names(self, iris: Iterable[str]) -> None:
        """Let predicates and types be named by their bare local name."""
        names: dict[str, list[str]] = {}
        for iri in iris:
            local = local_name(iri)
            if local:
                names.setdefault(local, []).append(iri)
                names.setdefault(local.lower(), []).append(iri)
        self._local_names = {k: sorted(set(v)) for k, v in names.items()}

    def resolve(self, value: object, field: str, *, allow_local_name: bool = False, own_schemes: bool = True) -> Resolution:
        """Map one input ID to an IRI, or say why it could not be mapped (an ID with no
        prefix of its name is an IRI of its own scheme unless `own_schemes` is off, or it
        names a predicate or type: `allow_local_name`).

        Raises `InvalidInput` when the value cannot be an ID at all.
        """
        text, bracketed = _id_text(value, field)
        iri = self._iri(text) if bracketed else self._expand(text)
        if iri is None and allow_local_name and ":" not in text:
            matches = self._local_names.get(text) or self._local_names.get(text.lower()) or []
            if len(matches) > 1:
                options = ", ".join(self.to_id(m) for m in matches[:5])
                return Resolution(None, f"the name {text!r} is ambiguous: {options}")
            iri = matches[0] if matches else None
        if iri is None and own_schemes and not allow_local_name and ":" in text and _is_iri(text):
            # An entity ID with no prefix of its name: an IRI of its own scheme (javascript:,
            # did:, tel:), as the gateway returns one. A predicate or type so written is
            # more likely a misspelt prefix, and is told as one.
            iri = text
        if iri is None:
            return Resolution(None, self._unmapped(text, allow_local_name))
        return Resolution(check_iri(iri, field))

    def _unmapped(self, text: str, allow_local_name: bool) -> str | None:
        """Why an ID maps to no IRI (None: a bare name the graph does not hold)."""
        if ":" in text:
            prefix = text.split(":", 1)[0]
            near = self.near_prefixes(prefix)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            return f"unknown prefix {prefix!r}{hint}"
        if allow_local_name:
            return None
        return "a bare name, not an ID; use search_entities to find the ID"

    def _read_as_curie(self, iri: str) -> bool:
        """Whether an IRI written as it is would be read back as a CURIE (its scheme is a
        prefix here and no `//` follows it)."""
        colon = iri.find(":")
        return colon > 0 and not iri.startswith("//", colon + 1) and self.knows_prefix(iri[:colon])

    def _iri(self, text: str) -> str:
        """An IRI in angle brackets: itself, in its namespace's standard spelling."""
        found = self.converter.parse_uri(text) if _SCHEME.match(text) else None
        return text if found is None else self._expansions[found.prefix] + found.identifier

    def _expand(self, text: str) -> str | None:
        if _SCHEME.match(text):
            scheme = text.split(":", 1)[0].lower()
            url = text[len(scheme) + 1 :].startswith("//")
            # A prefix the data or the map chose is read as one before a scheme of the same
            # name (the data's `@prefix data:` makes `data:Q1` a CURIE, not a data URI).
            if url or (scheme in _OPAQUE_SCHEMES and not self.knows_prefix(scheme)):
                # What Converter.standardize_uri gives, without the prefix map it makes
                # anew on every call (1.4 ms with the default prefixes).
                return self._iri(text)
        if ":" not in text:
            if self.vocabulary and _BARE.match(text):
                return self.vocabulary + text
            return None
        prefix, _, local = text.partition(":")
        namespace = self._expansions.get(prefix)
        if namespace is None:
            canonical = self._prefix_by_fold.get(prefix.casefold())
            namespace = self._expansions.get(canonical) if canonical is not None else None
        return namespace + local if namespace is not None else None


def _id_text(value: object, field: str) -> tuple[str, bool]:
    """An input ID as text to map: escapes the gateway shows read back, angle brackets taken
    off (and whether there were: an IRI in them is never read as a CURIE)."""
    text = check_id_text(value, field)
    if "\\" in text:  # an ID as the gateway shows it, with its invisible characters escaped
        read = _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)
        if _FORBIDDEN.search(read) and not _FORBIDDEN.search(_ESCAPE.sub("", text)):
            raise UnnameableId(f"{field}: {text[:200]!r} names an IRI that holds a character no IRI may (a space, "
                               "a control character or one of <>\"{}|^`\\), shown escaped, as a lenient load keeps "
                               "it; no query can name such an IRI, so no tool can ask about it (percent-encode it in "
                               "the data, %20 for a space, and load it again)", field=field)
        text = read
    if text.startswith("<") and text.endswith(">"):
        return check_id_text(text[1:-1], field), True
    if "<" in text or ">" in text:
        raise InvalidInput(f"{field}: {_show(text)} is not an IRI or CURIE", field=field)
    return text, False


def check_id_text(value: object, field: str) -> str:
    """The ID as a stripped string, or `InvalidInput` if it cannot be one."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field}: expected a string ID, got {type(value).__name__}", field=field)
    text = value.strip()
    if not text:
        raise InvalidInput(f"{field}: an ID must not be empty", field=field)
    if len(text) > MAX_ID_LENGTH:
        raise InvalidInput(f"{field}: an ID must be at most {MAX_ID_LENGTH} characters", field=field)
    return text


def check_iri(iri: str, field: str) -> str:
    """An IRI safe to write as `<iri>` in SPARQL, or `InvalidInput`. Invisible characters
    (a zero-width space, a bidi override) are let through: they cannot break out of `<...>`,
    and the store may hold IRIs with them (the gateway shows such IDs escaped)."""
    if _FORBIDDEN.search(iri):
        raise InvalidInput(f"{field}: {shown(iri)} holds a character no IRI may (a space, a control character or one "
                           "of <>\"{}|^`\\)", field=field)
    if not _SCHEME.match(iri):
        raise InvalidInput(f"{field}: {shown(iri)} is not a valid IRI", field=field)
    try:
        ox.NamedNode(iri)
    except ValueError as error:
        raise InvalidInput(f"{field}: {_show(iri)} is not a valid IRI ({error})", field=field) from None
    return iri


def _is_iri(text: str) -> bool:
    if _FORBIDDEN.search(text) or not _SCHEME.match(text):
        return False
    try:
        ox.NamedNode(text)
    except ValueError:
        return False
    return True


def shown(text: str) -> str:
    """An ID as answers show it: every invisible character (control, format such as a bidi
    override or a zero-width space, separator, private use), and every character no IRI
    may hold (kept by a lenient load), written `\\uXXXX`; `IdMapper.resolve` reads it back."""
    return "".join(_escaped(c) if unicodedata.category(c) in _INVISIBLE or c in '<>"{}|^`\\' else c for c in text)


def _escaped(c: str) -> str:
    return f"\\u{ord(c):04X}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08X}"


def local_name(iri: str) -> str:
    """The part of an IRI after its last `#`, `/` or `:`."""
    return iri[max(iri.rfind("#"), iri.rfind("/"), iri.rfind(":")) + 1 :]


def shown_as_is(text: str) -> bool:
    """Whether an ID holding `text` shows it as it is (`shown` escapes none of it)."""
    return text.isascii() and not _FORBIDDEN.search(text)


def _show(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")
