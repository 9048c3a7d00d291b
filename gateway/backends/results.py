"""A remote endpoint's SELECT answers read into rows (or lines), and its error bodies
read into typed errors.

SPARQL 1.1 TSV is read first, JSON otherwise. Virtuoso's TSV (quoted names, IRIs
indistinguishable from strings) raises `NotTsv` so the client asks again in JSON. A body
that is cut, not UTF-8 or an error text in a 200 is a `BackendError` saying which, in the
gateway's words: the body's text is read to tell a timeout from other failures, and goes
to the log at debug level (secrets taken out), never into the error a caller gets.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from gateway import redaction
from gateway.backends.base import Rows
from gateway.errors import BackendError, EndpointTimeout, Truncated, UpstreamError
from gateway.terms import RDF, XSD, Blank, Literal, Term, TripleTerm, line_text, parse_tsv

TSV = "text/tab-separated-values"
JSON = "application/sparql-results+json"
TIMEOUT_TEXT = re.compile(r"TimeoutException|timed? ?out|timeout|S1TAT|SR171", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_MEDIA_TYPE = re.compile(r"[a-z0-9][\w.+-]{0,40}/[\w.+-]{1,60}")
logger = logging.getLogger("gateway.remote")


class NotTsv(Exception):
    """The server answered in something other than SPARQL 1.1 TSV: ask in JSON."""


@dataclass(frozen=True)
class Body:
    """One answer as it came: who sent it, its media type (no parameters) and its bytes."""

    host: str
    kind: str
    data: bytes


def rows(body: Body) -> tuple[list[str], Rows]:
    """The variables and rows of a SELECT answer, as `gateway.terms` values."""
    if body.kind == TSV:
        text, _ = _tsv_lines(body)
        try:
            return parse_tsv(body.data)
        except (ValueError, AssertionError, IndexError) as error:
            # The parser's message quotes the term: the endpoint's text, for the log only.
            logger.debug("%s: a term of its TSV answer does not parse: %s", body.host, redaction.redact(str(error)[:300]))
            raise cut(body.host, text, "a term does not parse") from None
    return _json_rows(body)


def lines(body: Body) -> tuple[list[str], list[str]]:
    """The variables and rows of a SELECT answer as text, values joined by tabs, as
    `EmbeddedBackend.select_lines` makes them: from standard TSV with no term per value,
    from JSON through the parsed terms."""
    if body.kind == TSV:
        text = _tsv_text(body)
        # Brackets and quotes taken out of the bytes (they are never part of a longer
        # character in UTF-8), then split: no step per row but the count of its tabs.
        found = body.data[body.data.index(b"\n") + 1 :].translate(None, b'<>"').decode().split("\n")
        return _checked(body, text[: text.index("\n")], found)
    header, terms = _json_rows(body)
    return header, ["\t".join(line_text(value) for value in row) for row in terms]


def written(body: Body) -> tuple[list[str], list[str]]:
    """The variables and rows of a SELECT answer as SPARQL TSV writes them, values joined
    by tabs: an IRI in angle brackets, a blank node as `_:label`, a literal quoted (a query
    that reads lines can tell an IRI from a string here: `lines` cannot). From JSON through
    the parsed terms (`tsv_text`)."""
    if body.kind == TSV:
        head, _, rest = _tsv_text(body).partition("\n")
        return _checked(body, head, rest.split("\n"))
    header, terms = _json_rows(body)
    return header, ["\t".join(tsv_text(value) for value in row) for row in terms]


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_text(term: Term | None) -> str:
    """A term as SPARQL TSV writes it ("" for nothing)."""
    if term is None:
        return ""
    if isinstance(term, Blank):
        return f"_:{term}"
    if isinstance(term, TripleTerm):
        return f"<<( {tsv_text(term.subject)} {tsv_text(term.predicate)} {tsv_text(term.object)} )>>"
    if isinstance(term, Literal):
        text = f'"{term.value.translate(_TSV_ESCAPES)}"'
        if term.language:
            return f"{text}@{term.language}"
        return text if term.datatype in (None, XSD + "string") else f"{text}^^<{term.datatype}>"
    return f"<{term}>"


def _tsv_text(body: Body) -> str:
    """The text of a standard TSV answer that ends with a newline (its rows unchecked)."""
    text = decode(body.host, body.data)
    head, _, _ = text.partition("\n")
    if not _standard_tsv_header(head):
        if re.fullmatch(r'"[^"\t]*"(\t"[^"\t]*")*', head):
            raise NotTsv()  # Virtuoso's TSV: quoted names, IRIs indistinguishable from strings
        raise error_text(body.host, body.data[:65536].decode("utf-8", "replace"))
    if not text.endswith("\n"):
        raise cut(body.host, text, "its last line has no newline")
    return text


def _checked(body: Body, head: str, found: list[str]) -> tuple[list[str], list[str]]:
    """The variables of a TSV answer's `head` and its rows (`found`: the lines after the
    head, the empty one after the last newline last), each checked to be as wide as the head."""
    found.pop()  # after the last newline
    if not _same_width(found, head.count("\t")):
        _tsv_lines(body)  # raises, naming the row
    return [v.lstrip("?$") for v in head.split("\t")], found


def _same_width(rows: list[str], tabs: int) -> bool:
    """Whether every row has `tabs` tabs (counted in C, no Python step per row)."""
    return list(map(str.count, rows, repeat("\t"))).count(tabs) == len(rows)


def _tsv_lines(body: Body) -> tuple[str, list[str]]:
    """The text and lines of a complete, standard TSV answer (its header first)."""
    text = _tsv_text(body)
    found = text.split("\n")[:-1]
    width = len(found[0].split("\t"))
    if _same_width(found[1:], width - 1):
        return text, found
    for number, line in enumerate(found[1:], start=1):
        if line.count("\t") != width - 1:
            rest = "\n".join(found[number:])
            raise cut(body.host, rest, f"row {number} has {line.count(chr(9)) + 1} columns, not {width}")
    return text, found


def _json_rows(body: Body) -> tuple[list[str], Rows]:
    if body.kind not in (JSON, "application/json"):
        if body.kind.startswith("text/") or not body.kind:
            raise error_text(body.host, body.data[:65536].decode("utf-8", "replace"))
        logger.debug("%s answered in %s: %s", body.host, body.kind[:100], redaction.redact(excerpt(body.data)))
        # The media type is the endpoint's text: shown only when it is one.
        kind = repr(body.kind) if _MEDIA_TYPE.fullmatch(body.kind) else "a media type"
        raise UpstreamError(f"{body.host} answered in {kind}, neither SPARQL TSV nor JSON")
    text = decode(body.host, body.data)
    try:
        data = json.loads(text)
        header = [str(v) for v in data["head"]["vars"]]
        bindings = data["results"]["bindings"]
        found = [[json_term(b[v]) if v in b else None for v in header] for b in bindings]
    except json.JSONDecodeError as error:
        raise cut(body.host, text, f"its JSON does not parse (line {error.lineno}, column {error.colno})") from None
    except (ValueError, KeyError, TypeError):
        raise cut(body.host, text, "its JSON is not a SPARQL results document") from None
    return header, found


def json_term(term: dict[str, Any]) -> Term:
    """A SPARQL JSON term as the `gateway.terms` value the TSV reader makes of it."""
    kind = term["type"]
    value = term.get("value")
    if kind == "uri":
        return str(value)
    if kind == "bnode":
        return Blank(str(value))
    if kind == "triple":
        parts = value or term
        subject, predicate, obj = (json_term(parts[k]) for k in ("subject", "predicate", "object"))
        return TripleTerm(subject, str(predicate), obj)
    if kind in ("literal", "typed-literal"):
        language = term.get("xml:lang")
        if language:
            return Literal(str(value), RDF + "langString", language)
        datatype = term.get("datatype") or XSD + "string"
        return Literal(str(value), datatype)
    raise ValueError(f"unknown term type {kind!r}")


# -- bodies that are no answer ---------------------------------------------------------
def excerpt(body: bytes, size: int = 300) -> str:
    """The start of an error body as one line of text (HTML tags dropped)."""
    text = body[:4096].decode("utf-8", errors="replace")
    text = " ".join(_TAG.sub(" ", text).split())
    return text[:size] + ("..." if len(text) > size else "") if text else "(empty body)"


def decode(host: str, body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Truncated(f"{host} sent an answer that is not UTF-8 (cut mid-character?): {error}") from None


def _standard_tsv_header(head: str) -> bool:
    """SPARQL 1.1 TSV names each variable with '?' (an empty line: no variables)."""
    return head == "" or all(re.fullmatch(r"[?$][\w\u00b7\u0300-\u036f\u203f-\u2040]+", v) for v in head.split("\t"))


def error_text(host: str, text: str) -> BackendError:
    """A text sent where results were expected: a timeout the server reports, or an error."""
    logger.debug("%s sent a text instead of results: %s", host, redaction.redact(excerpt(text.encode())))
    if TIMEOUT_TEXT.search(text):
        return EndpointTimeout(f"{host} timed out (it said so in a 200 answer)")
    return UpstreamError(f"{host} sent an error text instead of results (the text is in the gateway's log at "
                         "debug level)")


def cut(host: str, text: str, why: str) -> BackendError:
    """A body that stops mid-way: a timeout the server wrote into it, or a plain cut."""
    tail = text[-8000:]  # Blazegraph's trace: the query echoed, the exception, some 30 frames
    if TIMEOUT_TEXT.search(tail) or re.search(r"Exception|Virtuoso \w+ Error|\bError\b", tail):
        logger.debug("%s: the end of its cut answer: %s", host, redaction.redact(excerpt(tail[-2000:].encode())))
    if TIMEOUT_TEXT.search(tail):
        return EndpointTimeout(f"{host} timed out mid-answer ({why})")
    if re.search(r"Exception|Virtuoso \w+ Error|\bError\b", tail):
        return UpstreamError(f"{host} failed mid-answer ({why}); its error text is in the gateway's log at debug level")
    return Truncated(f"{host} sent a cut answer: {why}")
