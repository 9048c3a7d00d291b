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

from gateway.models import SearchHit
from gateway.models.outputs import EXACT_SCORES
from gateway.profiles.base import Profile
from gateway.profiles.graph import Graph, TypesOf
from gateway.sparql import integer, joined, tagged
from gateway.terms import text_of
from gateway.values import entity_type

LABEL_ROWS = 500
"""Entities one label lookup reads: a name shared by more is better narrowed by type."""


class LabelSearch:
    """Entities whose label or alias is the query, in a few spellings (as typed, lower case,
    capitalised), in the configured language and "mul": one query of index lookups
    (`queries/wikidata/label_search.rq`), then the hits' types and labels (bounded by the
    hits). Labels rank before aliases, each written as the query is before another spelling
    of it (`EXACT_SCORES`); within each grade, the lower item number first (the older item,
    as a rule the better known: Q42 before Q28421831), hits of one grade marked tied by
    search_entities."""

    graded = True
    """Scores say how a hit matched (`gateway.engine.search.SearchIndex.graded`)."""

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
        ranked = sorted(found, key=lambda x: (matched[x], _item_number(x), x))[:limit]
        labels = self.graph.labels(ranked)
        return [
            SearchHit(id=to_id(x), label=labels.get(x), entity_type=entity_type(kinds.get(x, ()), to_id),
                      score=EXACT_SCORES[matched[x]], match="exact_label" if matched[x] < 2 else "alt_label")
            for x in ranked
        ]

    def _matches(self, text: str) -> dict[str, int]:
        """Entity -> its best grade (`EXACT_SCORES`): a label before an alias, each written
        as the query is before another spelling of it."""
        spellings = dict.fromkeys((text, text.lower(), string.capwords(text), text[:1].upper() + text[1:]))
        languages = dict.fromkeys((self.graph.settings.language, "mul"))
        texts = joined(tagged(s, language) for s in spellings for language in languages)
        rows = self.profile.select("label_search", texts=texts, limit=integer(LABEL_ROWS))
        matched: dict[str, int] = {}
        for x, kind, name in rows:
            if isinstance(x, str):
                grade = (0 if text_of(kind) == "label" else 2) + (text_of(name) != text)
                matched[x] = min(grade, matched.get(x, grade))
        return matched

    def close(self) -> None:
        """Nothing to release."""


def _item_number(iri: str) -> int:
    local = iri.rsplit("/", 1)[-1]
    return int(local[1:]) if local[1:].isdigit() else 1 << 62
