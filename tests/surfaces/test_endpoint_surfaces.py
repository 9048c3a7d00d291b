"""Every surface against each kind of authenticated endpoint, on real servers.

Virtuoso's `/sparql-auth` (HTTP Digest, a SQL user with the SPARQL_SELECT role) and a
bearer token checked by Debian's nginx in front of `oxigraph serve`, each named in an
endpoints file whose credentials come from environment variables. `bfsql query`,
`bfsql mcp` (stdio, the real MCP client) and `bfsql serve` (HTTP) each answer a walk and
an entity as an embedded store holding the same data does, and no secret reaches an
answer or a log. (The Python API on the same servers: tests/backends/test_remote_auth_real.py;
Basic authentication through every surface: tests/backends/test_remote_canary.py and
tests/surfaces/test_endpoint_deployment.py.)
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.profiles.reification import ReificationProfile
from support.servers import NginxServer, OxigraphServer, VirtuosoServer, bearer_location
from tests.conftest import DEMO, DEMO_GRAPHS, ROOT, demo_reification
from tests.surfaces.conftest import start_server

SECRET = "secret-" + secrets.token_hex(12)
PREFIXES = scan_prefixes(DEMO)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("describe_entity", {"id": "wiki:Irene_Adler"}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2}),
]


@dataclass
class Deployment:
    """An endpoints file naming one authenticated endpoint, the environment holding its
    secret, and the embedded store that answers as it must."""

    endpoints: Path
    environment: dict[str, str]
    oracle: Gateway


def comparable(tool: str, answer: dict[str, Any]) -> Any:
    if tool == "bfs_query":
        return sorted(node["id"] for node in answer["nodes"]), answer["edge_count"], answer["hop_counts"]
    return answer["id"], answer["label"], answer["entity_type"], sorted(answer["properties"])


def entry(url: str, auth: str, extra: str = "") -> str:
    prefixes = "".join(f'{prefix} = "{namespace}"\n' for prefix, namespace in PREFIXES.items())
    return (f'[endpoints.store]\nurl = "{url}"\n{extra}[endpoints.store.prefixes]\n{prefixes}'
            f"[endpoints.store.auth]\n{auth}")


@pytest.fixture(scope="module", params=["virtuoso-digest", "nginx-bearer"])
def deployment(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    directory = tmp_path_factory.mktemp(request.param)
    endpoints = directory / "endpoints.toml"
    base = {name: value for name, value in os.environ.items() if not name.startswith("BFSQL_ENDPOINT")}
    if request.param == "virtuoso-digest":
        virtuoso: VirtuosoServer = request.getfixturevalue("virtuoso_server")
        virtuoso.add_sparql_user("bfsql_surfaces", SECRET)
        graphs = ", ".join(f'"{graph}"' for graph in DEMO_GRAPHS)
        endpoints.write_text(entry(virtuoso.auth_url, 'type = "digest"\nuser = "bfsql_surfaces"\n'
                                   'password_env = "STORE_PASSWORD"\n',
                                   f'profile = "reification"\ngraphs = [{graphs}]\n'))
        store = ox.Store()
        store.load(demo_reification().encode("utf-8"), format=ox.RdfFormat.N_QUADS)
        oracle = Gateway(EmbeddedBackend.from_store(store, prefixes=PREFIXES), profile=ReificationProfile)
        yield Deployment(endpoints, {**base, "STORE_PASSWORD": SECRET}, oracle)
        return
    oxigraph: OxigraphServer = request.getfixturevalue("oxigraph_server")
    nginx = NginxServer(bearer_location("/sparql", SECRET, oxigraph.url))
    endpoints.write_text(entry(nginx.url, 'type = "bearer"\ntoken_env = "STORE_TOKEN"\n'))
    try:
        yield Deployment(endpoints, {**base, "STORE_TOKEN": SECRET}, Gateway.open(DEMO, prefixes=PREFIXES))
    finally:
        nginx.stop()


def expected(deployment: Deployment) -> list[Any]:
    return [comparable(tool, deployment.oracle.call(tool, arguments).model_dump(mode="json"))
            for tool, arguments in CALLS]


def named(deployment: Deployment) -> list[str]:
    return ["--endpoints", str(deployment.endpoints), "--endpoint", "store"]


def test_bfsql_query(deployment: Deployment) -> None:
    seen = []
    for tool, arguments in CALLS:
        answered = subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "query", tool, json.dumps(arguments),
                                   *named(deployment)], env=deployment.environment, capture_output=True, text=True,
                                  cwd=ROOT, timeout=180)
        assert answered.returncode == 0, answered.stderr[-2000:]
        assert SECRET not in answered.stdout + answered.stderr
        seen.append(comparable(tool, json.loads(answered.stdout)))
    assert seen == expected(deployment)


def test_bfsql_mcp_over_stdio(deployment: Deployment, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=deployment.environment,
                                   args=["-m", "gateway.surfaces.cli", "mcp", *named(deployment)])
    errors = tmp_path / "mcp-stderr.log"

    async def session() -> list[Any]:
        seen = []
        with open(errors, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                for tool, arguments in CALLS:
                    result = await client.call_tool(tool, arguments)
                    assert not result.is_error, result.content
                    assert SECRET not in str(result.content)
                    seen.append(comparable(tool, result.structured_content))
        return seen

    assert asyncio.run(session()) == expected(deployment)
    assert SECRET not in errors.read_text()


def test_bfsql_serve(deployment: Deployment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("STORE_PASSWORD", "STORE_TOKEN"):
        if variable in deployment.environment:
            monkeypatch.setenv(variable, deployment.environment[variable])
    served = start_server(tmp_path, *named(deployment))
    seen = []
    try:
        with served.client() as client:
            for tool, arguments in CALLS:
                answered = client.post(f"/v1/tools/{tool}", json=arguments)
                assert answered.status_code == 200, answered.text
                assert SECRET not in answered.text + str(answered.headers)
                seen.append(comparable(tool, answered.json()))
    finally:
        assert served.stop() == 0
    assert seen == expected(deployment)
    assert SECRET not in served.log_text()
