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



# -- a load that dies leaves nothing stale ------------------------------------------------------
def _load_and_kill(tmp_path: Path, data: Path, store: Path, after: float) -> int:
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen([sys.executable, "-m", "gateway.surfaces.cli", "load", str(data), "--store", str(store)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(after)
    process.send_signal(signal.SIGKILL)
    return process.wait()


@pytest.mark.parametrize("after", [1.5, 3.0, 4.2])
def test_a_killed_load_is_refused_or_whole_never_stale(tmp_path: Path, after: float) -> None:
    """`kill -9` at a point of the load: opening the store either says the load did not
    finish, or (when it had finished) gives the statistics and names a fresh count gives."""
    from support.synth import power_law_ntriples

    data = tmp_path / "graph.nt"
    data.write_text("".join(power_law_ntriples(100_000, seed=3, reified=True)), encoding="utf-8")
    store = tmp_path / "store"
    code = _load_and_kill(tmp_path, data, store, after)
    try:
        opened = Gateway.open(store)
    except InvalidInput as refused:  # killed while loading (or before the store was made)
        assert code != 0 and (("did not finish" in refused.message and "run the same load again" in refused.message)
                              or not store.exists()), refused.message
        load_store([data], store, show_progress=False)  # what the message says to do
        opened = Gateway.open(store)
    schema = opened.describe_schema()
    fresh = Gateway.open(data).describe_schema()
    assert schema.statements == fresh.statements and schema.truth_statuses == fresh.truth_statuses
    hit = opened.search_entities("e1").results
    assert hit == Gateway.open(data).search_entities("e1").results
    assert not [p.name for p in store.glob(".*.*") if p.name.rsplit(".", 1)[-1].isdigit()]  # no half-written file kept


def test_the_next_load_removes_what_a_killed_one_left_half_written(tmp_path: Path) -> None:
    """A load killed while writing its name index leaves `.search.sqlite.PID`: the next load
    removes the files of processes that are gone, and only those."""
    import subprocess
    import sys

    store = tmp_path / "store"
    load_store([DEMO], store, show_progress=False)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = [store / f".search.sqlite.{gone.pid}", store / f".statistics-native.json.{gone.pid}"]
    for path in left:
        path.write_bytes(b"half")
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = store / f".search.sqlite.{alive.pid}"  # a load under way elsewhere: not ours to remove
        running.write_bytes(b"busy")
        load_store([DEMO], store, show_progress=False)
        assert not any(path.exists() for path in left) and running.exists()
    finally:
        alive.kill()
        alive.wait()


def test_side_files_of_another_load_are_not_believed(tmp_path: Path) -> None:
    """A store whose statistics, index and reifier scan were made for an earlier load (here:
    copied back from it) reads its data again instead of answering from them."""
    import shutil

    from gateway.engine.search import SEARCH_FILE
    from gateway.engine.statistics import store_file

    first, second = tmp_path / "a.nt", tmp_path / "b.nt"
    first.write_text("<http://x.example/a> <http://x.example/p> <http://x.example/b> .\n", encoding="utf-8")
    second.write_text("<http://x.example/c> <http://x.example/q> <http://x.example/d> .\n"
                      '<http://x.example/c> <http://www.w3.org/2000/01/rdf-schema#label> "Cecil" .\n', encoding="utf-8")
    store = tmp_path / "store"
    load_store([first], store, show_progress=False)
    old = tmp_path / "old"
    old.mkdir()
    for name in (SEARCH_FILE, store_file(store, "native").name):
        shutil.copy(store / name, old / name)
    assert load_store([second], store, show_progress=False).quads == 3  # the store's, not the file's
    for name in (SEARCH_FILE, store_file(store, "native").name):
        shutil.copy(old / name, store / name)
    opened = Gateway.open(store)
    assert opened.describe_schema().statements.total == 2
    assert opened.search_entities("Cecil").results[0].id == "http://x.example/c"


def test_a_corrupt_meta_json_is_one_line(tmp_path: Path) -> None:
    store = tmp_path / "store"
    load_store([DEMO], store, show_progress=False)
    (store / "meta.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"meta\.json: cannot be read"):
        Gateway.open(store)


def test_a_load_that_dies_after_its_quads_leaves_a_store_that_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dead between the quads and the side files (the probe's 2,378-of-202,378 case)."""
    from gateway.engine import search

    store = tmp_path / "store"
    load_store([DEMO], store, show_progress=False)

    def dies(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(search.SearchIndex, "build", dies)
    with pytest.raises(KeyboardInterrupt):
        load_store([DEMO], store, show_progress=False)
    with pytest.raises(InvalidInput, match="did not finish"):
        Gateway.open(store)
    monkeypatch.undo()
    load_store([DEMO], store, show_progress=False)
    assert Gateway.open(store).describe_schema().statements == Gateway.open(DEMO).describe_schema().statements


# -- what pyoxigraph would crash on, or a file that is not what it says -------------------------
def _nested(depth: int) -> str:
    # A comment and a string with the brackets in them count for nothing.
    return ("@prefix x: <http://x.example/> .\n# <<( <<( <<(\nx:s x:p \"<<( >> )>>\" .\n"
            "x:s x:p " + "<<( x:a x:b " * depth + "x:c" + " )>>" * depth + " .\n")


def test_triple_terms_nested_past_the_bound_are_refused_before_parsing(tmp_path: Path) -> None:
    """10,000 deep killed the process (a segfault in a query over it); 64 deep loads."""
    from gateway.backends.file_checks import MAX_TRIPLE_TERM_DEPTH

    ok, deep = tmp_path / "ok.ttl", tmp_path / "deep.ttl"
    ok.write_text(_nested(MAX_TRIPLE_TERM_DEPTH), encoding="utf-8")
    deep.write_text(_nested(10_000), encoding="utf-8")
    assert Gateway.open(ok).backend.report.quads == 2  # type: ignore[attr-defined]
    for path in (deep, _gzipped(deep)):
        with pytest.raises(InvalidInput, match=r"line 4: triple terms nest deeper than 64"):
            Gateway.open(path)
    with pytest.raises(InvalidInput, match="nest deeper"):
        load_store([deep], tmp_path / "store", show_progress=False)


def _gzipped(path: Path) -> Path:
    import gzip

    packed = path.with_name(path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    return packed


def test_files_that_are_not_what_they_say_are_one_line(tmp_path: Path) -> None:
    whole = _gzipped(DEMO)
    cut = tmp_path / "cut.trig.gz"
    cut.write_bytes(whole.read_bytes()[:200])
    fake = tmp_path / "fake.trig.gz"
    fake.write_bytes(DEMO.read_bytes())
    big = tmp_path / "big.nt"
    big.write_text('<http://x.example/s> <http://x.example/p> "' + "a" * (17 << 20) + '" .\n', encoding="utf-8")
    for path, said in ((cut, "not a whole gzip file"), (fake, "not a whole gzip file"), (big, "larger than the parser")):
        with pytest.raises(InvalidInput, match=said):
            Gateway.open(path)
    store = tmp_path / "store"
    with pytest.raises(InvalidInput, match="larger than the parser"):
        load_store([big], store, show_progress=False)
    load_store([DEMO], store, show_progress=False)  # a refused load left the store as it was
    assert Gateway.open(store).describe_schema().statements.total > 0
    whole.unlink()


def _token_at(path: Path, line: int, column: int) -> str:
    """The text of `path` at line `line`, column `column` (both from 1), to the line's end."""
    return path.read_text(encoding="utf-8").split("\n")[line - 1][column - 1:]


def _with_a_quote_left_open(tmp_path: Path) -> tuple[Path, int]:
    """Q42's Wikidata export with one string's closing quote taken away, 20 lines from its
    end: a lenient parse reads that string on across the line breaks into the next lines."""
    lines = shared_data("wikidata", "Q42.ttl").read_text(encoding="utf-8").split("\n")
    at = next(i for i in range(len(lines) - 20, 0, -1) if lines[i].count('"') == 2)
    first, _, rest = lines[at].partition('"')
    text, _, after = rest.partition('"')
    lines[at] = f'{first}"{text} {after}'
    path = tmp_path / "q42-open-quote.ttl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, at + 1


def test_a_lenient_parse_error_is_given_where_it_is(tmp_path: Path) -> None:
    import re

    path, opened = _with_a_quote_left_open(tmp_path)
    with pytest.raises(InvalidInput) as strict:
        Gateway.open(path)
    # A syntax error no lenient parse takes: the strict one says where, without the lenient hint.
    assert f"line {opened} column" in strict.value.message and "lenient" not in strict.value.message
    with pytest.raises(InvalidInput) as lenient:
        Gateway.open(path, lenient=True)
    found = re.search(r"line (\d+) column (\d+): (\S+) is not", lenient.value.message)
    assert found, lenient.value.message
    line, column, token = int(found[1]), int(found[2]), found[3]
    lines = path.read_text(encoding="utf-8").split("\n")
    assert line > opened and column <= len(lines[line - 1])
    assert _token_at(path, line, column).startswith(token), (lenient.value.message, lines[line - 1])
    assert f"opened on line {opened}" in lenient.value.message


def test_a_late_error_is_given_at_one_place_however_the_file_is_read(tmp_path: Path) -> None:
    """In memory from its path, by `bfsql load` through a counting reader, and gzipped."""
    path, _ = _with_a_quote_left_open(tmp_path)
    with pytest.raises(InvalidInput) as in_memory:
        Gateway.open(path, lenient=True)
    where = in_memory.value.message.removeprefix(path.name)
    for source in (path, _gzipped(path)):
        with pytest.raises(InvalidInput) as caught:
            load_store([source], tmp_path / f"store{source.suffix}", lenient=True, show_progress=False)
        assert caught.value.message == f"{source.name}{where}"


def test_a_folder_of_rdf_files_opens_as_its_files_loaded_together(tmp_path: Path) -> None:
    import shutil

    import pyoxigraph as ox

    folder = tmp_path / "mine"
    folder.mkdir()
    names = ["Q24628793.ttl", "Q37599471.ttl"]
    for name in names:
        shutil.copy(shared_data("wikidata", name), folder / name)
    (folder / "notes.txt").write_text("not RDF")  # passed over: its extension names no syntax
    oracle = ox.Store()
    for name in names:
        oracle.load(path=str(folder / name), format=ox.RdfFormat.TURTLE)
    gateway = Gateway.open(folder)
    assert gateway.backend.report.quads == len(oracle)  # type: ignore[attr-defined]
    load_store([folder], tmp_path / "store", show_progress=False)
    assert gateway.describe_schema() == Gateway.open(tmp_path / "store").describe_schema()


def test_a_folder_of_no_rdf_file_says_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "graph.data").write_text("<http://a> <http://b> <http://c> .\n")
    with pytest.raises(InvalidInput) as caught:
        Gateway.open(tmp_path)
    assert "--rdf-format" in caught.value.message and "bfsql load" in caught.value.message
    assert "graph.data" in caught.value.message and "CURRENT" not in caught.value.message


def test_store_errors_are_said_in_the_gateways_words(tmp_path: Path) -> None:
    import subprocess
    import sys

    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "CURRENT").write_text("MANIFEST-nothing\n")
    with pytest.raises(InvalidInput) as caught:
        Gateway.open(damaged)
    assert "damaged" in caught.value.message and "Corruption" not in caught.value.message
    store = tmp_path / "held"
    load_store([DEMO], store, show_progress=False)
    before = (store / "meta.json").read_text()
    holder = subprocess.Popen([sys.executable, "-c", "import pyoxigraph, sys; s = pyoxigraph.Store(sys.argv[1]); "
                               "print('held', flush=True); sys.stdin.read()", str(store / "store")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InvalidInput) as locked:
            load_store([DEMO], store, show_progress=False)
    finally:
        holder.communicate("", timeout=60)
    assert "another process is writing to this store" in locked.value.message
    assert "LOCK" not in locked.value.message and "IO error" not in locked.value.message
    assert (store / "meta.json").read_text() == before  # the other load's store is left as it was


def test_bfsql_load_profile_builds_the_name_index_as_that_profile_reads(tmp_path: Path) -> None:
    import json

    import pyoxigraph as ox

    from gateway.surfaces.cli import main

    q42 = shared_data("wikidata", "Q42.ttl")
    assert main(["load", str(q42), "--store", str(tmp_path / "s"), "--profile", "wikidata"]) == 0
    assert json.loads((tmp_path / "s" / "meta.json").read_text())["profile"] == "wikidata"
    oracle = ox.Store()
    oracle.load(path=str(q42), format=ox.RdfFormat.TURTLE)
    kinds = {row["t"].value.replace("http://www.wikidata.org/entity/", "wd:") for row in oracle.query(  # type: ignore[index, union-attr]
        "SELECT ?t { <http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P31> ?t }")}
    hit = Gateway.open(tmp_path / "s").search_entities(query="Douglas Adams", limit=1).results[0]
    assert hit.id == "wd:Q42" and hit.entity_type in kinds


def test_the_progress_bar_follows_the_stores_read_of_a_file_not_the_censuss(tmp_path: Path) -> None:
    """The census reads the same file beside the load (twice over): the bar is where the
    store's descriptor is, though the census's was opened first."""
    import os

    from gateway.engine.census import census_files
    from gateway.loading import _reading

    path = tmp_path / "graph.nt"
    path.write_bytes(b"".join(b"<http://x.example/%d> <http://x.example/p> <http://x.example/o> .\n" % n
                              for n in range(1000)))
    names, reading, store_read = {os.path.realpath(path): 0}, set[int](), []
    seen = []

    def stop() -> bool:  # asked between the census's chunks, its file open
        if not store_read:
            store_read.append(os.open(path, os.O_RDONLY))  # after the census's: listed after it
            os.read(store_read[0], 100)
        seen.append(_reading(names, reading))
        return False

    try:
        census_files([path], memory=64 << 20, stop=stop, reading=reading)
    finally:
        os.close(store_read[0])
    assert seen and set(seen) == {(0, 100)} and not reading
