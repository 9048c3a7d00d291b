"""A tool's seeds: the IRIs they name, and which of those the graph holds.

A seed is an ID, a CURIE or a URL; it names an IRI (`seed_iris`, asking the store nothing;
a CURIE in a spelling only the registry knows, `MSH:D003480`, through `gateway.authorities`),
which is in the graph as written, in another spelling of its namespace (http and https),
or is a canonical ID the data links to entities (`present_seeds`, through
`gateway.engine.identified`: another URL form, an identity link, an identifier literal, a
Wikidata external-ID claim, a URL an entity declares as its own). What names nothing is
unresolved, told in warnings (the first `TOLD` of each kind; the rest counted).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import islice

import pyoxigraph as ox

from gateway.authorities import IDENTITY_PREDICATES, of_iri, parse_id
from gateway.engine.context import GraphContext, quoted
from gateway.engine.identified import NORMALIZED, identified, identifying
from gateway.engine.walk import WalkResult
from gateway.errors import InvalidInput
from gateway.ids import Resolution, UnnameableId, check_iri, same_iri
from gateway.profiles.base import HopPlan
from gateway.sparql import iris, writable
from gateway.terms import Literal

TOLD = 10
"""Items of one field told one warning each (an unknown seed, a name that is no ID); the
rest are counted in one more: 10,000 bad seeds must not make a megabyte of warnings."""
UNRESOLVED_LISTED = 1000
"""Unresolved seeds an answer lists at most; a warning counts the rest."""


@dataclass
class Seeds:
    """A tool's seeds, resolved."""

    iris: list[str]
    """The IRIs to walk from, in order, once each, within the tool's cap."""
    missing: list[str] = field(default_factory=list)
    """Seeds that name nothing in the graph (as given, or as canonical IDs)."""
    past_cap: list[str] = field(default_factory=list)
    """Distinct seeds past the tool's cap, as given: neither walked nor looked up."""
    not_ids: set[str] = field(default_factory=set)
    """Missing seeds that cannot be IDs at all (each said why in a warning of its own)."""
    exact: set[str] = field(default_factory=set)
    """IRIs given in angle brackets (`<https://www.wikidata.org/entity/Q42>`): that node is
    read where the graph holds it, never another spelling of it."""

    def unresolved(self, field_name: str, warnings: list[str]) -> list[str]:
        """What an answer lists as unresolved: the missing seeds, then those past the cap,
        at most `UNRESOLVED_LISTED` (a warning counts the rest)."""
        every = [*self.missing, *self.past_cap]
        if len(every) > UNRESOLVED_LISTED:
            warnings.append(f"{field_name}: {len(every)} seeds are unresolved; the first {UNRESOLVED_LISTED} are listed")
        return every[:UNRESOLVED_LISTED]


def resolve_seeds(
    ctx: GraphContext, seeds: Sequence[str], plan: HopPlan, field: str, warnings: list[str], *, cap: int,
) -> Seeds:
    """The seeds present in the graph (`seed_iris`, then `present_found`)."""
    return present_found(ctx, seed_iris(ctx, seeds, field, warnings, cap=cap), plan, field, warnings, cap=cap)


def present_found(
    ctx: GraphContext, found: Seeds, plan: HopPlan, field: str, warnings: list[str], *, cap: int,
    held_read: tuple[frozenset[str], dict[str, bool]] | None = None, looked_up_before: Collection[str] = (),
) -> Seeds:
    """`found` (`seed_iris`) with its IRIs those present in the graph (`present_seeds`)."""
    found.iris = present_seeds(ctx, found.iris, plan, found.missing, warnings=warnings, held_read=held_read,
                               exact=found.exact, looked_up_before=looked_up_before)
    if len(found.iris) > cap:  # a canonical ID naming several entities
        warnings.append(f"{field}: the seeds name {len(found.iris)} entities; the first {cap} are used")
        found.iris = found.iris[:cap]
    return found


def seed_iris(ctx: GraphContext, seeds: Sequence[str], field: str, warnings: list[str], *, cap: int) -> Seeds:
    """The IRIs the seeds name, in order, once each (told apart after canonicalization,
    so `WIKI:X` and its URL are one seed), at most `cap` of them, asking the store
    nothing: whether each IRI is in the graph is `present_seeds`'s question. A seed past
    the cap is unresolved as such, never as "not in this graph"."""
    found = Seeds([])
    kept: set[str] = set()
    read: set[str] = set()
    unreadable = 0
    for i, seed in enumerate(seeds):
        text = seed.strip()
        if text in read:
            continue
        read.add(text)
        resolution = _exactly(text, _resolution(ctx, seed, f"{field}[{i}]", found), found)
        if resolution.iri is None:
            found.missing.append(text)
            if resolution.reason:
                unreadable += 1
                if unreadable <= TOLD:
                    warnings.append(f"{field}[{i}]: {quoted(seed)}: {resolution.reason}")
        elif resolution.iri not in kept:
            if len(found.iris) < cap:
                kept.add(resolution.iri)
                found.iris.append(resolution.iri)
            else:
                found.past_cap.append(text)
    if unreadable > TOLD:
        warnings.append(f"{field}: {unreadable - TOLD} more are not IDs of this graph (all in the unresolved list)")
    if found.past_cap:
        warnings.append(f"{field}: at most {cap} distinct seeds are walked; {len(found.past_cap)} more were not "
                        "(listed as unresolved)")
    return found


def _resolution(ctx: GraphContext, seed: str, where: str, found: Seeds) -> Resolution:
    """The IRI a seed names; a seed that cannot be an IRI is unresolved (never SPARQL text),
    and noted in `found` as no ID at all."""
    try:
        return _registered(ctx, seed, where) or ctx.ids.resolve(seed, where)
    except InvalidInput as error:
        found.not_ids.add(seed.strip())
        hint = "" if isinstance(error, UnnameableId) else "; use search_entities to find the ID"
        return Resolution(None, f"{error.message.split(': ', 1)[-1]}{hint}")


def _exactly(text: str, resolution: Resolution, found: Seeds) -> Resolution:
    """An IRI in angle brackets as written, though the ID map reads it in its namespace's
    standard spelling (http or https): an ID in brackets names that exact IRI's node (noted
    in `found.exact`, for `present_seeds` to keep where the graph holds it)."""
    written = text[1:-1] if text.startswith("<") and text.endswith(">") else None
    if written is None or resolution.iri is None or not same_iri(written, resolution.iri):
        return resolution
    found.exact.add(written)
    return Resolution(written)


def _registered(ctx: GraphContext, seed: str, where: str) -> Resolution | None:
    """A CURIE whose prefix neither the project's map nor the data chose, but an authority
    of the registry has (`MSH:D003480`, a synonym of MeSH; `VIAF:1`): its authority's
    canonical URL, to be looked up as any canonical ID is (else it would be read as an IRI
    of a scheme `MSH`, or expanded by a prefix list that knows no other form of it)."""
    prefix, colon, rest = seed.strip().partition(":")
    if not colon or rest.startswith("//") or _chosen(ctx, prefix):
        return None
    canonical = parse_id(seed)
    return Resolution(check_iri(canonical.iris()[0], where)) if canonical is not None else None


def present_seeds(
    ctx: GraphContext, iris_: Sequence[str], plan: HopPlan, missing: list[str], known: Collection[str] = (),
    *, warnings: list[str], looked_up_before: Collection[str] = (),
    held_read: tuple[frozenset[str], dict[str, bool]] | None = None, exact: Collection[str] = (),
) -> list[str]:
    """The IRIs in the graph (`known` ones without asking: `walked_entities`), a seed that
    names no entity of its own replaced by the entities that link it (`identified`, each
    told in `warnings`, unless `looked_up_before` and nothing did); the rest added to
    `missing` as IDs. `held_read`: IRIs `Profile.held` was asked about already (with the
    identity links) and its answer (`WalkResult.held`), used where it covers the question.
    `exact`: IRIs given in angle brackets, never read in another spelling where held. An
    IRI held in both spellings (http and https) is read in one; a warning names the other
    and its triples (`_both_spellings`)."""
    # One question for the IRIs and their namespaces' other spellings (http and https).
    spelled = {other: iri for iri in iris_ for other in ctx.ids.spellings(iri)}
    asked = [i for i in dict.fromkeys([*iris_, *spelled]) if i not in known]
    held = dict.fromkeys(known, True) | _held(ctx, asked, plan, held_read)
    present = {i for i in iris_ if i in held}
    synonyms = _spelled(ctx, spelled, held, present, exact, warnings)
    # A seed absent, or held only as the object (or the subject) of identity links: a
    # canonical ID some entities may carry. One question for all of them.
    looked_up = [i for i in iris_ if i not in synonyms and not held.get(i, False) and i not in looked_up_before]
    entities = identified(ctx, looked_up, warnings)
    resolved: list[str] = []
    for iri in iris_:
        if iri in entities:
            resolved.extend(entities[iri])
        elif iri in synonyms:
            resolved.append(synonyms[iri])
        elif iri in present:
            resolved.append(iri)
        else:
            missing.append(ctx.ids.to_id(iri))
    return list(dict.fromkeys(resolved))


def _spelled(
    ctx: GraphContext, spelled: dict[str, str], held: dict[str, bool], present: set[str],
    exact: Collection[str], warnings: list[str],
) -> dict[str, str]:
    """The seeds read in another spelling (`_synonyms`), an IRI held in both told in `warnings`."""
    # A spelling held only as an identifier node is no synonym: what links it is looked up.
    # A seed with data of its own is read in another spelling only of its http/https form
    # (a page about an ID, a node of its own, never becomes the ID's entity).
    others = {other: iri for other, iri in spelled.items()
              if held.get(other) and (not held.get(iri) or same_iri(other, iri))}
    both = {other: iri for other, iri in others.items() if iri in present}
    degree = _degrees(ctx, both)
    synonyms = _synonyms({other: iri for other, iri in others.items() if not (iri in present and iri in exact)},
                         present, degree)
    _both_spellings(ctx, both, synonyms, degree, warnings)
    return synonyms


def _held(
    ctx: GraphContext, asked: list[str], plan: HopPlan, read: tuple[frozenset[str], dict[str, bool]] | None,
) -> dict[str, bool]:
    """`Profile.held` of `asked` (with the identity links), from what was `read` already where it covers them."""
    if read is not None and read[0].issuperset(asked):
        return {i: read[1][i] for i in asked if i in read[1]}
    return ctx.profile.held(asked, plan, IDENTITY_PREDICATES) if asked else {}


def held_questions(ctx: GraphContext, iris_: Sequence[str]) -> list[str]:
    """What `present_seeds` may ask `Profile.held` about these IRIs: them, and the other
    spellings of their namespaces (a walk may ask it with its hops: `walk(held=...)`)."""
    return list(dict.fromkeys([*iris_, *(other for iri in iris_ for other in ctx.ids.spellings(iri))]))


def identified_first(ctx: GraphContext, iris_: Sequence[str], warnings: list[str]) -> tuple[list[str], set[str], set[str]]:
    """For a walk that reads first and asks after (bfs_query): the seeds with those that
    are likely canonical IDs rather than entities of this graph (`_likely_identifier`)
    replaced by the entities linking them, asked before walking in one query (a walk from
    them would read only the identifier node, then walk again); the entities that query
    found in the graph; and the seeds it found nothing for (not to be looked up again)."""
    likely = [i for i in iris_ if _likely_identifier(ctx, i)]
    entities = identified(ctx, likely, warnings, itself=True)
    asked = set(likely) - set(entities)
    if not entities:
        return list(iris_), set(), asked
    seeds = [x for i in iris_ for x in entities.get(i, [i])]
    return list(dict.fromkeys(seeds)), {x for found in entities.values() for x in found}, asked


OWN_DATA_READ = 64
"""Statements of a seed read in process to tell an entity from an identifier node (one
only identity links start from): past that many, it is an entity."""


def _likely_identifier(ctx: GraphContext, iri: str) -> bool:
    """Whether an IRI is a canonical ID more likely linked by this graph's entities than one
    of them. Where the store is read in process, that is asked of its own index (no query):
    an ID without statements of its own but identity links. Elsewhere, by its namespace:
    one the profile's entities are not in (Wikibase's: every entity is `wd:`), else one
    neither the project's prefix map nor the data names (a data's own namespace holds its
    entities, not identifier nodes)."""
    if of_iri(iri) is None:
        return False
    quads = ctx.backend.capabilities.quads
    if quads is not None:
        own = islice(quads(None)(ox.NamedNode(iri), None, None), OWN_DATA_READ)
        if not all(str(p.value) in IDENTITY_PREDICATES for _, p, _, _ in own):
            return False
        # An IRI held in another spelling (http or https) is that entity, not an ID linking it.
        return not any(next(iter(quads(None)(ox.NamedNode(other), None, None)), None) is not None
                       for other in ctx.ids.spellings(iri))
    if ctx.profile.entity_namespaces is not None:
        return not iri.startswith(ctx.profile.entity_namespaces)
    prefix, colon, _ = ctx.ids.to_id(iri).partition(":")
    return bool(colon) and not _chosen(ctx, prefix)


def _chosen(ctx: GraphContext, prefix: str) -> bool:
    """Whether the project's prefix map or the data names `prefix` (in any case), as against
    a prefix only a registry gives."""
    chosen = getattr(ctx.ids.converter, "chosen", None)
    return chosen is None or prefix.casefold() in chosen


def walked_entities(result: WalkResult, found: Collection[str] = ()) -> set[str]:
    """The seeds a walk's first hop found statements of that are entities for certain, and
    `found` (those `identified_first` found): a seed the walk saw only in identity links or
    normalized external-ID values (`wdtn:P214 <http://viaf.org/viaf/1>`) may be an
    identifier node, for `present_seeds` to ask about."""
    touched = result.touched
    if not _any_identifying(result):  # every seed touched is an entity: no split per edge
        return touched | set(found)
    ordinary: set[str] = set()
    doubtful: set[str] = set()
    ends = [(hit.s, hit.p, hit.o) for hit in result.edges.values()]
    ends += [tuple(line.split("\t", 2)) for line in result.plain]  # type: ignore[misc]
    for s, p, o in ends:
        if s in touched or o in touched:
            (doubtful if identifying(p) else ordinary).update((s, o))
    return (touched - (doubtful - ordinary)) | set(found)


def _any_identifying(result: WalkResult) -> bool:
    """Whether a walk crossed any identity link or normalized external-ID value: looked for
    in the plain rows' text at once (in C), the statements' predicates once each."""
    if any(map(identifying, {hit.p for hit in result.edges.values()})):
        return True
    if not result.plain:
        return False
    text = "\n".join(result.plain)
    return any(f"\t{predicate}\t" in text for predicate in IDENTITY_PREDICATES) or any(
        f"\t{prefix}" in text for prefix in NORMALIZED)


def _degrees(ctx: GraphContext, both: dict[str, str]) -> dict[str, int]:
    """Triples touching each IRI of `both` (each spelling held -> the IRI asked, both held)."""
    if not both:
        return {}
    asked = writable([*both, *both.values()])
    return {str(x): int(n.value) for x, n in ctx.select("id_degrees", ids=iris(asked)) if isinstance(n, Literal)}


def _both_spellings(
    ctx: GraphContext, both: dict[str, str], synonyms: dict[str, str], degree: dict[str, int], warnings: list[str],
) -> None:
    """A warning for each seed whose IRI the graph holds in both spellings (http and https):
    one ID, two nodes, and only one of them is read; the other's triples are not dropped
    silently but named, with the exact IRI that reaches them (in angle brackets)."""
    for other, iri in sorted(both.items()):
        read = synonyms.get(iri, iri)
        unread = iri if read == other else other
        if unread != read:
            warnings.append(f"{ctx.ids.to_id(read)}: the graph also holds this ID as <{unread}> "
                            f"({degree.get(unread, 0)} triples), not read here; ask for <{unread}> to read them")


def _synonyms(others: dict[str, str], present: set[str], degree: dict[str, int]) -> dict[str, str]:
    """IRI -> the IRI the graph holds it as: another spelling of its namespace (`others`:
    each spelling held -> the IRI asked) where it is held only that way or more that way.
    (An entity declaring it as its URL is found with canonical IDs: `identified`.)"""
    synonyms = _spelled_otherwise({other: iri for other, iri in others.items() if iri not in present})
    synonyms.update(_better_spelled({other: iri for other, iri in others.items() if iri in present}, degree))
    return synonyms


def _spelled_otherwise(held: dict[str, str]) -> dict[str, str]:
    """IRIs the data holds only in another spelling of their namespace (`http://schema.org/`
    where the prefix map says `https://`; `held`: each spelling -> the IRI asked), each
    mapped to the spelling held."""
    found: dict[str, str] = {}
    for other in sorted(held):
        found.setdefault(held[other], other)
    return found


def _better_spelled(held: dict[str, str], degree: dict[str, int]) -> dict[str, str]:
    """IRIs the data also holds in another spelling of their namespace (`held`: each
    spelling -> the IRI asked), and holds more of there (`https://schema.org/Person`
    named once by another vocabulary, where schema.org itself says `http://`), each
    mapped to the spelling holding most (`degree`: triples touching each)."""
    found: dict[str, str] = {}
    for other in sorted(held, key=lambda o: -degree.get(o, 0)):
        if degree.get(other, 0) > degree.get(found.get(held[other], held[other]), 0):
            found[held[other]] = other
    return found

