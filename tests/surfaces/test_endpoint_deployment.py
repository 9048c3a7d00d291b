"""A remote endpoint deployed as a team runs one, end to end, on real components.

Debian's nginx with Basic authentication in front of `oxigraph serve`, named in an
endpoints file whose entry takes the user and password from environment variables (and
names the team's contact and prefixes), wrapped two ways: `bfsql serve --endpoints FILE
--endpoint team`, and `bfsql mcp --endpoint team` over stdio with the file named by
`$BFSQL_ENDPOINTS`, as an editor's MCP configuration would. Through both, a walk, a
search and a table equal the same calls on the embedded store; a canary password appears
in no answer and no log; the User-Agent that reaches nginx names the contact; a repeated
call is answered from the result cache (nginx's access log counts no new request). Then
a walk whose third hop the endpoint cannot answer in time (nginx gives up on a stalled
upstream: 504) returns its first two hops, flagged, equal to a two-hop walk.
(`BFSQL_ENDPOINT_USER`/`BFSQL_ENDPOINT_PASSWORD` with `--endpoint URL` on every command:
tests/backends/test_remote_canary.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from gateway.api import Gateway
from support.servers import FaultProxy, NginxServer, OxigraphServer
from tests.conftest import DEMO, ROOT
from tests.surfaces.conftest import start_server

CANARY = "canary-" + secrets.token_hex(12)
CONTACT = "mailto:graph-team@example.org"
IRENE = "https://example.org/wiki/Irene_Adler"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("bfs_query", {"seeds": [IRENE], "max_hops": 2}),
    ("search_entities", {"query": "Irene Adler"}),
    ("tabulate", {"type": "sh:Person", "columns": {"home": "rel:LivesAt", "name": "rdfs:label"}, "limit": 100}),
]


@pytest.fixture(scope="module")
def oracle() -> Gateway:
    return Gateway.open(DEMO)


@pytest.fixture(scope="module")
def prefixes(oracle: Gateway) -> dict[str, str]:
    return oracle.describe_schema().prefixes


@pytest.fixture(scope="module")
def stall_on(oracle: Gateway) -> str:
    """A node the walk reaches at its second hop: only the third hop's query names it."""
    walked = oracle.call("bfs_query", {"seeds": [IRENE], "max_hops": 2})
    second = walked.nodes[-1].id  # type: ignore[attr-defined]  (nodes are listed by hop)
    return oracle.ids.resolve(second, "id").iri


@pytest.fixture(scope="module")
def deployment(oxigraph_server: OxigraphServer, stall_on: str) -> Iterator[tuple[NginxServer, FaultProxy]]:
    proxy = FaultProxy(oxigraph_server.url)
    proxy.iri, proxy.fault = stall_on, "stall"
    nginx = NginxServer(
        f'        location = /sparql {{ auth_basic "bfsql"; auth_basic_user_file {{d}}/htpasswd; '
        f"proxy_pass {oxigraph_server.url}; }}\n"
        f'        location = /slow {{ auth_basic "bfsql"; auth_basic_user_file {{d}}/htpasswd; '
        f"proxy_read_timeout 1s; proxy_pass {proxy.url}; }}\n",
        users={"alice": CANARY})
    try:
        yield nginx, proxy
    finally:
        proxy.close()
        nginx.stop()


def upstream_requests(nginx: NginxServer) -> list[str]:
    return [line for line in (nginx.directory / "access.log").read_text().splitlines() if '"POST /sparql' in line]


def endpoints_file(directory: Path, nginx: NginxServer, prefixes: dict[str, str]) -> Path:
    """The team's endpoints: its credentials named by variable, its contact, and the prefixes
    its data uses (an endpoint's own are never read from it)."""
    path = directory / "endpoints.toml"
    named = "".join(f'{prefix} = "{namespace}"\n' for prefix, namespace in prefixes.items())
    entry = ('url = "{url}"\ncontact = "{contact}"\n[endpoints.{name}.auth]\ntype = "basic"\n'
             'user_env = "TEAM_SPARQL_USER"\npassword_env = "TEAM_SPARQL_PASSWORD"\n'
             "[endpoints.{name}.prefixes]\n{named}")
    path.write_text(
        "[endpoints.team]\n" + entry.format(url=nginx.url, contact=CONTACT, name="team", named=named)
        + "\n[endpoints.slow]\ncache_ttl = 0\nmax_concurrency = 1\n"
        + entry.format(url=f"{nginx.base}/slow", contact=CONTACT, name="slow", named=named))
    return path


def comparable(tool: str, answer: dict[str, Any]) -> Any:
    """What must be equal between the endpoint and the embedded store for each tool."""
    if tool == "bfs_query":
        return sorted(node["id"] for node in answer["nodes"]), answer["edge_count"], answer["truncated"]
    if tool == "search_entities":
        return [hit["id"] for hit in answer["results"]][:1]
    return answer["rows"]


def leaks(text: str) -> bool:
    return CANARY in text


def test_serve_and_mcp_over_an_authenticated_endpoint(
    tmp_path: Path, deployment: tuple[NginxServer, FaultProxy], oracle: Gateway, prefixes: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nginx, _ = deployment
    monkeypatch.setenv("TEAM_SPARQL_USER", "alice")
    monkeypatch.setenv("TEAM_SPARQL_PASSWORD", CANARY)
    expected = {tool: comparable(tool, oracle.call(tool, arguments).model_dump(mode="json"))
                for tool, arguments in CALLS}
    outputs: list[str] = []

    endpoints = endpoints_file(tmp_path, nginx, prefixes)
    served = start_server(tmp_path, "--endpoints", str(endpoints), "--endpoint", "team")
    try:
        with served.client() as client:
            for tool, arguments in CALLS:
                answered = client.post(f"/v1/tools/{tool}", json=arguments)
                assert answered.status_code == 200, answered.text
                assert comparable(tool, answered.json()) == expected[tool], tool
                outputs.append(f"{answered.headers}\n{answered.text}")
            # The same walk again: served from the cache, nothing sent upstream.
            before = len(upstream_requests(nginx))
            again = client.post("/v1/tools/bfs_query", json=CALLS[0][1])
            assert again.status_code == 200 and comparable("bfs_query", again.json()) == expected["bfs_query"]
            assert len(upstream_requests(nginx)) == before
            assert "hits=" in again.headers.get("bfsql-cache", "") and "misses=0" in again.headers["bfsql-cache"]
            # A walk not asked before does go upstream (the count above could not pass by accident).
            other = client.post("/v1/tools/bfs_query", json={"seeds": [IRENE], "max_hops": 1})
            assert other.status_code == 200 and len(upstream_requests(nginx)) > before
            assert client.get("/sparql").status_code == 404  # the endpoint has its own /sparql
    finally:
        assert served.stop() == 0
    log = served.log_text()
    started = [line for line in log.splitlines() if "serving " in line]
    assert started and "SPARQL" not in started[0]  # /sparql is not served in endpoint mode: not advertised

    # The MCP client's configuration names the file in its environment, as an editor's would.
    environment = {**os.environ, "BFSQL_ENDPOINTS": str(endpoints)}
    errors = tmp_path / "mcp-stderr.log"
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=environment,
                                   args=["-m", "gateway.surfaces.cli", "mcp", "--endpoint", "team"])

    async def session() -> list[str]:
        seen = []
        with open(errors, "a") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as mcp:
                for tool, arguments in CALLS:
                    result = await mcp.call_tool(tool, arguments)
                    assert not result.is_error, result.content
                    assert comparable(tool, result.structured_content) == expected[tool], tool
                    seen.append(json.dumps(result.structured_content))
        return seen

    outputs += asyncio.run(session())
    agents = [line.rsplit('"', 2)[-2] for line in upstream_requests(nginx)]
    assert agents and all(f"({CONTACT})" in agent and agent.startswith("bfsql-gateway/") for agent in agents)
    assert not leaks("\n".join(outputs)) and not leaks(log) and not leaks(errors.read_text())
    assert not leaks((nginx.directory / "access.log").read_text())


def test_a_walk_the_endpoint_cannot_finish_returns_its_completed_hops(
    tmp_path: Path, deployment: tuple[NginxServer, FaultProxy], oracle: Gateway, prefixes: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nginx, proxy = deployment
    monkeypatch.setenv("TEAM_SPARQL_USER", "alice")
    monkeypatch.setenv("TEAM_SPARQL_PASSWORD", CANARY)
    command = [sys.executable, "-m", "gateway.surfaces.cli", "query", "bfs_query",
               json.dumps({"seeds": [IRENE], "max_hops": 3}),
               "--endpoints", str(endpoints_file(tmp_path, nginx, prefixes)), "--endpoint", "slow", "--deadline", "60"]
    answered = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120, env=os.environ)
    assert answered.returncode == 0, answered.stderr[-2000:]
    walk = json.loads(answered.stdout)
    two_hops = oracle.call("bfs_query", {"seeds": [IRENE], "max_hops": 2}).model_dump(mode="json")
    assert proxy.faults >= 1, "the third hop was never asked: the test proves nothing"
    assert walk["truncated"] is True and walk["truncation"]["reason"] == "endpoint_timeout"
    assert walk["truncation"]["at_hop"] == 3
    assert sorted(node["id"] for node in walk["nodes"]) == sorted(node["id"] for node in two_hops["nodes"])
    assert walk["hop_counts"] == two_hops["hop_counts"]
    assert any("hop 3" in warning for warning in walk["warnings"]), walk["warnings"]
    assert not leaks(answered.stdout + answered.stderr)
