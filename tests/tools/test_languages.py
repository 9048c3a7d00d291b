"""Labels keep their language: describe_entity(ies) and search hits say the language of a
label, description or synonym shown in another language than the reader's, show a label
in each language a call asks for, and name exactly the languages left out.

Oracles: Wikidata's own exports (Q42, Q513) read again with pyoxigraph, a SPARQL query
over the same file giving each entity's names by language; and generated graphs whose
expected labels are worked out here from the generated names.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend
from gateway.engine.presentation import ALT_LABELS, DESCRIPTIONS, LABELS, LANGUAGES_TOLD
from gateway.models import EntityDetail
from gateway.settings import Settings
from tests.conftest import DEMO, shared_data

KINDS = {"label": LABELS, "description": DESCRIPTIONS, "alt": ALT_LABELS}
FILES = {"Q42": ("Q42.ttl", False), "Q513": ("RdfRepositoryUpdaterIntegrationTest.Q513-munged.ttl", True)}
CHOICES: list[list[str] | None] = [None, ["sv"], ["de", "fr"], ["fr", "de", "sv"], ["mul"], ["zz"], ["en-gb", "de"],
                                   ["ja", "zh", "ru", "ar"]]


def matches(tag: str, wanted: str) -> bool:
    tag, wanted = tag.lower(), wanted.lower()
    return tag == wanted or tag.startswith(wanted + "-")


@dataclass
class Held:
    """One entity's names as the file holds them: kind -> {(text, language)} ("" for none)."""

    names: dict[str, set[tuple[str, str]]]

    def languages(self, kind: str) -> set[str]:
        return {language for _, language in self.names.get(kind, ()) if language}


def names_in(path: str, lenient: bool) -> dict[str, Held]:
    """Every entity's labels, descriptions and synonyms, by a SPARQL query over the file."""
    store = ox.Store()
    store.load(path=path, format=ox.RdfFormat.TURTLE, lenient=lenient)
    by_predicate = {p: kind for kind, predicates in KINDS.items() for p in predicates}
    values = " ".join(f"<{p}>" for p in by_predicate)
    held: dict[str, dict[str, set[tuple[str, str]]]] = defaultdict(lambda: defaultdict(set))
    rows = store.query(f"SELECT ?x ?p ?o (LANG(?o) AS ?lang) WHERE {{ VALUES ?p {{ {values} }} ?x ?p ?o "
                       "FILTER(isIRI(?x) && isLiteral(?o)) }")
    assert isinstance(rows, ox.QuerySolutions)
    for row in rows:
        held[row["x"].value][by_predicate[row["p"].value]].add((row["o"].value, row["lang"].value))
    return {x: Held(dict(kinds)) for x, kinds in held.items()}


def told(languages: set[str]) -> list[str] | None:
    """`other_languages` as an answer writes it: the first by name, then a count."""
    listed = sorted(languages)
    if len(listed) > LANGUAGES_TOLD:
        listed = [*listed[:LANGUAGES_TOLD], f"+{len(listed) - LANGUAGES_TOLD} more"]
    return listed or None


def check_text(kind: str, text: str | None, language: str | None, held: Held, reader: str) -> str | None:
    """A label or description shown: held in the file with the language the answer gives it
    (the reader's, or none, when it gives none), and in another only where the file has none
    in the reader's. Returns the language it is taken to be shown in."""
    names = held.names.get(kind, set())
    if text is None:
        assert not names
        return None
    readers = {(t, lang) for t, lang in names if not lang or matches(lang, reader)}
    if language is None:
        spelled = sorted(lang for t, lang in readers if t == text)
        assert spelled, (kind, text)
        return spelled[0]  # the data's own (untagged) before a tagged copy, as the pick reads them
    assert (text, language) in names and not matches(language, reader), (kind, text, language)
    assert not readers, f"{kind} {text!r}@{language} shown though the file has one in {reader} or untagged"
    return language


def check_entity(detail: EntityDetail, held: Held, asked: Sequence[str] | None, reader: str) -> None:
    shown: dict[str, set[str]] = {kind: set() for kind in KINDS}
    for kind, text, language in (("label", detail.label, detail.label_language),
                                 ("description", detail.description, detail.description_language)):
        language = check_text(kind, text, language, held, reader)
        shown[kind] |= {language} if language else set()
    for alias in detail.alt_labels or []:
        if isinstance(alias, dict):
            assert (alias["text"], alias["language"]) in held.names["alt"] and not matches(alias["language"], reader)
            shown["alt"].add(alias["language"])
        else:
            spelled = sorted(lang for t, lang in held.names["alt"] if t == alias and (not lang or matches(lang, reader)))
            assert spelled, alias
            shown["alt"] |= set(spelled)
    _check_labels(detail, held, asked or [], shown)
    left = {tag for kind in KINDS for tag in held.languages(kind)
            if not any(matches(tag, s) for s in shown[kind])}
    assert detail.other_languages == told(left), (detail.id, asked)


def _check_labels(detail: EntityDetail, held: Held, asked: Sequence[str], shown: dict[str, set[str]]) -> None:
    """`labels`: with several languages asked, a label in each asked that has one, unless
    `label` shows the only one."""
    present = [w for w in asked if any(matches(lang, w) for lang in held.languages("label"))]
    if detail.labels is None:
        assert len(asked) < 2 or all(any(matches(s, w) for s in shown["label"]) for w in present), (detail.id, asked)
        return
    assert len(asked) >= 2
    for tag, text in detail.labels.items():
        assert (text, tag) in held.names["label"] and any(matches(tag, w) for w in asked)
    assert [w for w in present if any(matches(tag, w) for tag in detail.labels)] == present, (detail.id, asked)
    shown["label"] |= set(detail.labels)


@pytest.fixture(scope="module", params=sorted(FILES))
def wikidata(request: pytest.FixtureRequest) -> tuple[Gateway, dict[str, Held]]:
    name, lenient = FILES[request.param]
    path = shared_data("wikidata", name)
    return Gateway(EmbeddedBackend.open(path, lenient=lenient)), names_in(str(path), lenient)


@pytest.mark.parametrize("asked", CHOICES, ids=lambda c: "-".join(c) if c else "default")
def test_wikidata_names_say_their_language_against_the_file(
        wikidata: tuple[Gateway, dict[str, Held]], asked: list[str] | None) -> None:
    gateway, held = wikidata
    to_id = gateway.context.ids.to_id
    entities = sorted(held)[:60]
    reader = asked[0] if asked else Settings().languages[0]
    answer = gateway.describe_entities(ids=entities, languages=asked)
    described = {e.id: e for e in answer.entities}
    checked = 0
    for x in entities:
        detail = described.get(to_id(x))
        if detail is None or detail.statement is not None:
            continue
        check_entity(detail, held[x], asked, reader)
        checked += 1
    assert checked >= 1
    main = next(x for x in entities if x.endswith(("/Q42", "/Q513")))
    single = gateway.describe_entity(main, languages=asked)
    assert single.model_dump(exclude={"warnings"}) == described[to_id(main)].model_dump(exclude={"warnings"})


def test_the_cases_the_contract_names(wikidata: tuple[Gateway, dict[str, Held]]) -> None:
    """Swedish asked: Q42's Swedish label is plain; asked German and French, both labels are
    shown and French is not among the languages left out."""
    gateway, held = wikidata
    x = next(x for x in held if x.endswith(("/Q42", "/Q513")))
    both = gateway.describe_entity(x, languages=["de", "fr"])
    assert both.labels is not None and set(both.labels) == {"de", "fr"}
    assert not {"de", "fr"} & set(both.other_languages or [])
    missing = gateway.describe_entity(x, languages=["zz"])
    assert missing.label_language is not None and missing.label_language in held[x].languages("label")


def test_search_hits_say_their_labels_language(wikidata: tuple[Gateway, dict[str, Held]]) -> None:
    """Wikipedia articles about the item are named in their own languages: a hit whose
    label is in another language than the reader's says which, against the file."""
    gateway, held = wikidata
    x = next(x for x in held if x.endswith(("/Q42", "/Q513")))
    label = next(t for t, lang in held[x].names["label"] if lang == "en")
    hits = gateway.search_entities(label, limit=100).results
    iris = {gateway.context.ids.to_id(y): y for y in held}
    tagged = 0
    for hit in hits:
        if hit.id not in iris:  # found by a readable local name: no name in the file
            assert hit.label is None and hit.label_language is None, hit
            continue
        names = held[iris[hit.id]].names.get("label", set())
        if hit.label_language is None:
            assert any(t == hit.label and (not lang or matches(lang, "en")) for t, lang in names), hit
        else:
            assert (hit.label, hit.label_language) in names and not matches(hit.label_language, "en")
            assert not any(not lang or matches(lang, "en") for _, lang in names), hit
            tagged += 1
    assert tagged >= 5


# -- generated graphs ---------------------------------------------------------------------
EX = "http://lang.example/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"
ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
TAGS = ["", "en", "en-gb", "de", "fr", "sv", "mul"]


def expected_pick(texts: set[tuple[str, str]], chain: Sequence[str]) -> tuple[str, str] | None:
    """The contract's choice (data-model.md): the first language of the chain that has a
    text (text without a tag counting as the first), then text without a tag, then the
    first by tag and text."""
    ordered = sorted(texts, key=lambda t: (t[1], t[0]))
    for rank, wanted in enumerate(chain):
        for text, tag in ordered:
            if (tag and matches(tag, wanted)) or (rank == 0 and not tag):
                return text, tag
    return next(((t, tag) for t, tag in ordered if not tag), ordered[0] if ordered else None)


def generated(seed: int) -> tuple[Gateway, dict[str, Held]]:
    rng = random.Random(seed)
    quads, held = [], {}
    for i in range(30):
        x = f"{EX}e{i}"
        names: dict[str, set[tuple[str, str]]] = {}
        for kind, predicate in (("label", RDFS_LABEL), ("description", COMMENT), ("alt", ALT)):
            tags = rng.sample(TAGS, rng.randint(0 if kind != "label" else 1, 4))
            names[kind] = {(f"{kind} {i} {tag or 'plain'} {n}", tag) for tag in tags for n in range(1 + (kind == "alt"))}
            for text, tag in names[kind]:
                literal = ox.Literal(text, language=tag) if tag else ox.Literal(text)
                quads.append(ox.Quad(ox.NamedNode(x), ox.NamedNode(predicate), literal))
        held[x] = Held(names)
    store = ox.Store()
    store.bulk_extend(quads)
    return Gateway.open(store), held


@pytest.mark.parametrize("seed", range(4))
def test_generated_names_against_the_contract(seed: int) -> None:
    gateway, held = generated(seed)
    for asked in CHOICES:
        chain = asked or Settings().languages
        answer = gateway.describe_entities(ids=sorted(held), languages=asked)
        for detail in answer.entities:
            names = held[detail.id]
            label = expected_pick(names.names["label"], chain)
            description = expected_pick(names.names["description"], chain)
            for shown, language, want in ((detail.label, detail.label_language, label),
                                          (detail.description, detail.description_language, description)):
                if want is None:
                    assert shown is None and language is None
                    continue
                assert shown == want[0], (detail.id, asked)
                assert language == (want[1] if want[1] and not matches(want[1], chain[0]) else None), (detail.id, asked)
            check_entity(detail, names, asked, chain[0])


def test_a_label_in_no_language_asked_says_its_own() -> None:
    """The example the contract was written for: only German and French labels, Swedish asked."""
    store = ox.Store()
    hospital = ox.NamedNode(EX + "hospital")
    store.extend([ox.Quad(hospital, ox.NamedNode(RDFS_LABEL), ox.Literal("Krankenhaus", language="de")),
                  ox.Quad(hospital, ox.NamedNode(RDFS_LABEL), ox.Literal("hôpital", language="fr"))])
    gateway = Gateway.open(store)
    swedish = gateway.describe_entity(EX + "hospital", languages=["sv"])
    assert (swedish.label, swedish.label_language, swedish.other_languages) == ("Krankenhaus", "de", ["fr"])
    both = gateway.describe_entity(EX + "hospital", languages=["de", "fr"])
    assert (both.label, both.label_language, both.labels, both.other_languages) == (
        "Krankenhaus", None, {"de": "Krankenhaus", "fr": "hôpital"}, None)
    hit = gateway.search_entities("hôpital").results[0]
    assert (hit.label, hit.label_language, hit.matched, hit.language) == ("Krankenhaus", "de", "hôpital", "fr")


# -- untagged labels cost nothing -------------------------------------------------------------
NEW_FIELDS = ('"label_language"', '"description_language"', '"labels"', '"tied"')


def _serialised(value: Any) -> str:
    return json.dumps(value.model_dump(mode="json", exclude_none=True), ensure_ascii=False)


def test_untagged_names_add_nothing_to_an_answer() -> None:
    """The demo's names are untagged or English: read in English, describe and full walks
    carry no language field and synonyms stay plain strings; asked German and French,
    which it has none in, no `labels` either (its English ones say their language)."""
    gateway = Gateway.open(DEMO)
    ids = sorted({n["id"] for n in gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=3,  # type: ignore[index]
                                                     topology_only=True).nodes})
    for answer in (gateway.describe_entities(ids=ids), gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2)):
        text = _serialised(answer)
        assert not [f for f in NEW_FIELDS[:3] if f in text]
    assert all(isinstance(a, str) for e in gateway.describe_entities(ids=ids).entities for a in e.alt_labels or [])
    asked = gateway.describe_entities(ids=ids, languages=["de", "fr"])
    assert NEW_FIELDS[2] not in _serialised(asked)
    assert {e.label_language for e in asked.entities} == {None, "en"}
