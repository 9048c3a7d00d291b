"""Predicate and type names in a call, held against the graph's own vocabulary.

A name is an ID, a URL or a bare local name (`Knows`); each is resolved to the IRI the
graph uses, or told in a warning with the nearest real names. On a graph too large to
count (a bounded profile), names are probed one by one instead (`wikidata_probes`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from gateway.engine import wikidata_probes
from gateway.engine.context import GraphContext, quoted
from gateway.engine.statistics import statistics
from gateway.ids import local_name
from gateway.profiles.base import NON_EDGE_PREDICATES
from gateway.sparql import iri as sparql_iri
from gateway.terms import BFS

VOCABULARY = "vocabulary"
"""The memo key of `vocabulary`."""


def vocabulary(ctx: GraphContext) -> tuple[dict[str, int], dict[str, int]]:
    """(edge predicate -> statement count, type -> entity count), from the statistics."""

    def read() -> tuple[dict[str, int], dict[str, int]]:
        stats = wikidata_probes.bounded_statistics(ctx) if ctx.profile.bounded else statistics(ctx)
        ctx.ids.register_local_names([*stats.predicates, *stats.types, BFS + "Statement"])
        return stats.predicates, stats.types

    return ctx.memo(VOCABULARY, read)


def resolve_terms(ctx: GraphContext, names: Iterable[str], field: str, *, kind: str, warnings: list[str]) -> set[str]:
    """IRIs for predicate or type names; names not in the graph become warnings."""
    names = list(names)
    if ctx.profile.bounded:  # no whole-graph statistics to hold names against: probes
        return wikidata_probes.resolve_terms(ctx, names, field, kind=kind, warnings=warnings)
    if kind == "predicate" and not ctx.computed(VOCABULARY):
        probed = _probe_predicates(ctx, names, field)
        if probed is not None:
            return probed
    predicates, types = vocabulary(ctx)
    known = predicates if kind == "predicate" else types
    found: set[str] = set()
    for i, name in enumerate(names):
        resolution = ctx.ids.resolve(name, f"{field}[{i}]", allow_local_name=True)
        if resolution.iri is not None and (resolution.iri in known or resolution.iri == BFS + "Statement"):
            found.add(resolution.iri)
            continue
        hint = did_you_mean(ctx, name, known)
        why = resolution.reason or f"no such {kind} in this graph"
        warnings.append(f"{field}[{i}]: {quoted(name)}: {why}{hint}")
    return found


def _probe_predicates(ctx: GraphContext, names: list[str], field: str) -> set[str] | None:
    """The IRIs of predicates named by ID, each checked with one probe; None when a name
    is bare, unknown or absent, so the whole vocabulary is needed (bare names, hints)."""
    if ctx.profile.queries != "native":
        return None
    found: set[str] = set()
    reified = ctx.profile.has_reifiers
    flags = ["reified"] if reified else []
    unasserted = {h.p for h in ctx.profile.unasserted()} if reified else set()
    for i, name in enumerate(names):
        iri = ctx.ids.resolve(name, f"{field}[{i}]").iri
        if iri is None or iri in NON_EDGE_PREDICATES:
            return None
        if iri not in unasserted and not ctx.select("predicate_exists", flags, predicate=sparql_iri(iri)):
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
