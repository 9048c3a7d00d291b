"""tabulate's input and answer: a table over the entities of one type (or a list of IDs)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, StringConstraints, WithJsonSchema, model_validator

from gateway.models.inputs import TraversalFilters
from gateway.models.shared import Datum, Id, Out, Strict

MAX_ROWS_IDS = 1000
MAX_COLUMNS = 32
MAX_CONDITIONS = 32
MAX_COMPUTED = 16
MAX_AGGREGATES = 16
MAX_PATH_STEPS = 8

Name = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
"""A column's name: letters, digits and `_`, as a formula names it (`price * 2`)."""
PathText = Annotated[str, StringConstraints(max_length=4096)]
"""Predicates joined by `/`; a step written `^p` is walked backwards, `p*` / `p+` zero / one
or more times; `@tag` ending the last step keeps text in that language."""
Op = Literal["=", "!=", "<", "<=", ">", ">=", "contains", "starts_with", "in", "exists", "missing"]
Constant = bool | int | float | Annotated[str, StringConstraints(max_length=4096)]
AggregateFunction = Literal["count", "count_distinct", "sum", "avg", "min", "max"]


class Condition(Strict):
    # One test a row (where) or a group (having) must pass; the tests are ANDed.
    column: Name | None = None
    path: PathText | None = Field(default=None, description="Instead of column (where only).")
    op: Op
    value: Annotated[Constant | list[Constant] | None, WithJsonSchema({})] = Field(
        default=None, description="Number, text, ISO date, ID; a list for in.")
    other: Name | None = Field(default=None, description="Or another column.")

    @model_validator(mode="after")
    def _one_of_each(self) -> Condition:
        if (self.column is None) == (self.path is None):
            raise ValueError("give column or path (one of them)")
        if self.op in ("exists", "missing"):
            if self.value is not None or self.other is not None:
                raise ValueError(f"{self.op} takes no value and no other")
        elif (self.value is None) == (self.other is None):
            raise ValueError(f"{self.op} compares with value or other (one of them)")
        elif self.op == "in":
            if not isinstance(self.value, list) or not 1 <= len(self.value) <= 1000:
                raise ValueError("in takes a value that is a list of 1 to 1,000 constants")
        elif isinstance(self.value, list):
            raise ValueError(f"a list is a value for in only, not for {self.op}")
        return self


class Aggregate(Strict):
    fn: AggregateFunction
    of: Name = "id"


class Order(Strict):
    column: Name
    descending: bool = False


class TabulateInput(TraversalFilters):
    type: Id | None = Field(default=None, description="Rows: entities of this type, or ids.")
    ids: list[Id] | None = Field(default=None, min_length=1, max_length=MAX_ROWS_IDS, description="1 to 1,000.")
    include_subtypes: bool = False
    columns: dict[Name, PathText] = Field(
        default_factory=dict, max_length=MAX_COLUMNS, description="Name: path (p/q; ^p backwards; p* p+; p@de).")
    where: list[Condition] = Field(default_factory=list, max_length=MAX_CONDITIONS)
    compute: dict[Name, Annotated[str, StringConstraints(max_length=500)]] = Field(
        default_factory=dict, max_length=MAX_COMPUTED, description="Name: formula (w * d, total / n).")
    group_by: list[Name] | None = Field(default=None, min_length=1, max_length=MAX_COLUMNS)
    aggregate: dict[Name, Aggregate] = Field(default_factory=dict, max_length=MAX_AGGREGATES)
    having: list[Condition] = Field(default_factory=list, max_length=MAX_CONDITIONS)
    order_by: list[Order] = Field(default_factory=list, max_length=MAX_COLUMNS)
    # Strict: a JSON 0.000... is no row count (the published schema says integer).
    limit: StrictInt = Field(default=50, description="1 to 1,000.")
    offset: StrictInt = Field(default=0, ge=0, le=1_000_000)

    @model_validator(mode="after")
    def _rows_once(self) -> TabulateInput:
        if (self.type is None) == (self.ids is None):
            raise ValueError("give type or ids (one of them)")
        return self


class TableLimits(Out):
    limit: int
    offset: int


class Table(Out):
    columns: list[str] = Field(description="Names of the rows' cells, in order.")
    rows: list[list[Datum | None]] = Field(description="Cells: an entity's ID, a value, or null.")
    row_count: int = Field(description="Rows in this answer.")
    more: bool = Field(description="Rows past limit exist: ask with offset.")
    labels: dict[str, str] = Field(default_factory=dict, description="Entity ID -> label.")
    unresolved: list[str] = Field(default_factory=list)
    limits: TableLimits
    warnings: list[str] = Field(default_factory=list)
