"""Statement models: how a store's shapes map onto statements with truth status and time.

    native        RDF 1.2 reifiers (`r rdf:reifies <<( s p o )>>`): the embedded default
    reification   `rdf:Statement` nodes (`rdf:subject`/`rdf:predicate`/`rdf:object`), for
                  stores without RDF 1.2 such as Virtuoso 7
    plain         plain triples only, every one an asserted_true statement
    wikidata      Wikidata statement nodes (`wd:Q p:P st . st ps:P o`), ranks as truth status
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

PROFILES: dict[str, str] = {
    "native": "gateway.profiles.native:NativeProfile",
    "reification": "gateway.profiles.reification:ReificationProfile",
    "plain": "gateway.profiles.reification:PlainProfile",
    "wikidata": "gateway.profiles.wikidata:WikidataProfile",
}


def profile_class(name: str) -> Any:
    """The profile class called `name` (imported on demand: profiles import the SPARQL layer)."""
    from gateway.errors import InvalidInput

    if name not in PROFILES:
        raise InvalidInput(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}", field="profile")
    module, _, attribute = PROFILES[name].partition(":")
    return getattr(import_module(module), attribute)
