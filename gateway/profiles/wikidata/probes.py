"""Graphs too large to count: what describe_schema and name resolution read instead.

The wikidata profile is `bounded` when reading the whole graph is out of the question: a
remote endpoint unless configured otherwise (`WikidataProfile.counts`). The public
query service stops every query at 60 s; counting Wikidata's statements per predicate,
or reading every label into a search index, takes far longer. So on a bounded graph no
query the gateway sends reads the whole graph:

- **statistics** (describe_schema): the profile's known vocabulary (`vocab/wikidata.json`:
  common edge predicates and classes) and the ranks, probed by one query of LIMITed
  subqueries (`queries/wikidata/probe_counts.rq`): a term the graph uses is listed, its
  count read up to `COUNT_CAP`. `estimates` says which numbers are bounded and how; what
  only a scan could tell (which types a predicate connects, the valid_at range, the
  named graphs) is left out and said so.
- **names** of predicates and types in filters: an ID (`wdt:P69`, `P69`, `wd:Q5`, `Q5`)
  is checked by one LIMIT 1 probe; a label ("educated at", "human") is looked up by
  exact label, in the known vocabulary, then on the endpoint (`term_labels.rq`: index
  lookups); hints for unknown names come from the known vocabulary.
- **search** is the service's own entity search or an exact label lookup
  (`gateway.profiles.mwapi`, `gateway.profiles.wikidata.search`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from gateway.authorities import by_wikidata_property
from gateway.ids import load_prefix_records
from gateway.profiles.base import Profile
from gateway.profiles.graph import Graph
from gateway.profiles.statistics import Estimates, Statistics
from gateway.profiles.wikidata.terms import WD, WDT, WIKIBASE, claim_predicate
from gateway.resources import resource_dir
from gateway.sparql import fragment, integer, iri, joined, tagged, union
from gateway.terms import BFS, Literal

COUNT_CAP = 1000
"""Each probe reads at most this many triples: a count of COUNT_CAP means at least that many."""
LABEL_MATCHES = 50
"""Entities one label lookup may return (a label shared by more is ambiguous anyway)."""
ONTOLEX = "http://www.w3.org/ns/lemon/ontolex#"
KINDS = (WIKIBASE + "Property", ONTOLEX + "LexicalEntry", ONTOLEX + "Form", ONTOLEX + "LexicalSense")
"""Entity kinds typed by rdf:type rather than wdt:P31 (type_counts.rq counts them too)."""
RANKS = (WIKIBASE + "PreferredRank", WIKIBASE + "NormalRank", WIKIBASE + "DeprecatedRank")
_ID = re.compile(r"^([PpQq])([1-9][0-9]*)$")


@dataclass(frozen=True)
class KnownVocabulary:
    """What the profile knows of Wikidata without asking: common terms and their English labels."""

    predicates: dict[str, str]
    """Direct predicate IRI (wdt:P69) -> label."""
    types: dict[str, str]
    """Class IRI (wd:Q5) -> label."""


@cache
def known_vocabulary() -> KnownVocabulary:
    """`vocab/wikidata.json`: the edge predicates and classes describe_schema probes."""
    data = json.loads((resource_dir("vocab") / "wikidata.json").read_text(encoding="utf-8"))
    return KnownVocabulary(
        predicates={WDT + key: label for key, label in data["predicates"].items()},
        types={WD + key: label for key, label in data["types"].items()},
    )


# -- probes -----------------------------------------------------------------------------------
def probe(profile: Profile, terms: Iterable[tuple[str, str]], limit: int) -> dict[str, int]:
    """Triples per term, each counted up to `limit`, by one query; a term the graph does not
    use is absent. `terms` are (kind, IRI): "claim" (a direct predicate wdt:P, whose
    statements are counted), "type" (a class), "kind" (one of `KINDS`), "rank"."""
    fragments = []
    for flag, term in terms:
        slots = {"term": iri(term), "limit": integer(limit)}
        if flag == "claim":
            slots["claim"] = iri(claim_predicate(term) or term)
        fragments.append(fragment("wikidata/probe", [flag], **slots))
    if not fragments:
        return {}
    rows = profile.select("probe_counts", probes=union(fragments))
    return {str(t): int(n.value) for t, n in rows if isinstance(t, str) and isinstance(n, Literal)}


def probed_statistics(profile: Profile, deprecated_status: str) -> Statistics:
    """The statistics describe_schema shows for a bounded graph: probes, not counts."""
    known = known_vocabulary()
    linked = linked_authorities()
    terms = [("claim", p) for p in known.predicates] + [("type", t) for t in known.types]
    terms += [("kind", k) for k in KINDS] + [("rank", r) for r in RANKS]
    terms += [("claim", p) for p in sorted(linked) if p not in known.predicates]
    found = probe(profile, terms, COUNT_CAP)
    authorities: dict[str, int] = {}
    for p, prefix in linked.items():
        if found.get(p):
            authorities[prefix] = min(COUNT_CAP, authorities.get(prefix, 0) + found[p])
    statuses: dict[str, int] = {}
    for rank in RANKS:
        if found.get(rank):
            status = deprecated_status if rank.endswith("DeprecatedRank") else "asserted_true"
            statuses[status] = statuses.get(status, 0) + found[rank]
    total = sum(statuses.values())
    return Statistics(
        predicates={p: found[p] for p in known.predicates if found.get(p)},
        types={t: found[t] for t in (*known.types, *KINDS) if found.get(t)},
        statuses=dict(sorted(statuses.items())), total=total, reified=total, plain=0, unasserted=0,
        without_asserted_at=total, connects={}, schema_predicates={}, term_types={}, unused_terms={}, blank_values={},
        type_literals={}, authorities=dict(sorted(authorities.items())),
    )


@cache
def linked_authorities() -> dict[str, str]:
    """Direct predicate (wdt:P486) -> the authority whose IDs its values are, for the
    authorities of the project's prefix map (vocab/prefixes.json): those a bounded
    describe_schema counts, each by one more probe of the same query."""
    project = {str(record["prefix"]) for record in load_prefix_records()}
    return {WDT + p: a.prefix for p, a in by_wikidata_property().items() if a.prefix in project}


def probed_estimates() -> Estimates:
    """What describe_schema's numbers are on a bounded graph, field by field; the known
    vocabulary's labels (an endpoint may hold no property entities to read them from)."""
    cap = f"{COUNT_CAP:,}"
    known = known_vocabulary()
    fields = {
        "predicates": f"the common predicates of vocab/wikidata.json this graph uses, not all of them (any wdt:P "
                      f"of an entity-valued property walks); counts stop at {cap}: {cap} means at least {cap}",
        "entity_types": f"the common classes of vocab/wikidata.json this graph uses; counts stop at {cap}",
        "truth_statuses": f"statements per rank, each rank counted up to {cap}",
        "statements": "the truth-status counts added up: lower bounds",
        "connects": "not read (it takes every statement)",
        "valid_at_range": "not read (it takes every pq:P580/P582/P585 qualifier)",
        "named_graphs": "only the graphs the gateway is configured to read",
        "authorities": f"the authorities of the project's prefix map (vocab/prefixes.json) that have a Wikidata "
                       f"property, each counted by its claims up to {cap}; no other link is read",
    }
    return Estimates(fields, {**known.predicates, **known.types},
                     "a Wikidata-style graph too large to count; its numbers here are bounded (see estimates)")


# -- names -------------------------------------------------------------------------------------
def probed_terms(
    graph: Graph, profile: Profile, names: Sequence[str], field: str, *, kind: str, warnings: list[str],
) -> set[str]:
    """IRIs of predicate or type names, each checked by a bounded probe; names not in the
    graph become warnings, as `gateway.engine.names.resolve_terms` makes them."""
    vocabulary = _vocabulary(kind)
    notes: dict[int, str] = {}
    wanted, labelled = _ids(graph, names, field, kind, notes)
    by_label = _by_label(graph, profile, [name for _, name in labelled], kind, vocabulary)
    for i, name in labelled:
        options = by_label.get(name, [])
        if len(options) == 1:
            wanted[i] = options[0]
        elif options:
            choices = ", ".join(graph.ids.to_id(o) for o in options[:5])
            notes[i] = f"{field}[{i}]: {_quoted(name)}: several {kind}s have this label: {choices}"
    probes = sorted({(how, w) for w in wanted.values() if (how := _probe_kind(w, kind)) is not None})
    present = set(probe(profile, probes, 1))
    resolved: set[str] = set()
    for i, name in enumerate(names):
        term = wanted.get(i)
        where = f"{field}[{i}]"
        if term is not None and term == WDT + "P31" and kind == "predicate":
            notes[i] = (f"{where}: {_quoted(name)}: wdt:P31 (instance of) is the entity type here, not a relationship; "
                        "name its values in node_filter.entity_types or node_types")
        elif term is not None and (term in present or (kind == "type" and term == BFS + "Statement")):
            resolved.add(term)
            if (i, name) in labelled:
                notes[i] = f"{where}: {_quoted(name)} is {graph.ids.to_id(term)} (by its label)"
        elif i not in notes:
            notes[i] = f"{where}: {_quoted(name)}: no such {kind} in this graph{_hint(graph, name, vocabulary)}"
    warnings.extend(notes[i] for i in sorted(notes))
    return resolved


def _vocabulary(kind: str) -> dict[str, str]:
    known = known_vocabulary()
    return known.predicates if kind == "predicate" else known.types


def _ids(
    graph: Graph, names: Sequence[str], field: str, kind: str, notes: dict[int, str],
) -> tuple[dict[int, str], list[tuple[int, str]]]:
    """The names written as IDs (by position), and those to look up as labels; a name written
    as no ID of this graph is told in `notes`."""
    wanted: dict[int, str] = {}
    labelled: list[tuple[int, str]] = []
    for i, name in enumerate(names):
        found, reason = _id_of(graph, name, f"{field}[{i}]", kind)
        if found is not None:
            wanted[i] = found
        elif reason is not None:
            notes[i] = f"{field}[{i}]: {_quoted(name)}: {reason}{_hint(graph, name, _vocabulary(kind))}"
        else:
            labelled.append((i, name))
    return wanted, labelled


def _id_of(graph: Graph, name: str, where: str, kind: str) -> tuple[str | None, str | None]:
    """(the IRI a name is the ID of: a CURIE, an IRI, or Wikidata's bare P69 / Q5; why a
    name written as an ID is none, such as an unknown prefix); both None for a label."""
    resolution = graph.ids.resolve(name, where, allow_local_name=True)
    if resolution.iri is not None or resolution.reason is not None:
        return resolution.iri, resolution.reason
    match = _ID.match(name.strip())
    if match is None:
        return None, None
    letter, number = match.group(1).upper(), match.group(2)
    if kind == "predicate":
        return (WDT + f"P{number}", None) if letter == "P" else (None, f"{name.strip()} is an item, not a property")
    return WD + f"{letter}{number}", None


def _probe_kind(term: str, kind: str) -> str | None:
    """How to probe for a term: None when it is no term of that kind in this profile."""
    if kind == "predicate":
        return "claim" if term.startswith(WDT) and term != WDT + "P31" else None
    if term in KINDS:
        return "kind"
    return "type" if term.startswith(WD) else None


def _by_label(
    graph: Graph, profile: Profile, names: list[str], kind: str, vocabulary: dict[str, str],
) -> dict[str, list[str]]:
    """Name -> IRIs whose label it is: the known vocabulary's, else the endpoint's (exact
    label in the configured language or "mul", as written or in lower case)."""
    found: dict[str, list[str]] = {}
    by_folded: dict[str, list[str]] = {}
    for known, title in vocabulary.items():
        by_folded.setdefault(title.casefold(), []).append(known)
    asked: dict[str, str] = {}
    for name in names:
        text = " ".join(name.split())
        if by_folded.get(text.casefold()):
            found[name] = sorted(by_folded[text.casefold()])
            continue
        for spelling in dict.fromkeys((text, text.lower())):
            if spelling:
                asked.setdefault(spelling, name)
    if not asked:
        return found
    languages = dict.fromkeys((graph.settings.language, "mul"))
    texts = joined(tagged(spelling, language) for spelling in asked for language in languages)
    flag = "predicates" if kind == "predicate" else "types"
    rows = profile.select("term_labels", [flag], texts=texts, limit=integer(LABEL_MATCHES))
    for label, match in rows:
        if isinstance(label, Literal) and isinstance(match, str) and label.value in asked:
            terms = found.setdefault(asked[label.value], [])
            if match not in terms:
                terms.append(match)
    return {name: sorted(terms) for name, terms in found.items()}


def _hint(graph: Graph, name: str, vocabulary: dict[str, str]) -> str:
    """Known terms whose ID or label looks like the name ("did you mean"), no query asked."""
    options: dict[str, str] = {}
    for term, label in vocabulary.items():
        curie = graph.ids.to_id(term)
        options.setdefault(curie.casefold(), curie)
        options.setdefault(curie.split(":")[-1].casefold(), curie)
        options.setdefault(label.casefold(), f"{curie} ({label})")
    text = name.split(":")[-1].replace("_", " ").casefold()
    close = difflib.get_close_matches(text, list(options), n=3, cutoff=0.6)
    picks = list(dict.fromkeys(options[c] for c in close))
    return f"; did you mean {', '.join(picks)}?" if picks else ""


def _quoted(text: str) -> str:
    """A caller's text in a message, as `gateway.engine.context.quoted` writes it."""
    return repr(text if len(text) <= 80 else text[:77] + "...")
