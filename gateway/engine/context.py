"""One open graph as the tools see it: backend, profile, ID mapper, settings."""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TypeVar

from gateway import deadline as deadlines
from gateway.backends.base import Backend, Rows
from gateway.deployment_key import deployment_key
from gateway.errors import InvalidInput, Unavailable
from gateway.ids import IdMapper, Resolution, build_converter
from gateway.profiles.base import HopPlan, Profile
from gateway.settings import Settings
from gateway.sparql import Sparql, iris, writable
from gateway.terms import DEFAULT_GRAPH, NO_GRAPH, Literal, pick_label

T = TypeVar("T")

TOLD = 10
"""Items of one field told one warning each (an unknown seed, a name that is no ID); the
rest are counted in one more: 10,000 bad seeds must not make a megabyte of warnings."""
UNRESOLVED_LISTED = 1000
"""Unresolved seeds an answer lists at most; a warning counts the rest."""
CALLER_KEYS = 256
"""Values memoized under keys a caller chose (an IRI it named) kept per graph, the least
recently used dropped first: 10,000 calls naming 10,000 IRIs must not keep 10,000 values."""


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
        self, backend: Backend, profile: Profile, settings: Settings | None = None, *, scope: tuple[str, ...] | None = None,
        whole: GraphContext | None = None,
    ) -> None:
        self.backend = backend
        self.profile = profile
        self.settings = settings or Settings()
        self.scope = scope
        """The named graphs a reader is limited to; None: every graph."""
        self.whole = whole
        """The context of the whole store this one is a scope of (for the deployment's secret)."""
        self.ids = IdMapper(build_converter(backend.prefixes), vocabulary=backend.prefixes.get(""))
        self._lock = threading.Lock()
        self._memo: dict[str, _Computing] = {}
        self._caller_named: OrderedDict[str, _Computing] = OrderedDict()

    def select(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> Rows:
        """Rows of the profile's template `query` (see `gateway.sparql.render`)."""
        return self.profile.select(query, flags, **slots)

    def memo(self, key: str, compute: Callable[[], T], *, caller_named: bool = False) -> T:
        """A value computed once per open graph (the store is read-only).

        It is computed in a thread of its own: a call waits for it until its own deadline
        and, if it is not ready by then, gets `Unavailable` while the count goes on for the
        next call (the statistics of a new scope of a large store take minutes; no call
        may). A computation that fails (an endpoint that did not answer in time) is
        forgotten, to be tried again, and its error is the waiting calls' answer.
        `caller_named`: the key holds something a caller named (at most `CALLER_KEYS` such
        values are kept)."""
        with self._lock:
            kept = self._caller_named if caller_named else self._memo
            future = kept.get(key)
            if future is None:
                future = kept[key] = self._start(key, compute, kept)
                if len(self._caller_named) > CALLER_KEYS:
                    self._caller_named.popitem(last=False)
            elif caller_named:
                self._caller_named.move_to_end(key)
        return _wait(key, future)  # type: ignore[return-value]

    def _start(self, key: str, compute: Callable[[], object], kept: dict[str, _Computing]) -> _Computing:
        future = _Computing()

        def run() -> None:
            try:
                future.set_result(compute())
            except BaseException as error:
                with self._lock:
                    if kept.get(key) is future:
                        del kept[key]
                future.set_exception(error)

        # Under the first caller's deadline: an endpoint is asked no longer than that call
        # may wait (its timeout is the caller's answer); a count in process goes on past it.
        thread = threading.Thread(target=contextvars.copy_context().run, args=(run,), name=f"bfsql-memo-{key[:40]}",
                                  daemon=True)
        thread.start()
        return future

    def named_graphs(self) -> tuple[str, ...]:
        """The named graphs this graph reads, sorted: its reader's, the configured ones of
        a graph too large to ask, or those the store holds."""
        if self.scope is not None:
            graphs: Iterable[str] = self.scope
        elif self.profile.bounded:
            graphs = getattr(self.backend, "graphs", None) or ()
        else:
            graphs = self.memo("named_graphs", lambda: [str(g) for (g,) in self.select("named_graphs") if isinstance(g, str)])
        return tuple(sorted(g for g in graphs if g not in (DEFAULT_GRAPH, NO_GRAPH)))

    def computed(self, key: str) -> bool:
        """Whether `memo` holds a value for `key` already."""
        future = self._memo.get(key)
        return future is not None and future.done() and future.exception() is None

    def cursor_secret(self) -> bytes:
        """The deployment's secret (the whole store's, in every scope of it)."""
        if self.whole is not None:
            return self.whole.cursor_secret()
        if self.settings.cursor_secret is not None:
            return self.settings.cursor_secret.encode()
        return deployment_key(self.backend.capabilities.directory)

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
        # One question for the IRIs and their namespaces' other spellings (http and https).
        spelled = {other: iri for iri in iris_ for other in self.ids.spellings(iri)}
        asked = [i for i in dict.fromkeys([*iris_, *spelled]) if i not in known]
        held = set(known) | (self.profile.existing(asked, plan) if asked else set())
        present = {i for i in iris_ if i in held}
        others = {other: iri for other, iri in spelled.items() if other in held}
        synonyms = _spelled_otherwise({other: iri for other, iri in others.items() if iri not in present})
        synonyms.update(self._better_spelled({other: iri for other, iri in others.items() if iri in present}))
        synonyms.update(self._url_synonyms([i for i in iris_ if i not in present and i not in synonyms]))
        resolved: list[str] = []
        for iri in iris_:
            if iri in synonyms:
                resolved.append(synonyms[iri])
            elif iri in present:
                resolved.append(iri)
            else:
                missing.append(self.ids.to_id(iri))
        return list(dict.fromkeys(resolved))

    def _better_spelled(self, held: dict[str, str]) -> dict[str, str]:
        """IRIs the data also holds in another spelling of their namespace (`held`: each
        spelling -> the IRI asked), and holds more of there (`https://schema.org/Person`
        named once by another vocabulary, where schema.org itself says `http://`), each
        mapped to the spelling holding most."""
        if not held:
            return {}
        both = writable([*held, *held.values()])
        degree = {str(x): int(n.value) for x, n in self.select("id_degrees", ids=iris(both)) if isinstance(n, Literal)}
        found: dict[str, str] = {}
        for other in sorted(held, key=lambda o: -degree.get(o, 0)):
            if degree.get(other, 0) > degree.get(found.get(held[other], held[other]), 0):
                found[held[other]] = other
        return found

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


WAIT_STEP = 0.25
"""How often a call waiting for a memoized value looks whether its caller went away."""
GRACE = 0.5
"""How long past its deadline a call waits for a computation's own answer (an endpoint's
timeout, timed by the same deadline) before saying the value is not ready."""


class _Computing(Future[object]):
    """A memoized value, ready or on its way, and since when."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()


def _wait(key: str, future: _Computing) -> object:
    """The value, once ready, within the running call's deadline."""
    while True:
        left = deadlines.remaining()
        try:
            return future.result(timeout=None if left is None else max(0.0, min(left, WAIT_STEP)))
        except FutureTimeout:
            left = deadlines.remaining()
            if left is not None and left <= 0:
                with contextlib.suppress(FutureTimeout):
                    return future.result(timeout=GRACE)  # its own answer (an endpoint's timeout), just in time
                elapsed = time.monotonic() - future.started
                what = key.split(" ")[0].replace("_", " ")
                raise Unavailable(
                    f"not ready by the call's deadline (or its caller left): this graph's {what}, read once per reader "
                    f"scope ({elapsed:.0f} s so far); ask again shortly", retry_after=max(1.0, round(elapsed)),
                ) from None


def quoted(text: str) -> str:
    """A caller's text in a message: repr, cut to 80 characters."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _spelled_otherwise(held: dict[str, str]) -> dict[str, str]:
    """IRIs the data holds only in another spelling of their namespace (`http://schema.org/`
    where the prefix map says `https://`; `held`: each spelling -> the IRI asked), each
    mapped to the spelling held."""
    found: dict[str, str] = {}
    for other in sorted(held):
        found.setdefault(held[other], other)
    return found
