"""Wikibase's own entity search, asked through a query service's MediaWiki API bridge.

The generic search (`gateway.engine.search.SearchIndex`) reads every name in the graph into a
full-text index once. Against query.wikidata.org that would mean reading over a billion
labels, so there the gateway asks Wikidata's own entity search instead, through the
query service's MediaWiki API bridge (`SERVICE wikibase:mwapi`, API "EntitySearch", the
`wbsearchentities` module behind the search box on wikidata.org): one SPARQL query per
search, answering with the same `SearchHit`s, best first.

Which search a graph gets is its profile's choice (`Profile.entity_searcher`, set with
`WikidataProfile.configured(entity_search=...)`): "mwapi" where asked; on "auto", mwapi on
Wikimedia's own query services (the hosts in `WIKIDATA_QUERY_HOSTS`), whatever the profile
reading them. The mwapi bridge exists only on Blazegraph services built for Wikibase (the
query service's own software), and its EntitySearch answers from the wiki it is pointed
at (`mwapi_host`), so it is used only where known to be there, never probed for: a probe
would send other stores a SERVICE call to the outside world.

`MwapiEntitySearch` has the `search(query, types, limit, to_id)` method of `SearchIndex`
(`gateway.profiles.graph.EntitySearch`); `entity_search_for` picks it for a backend.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from gateway.backends.base import Backend, Rows
from gateway.models import Match, SearchHit
from gateway.sparql import integer, iris, literal, render
from gateway.terms import Literal, text_of
from gateway.values import entity_type

WIKIDATA_QUERY_HOSTS = frozenset({
    "query.wikidata.org", "query-main.wikidata.org", "query-scholarly.wikidata.org", "query-legacy-full.wikidata.org",
})
"""Wikimedia's Wikidata query services (the full graph, its main and scholarly halves)."""
MAX_RESULTS = 50
"""wbsearchentities answers at most 50 entities per call; one call is made per search."""
T = TypeVar("T")
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]+)?$")
MWAPI_HOST = "www.wikidata.org"


def is_wikidata_query_service(backend: Backend) -> bool:
    """Whether `backend` talks to Wikidata's query service."""
    endpoint = backend.capabilities.endpoint
    if endpoint is None:
        return False
    return (urlsplit(endpoint).hostname or "").lower() in WIKIDATA_QUERY_HOSTS


class MwapiEntitySearch:
    """Entity search through Wikidata's EntitySearch API, inside a SPARQL query."""

    def __init__(self, backend: Backend, *, language: str = "en", kind: str = "item", host: str = MWAPI_HOST) -> None:
        if not _LANGUAGE.match(language):
            raise ValueError(f"not a language code: {language!r}")
        if kind not in ("item", "property", "lexeme", "form", "sense"):
            raise ValueError(f"not a Wikibase entity type: {kind!r}")
        if not _HOST.match(host):
            raise ValueError(f"not a host name: {host!r}")
        self.backend = backend
        self.language = language
        self.kind = kind
        self.host = host

    def query(self, text: str, types: set[str] | None, limit: int) -> str:
        """The SPARQL text for one search (every value escaped or checked)."""
        return render(
            "wikidata/entity_search", ["types"] if types else [], search=literal(text), language=literal(self.language),
            kind=literal(self.kind), host=literal(self.host), limit=integer(max(1, min(limit, MAX_RESULTS))),
            types=iris(sorted(types or ()), ", "),
        )

    def search(self, query: str, types: set[str] | None, limit: int, to_id: Callable[[str], str]) -> list[SearchHit]:
        """Up to `limit` entities named like `query`, in the order Wikidata ranks them.

        `types` keeps entities with one of these wdt:P31 values (an empty set: none, as
        the generic index does when no named type exists in the graph).
        """
        if types is not None and not types:
            return []
        _, rows = self.backend.select(self.query(query, types, limit))
        return hits_from_rows(rows, query, limit, to_id)

    def close(self) -> None:
        """Nothing to release: the backend belongs to the gateway."""


def hits_from_rows(rows: Rows, query: str, limit: int, to_id: Callable[[str], str]) -> list[SearchHit]:
    """One hit per entity (rows repeat an entity once per P31 value), in the generic
    index's tiers (exact label, alias, prefix, other), Wikidata's order within a tier."""
    entities: dict[str, _Entity] = {}
    for item, ordinal, label, matched, text, type_ in rows:
        if not isinstance(item, str):
            continue
        entry = entities.get(item)
        if entry is None:
            entry = entities[item] = _Entity(_number(ordinal), text_of(label), _match(text_of(matched), text_of(text), query))
        if isinstance(type_, str):
            entry.types.append(type_)
    ranked = sorted(entities.items(), key=lambda kv: (TIERS.index(kv[1].match), kv[1].ordinal, kv[0]))[:limit]
    return [
        SearchHit(
            id=to_id(iri), label=entry.label or None, entity_type=entity_type(entry.types, to_id),
            score=tier_score(entry.match, position, len(ranked)), match=entry.match,
        )
        for position, (iri, entry) in enumerate(ranked)
    ]


@dataclass
class _Entity:
    ordinal: float
    label: str
    match: Match
    types: list[str] = field(default_factory=list)


def entity_search_for(
    backend: Backend, build_index: Callable[[], T], *, language: str = "en", mode: str = "auto", host: str = MWAPI_HOST,
) -> MwapiEntitySearch | T:
    """The search for a backend: the service's EntitySearch when `mode` is "mwapi", or
    "auto" on Wikidata's query service; else `build_index()`."""
    if mode == "mwapi" or (mode == "auto" and is_wikidata_query_service(backend)):
        return MwapiEntitySearch(backend, language=language, host=host)
    return build_index()


def _match(kind: str, matched_text: str, query: str) -> Match:
    """The generic index's match names, from wbsearchentities' match type and text."""
    same = " ".join(matched_text.casefold().split()) == " ".join(query.casefold().split())
    if kind == "label":
        return "exact_label" if same else "prefix"
    if kind == "alias":
        return "alt_label" if same else "prefix"
    return "full_text"


TIERS: tuple[Match, ...] = ("exact_label", "alt_label", "prefix", "full_text")
"""The generic index's tiers, best first."""
_TIER_SCORES = (1.0, 0.9, 0.8, 0.7)


def tier_score(match: Match, position: int, total: int) -> float:
    """The tier's score as in the generic index, lowered a little by position: Wikidata
    gives a rank, not a score, and the scores keep its order."""
    return round(_TIER_SCORES[TIERS.index(match)] - 0.05 * position / max(total, 1), 4)


def _number(term: object) -> float:
    try:
        return float(term.value) if isinstance(term, Literal) else float("inf")
    except ValueError:
        return float("inf")
