"""Wikidata's values as an answer shows them.

Wikidata writes a quantity, a time or a coordinate twice: a plain literal
(`pq:P2048 "+1.96"`) and a value node (`pqv:P2048 v:...` with `wikibase:quantityUnit
wd:Q11573`); the typed value is built from the node and the plain literal it stands for
is left out. A statement's qualifiers and each of its references are groups of such
values, property -> values; a claim shown as a property value carries its qualifiers and
a preferred rank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from gateway.models import Claim, Coordinates, Datum, Quantity, Time
from gateway.profiles.base import HopPlan, Point, Rank, StatementFields, StatementRow
from gateway.profiles.wikidata.terms import CLAIM, WIKIBASE
from gateway.terms import BFS, XSD, Blank, Literal, Term
from gateway.values import ToId, datum, in_languages

QUALIFIER = CLAIM + "qualifier/"
QUALIFIER_VALUE = CLAIM + "qualifier/value/"
REFERENCE = CLAIM + "reference/"
REFERENCE_VALUE = CLAIM + "reference/value/"
NOVALUE = CLAIM + "novalue/"
STATEMENT_VALUE = CLAIM + "statement/value/"
VALUE_NODE_PREDICATES = (QUALIFIER_VALUE, REFERENCE_VALUE, STATEMENT_VALUE)
"""Predicates whose objects are value nodes (read with `value_nodes.rq`)."""

_TYPED_LEXICAL = frozenset({
    XSD + "decimal", XSD + "dateTime", "http://www.opengis.net/ont/geosparql#wktLiteral",
    "http://www.openlinksw.com/schemas/virtrdf#Geometry",  # how Virtuoso reads a WKT literal back
})
"""Datatypes of the plain literals a value node stands for."""
_DIMENSIONLESS = "http://www.wikidata.org/entity/Q199"
"""Wikibase's unit "1": a plain number."""
_GREGORIAN, _EARTH = "http://www.wikidata.org/entity/Q1985727", "http://www.wikidata.org/entity/Q2"
"""The calendar and globe nearly every value has: named only when a value has another
(as Wikidata's own pages do), so the common case costs a reader nothing."""
PRECISIONS = {14: "second", 13: "minute", 12: "hour", 11: "day", 10: "month", 9: "year", 8: "decade",
              7: "century", 6: "millennium"}
RANKS: dict[str, Rank] = {WIKIBASE + "PreferredRank": "preferred", WIKIBASE + "NormalRank": "normal",
                          WIKIBASE + "DeprecatedRank": "deprecated"}
RANK, PREFERRED = WIKIBASE + "rank", WIKIBASE + "PreferredRank"
QUALIFIERS = (QUALIFIER, QUALIFIER_VALUE, NOVALUE)
"""Statement data read as a Wikidata statement's qualifiers."""


def is_value_node_predicate(predicate: str) -> bool:
    return predicate.startswith(VALUE_NODE_PREDICATES)


def typed_value(fields: dict[str, Term], to_id: ToId) -> Datum | None:
    """A Wikibase value node's fields as one typed value (None for a kind not known)."""

    def number(name: str) -> float | int | None:
        value = fields.get(WIKIBASE + name)
        return _number(value.value) if isinstance(value, Literal) else None

    def iri(name: str, usual: str) -> str | None:
        value = fields.get(WIKIBASE + name)
        return to_id(value) if isinstance(value, str) and not isinstance(value, Blank) and value != usual else None

    amount = number("quantityAmount")
    if amount is not None:
        quantity: Quantity = {"amount": amount}
        unit = fields.get(WIKIBASE + "quantityUnit")
        if isinstance(unit, str) and unit != _DIMENSIONLESS:
            quantity["unit"] = to_id(unit)
        for key, name in (("lower", "quantityLowerBound"), ("upper", "quantityUpperBound")):
            bound = number(name)
            if bound is not None:
                quantity[key] = bound  # type: ignore[literal-required]
        return quantity
    moment = fields.get(WIKIBASE + "timeValue")
    if isinstance(moment, Literal):
        precision = number("timePrecision")
        time: Time = {"time": moment.value, "precision": _precision(precision)}
        calendar = iri("timeCalendarModel", _GREGORIAN)
        if calendar:
            time["calendar"] = calendar
        offset = number("timeTimezone")
        if offset:
            time["timezone"] = int(offset)
        return time
    latitude, longitude = number("geoLatitude"), number("geoLongitude")
    if latitude is not None and longitude is not None:
        place: Coordinates = {"latitude": float(latitude), "longitude": float(longitude)}
        precision = number("geoPrecision")
        if precision is not None:
            place["precision"] = float(precision)
        globe = iri("geoGlobe", _EARTH)
        if globe:
            place["globe"] = globe
        return place
    return None


def _number(text: str) -> float | int | None:
    """A value node's number from its lexical form (an amount is written "+1.96")."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _precision(code: float | int | None) -> str:
    if code is None:
        return "unknown"
    code = int(code)
    return PRECISIONS.get(code) or f"{10 ** (9 - code)} years"


def claim_values(
    rows: Iterable[tuple[str, Term]], nodes: dict[str, dict[str, Term]], to_id: ToId, languages: Sequence[str],
) -> dict[str, list[Datum]]:
    """Qualifier or reference rows (predicate, value) as property ID -> values: value
    nodes (pqv:, prv:) become typed values under the plain property (pq:, pr:), replacing
    the plain literals they stand for; a novalue class (wdno:P) is the value "novalue";
    a text written in many languages (a media legend) is kept in the wanted one."""
    plain: dict[str, list[Term]] = defaultdict(list)
    typed: dict[str, list[Datum]] = defaultdict(list)
    for predicate, value in rows:
        if predicate.startswith((QUALIFIER_VALUE, REFERENCE_VALUE)):
            base = predicate.replace("/value/", "/", 1)
            found = typed_value(nodes.get(str(value), {}), to_id)
            if found is not None:
                typed[base].append(found)
        elif predicate.startswith(NOVALUE):
            plain[QUALIFIER + predicate[len(NOVALUE):]].append(Literal("novalue"))
        else:
            plain[predicate].append(value)
    grouped: dict[str, list[Datum]] = {}
    for predicate in sorted({*plain, *typed}, key=to_id):
        kept = in_languages(
            [v for v in plain.get(predicate, ()) if not (predicate in typed and _stands_for_typed(v))], languages)
        values = [datum(v, to_id, languages[0] if languages else None) for v in kept] + typed.get(predicate, [])
        grouped[to_id(predicate)] = sorted(values, key=str)
    return grouped


def _stands_for_typed(value: Term) -> bool:
    return isinstance(value, Literal) and value.datatype in _TYPED_LEXICAL


def claim(
    statement: str, predicate: str, value: Term, rows: Sequence[StatementRow], nodes: dict[str, dict[str, Term]],
    valid_at: Point | None, to_id: ToId, languages: Sequence[str],
) -> Datum | Claim | None:
    """A claim (`predicate` wdt:P, with the statement's data `rows` and value `nodes`) as a
    property value: its typed value (a quantity with its unit), with its qualifiers and a
    preferred rank when it has them; None when it is not in force at `valid_at`."""
    own_novalue = NOVALUE + predicate.rsplit("/", 1)[-1]  # the claim's own value, not a qualifier
    rows = [row for row in rows if row[0] != own_novalue]
    if valid_at is not None and not _in_force(rows, valid_at):
        return None
    shown = _claim_value(value, rows, nodes, to_id, languages)
    qualifiers = claim_values([(p, v) for p, v, ref in rows if ref is None and p.startswith(QUALIFIERS)], nodes,
                              to_id, languages)
    preferred = any(p == RANK and v == PREFERRED for p, v, _ in rows)
    if not qualifiers and not preferred:
        return shown
    found: Claim = {"value": shown, "id": to_id(statement)}
    if qualifiers:
        found["qualifiers"] = qualifiers
    if preferred:
        found["rank"] = "preferred"
    return found


def _in_force(rows: Sequence[StatementRow], valid_at: Point) -> bool:
    """Whether a statement's validity bounds (its start and end qualifiers) hold `valid_at`."""
    bounds = {p: v for p, v, _ in rows if p in (BFS + "validFrom", BFS + "validUntil")}
    return not HopPlan(valid_at=valid_at).failures(
        "asserted_true", None, bounds.get(BFS + "validFrom"), bounds.get(BFS + "validUntil"))


def _claim_value(
    value: Term, rows: Sequence[StatementRow], nodes: dict[str, dict[str, Term]], to_id: ToId, languages: Sequence[str],
) -> Datum:
    """A claim's value: typed from its value node (psv:) where it has one, else as written."""
    typed = (typed_value(nodes.get(str(v), {}), to_id) for p, v, _ in rows if p.startswith(STATEMENT_VALUE))
    return next((t for t in typed if t is not None), None) or datum(value, to_id, languages[0] if languages else None)


def claim_fields(
    rows: Sequence[StatementRow], nodes: dict[str, dict[str, Term]], to_id: ToId, languages: Sequence[str],
    others: Callable[[list[StatementRow]], StatementFields],
) -> StatementFields:
    """A Wikidata statement's full-edge fields: its rank, qualifiers and references, and
    what `others` makes of the rest of its data (its truth status and validity, read from
    the rank and qualifiers by statement_data.rq, and anything else as provenance)."""
    rest: list[StatementRow] = []
    ranks: list[str] = []
    qualifiers: list[tuple[str, Term]] = []
    references: dict[str, list[tuple[str, Term]]] = defaultdict(list)
    for p, v, reference in rows:
        if reference is not None:
            references[reference].append((p, v))
        elif p == RANK and isinstance(v, str):
            ranks.append(v)
        elif p.startswith(QUALIFIERS):
            qualifiers.append((p, v))
        else:
            rest.append((p, v, reference))
    fields = others(rest)
    if ranks:
        fields["rank"] = RANKS.get(ranks[-1])
    grouped = claim_values(qualifiers, nodes, to_id, languages)
    if grouped:
        fields["qualifiers"] = grouped
    if references:
        fields["references"] = [claim_values(group, nodes, to_id, languages) for _, group in sorted(references.items())]
    return fields
