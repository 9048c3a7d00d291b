"""SPARQL text: the templates in `queries/` and the one path by which values enter them.

A template is a `.rq` file with slots (`{{name}}`) and optional sections
(`{{#flag}} ... {{/flag}}`). Slots accept only `Sparql` fragments, and the only
functions here that make a `Sparql` fragment from a value are `iri`, `iris`, `integer`,
`literal`, `tagged` and `variable`: IRIs must have passed `gateway.ids.check_iri`,
literals are written by pyoxigraph's escaping serializer, integers are formatted from `int`. So no
caller string reaches the store as query text without validation. A template rendered
with `fragment` is itself such a fragment, and `joined` / `union` join fragments into one slot.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

import pyoxigraph as ox

from gateway.resources import resource_dir
from gateway.terms import XSD


class Sparql(str):
    """A fragment of SPARQL text that is safe to place in a template slot."""


def iri(value: str) -> Sparql:
    """`<value>` for an IRI that `gateway.ids.check_iri` accepted."""
    if "<" in value or ">" in value or " " in value:
        raise ValueError(f"unchecked IRI reached the SPARQL writer: {value!r}")
    return Sparql(f"<{value}>")


def iris(values: Iterable[str], separator: str = " ") -> Sparql:
    """IRIs for a `VALUES` block (space-separated) or an `IN (...)` list (separator ", ").

    Checked as one string (a walk's frontier is thousands of IRIs); where the check
    fails, `iri` names the value."""
    values = list(values)
    if not values:
        return Sparql("")
    joined = "".join(values)
    if "<" in joined or ">" in joined or " " in joined:
        for value in values:
            iri(value)
    return Sparql("<" + f">{separator}<".join(values) + ">")


_UNWRITABLE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
"""What no IRI written as `<...>` in a query may hold (an IRI from data loaded leniently may)."""
_UNWRITABLE_BYTES = bytes(range(0x21)) + b'<>"{}|^`\\'
"""`_UNWRITABLE` as bytes to delete: all ASCII, so no byte of another character's UTF-8 is one."""


def writable(values: Sequence[str]) -> list[str]:
    """The IRIs that can be written in a query, in order: all of them, unless the data was
    loaded leniently and holds IRIs with spaces or brackets (those cannot be asked about by
    IRI at all; the walk says how many it could not expand)."""
    # Checked by deleting those bytes from the whole text in C: a regular expression's
    # search costs a walk's types read ~50 us a few hundred IRIs, this ~5.
    joined = "".join(values).encode("utf-8", "surrogatepass")
    if len(joined.translate(None, _UNWRITABLE_BYTES)) == len(joined):
        return list(values)
    return [value for value in values if not _UNWRITABLE.search(value)]


def triples(rows: Iterable[tuple[str, str, str]]) -> Sparql:
    """IRI triples as the rows of a `VALUES (?s ?p ?o)` block."""
    return Sparql(" ".join(f"({iri(s)} {iri(p)} {iri(o)})" for s, p, o in rows))


def integer(value: int) -> Sparql:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int, got {type(value).__name__}")
    return Sparql(str(value))


def literal(value: str | int | float | bool | dt.date | dt.datetime) -> Sparql:
    """A literal in SPARQL syntax, escaped by pyoxigraph."""
    if isinstance(value, bool):
        return Sparql("true" if value else "false")
    if isinstance(value, int):
        return integer(value)
    if isinstance(value, float):
        return Sparql(str(ox.Literal(repr(value), datatype=ox.NamedNode(XSD + "double"))))
    if isinstance(value, dt.datetime):
        return Sparql(str(ox.Literal(value.isoformat(), datatype=ox.NamedNode(XSD + "dateTime"))))
    if isinstance(value, dt.date):
        return Sparql(str(ox.Literal(value.isoformat(), datatype=ox.NamedNode(XSD + "date"))))
    return Sparql(str(ox.Literal(value)))


def tagged(value: str, language: str) -> Sparql:
    """A language-tagged string literal (`"text"@en`), escaped by pyoxigraph, which also
    refuses a malformed language tag (ValueError)."""
    return Sparql(str(ox.Literal(value, language=language)))


_VARIABLE = re.compile(r"^\?[A-Za-z_]\w*$")


def variable(name: str) -> Sparql:
    """`?name` for a name made of ASCII letters, digits and `_` (a column's, checked)."""
    text = f"?{name}"
    if not _VARIABLE.match(text) or not text.isascii():
        raise ValueError(f"not a SPARQL variable: {text!r}")
    return Sparql(text)


_DATES = f"(<{XSD}date>, <{XSD}dateTime>)"


def not_after(variable: str, point: int | dt.date | dt.datetime) -> Sparql:
    """`variable <= point`. An integer point is a position or a year: date and date-time
    values compare with it by their year (valid_at 1960 is inside 1959-01-01..1970-01-01)."""
    return _compare(variable, point, "<=")


def not_before(variable: str, point: int | dt.date | dt.datetime) -> Sparql:
    """`point <= variable`, with the same reading of integer points."""
    return _compare(variable, point, ">=")


def _compare(variable: str, point: int | dt.date | dt.datetime, op: str) -> Sparql:
    if not _VARIABLE.match(variable):
        raise ValueError(f"not a SPARQL variable: {variable!r}")
    value = literal(point)
    if isinstance(point, int) and not isinstance(point, bool):
        return Sparql(f"(IF(DATATYPE({variable}) IN {_DATES}, YEAR({variable}), {variable}) {op} {value})")
    if isinstance(point, dt.date) and not isinstance(point, dt.datetime):
        # A day against date-time values means the whole day: up to its end, from its start.
        clock = "23:59:59Z" if op == "<=" else "00:00:00Z"
        moment = Sparql(f'"{point.isoformat()}T{clock}"^^<{XSD}dateTime>')
        return Sparql(f"(IF(DATATYPE({variable}) = <{XSD}dateTime>, {variable} {op} {moment}, {variable} {op} {value}))")
    return Sparql(f"({variable} {op} {value})")


_SECTION = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
_SLOT = re.compile(r"\{\{(\w+)\}\}")


@cache
def template(name: str) -> str:
    """The text of `queries/<profile>/<query>.rq`; a profile without its own falls back to native's."""
    root = resource_dir("queries")
    path = root / f"{name}.rq"
    if not path.is_file():
        path = root / "native" / f"{name.split('/', 1)[-1]}.rq"
    return path.read_text(encoding="utf-8")


def render(name: str, flags: Iterable[str] = (), **slots: Sparql) -> str:
    """Fill a template: keep `{{#f}}` sections whose flag is set (`{{^f}}` when unset)."""
    parts = _sections(name, frozenset(flags))
    text = [parts[0]]
    for i in range(1, len(parts), 2):
        key = parts[i]
        value = slots.get(key)
        if value is None:
            raise KeyError(f"template {name} needs slot {key!r}")
        if not isinstance(value, Sparql):
            raise TypeError(f"slot {key!r} of {name} got raw text; build it with gateway.sparql")
        text += (value, parts[i + 1])
    return "".join(text)


@lru_cache(maxsize=1024)
def _sections(name: str, on: frozenset[str]) -> tuple[str, ...]:
    """The template with its sections kept or dropped by `on`, split at its slots: text,
    slot name, text, ... (a call renders several templates; each is resolved once per set
    of flags)."""
    text = template(name)
    while True:
        text, count = _SECTION.subn(
            lambda m: m.group(3) if (m.group(2) in on) == (m.group(1) == "#") else "", text
        )
        if not count:
            break
    return tuple(_SLOT.split(text))


def fragment(name: str, flags: Iterable[str] = (), **slots: Sparql) -> Sparql:
    """A template rendered for another template's slot: safe text, made only of `Sparql` slots."""
    return Sparql(render(name, flags, **slots))


def joined(fragments: Iterable[Sparql], separator: str = " ") -> Sparql:
    """Fragments joined into one slot: literals for a `VALUES` block (space-separated), or
    `{ ... }` groups into a UNION (separator "\nUNION\n", see `union`)."""
    parts = list(fragments)
    if not all(isinstance(f, Sparql) for f in parts):
        raise TypeError("only Sparql fragments are joined; build them with gateway.sparql")
    return Sparql(separator.join(parts))


def union(fragments: Iterable[Sparql]) -> Sparql:
    """`{ ... }` groups (rendered with `fragment`) as one UNION, for a slot."""
    return joined(fragments, "\nUNION\n")
