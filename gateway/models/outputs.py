"""The tools' answers: what each call returns (None fields are left out when serialized)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from gateway.models.shared import AsRdf, Claim, Datum, Direction, Out, Text, TruthStatus, Value
from gateway.pictures import Drawable


class Node(AsRdf):
    id: str
    entity_type: str
    label: str | None = None
    label_language: str | None = Field(default=None, description="The label's tag, when not the reader's language.")
    description: str | None = None
    description_language: str | None = None
    labels: dict[str, str] | None = Field(
        default=None, description="With several `languages` asked: the label in each that has one, by tag.")
    types: list[str] | None = None
    alt_labels: list[str | Text] | None = Field(
        default=None, description="Synonyms; one in another language than the reader's as {text, language}.")
    properties: dict[str, list[Datum | Claim]] | None = None
    other_languages: list[str] | None = Field(
        default=None, description="Languages it has labels, synonyms, descriptions or text in that nothing shown is in "
        "(Settings.languages picks the reader's).")
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
    reason: Literal["max_nodes", "max_edges", "deadline", "endpoint_timeout"] = Field(
        description="What cut the walk: a budget, the call's deadline or the store's own timeout; the hops "
        "before at_hop are complete (ask again narrower).")
    at_hop: int = Field(description="The hop (or level) whose expansion was cut.")
    frontier_remaining: int = Field(description="Nodes at the previous hop whose expansion was incomplete.")


class PathEnds(Out):
    """Where a path walk ends (bfs_query `path`): the nodes its last step reached."""

    ids: list[str] = Field(description="The ends' IDs in order: all found (each is a node, within max_nodes).")
    total: int = Field(description="Ends found (a lower bound when the walk was cut).")
    labels: dict[str, str | Text] | None = Field(
        default=None, description="End ID -> label, for ends listed as stubs in the default layout, where the "
        "label says more than the ID (a compact answer's nodes carry theirs); {text, language} when not the "
        "reader's language.")
    truncated: bool | None = Field(
        default=None, description="True: a budget or timeout cut the walk, so the path may end elsewhere too.")


class _Walked(AsRdf, Drawable):
    """What a walk's answer says in either layout."""

    tool: ClassVar[str] = "bfs_query"

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
    path_ends: PathEnds | None = Field(default=None, description="With path: the IDs the whole path reaches.")
    warnings: list[str] = Field(default_factory=list)


class Subgraph(_Walked):
    """A walk's result in the default layout: nodes and edges as objects (stubs, or full
    where the filters ask)."""

    layout: Literal["default"] = "default"
    nodes: list[NodeStub | Node] = Field(description="Node objects by hop, then ID.")
    edges: list[EdgeStub | Edge] = Field(description="Edge objects.")


class CompactSubgraph(_Walked):
    """A walk's result in the compact layout: each item once, stub nodes as IDs and labels
    grouped by type, stub edges as an adjacency map (subject -> predicate -> objects),
    full ones in node_details / edge_details."""

    layout: Literal["compact"] = "compact"
    nodes: dict[str, dict[str, str | Text | None]] = Field(
        description="The stub nodes, entity type -> node ID -> label (null where the ID says as much; long labels "
        "end in …; {text, language} when not the reader's language)."
    )
    edges: dict[str, dict[str, list[str]]] = Field(
        description="The stub edges, subject -> predicate -> objects (asserted edges)."
    )
    derived_edges: list[list[str]] | None = Field(
        default=None, description="Trait-derived stub edges as [subject, predicate, object, derived_via]."
    )
    node_details: list[Node] | None = Field(default=None, description="The nodes with full data.")
    edge_details: list[Edge] | None = Field(default=None, description="The edges with full data.")


Walked = Annotated[Subgraph | CompactSubgraph, Field(discriminator="layout")]
"""bfs_query's answer: one model per layout."""


class Neighbor(Out):
    id: str
    type: str
    name: str = Field(description="Its label, else a readable form of its ID.")
    name_language: str | None = Field(default=None, description="The label's tag, when not the reader's language.")
    relationship: str = Field(description="The predicate that reached it from a node one hop closer.")
    direction: Literal["outgoing", "incoming"] = Field(
        description="That edge seen from the node one hop closer (not from the seed).")
    distance: int = Field(description="Hops from the nearest seed.")
    score: float = Field(description="Confidence with depth decay (docs/tools.md).")
    content: str = Field(description="A preview: the passage text, else the description, else the name.")
    content_language: str | None = Field(default=None, description="Its tag, when not the reader's language.")
    metadata: dict[str, Any] = Field(default_factory=dict)
    passage_index: int | None = None
    parent_entity_id: str | None = Field(default=None, description="A passage's document: cite it.")
    widen_with: str | None = None
    is_seed: bool | None = Field(default=None, description="True: a seed, reached from a seed (or itself).")


class Neighbors(Out):
    origins: list[str] = Field(description="The seeds that resolved.")
    unresolved: list[str] = Field(default_factory=list)
    neighbors: list[Neighbor] = Field(description="Best score first, then nearest, then ID.")
    total: int = Field(description="Neighbours found (of the types asked), before the limit.")
    depth: int
    limit: int
    truncated: bool = Field(description="More neighbours follow this page (or a budget or timeout cut the walk).")
    next_cursor: str | None = Field(default=None, description="Pass it back as cursor for the next page.")
    filters: dict[str, Any] = Field(default_factory=dict, description="The filters applied.")
    warnings: list[str] = Field(default_factory=list)


class Passage(Out):
    id: str
    name: str | None = None
    name_language: str | None = Field(default=None, description="The name's tag, when not the reader's language.")
    content: str
    content_language: str | None = Field(default=None, description="Its tag, when not the reader's language.")
    passage_index: int | None = None
    passage_total: int | None = None
    truncated: bool = False


class Slice(Out):
    entity_id: str
    parent_id: str = Field(description="Cite this.")
    parent_name: str | None = None
    parent_name_language: str | None = Field(default=None, description="Its tag, when not the reader's language.")
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
    same_as: list[str] | None = Field(
        default=None, description="Its canonical IDs: registry IDs as CURIEs in the registry's preferred spelling "
        "(its own ID when that is one, its identity links either way, identifier literals, Wikidata external-ID "
        "claims) and the other IRIs its identity links name, sorted, at most 50. Absent: none.")
    relationships: list[RelationshipCount] | None = Field(default=None, description="Absent: none.")
    graphs: list[str] | None = Field(
        default=None, description="The named graphs its data comes from, when the store has several "
        "(graphs=[one] shows that graph's values alone).")
    warnings: list[str] | None = Field(default=None, description="describe_entity's: values left out, "
                                       "malformed lists. Absent: none.")


class EntitiesDetail(AsRdf):
    entities: list[EntityDetail]
    unresolved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


Match = Literal["canonical_id", "exact_label", "alt_label", "prefix", "full_text"]
"""How a search hit matched, best first ("canonical_id": the query is an ID naming it)."""
EXACT_SCORES = (1.0, 0.95, 0.9, 0.85)
"""The scores of an exact match by grade: a label as written (case and punctuation too), a
label once normalised, a synonym as written, a synonym once normalised."""


class SearchHit(Out):
    id: str
    label: str | None = None
    label_language: str | None = Field(default=None, description="Its tag, when not the reader's language.")
    entity_type: str
    score: float
    match: Match
    matched: str | None = Field(default=None, description="The name that matched, when not the label shown.")
    language: str | None = Field(default=None, description="The matched name's language tag.")
    degree: int | None = Field(default=None, description="Relationships it takes part in; equal matches rank by it.")
    tied: bool | None = Field(default=None, description="Same match and score as another hit: ranked by sitelinks, "
                              "then degree. Absent: none.")


class SearchResult(Out):
    query: str
    results: list[SearchHit]
    warnings: list[str] = Field(default_factory=list)


class TypeInfo(Out):
    id: str
    label: str | None = None
    label_language: str | None = None
    count: int


class PredicateInfo(Out):
    id: str
    label: str | None = None
    label_language: str | None = None
    count: int
    traits: list[str] | None = None
    inverse_of: str | None = None
    walked_when_named: bool | None = Field(default=None, description="Walked only when `predicates` names it.")
    blank_values: int | None = Field(
        default=None, description="Triples whose value is a blank node (a restriction, a list...), beside count: "
        "describe_entity shows them inline.")
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
    term_types: list[TypeInfo] = Field(
        default_factory=list,
        description="Classes of vocabulary terms (rdfs:Class, owl:ObjectProperty, owl:Ontology...) some of whose "
        "terms are in use nowhere, each with all its terms counted: scan_query node_types lists them.",
    )
    predicates: list[PredicateInfo]
    literal_predicates: dict[str, str] | None = Field(
        default=None,
        description='Literal-valued properties of the entity types, most values first: "datatypes xN on types" '
        "(describe_entity shows them; tabulate's columns read them).")
    truth_statuses: dict[str, int]
    statements: StatementCounts
    as_of_range: Range | None = None
    valid_at_range: Range | None = None
    named_graphs: list[str] = Field(default_factory=list)
    authorities: dict[str, int] | None = Field(
        default=None, description="Registry authorities the entities link to (identity links, identifier literals, "
        "Wikidata external-ID claims) -> the entities linking an ID of each. Absent: none.")
    prefixes: dict[str, str] = Field(description="The prefix of every namespace an answer about this graph can hold.")
    estimates: dict[str, str] | None = Field(
        default=None,
        description="Fields not counted over the whole graph (a graph too large to count, such as Wikidata), "
        "each with how it was found instead; absent when every count is exact.",
    )
    warnings: list[str] = Field(default_factory=list)


class Intersection(AsRdf, Drawable):

    tool: ClassVar[str] = "intersect_subgraphs"
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
    truncated: bool = Field(default=False, description="limit, or a timeout (see warnings), cut the list.")
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

    tool: ClassVar[str] = "shortest_path"
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
    label_language: str | None = Field(default=None, description="The label's tag, when not the reader's language.")


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

    tool: ClassVar[str] = "communities"
    node_count: int
    edge_count: int
    levels: list[CommunityLevel] = Field(description="Coarsest first.")
    max_edges: int
    unresolved_seeds: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


Node.model_rebuild()
EntityDetail.model_rebuild()
