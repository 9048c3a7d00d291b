"""What a new user meets in the first hour, each as they would meet it: `--version`,
bundle directories wherever data is taken, the serve start line, the mode of files the
commands write, the OpenAPI document without a CDN page, operation IDs, blank IDs."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters

from gateway import Gateway, MalformedInput
from gateway.resources import package_version
from tests.conftest import DEMO, ROOT
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
