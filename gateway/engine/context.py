"""One open graph as the tools see it: backend, profile, ID mapper, settings."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from gateway.backends.base import Backend, Rows
from gateway.deployment_key import deployment_key
from gateway.engine import bounded
from gateway.engine.bounded import bounded_statistics
from gateway.engine.statistics import statistics
from gateway.errors import InvalidInput
from gateway.ids import IdMapper, Resolution, build_converter, local_name
from gateway.profiles.base import NON_EDGE_PREDICATES, HopPlan, Profile
from gateway.settings import Settings
from gateway.sparql import Sparql, iris, writable
from gateway.sparql import iri as sparql_iri
from gateway.terms import BFS, pick_label

T = TypeVar("T")

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


class GraphContext:
    """Everything a tool function needs about one graph."""

    def __init__(
        self, backend: Backend, profile: Profile, settings: Settings | None = None, *, scope: tuple[str, ...] | None = None
    ) -> None:
        self.backend = backend
        self.profile = profile
        self.settings = settings or Settings()
        self.scope = scope
        """The named graphs a reader is limited to; None: every graph."""
        self.ids = IdMapper(build_converter(backend.prefixes), vocabulary=backend.prefixes.get(""))
        self._lock = threading.RLock()
        self._memo: dict[str, object] = {}

    def select(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> Rows:
        """Rows of the profile's template `query` (see `gateway.sparql.render`)."""
        return self.profile.select(query, flags, **slots)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """A value computed once per open graph (the store is read-only)."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = compute()
            return self._memo[key]  # type: ignore[return-value]

    def cursor_secret(self) -> bytes:
        if self.settings.cursor_secret is not None:
            return self.settings.cursor_secret.encode()
        return deployment_key(self.backend.directory)

    # -- vocabulary: the graph's predicates and types, for bare names and "did you mean" ----
    @cached_property
    def vocabulary(self) -> tuple[dict[str, int], dict[str, int]]:
        """(edge predicate -> statement count, type -> entity count), from the statistics."""
        with self._lock:
            stats = bounded_statistics(self) if self.profile.bounded else statistics(self)
            self.ids.register_local_names([*stats.predicates, *stats.types, BFS + "Statement"])
            return stats.predicates, stats.types

    def resolve_terms(
        self, names: Iterable[str], field: str, *, kind: str, warnings: list[str]
    ) -> set[str]:
        """IRIs for predicate or type names; names not in the graph become warnings."""
        names = list(names)
        if self.profile.bounded:  # no whole-graph statistics to hold names against: probes
            return bounded.resolve_terms(self, names, field, kind=kind, warnings=warnings)
        if kind == "predicate" and "vocabulary" not in self.__dict__:
            probed = self._probe_predicates(names, field)
            if probed is not None:
                return probed
        predicates, types = self.vocabulary
        known = predicates if kind == "predicate" else types
        found: set[str] = set()
        for i, name in enumerate(names):
            resolution = self.ids.resolve(name, f"{field}[{i}]", allow_local_name=True)
            if resolution.iri is not None and (resolution.iri in known or resolution.iri == BFS + "Statement"):
                found.add(resolution.iri)
                continue
            hint = self.did_you_mean(name, known)
            why = resolution.reason or f"no such {kind} in this graph"
            warnings.append(f"{field}[{i}]: {quoted(name)}: {why}{hint}")
        return found

    def _probe_predicates(self, names: list[str], field: str) -> set[str] | None:
        """The IRIs of predicates named by ID, each checked with one probe; None when a name
        is bare, unknown or absent, so the whole vocabulary is needed (bare names, hints)."""
        if self.profile.queries != "native":
            return None
        found: set[str] = set()
        reified = self.profile.has_reifiers
        flags = ["reified"] if reified else []
        unasserted = {h.p for h in self.profile.unasserted()} if reified else set()
        for i, name in enumerate(names):
            iri = self.ids.resolve(name, f"{field}[{i}]").iri
            if iri is None or iri in NON_EDGE_PREDICATES:
                return None
            if iri not in unasserted and not self.select("predicate_exists", flags, predicate=sparql_iri(iri)):
                return None
            found.add(iri)
        return found

    def did_you_mean(self, name: str, known: Iterable[str]) -> str:
        candidates = {self.ids.to_id(iri): iri for iri in known}
        by_local = {local_name(iri): self.ids.to_id(iri) for iri in known}
        options = {**{k: k for k in candidates}, **by_local}
        text = name.split(":")[-1] if ":" in name else name
        close = difflib.get_close_matches(text, list(options), n=3, cutoff=0.6)
        close += difflib.get_close_matches(text.upper(), list(options), n=3, cutoff=0.6)
        picks = list(dict.fromkeys(options[c] for c in close))[:3]
        return f"; did you mean {', '.join(picks)}?" if picks else ""

    # -- seeds ------------------------------------------------------------------------------
    def resolve_seeds(self, seeds: Sequence[str], plan: HopPlan, field: str, warnings: list[str], *, cap: int) -> Seeds:
        """The seeds present in the graph (`seed_iris`, then `present_seeds`)."""
        found = self.seed_iris(seeds, field, warnings, cap=cap)
        found.iris = self.present_seeds(found.iris, plan, found.missing)
        return found

    def seed_iris(self, seeds: Sequence[str], field: str, warnings: list[str], *, cap: int) -> Seeds:
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
            try:
                resolution = self.ids.resolve(seed, f"{field}[{i}]")
            except InvalidInput as error:  # cannot be an IRI: unresolved, never SPARQL text
                resolution = Resolution(None, f"{error.message.split(': ', 1)[-1]}; use search_entities to find the ID")
                found.not_ids.add(text)
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

    def present_seeds(
        self, iris_: Sequence[str], plan: HopPlan, missing: list[str], known: Collection[str] = ()
    ) -> list[str]:
        """The IRIs in the graph (`known` ones without asking), an IRI another entity declares
        as its URL replaced by that entity; the rest added to `missing` as IDs."""
        asked = [i for i in iris_ if i not in known]
        present = set(known) | (self.profile.existing(asked, plan) if asked else set())
        synonyms = self._url_synonyms([i for i in iris_ if i not in present])
        resolved: list[str] = []
        for iri in iris_:
            if iri in present:
                resolved.append(iri)
            elif iri in synonyms:
                resolved.append(synonyms[iri])
            else:
                missing.append(self.ids.to_id(iri))
        return list(dict.fromkeys(resolved))

    def _url_synonyms(self, iris_: Sequence[str]) -> dict[str, str]:
        """Entities that declare these URLs as their own (`bfs:urlSynonym`), e.g. a canonical_url."""
        if not iris_:
            return {}
        return {str(u): str(x) for u, x in self.select("url_synonyms", ids=iris(writable(iris_))) if isinstance(x, str)}

    def labels(self, iris_: Sequence[str]) -> dict[str, str]:
        """The preferred label of each IRI that has one."""
        iris_ = writable(iris_)
        if not iris_:
            return {}
        rows = self.select("labels", ids=iris(iris_))
        found: dict[str, list[object]] = {}
        for x, label in rows:
            found.setdefault(str(x), []).append(label)
        return {x: pick_label(values, self.settings.languages) for x, values in found.items() if values}


def quoted(text: str) -> str:
    """A caller's text in a message: repr, cut to 80 characters."""
    return repr(text if len(text) <= 80 else text[:77] + "...")
