"""How much of a graph is Wikibase data: the wikidata profile reads only Wikidata's
statement nodes, so on a graph mostly of other RDF (SHACL shapes, an ontology) it counts
and walks a small part of what is there.

The measure is the census's namespace counts (`Statistics.namespaces`: each IRI once per
quad holding it), already counted for describe_schema: no query of its own.
"""

from __future__ import annotations

import re

WIKIBASE_NAMESPACE = re.compile(
    r"^https?://(?:wikiba\.se/ontology|[^/]+/(?:entity|prop|reference|value)/|[^/]+/wiki/Special:EntityData/)")
"""Wikibase's own namespaces on any host (www.wikidata.org, test.wikidata.org, Commons):
the ontology, entities and statements, properties in every role, references, values."""

WIKIBASE_SHARE_MIN = 0.35
"""Below this share of IRI occurrences in Wikibase namespaces a graph is not taken for
Wikidata. Real Wikibase exports measure 0.40-0.82 (the dump, munged and lexeme files of
wikidata-query-rdf); their own shared vocabularies (rdf, xsd, schema.org) make up the rest.
A Wikidata item beside SHACL and DASH (a quarter Wikibase) is read as other RDF."""


EXPORT_VOCABULARIES = (
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2001/XMLSchema#", "http://www.w3.org/2002/07/owl#", "http://www.w3.org/2004/02/skos/core#",
    "http://www.w3.org/ns/prov#", "http://www.w3.org/ns/lemon/", "http://schema.org/", "https://schema.org/",
    "http://creativecommons.org/ns#", "http://www.opengis.net/ont/geosparql#", "http://purl.org/dc/terms/",
    "http://wikiba.se/",
)
"""The vocabularies a Wikibase export itself uses beside its own namespaces."""
OTHER_VOCABULARIES_MAX = 0.02
"""At or above this share of IRI occurrences in neither Wikibase's namespaces nor
`EXPORT_VOCABULARIES`, a graph holds other RDF beside Wikidata (shapes, an ontology), which
the wikidata profile does not read. The 13 real exports measure 0.000-0.001 (external IDs
as IRIs); a Wikidata item or two beside SHACL and DASH 0.19-0.22."""


def wikibase_share(namespaces: dict[str, int]) -> float | None:
    """The share of IRI occurrences in Wikibase namespaces (None: not counted)."""
    total = sum(namespaces.values())
    if not total:
        return None
    return sum(n for name, n in namespaces.items() if WIKIBASE_NAMESPACE.match(name)) / total


def mostly_other(namespaces: dict[str, int]) -> bool:
    """Whether so little of the graph is Wikibase data that the wikidata profile misleads."""
    share = wikibase_share(namespaces)
    return share is not None and share < WIKIBASE_SHARE_MIN


def other_data_warning(namespaces: dict[str, int]) -> str | None:
    """describe_schema's warning on a graph mostly of other RDF, or holding some beside
    Wikidata's (more than `OTHER_VOCABULARIES_MAX`)."""
    share = wikibase_share(namespaces)
    if share is None:
        return None
    if share < WIKIBASE_SHARE_MIN:
        return (f"profile: wikidata reads only Wikidata statements, and {share:.0%} of this graph's IRIs are "
                "Wikidata's: most of its triples are other RDF, not counted or walked here; open it with profile "
                "native to see them")
    other = {name: n for name, n in namespaces.items()
             if not WIKIBASE_NAMESPACE.match(name) and not name.startswith(EXPORT_VOCABULARIES)}
    other_share = sum(other.values()) / sum(namespaces.values())
    if other_share < OTHER_VOCABULARIES_MAX:
        return None
    most = ", ".join(sorted(other, key=lambda name: -other[name])[:3])
    return (f"profile: wikidata reads only Wikidata statements, and {other_share:.0%} of this graph's IRIs are in "
            f"other vocabularies ({most}): their triples are not counted or walked here; open it with profile "
            "native to see them")


STATEMENT_TYPE = "http://wikiba.se/ontology#Statement"


def unread_statements_warning(profile: str, namespaces: dict[str, int], types: dict[str, int]) -> str | None:
    """describe_schema's warning, under a profile other than wikidata, on a Wikidata export:
    its statement nodes are then entities of their own, and a walk from an item passes
    through them (770 nodes from wd:Q42 where the wikidata profile walks 56)."""
    statements = types.get(STATEMENT_TYPE, 0)
    if not statements or mostly_other(namespaces):
        return None
    return (f"profile: {profile} reads this graph's {statements:,} Wikidata statement nodes (wikibase:Statement) "
            "as entities of their own: open it with profile wikidata (or auto) to walk them as statements, their "
            "ranks as truth status")
