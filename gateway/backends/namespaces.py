"""Which graphs use which namespaces, for the prefixes a reader of some graphs may see.

A file's `@prefix` lines belong to the file, not to any one of its graphs. A reader of
some of them sees a line's prefix only where its graphs hold an IRI in that namespace (as
a subject, predicate or object, a literal's datatype, or inside a triple term): a prefix
must not tell a reader of a namespace only another graph uses. Found in one pass over the
quads, when the first reader's scope needs it (for a `bfsql load` store, while it loads).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

import pyoxigraph as ox

from gateway.terms import DEFAULT_GRAPH, term_iris

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
    """The IRIs inside a triple term (or none, for a blank node)."""
    for iri in term_iris(term):
        stems.add(_stem(iri))
        _partial(iri, partial, graph, found)


def _fold(stems: set[str], namespaces: Collection[str], graph: str, found: dict[str, set[str]]) -> None:
    """Count the namespaces `stems` are in as used by `graph`, and forget the stems."""
    for stem in stems:
        for namespace in namespaces:
            if stem.startswith(namespace):
                found[namespace].add(graph)
    stems.clear()
