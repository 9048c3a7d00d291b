"""The tools' inputs: what each call takes, checked before any work (unknown fields refused)."""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field

from gateway.models.shared import Direction, Id, LanguageTag, Layout, Point, Strict, Trait, TruthStatus
from gateway.models.traversal import Traversal


class NodeFilter(Strict):
    entity_types: list[Id] = Field(
        default_factory=list, description="Nodes of these types in full."
    )


class EdgeFilter(Strict):
    predicates: list[Id] = Field(
        default_factory=list, description="Edges of these in full."
    )


class TraversalFilters(Strict):
    """Filters that decide which statements a walk may cross (and so change topology).

    A list of what may be crossed or matched names at least one item: an empty one would
    match nothing, so it is refused (leave it out, or null, for the default)."""

    truth_status: list[TruthStatus] | None = Field(
        default=None, min_length=1,
        description='Default ["asserted_true"].',
    )
    as_of: Point | None = Field(
        default=None,
        description="Asserted by then (position or ISO date).",
    )
    valid_at: Point | None = Field(
        default=None,
        description="Held then (year or ISO date).",
    )

    def traversal(self) -> Traversal:
        """These filters as planning takes them; a tool whose input says more (a direction,
        predicates) adds it."""
        return Traversal(truth_status=self.truth_status, as_of=self.as_of, valid_at=self.valid_at)


class WalkFilters(TraversalFilters):
    """The traversal filters of a walking tool: which predicates it may cross, too."""

    predicates: list[Id] | None = Field(default=None, min_length=1, description="Walk only these.")
    exclude_predicates: list[Id] = Field(default_factory=list)

    def traversal(self) -> Traversal:
        return replace(super().traversal(), predicates=self.predicates, exclude_predicates=self.exclude_predicates)


class InGraphs(Strict):
    """Tools that read named graphs: only those named, within the reader's own."""

    graphs: list[Id] | None = Field(default=None, min_length=1, max_length=100)
    """Read only these named graphs (describe_schema lists them); unnamed in the tool list
    to keep it light: the name says it."""


class InLanguages(Strict):
    languages: list[LanguageTag] | None = Field(default=None, min_length=1, max_length=8)  # most wanted first


# -- tool inputs --------------------------------------------------------------------
class DescribeSchemaInput(Strict):
    pass


class SearchEntitiesInput(InGraphs):
    query: str = Field(min_length=1, max_length=500, description="A name or words.")
    entity_types: list[Id] | None = Field(default=None, min_length=1, description="Only of these types.")
    limit: int = Field(default=10, description="1 to 100.")


class PathStep(Strict):
    # One hop of a path walk: the predicates it follows, and which way (a comment, not a
    # docstring: the tool lists would carry a docstring on every turn).

    predicates: list[Id] = Field(min_length=1)
    direction: Direction | None = None
    """None: the walk's `direction`."""


MAX_PATH_STEPS = 6


class BfsQueryInput(WalkFilters, InGraphs):
    seeds: list[Id] = Field(min_length=1, description="IDs or URLs, 1 to 256.")
    max_hops: int = Field(default=1, description="0 to 6.")
    direction: Direction = Field(default="both", description="out: subject to object.")
    expand_traits: list[Trait] = Field(
        default_factory=list,
        description="Add implied edges (derived_via).",
    )
    node_filter: NodeFilter | None = None
    edge_filter: EdgeFilter | None = None
    topology_only: bool = Field(default=False, description="All stubs.")
    max_nodes: int | None = None  # clamped to the deployment's caps, never refused
    max_edges: int | None = None
    layout: Layout = Field(
        default="default",
        description="compact: stubs with labels.",
    )
    path: list[PathStep] | None = Field(
        default=None, min_length=1, max_length=MAX_PATH_STEPS,
        description="1-6 steps; hop i walks step i only.",
    )

    def traversal(self) -> Traversal:
        return replace(super().traversal(), direction=self.direction)


class DescribeEntityInput(InGraphs, InLanguages):
    id: Id = Field(description="An entity or statement ID.")


class DescribeEntitiesInput(InGraphs, InLanguages):
    ids: list[Id] = Field(min_length=1, description="IDs, 1 to 100.")


class ExpandNeighborsInput(TraversalFilters):
    entity_ids: list[Id] = Field(min_length=1, description="Seed IDs, 1 to 8.")
    relationship_types: list[Id] | None = Field(default=None, min_length=1, description="Walk only these.")
    types: list[Id] | None = Field(default=None, min_length=1,
                                   description="Listed only (walk crosses any).")
    depth: int = Field(default=1, description="1 to 3.")
    limit: int = Field(default=8, description="1 to 24.")
    content_max_chars: int = Field(default=500, description="Preview, 1 to 4,000.")
    include_incoming: bool = True
    cursor: str | None = Field(default=None, max_length=4096)
    """A page's next_cursor; unnamed in the tool list to keep it light (next_cursor says it)."""

    def traversal(self) -> Traversal:
        return replace(super().traversal(), direction="both" if self.include_incoming else "out",
                       predicates=self.relationship_types, predicates_field="relationship_types")


class AnswerInput(TraversalFilters):
    question: str = Field(min_length=1, max_length=2000)
    max_batches: int | None = Field(default=None, description="1 to 8 (default 8).")


class FetchSliceInput(Strict):
    entity_id: Id = Field(description="A passage or document ID.")
    window: int | None = Field(default=None, description="Passages, 1 to 64 (default 3).")
    content_max_chars: int | None = Field(default=None, description="Text budget (default 18000).")


class IntersectSubgraphsInput(WalkFilters):
    seeds: list[Id] = Field(min_length=2, description="IDs, 2 to 8.")
    k: int = Field(default=2, description="1 to 4 hops from each.")
    direction: Direction = "both"
    node_filter: NodeFilter | None = None
    edge_filter: EdgeFilter | None = None
    topology_only: bool = False
    max_nodes: int | None = Field(default=None, description="Node budget per seed walk (clamped).")
    max_edges: int | None = Field(default=None, description="Edge budget per seed walk (clamped).")

    def traversal(self) -> Traversal:
        return replace(super().traversal(), direction=self.direction)


class TransitiveClosureInput(TraversalFilters):
    start: Id = Field(description="An entity ID.")
    predicate: Id = Field(description="e.g. rdfs:subClassOf")
    direction: Direction = Field(default="out", description="out: subject to object; in: back.")
    limit: int = Field(default=10_000, description="1 to 500,000.")

    def traversal(self) -> Traversal:
        return replace(super().traversal(), direction=self.direction)


class ScanQueryInput(TraversalFilters, InGraphs):
    node_types: list[Id] | None = Field(default=None, min_length=1, description="Types to list.")
    edge_predicates: list[Id] | None = Field(default=None, min_length=1, description="Statements of these.")
    limit: int = Field(default=100, description="Per page, 1 to 1,000.")
    cursor: str | None = Field(default=None, max_length=4096, description="A page's next_cursor.")


class ShortestPathInput(WalkFilters):
    source: Id
    target: Id
    max_hops: int = Field(default=4, description="1 to 8.")
    direction: Direction = "both"

    def traversal(self) -> Traversal:
        return replace(super().traversal(), direction=self.direction)


class CommunitiesInput(WalkFilters):
    seeds: list[Id] = Field(default_factory=list, description="Up to 256 (none: the whole graph).")
    max_hops: int = Field(default=2, description="1 to 4.")
    resolution: float = Field(default=1.0, gt=0, le=10, description="Higher: smaller ones.")
    level: int = Field(default=0, description="0: coarsest.")
    community: int | None = Field(default=None, description="One, in full.")
