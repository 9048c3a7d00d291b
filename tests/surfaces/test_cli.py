"""`bfsql` as a user runs it: real subprocesses, exit codes and messages."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from gateway import Gateway
from gateway.demos import rendered
from support.servers import NginxServer, OxigraphServer
from tests.backends.test_remote_canary import CANARY, IRENE, basic_auth_nginx, leaks, mcp_calls
from tests.conftest import DEMO, ROOT

BFSQL = [sys.executable, "-m", "gateway.surfaces.cli"]
PASSWORD_VARIABLE = "TEAM_SPARQL_PASSWORD"


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BFSQL, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=env)


def endpoints_file(directory: Path, nginx: NginxServer) -> Path:
    """Two endpoints: `demo` behind nginx's Basic authentication, its password in the
    environment variable the file names, and another (so that a NAME must be given)."""
    path = directory / "endpoints.toml"
    path.write_text(f'''
[endpoints.demo]
url = "{nginx.url}"
contact = "mailto:ops@example.org"
timeout = 30

[endpoints.demo.auth]
type = "basic"
user = "alice"
password_env = "{PASSWORD_VARIABLE}"

[endpoints.elsewhere]
url = "http://127.0.0.1:9/sparql"
profile = "plain"
''', encoding="utf-8")
    return path


def with_password() -> dict[str, str]:
    """The environment with the canary as the file's password, and no other credentials."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("BFSQL_ENDPOINT")}
    return {**kept, PASSWORD_VARIABLE: CANARY}


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
    done = run("query", "describe_entity", '{"id": "  "}')  # malformed: still what was given (it exited 1)
    assert done.returncode == 2 and "must not be blank" in done.stderr


def test_several_files_after_one_data_are_told_to_give_each_its_own(tmp_path: Path) -> None:
    second = tmp_path / "more.ttl"
    second.write_text("<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n", encoding="utf-8")
    done = run("query", "describe_schema", "--data", str(DEMO), str(second))
    assert done.returncode == 2 and f"give each file its own --data (--data {second})" in done.stderr, done.stderr
    done = run("query", "describe_schema", "--nonsense")
    assert done.returncode == 2 and "unrecognized arguments: --nonsense" in done.stderr and "--data" not in done.stderr


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


def test_query_a_named_endpoint_behind_basic_auth(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    nginx = basic_auth_nginx(oxigraph_server)
    try:
        path = endpoints_file(tmp_path, nginx)
        expected = Gateway.connect(oxigraph_server.url).describe_entity(IRENE)
        named = run("query", "describe_entity", json.dumps({"id": IRENE}), "--endpoints", str(path),
                    "--endpoint", "demo", "--compact", env=with_password())
        assert named.returncode == 0, named.stderr
        assert json.loads(named.stdout) == expected.model_dump(mode="json", exclude_none=True)
        # The file from $BFSQL_ENDPOINTS, its only endpoint taken when none is named.
        only = tmp_path / "only.toml"
        only.write_text(path.read_text().split("[endpoints.elsewhere]")[0], encoding="utf-8")
        defaulted = run("query", "describe_entity", json.dumps({"id": IRENE}), "--compact",
                        env={**with_password(), "BFSQL_ENDPOINTS": str(only)})
        assert defaulted.returncode == 0 and json.loads(defaulted.stdout) == json.loads(named.stdout), defaulted.stderr
        unset = run("query", "describe_schema", "--endpoints", str(path), "--endpoint", "demo",
                    env={k: v for k, v in with_password().items() if k != PASSWORD_VARIABLE})
        assert unset.returncode == 2 and f"{PASSWORD_VARIABLE} is not set" in unset.stderr
        assert "endpoints.demo.auth.password_env" in unset.stderr and str(path) in unset.stderr
        unnamed = run("query", "describe_schema", "--endpoints", str(path), env=with_password())
        assert unnamed.returncode == 2 and "demo, elsewhere" in unnamed.stderr and "--endpoint NAME" in unnamed.stderr
        outputs = [named.stdout, named.stderr, defaulted.stdout, defaulted.stderr, unset.stderr, unnamed.stderr]
    finally:
        nginx.stop()
    gone = run("query", "describe_entity", json.dumps({"id": IRENE}), "--endpoints", str(path), "--endpoint", "demo",
               env=with_password())
    assert gone.returncode == 1 and f"127.0.0.1:{nginx.port}" in gone.stderr, gone.stderr
    assert leaks("\n".join([*outputs, gone.stdout, gone.stderr])) == []


def test_mcp_over_stdio_serves_a_named_endpoint(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    nginx = basic_auth_nginx(oxigraph_server)
    errors = tmp_path / "mcp-stderr.log"
    params = StdioServerParameters(
        command=sys.executable, cwd=str(ROOT), env=with_password(),
        args=["-m", "gateway.surfaces.cli", "mcp", "--endpoints", str(endpoints_file(tmp_path, nginx)),
              "--endpoint", "demo"])

    async def session(failing: bool) -> str:
        with open(errors, "a") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                expected = Gateway.connect(oxigraph_server.url).describe_entity(IRENE) if not failing else None
                answered = await client.call_tool("describe_entity", {"id": IRENE})
                if expected is not None:
                    assert answered.structured_content == expected.model_dump(mode="json", exclude_none=True)
                return str(answered.structured_content) + await mcp_calls(client, failing)

    try:
        outputs = [asyncio.run(session(failing=False))]
    finally:
        nginx.stop()
    outputs.append(asyncio.run(session(failing=True)))
    assert leaks(errors.read_text()) == [] and leaks("\n".join(outputs)) == []


def test_a_url_given_as_data_points_to_endpoint(tmp_path: Path) -> None:
    for args in (["query", "describe_schema", "--data", "http://alice:pw@127.0.0.1:1/sparql"],
                 ["mcp", "https://example.org/sparql"], ["serve", "https://example.org/sparql", "--port", "1"]):
        done = run(*args)
        assert done.returncode == 2 and "--endpoint URL" in done.stderr and "alice:pw" not in done.stderr, done.stderr


def test_data_and_an_endpoints_file_together_are_refused(tmp_path: Path) -> None:
    done = run("query", "describe_schema", "--data", str(DEMO), "--endpoints", str(tmp_path / "absent.toml"))
    assert done.returncode == 2 and "not both" in done.stderr
    # $BFSQL_ENDPOINTS is a default, and data given on the command line is used over it.
    done = run("query", "describe_entity", '{"id": "wiki:Dr_Watson"}', "--data", str(DEMO),
               env={**os.environ, "BFSQL_ENDPOINTS": str(tmp_path / "absent.toml")})
    assert done.returncode == 0 and json.loads(done.stdout)["label"] == "Dr. Watson", done.stderr
