"""`bfsql` as a user runs it: real subprocesses, exit codes and messages."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from gateway.demos import rendered
from tests.conftest import DEMO, ROOT

BFSQL = [sys.executable, "-m", "gateway.surfaces.cli"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BFSQL, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_console_script_is_declared() -> None:
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert scripts.get("bfsql") == "gateway.surfaces.cli:main"


def test_query_prints_pretty_json() -> None:
    done = run("query", "bfs_query", '{"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "topology_only": true}')
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["seeds"] == ["wiki:Irene_Adler"] and result["node_count"] > 1
    assert done.stdout.startswith("{\n  ")


def test_query_reads_stdin() -> None:
    done = run("query", "search_entities", "-", stdin='{"query": "the woman"}')
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["id"] == "wiki:Irene_Adler"


def test_bad_json_is_a_clear_error() -> None:
    done = run("query", "bfs_query", "{seeds: [}")
    assert done.returncode == 2 and "not valid JSON" in done.stderr and not done.stdout


def test_bad_arguments_name_the_field() -> None:
    done = run("query", "bfs_query", '{"seeds": ["wiki:Irene_Adler"], "truth_status": ["maybe"]}')
    assert done.returncode == 2 and "truth_status.0" in done.stderr
    done = run("query", "bfs_query", "[1, 2]")
    assert done.returncode == 2 and "JSON object" in done.stderr


def test_unknown_tool_is_refused() -> None:
    done = run("query", "drop_everything", "{}")
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_not_found_exits_non_zero() -> None:
    done = run("query", "describe_entity", '{"id": "wiki:Moriarty"}')
    assert done.returncode == 1 and "not in this graph" in done.stderr


def test_load_then_query_the_store(tmp_path: Path) -> None:
    store = tmp_path / "demo-store"
    done = run("load", str(DEMO), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["quads"] == 461
    done = run("query", "describe_entity", '{"id": "wiki:Dr_Watson"}', "--data", str(store))
    assert done.returncode == 0 and json.loads(done.stdout)["label"] == "Dr. Watson"


def test_demo_runs_every_step() -> None:
    done = run("demo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n== ") == 8 and "HasTrueIdentity" in done.stdout


def test_demo_medlit_finds_the_bundle_or_says_how_to_give_it(tmp_path: Path) -> None:
    from tests.conftest import shared_data

    bundle = shared_data("medlit")
    lost = subprocess.run([*BFSQL, "demo", "medlit"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "BFSQL_MEDLIT": ""})
    # A folder above the temporary one may hold shared/data/medlit itself (a checkout in /tmp,
    # its shared folder beside it): then the demo rightly finds it there.
    if any((folder / "shared" / "data" / "medlit").is_dir() for folder in tmp_path.resolve().parents):
        assert lost.returncode == 0, lost.stderr
    else:
        assert lost.returncode == 1 and "--bundle DIR" in lost.stderr and not lost.stdout
    found = subprocess.run([*BFSQL, "demo", "medlit", "--bundle", str(bundle)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert found.returncode == 0, found.stderr
    assert found.stdout.count("\n== ") == 6


def test_the_demo_commands_can_be_pasted() -> None:
    """Each `$ bfsql query ...` line the demo prints runs as printed, and answers what the demo shows."""
    done = run("demo")
    assert done.returncode == 0, done.stderr
    commands = [line[2:] for line in done.stdout.splitlines() if line.startswith("$ bfsql query ")]
    assert len(commands) == 8
    for command in commands[1:4]:
        words = shlex.split(command)
        assert words[:2] == ["bfsql", "query"]
        pasted = run(*words[1:], "--compact")
        assert pasted.returncode == 0, (command, pasted.stderr)
        shown = done.stdout.split(f"$ {command}\n", 1)[1].split("\n-- ", 1)[0]
        kept, cut, _ = shown.partition("\n… [cut here:")
        assert rendered(json.loads(pasted.stdout)).startswith(kept) and (cut or json.loads(kept)), command
