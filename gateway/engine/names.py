"""Predicate and type names in a call, held against the graph's own vocabulary.

A name is an ID, a URL or a bare local name (`Knows`); each is resolved to the IRI the
graph uses, or told in a warning with the nearest real names. A profile may resolve names
otherwise (`Profile.resolve_terms`: on a graph too large to count, by probes).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from gateway.engine.context import GraphContext, quoted
from gateway.engine.statistics import statistics
from gateway.ids import Resolution, local_name
from gateway.profiles.base import NON_EDGE_PREDICATES, PLUMBING_PREDICATES
from gateway.profiles.graph import MemoKey
from gateway.sparql import iris as sparql_iris
from gateway.sparql import writable
from gateway.terms import BFS

Vocabulary = tuple[dict[str, int], dict[str, int]]
"""(predicate -> statement count, type -> entity count)."""
VOCABULARY: MemoKey[Vocabulary] = MemoKey("vocabulary")


def vocabulary(ctx: GraphContext) -> Vocabulary:
    """(predicate -> statement count, type -> entity count), from the statistics: the edge
    predicates, then the schema predicates the graph uses (walked when named)."""

    def read() -> Vocabulary:
        stats = statistics(ctx)
        predicates = {**stats.predicates, **stats.schema_predicates}
        ctx.ids.register_local_names([*predicates, *stats.types, BFS + "Statement"])
        return predicates, stats.types

    return ctx.memo(VOCABULARY, read)


def resolve_terms(ctx: GraphContext, names: Iterable[str], field: str, *, kind: str, warnings: list[str]) -> set[str]:
    """IRIs for predicate or type names; names not in the graph become warnings."""

    def counted(names: Sequence[str], field: str, *, kind: str, warnings: list[str]) -> set[str]:
        return _against_vocabulary(ctx, names, field, kind=kind, warnings=warnings)

    return ctx.profile.resolve_terms(ctx, list(names), field, kind=kind, warnings=warnings, counted=counted)


def _against_vocabulary(ctx: GraphContext, names: Sequence[str], field: str, *, kind: str, warnings: list[str]) -> set[str]:
    """`resolve_terms` against the counted vocabulary (a predicate named by ID is probed
    alone where the profile can, so the vocabulary need not be read for it)."""
    if kind == "predicate" and not ctx.computed(VOCABULARY):
        probed = _probe_predicates(ctx, names, field)
        if probed is not None:
            return probed
    predicates, types = vocabulary(ctx)
    known = predicates if kind == "predicate" else types
    found: set[str] = set()
    unknown: list[tuple[int, str, Resolution]] = []
    for i, name in enumerate(names):
        resolution = ctx.ids.resolve(name, f"{field}[{i}]", allow_local_name=True)
        iri = _spelled_as_known(ctx, resolution.iri, known)
        if iri is not None and (iri in known or iri == BFS + "Statement"):
            found.add(iri)
        else:
            unknown.append((i, name, resolution))
    # Denied only against the data itself: a name the counts leave out may still be there.
    held = _held(ctx, kind, [form for _, _, r in unknown if r.iri for form in _forms(ctx, r.iri)])
    for i, name, resolution in unknown:
        form = next((f for f in _forms(ctx, resolution.iri) if f in held), None)
        if form is not None and kind == "type":
            found.add(form)  # a class of classes (owl:Class, rdfs:Class, owl:Ontology...)
        else:
            warnings.append(f"{field}[{i}]: {quoted(name)}: {_why_unknown(resolution, form, kind)}"
                            f"{did_you_mean(ctx, name, known)}")
    return found


def _spelled_as_known(ctx: GraphContext, iri: str | None, known: dict[str, int]) -> str | None:
    """The IRI, or its spelling the vocabulary knows (the data may spell a namespace otherwise)."""
    if iri is None or iri in known:
        return iri
    return next((other for other in ctx.ids.spellings(iri) if other in known), iri)


def _why_unknown(resolution: Resolution, held: str | None, kind: str) -> str:
    """Why a name is no walkable predicate or type here (`held`: the form the data holds it in)."""
    if resolution.iri in PLUMBING_PREDICATES:
        return "statement data (shown on each statement's full edge), not a relationship a walk crosses"
    if held is not None:
        return ("in this graph, but not as a relationship a walk crosses (its values are literals or blank "
                "nodes, or it is outside this profile's statements); describe_entity and tabulate show them")
    return resolution.reason or f"no such {kind} in this graph"


def _forms(ctx: GraphContext, iri: str | None) -> list[str]:
    """An IRI and its other spellings (`IdMapper.spellings`)."""
    return [iri, *ctx.ids.spellings(iri)] if iri else []


def _held(ctx: GraphContext, kind: str, iris: list[str]) -> set[str]:
    """Which of these IRIs the data holds as a predicate, or as a type of some entity."""
    named = writable(list(dict.fromkeys(iris)))
    if not named:
        return set()
    if kind == "predicate":
        rows = ctx.select("used_predicates", predicate_values=sparql_iris(named))
    else:
        rows = ctx.select("used_types", type_values=sparql_iris(named))
    return {str(row[0]) for row in rows if isinstance(row[0], str)}


def _probe_predicates(ctx: GraphContext, names: Sequence[str], field: str) -> set[str] | None:
    """The IRIs of predicates named by ID, each checked with one probe; None when a name
    is bare, unknown or absent, or the profile has no probe, so the whole vocabulary is
    needed (bare names, hints)."""
    probe = ctx.profile.predicate_probe()
    if probe is None:
        return None
    found: set[str] = set()
    for i, name in enumerate(names):
        iri = ctx.ids.resolve(name, f"{field}[{i}]").iri
        if iri is None or iri in NON_EDGE_PREDICATES or not probe(iri):
            return None
        found.add(iri)
    return found


def did_you_mean(ctx: GraphContext, name: str, known: Iterable[str]) -> str:
    """"; did you mean A, B?" with up to three of the `known` IRIs nearest `name`, or ""."""
    candidates = {ctx.ids.to_id(iri): iri for iri in known}
    by_local = {local_name(iri): ctx.ids.to_id(iri) for iri in known}
    options = {**{k: k for k in candidates}, **by_local}
    text = name.split(":")[-1] if ":" in name else name
    close = difflib.get_close_matches(text, list(options), n=3, cutoff=0.6)
    close += difflib.get_close_matches(text.upper(), list(options), n=3, cutoff=0.6)
    picks = list(dict.fromkeys(options[c] for c in close))[:3]
    return f"; did you mean {', '.join(picks)}?" if picks else ""
