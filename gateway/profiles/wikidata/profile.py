"""The wikidata profile: Wikidata's (Wikibase's) statement model as gateway statements.

    wd:Q42 p:P69 wds:X .                 a statement node per claim, with
    wds:X wikibase:rank wikibase:NormalRank ; ps:P69 wd:Q4961791 ;
          pq:P580 "1959-01-01T00:00:00Z"^^xsd:dateTime ; pq:P582 ... ;
          prov:wasDerivedFrom wdref:R .  wdref:R pr:P248 wd:Q... .

How it maps (docs/data-model.md):

- **statement**: an edge when the statement's value (ps:P) is an entity IRI (item,
  property, lexeme, form, sense). It is reported as `wd:Q42 wdt:P69 wd:Q4961791` (the
  direct property as predicate) with the statement node `wds:X` as its ID. The plain
  `wdt:` triples beside it are Wikidata's "truthy" copy of the best-ranked claims and are
  never read as edges (they would duplicate statements and hide ranks).
- **literal claims** (strings, quantities, dates, URLs, media), **somevalue** (a blank
  node or a `.well-known/genid` IRI) and **novalue** (`wds:X a wdno:P`) are entity
  properties, shown by describe_entity / full nodes under `wdt:P` ("somevalue",
  "novalue"); a literal claim whose rank is deprecated is listed under its status
  (`bfs:retracted`) instead, so it is hidden by default and still visible.
- **wdt:P31 (instance of) is the entity type, not an edge**: it gives `entity_type` and
  `types`, `node_filter` and `scan_query(node_types=...)` read it, and a walk never goes
  through a class (wd:Q5 "human" would join every person in Wikidata in two hops).
- **truth status** is the rank: preferred and normal are asserted_true; deprecated is
  `deprecated_status` (retracted unless configured, see `WikidataProfile.configured`).
- **valid_at**: qualifiers `pq:P580` (start) and `pq:P582` (end), `pq:P585` (point in
  time) as both, compared by year when valid_at is an integer (as natively). There is
  no as_of: Wikidata statements are background knowledge.
- **full edge data**: rank (`wikibase:rank`), qualifiers (`pq:P...`), the references
  (`prov:wasDerivedFrom`) and their values (`pr:P...`).
- **traits**: `wdt:P1696` (inverse property) between property entities, and property
  entities that are instances of wd:Q18647518 (symmetric) or wd:Q18647515 (transitive);
  property `wd:P123` is predicate `wdt:P123`.
- **labels**: rdfs:label / schema:description / skos:altLabel as for any graph; a
  predicate's label is its property entity's, linked by `wikibase:directClaim`.

Every statement is a statement node (`has_reifiers`), none is unasserted, and every hop
reads statements: a truthy-only export (wdt: triples alone) has no statements for this
profile; `detect_profile` sends such data to the plain profile. The templates in
`queries/wikidata/` are plain SPARQL 1.1 (Blazegraph, Virtuoso, Oxigraph).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from gateway.backends.base import LINES, Backend
from gateway.errors import InvalidInput
from gateway.models import TRUTH_STATUSES, Claim, Datum
from gateway.profiles.base import (
    NOTHING,
    Hit,
    HopPlan,
    Point,
    StatementFields,
    StatementHops,
    StatementRow,
    time_filters,
)
from gateway.profiles.graph import EntitySearch, Graph, TermResolver, TypesOf
from gateway.profiles.mwapi import entity_search_for
from gateway.profiles.native import NativeProfile
from gateway.profiles.statistics import Estimates, Statistics
from gateway.profiles.wikibase_share import other_data_warning
from gateway.profiles.wikidata.probes import probed_estimates, probed_statistics, probed_terms
from gateway.profiles.wikidata.search import LabelSearch
from gateway.profiles.wikidata.terms import CLAIM, NAMESPACES, WD, claim_predicate
from gateway.profiles.wikidata.values import claim, claim_fields, is_value_node_predicate
from gateway.sparql import Sparql, integer, iri, iris, not_after, not_before, render
from gateway.terms import BFS, Term
from gateway.values import ToId

T = TypeVar("T")


def _check_status(status: str) -> None:
    if status not in TRUTH_STATUSES:
        raise InvalidInput(f"deprecated_status must be one of {', '.join(TRUTH_STATUSES)}, not {status!r}",
                           field="deprecated_status")


def _claims(predicates: Iterable[str]) -> Sparql:
    found = sorted({c for c in map(claim_predicate, predicates) if c is not None})
    return iris(found or (NOTHING,), ", ")


COUNTS = ("auto", "exact", "bounded")
ENTITY_SEARCHES = ("auto", "mwapi", "labels", "index")
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]+)?$")


class WikidataProfile(NativeProfile):
    name = "wikidata"
    queries = "wikidata"
    namespaces = NAMESPACES
    entity_namespaces = (WD,)
    claims = True

    @property
    def has_reifiers(self) -> bool:
        """Every Wikidata statement is a statement node."""
        return True

    deprecated_status: str = "retracted"
    """The truth status of a deprecated-rank statement."""
    counts: str = "auto"
    """"exact": describe_schema counts the whole graph and bare names resolve against those
    counts (as for every profile); "bounded": nothing reads the whole graph
    (`gateway.profiles.wikidata.probes`); "auto": bounded on a remote endpoint, exact on embedded data."""
    entity_search = "auto"
    mwapi_host = "www.wikidata.org"

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend)
        _check_status(self.deprecated_status)

    @property
    def bounded(self) -> bool:
        """Whether the graph is too large to read whole (`counts`): statistics, names and
        search then ask only bounded queries (`gateway.profiles.wikidata.probes`)."""
        return self.counts == "bounded" or (self.counts == "auto" and self.backend.capabilities.round_trips)

    @property
    def identity_links(self) -> bool:
        """On a graph too large to read whole, a canonical ID is looked up only by the
        external-ID claims naming it (`wdtn:P` / `wdt:P`, the property bound): an identity
        link without its predicate and object both bound could read the whole graph."""
        return not self.bounded

    @classmethod
    def configured(
        cls, *, deprecated_status: str = "retracted", counts: str = "auto", entity_search: str = "auto",
        mwapi_host: str = "www.wikidata.org",
    ) -> type[WikidataProfile]:
        """A profile class with other options.

        `Gateway(backend, profile=...)` takes a class (it builds one profile per reader),
        so options are class attributes: `profile=WikidataProfile.configured(deprecated_status="disputed")`.
        `deprecated_status` is the truth status of deprecated statements; `counts` says
        whether describe_schema may count the whole graph (`WikidataProfile.counts`);
        `entity_search` picks search_entities' method and `mwapi_host` the wiki whose
        EntitySearch the `wikibase:mwapi` service asks (`Profile.entity_search`).
        """
        _check_status(deprecated_status)
        for value, allowed, field in ((counts, COUNTS, "counts"), (entity_search, ENTITY_SEARCHES, "entity_search")):
            if value not in allowed:
                raise InvalidInput(f"{field} must be one of {', '.join(allowed)}, not {value!r}", field=field)
        if not _HOST.match(mwapi_host):
            raise InvalidInput(f"mwapi_host must be a host name, not {mwapi_host!r}", field="mwapi_host")
        options = {"deprecated_status": deprecated_status, "counts": counts, "entity_search": entity_search,
                   "mwapi_host": mwapi_host, "__module__": cls.__module__}
        return type(cls.__name__, (cls,), options)

    # -- templates ------------------------------------------------------------------------
    def template_slots(self) -> tuple[list[str], dict[str, Sparql]]:
        """Flags and slots every template of this profile may use (the deprecated status).

        Templates fall back to bfs:retracted when the flag is absent.
        """
        return ["deprecated_status"], {"deprecated_status": iri(BFS + self.deprecated_status)}

    def render(self, query: str, flags: Iterable[str] = (), **slots: Sparql) -> str:
        """`queries/wikidata/<query>.rq` filled with the caller's and the profile's slots."""
        own_flags, own_slots = self.template_slots()
        return render(f"{self.queries}/{query}", [*flags, *own_flags], **{**own_slots, **slots})

    # -- what the graph holds ----------------------------------------------------------------
    @property
    def _unasserted(self) -> tuple[dict[str, list[Hit]], dict[str, list[Hit]]]:
        """Wikidata has no statement without its subject: nothing is unasserted."""
        return {}, {}

    def two_hop_statements(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, cap: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> StatementHops | None:
        """None: the one query reads its second hop in a LATERAL join, which Wikidata's
        query service (Blazegraph) does not parse; its walks go hop by hop."""
        return None

    def _statement_aware(self, plan: HopPlan) -> bool:
        """Edges live in statement nodes only (never in the truthy wdt: copies)."""
        return True

    def can_hide(self, plan: HopPlan) -> bool:
        """Only rank and the time qualifiers can keep a statement from being crossed."""
        every_rank = {"asserted_true", self.deprecated_status} <= plan.truth_status
        return not every_rank or plan.valid_at is not None

    # -- one hop ---------------------------------------------------------------------------
    def _select_hop(self, frontier: Sequence[str], plan: HopPlan, limit: int, *, mode: str) -> list[str]:
        flags = [mode, *self._branch_flags(plan)]
        slots: dict[str, Sparql] = {
            "frontier": iris(frontier),
            "truth_status": iris((BFS + s for s in sorted(plan.truth_status)), ", "),
            "trait_claims": _claims(plan.mirror_predicates),
            "limit": integer(limit),
        }
        if plan.predicates is not None:
            flags.append("predicates")
            slots["claims"] = _claims(plan.predicates)
        if plan.excluded:
            flags.append("excluded")
            slots["excluded_claims"] = _claims(plan.excluded)
        time_flags, time_slots = time_filters(plan)
        flags += time_flags
        slots.update(time_slots)
        return self.backend.select(self.render("hop", flags, **slots), LINES)

    @staticmethod
    def _branch_flags(plan: HopPlan) -> list[str]:
        """Which UNION branches of hop.rq run: a direction not asked for still runs, narrowed
        to the trait predicates, when trait mirrors need it (a mirror leaves the other way)."""
        flags = []
        traits = bool(plan.mirror_predicates)
        for direction, wanted in (("out", plan.out), ("in", plan.inward)):
            if wanted or traits:
                flags.append(direction)
            if not wanted and traits:
                flags.append(f"{direction}_traits")
        return flags

    # -- the graph as a whole: probed where it is too large to read ---------------------------
    def whole_graph(self, read: Callable[[], T]) -> T | None:
        return None if self.bounded else read()

    def statistics(self, graph: Graph, count: Callable[[], Statistics]) -> Statistics:
        return probed_statistics(self, self.deprecated_status) if self.bounded else count()

    def estimates(self) -> Estimates | None:
        return probed_estimates() if self.bounded else None

    def schema_warnings(self, stats: Statistics) -> list[str]:
        """A graph mostly of other RDF, or with some beside Wikidata's: those triples are
        neither counted nor walked here."""
        warning = other_data_warning(stats.namespaces)
        return [warning] if warning else []

    def named_graphs(self, graph: Graph) -> Iterable[str]:
        """On a bounded graph, those the backend is configured to read (asking would read the whole graph)."""
        if self.bounded:
            return getattr(self.backend, "graphs", None) or ()
        return super().named_graphs(graph)

    def resolve_terms(
        self, graph: Graph, names: Sequence[str], field: str, *, kind: str, warnings: list[str], counted: TermResolver,
    ) -> set[str]:
        if self.bounded:  # no whole-graph statistics to hold names against: probes
            return probed_terms(graph, self, names, field, kind=kind, warnings=warnings)
        return counted(names, field, kind=kind, warnings=warnings)

    def predicate_probe(self) -> Callable[[str], bool] | None:
        """None: a direct predicate names claims (the vocabulary is read instead)."""
        return None

    def entity_searcher(self, graph: Graph, index: Callable[[], EntitySearch], types_of: TypesOf) -> EntitySearch:
        """As every profile's, and "labels" (or "auto" on a bounded graph): exact label and alias lookups."""
        labels = self.entity_search == "labels" or (self.entity_search == "auto" and self.bounded)
        fallback: Callable[[], EntitySearch] = (lambda: LabelSearch(graph, self, types_of)) if labels else index
        return entity_search_for(self.backend, fallback, language=graph.settings.language, mode=self.entity_search,
                                 host=self.mwapi_host)

    # -- what a full item shows: ranks, qualifiers, references, typed values -------------------
    def statement_fields(
        self, rows: Sequence[StatementRow], nodes: dict[str, dict[str, Term]], to_id: ToId, languages: Sequence[str],
    ) -> StatementFields:
        return claim_fields(rows, nodes, to_id, languages,
                            lambda rest: super(WikidataProfile, self).statement_fields(rest, nodes, to_id, languages))

    def value_node_predicate(self, predicate: str) -> bool:
        return is_value_node_predicate(predicate)

    def claim_value(
        self, statement: str, predicate: str, value: Term, rows: Sequence[StatementRow],
        nodes: dict[str, dict[str, Term]], valid_at: Point | None, to_id: ToId, languages: Sequence[str],
    ) -> Datum | Claim | None:
        return claim(statement, predicate, value, rows, nodes, valid_at, to_id, languages)

    # -- tables ----------------------------------------------------------------------------
    def table_step(
        self, subject: Sparql, predicate: str, value: Sparql, plan: HopPlan, fresh: Callable[[str], Sparql],
    ) -> tuple[Sparql, bool] | None:
        """A direct predicate's claims, as the walk reads them (judged by the filters); any
        other predicate as plain triples."""
        found = claim_predicate(predicate)
        if found is None:
            return Sparql(self.render("table_step", ["plain"], a=subject, p=iri(predicate), b=value)), False
        names = {n: fresh(n) for n in ("st", "rank", "start", "end", "point", "from", "until")}
        flags: list[str] = []
        slots: dict[str, Sparql] = {}
        if plan.valid_at is not None:
            flags.append("valid_at")
            slots = {"from_not_after": not_after(names["from"], plan.valid_at),
                     "until_not_before": not_before(names["until"], plan.valid_at)}
        statuses = iris(sorted(BFS + x for x in plan.truth_status), ", ")
        pattern = self.render("table_step", flags, a=subject, b=value, claim=iri(found),
                              ps=iri(CLAIM + "statement/" + found[len(CLAIM):]), truth_status=statuses, **names, **slots)
        return Sparql(pattern), True
