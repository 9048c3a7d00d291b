"""What a load read, and what lenient mode let through that a strict parser refuses:
IRIs no query can name, and invalid language tags, counted in the loaded store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from gateway.backends.rdf_files import first_places
from gateway.sparql import template


@dataclass
class LoadReport:
    """What a load read, and what lenient mode let through that a strict parser refuses."""

    files: list[str] = field(default_factory=list)
    quads: int = 0
    lenient: bool = False
    invalid_language_tags: dict[str, int] = field(default_factory=dict)
    odd_iris: int = 0
    """IRIs that no query can name (spaces, control characters, brackets: lenient mode)."""
    odd_iri_examples: list[str] = field(default_factory=list)
    """The first few of them, each with where a file first writes it (`first_places`)."""

    def warnings(self) -> list[str]:
        named = f": {'; '.join(self.odd_iri_examples)}" + (
            f" and {self.odd_iris - len(self.odd_iri_examples)} more" if self.odd_iris > len(self.odd_iri_examples)
            else "") if self.odd_iri_examples else ""
        odd = [f"kept {self.odd_iris} IRI(s) a strict parser refuses (spaces, control characters or brackets in them, "
               f"lenient mode): answers show them escaped, and no walk can go on from them{named}"] if self.odd_iris else []
        return odd + [
            f"kept {count} literal(s) with the invalid language tag {tag!r} (lenient mode)"
            for tag, count in sorted(self.invalid_language_tags.items())
        ]


def odd_iri_examples(store: ox.Store, paths: Sequence[Path]) -> list[str]:
    """The first few IRIs no query can name, escaped as answers show them, each with its place."""
    solutions = store.query(template("native/odd_iri_examples"), use_default_graph_as_union=True)
    assert isinstance(solutions, ox.QuerySolutions)  # a SELECT
    found = [str(solution["x"].value) for solution in solutions]
    places = first_places(paths, found)
    return [f"<{_escaped(iri)}>" + (f" ({places[iri]})" if iri in places else "") for iri in found]


def _escaped(iri: str) -> str:
    return "".join(f"\\u{ord(c):04X}" if c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F else c for c in iri)


def odd_iris(store: ox.Store) -> int:
    """How many IRIs of the store no query can name (`queries/native/odd_iris.rq`)."""
    solutions = store.query(template("native/odd_iris"), use_default_graph_as_union=True)
    assert isinstance(solutions, ox.QuerySolutions)  # a SELECT
    return int(next(iter(solutions))["n"].value)


def invalid_language_tags(store: ox.Store) -> dict[str, int]:
    """Language tags a strict parser refuses, each with how many literals carry it."""
    query = (
        "SELECT ?lang (COUNT(*) AS ?n) WHERE { ?s ?p ?o "
        'BIND(LANG(?o) AS ?lang) FILTER(?lang != "") } GROUP BY ?lang'
    )
    bad: dict[str, int] = {}
    solutions = store.query(query, use_default_graph_as_union=True)
    assert isinstance(solutions, ox.QuerySolutions)  # a SELECT
    for solution in solutions:
        tag = str(solution["lang"].value)
        try:
            ox.Literal("", language=tag)
        except ValueError:
            bad[tag] = int(solution["n"].value)
    return bad
