"""describe_entity's reads of one entity in one query, where the statements are native
(RDF 1.2 reifiers): whether it and its other spellings are held, its data with its
identity links either way, its types, its named graphs and its statements by predicate,
direction and truth status. Five queries asked them apart: on a small graph their fixed
cost was most of the call's (queries/native/describe.rq).

Each part is derived from the entity's triples as the query it replaces reads them
(exists.rq, node_data.rq with same_as.rq, node_types.rq, entity_graphs.rq,
relationship_counts.rq); `tests/tools/test_describe_read.py` holds the answers to those of
the queries apart. An entity that is itself a reifier (its description is a statement's),
or has more triples than `ROWS`, is read the usual way.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from gateway.authorities import IDENTITY_PREDICATES
from gateway.backends.base import Rows
from gateway.engine.context import GraphContext
from gateway.engine.presentation import NodeRow, bookkeeping, has_rdf_type, has_types
from gateway.profiles.base import NON_EDGE_PREDICATES
from gateway.profiles.graph import MemoKey
from gateway.sparql import integer, iri, iris, writable
from gateway.terms import BFS, OWL, RDF, RDFS, Blank, Literal, Term, status_name, text_of

ROWS = 2000
"""Rows the one query reads at most; past that the entity is read the usual way (its
statements counted in the store, not in Python)."""
REIFIES = RDF + "reifies"
TYPE = RDF + "type"
DATA_IRIS = frozenset((RDF + "type", BFS + "supportingDocument", BFS + "urlSynonym", RDFS + "domain", RDFS + "range",
                       RDFS + "subPropertyOf", OWL + "inverseOf"))
"""The IRI-valued predicates node_data.rq reads as data (beside every literal and blank value)."""
IDENTITY = frozenset(IDENTITY_PREDICATES)
WDT = "http://www.wikidata.org/prop/direct/"
WDTN = "http://www.wikidata.org/prop/direct-normalized/"


@dataclass
class EntityRead:
    """What describe_entity shows of one entity, read at once."""

    asked: frozenset[str]
    """The IRIs whether each is held was read (the entity and its other spellings)."""
    held: dict[str, bool]
    """`Profile.held` of `asked` with the identity links."""
    rows: list[NodeRow] = field(default_factory=list)
    """node_data.rq's rows with its same_as branch, in its order."""
    types: list[str] = field(default_factory=list)
    graphs: list[str] = field(default_factory=list)
    """The named graphs holding its triples (IRIs), where the graph read has several."""
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    """(predicate, direction) -> statements by truth status, as relationship_counts.rq counts them."""


def read_entity(ctx: GraphContext, entity: str, spellings: list[str]) -> EntityRead | None:
    """The entity's parts from one query; None where the profile's statements are not
    native, the entity is a reifier or has more than `ROWS` triples, or its IRI cannot be
    written in a query: then the parts are asked apart."""
    if ctx.profile.queries != "native" or not writable([entity]):
        return None
    hidden = bookkeeping(ctx)
    others = writable([s for s in spellings if s != entity])
    flags = ["graphs"] * (len(ctx.named_graphs()) >= 2) + ["spellings"] * bool(others)
    rows = ctx.select("describe", flags, id=iri(entity), excluded=iris((*NON_EDGE_PREDICATES, *hidden), ", "),
                      spellings=iris(others), identity=iris(IDENTITY_PREDICATES, ", "), limit=integer(ROWS + 1))
    if len(rows) > ROWS:
        return None
    read = EntityRead(frozenset([entity, *others]), {})
    triples = _triples(rows, read, frozenset(NON_EDGE_PREDICATES) | hidden)
    if triples is None:
        return None
    out, into = triples
    if out or into:
        read.held[entity] = any(p not in IDENTITY for p, _ in out)
    read.held = _also_unasserted(ctx, read.held, read.asked)
    read.rows = _data_rows(out, into)
    read.types = _types(ctx, out)
    return read


Triple = tuple[str, Term]
"""(predicate, the other end) of a triple the entity is in."""


def _triples(rows: Rows, read: EntityRead, skipped: frozenset[str]) -> tuple[list[Triple], list[Triple]] | None:
    """The entity's triples out and in, its graphs, spellings and counts set in `read`;
    None where the entity is a reifier."""
    out: list[Triple] = []
    into: list[Triple] = []
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for d, p, v, _, ts in rows:
        kind = text_of(d)
        if kind == "graph":
            read.graphs.append(str(v))
        elif kind in ("own", "held"):  # another spelling, held
            read.held[str(v)] = kind == "own"
        elif v is not None:
            p, outward = str(p), kind == "out"
            if outward and p == REIFIES:
                return None  # a statement: described as one (presentation.statement_details)
            # An edge with several reifiers comes once for each: its links are read as a
            # set, and no edge is data, so repeats change nothing below.
            (out if outward else into).append((p, v))
            if type(v) is str and p not in skipped and kind != "about":
                counts[(p, "out" if outward else "in")][status_name(ts)] += 1
    read.counts = dict(counts)
    return out, into


def _data_rows(out: list[Triple], into: list[Triple]) -> list[NodeRow]:
    """node_data.rq's rows with its same_as branch: the entity's data, then the links."""
    rows: list[NodeRow] = [(p, v, None) for p, v in out
                           if isinstance(v, (Literal, Blank)) or (p in DATA_IRIS and type(v) is str)]
    rows += [(p, v, None) for p, v in out if p in IDENTITY and type(v) is str]
    rows += [(p, v, None) for q in IDENTITY_PREDICATES for p, v in into if p == q and type(v) is str]
    rows += [(WDTN + p.rsplit("/", 1)[-1], v, None) for p, v in out
             if p.startswith(WDTN) or (isinstance(v, Literal) and p.startswith(WDT))]
    return rows


def _types(ctx: GraphContext, out: list[Triple]) -> list[str]:
    """node_types.rq's types of the entity: its rdf:type IRIs, once each."""
    if not has_types(ctx) or not has_rdf_type(ctx):
        return []
    return list(dict.fromkeys(str(v) for p, v in out if p == TYPE and type(v) is str))


def _also_unasserted(ctx: GraphContext, held: dict[str, bool], asked: frozenset[str]) -> dict[str, bool]:
    """`held` with the IRIs only reifier-only statements hold (as `Profile.held` adds them)."""
    index = unasserted_by_node(ctx)
    for i in asked:
        if i in index:
            held[i] = held.get(i, False) or any(d == "out" for _, d, _ in index[i])
    return held


UNASSERTED_BY_NODE: MemoKey[dict[str, list[tuple[str, str, str]]]] = MemoKey("unasserted_by_node")


def unasserted_by_node(ctx: GraphContext) -> dict[str, list[tuple[str, str, str]]]:
    """Each node's reifier-only statements as (predicate, direction, status), indexed once
    per graph: a description scanned all of them for every entity it described."""
    return ctx.memo(UNASSERTED_BY_NODE, lambda: _index_unasserted(ctx))


def _index_unasserted(ctx: GraphContext) -> dict[str, list[tuple[str, str, str]]]:
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for hit in ctx.profile.unasserted():
        found[hit.s].append((hit.p, "out", hit.status))
        found[hit.o].append((hit.p, "in", hit.status))
    return dict(found)
