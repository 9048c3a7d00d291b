"""Values as an answer shows them: plain JSON where a value is plain; text in another
language than the reader's as `{text, language}` on every profile (in the reader's own
language it is plain text); a node's one shown type. Wikidata's typed values (quantities,
times, coordinates) are the Wikidata profile's (`gateway.profiles.wikidata.values`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from gateway.models import Datum, Value
from gateway.terms import BFS, OWL, RDFS, Blank, Literal, Term, language_matches

ToId = Callable[[str], str]
STATEMENT_TYPE = BFS + "Statement"
_GENERIC_TYPES = frozenset({OWL + "Thing", OWL + "NamedIndividual", RDFS + "Resource"})


def entity_type(types: Iterable[str], to_id: ToId) -> str:
    """One type to show for a node: "Statement" for reifiers, else its first specific type."""
    kinds = set(types)
    if STATEMENT_TYPE in kinds:
        return "Statement"
    specific = sorted(to_id(t) for t in kinds - _GENERIC_TYPES) or sorted(to_id(t) for t in kinds)
    return specific[0] if specific else "Entity"


def datum(term: Term, to_id: ToId, reader: str | None = None) -> Datum:
    """One value: an IRI as its ID, a blank node as `_:label`, a literal as JSON; text in
    another language than the `reader`'s (the first wanted one) as `{text, language}`."""
    if isinstance(term, Literal) and term.language and not (reader and language_matches(term.language, reader)):
        return {"text": term.value, "language": term.language}
    return scalar(term, to_id)


def scalar(term: Term, to_id: ToId) -> Value:
    """A value as plain JSON (a field such as valid_from): `datum` without the language."""
    if isinstance(term, Literal):
        return term.to_python()
    if isinstance(term, Blank):
        return f"_:{term}"
    if isinstance(term, str):
        return to_id(term)
    return str(term)


def in_languages(values: list[Term], languages: Sequence[str]) -> list[Term]:
    """The values without a language, and those in the first wanted language any value
    has; all of them when none is in a wanted language (no choice is better than another)."""
    tagged = [v for v in values if isinstance(v, Literal) and v.language]
    if len(tagged) < 2:
        return values
    for wanted in languages:
        chosen = [v for v in tagged if language_matches(v.language, wanted)]
        if chosen:
            return [v for v in values if v not in tagged or v in chosen]
    return values
