"""Loading real files: formats, lenient mode on real Wikidata data, on-disk stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway import Gateway, InvalidInput
from gateway.loading import load_store
from tests.conftest import DEMO, shared_data

Q513 = ("wikidata", "RdfRepositoryUpdaterIntegrationTest.Q513-munged.ttl")


def test_strict_load_refuses_an_invalid_language_tag_and_says_where() -> None:
    with pytest.raises(InvalidInput) as caught:
        Gateway.open(shared_data(*Q513))
    assert "line 1641" in caught.value.message and "lenient" in caught.value.message


def test_lenient_load_keeps_everything_and_reports_what_it_let_through() -> None:
    gateway = Gateway.open(shared_data(*Q513), lenient=True)
    assert gateway.load_warnings() == ["kept 1 literal(s) with the invalid language tag 'zh-classical' (lenient mode)"]
    report = gateway.backend.report  # type: ignore[attr-defined]
    # Every triple survives: the same count as a line-by-line parse that drops nothing.
    assert report.quads == 2154
    everest = gateway.describe_entity("http://www.wikidata.org/entity/Q513")
    assert everest.label == "Mount Everest"


@pytest.mark.parametrize("name", ["Q42.ttl", "small_dump.ttl", "lexeme_dump.ttl", "test.ttl"])
def test_real_wikidata_dumps_load(name: str) -> None:
    gateway = Gateway.open(shared_data("wikidata", name))
    assert gateway.backend.report.quads > 0  # type: ignore[attr-defined]


def test_formats_round_trip(tmp_path: Path) -> None:
    import pyoxigraph as ox

    store = ox.Store()
    store.load(path=str(DEMO), format=ox.RdfFormat.TRIG)
    expected = Gateway.open(DEMO).bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True)
    for suffix, fmt in ((".nq", ox.RdfFormat.N_QUADS), (".trig", ox.RdfFormat.TRIG)):
        path = tmp_path / f"demo{suffix}"
        store.dump(str(path), format=fmt)
        gateway = Gateway.open(path, prefixes={"wiki": "https://example.org/wiki/", "obj": "https://example.org/obj/",
                                               "rel": "https://example.org/rel/", "stmt": "https://example.org/stmt/",
                                               "sh": "https://example.org/schema/"})
        got = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2, topology_only=True)
        assert got.nodes == expected.nodes and got.edges == expected.edges


def test_unknown_format_and_missing_file_are_invalid_input(tmp_path: Path) -> None:
    (tmp_path / "graph.xyz").write_text("x")
    with pytest.raises(InvalidInput):
        Gateway.open(tmp_path / "graph.xyz")
    with pytest.raises(InvalidInput):
        Gateway.open(tmp_path / "missing.ttl")


def test_on_disk_store_answers_like_memory(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    report = load_store([DEMO], directory, show_progress=False)
    assert report.quads == 461
    assert (directory / "search.sqlite").is_file() and (directory / "meta.json").is_file()
    on_disk = Gateway.open(directory)
    in_memory = Gateway.open(DEMO)
    query = {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2}
    assert on_disk.bfs_query(**query) == in_memory.bfs_query(**query)
    assert on_disk.search_entities("the woman") == in_memory.search_entities("the woman")


def test_a_store_directory_copied_into_memory_answers_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.backends import embedded
    from gateway.surfaces.serve import ServeConfig, build_app

    directory = tmp_path / "store"
    load_store([DEMO], directory, show_progress=False)
    on_disk, copied = Gateway.open(directory), Gateway.open(directory, in_memory=True)
    assert copied.backend.store_path is None and len(copied.backend.store) == 461  # type: ignore[attr-defined]
    query = {"seeds": ["wiki:Sherlock_Holmes"], "max_hops": 2, "truth_status": ["asserted_true", "disputed"]}
    assert copied.bfs_query(**query) == on_disk.bfs_query(**query)
    assert copied.search_entities("the woman") == on_disk.search_entities("the woman")
    # bfsql serve DIR: in memory when it fits, on disk when asked or when it would not.
    assert embedded.fits_in_memory(directory) and not embedded.fits_in_memory(tmp_path)
    opened: list[bool] = []
    monkeypatch.setattr(Gateway, "open", classmethod(lambda cls, *a, in_memory=False, **k: opened.append(in_memory) or copied))
    for config in (ServeConfig(source=str(directory)), ServeConfig(source=str(directory), on_disk=True)):
        build_app(config)
    monkeypatch.setattr(embedded, "BYTES_PER_QUAD", 10**15)
    build_app(ServeConfig(source=str(directory)))
    assert opened == [True, False, False]

