"""Canonical IDs: the registry IDs an entity is known by (describe_entity's `same_as`) and
the authorities a graph's entities link to (describe_schema's `authorities`).

Three kinds of link name another authority's ID for an entity: identity links to or from
another IRI (`authorities.IDENTITY_PREDICATES`), identifier literals
(`authorities.IDENTIFIER_PREDICATES`: "MESH:D003480"), and Wikidata external-ID claims
(`wdtn:P214 <http://viaf.org/viaf/113230702>`, `wdt:P214 "113230702"`). Each value is read
by `gateway.authorities`, which knows the registry's spellings and URL forms; the answer
names every ID as a CURIE in the registry's preferred spelling.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from gateway import authorities
from gateway.authorities import IDENTIFIER_PREDICATES, IDENTITY_PREDICATES, CanonicalId
from gateway.engine.context import GraphContext
from gateway.sparql import Sparql, fragment, iri, iris, union
from gateway.terms import Blank, Literal, Term

WDT = "http://www.wikidata.org/prop/direct/"
WDTN = "http://www.wikidata.org/prop/direct-normalized/"
IDENTITY = frozenset(IDENTITY_PREDICATES)
IDENTIFIERS = frozenset(IDENTIFIER_PREDICATES)
SAME_AS_LISTED = 50
"""Canonical IDs one entity's same_as lists at most; the rest are counted in a warning."""


def _mapped() -> list[str]:
    """The external-ID properties whose string values a registry reads ("P214")."""
    return sorted(authorities.by_wikidata_property())


def same_as_branch(ids: Sparql) -> Sparql:
    """same_as.rq for `ids`, as a branch of node_data.rq (no round trip of its own)."""
    incoming = union(fragment("native/same_as_in", ids=ids, predicate=iri(p)) for p in IDENTITY_PREDICATES)
    return fragment("native/same_as", ids=ids, identity=iris(IDENTITY_PREDICATES, ", "), incoming=incoming)


def is_link_row(predicate: str, value: Term) -> bool:
    """Whether a node_data row came from its same_as branch: an identity link's other end,
    or an external-ID claim as same_as.rq writes it (wdtn:). Never a property."""
    return predicate.startswith(WDTN) or (predicate in IDENTITY and not isinstance(value, (Literal, Blank)))


def linked_id(predicate: str, value: Term) -> CanonicalId | str | None:
    """The ID a link names: a registry ID, or (an identity link the registry cannot read)
    the IRI itself; None for any other row."""
    if isinstance(value, Literal):
        if predicate in IDENTIFIERS:
            return authorities.of_literal(value.value)
        if predicate.startswith((WDT, WDTN)):
            return authorities.of_wikidata_claim(predicate.rsplit("/", 1)[-1], value.value)
        return None
    if isinstance(value, Blank) or not isinstance(value, str):
        return None
    if predicate in IDENTITY:
        return authorities.of_iri(value) or value
    return authorities.of_iri(value) if predicate.startswith(WDTN) else None


def same_as(ctx: GraphContext, entity: str, rows: Iterable[tuple[str, Term]]) -> tuple[list[str], int]:
    """The entity's canonical IDs (its own IRI among them when that is a registry ID),
    sorted, at most `SAME_AS_LISTED`; and how many more there are."""
    found: set[str] = set()
    own = authorities.of_iri(entity)
    if own is not None:
        found.add(own.curie)
    for predicate, value in rows:
        named = linked_id(predicate, value)
        if isinstance(named, CanonicalId):
            found.add(named.curie)
        elif named is not None and named != entity:
            found.add(ctx.ids.to_id(named))
    listed = sorted(found)
    return listed[:SAME_AS_LISTED], max(0, len(listed) - SAME_AS_LISTED)


def count_authorities(rows: Iterable[Sequence[Term | None]]) -> dict[str, int]:
    """Authority prefix -> the entities linking an ID of it, from authority_counts.rq's rows
    (entity, predicate, value)."""
    linking: dict[str, set[str]] = defaultdict(set)
    for x, p, v in rows:
        if not isinstance(x, str) or isinstance(x, Blank) or not isinstance(p, str) or v is None:
            continue
        named = linked_id(p, v)
        if isinstance(named, CanonicalId):
            linking[named.authority.prefix].add(x)
    return {prefix: len(entities) for prefix, entities in sorted(linking.items())}


def authority_counts(ctx: GraphContext, predicates: Iterable[str]) -> dict[str, int]:
    """Entities per authority they link to, over the whole graph: one query of index lookups
    per link predicate (`predicates`: the edge predicates the graph uses, where its wdtn:
    ones are found without a scan of their own)."""
    mapped = _mapped()
    claims = {*(WDT + p for p in mapped), *(WDTN + p for p in mapped), *(p for p in predicates if p.startswith(WDTN))}
    # A profile of claims counts statements, not wdtn: triples: those are found by a scan,
    # as its claim counts are.
    flags = ["normalized"] if ctx.profile.claims else []
    return count_authorities(ctx.select("authority_counts", flags, identity=iris(IDENTITY_PREDICATES),
                                        identifiers=iris(IDENTIFIER_PREDICATES), claim_predicates=iris(sorted(claims))))

