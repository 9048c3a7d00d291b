"""Statement models: how a store's shapes map onto statements with truth status and time.

    native        RDF 1.2 reifiers (`r rdf:reifies <<( s p o )>>`): the embedded default
    reification   `rdf:Statement` nodes (`rdf:subject`/`rdf:predicate`/`rdf:object`), for
                  stores without RDF 1.2 such as Virtuoso 7
    plain         plain triples only, every one an asserted_true statement
    wikidata      Wikidata statement nodes (`wd:Q p:P st . st ps:P o`), ranks as truth status
"""

from __future__ import annotations

from gateway.backends.base import Backend
from gateway.errors import InvalidInput
from gateway.profiles.base import Profile
from gateway.profiles.native import NativeProfile
from gateway.profiles.reification import PlainProfile, ReificationProfile
from gateway.profiles.wikidata import WikidataProfile
from gateway.sparql import render

PROFILES: dict[str, type[Profile]] = {
    "native": NativeProfile,
    "reification": ReificationProfile,
    "plain": PlainProfile,
    "wikidata": WikidataProfile,
}


def profile_class(name: str) -> type[Profile]:
    """The profile class called `name`."""
    if name not in PROFILES:
        raise InvalidInput(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}", field="profile")
    return PROFILES[name]


_DETECTION = (
    ("wikidata", "wikidata/has_reifiers"),  # wikibase:rank
    ("native", "native/has_reifiers"),  # rdf:reifies
    ("reification", "reification/has_reifiers"),  # rdf:Statement with rdf:subject
)


def detect_profile(backend: Backend) -> str:
    """The profile that fits the data: "wikidata", "native", "reification" or "plain".

    Each profile's own `has_reifiers` template is one `SELECT ... LIMIT 1`, asked in this
    order: Wikidata statements (`wikibase:rank`) first, since a Wikidata store may also
    hold other shapes; then RDF 1.2 reifiers; then `rdf:Statement` nodes; else plain.
    """
    for name, query in _DETECTION:
        _, rows = backend.select(render(query))
        if rows:
            return name
    return "plain"
