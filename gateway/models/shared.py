"""What the tools' inputs and outputs are made of: value shapes, truth statuses and
directions, positions in time, IDs, and the base classes every model derives from."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Annotated, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from gateway.ids import MAX_ID_LENGTH
from gateway.settings import LANGUAGE_TAG

if TYPE_CHECKING:
    import pyoxigraph as ox
    import rdflib

    from gateway.ids import IdMapper
    from gateway.rdf_export import HasIds

TruthStatus = Literal["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
TRUTH_STATUSES: tuple[TruthStatus, ...] = (
    "asserted_true", "asserted_false", "hypothetical", "disputed", "retracted",
)
Direction = Literal["both", "out", "in"]
Trait = Literal["Symmetric", "Inverse"]
Layout = Literal["default", "compact"]
Value = str | int | float | bool


class Quantity(TypedDict):

    amount: float | int
    unit: NotRequired[str]
    lower: NotRequired[float | int]
    upper: NotRequired[float | int]


class Time(TypedDict):
    # `calendar` only when not the proleptic Gregorian one (wd:Q1985727).

    time: str
    precision: str
    calendar: NotRequired[str]
    timezone: NotRequired[int]


class Coordinates(TypedDict):
    # `globe` only when not the Earth (wd:Q2).

    latitude: float
    longitude: float
    precision: NotRequired[float]
    globe: NotRequired[str]


class Text(TypedDict):

    text: str
    language: str


Datum = Value | Quantity | Time | Coordinates | Text
"""A value as an answer shows it: plain JSON, or typed where its meaning needs more."""


class Claim(TypedDict):
    # A Wikidata claim that carries more than its value; `id` is its statement (describe
    # it for its references).

    value: Datum
    id: str
    qualifiers: NotRequired[dict[str, list[Datum]]]
    rank: NotRequired[str]

_DATE = re.compile(r"^-?\d{4}-\d{2}-\d{2}$")


def _parse_point(value: object) -> object:
    """A position or time: an integer, or an ISO date / date-time string; a blank string is
    "not given", like null (a strict-mode model must send something for every field)."""
    if isinstance(value, (bool, float)):
        raise ValueError("expected an integer position or an ISO 8601 date or date-time")
    if isinstance(value, (int, dt.date)):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if len(text) > 64:  # no date-time is longer: refuse before any parser reads it
            raise ValueError("expected an integer position or an ISO 8601 date or date-time (64 characters at most)")
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        if _DATE.match(text):
            return dt.date.fromisoformat(text)
        try:
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            pass
    raise ValueError("expected an integer position or an ISO 8601 date or date-time")


Point = Annotated[
    int | dt.datetime | dt.date | None,
    BeforeValidator(_parse_point),
    # One type per branch (some schema dialects refuse a list of types): an integer
    # position, or a string holding one ("485") or an ISO 8601 date or date-time.
    WithJsonSchema({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank_id", "an ID must not be blank")
    return value


Id = Annotated[str, Field(max_length=MAX_ID_LENGTH), AfterValidator(_not_blank)]
LanguageTag = Annotated[str, Field(pattern=LANGUAGE_TAG.pattern, max_length=64)]
"""A language tag as `Settings.languages` takes one."""
"""An ID, predicate or type as a caller names it (a CURIE, an IRI, a bare name): at most
4,096 characters, never blank (a blank one is malformed input, not an ID the graph lacks)."""


class Strict(BaseModel):
    """Inputs refuse unknown fields, so a misspelt field is an error, not a silent no-op."""

    model_config = ConfigDict(extra="forbid")


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AsRdf(Out):
    """An answer that holds nodes or statements, as RDF (`gateway/rdf_export.py` says what
    is written). `graph` is the `Gateway` that answered: its IDs go back to IRIs."""

    def to_rdflib(self, graph: IdMapper | HasIds) -> rdflib.Graph:
        """An rdflib Graph (the `rdflib` extra): statements as `rdf:Statement` reification."""
        from gateway import rdf_export

        return rdf_export.to_rdflib(self, graph)

    def to_oxigraph(self, graph: IdMapper | HasIds) -> list[ox.Quad]:
        """pyoxigraph quads in the default graph: statements as RDF 1.2 reifiers."""
        from gateway import rdf_export

        return rdf_export.to_oxigraph(self, graph)
