"""Full and stub forms of nodes and edges: the data a full item carries, read on demand.

Stubs cost nothing beyond the walk (IDs and one type query). Full data is read only
for the nodes and statements that a presentation filter selects.
"""

from __future__ import annotations

import typing
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass, field
from typing import Any, cast, overload

from gateway.backends.base import WRITTEN
from gateway.engine import blanks
from gateway.engine.canonical_ids import is_link_row, same_as_branch
from gateway.engine.context import GraphContext
from gateway.engine.walk import EdgeKey
from gateway.models import Edge, Node, TruthStatus
from gateway.models.shared import Text
from gateway.profiles.base import Hit, Point, StatementFields, StatementRow, shared_types, types_of_rows
from gateway.profiles.graph import MemoKey
from gateway.sparql import iri, iris, triples, writable
from gateway.terms import (
    BFS,
    RDF,
    RDFS,
    Blank,
    Literal,
    Term,
    language_matches,
    line_text,
    pick_literal,
    text_of,
)
from gateway.values import STATEMENT_TYPE, datum, entity_type, in_languages

BLANK = "_:"
"""How a blank node's label begins where an answer holds it (a statement ID)."""
PASSAGE_TYPE = BFS + "Passage"
URL_SYNONYM = BFS + "urlSynonym"
TYPE = RDF + "type"
SKOS = "http://www.w3.org/2004/02/skos/core#"
SCHEMA = "https://schema.org/"
FOAF, DCTERMS, DC = "http://xmlns.com/foaf/0.1/", "http://purl.org/dc/terms/", "http://purl.org/dc/elements/1.1/"
LABELS = (RDFS + "label", SKOS + "prefLabel", SCHEMA + "name", "http://schema.org/name", FOAF + "name",
          DCTERMS + "title", DC + "title")
"""Where a label comes from, in order: the first of these an entity has (queries/native/labels.rq
and names.rq read the same)."""
ALT_LABELS = (
    SKOS + "altLabel", SCHEMA + "alternateName",
    "http://www.geneontology.org/formats/oboInOwl#hasExactSynonym",
)
DESCRIPTIONS = (SCHEMA + "description", "http://schema.org/description", RDFS + "comment", DCTERMS + "description",
                SKOS + "definition", DC + "description")
NAME_PREDICATES = frozenset((*LABELS, *ALT_LABELS, *DESCRIPTIONS))


class TypeNames:
    """entity_type() memoized per set of types: most nodes share a few."""

    def __init__(self, to_id: Callable[[str], str]) -> None:
        self.to_id = to_id
        self.seen: dict[tuple[str, ...], str] = {}

    def __call__(self, types: Sequence[str]) -> str:
        key = tuple(types)
        name = self.seen.get(key)
        if name is None:
            name = self.seen[key] = entity_type(key, self.to_id)
        return name


HAS_TYPES: MemoKey[bool] = MemoKey("has_types")
HAS_RDF_TYPE: MemoKey[bool] = MemoKey("has_rdf_type")


def has_types(ctx: GraphContext) -> bool:
    """Whether the graph types anything (rdf:type, or a statement, typed bfs:Statement)."""
    return ctx.memo(HAS_TYPES, lambda: bool(ctx.select("has_types")))


def has_rdf_type(ctx: GraphContext) -> bool:
    """Whether anything in the graph has an rdf:type (if not, only statements have a type)."""
    return ctx.memo(HAS_RDF_TYPE, lambda: bool(ctx.select("has_rdf_type")))


def node_types(ctx: GraphContext, nodes: Sequence[str], known: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Each node's types (IRIs; a statement's is bfs:Statement), for the nodes that have
    any, in lists shared by nodes of the same types (`shared_types`: read, never change
    them). `known`: the types of nodes read already (`WalkResult.types`, [] for none): only
    the other nodes are asked about."""
    found: dict[str, list[str]] = defaultdict(list)
    if not has_types(ctx):
        return found
    if known:
        found.update((n, known[n]) for n in nodes if known.get(n))
        nodes = [n for n in nodes if n not in known]
    typed = has_rdf_type(ctx)
    candidates = set(ctx.profile.statement_candidates(nodes))
    # Large slices: over HTTP this is a walk's one request after its hops.
    for chunk in _chunks(nodes, 10_000):
        maybe = [n for n in chunk if n in candidates] if candidates else []
        if not typed and not maybe:
            continue
        flags = ["typed"] * typed + ["statements"] * bool(maybe)
        # As text: the types of thousands of nodes are a walk's largest read after its hops.
        # As TSV writes them, so that what is no IRI is left out here (isIRI and DISTINCT
        # cost the store a third of the read).
        profile = ctx.profile
        written = profile.backend.select(profile.render("node_types", flags, ids=iris(chunk), candidates=iris(maybe)), WRITTEN)
        found.update(types_of_rows(written))
    return found


FEW_NODES = 64
"""Nodes whose data `types_with_data` reads in one query with their types."""


def types_with_data(
    ctx: GraphContext, nodes: Sequence[str], rows_of: Callable[[Sequence[str]], dict[str, list[NodeRow]]] | None = None,
) -> tuple[dict[str, list[str]], dict[str, list[NodeRow]]] | None:
    """`node_types` of a few nodes read from their data (node_data.rq's rows hold their rdf:type IRIs), with
    those rows, for `full_nodes(read=...)`: one query where two would read the same triples. None where the
    profile's node data is not native's, the nodes are many, or one may be a reifier (its type is asked
    apart). `rows_of`: reads the rows in node_data.rq's place (with others, in one query)."""
    if ctx.profile.queries != "native" or len(nodes) > FEW_NODES or writable(nodes) != list(nodes) or (
            has_types(ctx) and ctx.profile.statement_candidates(nodes)):
        return None
    rows = node_rows(ctx, nodes)[0] if rows_of is None else rows_of(nodes)
    typed = has_types(ctx) and has_rdf_type(ctx)
    read = {n: list(dict.fromkeys(str(v) for p, v, _ in found if p == TYPE and type(v) is str))
            for n, found in rows.items()} if typed else {}
    return defaultdict(list, shared_types({n: kinds for n, kinds in read.items() if kinds})), dict(rows)


class TypesAhead:
    """The types of the nodes a walk reaches, read on a thread slice by slice while the walk
    goes on (`walk(on_reached=...)`). In process the store evaluates a query without
    holding Python's lock, so the type reads run beside the walk's own Python: the largest
    read after the hops costs a walk little of its time."""

    def __init__(self, ctx: GraphContext) -> None:
        self.ctx = ctx
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bfsql-types")
        self.asked: list[tuple[list[str], Future[dict[str, list[str]]]]] = []

    def __call__(self, nodes: Sequence[str]) -> None:
        nodes = list(nodes)
        # The deadline is a context variable: the thread reads under the caller's.
        self.asked.append((nodes, self.pool.submit(copy_context().run, node_types, self.ctx, nodes)))

    def collect(self) -> dict[str, list[str]]:
        """Every node asked about, with its types ([] for none)."""
        known: dict[str, list[str]] = {}
        try:
            for nodes, future in self.asked:
                found = future.result()
                known.update((n, found.get(n, [])) for n in nodes)
        finally:
            self.close()
        return known

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def bookkeeping(ctx: GraphContext) -> frozenset[str]:
    """Properties the data declares `rdfs:subPropertyOf bfs:bookkeeping`: walking tools
    leave them out of answers, describe shows them."""
    return declared_subproperties(ctx, "bookkeeping")


_SUBPROPERTY_KEYS: dict[str, MemoKey[frozenset[str]]] = {}
"""The memo key of each kind, made once: a subscripted generic costs microseconds a call."""


def declared_subproperties(ctx: GraphContext, kind: str) -> frozenset[str]:
    """Properties the data declares `rdfs:subPropertyOf bfs:<kind>`."""
    key = _SUBPROPERTY_KEYS.get(kind) or _SUBPROPERTY_KEYS.setdefault(kind, MemoKey[frozenset[str]](kind))
    return ctx.memo(key, lambda: frozenset(
        str(p) for (p,) in ctx.select("subproperties", kind=iri(BFS + kind)) if isinstance(p, str)))


def full_nodes(
    ctx: GraphContext, nodes: Sequence[str], types: dict[str, list[str]], *, with_bookkeeping: bool = False,
    valid_at: Point | None = None, languages: Sequence[str] | None = None, warnings: list[str] | None = None,
    links: dict[str, list[tuple[str, Term]]] | None = None, read: dict[str, list[NodeRow]] | None = None,
) -> dict[str, Node]:
    """Full data for entities: label, description, synonyms, types, literal properties
    (bookkeeping ones only if asked; a claim not in force at `valid_at` left out), text in
    `languages` (the gateway's `Settings.languages` unless a call names others), the blank
    nodes each owns (`gateway.engine.blanks`: what of them was left out, or is not what it
    looks like, goes to `warnings`). `links`, where given, receives each node's rows that
    may name its canonical IDs (`gateway.engine.canonical_ids.same_as` reads them), read in
    the same query with the identity links either way. `read`: each node's rows as
    node_data.rq reads them (with its same_as branch where `links` is given), read already."""
    rows_by_node, claims = node_rows(ctx, nodes, with_links=links is not None) if read is None else _rows_read(read)
    if links is not None:
        _set_links_apart(rows_by_node, links)
    held = {n: Counter(p for p, v, _ in rows_by_node.get(n, ()) if isinstance(v, Blank)) for n in nodes}
    owned = blanks.read(ctx, [n for n in nodes if held[n]], held)
    if warnings is not None:
        warnings += owned.warnings
    statements = [n for n in nodes if STATEMENT_TYPE in types.get(n, ())]
    shared = _Shared(
        hidden=frozenset() if with_bookkeeping else bookkeeping(ctx),
        claims=StatementData.read(ctx, sorted(claims)) if claims else StatementData(),
        owned=owned,
        statements=statement_details(ctx, statements, with_bookkeeping=with_bookkeeping) if statements else {},
        valid_at=valid_at,
        languages=tuple(languages or ctx.settings.languages),
        asked=tuple(languages) if languages is not None and len(languages) > 1 else (),
    )
    return {node: _full_node(ctx, node, rows_by_node.get(node, []), types.get(node, ()), shared) for node in nodes}


@dataclass(frozen=True)
class _Shared:
    """What the full nodes of one answer read together."""

    hidden: frozenset[str]
    """Properties left out (bookkeeping)."""
    claims: StatementData
    """The data of the statements stating the nodes' claims."""
    owned: blanks.Blanks
    statements: dict[str, Edge]
    """The nodes that are statements, as full edges."""
    valid_at: Point | None
    languages: tuple[str, ...]
    asked: tuple[str, ...] = ()
    """The languages a call named, when it named several: a label in each is shown (`labels`)."""


def _full_node(ctx: GraphContext, node: str, rows: list[NodeRow], types: Sequence[str], shared: _Shared) -> Node:
    to_id, languages = ctx.ids.to_id, shared.languages
    values = [(p, v) for p, v, _ in rows]
    names = Names(values, languages)
    labels = names.in_each(shared.asked) if shared.asked else None
    others = names.left_out()
    properties = None
    if node not in shared.statements:
        properties, left_out = _properties(ctx, rows, shared, shared.owned.of(node))
        others |= left_out
    kind = entity_type(types, to_id)
    return Node(
        id=to_id(node),
        entity_type=kind,
        label=names.label.value if names.label else None,
        label_language=names.tag(names.label),
        description=names.description.value if names.description else None,
        description_language=names.tag(names.description),
        labels=labels,
        types=extra_types(kind, [to_id(t) for t in types if t != STATEMENT_TYPE]),
        alt_labels=names.alt or None,
        properties=properties,
        other_languages=_languages_told(others),
        statement=shared.statements.get(node),
        widen_with="fetch_slice" if PASSAGE_TYPE in types else None,
    )


class Names:
    """An entity's label, description and synonyms as shown to a reader of `languages`
    (the first is the reader's): each text in another language says which. `left_out`
    names the languages each kind of name has text in that none of it shown is in."""

    def __init__(self, values: list[tuple[str, Term]], languages: Sequence[str]) -> None:
        self.reader = languages[0] if languages else None
        self.values = values
        # The name values by predicate, in one pass: a node has a few of them among its data.
        named: dict[str, list[Term]] = {}
        for p, v in values:
            if p in NAME_PREDICATES:
                named.setdefault(p, []).append(v)
        self.named = named
        self.label = _pick(named, LABELS, languages)
        self.description = _pick(named, DESCRIPTIONS, languages)
        synonyms: dict[str, Literal] = {}
        # One entry a text: the reader's (or the data's own) spelling before a tagged copy.
        for v in sorted((_as_literal(v) for p, v in values if p in ALT_LABELS and _language_ok(v, languages)),
                        key=lambda v: (v.value, self.tag(v) is not None, v.language or "")):
            synonyms.setdefault(v.value, v)
        self.alt: list[str | Text] = [self.said(v) for v in synonyms.values()]
        self.shown: dict[tuple[str, ...], set[str]] = {
            LABELS: _tags([self.label]), DESCRIPTIONS: _tags([self.description]), ALT_LABELS: _tags(synonyms.values())}

    def tag(self, text: Literal | None) -> str | None:
        """A shown text's language, where it is not the reader's (text without one is the data's own)."""
        if text is None or not text.language or (self.reader and language_matches(text.language, self.reader)):
            return None
        return text.language

    def said(self, text: Literal) -> str | Text:
        """A synonym as shown: plain in the reader's language, else with its language."""
        language = self.tag(text)
        return text.value if language is None else {"text": text.value, "language": language}

    def in_each(self, asked: Sequence[str]) -> dict[str, str] | None:
        """A label in each language asked that has one, by its tag; None unless that shows
        one more than `label` does."""
        found: dict[str, str] = {}
        for wanted in asked:
            picked = _pick({p: [v for v in values if isinstance(v, Literal) and language_matches(v.language, wanted)]
                            for p, values in self.named.items()}, LABELS, [wanted])
            if picked is not None and picked.language:
                found.setdefault(picked.language, picked.value)
        if not set(found) - self.shown[LABELS]:
            return None
        self.shown[LABELS] |= set(found)
        return found

    def left_out(self) -> set[str]:
        """The languages of labels, descriptions and synonyms that none shown of their kind
        is in (a subtag of a shown language is that language: "en" takes "en-gb")."""
        held: dict[tuple[str, ...], set[str]] = {}
        for p, values in self.named.items():  # only a tagged literal has a language to tell
            tags = {v.language for v in values if isinstance(v, Literal) and v.language}
            if tags:
                held.setdefault(_NAME_KIND[p], set()).update(tags)
        left: set[str] = set()
        for kind, tags in held.items():
            shown = self.shown[kind]
            left |= {tag for tag in tags if not any(language_matches(tag, s) for s in shown)}
        return left


_NAME_KIND: dict[str, tuple[str, ...]] = {p: kind for kind in (ALT_LABELS, DESCRIPTIONS, LABELS) for p in kind}
"""Each name predicate's kind (a predicate in two kinds would be the last one's; none is)."""


def _as_literal(term: Term) -> Literal:
    return term if isinstance(term, Literal) else Literal(text_of(term))


def _tags(texts: Iterable[Literal | None]) -> set[str]:
    return {t.language for t in texts if t is not None and t.language}


NodeRow = tuple[str, Term, str | None]
"""(predicate, value, the claim's statement the value states, if any)."""


def _set_links_apart(rows_by_node: dict[str, list[NodeRow]], links: dict[str, list[tuple[str, Term]]]) -> None:
    """Every row into `links` (canonical IDs are read from them); the identity links and
    external-ID claims only same_as.rq read kept out of the node's data (never properties)."""
    for node, rows in rows_by_node.items():
        links[node] = [(p, v) for p, v, _ in rows]
        rows_by_node[node] = [row for row in rows if not is_link_row(row[0], row[1])]


def _rows_read(read: dict[str, list[NodeRow]]) -> tuple[dict[str, list[NodeRow]], set[str]]:
    """`node_rows` from rows read already (copies: the links are set apart in place)."""
    return {n: list(rows) for n, rows in read.items()}, {s for rows in read.values() for _, _, s in rows if s}


def node_rows(ctx: GraphContext, nodes: Sequence[str], *, with_links: bool = False) -> tuple[dict[str, list[NodeRow]], set[str]]:
    """Each node's literal and IRI values (`with_links`: and its identity links and
    external-ID claims, same_as.rq), and every claim's statement among them."""
    rows_by_node: dict[str, list[NodeRow]] = defaultdict(list)
    claims: set[str] = set()
    for chunk in _chunks(nodes):
        ids = iris(chunk)
        if with_links:
            rows = ctx.select("node_data", ["same_as"], ids=ids, same_as=same_as_branch(ids))
        else:
            rows = ctx.select("node_data", ids=ids)
        for x, p, v, *stated in rows:
            if v is not None:
                statement = str(stated[0]) if stated and stated[0] is not None else None
                rows_by_node[str(x)].append((str(p), v, statement))
                if statement is not None:
                    claims.add(statement)
    return rows_by_node, claims


def _properties(
    ctx: GraphContext, rows: list[NodeRow], shared: _Shared, blanks: dict[str, list[str]],
) -> tuple[dict[str, list[Any]] | None, set[str]]:
    """A node's properties (names, types and hidden ones left out), each sorted, the blank
    nodes it owns written inline (`_blank_values`), a text in many languages in the
    reader's; None if none. And the languages of the texts left out."""
    to_id, languages = ctx.ids.to_id, shared.languages
    language = languages[0] if languages else ctx.settings.language
    properties: dict[str, list[Any]] = defaultdict(list)
    for p, shown_blanks in blanks.items():
        if p not in shared.hidden:
            properties[to_id(p)].extend(shown_blanks)
    texts: dict[str, list[Term]] = defaultdict(list)
    for p, v, statement in rows:
        if p in NAME_PREDICATES or p == RDF + "type" or p in shared.hidden or isinstance(v, Blank):
            continue
        if p == URL_SYNONYM:  # shown as the URL it is, not folded back into the entity's CURIE
            properties[to_id(p)].append(str(v))
        elif statement is not None and not p.startswith(BFS):
            shown = ctx.profile.claim_value(statement, p, v, shared.claims.rows.get(statement, []), shared.claims.nodes,
                                            shared.valid_at, to_id, languages)
            if shown is not None:
                properties[to_id(p)].append(shown)
        elif isinstance(v, Literal) and v.language:
            texts[p].append(v)
        else:
            properties[to_id(p)].append(datum(v, to_id, language))
    others = _in_languages(properties, texts, to_id, languages, language)
    return {k: sorted(v, key=str) for k, v in sorted(properties.items())} or None, others


def _in_languages(
    properties: dict[str, list[Any]], texts: dict[str, list[Term]], to_id: Callable[[str], str],
    languages: Sequence[str], language: str,
) -> set[str]:
    """Each text in many languages added to `properties` in the reader's; the languages of
    the others."""
    others: set[str] = set()
    for p, values in texts.items():
        kept = in_languages(values, languages)
        properties[to_id(p)].extend(datum(v, to_id, language) for v in kept)
        others.update(v.language for v in values if v not in kept and isinstance(v, Literal) and v.language)
    return others


def extra_types(kind: str, types: list[str]) -> list[str] | None:
    """All types, but only when there is more than the one entity_type already says."""
    return sorted(types) if set(types) - {kind} else None


def statement_details(ctx: GraphContext, statements: Sequence[str], *, with_bookkeeping: bool = False) -> dict[str, Edge]:
    """Full edges for statement IDs read directly (describe, statement nodes)."""
    triples: dict[str, tuple[str, str, str, bool]] = {}
    for chunk in _chunks(statements):
        rows = ctx.select("reified_triple", ids=iris(chunk))
        for r, s, p, o, flag in rows:
            # Some stores (Virtuoso) answer booleans as 1 / 0.
            triples[str(r)] = (str(s), str(p), str(o), isinstance(flag, Literal) and flag.value in ("true", "1"))
    data = StatementData.read(ctx, list(triples), with_bookkeeping=with_bookkeeping)
    edges = {}
    for r, (s, p, o, asserted) in triples.items():
        hit = Hit("", "", s, p, o, r, "asserted_true" if asserted else "hypothetical")
        edges[r] = full_edge(ctx, EdgeKey(s, p, o, r, None), hit, data)
    return edges


def full_edges(
    ctx: GraphContext, keys: Sequence[tuple[EdgeKey, Hit]], *, valid_at: Point | None = None,
) -> list[Edge]:
    data = _data_of(ctx, keys)
    return [full_edge(ctx, key, hit, data, valid_at=valid_at) for key, hit in keys]


def edge_fields(
        ctx: GraphContext, keys: Sequence[tuple[EdgeKey, Hit]], read: StatementData | None = None) -> list[StatementFields]:
    """`full_edges`' fields beside the triple (truth status, confidence, ...), without the edges; `read`: their data."""
    data = _data_of(ctx, keys) if read is None else read
    return [_fields(ctx, key, hit, data) for key, hit in keys]


def _data_of(ctx: GraphContext, keys: Sequence[tuple[EdgeKey, Hit]]) -> StatementData:
    statements = {k.statement: (k.subject, k.predicate, k.object) for k, _ in keys if k.statement}
    named = sorted(r for r in statements if not r.startswith(BLANK))
    blank = sorted({triple for r, triple in statements.items() if r.startswith(BLANK)})
    return StatementData.read(ctx, named, blank=blank)


def _fields(ctx: GraphContext, key: EdgeKey, hit: Hit, data: StatementData) -> StatementFields:
    fields = ctx.profile.statement_fields(data.rows.get(key.statement or "", ()), data.nodes, ctx.ids.to_id,
                                          ctx.settings.languages)
    fields.setdefault("truth_status", cast(TruthStatus, hit.status))
    return fields


def stub_edge(ctx: GraphContext, key: EdgeKey) -> Edge:
    to_id = ctx.ids.to_id
    return Edge(subject=to_id(key.subject), predicate=to_id(key.predicate), object=to_id(key.object),
                derived_via=derive_label(key.derived_via, to_id))


@dataclass
class StatementData:
    """What statements carry beyond their triple, read for many statements at once."""

    rows: dict[str, list[StatementRow]] = field(default_factory=dict)
    """Statement IRI -> (predicate, value, the reference a reference value belongs to)."""
    nodes: dict[str, dict[str, Term]] = field(default_factory=dict)
    """Value node IRI -> its fields (typed values: `Profile.value_node_predicate`)."""

    @classmethod
    def read(
        cls, ctx: GraphContext, statements: Sequence[str], *, blank: Sequence[tuple[str, str, str]] = (),
        with_bookkeeping: bool = False, rows: Iterable[Sequence[Term | None]] | None = None,
    ) -> StatementData:
        """The data of the statements named by IRI, and of the blank-node statements of the triples in `blank`
        (a query cannot name a blank node: they are found by their triple). `rows`: their rows, read already."""
        found: dict[str, list[StatementRow]] = defaultdict(list)
        hidden = frozenset() if with_bookkeeping else bookkeeping(ctx)
        value_nodes: set[str] = set()
        reads = [("statement_data", {"ids": iris(chunk)}) for chunk in _chunks(statements)]
        reads += [("blank_statement_data", {"triples": triples(blank[i:i + 500])}) for i in range(0, len(blank), 500)]
        for r, p, v, *group in (row for query, slots in reads for row in ctx.select(query, **slots)) if rows is None else rows:
            if v is None or str(p) in hidden:
                continue
            reference = str(group[0]) if group and group[0] is not None else None
            found[line_text(r) if isinstance(r, Blank) else str(r)].append((str(p), v, reference))
            if ctx.profile.value_node_predicate(str(p)) and isinstance(v, str):
                value_nodes.add(v)
        nodes: dict[str, dict[str, Term]] = defaultdict(dict)
        for chunk in _chunks(sorted(value_nodes)):
            for n, f, v in ctx.select("value_nodes", ids=iris(chunk)):
                if v is not None:
                    nodes[str(n)][str(f)] = v
        return cls(found, nodes)


_BOUNDS: tuple[tuple[typing.Literal["start", "end"], str], ...] = (("start", "valid_from"), ("end", "valid_until"))
"""An edge's validity bounds, and the fields stating them."""


def full_edge(ctx: GraphContext, key: EdgeKey, hit: Hit, data: StatementData, *, valid_at: Point | None = None) -> Edge:
    """`valid_at`: the call's, to mark the bounds a statement kept as in force does not state."""
    to_id = ctx.ids.to_id
    fields = _fields(ctx, key, hit, data)
    return Edge(
        subject=to_id(key.subject), predicate=to_id(key.predicate), object=to_id(key.object),
        derived_via=derive_label(key.derived_via, to_id),
        id=to_id(key.statement) if key.statement else None,
        open_bounds=([bound for bound, name in _BOUNDS if name not in fields] or None) if valid_at is not None else None,
        **fields,
    )


@overload
def derive_label(derived_via: str, to_id: Callable[[str], str]) -> str: ...
@overload
def derive_label(derived_via: None, to_id: Callable[[str], str]) -> None: ...
def derive_label(derived_via: str | None, to_id: Callable[[str], str]) -> str | None:
    """`Inverse(<iri>)` as `Inverse(prefix:local)`."""
    if derived_via is None:
        return None
    kind, iri = derived_via[:-1].split("(", 1)
    return f"{kind}({to_id(iri)})"



LANGUAGES_TOLD = 8
"""Languages an entity has more text in that `other_languages` names; the rest are counted."""


def _languages_told(languages: set[str]) -> list[str] | None:
    """The languages a node's text was left out in, `LANGUAGES_TOLD` by name, then a count."""
    told = sorted(languages)
    if len(told) > LANGUAGES_TOLD:
        told = [*told[:LANGUAGES_TOLD], f"+{len(told) - LANGUAGES_TOLD} more"]
    return told or None


def _language_ok(term: Term, languages: Sequence[str]) -> bool:
    """An alias is shown when it has no language or one of the wanted ones."""
    if not isinstance(term, Literal) or not term.language:
        return True
    return any(language_matches(term.language, wanted) for wanted in languages)


def _pick(named: dict[str, list[Term]], predicates: Sequence[str], languages: Sequence[str]) -> Literal | None:
    """The text of the first of `predicates` the values (by predicate) have, in the first
    of `languages` it has (`pick_literal`)."""
    for predicate in predicates:
        candidates = named.get(predicate)
        if candidates:
            return pick_literal(candidates, languages) or Literal(text_of(candidates[0]))
    return None


def _chunks(items: Sequence[str], size: int = 2000) -> Iterable[Sequence[str]]:
    """IRIs in slices for VALUES blocks, those no query can name left out (`sparql.writable`)."""
    items = writable(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]
