"""fetch_slice: a document's passages in order, a window around a passage, the same
not-found answer for an absent passage and one whose document the reader may not read.

Expectations come from the medlit bundle's evidence rows (each paper's distinct texts in
file order) and, for readers, from a store holding only the reader's graphs.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict

import pyoxigraph as ox
import pytest

from gateway import Gateway, NotFound
from gateway.auth import Reader
from gateway.importers.bundle import open_bundle
from tests.conftest import listed_edges, listed_nodes, shared_data

BFS = "https://w3id.org/bfsql#"


@pytest.fixture(scope="module")
def medlit() -> Gateway:
    return open_bundle(shared_data("medlit"))


@pytest.fixture(scope="module")
def papers() -> dict[str, list[str]]:
    """Paper ID -> its distinct evidence texts in file order (the passages expected)."""
    found: dict[str, list[str]] = defaultdict(list)
    for line in (shared_data("medlit") / "evidence.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        if row["text_span"] not in found[row["document_id"]]:
            found[row["document_id"]].append(row["text_span"])
    return found


def test_a_paper_reads_as_its_passages_in_order(medlit: Gateway, papers: dict[str, list[str]]) -> None:
    assert len(papers) == 38
    for paper, texts in papers.items():
        read = medlit.fetch_slice(f"PMC:{paper}", window=64)
        assert (read.parent_id, read.sliced, read.window_start) == (f"PMC:{paper}", True, 0)
        assert [p.content for p in read.passages] == texts and read.passage_total == len(texts)
        assert [p.passage_index for p in read.passages] == list(range(len(texts)))
        assert read.parent_type == "paper" and read.parent_name
        assert read.covers_parent is False  # evidence excerpts never hold a whole paper
        assert read.content_chars == sum(map(len, texts))


@pytest.mark.parametrize("window", [1, 2, 3, 4, 64])
def test_a_passage_is_the_centre_of_its_window(medlit: Gateway, papers: dict[str, list[str]], window: int) -> None:
    for paper, texts in list(papers.items())[:12]:
        total = len(texts)
        for index, text in enumerate(texts):
            read = medlit.fetch_slice(f"passage:{paper}-{index}", window=window)
            start = max(0, min(index - window // 2, total - window))
            assert read.window_start == start and read.parent_id == f"PMC:{paper}"
            assert [p.passage_index for p in read.passages] == list(range(start, min(start + window, total)))
            assert text in [p.content for p in read.passages]
            assert read.entity_id == f"passage:{paper}-{index}"


def test_budgets_are_clamped_and_said(medlit: Gateway, papers: dict[str, list[str]]) -> None:
    paper, texts = max(papers.items(), key=lambda kv: len(kv[1]))
    wide = medlit.fetch_slice(f"PMC:{paper}", window=500)
    assert wide.window == 64 and any(w.startswith("window: 500 is outside 1 to 64") for w in wide.warnings)
    narrow = medlit.fetch_slice(f"PMC:{paper}", window=0)
    assert narrow.window == 1 and len(narrow.passages) == 1 and narrow.warnings
    cut = medlit.fetch_slice(f"PMC:{paper}", window=64, content_max_chars=len(texts[0]) + 10)
    assert cut.passages[0].content == texts[0] and not cut.passages[0].truncated
    assert cut.passages[1].content == texts[1][:10] and cut.passages[1].truncated
    assert all(p.truncated and p.content == "" for p in cut.passages[2:])
    assert cut.content_chars == len(texts[0]) + 10 and any("content_max_chars" in w for w in cut.warnings)


def test_an_entity_never_cut_comes_back_whole(medlit: Gateway) -> None:
    read = medlit.fetch_slice("RxNorm:3251")
    assert (read.sliced, len(read.passages), read.parent_id, read.window_start) == (False, 1, "RxNorm:3251", None)
    assert read.passages[0].content == "desmopressin" and read.parent_type == "drug"


def test_an_edge_leads_to_its_evidence_passages(medlit: Gateway) -> None:
    walk = medlit.bfs_query(seeds=["DBPedia:Cushing's_disease"], predicates=["TREATS"], direction="in", max_hops=1,
                            edge_filter={"predicates": ["TREATS"]})
    evidence = {json.loads(line)["relationship_key"]: [] for line in (shared_data("medlit") / "evidence.jsonl").open()}
    for line in (shared_data("medlit") / "evidence.jsonl").open():
        row = json.loads(line)
        evidence[row["relationship_key"]].append(row["text_span"])
    checked = 0
    for edge in listed_edges(walk):
        for passage in (edge.provenance or {}).get("bfs:evidencePassage", []):
            read = medlit.fetch_slice(passage, window=1)
            key = f"{edge.subject}:TREATS:{edge.object}"
            assert read.passages[0].content in evidence[key]
            checked += 1
    assert checked >= 4


def test_passages_are_walked_when_named_and_say_how_to_widen(medlit: Gateway, papers: dict[str, list[str]]) -> None:
    paper = next(iter(papers))
    default = medlit.bfs_query(seeds=[f"PMC:{paper}"], max_hops=1, topology_only=True)
    assert not [n for n in default.nodes if n["entity_type"] == "bfs:Passage"]  # type: ignore[index]
    named = medlit.bfs_query(seeds=[f"PMC:{paper}"], max_hops=1, predicates=["bfs:passageOf"], direction="in")
    passages = [n for n in listed_nodes(named) if n.entity_type == "bfs:Passage"]
    assert len(passages) == len(papers[paper]) and all(n.widen_with == "fetch_slice" for n in passages)


# -- readers -----------------------------------------------------------------------------------
GRAPHS = [f"http://graphs.example/g{i}" for i in range(3)]


def documents(rng: random.Random) -> list[ox.Quad]:
    """A few documents cut into passages, every triple in a random named graph."""
    quads = []
    for d in range(rng.randint(1, 4)):
        document = ox.NamedNode(f"http://docs.example/d{d}")
        graph = ox.NamedNode(rng.choice(GRAPHS))
        quads.append(ox.Quad(document, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), ox.Literal(f"doc {d}"), graph))
        for i in range(rng.randint(1, 6)):
            passage = ox.NamedNode(f"http://docs.example/d{d}/p{i}")
            where = ox.NamedNode(rng.choice(GRAPHS))
            quads += [
                ox.Quad(passage, ox.NamedNode(BFS + "passageOf"), document, where),
                ox.Quad(passage, ox.NamedNode(BFS + "passageIndex"), ox.Literal(str(i), datatype=ox.NamedNode(
                    "http://www.w3.org/2001/XMLSchema#integer")), where),
                ox.Quad(passage, ox.NamedNode(BFS + "passageText"), ox.Literal(f"text {d}.{i}"), where),
            ]
    return quads


def answer(gateway: Gateway, arguments: dict[str, object], reader: Reader | None = None) -> object:
    try:
        return gateway.call("fetch_slice", arguments, reader=reader).model_dump()
    except NotFound as error:
        return ("not found", error.message.replace(str(arguments["entity_id"]), "X"))


@pytest.mark.parametrize("number", range(30))
def test_a_reader_reads_what_a_store_of_its_graphs_gives(number: int) -> None:
    """The oracle: fetch_slice as a reader equals fetch_slice on a store of the reader's
    graphs; and a passage whose document's own data the reader cannot read is not found,
    exactly as an ID in no graph."""
    rng = random.Random(number)
    quads = documents(rng)
    shared = ox.Store()
    shared.extend(quads)
    gateway = Gateway.open(shared)
    ids = sorted({q.subject.value for q in quads})
    for _ in range(10):
        graphs = tuple(sorted(rng.sample(GRAPHS, k=rng.randint(0, 3))))
        alone = ox.Store()
        alone.extend([q for q in quads if q.graph_name.value in graphs])
        arguments = {"entity_id": rng.choice(ids), "window": rng.randint(1, 4)}
        mine = answer(gateway, arguments, Reader("r", graphs))
        assert mine == answer(Gateway.open(alone), arguments)
        target = str(arguments["entity_id"])
        document = target.split("/p")[0]
        readable = any(q.subject.value == document and q.graph_name.value in graphs for q in quads)
        if not readable:
            assert mine == answer(gateway, {**arguments, "entity_id": "http://docs.example/nothing"}, Reader("r", graphs))


def test_a_canonical_id_reaches_the_entity_and_the_answer_says_which() -> None:
    """fetch_slice takes an ID as every tool does: a MeSH ID two entities carry reaches the
    first of them (the tool reads one), and the warnings say it identifies both and that
    one was read, never silently."""
    from tests.conftest import gateway_from_ntriples

    mesh, same_as = "http://id.nlm.nih.gov/mesh/D003480", "http://www.w3.org/2002/07/owl#sameAs"
    describe = "http://purl.org/dc/terms/description"
    gateway = gateway_from_ntriples("".join(
        f'<http://example.org/{name}> <{same_as}> <{mesh}> .\n<http://example.org/{name}> <{describe}> "{name} text" .\n'
        for name in ("a", "b")))
    sliced = gateway.fetch_slice("MeSH:D003480")
    assert sliced.entity_id == "http://example.org/a" and sliced.passages[0].content == "a text"
    assert any("identifies 2 entities" in w for w in sliced.warnings), sliced.warnings
    assert "entity_id: the seeds name 2 entities; the first 1 are used" in sliced.warnings
