"""What a walk may cross, as planning takes it from any tool's input."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from gateway.models.shared import Direction, TruthStatus


@dataclass(frozen=True)
class Traversal:
    """The traversal settings the walking tools share, each tool's input converted to them
    (`TraversalFilters.traversal`): the fields keep the names a caller gives them, so a
    warning about one says the caller's word."""

    direction: Direction = "both"
    truth_status: Sequence[TruthStatus] | None = None
    """None: the default (asserted_true only)."""
    as_of: int | dt.date | dt.datetime | None = None
    valid_at: int | dt.date | dt.datetime | None = None
    predicates: Sequence[str] | None = None
    """Walk only these (None: any the graph walks by default)."""
    exclude_predicates: Sequence[str] = ()
    predicates_field: str = "predicates"
    """The input field that named `predicates` (expand_neighbors calls them relationship_types)."""
