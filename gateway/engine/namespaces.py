"""Which namespaces of the prefix map the data holds IRIs in, and in which spelling.

describe_schema lists the prefix of each namespace an answer can hold, as the data spells
it (`http://schema.org/` or `https://`): `NamespaceFinder` tells them from the store's quads
read in process, or from the keys `queries/native/namespace_keys.rq` reads in SPARQL,
keyed the same way (`KEY_PATTERN`); the statistics keep what it found
(`gateway.engine.statistics`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable

import pyoxigraph as ox

from gateway.terms import term_iris

KEY_PATTERN = r"^(.*[/#:]([A-Za-z][A-Za-z0-9]*_)?).*$"
"""An IRI's namespace key, as a SPARQL REGEX (queries/native/namespace_keys.rq) and here
alike: up to its last `/`, `#` or `:`, with the local name's first word when an underscore
ends it (OBO's `GO_`): every namespace a prefix can stand for ends at one of those."""
_LEADING = re.compile(r"[A-Za-z][A-Za-z0-9]*_")
KEYS_KEPT = 100_000
"""Keys `NamespaceFinder` keeps before it matches them to namespaces and forgets them."""


def namespace_key(iri: str) -> str:
    """`KEY_PATTERN`'s key of one IRI (the whole IRI when it has no `/`, `#` or `:`)."""
    cut = max(iri.rfind("/"), iri.rfind("#"), iri.rfind(":")) + 1
    if not cut:
        return iri
    leading = _LEADING.match(iri, cut)
    return iri[: leading.end()] if leading else iri[:cut]


class NamespaceFinder:
    """Which of `spellings` (namespaces as some prefix's record spells them) the data holds
    IRIs in, and how often, as an ID mapper matches them: the longest that begins the IRI's
    key."""

    def __init__(self, spellings: Collection[str]) -> None:
        self._spellings = frozenset(spellings)
        self._lengths = sorted({len(s) for s in self._spellings}, reverse=True)
        self._keys: Counter[str] = Counter()
        self.found: Counter[str] = Counter()

    def add_key(self, key: str, times: int = 1) -> None:
        self._keys[key] += times
        if len(self._keys) > KEYS_KEPT:
            self._fold()

    def add_iri(self, iri: str) -> None:
        self.add_key(namespace_key(iri))

    def add_quads(self, quads: Iterable[ox.Quad]) -> None:
        """Every IRI of these quads, once for each quad it is in (as namespace_keys.rq
        counts them): subjects, predicates, objects, datatypes, and those inside triple
        terms. Counted by IRI first (predicates, datatypes and much-linked objects repeat
        on most quads), keyed once per IRI."""
        named, literal = ox.NamedNode, ox.Literal
        counts: dict[str, int] = defaultdict(int)
        previous: object = None
        run = 0
        for s, p, o, _ in quads:
            if s != previous:  # quads come by subject: each run of them counted at once
                if run:
                    self._term(previous, run)
                previous, run = s, 0
            run += 1
            kind = type(o)
            if kind is named:
                counts[o.value] += 1
            elif kind is literal:
                counts[o.datatype.value] += 1
            else:
                self._term(o, 1)
            counts[p.value] += 1
            if len(counts) > KEYS_KEPT:
                self._count(counts)
        if run:
            self._term(previous, run)
        self._count(counts)

    def _count(self, counts: dict[str, int]) -> None:
        for iri, times in counts.items():
            self.add_key(namespace_key(iri), times)
        counts.clear()

    def _term(self, term: object, times: int) -> None:
        """The IRIs of a subject, or of an object that is no plain IRI or literal (a triple
        term)."""
        for iri in term_iris(term):
            self.add_key(namespace_key(iri), times)

    def namespaces(self) -> dict[str, int]:
        """Each spelling held -> the terms (in a subject, predicate, object, datatype or
        graph name) in it."""
        self._fold()
        return dict(sorted(self.found.items()))

    def _fold(self) -> None:
        spellings, found = self._spellings, self.found
        for key, times in self._keys.items():
            for length in self._lengths:
                if length <= len(key) and key[:length] in spellings:
                    found[key[:length]] += times
                    break
        self._keys.clear()
