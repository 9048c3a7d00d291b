"""Which graphs use which namespaces, for the prefixes a reader of some graphs may see.

A file's `@prefix` lines belong to the file, not to any one of its graphs. A reader of
some of them sees a line's prefix only where its graphs hold an IRI in that namespace (as
a subject, predicate or object, a literal's datatype, or inside a triple term): a prefix
must not tell a reader of a namespace only another graph uses. Found in one pass over the
quads, when the first reader's scope needs it (for a `bfsql load` store, while it loads).

`NamespaceFinder` tells which namespaces of the prefix map the data holds IRIs in, and in
which spelling (`http://schema.org/` or `https://`): describe_schema lists their prefixes
as the data spells them (counted with the statistics, `gateway.engine.statistics`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable

import pyoxigraph as ox

from gateway.terms import DEFAULT_GRAPH

STEMS_KEPT = 100_000
"""IRI stems (up to the last "/" or "#") a pass keeps before it turns them into namespaces
and forgets them: data with a stem per entity must not fill memory."""


def graphs_using(store: ox.Store, namespaces: Collection[str]) -> dict[str, list[str]]:
    """Each namespace -> the graphs holding an IRI in it, sorted ("default": the default
    graph); a namespace no graph uses is left out."""
    found: dict[str, set[str]] = defaultdict(set)
    if not namespaces:
        return {}
    # A namespace that does not end a stem (`obo:GO_`) is checked against each IRI of its stem.
    partial: dict[str, list[str]] = defaultdict(list)
    for namespace in namespaces:
        stem = _stem(namespace)
        if stem != namespace:
            partial[stem].append(namespace)
    named, literal = ox.NamedNode, ox.Literal
    for graph_name in [ox.DefaultGraph(), *store.named_graphs()]:
        graph = graph_name.value if type(graph_name) is named else DEFAULT_GRAPH
        iris: set[str] = set()  # predicates and datatypes: few, and seen on most quads
        stems: set[str] = set()
        previous = None
        for s, p, o, _ in store.quads_for_pattern(None, None, None, graph_name):
            if s != previous:  # quads come by subject: each one once
                previous = s
                if type(s) is named:
                    iri = s.value
                    stems.add(iri[: max(iri.rfind("/"), iri.rfind("#")) + 1])
                    if partial:
                        _partial(iri, partial, graph, found)
                else:
                    _nested(s, stems, partial, graph, found)
            kind = type(o)
            if kind is named:
                iri = o.value
                stems.add(iri[: max(iri.rfind("/"), iri.rfind("#")) + 1])
                if partial:
                    _partial(iri, partial, graph, found)
            elif kind is literal:
                iris.add(o.datatype.value)
            else:
                _nested(o, stems, partial, graph, found)
            iris.add(p.value)
            if len(stems) > STEMS_KEPT:
                _fold(stems, namespaces, graph, found)
        for iri in iris:
            stems.add(_stem(iri))
            _partial(iri, partial, graph, found)
        _fold(stems, namespaces, graph, found)
    return {namespace: sorted(graphs) for namespace, graphs in found.items()}


def _stem(iri: str) -> str:
    return iri[: max(iri.rfind("/"), iri.rfind("#")) + 1]


def _partial(iri: str, partial: dict[str, list[str]], graph: str, found: dict[str, set[str]]) -> None:
    for namespace in partial.get(_stem(iri), ()):
        if iri.startswith(namespace):
            found[namespace].add(graph)


def _nested(term: object, stems: set[str], partial: dict[str, list[str]], graph: str, found: dict[str, set[str]]) -> None:
    """The IRIs inside a triple term (or none, for a blank node), without recursion: they nest deep."""
    terms = [term]
    while terms:
        term = terms.pop()
        if type(term) is ox.Triple:
            terms += [term.subject, term.predicate, term.object]
        elif type(term) is ox.NamedNode:
            stems.add(_stem(term.value))
            _partial(term.value, partial, graph, found)
        elif type(term) is ox.Literal:
            stems.add(_stem(term.datatype.value))
            _partial(term.datatype.value, partial, graph, found)


def _fold(stems: set[str], namespaces: Collection[str], graph: str, found: dict[str, set[str]]) -> None:
    """Count the namespaces `stems` are in as used by `graph`, and forget the stems."""
    for stem in stems:
        for namespace in namespaces:
            if stem.startswith(namespace):
                found[namespace].add(graph)
    stems.clear()


# -- the namespaces an answer can name ---------------------------------------------------------
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
        term), without recursion: they nest deep."""
        terms = [term]
        while terms:
            term = terms.pop()
            if type(term) is ox.Triple:
                terms += [term.subject, term.predicate, term.object]
            elif type(term) is ox.NamedNode:
                self.add_key(namespace_key(term.value), times)
            elif type(term) is ox.Literal:
                self.add_key(namespace_key(term.datatype.value), times)

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
