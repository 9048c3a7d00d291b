"""Every client configuration in docs/mcp.md parses, and the server it names answers.

The blocks name `/home/you/.local/bin/bfsql` and `/home/you/graphs/graph.ttl`: the test
starts the `bfsql` this environment installed and the demo graph in their place, with
the real MCP client over stdio or streamable HTTP, and sends the plain HTTP client's
request as it is written (headers and body)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from gateway.tools import TOOLS
from tests.conftest import DEMO, ROOT
from tests.surfaces.conftest import Served

DOC = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
BFSQL = Path(sys.executable).with_name("bfsql")
BLOCKS = re.findall(r"```json\n(.*?)```", DOC[DOC.index("## Client configuration"):], re.S)


def servers() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for block in BLOCKS:
        config = json.loads(block)
        for name, entry in (config.get("mcpServers") or config["servers"]).items():
            found.append((name, entry))
    return found


def test_every_client_of_the_docs_is_there() -> None:
    assert len(BLOCKS) == 3 and len(servers()) == 5
    assert BFSQL.is_file(), "the test environment installs the bfsql command"


async def _listed(target: Any) -> list[str]:
    async with Client(target) as client:
        return sorted(tool.name for tool in (await client.list_tools()).tools)


@pytest.mark.parametrize(("name", "entry"), servers(), ids=[f"{i}-{n}" for i, (n, _) in enumerate(servers())])
def test_the_server_a_configuration_names_answers(name: str, entry: dict[str, Any], server: Served) -> None:
    if "command" in entry:
        assert entry["command"].endswith("/bfsql") and entry.get("type", "stdio") == "stdio"
        args = [str(DEMO) if arg.endswith(".ttl") else arg for arg in entry["args"]]
        target: Any = StdioServerParameters(command=str(BFSQL), args=args, env=dict(os.environ))
    else:
        assert entry.get("type", "http") == "http" and entry["url"] == "http://127.0.0.1:8000/mcp"
        target = entry["url"].replace("http://127.0.0.1:8000", server.url)
    assert asyncio.run(_listed(target)) == sorted(TOOLS)


def test_the_plain_http_request_answers_as_written(server: Served) -> None:
    command = re.search(r"```sh\ncurl (.*?)```", DOC, re.S)
    assert command is not None
    words = shlex.split(command.group(1).replace("\\\n", " "))
    url = words[words.index("-s") + 1].replace("http://127.0.0.1:8000", server.url)
    headers = dict(w.split(": ", 1) for i, w in enumerate(words) if i and words[i - 1] == "-H")
    body = json.loads(words[words.index("-d") + 1])
    answer = httpx2.post(url, headers=headers, json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["structuredContent"]["results"][0]["id"] == "wiki:Irene_Adler"
