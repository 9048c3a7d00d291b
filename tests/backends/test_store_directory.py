"""A store directory `bfsql load` made, damaged as disks and interrupted copies damage
them, said in the gateway's words through the command line: what is wrong and the load
that rebuilds it, never the engine's file names, never a writer that does not exist."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gateway.loading import load_store
from gateway.surfaces.cli import EXIT_USAGE, main
from tests.conftest import shared_data

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
