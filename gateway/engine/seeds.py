"""A tool's seeds: the IRIs they name, and which of those the graph holds.

A seed is an ID, a CURIE or a URL; it names an IRI (`seed_iris`, asking the store nothing),
which is in the graph as written, in another spelling of its namespace (http and https),
or as the URL an entity declares as its own (`present_seeds`). What names nothing is
unresolved, told in warnings (the first `TOLD` of each kind; the rest counted).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from gateway.engine.context import GraphContext, quoted
from gateway.errors import InvalidInput
from gateway.ids import Resolution
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
    """The seeds present in the graph (`seed_iris`, then `present_seeds`)."""
    found = seed_iris(ctx, seeds, field, warnings, cap=cap)
    found.iris = present_seeds(ctx, found.iris, plan, found.missing)
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
        resolution = _resolution(ctx, seed, f"{field}[{i}]", found)
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
        return ctx.ids.resolve(seed, where)
    except InvalidInput as error:
        found.not_ids.add(seed.strip())
        return Resolution(None, f"{error.message.split(': ', 1)[-1]}; use search_entities to find the ID")


def present_seeds(
    ctx: GraphContext, iris_: Sequence[str], plan: HopPlan, missing: list[str], known: Collection[str] = (),
) -> list[str]:
    """The IRIs in the graph (`known` ones without asking), an IRI another entity declares
    as its URL replaced by that entity; the rest added to `missing` as IDs."""
    # One question for the IRIs and their namespaces' other spellings (http and https).
    spelled = {other: iri for iri in iris_ for other in ctx.ids.spellings(iri)}
    asked = [i for i in dict.fromkeys([*iris_, *spelled]) if i not in known]
    held = set(known) | (ctx.profile.existing(asked, plan) if asked else set())
    present = {i for i in iris_ if i in held}
    synonyms = _synonyms(ctx, iris_, {other: iri for other, iri in spelled.items() if other in held}, present)
    resolved: list[str] = []
    for iri in iris_:
        if iri in synonyms:
            resolved.append(synonyms[iri])
        elif iri in present:
            resolved.append(iri)
        else:
            missing.append(ctx.ids.to_id(iri))
    return list(dict.fromkeys(resolved))


def _synonyms(ctx: GraphContext, iris_: Sequence[str], others: dict[str, str], present: set[str]) -> dict[str, str]:
    """IRI -> the IRI the graph holds it as: another spelling of its namespace (`others`:
    each spelling held -> the IRI asked) where it is held only that way or more that way,
    else an entity that declares it as its URL."""
    synonyms = _spelled_otherwise({other: iri for other, iri in others.items() if iri not in present})
    synonyms.update(_better_spelled(ctx, {other: iri for other, iri in others.items() if iri in present}))
    synonyms.update(_url_synonyms(ctx, [i for i in iris_ if i not in present and i not in synonyms]))
    return synonyms


def _spelled_otherwise(held: dict[str, str]) -> dict[str, str]:
    """IRIs the data holds only in another spelling of their namespace (`http://schema.org/`
    where the prefix map says `https://`; `held`: each spelling -> the IRI asked), each
    mapped to the spelling held."""
    found: dict[str, str] = {}
    for other in sorted(held):
        found.setdefault(held[other], other)
    return found


def _better_spelled(ctx: GraphContext, held: dict[str, str]) -> dict[str, str]:
    """IRIs the data also holds in another spelling of their namespace (`held`: each
    spelling -> the IRI asked), and holds more of there (`https://schema.org/Person`
    named once by another vocabulary, where schema.org itself says `http://`), each
    mapped to the spelling holding most."""
    if not held:
        return {}
    both = writable([*held, *held.values()])
    degree = {str(x): int(n.value) for x, n in ctx.select("id_degrees", ids=iris(both)) if isinstance(n, Literal)}
    found: dict[str, str] = {}
    for other in sorted(held, key=lambda o: -degree.get(o, 0)):
        if degree.get(other, 0) > degree.get(found.get(held[other], held[other]), 0):
            found[held[other]] = other
    return found


def _url_synonyms(ctx: GraphContext, iris_: Sequence[str]) -> dict[str, str]:
    """Entities that declare these URLs as their own (`bfs:urlSynonym`), e.g. a canonical_url."""
    if not iris_:
        return {}
    return {str(u): str(x) for u, x in ctx.select("url_synonyms", ids=iris(writable(iris_))) if isinstance(x, str)}
