"""Canonical IDs resolved to the entities whose data links them.

A seed that names no entity of its own (absent from the graph, or an identifier node the
data only points at) may still be a canonical ID another entity carries: as its IRI in
another URL form, through an identity link (owl:sameAs, skos:exactMatch, schema:sameAs,
either way), an identifier literal (oboInOwl:hasDbXref "MESH:D003480", skos:notation,
dcterms:identifier), a Wikidata external-ID claim (`wdtn:P214 <http://viaf.org/viaf/1>`,
`wdt:P214 "1"`), or a URL the entity declares its own (bfs:urlSynonym). Every form of
every such seed goes into ONE query (`identified_by`), each pattern with its object bound,
so a walk from a canonical ID costs one round trip more than a walk from the entity.
A seed linked by several entities resolves to all of them, and the answer says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from gateway.authorities import IDENTIFIER_PREDICATES, IDENTITY_PREDICATES, CanonicalId, of_iri
from gateway.engine.context import GraphContext
from gateway.sparql import Sparql, integer, iri, iris, joined, literal, writable
from gateway.terms import Blank, Literal

# Wikidata's claim predicates are data to match here, whatever profile reads the graph: a
# Wikidata export read natively carries them as much as one read by the wikidata profile.
WDT = "http://www.wikidata.org/prop/direct/"
WDTN = "http://www.wikidata.org/prop/direct-normalized/"
NORMALIZED = (WDTN, *(f"http://www.wikidata.org/prop/{kind}/value-normalized/" for kind in ("statement", "qualifier",
                                                                                           "reference")))
"""Wikidata's predicates whose object is an external ID as a URL (a claim's, a statement's,
a qualifier's or a reference's normalized value): the links that make an identifier node."""
MAX_FORMS = 4096
"""Values one lookup sends at most (IRI forms, literals, claims): a tool's seeds, each in
its dozen forms, fit; past it a seed is not looked up, and a warning says how many."""
MAX_LINKS = 1000
"""Links one lookup reads at most; a warning says when there were more."""
NAMED = 10
"""Entities a warning names for one seed; the rest are counted."""


@dataclass
class Forms:
    """Every form of the seeds looked up, each -> the seeds (IRIs) it is a form of."""

    iris: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    others: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """URL forms other than the seed's own IRI (and its spellings, which the existence
    check asked): an entity of its own when the data holds them."""
    literals: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    claims: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    """(claim predicate, value as text) -> seeds."""
    claim_rows: list[Sparql] = field(default_factory=list)
    ids: dict[str, CanonicalId] = field(default_factory=dict)
    """Seed -> the canonical ID it parses as (a seed may be a plain IRI)."""
    skipped: int = 0

    def size(self) -> int:
        return len(self.iris) + len(self.others) + len(self.literals) + len(self.claim_rows)


def identifying(predicate: str) -> bool:
    """Whether a statement with this predicate only says what its object identifies (an
    identity link, a normalized external-ID value), not a relationship of an entity."""
    return predicate in _IDENTITY or predicate.startswith(NORMALIZED)


_IDENTITY = frozenset(IDENTITY_PREDICATES)


def forms_of(ctx: GraphContext, seeds: Sequence[str], *, generic: bool, itself: bool = False) -> Forms:
    """The forms the data may link each seed by, at most `MAX_FORMS` in all (`itself`: the
    seed's own IRI among those that may be an entity of their own). Only IRIs `writable`
    in a query are kept; literals are written by the escaping serializer."""
    forms = Forms()
    for seed in seeds:
        canonical = of_iri(seed)
        own = [seed, *ctx.ids.spellings(seed)]
        urls = writable(list(dict.fromkeys([*own, *(canonical.iris() if canonical else ())])))
        texts = list(dict.fromkeys(canonical.literals())) if canonical and generic else []
        claims = _claims(canonical, urls)
        if forms.size() + len(urls) * 2 + len(texts) + len(claims) > MAX_FORMS:
            forms.skipped += 1
            continue
        if canonical is not None:
            forms.ids[seed] = canonical
        for url in urls:
            forms.iris[url].add(seed)
            if itself or url not in own:
                forms.others[url].add(seed)
        for text in texts:
            forms.literals[text].add(seed)
        for predicate, value, row in claims:
            if (predicate, value) not in forms.claims:
                forms.claim_rows.append(row)
            forms.claims[(predicate, value)].add(seed)
    return forms


def _claims(canonical: CanonicalId | None, urls: Sequence[str]) -> list[tuple[str, str, Sparql]]:
    """Wikidata's claims of the ID's property: the normalized URL (`wdtn:`) and the plain
    string (`wdt:`), each as (predicate, value, VALUES row)."""
    if canonical is None or canonical.authority.wikidata_property is None:
        return []
    prop = canonical.authority.wikidata_property
    rows = [(WDT + prop, canonical.local, Sparql(f"({iri(WDT + prop)} {literal(canonical.local)})"))]
    rows += [(WDTN + prop, url, Sparql(f"({iri(WDTN + prop)} {iri(url)})")) for url in urls]
    return rows


def identified(
    ctx: GraphContext, seeds: Sequence[str], warnings: list[str], *, itself: bool = False,
) -> dict[str, list[str]]:
    """Seed IRI -> the entities (IRIs, sorted) whose data links one of its forms, for
    the seeds some entity links; each resolved seed told in `warnings`. With `itself`, a
    seed with data of its own is found too, as the one entity it names (asked before the
    store was asked whether it holds the seed: one round trip instead of two)."""
    if not seeds:
        return {}
    generic = ctx.profile.identity_links
    forms = forms_of(ctx, seeds, generic=generic, itself=itself)
    if forms.skipped:
        warnings.append(f"{forms.skipped} seeds were not looked up as canonical IDs (at most {MAX_FORMS} forms "
                        "are asked at once)")
    if not forms.iris and not forms.claim_rows:
        return {}
    rows = ctx.select(
        "identified_by", ["generic"] if generic else [],
        iris=iris(forms.iris), others=iris(forms.others), literals=joined(literal(t) for t in forms.literals),
        claims=joined(forms.claim_rows), identity=iris(IDENTITY_PREDICATES),
        identity_list=iris(IDENTITY_PREDICATES, ", "), identifiers=iris(IDENTIFIER_PREDICATES),
        limit=integer(MAX_LINKS + 1),
    )
    if len(rows) > MAX_LINKS:
        warnings.append(f"more than {MAX_LINKS} entities link the seeds' canonical IDs; those read first are used")
    found: dict[str, set[str]] = defaultdict(set)
    for f, q, x in rows[:MAX_LINKS]:
        if not isinstance(x, str) or isinstance(x, Blank):  # a blank node cannot be a seed
            continue
        value = f.value if isinstance(f, Literal) else str(f)
        named = forms.claims.get((str(q), value)) or (
            forms.literals.get(value, set()) if isinstance(f, Literal) else forms.iris.get(value, set()))
        for seed in named:
            found[seed].add(x)
    resolved: dict[str, list[str]] = {}
    for seed in seeds:
        entities = found.get(seed)
        if not entities:
            continue
        if seed in entities:  # an entity of its own, whatever else links it
            resolved[seed] = [seed]
            continue
        resolved[seed] = sorted(entities)
        warnings.append(told(ctx, forms.ids.get(seed), seed, resolved[seed]))
    return resolved


def told(ctx: GraphContext, canonical: CanonicalId | None, seed: str, entities: Sequence[str]) -> str:
    """`"MeSH:D003480" identifies DBPedia:Cushing's_disease`, or the entities counted and
    named (the first `NAMED`) when there are several. A page URL of the entity's own ID
    (`https://www.wikidata.org/wiki/Q42` for wd:Q42) is told as written: its CURIE would
    say the entity identifies itself."""
    shown = [ctx.ids.to_id(x) for x in entities[:NAMED]]
    name = canonical.curie if canonical is not None and canonical.curie not in shown else ctx.ids.to_id(seed)
    if len(entities) == 1:
        return f'"{name}" identifies {shown[0]}'
    more = f" and {len(entities) - NAMED} more" if len(entities) > NAMED else ""
    return f'"{name}" identifies {len(entities)} entities: {", ".join(shown)}{more}; all are used'
