"""What a newcomer trips on with their own data: an option that must not be dropped
(`--profile` over files), what a folder leaves out, damaged store directories, loose
RDF read leniently, the demo's commands as they will run. Each through the real command,
on third-party files (Wikidata's exports, the demo's Python sources as non-RDF)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import httpx2
import pyoxigraph as ox
import pytest

from gateway import Gateway
from tests.conftest import ROOT, shared_data
from tests.surfaces.conftest import start_server

BFSQL = [sys.executable, "-m", "gateway.surfaces.cli"]
WIKIDATA = ["Q42.ttl", "Q24628793.ttl"]


def bfsql(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BFSQL, *args], capture_output=True, text=True, cwd=cwd, timeout=300, input=stdin,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def said(ran: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in ran.stderr.splitlines() if line.startswith("bfsql: ")]


def wikidata_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in WIKIDATA:
        shutil.copy(shared_data("wikidata", name), folder / name)
    return folder


# -- 1. --profile over local data ----------------------------------------------------------
def test_profile_is_applied_to_a_file_and_a_folder(tmp_path: Path) -> None:
    folder = wikidata_folder(tmp_path)
    for data in (folder / WIKIDATA[0], folder):
        ran = bfsql("query", "describe_schema", "--data", str(data), "--profile", "wikidata")
        assert ran.returncode == 0, ran.stderr
        answer = json.loads(ran.stdout)
        assert answer["profile"] == "wikidata"
        files = [data] if data.is_file() else sorted(folder.iterdir())
        with Gateway.open(files[0], profile="wikidata") if len(files) == 1 else _several(files) as oracle:
            expected = oracle.describe_schema().model_dump(mode="json", exclude_none=True)
        # A Store opened by the API holds no file's prefix lines: the prefixes are not the profile's.
        assert {**answer, "prefixes": None} == {**expected, "prefixes": None}


def _several(files: list[Path]) -> Gateway:
    """The files read into one store by pyoxigraph itself, as the Python API opens a Store."""
    import pyoxigraph as ox

    store = ox.Store()
    for path in files:
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)
    return Gateway.open(store, profile="wikidata")


def test_serve_applies_profile_to_a_file(tmp_path: Path) -> None:
    """And, on the same server: the start is logged once, and /sparql says a syntax error
    at pyoxigraph's own position, with what is written there."""
    path = shared_data("wikidata", WIKIDATA[0])
    served = start_server(tmp_path, str(path), "--profile", "wikidata")
    query = "SELECT ?s WHERE {\n  ?s ?p ?o .\n  FILTR(?o)\n}"
    try:
        answer = httpx2.post(f"{served.url}/v1/tools/describe_schema", json={}, timeout=60).json()
        refused = httpx2.get(f"{served.url}/sparql", params={"query": query}, timeout=60)
        log = served.log_text()
    finally:
        served.stop()
    assert answer["profile"] == "wikidata"
    assert log.count("session manager started") <= 1, log
    with pytest.raises(SyntaxError) as oracle:
        ox.Store().query(query)
    line, column = map(int, re.search(r"at (\d+):(\d+)", str(oracle.value)).groups())  # type: ignore[union-attr]
    written = query.split("\n")[line - 1][column - 1:].split()[0]
    detail = refused.json()["detail"]
    assert refused.status_code == 400 and f"line {line} column {column}, at `{written}`: expected " in detail
    assert "error at" not in detail and "[_]" not in detail


# -- 2. what a folder leaves out -----------------------------------------------------------
def test_a_folder_says_what_it_leaves_out(tmp_path: Path) -> None:
    folder = wikidata_folder(tmp_path)
    shutil.copy(folder / WIKIDATA[1], folder / "Q24628793.wd")
    (folder / WIKIDATA[1]).unlink()
    shutil.copy(ROOT / "gateway" / "demos" / "sherlock.py", folder / "notes.py")
    (folder / "sub").mkdir()
    shutil.copy(folder / WIKIDATA[0], folder / "sub" / "again.ttl")
    ran = bfsql("query", "describe_schema", "--data", str(folder))
    assert ran.returncode == 0, ran.stderr
    left = [line for line in said(ran) if "left out" in line]
    assert len(left) == 1, ran.stderr
    assert "Q24628793.wd" in left[0] and "--rdf-format" in left[0]
    assert "notes.py: not RDF" in left[0] and "sub/" in left[0]
    with Gateway.open(folder / WIKIDATA[0]) as oracle:
        assert json.loads(ran.stdout) == oracle.describe_schema().model_dump(mode="json", exclude_none=True)

    # --rdf-format reads the unnamed file, never the Python one; the line still names what is left out.
    read = bfsql("query", "describe_schema", "--data", str(folder), "--rdf-format", "turtle")
    assert read.returncode == 0, read.stderr
    left = [line for line in said(read) if "left out" in line]
    assert len(left) == 1 and "Q24628793.wd" not in left[0] and "notes.py" in left[0]

    loaded = bfsql("load", str(folder), "--store", str(tmp_path / "store"))
    assert loaded.returncode == 0, loaded.stderr
    assert sum("left out" in line and "Q24628793.wd" in line for line in said(loaded)) == 1


def test_a_folder_of_two_unnamed_files_says_how_to_read_only_one(tmp_path: Path) -> None:
    """A Turtle file under an unknown extension beside a text file that is no RDF: --rdf-format
    would read both (and fail on the second), so the line says to load them by turns; the
    loads it gives, run as written, hold the folder's file and the unnamed one, as pyoxigraph
    parses them."""
    import shlex

    import pyoxigraph as ox

    folder = wikidata_folder(tmp_path)
    (folder / WIKIDATA[1]).rename(folder / "Q24628793.wd")
    shutil.copy(ROOT / "README.md", folder / "terms.obo")
    ran = bfsql("query", "describe_schema", "--data", str(folder))
    [left] = [line for line in said(ran) if "left out" in line]
    assert "Q24628793.wd, terms.obo: no RDF syntax has their extension; --rdf-format NAME reads them all" in left, left
    loads = re.findall(r"`(bfsql load [^`]+)`", left)
    assert loads == [f"bfsql load {folder} --store DIR", f"bfsql load {folder / 'Q24628793.wd'} --rdf-format NAME --store DIR"]
    for command in loads:
        args = shlex.split(command.replace("DIR", str(tmp_path / "store")).replace("NAME", "turtle"))[1:]
        assert bfsql(*args).returncode == 0
    expected = len({quad for name in WIKIDATA
                    for quad in ox.parse(path=str(shared_data("wikidata", name)), format=ox.RdfFormat.TURTLE)})
    assert len(ox.Store.read_only(str(tmp_path / "store" / "store"))) == expected


def test_a_folder_of_python_files_is_no_rdf(tmp_path: Path) -> None:
    folder = tmp_path / "code"
    shutil.copytree(ROOT / "gateway" / "demos", folder, ignore=shutil.ignore_patterns("__pycache__"))
    for extra in ([], ["--rdf-format", "turtle"]):
        ran = bfsql("query", "describe_schema", "--data", str(folder), *extra)
        assert ran.returncode == 2, ran.stderr
        assert "not RDF" in ran.stderr and "sherlock.py" in ran.stderr
        assert "line " not in ran.stderr and "Traceback" not in ran.stderr


# -- 4. --format: the output on query, the older spelling of --rdf-format elsewhere ----------
def test_format_on_load_is_the_older_spelling_of_rdf_format(tmp_path: Path) -> None:
    folder = wikidata_folder(tmp_path)
    for name in WIKIDATA:
        (folder / name).rename(folder / name.replace(".ttl", ".wd"))
    older = bfsql("load", str(folder), "--format", "turtle", "--store", str(tmp_path / "older"))
    newer = bfsql("load", str(folder), "--rdf-format", "turtle", "--store", str(tmp_path / "newer"))
    assert older.returncode == newer.returncode == 0, older.stderr + newer.stderr
    assert json.loads(older.stdout)["quads"] == json.loads(newer.stdout)["quads"] > 0
    assert [line for line in said(older) if "--rdf-format" in line] == [
        "bfsql: --format names the files' RDF syntax here: spell it --rdf-format (on `bfsql query`, --format is the "
        "output's format)"]
    assert not [line for line in said(newer) if "--format" in line]


def test_an_rdf_syntax_given_as_query_format_points_to_rdf_format() -> None:
    ran = bfsql("query", "describe_schema", "--format", "turtle")
    assert ran.returncode == 2 and "no output format" in ran.stderr and "--rdf-format" in ran.stderr


# -- 6. rough edges -----------------------------------------------------------------------
def test_the_demo_says_how_to_run_bfsql_when_it_is_not_on_path(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "bfsql"
    if not script.is_file():
        pytest.skip(f"{script} is absent: this environment has no console script beside its Python")
    bare = {**os.environ, "PYTHONPATH": str(ROOT),
            "PATH": os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                    if p and not (Path(p) / "bfsql").exists())}
    off = subprocess.run([*BFSQL, "demo"], capture_output=True, text=True, cwd=tmp_path, timeout=300, env=bare)
    assert off.returncode == 0, off.stderr
    tail = off.stdout.rsplit("\nNext:\n", 1)[1]
    assert "not on your PATH" in tail and str(script) in tail and "activate" in tail
    on = subprocess.run([*BFSQL, "demo"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                        env={**bare, "PATH": f"{script.parent}{os.pathsep}{bare['PATH']}"})
    assert on.returncode == 0 and "not on your PATH" not in on.stdout


def test_a_stopword_alone_does_not_match_a_search() -> None:
    """Every hit for "The Woman" holds "woman" in its own data (the demo's Irene Adler by
    her synonym); before, "the" alone matched rel:Injures as well as the real hits."""
    ran = bfsql("query", "search_entities", '{"query": "The Woman", "limit": 10}')
    assert ran.returncode == 0, ran.stderr
    hits = json.loads(ran.stdout)["results"]
    assert hits and hits[0]["id"] == "wiki:Irene_Adler"
    with Gateway.open(ROOT / "data" / "sherlock.trig") as oracle:
        for hit in hits:
            data = oracle.describe_entity(id=hit["id"]).model_dump_json().casefold()
            assert "woman" in data, hit


def test_mcp_says_once_that_stdin_is_not_mcp() -> None:
    ran = bfsql("mcp", stdin="hello\nlist tools\n")
    assert ran.returncode == 0 and ran.stdout == ""
    assert [line for line in said(ran) if "JSON-RPC" in line] == [
        "bfsql: stdin holds something other than MCP's JSON-RPC messages, which this command reads (an MCP client "
        "starts it: docs/mcp.md); for one call from a shell, use `bfsql query TOOL JSON`"]


def test_the_graph_description_says_what_it_counts() -> None:
    path = shared_data("wikidata", "Q24628793.ttl")  # no ontology header: described by its counts
    ran = bfsql("query", "describe_schema", "--data", str(path))
    answer = json.loads(ran.stdout)
    counted = answer["statements"]["total"]
    triples = len(list(ox.parse(path=str(path), format=ox.RdfFormat.TURTLE)))
    assert counted < triples  # what made "N statements" read as a wrong triple count
    assert answer["graph_description"].startswith(f"an RDF graph of {counted:,} relationships between entities (")


def test_a_bundle_read_into_memory_names_the_import_that_keeps_it(tmp_path: Path) -> None:
    """A bundle folder given to --data is one bundle, not "1 file", and the command that keeps
    it in a store is `bfsql import-bundle` (`bfsql load` takes RDF, which a bundle is not): run
    from where it was said, that store answers as the bundle does."""
    bundle = tmp_path / "medlit"
    shutil.copytree(shared_data("medlit"), bundle)
    read = bfsql("query", "describe_schema", "--data", "medlit", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    [line] = [text for text in said(read) if "into memory" in text]
    assert "the bundle medlit" in line and " file" not in line.split("into memory")[0], line
    command = shlex.split(line.split("opens at once: ", 1)[1].split(", then give", 1)[0])
    assert command[:3] == ["bfsql", "import-bundle", "medlit"]
    made = bfsql(*command[1:], cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    stored = bfsql("query", "describe_schema", "--data", command[command.index("--store") + 1], cwd=tmp_path)
    assert stored.returncode == 0, stored.stderr
    assert json.loads(stored.stdout)["statements"] == json.loads(read.stdout)["statements"]


# -- 7. a misspelt syntax, several files through the Python API -------------------------------
def test_a_misspelt_rdf_format_is_told_the_syntax_it_is_nearest(tmp_path: Path) -> None:
    import difflib

    from gateway.backends.rdf_files import SYNTAXES

    path = tmp_path / "mine.data"
    shutil.copy(shared_data("wikidata", WIKIDATA[1]), path)
    ran = bfsql("query", "describe_schema", "--data", str(path), "--rdf-format", "tutle")
    nearest = difflib.get_close_matches("tutle", list(SYNTAXES), n=1)
    assert nearest and ran.returncode != 0 and f"did you mean {nearest[0]}?" in ran.stderr, ran.stderr
    unlike = bfsql("query", "describe_schema", "--data", str(path), "--rdf-format", "qqqqq")
    assert unlike.returncode != 0 and "names no RDF syntax" in unlike.stderr and "did you mean" not in unlike.stderr


def test_the_api_opens_a_list_of_files_as_the_cli_reads_several(tmp_path: Path) -> None:
    files = [shared_data("wikidata", name) for name in WIKIDATA]
    oracle = ox.Store()
    for path in files:
        oracle.load(path=str(path), format=ox.RdfFormat.TURTLE)
    for given in (files, [str(p) for p in files], tuple(files)):
        with Gateway.open(given) as gateway:  # type: ignore[arg-type]
            assert _ground(gateway.backend.store) == _ground(oracle)  # type: ignore[attr-defined]
    alone = ox.Store()
    alone.load(path=str(files[0]), format=ox.RdfFormat.TURTLE)
    with Gateway.open([files[0]]) as one:
        assert _ground(one.backend.store) == _ground(alone)  # type: ignore[attr-defined]


def _ground(store: ox.Store) -> tuple[int, set[ox.Quad]]:
    """A store's size and its quads without blank nodes (each load labels those anew)."""
    ground = {q for q in store if not any(isinstance(t, ox.BlankNode) for t in (q.subject, q.object))}
    assert ground
    return len(store), ground


def test_the_api_refuses_a_list_it_cannot_read_naming_the_argument(tmp_path: Path) -> None:
    from gateway import InvalidInput

    for given in ([], [shared_data("wikidata", WIKIDATA[0]), 3], [tmp_path / "missing.ttl", tmp_path / "gone.ttl"]):
        with pytest.raises(InvalidInput) as caught:
            Gateway.open(given)  # type: ignore[arg-type]
        assert caught.value.field in {"source", "path"}
