"""The tools' inputs and outputs as pydantic models: the one source of truth for the
Python API, the CLI, the HTTP routes, the MCP tools and the tool lists."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from gateway.ids import MAX_ID_LENGTH
from gateway.pictures import Drawable

if TYPE_CHECKING:
    import pyoxigraph as ox
    import rdflib

    from gateway.answer_rdf import HasIds
    from gateway.ids import IdMapper

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
    # One type for every schema dialect (some refuse a list of types): a string holding an
    # integer position ("485") or an ISO 8601 date or date-time; a JSON integer is taken too.
    WithJsonSchema({"type": "string"}),
]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank_id", "an ID must not be blank")
    return value


Id = Annotated[str, Field(max_length=MAX_ID_LENGTH), AfterValidator(_not_blank)]
"""An ID, predicate or type as a caller names it (a CURIE, an IRI, a bare name): at most
4,096 characters, never blank (a blank one is malformed input, not an ID the graph lacks)."""


class Strict(BaseModel):
    """Inputs refuse unknown fields, so a misspelt field is an error, not a silent no-op."""

    model_config = ConfigDict(extra="forbid")


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AsRdf(Out):
    """An answer that holds nodes or statements, as RDF (`gateway/answer_rdf.py` says what
    is written). `graph` is the `Gateway` that answered: its IDs go back to IRIs."""

    def to_rdflib(self, graph: IdMapper | HasIds) -> rdflib.Graph:
        """An rdflib Graph (the `rdflib` extra): statements as `rdf:Statement` reification."""
        from gateway import answer_rdf

        return answer_rdf.to_rdflib(self, graph)

    def to_oxigraph(self, graph: IdMapper | HasIds) -> list[ox.Quad]:
        """pyoxigraph quads in the default graph: statements as RDF 1.2 reifiers."""
        from gateway import answer_rdf

        return answer_rdf.to_oxigraph(self, graph)


# -- shared input pieces ----------------------------------------------------------
class NodeFilter(Strict):
    entity_types: list[Id] = Field(
        default_factory=list, description="Types whose nodes get full data."
    )


class EdgeFilter(Strict):
    predicates: list[Id] = Field(
        default_factory=list, description="Predicates whose edges get full data."
    )


class TraversalFilters(Strict):
    """Filters that decide which statements a walk may cross (and so change topology).

    A list of what may be crossed or matched names at least one item: an empty one would
    match nothing, so it is refused (leave it out, or null, for the default)."""

    truth_status: list[TruthStatus] | None = Field(
        default=None, min_length=1,
        description='Statuses crossed; default ["asserted_true"].',
    )
    as_of: Point | None = Field(
        default=None,
        description="Only what was asserted by then (position or ISO date).",
    )
    valid_at: Point | None = Field(
        default=None,
        description="Only what held then (year or ISO date).",
    )


class WalkFilters(TraversalFilters):
    """The traversal filters of a walking tool: which predicates it may cross, too."""

    predicates: list[Id] | None = Field(default=None, min_length=1, description="Walk only these.")
    exclude_predicates: list[Id] = Field(default_factory=list, description="Never walk these.")


# -- tool inputs --------------------------------------------------------------------
class DescribeSchemaInput(Strict):
    pass


class SearchEntitiesInput(Strict):
    query: str = Field(min_length=1, max_length=500, description="A name or words.")
    entity_types: list[Id] | None = Field(default=None, min_length=1, description="Only entities of these types.")
    limit: int = Field(default=10, description="1 to 100.")


class BfsQueryInput(WalkFilters):
    seeds: list[Id] = Field(min_length=1, description="Entity IDs (CURIEs or URLs), 1 to 256.")
    max_hops: int = Field(default=1, description="0 to 6.")
    direction: Direction = Field(default="both", description="out: along relationships; in: against them.")
    expand_traits: list[Trait] = Field(
        default_factory=list,
        description="Add implied edges (derived_via).",
    )
    node_filter: NodeFilter | None = None
    edge_filter: EdgeFilter | None = None
    topology_only: bool = Field(default=False, description="All stubs: the cheapest survey.")
    max_nodes: int | None = Field(default=None, description="Node budget (clamped).")
    max_edges: int | None = Field(default=None, description="Edge budget (clamped).")
    layout: Layout = Field(
        default="default",
        description='"compact": stubs grouped, with labels.',
    )


class DescribeEntityInput(Strict):
    id: Id = Field(description="An entity or statement ID.")


class DescribeEntitiesInput(Strict):
    ids: list[Id] = Field(min_length=1, description="IDs, 1 to 100.")


class ExpandNeighborsInput(TraversalFilters):
    entity_ids: list[Id] = Field(min_length=1, description="Seed IDs, 1 to 8.")
    relationship_types: list[Id] | None = Field(default=None, min_length=1, description="Walk only these predicates.")
    types: list[Id] | None = Field(default=None, min_length=1,
                                   description="List only neighbours of these types (the walk crosses any).")
    depth: int = Field(default=1, description="1 to 3.")
    limit: int = Field(default=8, description="1 to 24.")
    content_max_chars: int = Field(default=500, description="Preview per neighbour, 1 to 4,000.")
    include_incoming: bool = True


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


class TransitiveClosureInput(TraversalFilters):
    start: Id = Field(description="An entity ID.")
    predicate: Id = Field(description="e.g. rdfs:subClassOf")
    direction: Direction = Field(default="out", description='"out" follows subject to object; "in" the inverse.')
    limit: int = Field(default=10_000, description="1 to 500,000.")


class ScanQueryInput(TraversalFilters):
    node_types: list[Id] | None = Field(default=None, min_length=1, description="Entity types to list.")
    edge_predicates: list[Id] | None = Field(default=None, min_length=1, description="Predicates whose statements to list.")
    limit: int = Field(default=100, description="Per page, 1 to 1,000.")
    cursor: str | None = Field(default=None, max_length=4096, description="next_cursor of the previous page.")


class ShortestPathInput(WalkFilters):
    source: Id
    target: Id
    max_hops: int = Field(default=4, description="Longest path (1 to 8 hops).")
    direction: Direction = "both"


class CommunitiesInput(WalkFilters):
    seeds: list[Id] = Field(default_factory=list, description="Whose neighbourhood, up to 256 (none: the whole graph).")
    max_hops: int = Field(default=2, description="Hops around the seeds (1 to 4).")
    resolution: float = Field(default=1.0, gt=0, le=10, description="Higher: smaller communities.")
    level: int = Field(default=0, description="Level to list (0: coarsest).")
    community: int | None = Field(default=None, description="One community of that level, in full.")


# -- outputs ------------------------------------------------------------------------
class Node(AsRdf):
    id: str
    entity_type: str
    label: str | None = None
    description: str | None = None
    types: list[str] | None = None
    alt_labels: list[str] | None = None
    properties: dict[str, list[Datum | Claim]] | None = None
    statement: Edge | None = Field(default=None, description="For a statement node: the statement itself.")
    widen_with: str | None = None
    distances: dict[str, int] | None = Field(default=None, description="intersect_subgraphs: hops from each seed.")


class Edge(Out):
    subject: str
    predicate: str
    object: str
    derived_via: str | None = Field(default=None, description='Set on trait-derived edges, e.g. "Inverse(rel:DisguisedAs)".')
    id: str | None = Field(default=None, description="The statement ID (absent for a plain triple).")
    truth_status: TruthStatus | None = None
    asserted_at: Value | None = None
    valid_from: Value | None = None
    valid_until: Value | None = None
    confidence: float | None = None
    extraction_method: str | None = None
    rank: Literal["preferred", "normal", "deprecated"] | None = None
    qualifiers: dict[str, list[Datum]] | None = None
    references: list[dict[str, list[Datum]]] | None = Field(default=None, description="One group per reference.")
    open_bounds: list[Literal["start", "end"]] | None = Field(
        default=None, description="Under valid_at: bounds not stated, taken as open.")
    provenance: dict[str, list[Any]] | None = None


class NodeStub(TypedDict):
    """A node without data: what a walk lists unless its filters ask for more. A plain
    dict (a walk lists thousands; a model each would cost more than the walk's queries)."""

    id: str
    entity_type: str


class EdgeStub(TypedDict):
    """An edge without data, a plain dict like `NodeStub`."""

    subject: str
    predicate: str
    object: str
    derived_via: NotRequired[str]


class Limits(Out):
    max_hops: int
    max_nodes: int
    max_edges: int
    seeds: int


class Truncation(Out):
    reason: Literal["max_nodes", "max_edges", "deadline"] = Field(
        description="The budget that cut the walk; deadline: the call's time ran out (ask again narrower).")
    at_hop: int = Field(description="The hop whose expansion the budget cut.")
    frontier_remaining: int = Field(description="Nodes at the previous hop whose expansion was incomplete.")


class Subgraph(AsRdf, Drawable):
    """A walk's result. The default layout lists nodes and edges as objects; the compact
    layout lists each item once: stub nodes as IDs and labels grouped by type, stub edges
    as an adjacency map (subject -> predicate -> objects), full ones in node_details /
    edge_details."""

    seeds: list[str]
    max_hops: int
    node_count: int
    edge_count: int
    hop_counts: list[int] = Field(description="Nodes per hop; nodes are listed by hop, then ID.")
    limits: Limits
    truncated: bool = False
    truncation: Truncation | None = None
    unresolved_seeds: list[str] = Field(default_factory=list)
    hidden_by_filter: dict[str, int] = Field(
        default_factory=dict,
        description="Statements next to expanded nodes that a traversal filter kept the walk from "
        "crossing, per filter. Widen that filter to see them.",
    )
    warnings: list[str] = Field(default_factory=list)
    layout: Layout = "default"
    nodes: list[NodeStub | Node] | dict[str, dict[str, str | None]] = Field(
        description="default: node objects by hop then ID; compact: the stub nodes, entity type -> node ID -> "
        "label (null where the ID says as much; long labels end in …)."
    )
    edges: list[EdgeStub | Edge] | dict[str, dict[str, list[str]]] = Field(
        description="default: edge objects; compact: the stub edges, subject -> predicate -> objects (asserted edges)."
    )
    derived_edges: list[list[str]] | None = Field(
        default=None, description="compact: trait-derived stub edges as [subject, predicate, object, derived_via]."
    )
    node_details: list[Node] | None = Field(default=None, description="compact: the nodes with full data.")
    edge_details: list[Edge] | None = Field(default=None, description="compact: the edges with full data.")


class Neighbor(Out):
    id: str
    type: str
    name: str = Field(description="Its label, else a readable form of its ID.")
    relationship: str = Field(description="The predicate that reached it from a node one hop closer.")
    direction: Literal["outgoing", "incoming"] = Field(
        description="That edge seen from the node one hop closer (not from the seed).")
    distance: int = Field(description="Hops from the nearest seed.")
    score: float = Field(description="Confidence with depth decay (docs/tools.md).")
    content: str = Field(description="A preview: the passage text, else the description, else the name.")
    metadata: dict[str, Any] = Field(default_factory=dict)
    passage_index: int | None = None
    parent_entity_id: str | None = Field(default=None, description="A passage's document: cite it.")
    widen_with: str | None = None


class Neighbors(Out):
    origins: list[str] = Field(description="The seeds that resolved.")
    unresolved: list[str] = Field(default_factory=list)
    neighbors: list[Neighbor] = Field(description="Best score first, then nearest, then ID.")
    total: int = Field(description="Neighbours found (of the types asked), before the limit.")
    depth: int
    limit: int
    truncated: bool = Field(description="More neighbours existed than are listed (or a budget cut the walk).")
    filters: dict[str, Any] = Field(default_factory=dict, description="The filters applied.")
    warnings: list[str] = Field(default_factory=list)


class Passage(Out):
    id: str
    name: str | None = None
    content: str
    passage_index: int | None = None
    passage_total: int | None = None
    truncated: bool = False


class Slice(Out):
    entity_id: str
    parent_id: str = Field(description="Cite this.")
    parent_name: str | None = None
    parent_type: str
    passages: list[Passage]
    window: int
    sliced: bool = Field(description="False: never cut, returned whole.")
    window_start: int | None = None
    passage_total: int | None = None
    covers_parent: bool
    total: int = Field(description="Passages of the parent in all (1 when it was never cut).")
    content_chars: int
    warnings: list[str] = Field(default_factory=list)


class Finding(Out):
    number: int
    text: str
    score: int
    statements: list[str] = Field(description="Statement IDs (or subject predicate object) cited.")
    communities: list[int]


class Answer(Out):
    answer: str
    status: Literal["answered", "ungrounded"]
    cites: list[int] = Field(default_factory=list, description="Finding numbers.")
    findings: list[Finding] = Field(default_factory=list)
    communities_read: int
    communities_skipped: int
    clipped: bool = Field(description="A bound left facts out.")
    model_calls: int
    facts: int
    warnings: list[str] = Field(default_factory=list)


class RelationshipCount(Out):
    predicate: str
    direction: Literal["out", "in"]
    count: int = Field(description="Of the default truth status.")
    other_statuses: dict[TruthStatus, int] | None = None


class EntityDetail(Node):
    relationships: list[RelationshipCount] | None = Field(default=None, description="Absent: none.")


class EntitiesDetail(AsRdf):
    entities: list[EntityDetail]
    unresolved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


Match = Literal["exact_label", "alt_label", "prefix", "full_text"]
"""How a search hit matched, best first."""


class SearchHit(Out):
    id: str
    label: str | None = None
    entity_type: str
    score: float
    match: Match
    degree: int | None = Field(default=None, description="Relationships it takes part in; equal matches rank by it.")


class SearchResult(Out):
    query: str
    results: list[SearchHit]
    warnings: list[str] = Field(default_factory=list)


class TypeInfo(Out):
    id: str
    label: str | None = None
    count: int


class PredicateInfo(Out):
    id: str
    label: str | None = None
    count: int
    traits: list[str] | None = None
    inverse_of: str | None = None
    walked_when_named: bool | None = Field(default=None, description="Walked only when `predicates` names it.")
    connects: list[str] = Field(
        default_factory=list,
        description='The types it connects most often, up to 3: "subject type -> object type (triples)"; '
        '"?" for untyped ends.',
    )


class Range(Out):
    min: Value
    max: Value


class StatementCounts(Out):
    total: int
    reified: int
    plain: int
    unasserted: int
    without_asserted_at: int


class Schema(Out):
    graph_description: str
    profile: str
    entity_types: list[TypeInfo]
    predicates: list[PredicateInfo]
    truth_statuses: dict[str, int]
    statements: StatementCounts
    as_of_range: Range | None = None
    valid_at_range: Range | None = None
    named_graphs: list[str] = Field(default_factory=list)
    prefixes: dict[str, str] = Field(description="The prefix of every namespace an answer about this graph can hold.")
    estimates: dict[str, str] = Field(
        default_factory=dict,
        description="Fields not counted over the whole graph (a graph too large to count, such as Wikidata), "
        "each with how it was found instead; empty when every count is exact.",
    )
    warnings: list[str] = Field(default_factory=list)


class Intersection(AsRdf, Drawable):
    seeds: list[str]
    k: int
    node_count: int
    edge_count: int
    nodes: list[Node] = Field(description="Nodes within k hops of every seed, with their distance to each.")
    edges: list[Edge] = Field(description="Statements among those nodes.")
    limits: Limits
    truncated: bool = False
    truncation: Truncation | None = None
    unresolved_seeds: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Closure(Out):
    start: str
    predicate: str
    direction: Direction
    count: int
    reachable: list[str] = Field(description="Every ID reachable in one or more steps, sorted.")
    limit: int
    truncated: bool = False
    method: Literal["property_path", "per_level"]
    unresolved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class ScanPage(AsRdf):
    kind: Literal["entities", "statements"]
    count: int
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    limit: int
    next_cursor: str | None = Field(default=None, description="Pass it back as cursor for the next page; null at the end.")
    warnings: list[str] = Field(default_factory=list)


class WeakestEdge(Out):
    index: int = Field(description="Its place in edges, from 0.")
    id: str | None = Field(default=None, description="Its statement ID.")
    confidence: float


class ShortestPath(AsRdf, Drawable):
    source: str
    target: str
    found: bool
    hops: int | None = None
    nodes: list[str] = Field(default_factory=list, description="The IDs along the path, source first.")
    edges: list[Edge] = Field(default_factory=list, description="The statements along the path, in order.")
    confidence_product: float | None = Field(default=None, description="Omitted when any edge states no confidence.")
    weakest_edge: WeakestEdge | None = None
    reason: str | None = None
    max_hops: int
    unresolved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Member(Out):
    id: str
    label: str | None = None


class Community(Out):
    id: int = Field(description="Its rank at its level by size, largest first.")
    size: int
    members: list[Member] = Field(description="The most connected first; size counts them all.")


class CommunityLevel(Out):
    level: int = Field(description="0 is the coarsest.")
    modularity: float
    community_count: int
    communities: list[Community] = Field(description="Listed for the level asked for only.")


class Communities(Out, Drawable):
    node_count: int
    edge_count: int
    levels: list[CommunityLevel] = Field(description="Coarsest first.")
    max_edges: int
    unresolved_seeds: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


Node.model_rebuild()
EntityDetail.model_rebuild()
