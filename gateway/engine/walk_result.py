"""What a walk found (`WalkResult`) and how it keys its edges, for `gateway.engine.walk`
and the tools that read a walk."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

from gateway.profiles.base import Hit


class EdgeKey(NamedTuple):
    """One edge of a result, as IRIs: what the walk keys its edges by."""

    subject: str
    predicate: str
    object: str
    statement: str | None
    """The statement's own IRI (its reifier or statement node); None for a plain triple."""
    derived_via: str | None
    """`Kind(<predicate IRI>)` for a trait-derived mirror; None for a stated edge."""


edge_key: Callable[[tuple[str, str, str, str | None, str | None]], EdgeKey] = partial(tuple.__new__, EdgeKey)
"""An EdgeKey from a plain tuple, for the walk's hot path: `EdgeKey(...)` and `_make` run
Python code per edge (~330 and ~250 ns), the tuple constructor none."""


@dataclass
class Cut:
    reason: str
    at_hop: int
    frontier_remaining: int


@dataclass
class WalkResult:
    hops: dict[str, int]
    """Node IRI -> the hop it was reached at, in the order reached (hops never decrease)."""
    edges: dict[EdgeKey, Hit]
    cut: Cut | None = None
    hidden: Counter[str] = field(default_factory=Counter)
    hidden_capped: bool = False
    touched: set[str] = field(default_factory=set)
    """First-hop frontier nodes (the seeds) a hop query found a statement of, crossed or not."""
    unnamed: int = 0
    """Nodes reached whose IRIs no query can name (data loaded leniently): not expanded."""
    plain: dict[str, str] = field(default_factory=dict)
    """The edges of a walk over plain data (`Profile.hop_lines`) as "s\tp\to" IRIs, each an
    asserted_true triple with no statement of its own: kept as read, split when shown (each
    with the tab its row was split at: there is nothing else to keep of a plain edge)."""
    types: dict[str, list[str]] | None = None
    """Every node's types ([] for none), where the walk read them with its hops
    (`walk(types=True)` over HTTP)."""
    layers: list[list[str]] | None = None
    """A path walk's layers: the seeds, then the nodes each step reached from the layer
    before (a node may be in several); None for a walk that is no path."""
    path_length: int = 0
    """A path walk's steps."""
    held: tuple[frozenset[str], dict[str, bool]] | None = None
    """The IRIs `walk(held=...)` asked about with its hops, and `Profile.held`'s answer;
    None where the walk read no such answer."""

    def path_ends(self) -> list[str]:
        """The nodes a path walk's last step reached (none where the walk stopped before it)."""
        layers = self.layers or []
        return layers[-1] if len(layers) > 1 and len(layers) == self.path_length + 1 else []

    def edge_count(self) -> int:
        return len(self.edges) + len(self.plain)

    def edge_keys(self) -> list[EdgeKey]:
        return [*self.edges, *(edge_key((*line.split("\t"), None, None)) for line in self.plain)]  # type: ignore[arg-type]
