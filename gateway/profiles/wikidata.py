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
from collections.abc import Iterable, Sequence

from gateway.backends.base import LINES, Backend
from gateway.errors import InvalidInput
from gateway.models import TRUTH_STATUSES
from gateway.profiles.base import NOTHING, Hit, HopPlan, time_filters
from gateway.profiles.native import NativeProfile
from gateway.sparql import Sparql, integer, iri, iris, render
from gateway.terms import BFS, RDF

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
CLAIM = "http://www.wikidata.org/prop/"
WIKIBASE = "http://wikiba.se/ontology#"
NAMESPACES = (
    BFS, RDF, WD, WD + "statement/", WDT, CLAIM,
    CLAIM + "statement/", CLAIM + "statement/value/", CLAIM + "qualifier/", CLAIM + "qualifier/value/",
    CLAIM + "reference/", CLAIM + "reference/value/", CLAIM + "novalue/",
    "http://www.wikidata.org/reference/", "http://www.wikidata.org/value/",
    WIKIBASE, "http://www.w3.org/ns/prov#", "http://schema.org/",
)
"""What Wikibase's RDF and this profile's answers are written in: entities, statements,
the claim, statement, qualifier and reference namespaces (simple values and value nodes),
novalue classes, reference and value nodes, ranks (wikibase:), references
(prov:wasDerivedFrom), an entity's version data (schema:), and the project's own terms."""


def claim_predicate(predicate: str) -> str | None:
    """The claim predicate `p:P69` of a direct predicate `wdt:P69` (None for any other IRI)."""
    return CLAIM + predicate[len(WDT):] if predicate.startswith(WDT) else None


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
    @property
    def has_reifiers(self) -> bool:
        """Every Wikidata statement is a statement node."""
        return True
    deprecated_status: str = "retracted"
    """The truth status of a deprecated-rank statement."""
    counts: str = "auto"
    """"exact": describe_schema counts the whole graph and bare names resolve against those
    counts (as for every profile); "bounded": nothing reads the whole graph
    (`gateway.engine.wikidata_probes`); "auto": bounded on a remote endpoint, exact on embedded data."""
    entity_search = "auto"
    mwapi_host = "www.wikidata.org"

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend)
        _check_status(self.deprecated_status)

    @property
    def bounded(self) -> bool:
        return self.counts == "bounded" or (self.counts == "auto" and self.backend.capabilities.round_trips)

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


# -- which profile fits a store -----------------------------------------------------------------
_DETECTION = (
    ("wikidata", "wikidata/has_reifiers"),  # wikibase:rank
    ("native", "native/has_reifiers"),  # rdf:reifies
    ("reification", "reification/has_reifiers"),  # rdf:Statement with rdf:subject
)


def detect_profile(backend: Backend) -> str:
    """The profile that fits the data: "wikidata", "native", "reification" or "plain".

    Each profile's own `has_reifiers` template is one `SELECT ... LIMIT 1`, asked in this
    order: Wikidata statements (`wikibase:rank`) first, since a Wikidata store may also
    hold other shapes; then RDF 1.2 reifiers; then `rdf:Statement` nodes; else plain.
    """
    for name, query in _DETECTION:
        _, rows = backend.select(render(query))
        if rows:
            return name
    return "plain"
