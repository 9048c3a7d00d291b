"""Reifier-only statements found beside the load, kept by `bfsql load`, and asked of SPARQL
all agree with the store's own quads (an oracle written here from `quads_for_pattern`)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends import reifiers
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.store_directory import store_generation
from gateway.loading import load_store
from gateway.profiles.native import NativeProfile
from support import synth

EX = "http://example.org/"
REIFIES = "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"


def oracle(store: ox.Store) -> set[tuple[str, str, str, str]]:
    """(reifier, s, p, o) of every IRI reifier whose IRI-to-IRI triple no graph asserts."""
    found = set()
    for quad in store.quads_for_pattern(None, ox.NamedNode(REIFIES), None):
        t = quad.object
        if not (isinstance(quad.subject, ox.NamedNode) and isinstance(t, ox.Triple)):
            continue
        if isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode) and \
                not any(True for _ in store.quads_for_pattern(t.subject, t.predicate, t.object)):
            found.add((quad.subject.value, t.subject.value, t.predicate.value, t.object.value))
    return found


def scanned(found: reifiers.ReifierScan) -> set[tuple[str, str, str, str]]:
    return {(r.value, s, p, o) for r, s, p, o in found.unasserted}


def asked(store: ox.Store) -> set[tuple[str, str, str, str]]:
    """What the profile's SPARQL (`unasserted.rq`) finds, as when nothing was scanned."""
    rows = NativeProfile(EmbeddedBackend.from_store(store)).select("unasserted")
    return {(str(r), str(s), str(p), str(o)) for r, s, p, o, *_ in rows}


@pytest.mark.parametrize("seed", range(12))
def test_scan_equals_the_store_and_sparql_on_random_graphs(tmp_path: Path, seed: int) -> None:
    graph = synth.random_graph(random.Random(seed), 30, 120, reified=True)
    path = tmp_path / "g.nt"
    path.write_text(graph.to_ntriples(), encoding="utf-8")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_TRIPLES)
    expected = oracle(store)
    found = reifiers.scan([(path, ox.RdfFormat.N_TRIPLES)])
    assert scanned(found) == expected == asked(store)
    assert found.namespaces == {synth.statement_iri(0).rsplit("/", 1)[0] + "/"} or not expected
    # the walks agree whether the statements came from the scan or from SPARQL
    seeds = sorted({s for _, s, _, _ in expected} | {synth.entity(0)})[:3]
    call = {"seeds": seeds, "max_hops": 2, "truth_status": ["asserted_true", "hypothetical", "disputed", "retracted"]}
    from_file, from_store = Gateway.open(path), Gateway.open(store)
    scan = from_file.backend.capabilities.reifier_scan
    assert scan is not None and scan.unasserted() is not None  # the statements came from the scan
    assert from_file.bfs_query(**call).model_dump() == from_store.bfs_query(**call).model_dump()


NQUADS = f"""<{EX}r1> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}b> )>> <{EX}g1> .
<{EX}a> <{EX}p> <{EX}b> <{EX}g2> .
<{EX}r2> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}c> )>> <{EX}g1> .
<{EX}r2> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}c> )>> <{EX}g2> .
<{EX}r3> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}c> )>> .
<{EX}r4> <{REIFIES}> <<( <{EX}a> <{EX}p> "text" )>> .
_:b <{REIFIES}> <<( <{EX}a> <{EX}q> <{EX}d> )>> .
<{EX}r5> <{REIFIES}> <<( <{EX}a> <{EX}q> <{EX}d> )>> .
<{EX}a> <{EX}q> <{EX}d> .
"""


def test_named_graphs_blank_and_literal_reifiers(tmp_path: Path) -> None:
    """Asserted in another graph is asserted; a reifier in two graphs, or two reifiers of
    one triple, are each found; literals and blank reifiers are not walked."""
    path = tmp_path / "g.nq"
    path.write_text(NQUADS, encoding="utf-8")
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.N_QUADS)
    expected = {(f"{EX}r2", f"{EX}a", f"{EX}p", f"{EX}c"), (f"{EX}r3", f"{EX}a", f"{EX}p", f"{EX}c")}
    assert oracle(store) == expected
    found = reifiers.scan([(path, ox.RdfFormat.N_QUADS)])
    assert scanned(found) == expected == asked(store)
    assert found.namespaces == {EX}


def test_bfsql_load_keeps_the_scan_and_a_later_load_can_assert_a_triple(tmp_path: Path) -> None:
    first, second = tmp_path / "first.nt", tmp_path / "second.nt"
    first.write_text(f"<{EX}r1> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}b> )>> .\n"
                     f"<{EX}r2> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}c> )>> .\n", encoding="utf-8")
    second.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}r3> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}d> )>> .\n", encoding="utf-8")
    directory = tmp_path / "store"
    load_store([first], directory, show_progress=False)
    kept = reifiers.read(directory / reifiers.FILE, store_generation(directory))
    assert kept is not None
    assert scanned(kept) == {(f"{EX}r1", f"{EX}a", f"{EX}p", f"{EX}b"), (f"{EX}r2", f"{EX}a", f"{EX}p", f"{EX}c")}
    load_store([second], directory, show_progress=False)
    kept = reifiers.read(directory / reifiers.FILE, store_generation(directory))
    assert kept is not None
    opened = Gateway.open(directory)
    assert scanned(kept) == oracle(opened.backend.store) == {  # type: ignore[attr-defined]
        (f"{EX}r2", f"{EX}a", f"{EX}p", f"{EX}c"), (f"{EX}r3", f"{EX}a", f"{EX}p", f"{EX}d")}
    call = {"seeds": [f"{EX}a"], "max_hops": 1, "truth_status": ["asserted_true", "hypothetical"]}
    assert opened.bfs_query(**call).model_dump() == Gateway.open(opened.backend.store).bfs_query(**call).model_dump()  # type: ignore[attr-defined]


def test_a_directory_without_the_file_asks_sparql(tmp_path: Path) -> None:
    path = tmp_path / "g.nt"
    path.write_text(f"<{EX}r1> <{REIFIES}> <<( <{EX}a> <{EX}p> <{EX}b> )>> .\n", encoding="utf-8")
    directory = tmp_path / "store"
    load_store([path], directory, show_progress=False)
    (directory / reifiers.FILE).unlink()
    opened = Gateway.open(directory)
    assert opened.backend.capabilities.reifier_scan is None
    answer = opened.bfs_query(seeds=[f"{EX}a"], max_hops=1, truth_status=["hypothetical"])
    assert len(answer.edges) == 1


def test_a_gzipped_file_is_scanned_as_the_plain_one(tmp_path: Path) -> None:
    import gzip

    graph = synth.random_graph(random.Random(3), 30, 120, reified=True)
    path, packed = tmp_path / "g.nt", tmp_path / "g.nt.gz"
    path.write_text(graph.to_ntriples(), encoding="utf-8")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    expected = scanned(reifiers.scan([(path, ox.RdfFormat.N_TRIPLES)]))
    assert expected and scanned(reifiers.scan([(packed, ox.RdfFormat.N_TRIPLES)])) == expected
    scan = Gateway.open(packed).backend.capabilities.reifier_scan
    rows = scan.unasserted() if scan is not None else None
    assert rows is not None and {tuple(row[:4]) for row in rows} == expected


@pytest.mark.parametrize("seed", range(6))
def test_bfsql_load_asks_the_store_only_of_triples_its_census_saw_no_line_assert(tmp_path: Path, seed: int) -> None:
    """`bfsql load` reads the reifier-only statements after its census, asking the store
    only of the triples the census did not see asserted: what it keeps is the oracle's,
    and the census's hashes are what narrow it (asking of none finds none); where every
    reified triple is asserted, nothing is asked and none is kept."""
    graph = synth.random_graph(random.Random(seed), 30, 120, reified=True)
    path = tmp_path / "g.nt"
    path.write_text(graph.to_ntriples(), encoding="utf-8")
    directory = tmp_path / "store"
    load_store([path], directory, show_progress=False)
    kept = reifiers.read(directory / reifiers.FILE, store_generation(directory))
    store = Gateway.open(directory).backend.store  # type: ignore[attr-defined]
    assert kept is not None and scanned(kept) == oracle(store) != set()
    assert kept.namespaces == reifiers.in_store(store).namespaces
    assert not reifiers.in_store(store, np.zeros(0, dtype=np.int64)).unasserted
    asserted = path.read_text(encoding="utf-8") + "".join(f"<{s}> <{p}> <{o}> .\n" for _, s, p, o in oracle(store))
    path.write_text(asserted, encoding="utf-8")
    load_store([path], tmp_path / "asserted", show_progress=False)
    kept = reifiers.read(tmp_path / "asserted" / reifiers.FILE, store_generation(tmp_path / "asserted"))
    assert kept is not None and not kept.unasserted and kept.namespaces
