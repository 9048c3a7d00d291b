"""The graph's statistics are counted once: by `bfsql load`, or once per file (cached)."""

from __future__ import annotations

import os
from pathlib import Path

import pyoxigraph as ox

from gateway import Gateway
from gateway.auth import Reader
from gateway.engine.statistics import store_file
from gateway.loading import load_store
from tests.conftest import DEMO, ROOT

COUNTING = ("predicate_counts", "type_counts", "status_counts", "plain_count", "term_type_counts")
"""Queries that counting sends (type_counts.rq only where no census can be taken; term_type_counts.rq always)."""


def counting_queries(gateway: Gateway, reader: Reader | None = None) -> list[str]:
    """The counting queries one describe_schema sends."""
    sent: list[str] = []
    gateway.backend.query_log = lambda text, rows: sent.append(text)  # type: ignore[attr-defined]
    gateway.call("describe_schema", reader=reader)
    return [name for name in COUNTING if any(f"# {_first_comment(name)}" in text for text in sent)]


def _first_comment(name: str) -> str:
    text = (ROOT / "queries" / "native" / f"{name}.rq").read_text()
    return text.splitlines()[0].removeprefix("# ")


def test_a_file_is_counted_once_then_read_from_the_cache(tmp_path: Path) -> None:
    data = tmp_path / "demo.trig"
    data.write_bytes(DEMO.read_bytes())
    first = Gateway.open(data)
    assert counting_queries(first)  # counted
    second = Gateway.open(data)
    assert counting_queries(second) == []  # read back
    assert second.describe_schema() == first.describe_schema()
    os.utime(data, ns=(1, 1))  # a changed file is counted again
    assert counting_queries(Gateway.open(data))


def test_bfsql_load_counts_into_the_store(tmp_path: Path) -> None:
    load_store([DEMO], tmp_path / "store", show_progress=False)
    assert store_file(tmp_path / "store", "native").is_file()
    loaded = Gateway.open(tmp_path / "store")
    assert counting_queries(loaded) == []
    assert loaded.describe_schema().statements == Gateway.open(DEMO).describe_schema().statements


def test_a_reader_gets_the_counts_of_its_own_graphs(tmp_path: Path) -> None:
    """Oracle: the same counts as a store holding only that reader's graphs."""
    canon = "https://example.org/graph/canon"
    whole = Gateway.open(DEMO)
    reader = Reader("canon", (canon,))
    only = ox.Store()
    only.extend(ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph())
                for q in whole.backend.store.quads_for_pattern(None, None, None, ox.NamedNode(canon)))  # type: ignore[attr-defined]
    expected = Gateway.open(only).describe_schema()
    seen = whole.call("describe_schema", reader=reader)
    assert seen.statements == expected.statements  # type: ignore[attr-defined]
    assert seen.truth_statuses == expected.truth_statuses  # type: ignore[attr-defined]
    assert seen.statements != whole.describe_schema().statements  # type: ignore[attr-defined]
