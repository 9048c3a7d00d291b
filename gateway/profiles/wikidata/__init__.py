"""The wikidata profile: Wikidata's (Wikibase's) statement model (`profile.py`), its typed
values, qualifiers and references (`values.py`), and, on a graph too large to read whole,
probes for statistics and names (`probes.py`) and label lookups for search (`search.py`)."""

from __future__ import annotations

from gateway.profiles.wikidata.profile import WikidataProfile
from gateway.profiles.wikidata.terms import CLAIM, WD, WDT, WIKIBASE, claim_predicate

__all__ = ["CLAIM", "WD", "WDT", "WIKIBASE", "WikidataProfile", "claim_predicate"]
