"""What a new user meets in the first hour, each as they would meet it: `--version`,
bundle directories wherever data is taken, the serve start line, the mode of files the
commands write, the OpenAPI document without a CDN page, operation IDs, blank IDs; their
own files and folders of them, a busy port, `bfsql mcp` typed in a terminal, a GET on a
tool route, the test dependencies' script without sudo."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import time
import tty
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters

from gateway import Gateway, MalformedInput
from gateway.resources import package_version
from tests.conftest import DEMO, ROOT, shared_data
from tests.surfaces.conftest import Served, start_server

BFSQL = [sys.executable, "-m", "gateway.surfaces.cli"]
BUNDLE = ROOT / "tests" / "resources" / "bundles" / "valid"
SEED = "RxNorm:3251"  # desmopressin, in the small bundle


def test_version() -> None:
    done = subprocess.run([*BFSQL, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"bfsql {package_version()}"
    import gateway

    assert gateway.__version__ == package_version() != ""


def test_serve_takes_a_bundle_directory_and_names_every_route(tmp_path: Path) -> None:
    served = start_server(tmp_path, str(BUNDLE))
    try:
        answer = httpx2.post(f"{served.url}/v1/tools/search_entities", json={"query": "desmopressin"}, timeout=30)
        assert answer.status_code == 200 and answer.json()["results"][0]["id"] == SEED
        line = next(text for text in served.log_text().splitlines() if "serving" in text)
        for route in ("/ ", "/v1/tools", "/mcp", "/sparql"):
            assert f"{served.url}{route.strip()}" in line, line
        assert "explorer" in line
    finally:
        served.stop()


def test_mcp_over_stdio_takes_a_bundle_directory() -> None:
    async def session() -> str:
        parameters = StdioServerParameters(command=sys.executable, args=["-m", "gateway.surfaces.cli", "mcp", str(BUNDLE)],
                                           cwd=str(ROOT), env={**os.environ})
        async with Client(parameters) as client:
            result = await client.call_tool("search_entities", {"query": "desmopressin"})
            return str(result.structured_content["results"][0]["id"])  # type: ignore[index]

    assert asyncio.run(session()) == SEED


def test_import_bundle_writes_with_the_umask_mode(tmp_path: Path) -> None:
    out = tmp_path / "bundle.trig"
    done = subprocess.run(f"umask 022 && {' '.join(BFSQL)} import-bundle {BUNDLE} --out {out}", shell=True,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    done = subprocess.run(f"umask 077 && {' '.join(BFSQL)} import-bundle {BUNDLE} --out {out}", shell=True,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and stat.S_IMODE(out.stat().st_mode) == 0o600


def test_openapi_is_served_and_no_page_loads_a_cdn(server: Served) -> None:
    with server.client() as client:
        document = client.get("/openapi.json").json()
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
        assert b"cdn" not in client.get("/").content.lower()
    operations = {operation["operationId"] for path in document["paths"].values() for operation in path.values()}
    assert {"healthz", "list_tools", "sparql_get", "sparql_post", "bfs_query", "expand_neighbors"} <= operations
    assert not [o for o in operations if o.endswith(("_get", "_post")) and o.count("_") > 2]  # no FastAPI defaults


def test_a_blank_id_is_malformed_input_everywhere(server: Served, demo: Gateway) -> None:
    for tool, arguments, field in [("describe_entity", {"id": " "}, "id"), ("fetch_slice", {"entity_id": ""}, "entity_id"),
                                   ("bfs_query", {"seeds": ["wiki:Irene_Adler", ""]}, "seeds.1"),
                                   ("shortest_path", {"source": "\t", "target": "wiki:Irene_Adler"}, "source")]:
        with server.client() as client:
            refused = client.post(f"/v1/tools/{tool}", json=arguments)
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "malformed_input" and refused.json()["field"] == field
        try:
            demo.call(tool, arguments)
        except MalformedInput as error:
            assert error.field == field
        else:
            raise AssertionError(f"{tool} took a blank ID")
    with server.client() as client:
        assert client.post("/v1/tools/describe_entity", json={"id": "wiki:Nobody"}).status_code == 404


def test_the_json_schemas_have_one_type_per_field(server: Served) -> None:
    """Single-type dialects (Gemini's) refuse a list of types; strict mode says what null means."""
    with server.client() as client:
        listed = client.get("/v1/tools").json()
        strict = client.get("/v1/tools", params={"strict": "true"}).json()

    def types(schema: object) -> list[object]:
        if isinstance(schema, dict):
            own = [schema["type"]] if isinstance(schema.get("type"), list) else []
            return own + [t for v in schema.values() for t in types(v)]
        if isinstance(schema, list):
            return [t for v in schema for t in types(v)]
        return []

    assert types(listed["mcp"]) == [] and types(listed["openai"]) == []
    bfs = next(t["function"]["parameters"] for t in strict["openai"] if t["function"]["name"] == "bfs_query")
    assert "null" in bfs["properties"]["as_of"]["description"].lower()
    text = json.dumps(bfs).lower()
    assert text.count("null when not wanted") + text.count("null gives the default") >= 10


def test_a_blank_point_is_not_given(demo: Gateway) -> None:
    """What a strict model sends for a field it must fill: "" (or null) is no filter."""
    walk = {"seeds": ["wiki:Irene_Adler"], "topology_only": True}
    assert demo.call("bfs_query", {**walk, "as_of": "", "valid_at": ""}) == demo.call("bfs_query", walk)
    assert Gateway.open(DEMO).call("bfs_query", {**walk, "as_of": None}) == demo.call("bfs_query", walk)


WIKIDATA = ["Q24628793.ttl", "Q37599471.ttl"]


def _bfsql(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BFSQL, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _wikidata_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in WIKIDATA:
        shutil.copy(shared_data("wikidata", name), folder / name)
    return folder


@pytest.mark.parametrize("profile", [[], ["--profile", "wikidata"]], ids=["default", "wikidata"])
def test_a_folder_of_files_answers_as_the_store_its_load_line_makes(tmp_path: Path, profile: list[str]) -> None:
    """The folder is read into memory, and the line saying so gives the `bfsql load` command
    whose store answers the same (with the profile asked for: a store made without it warned
    on every query that its name index was another profile's)."""
    folder = _wikidata_folder(tmp_path)
    read = _bfsql("query", "describe_schema", "--data", str(folder), *profile)
    assert read.returncode == 0, read.stderr
    line = next(text for text in read.stderr.splitlines() if "into memory" in text)
    command = shlex.split(line.split("opens at once: ", 1)[1].split(", then give", 1)[0])
    assert command[:2] == ["bfsql", "load"] and " ".join(profile) in shlex.join(command)
    loaded = _bfsql(*command[1:], cwd=tmp_path)
    assert loaded.returncode == 0, loaded.stderr
    store = tmp_path / command[command.index("--store") + 1]
    stored = _bfsql("query", "describe_schema", "--data", str(store), *profile)
    assert stored.returncode == 0 and json.loads(stored.stdout) == json.loads(read.stdout)
    assert "into memory" not in stored.stderr and "not this store's index" not in stored.stderr, stored.stderr
    several = _bfsql("query", "describe_schema", *(f"--data={folder / name}" for name in WIKIDATA), *profile)
    assert several.returncode == 0 and json.loads(several.stdout) == json.loads(read.stdout)


def test_an_unusual_extension_is_read_as_rdf_format_says(tmp_path: Path) -> None:
    folder = _wikidata_folder(tmp_path)
    odd = tmp_path / "odd"
    odd.mkdir()
    for name in WIKIDATA:
        shutil.copy(folder / name, odd / name.replace(".ttl", ".data"))
    refused = _bfsql("query", "describe_schema", "--data", str(odd))
    assert refused.returncode == 2 and "--rdf-format" in refused.stderr and "CURRENT" not in refused.stderr
    refused = _bfsql("query", "describe_schema", "--data", str(odd / WIKIDATA[0].replace(".ttl", ".data")))
    assert refused.returncode == 2 and "--rdf-format" in refused.stderr
    read = _bfsql("query", "describe_schema", "--data", str(odd), "--rdf-format", "turtle")
    expected = _bfsql("query", "describe_schema", "--data", str(folder))
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout) == json.loads(expected.stdout)


def test_serve_and_mcp_take_several_files(tmp_path: Path) -> None:
    folder = _wikidata_folder(tmp_path)
    files = [str(folder / name) for name in WIKIDATA]
    expected = json.loads(_bfsql("query", "describe_schema", "--data", str(folder)).stdout)
    served = start_server(tmp_path, *files)
    try:
        answer = httpx2.post(f"{served.url}/v1/tools/describe_schema", json={}, timeout=60)
        assert answer.status_code == 200 and answer.json() == expected
        assert "bfsql load" in served.log_text()
    finally:
        served.stop()

    async def session() -> object:
        parameters = StdioServerParameters(command=sys.executable, args=["-m", "gateway.surfaces.cli", "mcp", str(folder)],
                                           cwd=str(ROOT), env={**os.environ})
        async with Client(parameters) as client:
            return (await client.call_tool("describe_schema", {})).structured_content

    assert asyncio.run(session()) == expected


def test_a_busy_port_is_said_before_any_start_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for workers in ("1", "2"):
            ran = _bfsql("serve", "--port", str(port), "--workers", workers)
            assert ran.returncode == 2, ran.stderr
            assert f"127.0.0.1:{port}" in ran.stderr and "in use" in ran.stderr and "--port" in ran.stderr
            assert "serving" not in ran.stderr and "Traceback" not in ran.stderr


def test_the_start_line_comes_once_the_server_listens(tmp_path: Path) -> None:
    served = start_server(tmp_path)
    try:
        log = served.log_text().splitlines()
        started = next(i for i, text in enumerate(log) if "Application startup complete" in text)
        serving = [i for i, text in enumerate(log) if "serving the demo graph at" in text]
        assert len(serving) == 1 and serving[0] > started
    finally:
        served.stop()


def _read_until(fd: int, wanted: bytes, seconds: float = 120) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen += chunk
    return seen


def test_mcp_in_a_terminal_says_what_it_is_then_speaks_mcp() -> None:
    controller, terminal = pty.openpty()
    tty.setraw(terminal)  # the line as the program reads it, no echo
    process = subprocess.Popen([*BFSQL, "mcp"], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=ROOT)
    os.close(terminal)
    try:
        assert process.stderr is not None and process.stdout is not None
        said = _read_until(process.stderr.fileno(), b"\n").decode()
        assert "MCP" in said and "docs/mcp.md" in said, said
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "terminal", "version": "1"}}}
        os.write(controller, json.dumps(request).encode() + b"\n")
        answer = json.loads(_read_until(process.stdout.fileno(), b"\n"))
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"]
    finally:
        os.close(controller)
        process.kill()
        process.wait(60)


def test_mcp_on_a_pipe_says_nothing_on_stderr() -> None:
    ran = subprocess.run([*BFSQL, "mcp"], input="", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "docs/mcp.md" not in ran.stderr and ran.stdout == ""


def test_a_get_on_a_tool_route_says_post(server: Served) -> None:
    with server.client() as client:
        refused = client.get("/v1/tools/bfs_query")
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"
    assert "POST" in refused.json()["detail"] and refused.json()["code"] == "method_not_allowed"


def test_the_demo_ends_with_the_next_commands() -> None:
    done = _bfsql("demo")
    assert done.returncode == 0, done.stderr
    tail = done.stdout.rsplit("\nNext:\n", 1)[1]
    commands = [line.strip() for line in tail.splitlines() if line.startswith("  bfsql ")]
    assert [c.split()[:2] for c in commands] == [["bfsql", "serve"], ["bfsql", "mcp"], ["bfsql", "query"]]
    assert "http://127.0.0.1:8000/" in tail and "docs/mcp.md" in tail and "--data" in commands[2]


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)


def test_install_test_deps_runs_as_root_without_sudo_and_calls_sudo_otherwise(tmp_path: Path) -> None:
    """Run with stand-ins for the programs it calls (none of the system's is touched): as root
    with no sudo, it runs apt-get itself; as another user, it hands itself to sudo."""
    calls = tmp_path / "calls"
    script = ROOT / "scripts" / "install-test-deps"
    for user, has_sudo in (("0", False), ("1000", True), ("1000", False)):
        stubs = tmp_path / f"bin-{user}-{has_sudo}"
        stubs.mkdir()
        _stub(stubs, "id", f"echo {user}")
        for program in ("apt-get", "invoke-rc.d"):
            _stub(stubs, program, f'echo "{program} $*" >> {calls}')
        if has_sudo:
            _stub(stubs, "sudo", f'echo "sudo $*" >> {calls}')
        calls.write_text("")
        ran = subprocess.run(["/bin/bash", str(script)], capture_output=True, text=True, timeout=60,
                             env={"PATH": str(stubs)})
        said = calls.read_text()
        if user == "0":
            assert ran.returncode == 0 and "apt-get install" in said and "sudo" not in said, ran.stderr
        elif has_sudo:
            assert ran.returncode == 0 and said.startswith(f"sudo -- {script}") and "apt-get" not in said
        else:
            assert ran.returncode == 1 and "root" in ran.stderr and said == ""
