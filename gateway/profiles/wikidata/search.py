"""search_entities on a Wikidata-style graph too large to index: label lookups.

The generic search (`gateway.engine.search.SearchIndex`) reads every name in the graph into
a full-text index once; Wikimedia's own query services answer through Wikidata's entity
search (`gateway.profiles.mwapi`). Elsewhere on a graph too large to index (a bounded
wikidata profile), `LabelSearch` looks the query up as an exact label or alias, a few
spellings at once: index lookups, never a scan.
"""

from __future__ import annotations

import string
from collections.abc import Callable

from gateway.models import Match, SearchHit
from gateway.profiles.base import Profile
from gateway.profiles.graph import Graph, TypesOf
from gateway.profiles.mwapi import tier_score
from gateway.sparql import integer, joined, tagged
from gateway.terms import text_of
from gateway.values import entity_type

LABEL_ROWS = 500
"""Entities one label lookup reads: a name shared by more is better narrowed by type."""


class LabelSearch:
    """Entities whose label or alias is the query, in a few spellings (as typed, lower case,
    capitalised), in the configured language and "mul": one query of index lookups
    (`queries/wikidata/label_search.rq`), then the hits' types and labels (bounded by the
    hits). Labels rank before aliases; within each, the lower item number first (the
    older item, as a rule the better known: Q42 before Q28421831)."""

    def __init__(self, graph: Graph, profile: Profile, types_of: TypesOf) -> None:
        self.graph = graph
        self.profile = profile
        self.types_of = types_of

    def search(self, query: str, types: set[str] | None, limit: int, to_id: Callable[[str], str]) -> list[SearchHit]:
        if types is not None and not types:
            return []
        text = " ".join(query.split())
        if not text:
            return []
        matched = self._matches(text)
        found = sorted(matched)
        kinds = self.types_of(found)
        if types is not None:
            found = [x for x in found if types & set(kinds.get(x, ()))]
        ranked = sorted(found, key=lambda x: (matched[x] != "exact_label", _item_number(x), x))[:limit]
        labels = self.graph.labels(ranked)
        return [
            SearchHit(id=to_id(x), label=labels.get(x), entity_type=entity_type(kinds.get(x, ()), to_id),
                      score=tier_score(matched[x], position, len(ranked)), match=matched[x])
            for position, x in enumerate(ranked)
        ]

    def _matches(self, text: str) -> dict[str, Match]:
        """Entity -> how it matched: "exact_label", else "alt_label"."""
        spellings = dict.fromkeys((text, text.lower(), string.capwords(text), text[:1].upper() + text[1:]))
        languages = dict.fromkeys((self.graph.settings.language, "mul"))
        texts = joined(tagged(s, language) for s in spellings for language in languages)
        rows = self.profile.select("label_search", texts=texts, limit=integer(LABEL_ROWS))
        matched: dict[str, Match] = {}
        for x, kind in rows:
            if isinstance(x, str) and (x not in matched or text_of(kind) == "label"):
                matched[x] = "exact_label" if text_of(kind) == "label" else "alt_label"
        return matched

    def close(self) -> None:
        """Nothing to release."""


def _item_number(iri: str) -> int:
    local = iri.rsplit("/", 1)[-1]
    return int(local[1:]) if local[1:].isdigit() else 1 << 62
