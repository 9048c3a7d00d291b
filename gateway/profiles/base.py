"""What every statement model (profile) provides to the tools.

A profile maps its store's shapes (RDF 1.2 reifiers, `rdf:Statement` nodes, Wikidata
statement nodes, plain triples) onto one concept: a `Hit` is a statement touching a
node, with the truth status and positions the traversal filters read.
"""

from __future__ import annotations

import datetime as dt
import typing
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, TypeVar, cast

from gateway.backends.base import LINES, ROWS, Backend, Rows
from gateway.models import Claim, Datum, Direction, TruthStatus, Value
from gateway.profiles.graph import EntitySearch, Graph, MemoKey, TermResolver, TypesOf
from gateway.profiles.mwapi import entity_search_for
from gateway.profiles.statistics import Estimates, Statistics
from gateway.profiles.wikibase_share import unread_statements_warning
from gateway.sparql import Sparql, literal, not_after, not_before, render
from gateway.terms import BFS, OWL, RDF, RDFS, Literal, Term, bare_text, is_written_iri, status_name, text_of
from gateway.values import ToId, datum, scalar

T = TypeVar("T")
Point = int | dt.date | dt.datetime

SCHEMA_PREDICATES: tuple[str, ...] = (
    RDF + "type",
    OWL + "inverseOf",
    RDFS + "domain",
    RDFS + "range",
    RDFS + "subPropertyOf",
)
"""Predicates between an entity and a class or between vocabulary terms: a walk crosses
them only when its `predicates` name them (an instance's type, or a property's domain,
would crowd every walk through a vocabulary); counted apart and listed as walked when
named."""
# Predicates that never make a traversable edge: reification plumbing and statement data.
PLUMBING_PREDICATES: tuple[str, ...] = (
    RDF + "reifies",
    RDF + "subject",
    RDF + "predicate",
    RDF + "object",
    BFS + "truthStatus",
    BFS + "assertedAt",
    BFS + "validFrom",
    BFS + "validUntil",
    BFS + "sourceDocument",
    BFS + "supportingDocument",
    BFS + "evidence",
    BFS + "urlSynonym",
)
NON_EDGE_PREDICATES: tuple[str, ...] = (*SCHEMA_PREDICATES, *PLUMBING_PREDICATES)
"""What a walk that names no predicate never crosses."""
NON_EDGES = frozenset(NON_EDGE_PREDICATES)
SCHEMA = frozenset(SCHEMA_PREDICATES)
NOTHING = "urn:bfsql:none"
"""An IRI no graph holds: what an empty `IN (...)` list is written with."""
STRUCTURAL_SUBJECT = RDF + "subject"
STRUCTURAL_OBJECT = RDF + "object"
Via = typing.Literal["o", "i", "s", ""]
"""How a frontier node `x` touches a statement: its subject ("o": the walk goes out to the
object), its object ("i": in from the subject), the statement itself ("s"); "" for a
statement read on its own, next to no frontier."""
VIAS: dict[str, Via] = {"o": "o", "i": "i", "s": "s"}
"""A hop row's `?d` column as a `Via`."""


@dataclass(slots=True)
class Hit:
    """One statement found next to frontier node `x`.

    `via` is "o" when `x` is the subject, "i" when it is the object, "s" when `x` is
    the statement itself (the walk goes on to its subject and object). Not frozen: a
    walk makes one per row, and a frozen dataclass costs five times as much to build.
    """

    via: Via
    x: str
    s: str
    p: str
    o: str
    stmt: str | None
    status: str
    asserted_at: Term | None = None
    valid_from: Term | None = None
    valid_until: Term | None = None
    failed: tuple[str, ...] = ()


@dataclass(frozen=True)
class HopPlan:
    """The traversal settings of one walk, as a profile needs them."""

    direction: Direction = "both"
    truth_status: frozenset[str] = frozenset({"asserted_true"})
    as_of: Point | None = None
    valid_at: Point | None = None
    mirror_predicates: tuple[str, ...] = ()
    predicates: tuple[str, ...] | None = None
    """Only statements with these predicates (None: any)."""
    excluded: tuple[str, ...] = ()
    """Never statements with these predicates."""

    @property
    def non_edges(self) -> frozenset[str]:
        """The predicates this walk never crosses: every non-edge one, but a schema
        predicate its `predicates` name."""
        named = SCHEMA.intersection(self.predicates or ())
        return NON_EDGES - named if named else NON_EDGES

    def walks(self, predicate: str) -> bool:
        """Whether the predicate filters let the walk cross a statement with this predicate."""
        return (self.predicates is None or predicate in self.predicates) and predicate not in self.excluded

    @property
    def out(self) -> bool:
        return self.direction in ("out", "both")

    @property
    def inward(self) -> bool:
        return self.direction in ("in", "both")

    def failures(self, status: str, at: Term | None, vf: Term | None, vu: Term | None) -> tuple[str, ...]:
        """The traversal filters a statement fails (empty when it may be crossed)."""
        failed = []
        if status not in self.truth_status:
            failed.append("truth_status")
        if self.as_of is not None and at is not None and not leq(as_point(at), self.as_of):
            failed.append("as_of")
        if self.valid_at is not None and (
            (vf is not None and not leq(as_point(vf), self.valid_at))
            or (vu is not None and not leq(self.valid_at, as_point(vu)))
        ):
            failed.append("valid_at")
        return tuple(failed)


def time_filters(plan: HopPlan) -> tuple[list[str], dict[str, Sparql]]:
    """Template flags and slots for the as_of / valid_at filters of a plan."""
    flags: list[str] = []
    slots: dict[str, Sparql] = {}
    if plan.as_of is not None:
        flags.append("as_of")
        slots.update(as_of=literal(plan.as_of), at_not_after=not_after("?at", plan.as_of))
    if plan.valid_at is not None:
        flags.append("valid_at")
        slots.update(
            valid_at=literal(plan.valid_at),
            from_not_after=not_after("?vf", plan.valid_at),
            until_not_before=not_before("?vu", plan.valid_at),
        )
    return flags, slots


def as_point(term: Term | None) -> object:
    """A literal as a Python value comparable with a query's `Point`."""
    if not isinstance(term, Literal):
        return term
    value = term.to_python()
    if isinstance(value, str) and term.datatype is not None:
        kind = term.datatype.rsplit("#", 1)[-1]
        try:
            if kind == "date":
                return dt.date.fromisoformat(value)
            if kind == "dateTime":
                return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value


def leq(a: object, b: object) -> bool:
    """a <= b, where an integer compares with a date or date-time by its year (as the
    templates do, see gateway.sparql.not_after); other incomparable values fail, as in SPARQL."""
    if isinstance(a, dt.date) and isinstance(b, int) and not isinstance(b, bool):
        a = a.year
    elif isinstance(b, dt.date) and isinstance(a, int) and not isinstance(a, bool):
        b = b.year
    elif isinstance(a, dt.datetime) and type(b) is dt.date:
        a = a.date()  # a day against a date-time means the whole day
    elif isinstance(b, dt.datetime) and type(a) is dt.date:
        b = b.date()
    try:
        return bool(a <= b)  # type: ignore[operator]
    except TypeError:
        return False


@dataclass
class Traits:
    """Trait declarations: symmetric and transitive predicates, inverse pairs."""

    symmetric: frozenset[str] = frozenset()
    transitive: frozenset[str] = frozenset()
    inverses: dict[str, str] = field(default_factory=dict)

    def mirrors(self, p: str, kinds: frozenset[str]) -> list[tuple[str, str]]:
        """(mirror predicate, derived_via kind) for a statement with predicate p."""
        found = []
        if "Symmetric" in kinds and p in self.symmetric:
            found.append((p, "Symmetric"))
        if "Inverse" in kinds and p in self.inverses:
            found.append((self.inverses[p], "Inverse"))
        return found


def shared_types(types: dict[str, list[str]]) -> dict[str, list[str]]:
    """Node -> its types, with one list for each combination of types (nodes share a few):
    a walk keeps a node's types to the end of its answer, and a list per node is thousands
    of objects for the garbage collector to sweep again and again. The lists are shared:
    read them, never change them."""
    kinds: dict[tuple[str, ...], list[str]] = {}
    return {node: kinds.setdefault(tuple(found), found) for node, found in types.items()}


def types_of_rows(written: list[str]) -> dict[str, list[str]]:
    """Node -> its types, in lists shared as `shared_types` shares them, from (node, type)
    rows as TSV writes them, each type an IRI, once (those of other types left out)."""
    if not written:
        return {}
    # Node and type alternate once the lines' tabs are newlines: split in C, no call per row.
    fields = "\n".join(written).replace("\t", "\n").split("\n")
    nodes, kinds = fields[0::2], fields[1::2]
    distinct = set(kinds)
    if not all(map(is_written_iri, distinct)):  # seldom: a literal, blank node or triple term for a type
        kept = [(node, kind) for node, kind in zip(nodes, kinds) if is_written_iri(kind)]
        nodes, kinds = [node for node, _ in kept], [kind for _, kind in kept]
        distinct = set(kinds)
    # Most nodes have one type: their lists, one per type, handed out in C.
    lists = {kind: [kind[1:-1]] for kind in distinct}
    nodes = bare_text("\n".join(nodes)) if nodes else []
    found = dict(zip(nodes, map(lists.__getitem__, kinds)))
    if len(found) == len(nodes):
        return found
    rows = Counter(nodes)
    several: dict[str, list[str]] = defaultdict(list)
    for node, kind in zip(nodes, kinds):  # a node of several rows: its types in the rows' order, each once
        if rows[node] > 1 and lists[kind][0] not in several[node]:
            several[node].append(lists[kind][0])
    shared = {tuple(listed): listed for listed in lists.values()}
    found.update((node, shared.setdefault(tuple(kinds), kinds)) for node, kinds in several.items())
    return found


class TwoHops(NamedTuple):
    """What `Profile.two_hop_lines` read."""

    first: list[str]
    """The first hop's rows, as `hop_lines` reads them."""
    more: bool
    """Whether the first hop has more rows than the limit."""
    second: list[str]
    """The second hop's rows: each edge between two first-hop nodes twice."""
    types: dict[str, list[str]]
    """The types read, by node (a node without one is not listed; `shared_types`)."""
    complete: bool
    """Whether every row of the second hop and of the types came: else they are to be read
    hop by hop."""
    held: dict[str, bool] | None = None
    """`Profile.held` of the IRIs asked with the hops (None: none were)."""


class StatementHops(NamedTuple):
    """What `Profile.two_hop_statements` read."""

    first: list[str]
    """The first hop's rows, as hop.rq reads them in "every" mode (`Profile.hop_rows`)."""
    second: list[str]
    """The second hop's rows, from `frontier`."""
    frontier: frozenset[str]
    """The nodes the query read the second hop from: those the first hop's rows reach."""
    complete: bool
    """Whether every row of the second hop came, from every node of `frontier`."""
    types: dict[str, list[str]]
    """The types read, by node (`shared_types`)."""
    typed: frozenset[str]
    """The nodes whose every type is in `types` (none where the types were not read whole)."""
    held: dict[str, bool] | None
    """`Profile.held` of the IRIs asked with the hops (None: none were)."""


Rank = typing.Literal["preferred", "normal", "deprecated"]
StatementRow = tuple[str, Term, str | None]
"""A statement's data as statement_data.rq reads it: (predicate, value, the reference a
value of a reference belongs to)."""


class StatementFields(typing.TypedDict, total=False):
    """A statement's data as its full edge shows it (`gateway.models.Edge`'s fields)."""

    truth_status: TruthStatus
    asserted_at: Value
    valid_from: Value
    valid_until: Value
    confidence: float | None
    extraction_method: str
    rank: Rank | None
    qualifiers: dict[str, list[Datum]]
    references: list[dict[str, list[Datum]]]
    provenance: dict[str, list[Any]]


NAMED_GRAPHS: MemoKey[list[str]] = MemoKey("named_graphs")


class Profile:
    """A statement model over one backend: what a statement is, and how a walk reads them.

    A subclass names its templates' folder (`queries`) and implements the reads below.
    Every template becomes rows one way: `select` (through `render`, which a profile may
    extend with slots of its own).

    The engine knows no profile but this one: what differs between statement models it
    asks through the strategies below (the graph as a whole: `whole_graph`, `statistics`,
    `estimates`, `named_graphs`; names: `resolve_terms`, `predicate_probe`; search:
    `entity_searcher`; full items: `statement_fields`, `value_node_predicate`,
    `claim_value`; tables: `table_step`, `claims`, `linked_statements`). Each default is
    what a graph small enough to read whole gets; a profile overrides what it does otherwise.
    """

    name: ClassVar[str] = ""
    queries: ClassVar[str] = ""
    """The folder of `queries/` this profile's templates come from."""
    namespaces: ClassVar[tuple[str, ...]] = (BFS, RDF)
    """Namespaces of the terms the profile itself puts in answers, whatever the data
    declares (describe_schema lists a prefix for each): the project's vocabulary
    (provenance keys such as `bfs:sourceDocument`) and `rdf:subject` / `rdf:object`, the
    structural edges of a statement node."""

    entity_namespaces: ClassVar[tuple[str, ...] | None] = None
    """The namespaces every entity of the graph is in, where the profile knows them
    (Wikibase's `wd:`); None where any namespace may hold entities. An ID elsewhere is an
    identifier the entities link, looked up before a walk (`gateway.engine.seeds`)."""

    entity_search: ClassVar[str] = "auto"
    """How search_entities finds names (`entity_searcher`): "index" (a full-text index of
    every name in the graph), "mwapi" (the query service's `wikibase:mwapi` EntitySearch, on
    Wikidata-style services), "auto" (mwapi on Wikimedia's query services, else the index);
    a profile may know more ways ("labels": the wikidata profile's label lookups)."""
    mwapi_host: ClassVar[str] = "www.wikidata.org"
    """The wiki whose EntitySearch `wikibase:mwapi` asks."""
    claims: ClassVar[bool] = False
    """Whether a predicate's values are claims: a statement node between an entity and each
    value, at times several for one value, how many per entity not known beforehand (a
    table reads them with DISTINCT, its work not bounded beforehand)."""
    linked_statements: ClassVar[bool] = False
    """Whether a statement reaches its triple through `rdf:subject` / `rdf:object` links (the
    reification model): a table step the filters judge may start from those."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def render(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> str:
        """The text of this profile's template `query`, filled (see `gateway.sparql.render`)."""
        return render(f"{self.queries}/{query}", flags, **slots)

    def select(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> Rows:
        """The rows of this profile's template `query`."""
        return self.backend.select(self.render(query, flags, **slots))[1]

    def rows(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> Iterator[list[Term | None]]:
        """The rows of this profile's template `query`, read as they are asked for (`ROWS`)."""
        return self.backend.select(self.render(query, flags, **slots), ROWS)

    def select_fields(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> list[list[str]]:
        """The rows of template `query` as text fields (`LINES`, split)."""
        return [line.split("\t") for line in self.backend.select(self.render(query, flags, **slots), LINES)]

    @property
    def counts_quads_in_process(self) -> bool:
        """Whether the census (`gateway.engine.census`) may count this profile's statistics
        from the store's quads where the store can read them in process: it counts what
        native's templates (`queries/native/`) would, so only for a profile reading those."""
        return self.queries == "native"

    @property
    def has_reifiers(self) -> bool:
        """Whether the graph holds statements with an identity of their own."""
        raise NotImplementedError

    def unasserted(self) -> list[Hit]:
        """Statements the graph holds without asserting them (reifier only)."""
        raise NotImplementedError

    def hop(self, frontier: Sequence[str], plan: HopPlan, limit: int) -> tuple[list[Hit], bool]:
        """Traversable statements touching the frontier, at most `limit`; and whether more may exist."""
        raise NotImplementedError

    def hidden(self, frontier: Sequence[str], plan: HopPlan, cap: int) -> list[Hit]:
        """Statements touching the frontier that the filters keep the walk from crossing."""
        raise NotImplementedError

    def hop_and_hidden(
        self, frontier: Sequence[str], plan: HopPlan, limit: int, cap: int
    ) -> tuple[list[Hit], bool, list[Hit]]:
        """`hop` and `hidden` together (a profile may read both with one query): the
        traversable statements (at most `limit`), whether more may exist, and at most `cap`
        hidden ones."""
        hits, more = self.hop(frontier, plan, limit)
        return hits, more, self.hidden(frontier, plan, cap) if self.can_hide(plan) else []

    def hop_lines(self, frontier: Sequence[str], plan: HopPlan, limit: int) -> tuple[list[str], bool] | None:
        """`hop` on plain data, cheapest: rows as tab-joined IRIs "n s p o" (the node the
        edge leads to, then the edge), and whether more may exist; None where the plan
        needs statements or mirrors (use `hop`)."""
        return None

    def reached_types(
        self, frontier: Sequence[str], plan: HopPlan, limit: int, reached: Collection[str],
    ) -> list[str] | None:
        """The types of `frontier` (no statement among them: a reifier's hop reaches its
        triple's ends, which no edge of it joins) and of every node of `reached` (the walk's
        nodes) its hop reaches, and more (whatever its filters), as node_types.rq's rows
        (`WRITTEN`), joined from the edges: at most about `limit` rows; None where more may
        exist, the plan needs mirrors or the statements are of another model (read them by
        node: `node_types`)."""
        return None

    def two_hop_lines(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> TwoHops | None:
        """`hop_lines` of `seeds` (at most `limit` rows) and of the nodes it reached (not
        seeds) in one query, on plain data, with the types of every node (`types`) and
        `held(held, plan, identity)`; the nodes of each hop read up to `nodes`. None where
        the plan needs statements or mirrors (use `hop`)."""
        return None

    def two_hop_statements(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, cap: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> StatementHops | None:
        """Both hops of a walk over statements in one query: the seeds' rows as
        `hop_and_hidden(seeds, plan, limit, cap)` reads them (`hop_rows` makes them hits),
        and those of the nodes they reach (not seeds, up to `nodes`); with `types`, every
        node's types; `held(held, plan, identity)` beside. None where the profile has no
        such query, or the plan needs mirrors or no statements (`two_hop_lines`)."""
        return None

    def hop_rows(
        self, rows: list[str], frontier: Sequence[str], plan: HopPlan, limit: int, cap: int, *, hidden: bool = True,
    ) -> tuple[list[Hit], bool, list[Hit]] | None:
        """`hop_and_hidden` (or `hop`) of `frontier` from rows `two_hop_statements` read;
        None where they do not say what that would read."""
        return None

    def statement_candidates(self, nodes: Sequence[str]) -> list[str]:
        """The nodes that may be statements (all, unless the profile can tell): only these
        are asked whether they are, a lookup that costs an in-memory store a scan of the
        node's own statements."""
        return list(nodes)

    def can_hide(self, plan: HopPlan) -> bool:
        """Whether any statement in the graph could fail these filters."""
        raise NotImplementedError

    def existing(self, iris: Sequence[str], plan: HopPlan) -> set[str]:
        """Which of these IRIs the graph holds (as an entity or a statement)."""
        raise NotImplementedError

    def held(self, iris: Sequence[str], plan: HopPlan, identity: Sequence[str]) -> dict[str, bool]:
        """`existing`, each IRI held with whether it has data of its own: a statement it is
        the subject of, other than an `identity` link (an identifier node that data only
        points at has none, and is resolved to the entities pointing at it). By default
        every IRI held counts as having data."""
        return dict.fromkeys(self.existing(iris, plan), True)

    @property
    def identity_links(self) -> bool:
        """Whether a canonical ID may be looked up through any identity or identifier link
        (`queries/*/identified_by.rq`), not only through Wikidata's external-ID claims with
        the property bound (what a graph too large to read whole affords)."""
        return True

    def traits(self) -> Traits:
        """The trait declarations of the graph's predicates."""
        raise NotImplementedError

    # -- what the graph holds as a whole: the engine reads it through these -----------------
    def whole_graph(self, read: Callable[[], T]) -> T | None:
        """What only reading the whole graph tells (its named graphs, time ranges, every
        predicate it uses): `read()`, or None where the graph is too large to read whole."""
        return read()

    def statistics(self, graph: Graph, count: Callable[[], Statistics]) -> Statistics:
        """The graph's statistics: `count()` (every statement read once, `gateway.engine.statistics`)
        unless the profile reads them otherwise."""
        return count()

    def estimates(self) -> Estimates | None:
        """What describe_schema's numbers are where they are not counts (None: counts)."""
        return None

    def schema_warnings(self, stats: Statistics) -> list[str]:
        """What describe_schema should say of how well the data fits this profile: a
        Wikidata export read by another profile, for one."""
        warning = unread_statements_warning(self.name, stats.namespaces, stats.types)
        return [warning] if warning else []

    def named_graphs(self, graph: Graph) -> Iterable[str]:
        """The named graphs the store holds (`DEFAULT_GRAPH` among them where it answers so)."""
        return graph.memo(NAMED_GRAPHS, lambda: [str(g) for (g,) in self.select("named_graphs") if isinstance(g, str)])

    def resolve_terms(
        self, graph: Graph, names: Sequence[str], field: str, *, kind: str, warnings: list[str], counted: TermResolver,
    ) -> set[str]:
        """IRIs for predicate or type names, a name not in the graph told in `warnings`: held
        against the counted vocabulary (`counted`, `gateway.engine.names`) unless the
        profile resolves names otherwise."""
        return counted(names, field, kind=kind, warnings=warnings)

    def predicate_probe(self) -> Callable[[str], bool] | None:
        """Whether a statement of the graph has a predicate, by one probe (None: the profile
        has no such probe, and the whole vocabulary is read instead)."""
        return None

    def entity_searcher(self, graph: Graph, index: Callable[[], EntitySearch], types_of: TypesOf) -> EntitySearch:
        """How search_entities finds names (`entity_search`): Wikibase's EntitySearch where
        asked or on Wikimedia's query services, else `index()` (the store's full-text
        index); `types_of` reads nodes' types."""
        return entity_search_for(self.backend, index, language=graph.settings.language, mode=self.entity_search,
                                 host=self.mwapi_host)

    # -- what a full item shows ---------------------------------------------------------------
    def statement_fields(
        self, rows: Sequence[StatementRow], nodes: dict[str, dict[str, Term]], to_id: ToId, languages: Sequence[str],
    ) -> StatementFields:
        """A statement's data (statement_data.rq's rows; the typed values' `nodes`) as its
        full edge shows it: the project's `bfs:` terms as fields, the rest as provenance."""
        fields: StatementFields = {}
        provenance: dict[str, list[Any]] = defaultdict(list)
        reader = languages[0] if languages else None
        for p, v, _ in rows:
            if not _statement_field(fields, p, v, to_id):
                provenance[to_id(p)].append(datum(v, to_id, reader))
        if provenance:
            fields["provenance"] = {k: sorted(v, key=str) for k, v in sorted(provenance.items())}
        return fields

    def value_node_predicate(self, predicate: str) -> bool:
        """Whether this statement data predicate's values are nodes of a typed value's
        fields (read with value_nodes.rq)."""
        return False

    def claim_value(
        self, statement: str, predicate: str, value: Term, rows: Sequence[StatementRow],
        nodes: dict[str, dict[str, Term]], valid_at: Point | None, to_id: ToId, languages: Sequence[str],
    ) -> Datum | Claim | None:
        """An entity's property value that node_data.rq read with the statement stating it
        (a claim, with that statement's data `rows`): as the entity shows it; None when it
        is not in force at `valid_at`."""
        return datum(value, to_id, languages[0] if languages else None)

    # -- tables ----------------------------------------------------------------------------
    def table_step(
        self, subject: Sparql, predicate: str, value: Sparql, plan: HopPlan, fresh: Callable[[str], Sparql],
    ) -> tuple[Sparql, bool] | None:
        """One step of a table's path, where the profile writes it itself: the pattern, and
        whether it crosses statements the filters judge; None for the statements as
        table_step.rq reads them by default. `fresh` makes a variable no other part uses."""
        return None


def _statement_field(fields: StatementFields, p: str, v: Term, to_id: ToId) -> bool:
    """Sets the full-edge field a `bfs:` statement data row states; whether it states one."""
    if p == BFS + "truthStatus":
        if isinstance(v, str) and v.startswith(BFS):
            fields["truth_status"] = cast(TruthStatus, status_name(v))
    elif p == BFS + "assertedAt":
        fields["asserted_at"] = scalar(v, to_id)
    elif p == BFS + "validFrom":
        fields["valid_from"] = scalar(v, to_id)
    elif p == BFS + "validUntil":
        fields["valid_until"] = scalar(v, to_id)
    elif p == BFS + "confidence" and isinstance(v, Literal):
        value = v.to_python()
        fields["confidence"] = float(value) if isinstance(value, (int, float)) else None
    elif p == BFS + "extractionMethod":
        fields["extraction_method"] = text_of(v)
    else:
        return False
    return True
