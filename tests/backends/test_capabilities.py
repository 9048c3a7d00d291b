"""One `select`, its answer in the shape asked for; what a store can do, as it declares it;
and a scope that declares its own, so that nothing made over every graph passes through."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway.backends import reifiers
from gateway.backends.base import IRIS, LINES, ROWS, TABLE, WRITTEN, Shape
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.backends.scoped import ScopedBackend
from gateway.terms import XSD, Literal

EX = "http://example.org/"
REIFIES = "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies"
DATA = f"""
<{EX}a> <{EX}p> <{EX}b> <{EX}g1> .
<{EX}a> <{EX}name> "Ann" <{EX}g1> .
<{EX}c> <{EX}p> <{EX}d> <{EX}g2> .
<{EX}r> <{REIFIES}> <<( <{EX}x> <{EX}p> <{EX}y> )>> <{EX}g2> .
"""
QUERY = "SELECT ?s ?o WHERE { ?s ?p ?o FILTER(?p != <" + REIFIES + ">) } ORDER BY ?s ?o"


def _store(text: str = DATA) -> ox.Store:
    store = ox.Store()
    store.load(text.encode(), format=ox.RdfFormat.N_QUADS)
    return store


def test_each_shape_is_the_same_answer() -> None:
    backend = EmbeddedBackend(_store())
    assert backend.select(QUERY) == backend.select(QUERY, TABLE) == (
        ["s", "o"], [[EX + "a", EX + "b"], [EX + "a", Literal("Ann", XSD + "string")], [EX + "c", EX + "d"]])
    assert backend.select(QUERY, LINES) == [f"{EX}a\t{EX}b", f"{EX}a\tAnn", f"{EX}c\t{EX}d"]
    assert backend.select(QUERY, WRITTEN) == [f"<{EX}a>\t<{EX}b>", f'<{EX}a>\t"Ann"', f"<{EX}c>\t<{EX}d>"]
    assert backend.select(f"SELECT ?o WHERE {{ <{EX}a> ?p ?o }} ORDER BY ?o", IRIS) == [EX + "b"]
    read = backend.rows_read
    rows = backend.select(QUERY, ROWS)
    assert backend.rows_read == read  # nothing read until asked for
    assert list(rows) == backend.select(QUERY)[1] and backend.rows_read == read + 3 + 3
    with pytest.raises(ValueError, match="no such shape"):
        backend.select(QUERY, Shape[list[str]]("another"))


def test_a_scope_reads_its_graphs_whatever_a_query_asks() -> None:
    scoped = ScopedBackend(EmbeddedBackend(_store()), (EX + "g2",))
    alone = EmbeddedBackend(_store(DATA.replace(f"<{EX}g1>", f"<{EX}g3>")))
    for shape in (TABLE, LINES, WRITTEN):
        assert scoped.select(QUERY, shape, graphs=[EX + "g1"]) == alone.select(QUERY, shape, graphs=[EX + "g2"])
    assert list(scoped.select(QUERY, ROWS, graphs=[EX + "g1"])) == alone.select(QUERY, graphs=[EX + "g2"])[1]


def test_a_store_declares_what_it_can_do(tmp_path: Path) -> None:
    embedded = EmbeddedBackend(_store(), directory=tmp_path, reifier_scan=reifiers.done(reifiers.ReifierScan([], frozenset())))
    can = embedded.capabilities
    assert can.evaluates_checks and not can.round_trips and can.endpoint is None and can.max_concurrency == 1
    assert can.directory == tmp_path and can.local_store is not None and can.local_store.store is embedded.store
    assert can.quads is not None and len(list(can.quads(None)(None, None, None))) == 4
    assert can.reifier_scan is not None and can.reifier_scan.unasserted() == []
    remote = RemoteBackend(EndpointConfig("http://user:secret@127.0.0.1:1/sparql"))
    wikidata = RemoteBackend(EndpointConfig("https://query.wikidata.org/sparql", max_concurrency=8))
    try:
        assert remote.capabilities.round_trips and remote.capabilities.endpoint == "http://127.0.0.1:1/sparql"
        assert remote.capabilities.max_concurrency == 4 and wikidata.capabilities.max_concurrency == 1
        assert not remote.capabilities.evaluates_checks
        assert (remote.capabilities.directory, remote.capabilities.quads, remote.capabilities.reifier_scan,
                remote.capabilities.local_store) == (None, None, None, None)
    finally:
        remote.close()
        wikidata.close()


def test_a_scope_declares_its_own_capabilities(tmp_path: Path) -> None:
    inner = EmbeddedBackend(_store(), directory=tmp_path, reifier_scan=reifiers.done(reifiers.ReifierScan([], frozenset())))
    can = ScopedBackend(inner, (EX + "g1",)).capabilities
    assert can.directory is None and can.local_store is None  # made over every graph: never a scope's
    assert can.evaluates_checks and can.max_concurrency == 1 and not can.round_trips
    assert can.quads is not None
    quads = list(can.quads(None)(None, None, None))  # its own graphs' whatever is asked for
    assert {q.graph_name for q in quads} == {ox.NamedNode(EX + "g1")} and len(quads) == 2
    assert inner.capabilities.reifier_scan is not None and can.reifier_scan is not None
    assert inner.capabilities.reifier_scan.unasserted() == [] and can.reifier_scan.unasserted() is None  # SPARQL asks
    remote = RemoteBackend(EndpointConfig("https://query.wikidata.org/sparql"))
    try:
        scoped = ScopedBackend(remote, (EX + "g1",)).capabilities
        assert scoped.round_trips and scoped.endpoint == remote.endpoint and scoped.max_concurrency == 1
    finally:
        remote.close()


@pytest.mark.parametrize("setting", [{"result_format": "xml"}, {"max_body": 0}])
def test_an_endpoint_config_is_checked_when_made(setting: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        EndpointConfig("http://127.0.0.1:1/sparql", **setting)  # type: ignore[arg-type]
