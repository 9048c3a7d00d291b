"""Wikidata's (Wikibase's) namespaces, and how a direct predicate names its claims."""

from __future__ import annotations

from gateway.terms import BFS, RDF

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
CLAIM = "http://www.wikidata.org/prop/"
WIKIBASE = "http://wikiba.se/ontology#"
NAMESPACES = (
    BFS, RDF, WD, WD + "statement/", WDT, CLAIM,
    CLAIM + "statement/", CLAIM + "statement/value/", CLAIM + "qualifier/", CLAIM + "qualifier/value/",
    CLAIM + "reference/", CLAIM + "reference/value/", CLAIM + "novalue/",
    "http://www.wikidata.org/reference/", "http://www.wikidata.org/value/",
    WIKIBASE, "http://www.w3.org/ns/prov#", "http://schema.org/",
)
"""What Wikibase's RDF and this profile's answers are written in: entities, statements,
the claim, statement, qualifier and reference namespaces (simple values and value nodes),
novalue classes, reference and value nodes, ranks (wikibase:), references
(prov:wasDerivedFrom), an entity's version data (schema:), and the project's own terms."""


def claim_predicate(predicate: str) -> str | None:
    """The claim predicate `p:P69` of a direct predicate `wdt:P69` (None for any other IRI)."""
    return CLAIM + predicate[len(WDT):] if predicate.startswith(WDT) else None
