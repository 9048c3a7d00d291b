"""The census (the store's terms read as text, counted by hash) counts what the SPARQL aggregates count.

Oracle: each field against its own template (`queries/native/<name>.rq`) run on the same
store, on data the project did not write (the SHACL vocabulary and schema.org as pyshacl
ships them, Wikidata's Q42 dump, the medlit bundle), the demo (RDF 1.2 statements in
named graphs) and a graph of odd cases; then the index and statistics made both ways.
"""

from __future__ import annotations

import gzip
import importlib.resources
import io
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyoxigraph as ox
import pytest

from gateway.backends.embedded import EmbeddedBackend, load_files
from gateway.backends.scoped import ScopedBackend
from gateway.engine import census as census_module
from gateway.engine import census_tables, census_text, name_entries, search, statistics
from gateway.engine.census import UNSEARCHED, Census, OtherType, census, census_files, count, finish_files
from gateway.engine.census_scan import QuadSource, StoreSource
from gateway.engine.census_tables import Spool
from gateway.engine.context import GraphContext
from gateway.engine.namespaces import namespace_key
from gateway.profiles.base import NON_EDGE_PREDICATES, SCHEMA_PREDICATES
from gateway.profiles.native import NativeProfile
from gateway.profiles.reification import ReificationProfile
from gateway.sparql import iris
from gateway.terms import term_iris
from support import synth
from tests.conftest import DEMO, shared_data

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
UNSEARCHED_IRIS = iris(UNSEARCHED, ", ")
ODD = f"""
@prefix ex: <{EX}> .
@prefix rdf: <{RDF}> .
@prefix bfs: <https://w3id.org/bfsql#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:a a ex:Person, ex:Person ; ex:knows ex:b, ex:a ; ex:name "Ann"@en, "Ann"@en--ltr, "A"^^ex:code, "42" ;
     ex:note "{'x' * 200}", "{'y' * 201}" ; ex:shape [ a ex:Shape ] .
ex:b a "a literal type", _:t ; ex:knows ex:c .
ex:c ex:knows ex:r ; ex:age 41 ; rdfs:label "Cee"@en ; skos:altLabel "C" ; bfs:comment "bookkeeping" .
ex:Person a ex:Class ; ex:label "Person" .
ex:Shape a ex:Class .
ex:Prop a rdf:Property .
ex:Ann a ex:Person, ex:Class .
ex:r rdf:reifies <<( ex:a ex:knows ex:b )>> ; bfs:truthStatus bfs:asserted_true ; ex:says ex:c ; ex:text "a sentence" .
ex:s a rdf:Statement ; ex:text "old style" ; ex:about ex:a .
ex:r2 rdf:reifies <<( ex:b ex:knows ex:c )>> ; a ex:Claim ; ex:says ex:a .
ex:r3 rdf:reifies <<( ex:c ex:knows ex:a )>> ; bfs:truthStatus bfs:disputed, bfs:hypothetical ; bfs:assertedAt 3, 5 .
_:r4 rdf:reifies <<( ex:a ex:knows ex:b )>> ; bfs:assertedAt 1 .
ex:r5 rdf:reifies ex:notATriple .
ex:r6 rdf:reifies <<( ex:c ex:knows ex:b )>> .
ex:t a bfs:Statement ; ex:name "typed so, not a reifier" ; ex:about ex:r .
_:x ex:knows ex:a ; ex:name "blank" .
GRAPH ex:g1 {{ ex:a ex:knows ex:b . ex:b a ex:Person . ex:b ex:name "Bea" }}
GRAPH ex:g2 {{ ex:a ex:knows ex:b . ex:b a ex:Person }}
"""


def _asset(name: str) -> Path:
    return Path(str(importlib.resources.files("pyshacl") / "assets" / name))


def _store(path: Path | None = None, text: str | None = None) -> ox.Store:
    store = ox.Store()
    if text is not None:
        store.load(text.encode(), format=ox.RdfFormat.TRIG)
    elif path is not None:
        store.load(path=str(path), format=ox.RdfFormat.TRIG if path.suffix == ".trig" else ox.RdfFormat.TURTLE)
    return store


GRAPHS: dict[str, Callable[[], ox.Store]] = {
    "odd cases": lambda: _store(text=ODD),
    "demo": lambda: _store(DEMO),
    "shacl": lambda: _store(_asset("shacl.ttl")),
    "schema.org": lambda: _store(_asset("schema.ttl")),
    "Q42": lambda: _store(shared_data("wikidata", "Q42.ttl")),
}


CANON, CASEBOOK = "https://example.org/graph/canon", "https://example.org/graph/casebook"
SCOPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "odd cases, g1": ("odd cases", (EX + "g1",)),
    "odd cases, default and g2": ("odd cases", ("default", EX + "g2")),
    "odd cases, g1 and g2": ("odd cases", (EX + "g1", EX + "g2")),
    "demo, canon": ("demo", (CANON,)),
    "demo, casebook": ("demo", (CASEBOOK,)),
}
"""Readers' scopes: counted over their own graphs' quads, as their SPARQL dataset reads them."""


def context(store: ox.Store, scope: tuple[str, ...] | None = None) -> GraphContext:
    backend = EmbeddedBackend(store)
    if scope is None:
        return GraphContext(backend, NativeProfile(backend))
    scoped = ScopedBackend(backend, scope)
    return GraphContext(scoped, NativeProfile(scoped), scope=scope)


@pytest.fixture(params=sorted(GRAPHS) + sorted(SCOPES))
def graph(request: pytest.FixtureRequest) -> GraphContext:
    if request.param in SCOPES:
        name, scope = SCOPES[request.param]
        return context(GRAPHS[name](), scope)
    return context(GRAPHS[request.param]())


def _counted(ctx: GraphContext) -> Census:
    found = census(ctx)
    assert found is not None
    return found


def test_each_count_equals_its_template(graph: GraphContext) -> None:
    found = _counted(graph)
    excluded = iris(NON_EDGE_PREDICATES, ", ")
    assert dict(found.degrees) == {x: int(n.value) for x, n in graph.select("degrees", excluded=excluded)}
    assert Counter((x, t) for x, kinds in found.entity_types.items() for t in kinds) == Counter(
        (x, t) for x, t in graph.select("entity_types"))
    assert Counter(found.text_values) == Counter(tuple(row) for row in graph.select("text_values", unsearched=UNSEARCHED_IRIS))
    reified = graph.profile.has_reifiers
    assert dict(found.predicates) == {p: int(n.value) for p, n in graph.select(
        "predicate_counts", ["reified"] if reified else [], excluded=excluded)}
    if reified:
        assert [found.plain] == [int(n.value) for (n,) in graph.select("plain_count", excluded=excluded)]
        assert {status: (n, found.untimed[status]) for status, n in found.statuses.items()} == {
            status: (int(n.value), int(untimed.value)) for status, n, untimed in graph.select("status_counts")}
    assert dict(found.blank_values) == {p: int(n.value) for p, n in graph.select("blank_counts")}
    assert dict(found.schema_predicates) == {p: int(n.value) for p, n in graph.select(
        "schema_predicate_counts", predicate_values=iris(SCHEMA_PREDICATES)) if int(n.value)}
    assert dict(found.type_literals) == {(t, p, dt): int(n.value) for t, p, dt, n in graph.select("type_literals")}
    assert dict(found.type_counts) == {
        iri: int(n.value) for t, n in graph.select("type_counts") if (iri := statistics._iri(t)) is not None}
    # A type that is no IRI groups apart in SPARQL and is told as no type: compare so.
    told = Counter[tuple[object, ...]]()
    for (p, st, ot), n in found.connects.items():
        told[p, statistics._iri(st), statistics._iri(ot), isinstance(st, OtherType), isinstance(ot, OtherType)] += n
    expected = Counter[tuple[object, ...]]()
    for p, st, ot, n in graph.select("predicate_types", excluded=excluded):
        expected[p, statistics._iri(st), statistics._iri(ot), _other(st), _other(ot)] += int(n.value)
    assert told == expected


def test_the_odd_cases_are_counted() -> None:
    """The oracle compares like with like; here, that the odd cases are there to compare."""
    found = _counted(context(_store(text=ODD)))
    assert found.degrees[EX + "a"] == 3 + 2 + 1 + 1  # knows b (in three graphs), itself (both ends), ex:s about it, ex:r2 says it
    assert found.entity_types[EX + "b"] == [EX + "Person"] * 2
    assert sum(isinstance(st, OtherType) for _, st, _ in found.connects) > 0
    assert ("http://example.org/Person", EX + "name", RDF + "langString") in found.type_literals
    assert ("https://w3id.org/bfsql#Statement", EX + "name", XSD + "string") in found.type_literals
    bfs = "https://w3id.org/bfsql#"
    # r3: two statuses, two times each; r6's triple is not asserted; r5 reifies no triple.
    assert dict(found.statuses) == {bfs + "disputed": 2, bfs + "hypothetical": 3, bfs + "asserted_true": 4}
    assert dict(found.untimed) == {bfs + "hypothetical": 1, bfs + "asserted_true": 3}
    notes = [text.value for x, p, text in found.text_values if p == EX + "note"]
    assert notes == ["x" * 200]  # 201 characters is no short text
    assert not [x for x, _, _ in found.text_values if x in (EX + "r", EX + "s")]  # statements' own text
    # ex:c's names are read apart (names.rq), and bfs:'s values are no text to search.
    assert not [p for x, p, _ in found.text_values if x == EX + "c"]


def test_the_index_and_statistics_are_the_same_either_way(graph: GraphContext, monkeypatch: pytest.MonkeyPatch) -> None:
    with_census = statistics.count(graph), _index_rows(search.SearchIndex.build(graph))
    fresh = GraphContext(graph.backend, graph.profile)
    monkeypatch.setattr(statistics, "census", lambda ctx, texts=True: None)
    monkeypatch.setattr(name_entries, "census", lambda ctx: None)
    assert (statistics.count(fresh), _index_rows(search.SearchIndex.build(fresh))) == with_census


def test_a_type_that_is_no_iri_is_told_as_none() -> None:
    """ex:b's types include a literal and a blank node: neither is a type describe_schema
    shows (a blank node's label is the store's, not the data's)."""
    counted = statistics.count(context(_store(text=ODD)))
    shown = {t for pairs in counted.connects.values() for pair in pairs for t in pair[:2]} | set(counted.types)
    assert EX + "Person" in shown
    assert all(t is None or t.startswith("http") for t in shown), shown


def test_a_scope_counts_its_own_graphs_only() -> None:
    """The oracle above compares like with like; here, that a scope's counts differ from the whole's."""
    whole, scoped = _counted(context(_store(text=ODD))), _counted(context(_store(text=ODD), (EX + "g1",)))
    assert scoped.degrees == Counter({EX + "a": 1, EX + "b": 1})
    assert whole.degrees[EX + "a"] > scoped.degrees[EX + "a"]
    assert [text.value for _, _, text in scoped.text_values] == ["Bea"]


def test_only_an_embedded_native_graph_is_counted_so() -> None:
    ctx = context(_store(text=ODD))
    assert census(GraphContext(ctx.backend, ReificationProfile(ctx.backend))) is None


def _fields(found: Census) -> dict[str, object]:
    return {name: sorted(value.items(), key=repr) if isinstance(value, Counter | dict) else
            sorted(value, key=repr) if isinstance(value, list | Spool) else
            value.tolist() if isinstance(value, np.ndarray) else value
            for name, value in vars(found).items() if name != "entities"} | {
        "entities": sorted(found.entities)}


@pytest.mark.parametrize("name", ["odd cases", "schema.org", "Q42"])
def test_the_counts_are_the_same_from_text_quads_or_disk(name: str) -> None:
    """The store's own writers, quads read one at a time, and counts past the memory
    setting put on disk (a hash bucket at a time) count the same."""
    store = GRAPHS[name]()
    quads = EmbeddedBackend(store).capabilities.quads
    assert quads is not None
    read = quads(None)
    whole = count(read, StoreSource(store), texts=True)
    spilled = count(read, StoreSource(store), texts=True, memory=0)
    assert _fields(count(read, QuadSource(read), texts=True)) == _fields(whole) == _fields(spilled)
    if name != "odd cases":  # past the least the setting keeps (1,024 entities)
        assert spilled.entities._tally.spilled  # type: ignore[attr-defined]
    assert len(spilled.text_values) == len(whole.text_values) > 0  # type: ignore[arg-type]
    assert spilled.text_values.spilled and not whole.text_values.spilled  # type: ignore[attr-defined]


def test_a_spool_gives_back_its_rows_in_order_from_memory_or_disk() -> None:
    rows = [(f"{EX}{n}", "x" * (n % 50), n) for n in range(10_000)]
    for held, spilled in ((1 << 30, False), (1000, True)):
        spool = Spool[tuple[str, str, int]](held)
        for row in rows:
            spool.append(row)
        first, again = iter(spool), iter(spool)
        assert [next(first) for _ in range(4100)] == rows[:4100]  # a batch and more
        assert [next(again) for _ in range(3)] == rows[:3]
        assert list(first) == rows[4100:] and list(again) == rows[3:]  # readers interleaved
        assert list(spool) == rows and len(spool) == len(rows) and spool.spilled == spilled


def test_medlit_counts_equal_their_templates(medlit_gateway: object) -> None:
    store = medlit_gateway.backend.store  # type: ignore[attr-defined]
    ctx = context(store)
    found = _counted(ctx)
    excluded = iris(NON_EDGE_PREDICATES, ", ")
    assert dict(found.degrees) == {x: int(n.value) for x, n in ctx.select("degrees", excluded=excluded)}
    assert Counter(found.text_values) == Counter(tuple(row) for row in ctx.select("text_values", unsearched=UNSEARCHED_IRIS))


def _other(term: object) -> bool:
    """A type that is there but no IRI."""
    return term is not None and statistics._iri(term) is None


def _index_rows(index: search.SearchIndex) -> dict[str, list[tuple[object, ...]]]:
    db = index._db
    return {table: sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("entity", "name", "type", "fulltext")}


# -- the census read from the files' text beside the load ---------------------------------------
def _written(store: ox.Store) -> bytes:
    """The store's default graph as its own N-Triples writer spells it."""
    out = io.BytesIO()
    store.dump(out, format=ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
    return out.getvalue()


def _from_files(paths: list[Path]) -> tuple[Census | None, Census]:
    """(the census of the files' text, finished over the store they load into; the store's own)."""
    counted = census_files(paths, memory=64 << 20)
    store = ox.Store()
    load_files(store, paths, bulk=True)
    ctx = context(store)
    return finish_files(counted, ctx), _counted(ctx)


FILE_GRAPHS = ["odd cases", "shacl", "schema.org", "Q42"]


@pytest.mark.parametrize("name", FILE_GRAPHS + [f"random {seed}" for seed in range(6)])
def test_the_files_text_counts_as_the_store(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files spelt as the store writes them (its own dump; support.synth's random RDF 1.2
    graphs with reifiers, statuses and blank nodes) count the same from their text (the
    store's rdf:reifies quads read a few at a time)."""
    monkeypatch.setattr(census_module, "_BATCH", 7)
    path = tmp_path / "g.nt"
    if name.startswith("random"):
        path.write_text(synth.random_graph(random.Random(int(name.split()[1])), 40, 160, reified=True).to_ntriples(),
                        encoding="utf-8")
    else:
        path.write_bytes(_written(GRAPHS[name]()))
    from_text, from_store = _from_files([path])
    assert from_text is not None
    assert _unlabelled(from_text) == _unlabelled(from_store)
    assert from_text.namespace_keys == _namespace_keys([path])


def _namespace_keys(paths: list[Path]) -> Counter[str]:
    """Oracle: `namespace_key` of each IRI of each quad the store holds, read by its API."""
    store = ox.Store()
    load_files(store, paths, bulk=True)
    return Counter(namespace_key(iri) for quad in store for term in quad.triple for iri in term_iris(term))


def _unlabelled(found: Census) -> dict[str, object]:
    """`_fields`, a blank node's label (the store gives each load's its own) left out of the
    types, and an entity's types in no order (as entity_types.rq gives them)."""
    fields = _fields(found)
    del fields["namespace_keys"]  # counted from the text only: compared apart
    fields["entities"] = sorted((x, n, sorted(kinds)) for x, n, kinds in found.entities)
    fields["connects"] = sorted(Counter({tuple(_label(t) for t in key): n for key, n in found.connects.items()}).items(),
                                key=repr)
    return fields


def _label(term: object) -> object:
    return "_:" if isinstance(term, OtherType) and term.startswith("_:") else term


@pytest.mark.parametrize("files", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_repeated_lines_count_once_as_the_store_holds_them(
    seed: int, files: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines said twice or more (types, reifiers, texts, edges, blank nodes; in one file or
    across two) are one quad each; with the line hashes held or (odd seeds) put on disk."""
    if seed % 2:
        monkeypatch.setattr(census_text._LineHashes, "_HELD", 16)
        monkeypatch.setattr(census_text, "CHUNK", 512)
    rng = random.Random(seed)
    lines = synth.random_graph(rng, 40, 160, reified=True).to_ntriples().splitlines(keepends=True)
    lines += _written(GRAPHS["odd cases"]()).decode().splitlines(keepends=True)
    said = lines + rng.sample(lines, len(lines) // 3) + rng.sample(lines, 5)
    rng.shuffle(said)
    paths = [tmp_path / f"{n}.nt" for n in range(files)]
    for n, path in enumerate(paths):
        path.write_text("".join(said[n * len(said) // files: (n + 1) * len(said) // files]), encoding="utf-8")
    from_text, from_store = _from_files(paths)
    assert from_text is not None and _unlabelled(from_text) == _unlabelled(from_store)
    assert from_text.namespace_keys == _namespace_keys(paths)


def test_several_files_and_gzip_count_as_one_store(tmp_path: Path) -> None:
    lines = _written(GRAPHS["odd cases"]()).splitlines(keepends=True)
    first, second = tmp_path / "a.nt", tmp_path / "b.nt.gz"
    first.write_bytes(b"".join(lines[: len(lines) // 2]))
    second.write_bytes(gzip.compress(b"\n" + b"".join(lines[len(lines) // 2:])))
    from_text, from_store = _from_files([first, second])
    assert from_text is not None and _unlabelled(from_text) == _unlabelled(from_store)


A, P = f"<{EX}a>", f"<{EX}p>"


@pytest.mark.parametrize("line", [
    f'{A} {P} "x"@EN .',  # the store lower-cases a language tag
    f'{A} {P} "x"^^<{XSD}string> .',  # and writes a plain string without its datatype
    f"<{EX}\\u0062> {P} {A} .",  # and an IRI unescaped
    f"{A}  {P} {A} .",
    f"{A} {P} {A}. # said twice",
])
def test_text_not_spelt_as_the_store_is_counted_from_the_store(line: str, tmp_path: Path) -> None:
    path = tmp_path / "g.nt"
    path.write_text(f"{A} {P} <{EX}c> .\n{A} <{RDF}type> <{EX}T> .\n{line}\n", encoding="utf-8")
    from_text, _ = _from_files([path])
    assert from_text is None


def test_a_load_counts_the_same_beside_it_or_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bfsql load` of N-Triples takes the census from their text beside the bulk load; the
    statistics and index it writes are those of the store counted after it."""
    from gateway import loading

    path = tmp_path / "g.nt"
    path.write_text(synth.random_graph(random.Random(7), 60, 300, reified=True).to_ntriples(), encoding="utf-8")
    beside, after = tmp_path / "beside", tmp_path / "after"
    taken: list[bool] = []
    finish = loading.finish_files
    monkeypatch.setattr(loading, "finish_files", lambda *a: taken.append(True) or finish(*a))
    loading.load_store([path], beside, show_progress=False)
    assert taken
    monkeypatch.setattr(loading, "_census_beside", lambda *a: None)
    loading.load_store([path], after, show_progress=False)
    for name in (statistics.store_file(beside, "native").name,):
        assert _json_without_generation(beside / name) == _json_without_generation(after / name)
    assert _index_rows(search.SearchIndex.open(beside / search.SEARCH_FILE)) == _index_rows(
        search.SearchIndex.open(after / search.SEARCH_FILE))


def _json_without_generation(path: Path) -> object:
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("generation", None)
    return data


@pytest.mark.parametrize("seed", range(4))
def test_the_text_census_counts_the_same_with_its_types_on_disk(seed: int, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the memory setting the types' rows go to disk in hash buckets, as the counts per
    entity do, and are read back a bucket at a time: the counts are the store's still (with
    reifiers, odd seeds, and without)."""
    monkeypatch.setattr(census_tables, "LEAST", 8)
    written: list[int] = []
    write = census_tables.Pairs._write
    monkeypatch.setattr(census_tables.Pairs, "_write", lambda self: written.append(1) or write(self))
    path = tmp_path / "g.nt"
    graph = synth.random_graph(random.Random(seed), 60, 300, reified=bool(seed % 2)).to_ntriples()
    path.write_text(graph + (_written(GRAPHS["odd cases"]()).decode() if seed % 2 else ""), encoding="utf-8")
    counted = census_files([path], memory=0)
    store = ox.Store()
    load_files(store, [path], bulk=True)
    ctx = context(store)
    from_text = finish_files(counted, ctx)
    assert written and from_text is not None
    assert _unlabelled(from_text) == _unlabelled(_counted(ctx))
    assert from_text.namespace_keys == _namespace_keys([path])


def test_the_namespace_keys_of_any_iri_text(tmp_path: Path) -> None:
    """Oracle: `namespace_key` itself, on IRIs ending in separators, letters, digits and
    underscores in every order (random, seeded), as a load's text gives them."""
    rng = random.Random(5)
    objects = list(dict.fromkeys(EX + "".join(rng.choice("ab_Z9/#:.") for _ in range(rng.randint(0, 12)))
                                 for _ in range(3000)))  # a line said twice is one quad
    path = tmp_path / "g.nt"
    path.write_text("".join(f"<{EX}s> <{EX}p> <{iri}> .\n" for iri in objects), encoding="utf-8")
    expected = Counter(namespace_key(iri) for iri in objects)
    expected[namespace_key(EX + "s")] += len(objects) * 2  # the subject and the predicate of each line
    counted = census_files([path], memory=64 << 20)
    assert counted.pending is not None and counted.source.namespace_keys(counted.pending.tally) == expected


def test_the_namespace_keys_of_triple_terms_of_every_shape(tmp_path: Path) -> None:
    """Triple terms of IRIs, with a blank subject or a literal for an object, one said by
    two lines, count their IRIs as the store holds them (oracle: its quads)."""
    other = "https://other.example/ns#"
    lines = []
    for n, value in enumerate([f"<<( <{EX}a> <{EX}p> <{EX}b> )>>", f"<<( _:x <{EX}q> <{other}c> )>>",
                               f'<<( <{other}d> <{EX}p> "1"^^<{XSD}integer> )>>', f'<<( <{EX}e> <{EX}p> "x"@en )>>']):
        lines += [f"<{EX}r{n}> <{RDF}reifies> {value} .", f"<{EX}r{n}x> <{RDF}reifies> {value} ." if n == 1 else ""]
    lines.append(f"<{EX}a> <{EX}p> <{EX}b> .")
    path = tmp_path / "g.nt"
    path.write_text("\n".join(line for line in lines if line) + "\n", encoding="utf-8")
    counted = census_files([path], memory=64 << 20)
    assert counted.pending is not None and counted.source.namespace_keys(counted.pending.tally) == _namespace_keys([path])


def test_reifiers_are_held_as_hashes_not_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the file census keeps per rdf:reifies line grows by hashes (~150 bytes a reifier
    in all, measured by tracemalloc between two sizes), not by the terms' text in lists,
    counters and sets (~480 bytes, which took a 10M-line RDF 1.2 file's census to 1.4 GB)."""
    import tracemalloc

    monkeypatch.setattr(census_text, "CHUNK", 1 << 16)  # the same chunks at both sizes

    def peak(reifiers: int) -> int:
        path = tmp_path / f"{reifiers}.nt"
        with path.open("w", encoding="utf-8") as out:
            for i in range(reifiers):
                triple = f"<{EX}n{i % 997}> <{EX}r{i % 7}> <{EX}n{i * 31 % 1009}>"
                out.write(f"{triple} .\n<{EX}s{i}> <{RDF}reifies> <<( {triple} )>> .\n")
        tracemalloc.start()
        try:
            counted = census_files([path], memory=64 << 20)
            held = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert counted.pending is not None and sum(counted.pending.counts.predicates.values()) == reifiers
        return held

    small, large = peak(10_000), peak(30_000)
    assert (large - small) / 20_000 < 250


@pytest.mark.parametrize("seed", range(8))
def test_statuses_counted_by_hash_are_status_counts_own(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reifiers per truth status, from the files' text and from the store, counted by hash
    where the lines tell (`Reifications.statuses`), else read from the store's quads: both
    as status_counts.rq counts them (the oracle); odd seeds assert every reified triple, so
    that the lines tell every status."""
    rng = random.Random(seed)
    text = synth.random_graph(rng, 40, 160, reified=True).to_ntriples()
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    bfs = "https://w3id.org/bfsql#"
    for reifier in sorted({str(q.subject) for q in store.quads_for_pattern(None, ox.NamedNode(RDF + "reifies"), None)}):
        for day in range(rng.choice([0, 0, 1, 2])):  # stated at one time or two, or none
            text += f'{reifier} <{bfs}assertedAt> "2020-01-0{day + 1}"^^<{XSD}date> .\n'
        if rng.random() < 0.1:  # a second status
            text += f"{reifier} <{bfs}truthStatus> <{bfs}disputed> .\n"
    store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    if seed % 2:
        text += "".join(f"{quad.object.subject} {quad.object.predicate} {quad.object.object} .\n"
                        for quad in store.quads_for_pattern(None, ox.NamedNode(RDF + "reifies"), None)
                        if isinstance(quad.object, ox.Triple))
        store.load(text.encode(), format=ox.RdfFormat.N_TRIPLES)
    path = tmp_path / "g.nt"
    path.write_text(text, encoding="utf-8")
    ctx = context(store)
    expected = {status: (int(n.value), int(untimed.value)) for status, n, untimed in ctx.select("status_counts")}
    compared = store_quads = 0
    real = census_module._count_statuses

    def from_quads(*args: object) -> None:
        nonlocal store_quads
        store_quads += 1
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(census_module, "_count_statuses", from_quads)
    for found in (finish_files(census_files([path], memory=64 << 20), ctx), _counted(ctx)):
        assert found is not None
        assert {status: (n, found.untimed[status]) for status, n in found.statuses.items()} == expected
        compared += 1
    assert expected and compared == 2
    assert store_quads == (0 if seed % 2 else 2)  # every line told: no quad read back
