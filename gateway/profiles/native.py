"""The native profile: statements as RDF 1.2 reifiers, plain triples as asserted_true.

    s p o ~ r {| bfs:truthStatus ... |} .      asserted: base triple and reifier
    << s p o ~ r >> bfs:truthStatus ... .      unasserted: reifier only
    s p o .                                    plain: asserted_true, no provenance

A reifier without a status is asserted_true when its triple is asserted and
hypothetical when it is not. Nothing in the store indexes the inside of a triple
term, so unasserted statements are read once, when the profile first needs them, and
kept in memory keyed by subject and object; the rest is one query per hop.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cached_property
from typing import TypeVar

from gateway.backends.base import LINES, WRITTEN
from gateway.profiles.base import (
    NON_EDGE_PREDICATES,
    NON_EDGES,
    NOTHING,
    VIAS,
    Hit,
    HopPlan,
    Profile,
    StatementHops,
    Traits,
    TwoHops,
    Via,
    shared_types,
    time_filters,
)
from gateway.sparql import Sparql, integer, iri, iris, joined, literal, writable
from gateway.terms import BFS, bare_lines, is_written_iri, namespace, status_name, text_of

T = TypeVar("T")

_FILTER_NAMES = {"t": "truth_status", "a": "as_of", "v": "valid_at"}
"""hop.rq's `?fails` letters (native's writes only the time filters' letters: a row's status
says whether it passes truth_status)."""
_FAILED: dict[str, tuple[str, ...]] = {}
"""`?fails` values -> the filter names they list (a few combinations)."""
_STATUS_NAMES: dict[str, str] = {}
"""Truth status IRIs a hop read -> their names (a statement's status is one of a few terms)."""
_TRUE = ("true", "1", "")
"""exists.rq's ?own as text where the IRI has data of its own (unbound: not asked)."""
_NAMES_KEPT = 64
"""Entries each of those caches keeps: a store's odd values are named, not kept."""


class NativeProfile(Profile):
    name = "native"
    queries = "native"

    # -- what the graph holds ----------------------------------------------------------
    @cached_property
    def has_reifiers(self) -> bool:
        rows = self.select("has_reifiers")
        return bool(rows)

    def statement_candidates(self, nodes: Sequence[str]) -> list[str]:
        if not self.has_reifiers:
            return []
        spaces = self._reifier_namespaces
        if spaces is None:
            return list(nodes)
        starts = tuple(spaces)  # in C, before the exact test: a frontier is thousands of nodes
        return [n for n in nodes if n.startswith(starts) and namespace(n) in spaces]

    @cached_property
    def _reifier_namespaces(self) -> frozenset[str] | None:
        """Where the reifiers' IRIs live: a node elsewhere is no statement (None: unknown,
        every node may be one)."""
        if self.queries != "native":
            return None
        scan = self.backend.capabilities.reifier_scan
        found = scan.namespaces() if scan is not None else None
        return found if found is not None else frozenset(text_of(row[0]) for row in self.select("reifier_namespaces"))

    @cached_property
    def _used_non_edges(self) -> list[str]:
        """The non-edge predicates (`NON_EDGE_PREDICATES`) this graph holds."""
        return sorted(str(row[0]) for row in self.select("used_predicates", predicate_values=iris(NON_EDGE_PREDICATES)))

    @cached_property
    def _unasserted(self) -> tuple[dict[str, list[Hit]], dict[str, list[Hit]]]:
        """Reifier-only statements by subject and by object (as `Hit`s with via unset)."""
        by_subject: dict[str, list[Hit]] = defaultdict(list)
        by_object: dict[str, list[Hit]] = defaultdict(list)
        if not self.has_reifiers:
            return by_subject, by_object
        scan = self.backend.capabilities.reifier_scan if self.queries == "native" else None
        rows = scan.unasserted() if scan is not None else None
        if rows is None:
            rows = self.select("unasserted")
        seen: set[str] = set()
        for r, s, p, o, ts, at, vf, vu in rows:
            if not isinstance(p, str) or p in NON_EDGES or r in seen:
                continue  # a reifier in several graphs, or with several statuses: its first row
            seen.add(str(r))
            status = status_name(ts) if ts is not None else "hypothetical"
            hit = Hit("", "", str(s), p, str(o), str(r), status, at, vf, vu)
            by_subject[hit.s].append(hit)
            by_object[hit.o].append(hit)
        return dict(by_subject), dict(by_object)

    def unasserted(self) -> list[Hit]:
        """Every reifier-only statement."""
        return [h for hits in self._unasserted[0].values() for h in hits]

    def predicate_probe(self) -> Callable[[str], bool] | None:
        return self._predicate_used

    def _predicate_used(self, predicate: str) -> bool:
        """One probe (predicate_exists.rq), or the reifier-only statements read already."""
        if self.has_reifiers and predicate in self._unasserted_predicates:
            return True
        return bool(self.select("predicate_exists", ["reified"] if self.has_reifiers else [], predicate=iri(predicate)))

    @cached_property
    def _unasserted_predicates(self) -> frozenset[str]:
        return frozenset(h.p for h in self.unasserted())

    def traits(self) -> Traits:
        return self._traits

    @cached_property
    def _traits(self) -> Traits:
        rows = self.select("traits")
        symmetric: set[str] = set()
        transitive: set[str] = set()
        inverses: dict[str, str] = {}
        for kind, p, q in rows:
            if not isinstance(p, str):
                continue
            if text_of(kind) == "symmetric":
                symmetric.add(p)
            elif text_of(kind) == "transitive":
                transitive.add(p)
            elif isinstance(q, str):
                inverses.setdefault(p, q)
                inverses.setdefault(q, p)
        return Traits(frozenset(symmetric), frozenset(transitive), inverses)

    def can_hide(self, plan: HopPlan) -> bool:
        return self._statement_aware(plan)

    def _statement_aware(self, plan: HopPlan) -> bool:
        """Whether hops must read statements; a plain graph under the default filter need not."""
        return self.has_reifiers or "asserted_true" not in plan.truth_status

    def existing(self, iris_: Sequence[str], plan: HopPlan) -> set[str]:
        return set(self.held(iris_, plan, ()))

    def held(self, iris_: Sequence[str], plan: HopPlan, identity: Sequence[str]) -> dict[str, bool]:
        if not iris_:
            return {}
        flags, slots = (["own"], {"identity": iris(identity, ", ")}) if identity else ([], {})
        found = {str(row[0]): not identity or text_of(row[1]) in ("true", "1") for row in self.select(
            "exists", flags, ids=iris(iris_), **slots)}
        return self._held_also_unasserted(found, iris_)

    def _held_also_unasserted(self, found: dict[str, bool], iris_: Sequence[str]) -> dict[str, bool]:
        """exists.rq's answer (`found`) with the IRIs only reifier-only statements hold."""
        by_subject, by_object = self._unasserted
        for i in iris_:
            if i in by_subject or i in by_object:
                found[i] = found.get(i, False) or i in by_subject
        return found

    # -- one hop -----------------------------------------------------------------------
    def hop(self, frontier: Sequence[str], plan: HopPlan, limit: int) -> tuple[list[Hit], bool]:
        if not self._statement_aware(plan):
            return self._plain_hop(frontier, plan, limit)
        rows = self._select_hop(frontier, plan, limit, mode="traversable")
        hits = self._hits(rows, plan)
        hits.extend(self._unasserted_hits(frontier, plan, failed=False))
        return hits, len(rows) >= limit

    def hop_and_hidden(
        self, frontier: Sequence[str], plan: HopPlan, limit: int, cap: int
    ) -> tuple[list[Hit], bool, list[Hit]]:
        """One query for both: the hop's rows unfiltered, split by their filter flags. The
        hidden count used to re-run the hop's LATERAL join (a quarter of a walk's query
        time). Only when the shared LIMIT cut the rows is the side it may have cut short
        asked on its own."""
        if not self._statement_aware(plan):
            hits, more = self._plain_hop(frontier, plan, limit)
            return hits, more, []
        rows = self._select_hop(frontier, plan, limit + cap, mode="every")
        passed = _passed(plan)
        crossed = [row for row in rows if row.endswith(passed)]
        failed = [row for row in rows if not row.endswith(passed)]
        if len(rows) >= limit + cap:  # cut: read on its own whichever side may be incomplete
            if len(crossed) < limit:
                crossed = self._select_hop(frontier, plan, limit, mode="traversable")
            if len(failed) < cap:
                failed = self._select_hop(frontier, plan, cap, mode="hidden")
        return self._split_hop(crossed, failed, frontier, plan, limit, cap)

    def hop_rows(
        self, rows: list[str], frontier: Sequence[str], plan: HopPlan, limit: int, cap: int, *, hidden: bool = True,
    ) -> tuple[list[Hit], bool, list[Hit]] | None:
        """`hop_and_hidden` (without `hidden`: `hop`, and no hidden statements) from the rows
        hop.rq read of `frontier` in "every" mode with a LIMIT of at least `limit + cap`
        (`two_hop_statements`); None where the rows do not say what those would read (as
        many rows as that, or without `hidden` as many traversable ones as `limit`)."""
        if len(rows) >= limit + cap:
            return None
        passed = _passed(plan)
        crossed = [row for row in rows if row.endswith(passed)]
        if not hidden:
            if len(crossed) >= limit:
                return None
            hits = self._hits(crossed, plan)
            hits.extend(self._unasserted_hits(frontier, plan, failed=False))
            return hits, False, []
        failed = [row for row in rows if not row.endswith(passed)]
        return self._split_hop(crossed, failed, frontier, plan, limit, cap)

    def _split_hop(
        self, crossed: list[str], failed: list[str], frontier: Sequence[str], plan: HopPlan, limit: int, cap: int,
    ) -> tuple[list[Hit], bool, list[Hit]]:
        more = len(crossed) >= limit
        hits = self._hits(crossed[:limit], plan)
        hits.extend(self._unasserted_hits(frontier, plan, failed=False))
        hidden = self._hits(failed[:cap], plan)
        hidden.extend(self._unasserted_hits(frontier, plan, failed=True, cap=cap))
        return hits, more, hidden

    def hop_lines(self, frontier: Sequence[str], plan: HopPlan, limit: int) -> tuple[list[str], bool] | None:
        if self._statement_aware(plan) or plan.mirror_predicates:
            return None
        lines = self.backend.select(self._plain_query(frontier, plan, limit), LINES)
        return lines, len(lines) >= limit

    def reached_types(
        self, frontier: Sequence[str], plan: HopPlan, limit: int, reached: Collection[str],
    ) -> list[str] | None:
        if plan.mirror_predicates or (self._statement_aware(plan) and self.queries != "native"):
            return None  # statements of another model are joined by no plain triple
        # A node only reifier-only statements reach holds no triple the join reads: typed by
        # IRI, those the walk holds only (a seed may have many more the filters hid).
        by_subject, by_object = self._unasserted
        also = [n for n in dict.fromkeys([*(h.o for x in frontier for h in by_subject.get(x, ())),
                                          *(h.s for x in frontier for h in by_object.get(x, ()))]) if n in reached]
        typed = writable(list(dict.fromkeys([*frontier, *also])))
        limit += 8 * len(also)
        flags = [*self._direction_flags(plan), "types"]
        slots = {"frontier": iris(frontier), "typed": iris(typed), "limit": integer(limit)}
        self._plain_filters(plan, flags, slots)
        written = self.backend.select(self.render("hop_plain", flags, **slots), WRITTEN)
        return written if len(written) < limit else None

    def two_hop_lines(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> TwoHops | None:
        if self._statement_aware(plan) or plan.mirror_predicates:
            return None
        second_limit, types_limit = 2 * limit, 4 * nodes
        flags = self._direction_flags(plan) + ["types"] * types + ["held"] * bool(held)
        slots = {"seeds": iris(seeds), "seed_list": iris(seeds, ", "), "nodes": integer(nodes),
                 "first_limit": integer(limit), "second_limit": integer(second_limit),
                 "types_limit": integer(types_limit), "exists_query": self._exists_query(held, identity)}
        self._plain_filters(plan, flags, slots)
        # Read as TSV writes the rows: the types that are not IRIs are left out here, where
        # isIRI costs the store a fifth of the types' time.
        as_written = self.backend.select(self.render("two_hops", flags, **slots), WRITTEN)
        rows = bare_lines(as_written)
        first: list[str] = []
        second: list[str] = []
        found: dict[str, list[str]] = defaultdict(list)
        typings = 0
        exist: dict[str, bool] = {}
        for row, row_written in zip(rows, as_written):
            tag, _, line = row.partition("\t")
            if tag == "1":
                first.append(line)
            elif tag == "2":
                second.append(line)
            elif tag == "e":  # the IRI, whether it has data of its own, two empty fields
                node, own, _ = line.split("\t", 2)
                exist[node] = own in _TRUE
            else:  # "t": the node, its type, two empty fields
                node, kind, _ = line.split("\t", 2)
                typings += 1
                if not is_written_iri(row_written.split("\t", 3)[2]):
                    continue  # a blank node, a literal or a triple term
                if kind not in found[node]:  # a node reached by both hops is typed by both
                    found[node].append(kind)
        return TwoHops(first, len(first) >= limit, second, shared_types(found),
                       len(second) < second_limit and typings < types_limit,
                       self._held_also_unasserted(exist, held) if held else None)

    def two_hop_statements(
        self, seeds: Sequence[str], plan: HopPlan, *, limit: int, cap: int, nodes: int, types: bool,
        held: Sequence[str] = (), identity: Sequence[str] = (),
    ) -> StatementHops | None:
        if not self._statement_aware(plan) or plan.mirror_predicates:
            return None
        extra = sorted({h.o if h.via == "o" else h.s for h in self._unasserted_hits(seeds, plan, failed=False)})
        read = limit + cap
        seed_iris = iris(seeds)
        frontier = self._ends(self._hop_query(seed_iris, plan, read, mode="traversable",
                                              statements=bool(self.statement_candidates(seeds))),
                              plan, nodes, seeds=seeds, extra=extra)
        # A node the first hop reached may be a statement: the second hop reads it as one.
        second = self._hop_query(frontier, plan, read, mode="every", statements=True, nested=True)
        reached = self._ends(self._hop_query(frontier, plan, read, mode="traversable", statements=True, nested=True),
                             plan, nodes)
        flags = ["types"] * types + ["held"] * bool(held)
        types_limit = 4 * nodes
        query = self.render(
            "two_hop_statements", flags, seeds=seed_iris, nodes=integer(nodes), types_limit=integer(types_limit),
            first_hop=Sparql(_subquery(self._hop_query(seed_iris, plan, read, mode="every",
                                                       statements=bool(self.statement_candidates(seeds))))),
            second_hop=Sparql(_subquery(second)), frontier_nodes=frontier, reached_nodes=reached,
            exists_query=self._exists_query(held, identity),
        )
        rows = _TwoHopRows.read(self.backend.select(query, WRITTEN))
        ends = (_row_ends(rows.first, plan) | set(extra)) - set(seeds)
        complete = len(rows.second) < read and len(ends) < nodes
        typed = {*seeds, *ends, *_row_ends(rows.second, plan)}
        typed_whole = types and complete and rows.typings < types_limit and len(typed) < nodes
        found = self._held_also_unasserted(rows.held, held) if held else None
        return StatementHops(rows.first, rows.second, frozenset(ends), complete, shared_types(rows.types),
                             frozenset(typed) if typed_whole else frozenset(), found)

    def _exists_query(self, held: Sequence[str], identity: Sequence[str]) -> Sparql:
        """exists.rq (with "own" where `identity` names the identity links) as a subquery."""
        return Sparql(self.render("exists", ["own"] * bool(identity), ids=iris(held), identity=iris(identity, ", ")))

    def _ends(self, hop: str, plan: HopPlan, nodes: int, *, seeds: Sequence[str] = (), extra: Sequence[str] = ()) -> Sparql:
        """hop_ends.rq over a hop query, as a group pattern binding ?x."""
        flags = ["seeds"] * bool(seeds) + ["extra"] * bool(extra)
        slots: dict[str, Sparql] = {"hop": Sparql(_subquery(hop)), "nodes": integer(nodes), "seed_list": iris(seeds, ", "),
                                    "extra": iris(extra)}
        non_edges = sorted(plan.non_edges.intersection(self._used_non_edges))
        if non_edges:
            flags.append("non_edges")
            slots["non_edges"] = iris(non_edges, ", ")
        return Sparql("{ " + self.render("hop_ends", flags, **slots) + " }")

    def _plain_hop(self, frontier: Sequence[str], plan: HopPlan, limit: int) -> tuple[list[Hit], bool]:
        """Every edge of a plain graph is an asserted_true statement without provenance."""
        edges: list[tuple[Via, str, str, str]]
        if plan.mirror_predicates:  # a mirror needs to know which end the frontier node is
            rows = self.backend.select(self._plain_query(frontier, plan, limit, traits=True))[1]
            edges = [(VIAS[text_of(d)], str(s), str(p), str(o)) for _, s, p, o, d in rows]
        else:
            lines = self.backend.select(self._plain_query(frontier, plan, limit), LINES)
            split = [line.split("\t") for line in lines]
            # Without mirrors the rows come from the plan's own directions; a self-loop
            # reads the same either way.
            edges = [("o" if plan.out and n == o else "i", s, p, o) for n, s, p, o in split]
        hits = [Hit(d, s if d == "o" else o, s, p, o, None, "asserted_true") for d, s, p, o in edges]
        return hits, len(edges) >= limit

    def _plain_query(self, frontier: Sequence[str], plan: HopPlan, limit: int, *, traits: bool = False) -> str:
        flags = [*self._direction_flags(plan), "traits"] if traits else self._direction_flags(plan)
        slots = {"frontier": iris(frontier), "trait_predicates": iris(plan.mirror_predicates, ", "), "limit": integer(limit)}
        self._plain_filters(plan, flags, slots)
        return self.render("hop_plain", flags, **slots)

    def _plain_filters(self, plan: HopPlan, flags: list[str], slots: dict[str, Sparql]) -> None:
        """The plain hop templates' predicate filters: the plan's, and the predicates that are
        not relationships (rdf:type, ...) the graph uses."""
        _predicate_filters(plan, flags, slots)
        if self._used_non_edges and not plan.predicates:  # named predicates are filtered for already
            flags.append("non_edges")
            slots["non_edges"] = iris(self._used_non_edges, ", ")

    @staticmethod
    def _direction_flags(plan: HopPlan) -> list[str]:
        traits = bool(plan.mirror_predicates)
        return [
            "out" if plan.out else "out_traits" if traits else "",
            "in" if plan.inward else "in_traits" if traits else "",
        ]

    def hidden(self, frontier: Sequence[str], plan: HopPlan, cap: int) -> list[Hit]:
        if not self._statement_aware(plan):
            return []
        hits = self._hits(self._select_hop(frontier, plan, cap, mode="hidden"), plan)
        hits.extend(self._unasserted_hits(frontier, plan, failed=True, cap=cap))
        return hits

    def _select_hop(self, frontier: Sequence[str], plan: HopPlan, limit: int, *, mode: str) -> list[str]:
        """hop.rq's rows as tab-joined text (`LINES`; split as they become
        `Hit`s, no list kept per row): d s p o r status fails ("" for no reifier; `fails`
        one letter per time filter the statement fails, and in wikidata's template "t"
        where its status fails truth_status)."""
        # A frontier node may be a statement: read it as one.
        query = self._hop_query(iris(frontier), plan, limit, mode=mode, statements=bool(self.statement_candidates(frontier)))
        return self.backend.select(query, LINES)

    def _hop_query(
        self, frontier: Sparql, plan: HopPlan, limit: int, *, mode: str, statements: bool, nested: bool = False,
    ) -> str:
        """hop.rq over `frontier`: IRIs, or (`nested`) a pattern binding ?x."""
        flags = [mode, "reified", *self._direction_flags(plan)] + ["statements"] * statements + ["nested"] * nested
        slots: dict[str, Sparql] = {
            "frontier": frontier,
            "truth_texts": joined((literal(BFS + s) for s in sorted(plan.truth_status)), ", "),
            "trait_predicates": iris(plan.mirror_predicates, ", "),
            "limit": integer(limit),
        }
        _predicate_filters(plan, flags, slots)
        time_flags, time_slots = time_filters(plan)
        flags += time_flags + ["timed"] * bool(time_flags)
        slots.update(time_slots)
        return self.render("hop", flags, **slots)

    @staticmethod
    def _hits(rows: list[str], plan: HopPlan) -> list[Hit]:
        """The `Hit`s of hop.rq's rows, those of predicates the plan never crosses left out.

        The frontier node is not read: it is the subject ("o"), the object ("i") or the
        statement ("s") of its row, and a column less is a tenth less of a hop's time.
        Status and filter names come from small caches: a walk makes a Hit per row. Whether
        a row fails truth_status is read from its status's name (`_passed`), as Python
        judges a statement elsewhere (`HopPlan.failures`)."""
        skipped, truth = plan.non_edges, plan.truth_status
        hits: list[Hit] = []
        add = hits.append
        for row in rows:
            d, s, p, o, r, status, fails = row.split("\t")
            if p in skipped:
                continue
            name = _STATUS_NAMES.get(status) or _kept(_STATUS_NAMES, status, status_name(status))
            if name not in truth and not fails.startswith("t"):
                fails = "t" + fails
            failed = (_FAILED.get(fails) or _kept(_FAILED, fails, tuple(_FILTER_NAMES[c] for c in fails))) if fails else ()
            add(Hit(VIAS[d], s if d == "o" else o if d == "i" else r, s, p, o, r or None, name, None, None, None, failed))
        return hits

    def _unasserted_hits(self, frontier: Iterable[str], plan: HopPlan, *, failed: bool, cap: int | None = None) -> list[Hit]:
        """Reifier-only statements touching the frontier that pass the plan's filters, or
        (`failed`) those that fail one, with the filters they fail; at most `cap`."""
        by_subject, by_object = self._unasserted
        if not by_subject:
            return []
        mirrored = set(plan.mirror_predicates)
        hits = []
        sides: tuple[tuple[Via, dict[str, list[Hit]], bool], ...] = (
            ("o", by_subject, plan.out), ("i", by_object, plan.inward),
        )
        for x in frontier:
            for via, index, wanted in sides:
                for h in index.get(x, ()):
                    if not plan.walks(h.p):
                        continue
                    if not (wanted or h.p in mirrored):
                        continue
                    fails = plan.failures(h.status, h.asserted_at, h.valid_from, h.valid_until)
                    if bool(fails) != failed:
                        continue
                    hits.append(Hit(via, x, h.s, h.p, h.o, h.stmt, h.status, h.asserted_at, h.valid_from, h.valid_until, fails))
                    if cap is not None and len(hits) >= cap:
                        return hits
        return hits





def _subquery(query: str) -> str:
    """A query of this profile as a subquery of another: without its PREFIX lines (the
    outer query declares the same prefixes: rdf and bfs)."""
    return "\n".join(line for line in query.split("\n") if not line.startswith("PREFIX "))


def _passed(plan: HopPlan) -> tuple[str, ...]:
    """How a hop.rq row (`LINES`) of a statement that fails no filter ends: a status the plan
    crosses, no filter letter after it."""
    return tuple(f"\t{BFS}{status}\t" for status in plan.truth_status)


def _row_ends(rows: list[str], plan: HopPlan) -> set[str]:
    """The nodes hop.rq's traversable rows lead to, as hop_ends.rq reads them."""
    skipped, passed = plan.non_edges, _passed(plan)
    ends: set[str] = set()
    for row in rows:
        if not row.endswith(passed):
            continue
        d, s, p, o, _ = row.split("\t", 4)
        if p in skipped:
            continue
        if d != "i":
            ends.add(o)
        if d != "o":
            ends.add(s)
    return ends


class _TwoHopRows:
    """two_hop_statements.rq's rows, by what they hold."""

    def __init__(self) -> None:
        self.first: list[str] = []
        self.second: list[str] = []
        self.types: dict[str, list[str]] = defaultdict(list)
        self.typings = 0
        self.held: dict[str, bool] = {}

    @classmethod
    def read(cls, written: list[str]) -> _TwoHopRows:
        rows = cls()
        for row, row_written in zip(bare_lines(written), written):
            tag, line = row[:1], row[2:]
            if tag == "1":
                rows.first.append(line)
            elif tag == "2":
                rows.second.append(line)
            elif tag == "t":  # h d s p o ...: the node in ?s, its type in ?o
                rows.typings += 1
                fields = line.split("\t")
                kinds = rows.types[fields[1]]
                if is_written_iri(row_written.split("\t")[4]) and fields[3] not in kinds:
                    kinds.append(fields[3])  # not a blank node, a literal or a triple term; once each
            elif tag == "e":
                fields = line.split("\t")
                rows.held[fields[1]] = fields[3] in _TRUE
        return rows


def _predicate_filters(plan: HopPlan, flags: list[str], slots: dict[str, Sparql]) -> None:
    """The hop template's flags and slots for the plan's `predicates` and `excluded`."""
    if plan.predicates is not None:
        flags.append("predicates")
        slots["predicates"] = iris(plan.predicates or (NOTHING,), ", ")
    if plan.excluded:
        flags.append("excluded")
        slots["excluded"] = iris(plan.excluded, ", ")


def _kept(cache: dict[str, T], key: str, value: T) -> T:
    if len(cache) < _NAMES_KEPT:
        cache[key] = value
    return value
