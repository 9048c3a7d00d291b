"""A remote endpoint's password, as a canary, appears nowhere a client or the log can see.

A real `bfsql serve --endpoint http://alice:CANARY@.../sparql` in front of Debian's nginx
(Basic authentication) in front of `oxigraph serve`: tools answered over HTTP and MCP, an
SVG picture, the OpenAPI document, then the endpoint gone (502s and MCP errors); then
`bfsql mcp --endpoint` with the password in the environment and `bfsql query --endpoint`
against the endpoint gone. Every answer, header, error and the whole of each process's
log are searched for the password in every form it could take: none is found.
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from support.servers import NginxServer, OxigraphServer
from tests.conftest import ROOT
from tests.surfaces.conftest import start_server

CANARY = "canary-" + secrets.token_hex(12) + "!/"
"""With characters a URL must escape: the escaped form is searched for too."""
IRENE = "https://example.org/wiki/Irene_Adler"
HOLMES = "https://example.org/wiki/Sherlock_Holmes"
"""Asked only once the endpoint is gone: the result cache holds no answer about him."""


def forms(secret: str) -> list[str]:
    return [secret, secret.rstrip("!/"), quote(secret, safe=""), base64.b64encode(f"alice:{secret}".encode()).decode()]


def leaks(text: str) -> list[str]:
    return [form for form in forms(CANARY) if form in text]


def basic_auth_nginx(oxigraph: OxigraphServer) -> NginxServer:
    return NginxServer(f'        location = /sparql {{ auth_basic "bfsql"; auth_basic_user_file {{d}}/htpasswd; '
                       f"proxy_pass {oxigraph.url}; }}\n", users={"alice": CANARY})


def transcript(response: httpx2.Response) -> str:
    return f"{response.status_code} {dict(response.headers)}\n{response.text}"


async def mcp_calls(client: Client, failing: bool, entity: str = IRENE) -> str:
    seen = []
    for name, arguments in (("describe_entity", {"id": entity}), ("bfs_query", {"seeds": [entity], "max_hops": 1})):
        result = await client.call_tool(name, arguments)
        assert result.is_error == failing, result.content
        seen.append(str(result.content) + str(result.structured_content))
    return "\n".join(seen)


def test_the_password_in_the_endpoint_url_appears_nowhere(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    nginx = basic_auth_nginx(oxigraph_server)
    outputs: list[str] = []
    served = start_server(tmp_path, "--endpoint", f"http://alice:{quote(CANARY, safe='')}@127.0.0.1:{nginx.port}/sparql")
    try:
        with served.client() as client:
            for tool, body in (("describe_schema", {}), ("describe_entity", {"id": IRENE}),
                               ("bfs_query", {"seeds": [IRENE], "max_hops": 2})):
                answered = client.post(f"/v1/tools/{tool}", json=body)
                assert answered.status_code == 200, answered.text
                outputs.append(transcript(answered))
            svg = client.post("/v1/tools/bfs_query?format=svg", json={"seeds": [IRENE]})
            assert svg.headers["content-type"].startswith("image/svg+xml") and "Irene Adler" in svg.text
            outputs += [transcript(svg), transcript(client.get("/openapi.json")), transcript(client.get("/v1/tools"))]
            outputs.append(asyncio.run(_over_mcp(f"{served.url}/mcp", failing=False)))
            nginx.stop()  # the endpoint is gone
            failed = client.post("/v1/tools/describe_entity", json={"id": HOLMES})
            assert failed.status_code == 502, failed.text
            assert failed.json()["code"] == "upstream_error" and f"127.0.0.1:{nginx.port}" in failed.json()["detail"]
            outputs.append(transcript(failed))
            outputs.append(asyncio.run(_over_mcp(f"{served.url}/mcp", failing=True)))
    finally:
        nginx.stop()
        assert served.stop() == 0
    log = served.log_text()
    assert leaks(log) == [] and leaks("\n".join(outputs)) == []
    assert f"serving http://127.0.0.1:{nginx.port}/sparql" in log  # the start line names the endpoint
    assert "HTTP Request: POST" in log  # and the client's request lines were there to search


async def _over_mcp(url: str, *, failing: bool) -> str:
    async with Client(url) as client:
        return await mcp_calls(client, failing, HOLMES if failing else IRENE)


def test_the_password_in_the_environment_appears_nowhere(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    """`bfsql mcp --endpoint` (stdio) and `bfsql query --endpoint` read the credentials from
    the environment; `bfsql query` is also given them in the URL of an endpoint that is gone."""
    nginx = basic_auth_nginx(oxigraph_server)
    environment = {**os.environ, "BFSQL_ENDPOINT_USER": "alice", "BFSQL_ENDPOINT_PASSWORD": CANARY}
    errors = tmp_path / "mcp-stderr.log"
    try:
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=environment,
                                       args=["-m", "gateway.surfaces.cli", "mcp", "--endpoint", nginx.url])

        async def session(failing: bool) -> str:
            with open(errors, "a") as errlog:
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    return await mcp_calls(client, failing)

        outputs = [asyncio.run(session(failing=False))]
        query = [sys.executable, "-m", "gateway.surfaces.cli", "query", "describe_entity", f'{{"id": "{IRENE}"}}',
                 "--endpoint", nginx.url]
        answered = subprocess.run(query, env=environment, capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert answered.returncode == 0 and "Irene Adler" in answered.stdout, answered.stderr
        outputs += [answered.stdout, answered.stderr]
    finally:
        nginx.stop()
    outputs.append(asyncio.run(session(failing=True)))
    query[-1] = nginx.url.replace("http://", f"http://alice:{quote(CANARY, safe='')}@")
    failed = subprocess.run(query, env=os.environ, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert failed.returncode == 1 and f"127.0.0.1:{nginx.port}" in failed.stderr, failed.stderr
    outputs += [failed.stdout, failed.stderr]
    assert leaks(errors.read_text()) == [] and leaks("\n".join(outputs)) == []
