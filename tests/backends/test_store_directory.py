"""A store directory `bfsql load` made, damaged as disks and interrupted copies damage
them, said in the gateway's words through the command line: what is wrong and the load
that rebuilds it, never the engine's file names, never a writer that does not exist."""

from __future__ import annotations

import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from gateway.backends.store_directory import damage_in
from gateway.loading import load_store
from gateway.surfaces.cli import EXIT_USAGE, main
from tests.conftest import ROOT, shared_data
from tests.surfaces.conftest import start_server

ENGINE_WORDS = re.compile(r"CURRENT|LOCK|MANIFEST|\.sst|\.log\b|RocksDB|Corruption|IO error")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("made") / "store"
    load_store([shared_data("wikidata", "Q42.ttl")], store, show_progress=False)
    return store


def _said(directory: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["query", "describe_schema", "--data", str(directory)]) == EXIT_USAGE
    text = capsys.readouterr().err
    assert text.count("\n") == 1, text  # one line, no traceback
    assert not ENGINE_WORDS.search(text), text
    assert "another process" not in text, text
    return text


def _copy(made: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(made, copy)
    return copy


def test_a_flipped_byte_is_damage_not_a_writer(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = _copy(made, tmp_path)
    tables = sorted((copy / "store").glob("*.sst"))
    assert tables
    for table in tables:
        data = bytearray(table.read_bytes())
        for i in range(100, len(data) - 100, 97):
            data[i] ^= 0xFF
        table.write_bytes(bytes(data))
    text = _said(copy, capsys)
    assert "damaged" in text and "checksum" in text
    assert f"bfsql load {shared_data('wikidata', 'Q42.ttl')} --store {copy}" in text


@pytest.mark.parametrize("damage", ["cut", "zeroed"])
def test_data_files_cut_or_zeroed_are_named_as_data_files(made: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str], damage: str) -> None:
    """Every data file emptied or overwritten with zeros: the engine names the first and says its
    file list "may be corrupted"; the data files are what is said to be damaged."""
    copy = _copy(made, tmp_path)
    for table in (copy / "store").glob("*.sst"):
        table.write_bytes(b"" if damage == "cut" else bytes(table.stat().st_size))
    text = _said(copy, capsys)
    assert "damaged: a data file is cut short or overwritten" in text and "lists its data files" not in text, text
    assert f"bfsql load {shared_data('wikidata', 'Q42.ttl')} --store {copy}" in text


@pytest.mark.parametrize("removed", ["MANIFEST-*", "CURRENT"])
def test_missing_engine_files_are_damage(made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         removed: str) -> None:
    copy = _copy(made, tmp_path)
    for path in (copy / "store").glob(removed):
        path.unlink()
    text = _said(copy, capsys)
    assert "damaged" in text and "missing" in text and "bfsql load" in text
    assert "not a store directory" not in text


def test_a_missing_meta_json_is_a_load_that_did_not_finish(made: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """What a load killed as it began leaves (its store made, no meta.json yet), said as
    the load's own marker says it; the load it asks for then opens."""
    copy = _copy(made, tmp_path)
    (copy / "meta.json").unlink()
    text = _said(copy, capsys)
    assert "did not finish" in text and "run the same load again" in text and "not a store directory" not in text
    load_store([shared_data("wikidata", "Q42.ttl")], copy, show_progress=False)
    assert main(["query", "describe_schema", "--data", str(copy)]) == 0
    capsys.readouterr()


def test_a_folder_of_files_with_a_store_subfolder_is_read_as_files(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """One's own folder of RDF files that also holds a `store/` subfolder is a folder of files,
    not a load that did not finish (a load's directory never holds RDF files): its files are
    read, as pyoxigraph counts them."""
    import pyoxigraph as ox

    source = shared_data("wikidata", "Q24628793.ttl")
    shutil.copy(source, tmp_path / source.name)
    (tmp_path / "store").mkdir()
    assert main(["query", "describe_schema", "--data", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "did not finish" not in err and "read 1 file into memory" in err, err
    triples = len(list(ox.parse(path=str(source), format=ox.RdfFormat.TURTLE)))
    assert f"({triples:,} triples)" in err


def test_the_engine_folder_inside_a_store_is_read_as_a_store_and_says_nothing_of_files(
        made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`DIR/store` (a bare Oxigraph store) answers as `DIR` does, without a line saying it
    read "0 files into memory" and a `bfsql load` of it that could only fail."""
    assert main(["query", "describe_schema", "--data", str(made)]) == 0
    whole = capsys.readouterr().out
    assert main(["query", "describe_schema", "--data", str(made / "store")]) == 0
    inner = capsys.readouterr()
    assert "into memory" not in inner.err and "bfsql load" not in inner.err, inner.err
    assert json.loads(inner.out)["statements"] == json.loads(whole)["statements"]


# -- damage found while reading, after the store opened ---------------------------------------
MEMORY = 4_000_000_000
"""Bytes of address space a command over a damaged store may take: a corrupt length inside
the engine can ask for many gigabytes (describe_entity did), and the machine is shared."""


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def bfsql(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, preexec_fn=_bounded, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _damage_middles(directory: Path) -> None:
    """Bytes flipped in the middle of each larger data file: the store still opens (its
    index blocks, at each file's end, are whole) and a read that reaches them fails."""
    for table in (directory / "store").glob("*.sst"):
        data = bytearray(table.read_bytes())
        if len(data) > 50_000:
            middle = len(data) // 2
            data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
            table.write_bytes(bytes(data))


def _one_line(ran: subprocess.CompletedProcess[str]) -> str:
    assert ran.returncode == EXIT_USAGE, ran.stderr
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("bfsql: "), ran.stderr  # no traceback
    assert not ENGINE_WORDS.search(lines[0]), lines[0]
    assert "damaged" in lines[0] and "checksum" in lines[0], lines[0]
    return lines[0]


def test_damage_met_by_a_query_a_load_and_a_copy_into_memory(made: Path, tmp_path: Path) -> None:
    """The store opens; a walk that reads the damaged blocks, a load that counts the store,
    and the copy `bfsql serve` makes each say the damage (bfs_query errs; describe_entity is
    not run here: it can loop in the engine)."""
    copy = _copy(made, tmp_path)
    _damage_middles(copy)
    _one_line(bfsql("query", "bfs_query", '{"seeds": ["wd:Q42"]}', "--data", str(copy)))
    _one_line(bfsql("load", str(shared_data("wikidata", "Q24628793.ttl")), "--store", str(copy)))
    copied = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom gateway import Gateway\nfrom gateway.errors import InvalidInput\n"
         "try:\n    Gateway.open(sys.argv[1], in_memory=True)\nexcept InvalidInput as e:\n    print(e.field, e.message)"
         "\n    sys.exit(2)", str(copy)],
        capture_output=True, text=True, cwd=ROOT, timeout=300, preexec_fn=_bounded,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert copied.returncode == 2 and copied.stdout.startswith("path "), copied.stderr
    assert "damaged" in copied.stdout and not ENGINE_WORDS.search(copied.stdout)


def test_the_rebuild_command_runs_from_anywhere(tmp_path: Path) -> None:
    """The command the damage names is the load that made the store, its relative paths made
    absolute, its --rdf-format and its --profile kept: removed and run from another folder,
    it rebuilds the same store (the same walk as before the damage; a native rebuild of a
    wikidata store walked 772 nodes where it had 56)."""
    folder = tmp_path / "my data"
    folder.mkdir()
    shutil.copy(shared_data("wikidata", "Q42.ttl"), folder / "Q42 export")  # no extension: the syntax is given
    made = bfsql("load", "Q42 export", "--rdf-format", "turtle", "--profile", "wikidata", "--store", "store", cwd=folder)
    assert made.returncode == 0, made.stderr
    store = folder / "store"
    walk = ("query", "bfs_query", '{"seeds": ["wd:Q42"], "topology_only": true}', "--data", str(store))
    before = bfsql(*walk, "--profile", "wikidata")
    assert before.returncode == 0, before.stderr
    _damage_middles(store)
    line = _one_line(bfsql(*walk, "--profile", "wikidata"))
    command = shlex.split(line.split("`")[1])
    assert command == ["bfsql", "load", str(folder / "Q42 export"), "--rdf-format", "ttl", "--store", str(store),
                       "--profile", "wikidata"]
    shutil.rmtree(store)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert bfsql(*command[1:], cwd=elsewhere).returncode == 0
    again = bfsql(*walk, "--profile", "wikidata")
    assert again.returncode == 0 and again.stdout == before.stdout


# -- a load still running -------------------------------------------------------------------
def test_a_store_a_load_is_writing_is_said_to_be_written_not_unfinished(tmp_path: Path) -> None:
    """A real `bfsql load` paused (SIGSTOP) once its meta.json says it is under way: a reader
    is told another load is writing, not that the load died; the load, resumed, ends and
    the store opens; a load killed at the same point is then said not to have finished."""
    data = tmp_path / "big.nt"
    with data.open("w", encoding="utf-8") as out:
        for n in range(300_000):
            out.write(f"<http://example.org/e{n}> <http://example.org/p{n % 7}> <http://example.org/e{n // 3}> .\n")
    store = tmp_path / "store"
    for stop in (signal.SIGCONT, signal.SIGKILL):
        shutil.rmtree(store, ignore_errors=True)
        loading = subprocess.Popen([sys.executable, "-m", "gateway.surfaces.cli", "load", str(data), "--store", str(store)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            while '"loading": true' not in _text(store / "meta.json"):
                assert loading.poll() is None, "the load ended before it could be paused: make the file larger"
            loading.send_signal(signal.SIGSTOP)
            refused = bfsql("query", "describe_schema", "--data", str(store))
            assert refused.returncode == EXIT_USAGE and "another process is writing" in refused.stderr, refused.stderr
            assert "did not finish" not in refused.stderr
            loading.send_signal(stop)
            loading.send_signal(signal.SIGCONT)
        finally:
            ended = loading.wait(timeout=300)
        if stop == signal.SIGCONT:
            assert ended == 0
            assert bfsql("query", "describe_schema", "--data", str(store)).returncode == 0
        else:
            refused = bfsql("query", "describe_schema", "--data", str(store))
            assert refused.returncode == EXIT_USAGE and "did not finish" in refused.stderr, refused.stderr


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def test_damage_met_over_http_is_a_problem_naming_it(made: Path, tmp_path: Path) -> None:
    """`bfsql serve --on-disk` (the store read where it lies): the walk that meets the damage
    answers the gateway's problem document, never a bare 500, and never the server's paths
    nor the load that rebuilds it (those are the operator's, in the server's log)."""
    copy = _copy(made, tmp_path)
    _damage_middles(copy)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, hard))  # for the server this starts, which inherits it
    try:
        served = start_server(tmp_path, str(copy), "--on-disk")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    try:
        answer = httpx2.post(f"{served.url}/v1/tools/bfs_query", json={"seeds": ["wd:Q42"]}, timeout=60)
    finally:
        served.stop()
    problem = answer.json()
    assert answer.status_code == 503 and problem["code"] == "store_damaged" and "field" not in problem, problem
    assert "damaged" in problem["detail"] and not ENGINE_WORDS.search(problem["detail"])
    assert str(tmp_path) not in problem["detail"] and "bfsql load" not in problem["detail"], problem
    assert f"--store {copy.absolute()}" in served.log_text(), "the operator's log says how to rebuild it"


def test_the_rebuild_commands_keep_a_load_made_before_loads_were_recorded(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A store whose first load left no `loads` in meta.json (an older bfsql), then loaded
    into again: the commands the damage names, run into a fresh directory, make a store
    that answers as the damaged one did before the damage."""
    store = tmp_path / "store"
    load_store([shared_data("wikidata", "Q42.ttl")], store, show_progress=False)
    meta = json.loads((store / "meta.json").read_text(encoding="utf-8"))
    del meta["loads"]
    (store / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    load_store([shared_data("wikidata", "Q24628793.ttl")], store, show_progress=False)
    assert main(["query", "describe_schema", "--data", str(store)]) == 0
    before = json.loads(capsys.readouterr().out)
    commands = [shlex.split(command) for command in damage_in(store, RuntimeError("Corruption: block checksum mismatch"))
                .message.split("`")[1::2]]
    assert [command[:2] for command in commands] == [["bfsql", "load"]] * 2
    rebuilt = tmp_path / "rebuilt"
    for command in commands:
        assert main([*command[1:command.index("--store")], "--store", str(rebuilt)]) == 0
    capsys.readouterr()
    assert main(["query", "describe_schema", "--data", str(rebuilt)]) == 0
    assert json.loads(capsys.readouterr().out)["statements"] == before["statements"]
