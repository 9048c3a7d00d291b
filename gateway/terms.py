"""RDF terms as the gateway reads them from SPARQL results (TSV)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import pyoxigraph as ox

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
BFS = "https://w3id.org/bfsql#"
DEFAULT_GRAPH = "default"
"""How readers files, `default-graph-uri` and scopes name the store's default graph."""
NO_GRAPH = "urn:bfsql:no-graph"
"""Names a graph that does not exist: a reader with no graphs sees an empty dataset."""


class Literal(NamedTuple):
    """An RDF literal as read from a result."""

    value: str
    datatype: str | None = None
    language: str | None = None

    def to_python(self) -> str | int | float | bool:
        """The literal as a JSON-friendly Python value (dates stay ISO strings)."""
        kind = self.datatype
        try:
            if kind in _INTEGER_TYPES:
                return int(self.value)
            if kind in _FLOAT_TYPES:
                return float(self.value)
        except ValueError:
            return self.value
        if kind == XSD + "boolean":
            return self.value in ("true", "1")
        return self.value


class Blank(str):
    """A blank node label. Blank nodes are not entities: traversal does not follow them."""


class TripleTerm(NamedTuple):
    subject: Term
    predicate: str
    object: Term


Term = str | Literal | Blank | TripleTerm

_INTEGER_TYPES = frozenset(
    XSD + t
    for t in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
        "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
        "unsignedShort", "unsignedByte", "gYear",
    )
)
_FLOAT_TYPES = frozenset(XSD + t for t in ("decimal", "double", "float"))


# -- reading TSV -------------------------------------------------------------------
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(one, text)


def parse_term(cell: str) -> Term | None:
    """One TSV cell (SPARQL 1.1 TSV results, RDF 1.2 triple terms) as a term; '' is unbound."""
    if not cell:
        return None
    head = cell[0]
    if head == "<":
        if cell.startswith("<<("):
            return _parse_triple_term(cell)
        return cell[1:-1]
    if head == '"':
        end = cell.rfind('"')
        value = _unescape(cell[1:end])
        rest = cell[end + 1 :]
        if rest.startswith("^^<"):
            return Literal(value, rest[3:-1])
        if rest.startswith("@"):
            return Literal(value, RDF + "langString", rest[1:])
        return Literal(value, XSD + "string")
    if head == "_":
        return Blank(cell[2:])
    if cell in ("true", "false"):
        return Literal(cell, XSD + "boolean")
    if re.fullmatch(r"[+-]?\d+", cell):
        return Literal(cell, XSD + "integer")
    if re.fullmatch(r"[+-]?\d*\.\d+", cell):
        return Literal(cell, XSD + "decimal")
    return Literal(cell, XSD + "double")


def _parse_triple_term(cell: str) -> TripleTerm:
    inner = cell[3:-3].strip()
    parts = _split_terms(inner)
    subject, predicate, obj = (parse_term(p) for p in parts)
    assert isinstance(predicate, str) and subject is not None and obj is not None
    return TripleTerm(subject, predicate, obj)


def _split_terms(text: str) -> list[str]:
    """Split the three terms of a triple term, respecting nesting and quoted strings."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    in_string = False
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif text.startswith("<<(", i):
            depth += 1
            i += 2
        elif text.startswith(")>>", i):
            depth -= 1
            i += 2
        elif char == " " and depth == 0:
            if i > start:
                parts.append(text[start:i])
            start = i + 1
        i += 1
    if start < len(text):
        parts.append(text[start:])
    return parts


def parse_tsv(data: bytes) -> tuple[list[str], list[list[Term | None]]]:
    """SPARQL TSV results as (variable names, rows of terms)."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return [], []
    header = [v.lstrip("?$") for v in lines[0].split("\t")]
    rows = [[parse_term(cell) for cell in line.split("\t")] for line in lines[1:]]
    return header, rows


_NAMED_NODE = ox.NamedNode
_LITERAL = ox.Literal


def from_oxigraph(term: object) -> Term | None:
    """A pyoxigraph term (from an embedded query) as the gateway's term."""
    kind = type(term)
    if kind is _NAMED_NODE:
        return term.value  # type: ignore[attr-defined]
    if term is None:
        return None
    if kind is _LITERAL:
        return Literal(term.value, term.datatype.value, term.language)  # type: ignore[attr-defined]
    if kind is ox.BlankNode:
        return Blank(term.value)  # type: ignore[attr-defined]
    if kind is ox.Triple:
        return TripleTerm(from_oxigraph(term.subject), term.predicate.value, from_oxigraph(term.object))  # type: ignore[attr-defined,arg-type]
    return str(term)


_LANGUAGE_TAG = re.compile(r"^[A-Za-z]+(?:-[A-Za-z0-9]+)*$")
_IRI_TEXT = re.compile(r'^[^\x00-\x20<>"\\]+$')
_LENIENT_SUBJECT = b"<urn:bfsql:s> <urn:bfsql:p> "


def to_oxigraph(term: Term, *, lenient: bool = False) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple:
    """The gateway's term as a pyoxigraph term (`from_oxigraph` the other way).

    pyoxigraph's constructors refuse what its lenient parser keeps (an over-long language
    tag such as Wikidata's `zh-classical`, an IRI it cannot validate); with `lenient` such
    a term is read by that parser, as a lenient load reads it. ValueError otherwise.
    """
    try:
        if isinstance(term, Blank):
            return ox.BlankNode(term)
        if isinstance(term, Literal):
            if term.language:
                return ox.Literal(term.value, language=term.language)
            return ox.Literal(term.value, datatype=ox.NamedNode(term.datatype) if term.datatype else None)
        if isinstance(term, TripleTerm):
            subject, obj = to_oxigraph(term.subject, lenient=lenient), to_oxigraph(term.object, lenient=lenient)
            return ox.Triple(subject, to_oxigraph(term.predicate, lenient=lenient), obj)  # type: ignore[arg-type]
        return ox.NamedNode(term)
    except ValueError:
        if not lenient or isinstance(term, (Blank, TripleTerm)):
            raise
        return _leniently(term)


def _leniently(term: str | Literal) -> ox.NamedNode | ox.Literal:
    """One term through the lenient N-Triples parser; only text that cannot break out of
    its place in the line is written into it."""
    if isinstance(term, Literal):
        text = str(ox.Literal(term.value))  # the lexical form quoted and escaped by pyoxigraph
        if term.language and _LANGUAGE_TAG.match(term.language):
            text += "@" + term.language
        elif term.datatype and not term.language and _IRI_TEXT.match(term.datatype):
            text += f"^^<{term.datatype}>"
        else:
            raise ValueError(f"{term!r} cannot be written as an RDF literal")
    elif _IRI_TEXT.match(term):
        text = f"<{term}>"
    else:
        raise ValueError(f"{term!r} cannot be written as an IRI")
    quad = next(iter(ox.parse(_LENIENT_SUBJECT + text.encode() + b" .", format=ox.RdfFormat.N_TRIPLES, lenient=True)))
    return quad.object


def pick_label(values: Sequence[object], languages: Sequence[str]) -> str:
    """The value in the first of `languages` that has one, else one without a language,
    else the first by language and text (so the choice never depends on row order).

    Text without a language is the data's own, read as the most wanted language and
    ahead of tagged text in it: in vocabularies merged into one store, the untagged
    "A person." is FOAF's own comment on foaf:Person, an `@en` one another vocabulary's."""
    picked = pick_literal(values, languages)
    return picked.value if picked is not None else str(values[0])


def pick_literal(values: Sequence[object], languages: Sequence[str]) -> Literal | None:
    """`pick_label`'s choice as the literal it is (its language with it); None without one."""
    literals = sorted((v for v in values if isinstance(v, Literal)), key=lambda v: (v.language or "", v.value))
    for rank, wanted in enumerate(languages):
        for lit in literals:
            if language_matches(lit.language, wanted) or (rank == 0 and not lit.language):
                return lit
    for lit in literals:
        if not lit.language:
            return lit
    return literals[0] if literals else None


def language_matches(tag: str | None, wanted: str) -> bool:
    """Whether a language tag is `wanted` or one of its subtags ("en-gb" for "en"), case aside."""
    if not tag:
        return False
    tag, wanted = tag.lower(), wanted.lower()
    return tag == wanted or tag.startswith(wanted + "-")


def status_name(term: Term | None) -> str:
    """A truth status term as its name: `bfs:disputed` -> "disputed"; no status, asserted_true;
    an unknown term is kept whole, so it cannot pass for a known status."""
    if term is None:
        return "asserted_true"
    text = term if isinstance(term, str) else text_of(term)
    return text[len(BFS):] if text.startswith(BFS) else text


def namespace(iri: str) -> str:
    """An IRI up to its last "/" or "#" ("" when it has neither)."""
    return iri[: max(iri.rfind("/"), iri.rfind("#")) + 1]


def line_text(term: Term | None) -> str:
    """A value as `Backend.select` writes it in `LINES`: an IRI bare, a blank node as `_:label`,
    a literal's lexical form, "" for nothing (what TSV gives with its brackets and quotes
    taken out)."""
    if isinstance(term, Blank):
        return f"_:{term}"
    return text_of(term)


def is_written_iri(value: str) -> bool:
    """Whether a value as SPARQL TSV writes it (`Backend.select`, `WRITTEN`) is an IRI:
    `<...>`, not a triple term's `<<( ... )>>`, a blank node or a literal."""
    return value.startswith("<") and not value.startswith("<<")


_BRACKETS = str.maketrans("", "", '<>"')


def bare_lines(written: list[str]) -> list[str]:
    """Rows as `Backend.select` gives them in `WRITTEN`, as it does in `LINES`: the
    brackets and quotes taken out, in one pass over all of them."""
    return bare_text("\n".join(written)) if written else []


def bare_text(text: str) -> list[str]:
    """`bare_lines` of rows joined already (non-empty)."""
    return text.translate(_BRACKETS).split("\n")


def text_of(term: object) -> str:
    """A literal's lexical form, anything else as text ("" for nothing)."""
    return term.value if isinstance(term, Literal) else ("" if term is None else str(term))


def term_iris(term: object) -> Iterator[str]:
    """The IRIs a term holds: itself, a literal's datatype, those inside a triple term,
    found without recursion (triple terms nest deep)."""
    terms = [term]
    while terms:
        term = terms.pop()
        if type(term) is ox.Triple:
            terms += [term.subject, term.predicate, term.object]
        elif type(term) is ox.NamedNode:
            yield term.value
        elif type(term) is ox.Literal:
            yield term.datatype.value
