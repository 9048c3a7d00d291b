"""One open graph as the tools see it: backend, profile, ID mapper, settings, and the
values computed once per graph (`memo`)."""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar, cast

from gateway import deadline as deadlines
from gateway import memory
from gateway.backends.base import Backend, Rows
from gateway.deployment_key import deployment_key
from gateway.errors import Unavailable
from gateway.ids import IdMapper, build_converter
from gateway.profiles.base import Profile
from gateway.profiles.graph import MemoKey
from gateway.settings import Settings
from gateway.sparql import Sparql, iris, writable
from gateway.terms import DEFAULT_GRAPH, NO_GRAPH, Literal, language_matches, pick_literal

T = TypeVar("T")

CALLER_KEYS = 256
"""Values memoized under keys a caller chose (an IRI it named) kept per graph, the least
recently used dropped first: 10,000 calls naming 10,000 IRIs must not keep 10,000 values."""
OWN_KEYS = 64
"""Values memoized under the code's own keys kept per graph (there are about fifteen): a
bound all the same, should a key come to hold what a caller named without saying so."""


class GraphContext:
    """Everything a tool function needs about one graph (the `gateway.profiles.graph.Graph`
    a profile's strategies read)."""

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
        self._memo: OrderedDict[MemoKey[Any], _Computing] = OrderedDict()
        """Values under the code's own keys: at most `OWN_KEYS`."""
        self._caller_named: OrderedDict[MemoKey[Any], _Computing] = OrderedDict()
        """Values under keys holding what a caller named: at most `CALLER_KEYS`."""

    def select(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> Rows:
        """Rows of the profile's template `query` (see `gateway.sparql.render`)."""
        return self.profile.select(query, flags, **slots)

    def memo(self, key: MemoKey[T], compute: Callable[[], T]) -> T:
        """A value computed once per open graph (the store is read-only).

        It is computed in a thread of its own: a call waits for it until its own deadline
        and, if it is not ready by then, gets `Unavailable` while the count goes on for the
        next call (the statistics of a new scope of a large store take minutes; no call
        may). A computation that fails (an endpoint that did not answer in time) is
        forgotten, to be tried again, and its error is the waiting calls' answer. A key
        holding what a caller named (`MemoKey.detail`) is one of at most `CALLER_KEYS`, any
        other one of at most `OWN_KEYS`."""
        if not key.caller_named:
            # A value computed already, read without the lock and the wait (a call reads
            # several): the code's own keys are about fifteen, far from their bound, so
            # their order of use need not be kept.
            ready = self._memo.get(key)
            if ready is not None and ready.done() and ready.exception() is None:
                return cast(T, ready.result())
        with self._lock:
            kept, bound = (self._caller_named, CALLER_KEYS) if key.caller_named else (self._memo, OWN_KEYS)
            future = kept.get(key)
            if future is None:
                future = kept[key] = self._start(key, compute, kept)
                if len(kept) > bound:  # the least recently used goes
                    kept.popitem(last=False)
            else:
                kept.move_to_end(key)
        return cast(T, _wait(key, future))

    def _start(self, key: MemoKey[Any], compute: Callable[[], object], kept: dict[MemoKey[Any], _Computing]) -> _Computing:
        future = _Computing()

        def run() -> None:
            before = memory.resident()
            try:
                future.set_result(compute())
                # Freed here, on a thread of its own: the caller's `give_back` sees none of it
                # (a search index's build left ~0.9 GB with the allocator on NCBITaxon).
                memory.give_back(before)
            except BaseException as error:
                with self._lock:
                    if kept.get(key) is future:
                        del kept[key]
                future.set_exception(error)

        # Under the first caller's deadline: an endpoint is asked no longer than that call
        # may wait (its timeout is the caller's answer); a count in process goes on past it.
        thread = threading.Thread(target=contextvars.copy_context().run, args=(run,), name=f"bfsql-memo-{str(key)[:40]}",
                                  daemon=True)
        thread.start()
        return future

    def computed(self, key: MemoKey[Any]) -> bool:
        """Whether `memo` holds a value for `key` already."""
        future = self._memo.get(key)
        return future is not None and future.done() and future.exception() is None

    def named_graphs(self) -> tuple[str, ...]:
        """The named graphs this graph reads, sorted: its reader's, else those the profile
        says the store holds."""
        graphs = self.scope if self.scope is not None else self.profile.named_graphs(self)
        return tuple(sorted(g for g in graphs if g not in (DEFAULT_GRAPH, NO_GRAPH)))

    def cursor_secret(self) -> bytes:
        """The deployment's secret (the whole store's, in every scope of it)."""
        if self.whole is not None:
            return self.whole.cursor_secret()
        if self.settings.cursor_secret is not None:
            return self.settings.cursor_secret.encode()
        return deployment_key(self.backend.capabilities.directory)

    def labels(self, iris_: Sequence[str]) -> dict[str, str]:
        """The preferred label of each IRI that has one."""
        return {x: label.value for x, label in self.label_texts(iris_).items()}

    def label_texts(self, iris_: Sequence[str]) -> dict[str, Literal]:
        """The preferred label of each IRI that has one, as the literal it is (its language
        with it: `told_language` says whether an answer must tell it)."""
        iris_ = writable(iris_)
        if not iris_:
            return {}
        rows = self.select("labels", ids=iris(iris_))
        found: dict[str, list[object]] = {}
        for x, label in rows:
            found.setdefault(str(x), []).append(label)
        languages = self.settings.languages
        return {x: pick_literal(values, languages) or Literal(str(values[0])) for x, values in found.items() if values}

    def told_language(self, text: Literal) -> str | None:
        """The language an answer tells beside a text shown to this graph's reader: its tag,
        unless it has none (the data's own) or it is the reader's (the first of
        `Settings.languages`, subtags included), as `presentation.Names.tag` tells one."""
        languages = self.settings.languages
        if not text.language or (languages and language_matches(text.language, languages[0])):
            return None
        return text.language


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


def _wait(key: MemoKey[Any], future: _Computing) -> object:
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
                what = key.name.replace("_", " ")
                raise Unavailable(
                    f"not ready by the call's deadline (or its caller left): this graph's {what}, read once per reader "
                    f"scope ({elapsed:.0f} s so far); ask again shortly", retry_after=max(1.0, round(elapsed)),
                ) from None


def quoted(text: str) -> str:
    """A caller's text in a message: repr, cut to 80 characters."""
    return repr(text if len(text) <= 80 else text[:77] + "...")
