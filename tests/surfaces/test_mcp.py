"""MCP with the real `mcp` client, in memory (stdio and HTTP live with the server tests)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gateway import Gateway
from gateway.surfaces.mcp import create_mcp_server
from gateway.tools import TOOLS
from tests.conftest import DEMO

EXAMPLES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent.parent / "resources" / "tool_examples.json").read_text()
)


def expected(gateway: Gateway, name: str) -> dict[str, Any]:
    return gateway.call(name, EXAMPLES[name]).model_dump(mode="json", exclude_none=True)


async def exercise(client: Client, gateway: Gateway) -> None:
    listed = (await client.list_tools()).tools
    assert sorted(t.name for t in listed) == sorted(TOOLS)
    for tool in listed:
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema and tool.output_schema.get("type") == "object"
        assert tool.input_schema.get("type") == "object"  # unknown fields: refused by the server, by name
        assert len(tool.description or "") > 80  # says what the tool answers (the list is held to 10,000 characters)
    for name in TOOLS:
        result = await client.call_tool(name, EXAMPLES[name])
        assert not result.is_error, (name, result.content)
        assert result.structured_content == expected(gateway, name), name
        assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]


def check_errors_name_the_field(results: dict[str, Any]) -> None:
    """Each error is one line naming the field; an invented field gets the real one."""
    for field, result in results.items():
        assert result.is_error
        text = result.content[0].text
        assert field in text and "\n" not in text and "pydantic" not in text, (field, text)
    assert "did you mean predicates?" in results["relationship_types"].content[0].text
    assert "'asserted_true', 'asserted_false'" in results["truth_status"].content[0].text


async def bad_calls(client: Client) -> dict[str, Any]:
    return {
        "max_hop": await client.call_tool("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hop": 2}),
        "relationship_types": await client.call_tool(
            "bfs_query", {"seeds": ["wiki:Irene_Adler"], "relationship_types": ["Knows"], "direction": "in"}),
        "truth_status": await client.call_tool("bfs_query", {"seeds": ["wiki:Irene_Adler"], "truth_status": ["maybe"]}),
        "id": await client.call_tool("describe_entity", {"id": "wiki:Moriarty"}),
        "cursor": await client.call_tool("scan_query", {"node_types": ["Person"], "cursor": "forged"}),
    }


def test_in_memory() -> None:
    gateway = Gateway.open(DEMO)

    async def session() -> None:
        async with Client(create_mcp_server(gateway)) as client:
            await exercise(client, gateway)
            check_errors_name_the_field(await bad_calls(client))

    asyncio.run(session())


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_tool_has_an_example(name: str) -> None:
    assert name in EXAMPLES


def test_over_stdio() -> None:
    """`bfsql mcp` as a subprocess, spoken to by the real client."""
    import os
    import sys

    from mcp.client.stdio import StdioServerParameters

    gateway = Gateway.open(DEMO)
    # The whole environment: the SDK passes on only a few variables by default, and the
    # server must seal scan cursors with this deployment's key (XDG_DATA_HOME) to match.
    params = StdioServerParameters(command=sys.executable, args=["-m", "gateway.surfaces.cli", "mcp", str(DEMO)],
                                   env=dict(os.environ))

    async def session() -> None:
        async with Client(params) as client:
            await exercise(client, gateway)
            check_errors_name_the_field(await bad_calls(client))

    asyncio.run(session())


def test_over_streamable_http(server: Any) -> None:
    """The running `bfsql serve` answers MCP at /mcp, with the same results."""
    gateway = Gateway.open(DEMO)

    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            await exercise(client, gateway)
            check_errors_name_the_field(await bad_calls(client))

    asyncio.run(session())


def test_mcp_refuses_foreign_origin_and_host(server: Any) -> None:
    import httpx2

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx2.Client() as http:
        foreign = http.post(f"{server.url}/mcp", json=body, headers={**headers, "Origin": "https://evil.example"})
        assert foreign.status_code == 403
        host = http.post(f"{server.url}/mcp", json=body, headers={**headers, "Host": "evil.example"})
        assert host.status_code in (403, 421)


def test_tools_list_and_the_http_tool_list_carry_the_same_schemas(client: Any) -> None:
    """One generator: MCP's own tools/list equals the "mcp" form of GET /v1/tools."""
    over_http = {tool["name"]: tool for tool in client.get("/v1/tools").json()["mcp"]}

    async def listed() -> list[Any]:
        async with Client(create_mcp_server(Gateway.open(DEMO))) as mcp_client:
            return (await mcp_client.list_tools()).tools

    for tool in asyncio.run(listed()):
        assert tool.input_schema == over_http[tool.name]["inputSchema"], tool.name
        assert tool.output_schema == over_http[tool.name]["outputSchema"], tool.name
        assert tool.description == over_http[tool.name]["description"]


def test_the_tool_list_an_agent_loads_is_light() -> None:
    """What an MCP client receives for all 14 tools, as compact JSON: at most 10,000 characters
    without the output schemas (9,765 with every field typed: test_tool_list_types.py), 25,000 with
    them (49,685 and 20,131 for 12 tools before the diet; bench/RESULTS.md, "Every field typed")."""

    async def listed() -> list[dict[str, Any]]:
        async with Client(create_mcp_server(Gateway.open(DEMO))) as mcp_client:
            tools = (await mcp_client.list_tools()).tools
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]

    tools = asyncio.run(listed())

    def size(value: object) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))

    assert size(tools) <= 25_000
    assert size([{k: v for k, v in tool.items() if k != "outputSchema"} for tool in tools]) <= 10_000


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_answer_over_streamable_http_samples_a_client_that_offers_it(server: Any, mode: str) -> None:
    """The newest protocol is asked between rounds; a handshake-era client ("legacy")
    within its session, as over stdio: either way the client's own model answers."""
    from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

    asked: list[str] = []

    async def sample(_: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        asked.append(params.system_prompt or "")
        return CreateMessageResult(role="assistant", model="scripted",
                                   content=TextContent(type="text", text='{"findings": []}'))

    async def run() -> Any:
        async with Client(f"{server.url}/mcp", sampling_callback=sample, mode=mode) as client:
            return await client.call_tool("answer", {"question": "Who is Irene Adler?"})

    result = asyncio.run(run())
    assert not result.is_error, result.content
    assert asked and result.structured_content["model_calls"] == len(asked)  # type: ignore[index]


def test_an_unexpected_error_is_told_bare_with_its_text_in_the_log_only(caplog: pytest.LogCaptureFixture) -> None:
    """As over HTTP: whatever an error that is no GatewayError holds (an upstream's words, a
    path, a secret) stays in the server's log."""

    class Failing(Gateway):
        def call(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("alice:s3cret@internal.example")

    async def session() -> Any:
        async with Client(create_mcp_server(Failing(Gateway.open(DEMO).backend))) as client:
            return await client.call_tool("describe_schema", {})

    result = asyncio.run(session())
    assert result.is_error and "internal_error" in result.content[0].text
    assert "s3cret" not in result.content[0].text and "s3cret" in caplog.text
