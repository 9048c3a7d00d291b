"""search_entities on Wikidata's own query service: its entity search, not a label index.

The generic search (`gateway.engine.search.SearchIndex`) reads every name in the graph into a
full-text index once. Against query.wikidata.org that would mean reading over a billion
labels, so there the gateway asks Wikidata's own entity search instead, through the
query service's MediaWiki API bridge (`SERVICE wikibase:mwapi`, API "EntitySearch", the
`wbsearchentities` module behind the search box on wikidata.org): one SPARQL query per
search, answering with the same `SearchHit`s, best first.

`MwapiEntitySearch` has the `search(query, types, limit, to_id)` method of
`SearchIndex`, so `gateway.engine.search.search_index` can return either; `entity_search_for`
picks one for a backend. It only needs a backend's `select`, so tests run it against a
local fake endpoint with canned answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from gateway.backends.base import Backend, Rows
from gateway.engine.presentation import entity_type
from gateway.models import SearchHit
from gateway.sparql import Sparql, integer, iris, literal
from gateway.terms import Literal, text_of

WIKIDATA_QUERY_HOSTS = frozenset({"query.wikidata.org"})
MAX_RESULTS = 50
"""wbsearchentities answers at most 50 entities per call; one call is made per search."""
T = TypeVar("T")
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")

QUERY = """\
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX bd: <http://www.bigdata.com/rdf#>
PREFIX mwapi: <https://www.mediawiki.org/ontology#API/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
SELECT ?item ?ordinal ?label ?matched ?matchText ?type WHERE {
  SERVICE wikibase:mwapi {
    bd:serviceParam wikibase:api "EntitySearch" ;
                    wikibase:endpoint "www.wikidata.org" ;
                    wikibase:limit "once" ;
                    mwapi:search %(search)s ;
                    mwapi:language %(language)s ;
                    mwapi:type %(kind)s ;
                    mwapi:limit %(limit)s .
    ?item wikibase:apiOutputItem mwapi:item .
    ?ordinal wikibase:apiOrdinal true .
    ?label wikibase:apiOutput mwapi:label .
    ?matched wikibase:apiOutput "match/@type" .
    ?matchText wikibase:apiOutput "match/@text" .
  }
  OPTIONAL { ?item wdt:P31 ?type }
  %(types)s
}
"""
"""`%` slots are filled only with `gateway.sparql` fragments (escaped literals, checked IRIs)."""


def is_wikidata_query_service(backend: Backend) -> bool:
    """Whether `backend` talks to Wikidata's query service."""
    endpoint = backend.endpoint
    if endpoint is None:
        return False
    return (urlsplit(endpoint).hostname or "").lower() in WIKIDATA_QUERY_HOSTS


class MwapiEntitySearch:
    """Entity search through Wikidata's EntitySearch API, inside a SPARQL query."""

    def __init__(self, backend: Backend, *, language: str = "en", kind: str = "item") -> None:
        if not _LANGUAGE.match(language):
            raise ValueError(f"not a language code: {language!r}")
        if kind not in ("item", "property", "lexeme", "form", "sense"):
            raise ValueError(f"not a Wikibase entity type: {kind!r}")
        self.backend = backend
        self.language = language
        self.kind = kind

    def query(self, text: str, types: set[str] | None, limit: int) -> str:
        """The SPARQL text for one search (every value escaped or checked)."""
        wanted = (
            Sparql(f"FILTER(?type IN ({iris(sorted(types), ', ')}))") if types else Sparql("")
        )
        return QUERY % {
            "search": literal(text), "language": literal(self.language), "kind": literal(self.kind),
            "limit": integer(max(1, min(limit, MAX_RESULTS))), "types": wanted,
        }

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
    ranked = sorted(entities.items(), key=lambda kv: (_TIERS.index(kv[1].match), kv[1].ordinal, kv[0]))[:limit]
    return [
        SearchHit(
            id=to_id(iri), label=entry.label or None, entity_type=entity_type(entry.types, to_id),
            score=_score(entry.match, position, len(ranked)), match=entry.match,  # type: ignore[arg-type]
        )
        for position, (iri, entry) in enumerate(ranked)
    ]


@dataclass
class _Entity:
    ordinal: float
    label: str
    match: str
    types: list[str] = field(default_factory=list)


def entity_search_for(backend: Backend, build_index: Callable[[], T], *, language: str = "en") -> MwapiEntitySearch | T:
    """The search for a backend: Wikidata's own on its query service, else `build_index()`."""
    if is_wikidata_query_service(backend):
        return MwapiEntitySearch(backend, language=language)
    return build_index()


def _match(kind: str, matched_text: str, query: str) -> str:
    """The generic index's match names, from wbsearchentities' match type and text."""
    same = " ".join(matched_text.casefold().split()) == " ".join(query.casefold().split())
    if kind == "label":
        return "exact_label" if same else "prefix"
    if kind == "alias":
        return "alt_label" if same else "prefix"
    return "full_text"


_TIERS = ("exact_label", "alt_label", "prefix", "full_text")
_TIER_SCORES = (1.0, 0.9, 0.8, 0.7)


def _score(match: str, position: int, total: int) -> float:
    """The tier's score as in the generic index, lowered a little by position: Wikidata
    gives a rank, not a score, and the scores keep its order."""
    return round(_TIER_SCORES[_TIERS.index(match)] - 0.05 * position / max(total, 1), 4)


def _number(term: object) -> float:
    try:
        return float(term.value) if isinstance(term, Literal) else float("inf")
    except ValueError:
        return float("inf")
