"""Every label any tool shows says its language when it is not the reader's.

A generic reader walks each answer's JSON and collects every label, name, description
and preview it shows, with the language the answer states for it (`label_language`,
`name_language`, `content_language`, `parent_name_language`, `{text, language}` in a
map of labels); each is checked against an oracle: a SPARQL query over the same file
(Wikidata's own export of Q42, labelled in a hundred languages) or the names a generated
graph was made of, and the contract's choice (docs/data-model.md, languages): the
reader's language (the first asked, subtags included) or text without a tag says
nothing; any other says its tag, and only where the data has no text in the reader's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend
from gateway.settings import Settings
from gateway.terms import BFS
from tests.conftest import DEMO, shared_data
from tests.tools.test_languages import ALT, COMMENT, EX, RDFS_LABEL, Held, expected_pick, matches, names_in

CHAINS: list[tuple[str, ...]] = [("sv",), ("de", "fr"), ("zz",), ("en", "mul"), ("en-gb", "de")]
PICKED = {"label", "description"}
"""Kinds of which an answer shows the one text the contract picks (synonyms: all wanted)."""


@dataclass(frozen=True)
class Shown:
    """One text an answer shows about a node, with the language it states (None: none)."""

    id: str
    kind: str
    """label, description, alt, name (a label, else the ID made readable), content
    (a passage's text, else the description, else the name)."""
    text: str
    language: str | None
    where: str


FIELDS = (("label", "label"), ("description", "description"), ("name", "name"), ("content", "content"))


def shown(value: Any, where: str = "") -> Iterator[Shown]:
    """Every label-like text anywhere in an answer's JSON."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from shown(item, f"{where}[{index}]")
        return
    if not isinstance(value, dict):
        return
    if isinstance(value.get("id"), str):
        yield from _of_node(value, where)
    if isinstance(value.get("parent_name"), str):
        yield Shown(value["parent_id"], "label", value["parent_name"], value.get("parent_name_language"),
                    f"{where}.parent_name")
    for key, item in value.items():
        if key == "nodes" and isinstance(item, dict):  # compact: type -> ID -> label
            for kind, members in item.items():
                for member, label in members.items():
                    yield from _mapped(member, label, f"{where}.nodes.{kind}")
        elif key == "labels" and "ids" in value:  # path_ends: ID -> label
            for member, label in item.items():
                yield from _mapped(member, label, f"{where}.labels")
        elif key not in ("labels", "alt_labels"):
            yield from shown(item, f"{where}.{key}")


def _of_node(value: dict[str, Any], where: str) -> Iterator[Shown]:
    """The texts an object with an ID shows about it: its own fields, `labels`, synonyms."""
    node = value["id"]
    for field, kind in FIELDS:
        if isinstance(value.get(field), str):
            yield Shown(node, kind, value[field], value.get(f"{field}_language"), f"{where}.{field}")
    for tag, text in (value.get("labels") or {}).items():
        yield Shown(node, "label-in", text, tag, f"{where}.labels")
    for alias in value.get("alt_labels") or ():
        text, tag = (alias["text"], alias["language"]) if isinstance(alias, dict) else (alias, None)
        yield Shown(node, "alt", text, tag, f"{where}.alt_labels")


def _mapped(node: str, label: Any, where: str) -> Iterator[Shown]:
    """A label in a map of labels: a string, {text, language}, or null (the ID says as much)."""
    assert label is None or isinstance(label, str) or set(label) == {"text", "language"}, (where, label)
    if isinstance(label, str):
        yield Shown(node, "label", label, None, where)
    elif label is not None:
        yield Shown(node, "label", label["text"], label["language"], where)


def same(shown_text: str, held: str) -> bool:
    """A text as shown is the one held, or held cut short (ending in …)."""
    return shown_text == held or (shown_text.endswith("…") and held.startswith(shown_text[:-1]))


@dataclass
class Oracle:
    names: dict[str, Held]
    """IRI -> its labels, descriptions and synonyms as the file holds them."""
    passages: dict[str, str]
    """Passage IRI -> its text."""
    iris: dict[str, str]
    """Answer ID -> IRI, for every node the file names."""

    def check(self, item: Shown, chain: Sequence[str]) -> str | None:
        """Whether the text and its stated language are the contract's; the language it is in."""
        iri = self.iris.get(item.id)
        if item.kind == "content" and iri in self.passages:
            assert item.text == self.passages[iri] and item.language is None, item
            return None
        held = self.names.get(iri or "")
        kind = item.kind
        if kind == "content":
            kind = "description" if held and held.names.get("description") else "name"
        texts = (held.names.get("label" if kind in ("name", "label-in") else kind) or set()) if held else set()
        if not texts:  # no name in the file: an ID made readable, a statement's triple
            assert kind == "name" and item.language is None, item
            return None
        if kind in ("alt", "label-in"):
            return _one_of(item, texts, chain[0])
        return _picked(item, texts, chain)


def _one_of(item: Shown, texts: set[tuple[str, str]], reader: str) -> str | None:
    """A synonym, or a label in one of several languages asked: held so, its language told
    unless it is the reader's (or it has none)."""
    assert any(same(item.text, t) and (lang == item.language or (item.language is None and (
        not lang or matches(lang, reader)))) for t, lang in texts), item
    assert item.language is None or not matches(item.language, reader), item
    return item.language


def _picked(item: Shown, texts: set[tuple[str, str]], chain: Sequence[str]) -> str | None:
    """A label or description: the one the contract picks, its language told unless it is
    the reader's (or it has none)."""
    picked = expected_pick(texts, chain)
    assert picked is not None
    told = picked[1] if picked[1] and not matches(picked[1], chain[0]) else None
    assert same(item.text, picked[0]) and item.language == told, (item, picked)
    return told


def checked(oracle: Oracle, answer: Any, chain: Sequence[str]) -> list[str | None]:
    """The languages of every text the answer shows, each checked."""
    data = answer.model_dump(mode="json", exclude_none=True)
    return [oracle.check(item, chain) for item in shown(data)]


def calls(seed: str, other: str, predicate: str, passage_type: str | None) -> list[tuple[str, dict[str, Any]]]:
    """One call of each tool that shows nodes, and of those that show only IDs (they show no label)."""
    return [
        ("bfs_query", {"seeds": [seed], "max_hops": 2, "topology_only": True, "layout": "compact"}),
        ("bfs_query", {"seeds": [seed], "max_hops": 1}),
        ("bfs_query", {"seeds": [seed], "max_hops": 1, "layout": "compact", "node_filter": {"entity_types": []}}),
        ("bfs_query", {"seeds": [seed], "path": [{"predicates": [predicate], "direction": "both"}], "topology_only": True}),
        ("expand_neighbors", {"entity_ids": [seed], "include_incoming": True, "limit": 24, "depth": 2}),
        ("expand_neighbors", {"entity_ids": [seed], "relationship_types": [predicate], "include_incoming": True,
                              "limit": 24}),
        ("intersect_subgraphs", {"seeds": [seed, other], "k": 2}),
        ("shortest_path", {"source": seed, "target": other}),
        ("communities", {"seeds": [seed], "max_hops": 2, "community": 0}),
        ("communities", {"seeds": [seed], "max_hops": 2}),
        ("scan_query", {"node_types": [passage_type] if passage_type else ["schema:Article"], "limit": 200}),
        ("scan_query", {"limit": 50}),
        ("transitive_closure_query", {"start": seed, "predicate": predicate, "direction": "both"}),
        ("fetch_slice", {"entity_id": seed}),
        ("fetch_slice", {"entity_id": other}),
        ("search_entities", {"query": "Douglas Adams" if passage_type is None else "label", "limit": 50}),
        ("describe_entities", {"ids": [seed, other]}),
    ]


# -- Wikidata's export of Q42 -----------------------------------------------------------------
Q42 = "http://www.wikidata.org/entity/Q42"
SCHEMA_ABOUT = "http://schema.org/about"


@pytest.fixture(scope="module")
def q42() -> tuple[Path, Oracle]:
    path = shared_data("wikidata", "Q42.ttl")
    names = names_in(str(path), False)
    gateway = Gateway(EmbeddedBackend.open(path))
    return path, Oracle(names, {}, {gateway.context.ids.to_id(x): x for x in names})


@pytest.mark.parametrize("chain", CHAINS, ids="-".join)
def test_every_label_of_every_tool_says_its_language_against_the_file(q42: tuple[Path, Oracle], chain: tuple[str, ...]) -> None:
    path, oracle = q42
    gateway = Gateway(EmbeddedBackend.open(path), settings=Settings(languages=chain))
    article = sorted(x for x in oracle.names if x.startswith("https://sv.wikipedia"))[0]
    told: dict[str, list[str | None]] = {}
    for name, arguments in calls("wd:Q42", article, "schema:about", None):
        told[f"{name} {arguments}"] = checked(oracle, gateway.call(name, arguments), chain)
    every = [language for languages in told.values() for language in languages]
    # Articles are named in their own languages: most labels shown say theirs, the reader's none.
    assert sum(1 for t in every if t) >= 50 and any(t is None for t in every)
    for tool in ("layout': 'compact", "'path'", "expand_neighbors", "communities", "scan_query", "fetch_slice"):
        assert any(tool in call and languages for call, languages in told.items()), tool


def test_the_contracts_example_in_a_walk() -> None:
    """Asked Swedish, a hospital named only "Krankenhaus"@de and "hôpital"@fr is
    `{"text": "Krankenhaus", "language": "de"}` in a compact walk, its `name_language`
    "de" among neighbours and its `label_language` "de" in a community."""
    store = ox.Store()
    hospital, city = ox.NamedNode(EX + "hospital"), ox.NamedNode(EX + "city")
    store.extend([ox.Quad(hospital, ox.NamedNode(RDFS_LABEL), ox.Literal("Krankenhaus", language="de")),
                  ox.Quad(hospital, ox.NamedNode(RDFS_LABEL), ox.Literal("hôpital", language="fr")),
                  ox.Quad(hospital, ox.NamedNode(EX + "in"), city),
                  ox.Quad(city, ox.NamedNode(RDFS_LABEL), ox.Literal("Stockholm"))])
    gateway = Gateway.open(store, settings=Settings(languages=("sv",)))
    walk = gateway.bfs_query(seeds=[EX + "city"], layout="compact", topology_only=True)
    labels = {i: label for members in walk.nodes.values() for i, label in members.items()}  # type: ignore[union-attr]
    assert sorted(labels.values(), key=str) == ["Stockholm", {"text": "Krankenhaus", "language": "de"}]
    neighbour = gateway.expand_neighbors(entity_ids=[EX + "city"], include_incoming=True).neighbors[0]
    assert (neighbour.name, neighbour.name_language, neighbour.content_language) == ("Krankenhaus", "de", "de")
    members = gateway.communities(seeds=[EX + "city"]).levels[0].communities[0].members
    assert {(m.label, m.label_language) for m in members} == {("Stockholm", None), ("Krankenhaus", "de")}
    french = Gateway.open(store, settings=Settings(languages=("fr", "de")))
    assert french.expand_neighbors(entity_ids=[EX + "city"], include_incoming=True).neighbors[0].name_language is None


def test_describe_schema_tells_the_language_of_a_type_or_predicate_label() -> None:
    """A predicate labelled only in German and a type labelled in the reader's English:
    describe_schema tells the first's language, not the second's, as the labels' tags say."""
    store = ox.Store()
    knows, person = ox.NamedNode(EX + "kennt"), ox.NamedNode(EX + "Person")
    a, b = ox.NamedNode(EX + "a"), ox.NamedNode(EX + "b")
    rdf_type = ox.NamedNode(RDF_TYPE)
    store.extend([ox.Quad(a, knows, b), ox.Quad(a, rdf_type, person), ox.Quad(b, rdf_type, person),
                  ox.Quad(knows, ox.NamedNode(RDFS_LABEL), ox.Literal("ist bekannt mit", language="de")),
                  ox.Quad(person, ox.NamedNode(RDFS_LABEL), ox.Literal("human being", language="en"))])
    schema = Gateway.open(store, settings=Settings(languages=("en",))).describe_schema()
    told = {p.id: (p.label, p.label_language) for p in schema.predicates}
    assert told[EX + "kennt"] == ("ist bekannt mit", "de")
    assert [(t.label, t.label_language) for t in schema.entity_types] == [("human being", None)]


# -- generated graphs ----------------------------------------------------------------------------
TAGS = ["", "en", "en-gb", "de", "fr", "sv", "mul"]
REL = EX + "rel"
PASSAGE_OF, INDEX, TEXT = BFS + "passageOf", BFS + "passageIndex", BFS + "passageText"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _names(rng: random.Random, quads: list[ox.Quad], x: str, stem: str, kinds: Sequence[tuple[str, str]]) -> Held:
    names: dict[str, set[tuple[str, str]]] = {}
    for kind, predicate in kinds:
        tags = rng.sample(TAGS, rng.randint(1 if kind == "label" else 0, 3))
        names[kind] = {(f"{stem} {kind} @{tag or 'plain'}" + " long" * rng.choice([0, 0, 15]), tag) for tag in tags}
        for text, tag in names[kind]:
            quads.append(ox.Quad(ox.NamedNode(x), ox.NamedNode(predicate),
                                 ox.Literal(text, language=tag) if tag else ox.Literal(text)))
    return Held(names)


def generated(seed: int) -> tuple[Gateway, Oracle, list[str]]:
    """Entities named in random languages, linked at random; documents of passages each
    labelled in random languages (one row a label: a passage is still listed once)."""
    rng = random.Random(seed)
    quads: list[ox.Quad] = []
    names: dict[str, Held] = {}
    passages: dict[str, str] = {}
    entities = [f"{EX}e{i}" for i in range(24)]
    for i, x in enumerate(entities):
        names[x] = _names(rng, quads, x, f"e{i}", (("label", RDFS_LABEL), ("description", COMMENT), ("alt", ALT)))
        for other in rng.sample(entities, 2):
            quads.append(ox.Quad(ox.NamedNode(x), ox.NamedNode(REL), ox.NamedNode(other)))
    for d in range(2):
        document = f"{EX}doc{d}"
        names[document] = _names(rng, quads, document, f"doc{d}", (("label", RDFS_LABEL),))
        quads.append(ox.Quad(ox.NamedNode(document), ox.NamedNode(REL), ox.NamedNode(entities[d])))
        for i in range(5):
            passage = f"{EX}doc{d}-p{i}"
            passages[passage] = f"passage {i} of doc{d}"
            names[passage] = _names(rng, quads, passage, f"p{d}.{i}", (("label", RDFS_LABEL),))
            quads += [ox.Quad(ox.NamedNode(passage), ox.NamedNode(RDF_TYPE), ox.NamedNode(BFS + "Passage")),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(PASSAGE_OF), ox.NamedNode(document)),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(INDEX), ox.Literal(str(i), datatype=ox.NamedNode(
                          "http://www.w3.org/2001/XMLSchema#integer"))),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(TEXT), ox.Literal(passages[passage]))]
    store = ox.Store()
    store.bulk_extend(quads)
    gateway = Gateway.open(store)
    return gateway, Oracle(names, passages, {gateway.context.ids.to_id(x): x for x in names}), entities


@pytest.mark.parametrize("seed", range(3))
def test_generated_labels_of_every_tool_against_the_contract(seed: int) -> None:
    gateway, oracle, entities = generated(seed)
    every: list[str | None] = []
    for chain in CHAINS:
        reader = Gateway(gateway.backend, settings=Settings(languages=chain))
        for name, arguments in calls(entities[0], f"{EX}doc0-p2", REL, "bfs:Passage"):
            every += checked(oracle, reader.call(name, arguments), chain)
        document = reader.fetch_slice(entity_id=f"{EX}doc1", window=5)
        assert [p.passage_index for p in document.passages] == list(range(5))  # one a passage, however many labels
        every += checked(oracle, document, chain)
    assert any(every) and None in every


# -- untagged labels cost nothing ----------------------------------------------------------------
NEW = ('"name_language"', '"content_language"', '"parent_name_language"', '"label_language"')


def test_untagged_labels_add_nothing_to_any_answer() -> None:
    """The demo's names are untagged or English: no answer of any tool, compact walks
    included, carries a language, and every label in a map of labels stays a string."""
    gateway = Gateway.open(DEMO)
    examples = json.loads((Path(__file__).parent.parent / "resources" / "tool_examples.json").read_text())
    examples.pop("answer")
    answers = [gateway.call(name, arguments) for name, arguments in examples.items()]
    answers += [gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True, layout="compact"),
                gateway.expand_neighbors(entity_ids=["wiki:Irene_Adler"], depth=2, limit=24)]
    for answer in answers:
        data = answer.model_dump(mode="json", exclude_none=True)
        text = json.dumps(data, ensure_ascii=False)
        assert not [field for field in NEW if field in text], text[:300]
        assert not [item for item in shown(data) if item.language is not None]


def test_a_passage_preview_tells_its_language() -> None:
    """A document's passages as neighbours: the preview of one written in German says so to
    an English reader; an untagged one says nothing."""
    store = ox.Store()
    document = ox.NamedNode(EX + "report")
    texts = {EX + "p0": ox.Literal("Der Patient wurde operiert.", language="de"), EX + "p1": ox.Literal("Plain text.")}
    store.add(ox.Quad(document, ox.NamedNode(RDFS_LABEL), ox.Literal("report")))  # a document has data of its own
    for i, (passage, text) in enumerate(texts.items()):
        store.extend([ox.Quad(ox.NamedNode(passage), ox.NamedNode(RDF_TYPE), ox.NamedNode(BFS + "Passage")),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(PASSAGE_OF), document),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(INDEX), ox.Literal(str(i), datatype=ox.NamedNode(
                          "http://www.w3.org/2001/XMLSchema#integer"))),
                      ox.Quad(ox.NamedNode(passage), ox.NamedNode(TEXT), text)])
    gateway = Gateway.open(store, settings=Settings(languages=("en",)))
    neighbours = gateway.expand_neighbors(entity_ids=[EX + "report"], relationship_types=[PASSAGE_OF]).neighbors
    told = {n.id: (n.content, n.content_language) for n in neighbours}
    assert told == {gateway.context.ids.to_id(p): (t.value, t.language) for p, t in texts.items()}
