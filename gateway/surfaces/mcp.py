"""The MCP server: every tool of `gateway.tools.TOOLS` on the official `mcp` SDK.

It uses the SDK's public low-level `Server` with two handlers: `tools/list` publishes the
schemas of `gateway.tools.schemas` (the very ones `GET /v1/tools` and OpenAPI carry), and
`tools/call` validates the arguments with the tool's own input model (an unknown field is
an error naming it) and runs `Gateway.call` in a worker thread. Results come back as
structured content (compact, None fields left out) with the same JSON as text. A
`GatewayError` becomes an `is_error` result that says what went wrong and names the
field; every tool is read-only.

Over streamable HTTP the reader comes from the request's bearer token (set by the HTTP
app in `current_reader`, with the deadline it asks for in `current_deadline`); over stdio
the local user reads everything.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

from gateway.api import Gateway
from gateway.auth import Reader
from gateway.errors import GatewayError
from gateway.tools import TOOLS
from gateway.tools.schemas import tool_list, tool_schemas

current_reader: ContextVar[Reader | None] = ContextVar("current_reader", default=None)
current_deadline: ContextVar[float | None] = ContextVar("current_deadline", default=None)
"""Seconds the caller asked for (the BFSQL-Deadline header over HTTP); None: the default."""

INSTRUCTIONS = """\
This server explores a knowledge graph with a few bounded tools instead of SPARQL.

How to work:
1. describe_schema once, to learn the entity types and predicates that exist (never guess names).
2. search_entities to turn a name into an ID. Every other tool takes IDs (CURIEs such as
   wiki:Irene_Adler; full URLs are accepted and canonicalized).
3. bfs_query with topology_only=true and max_hops 1 (or 2) to see the shape of a neighbourhood
   cheaply: nodes are {id, entity_type} stubs, edges {subject, predicate, object}. A stub is a
   handle, not a missing thing: expand the few that matter with describe_entity /
   describe_entities, or ask bfs_query for full data on some types (node_filter) or predicates
   (edge_filter). Depth 3 and more gets large on well-connected nodes; widen step by step.
4. Traversal filters change what is reachable: truth_status (default only asserted_true claims;
   add disputed, hypothetical, retracted when the question is about doubt or disagreement),
   as_of (what was known at a point), valid_at (what held at a point), expand_traits
   (symmetric / inverse relations never asserted in that direction). Presentation filters
   (node_filter, edge_filter, topology_only) never change which nodes and edges come back.
   hidden_by_filter in a result says how many statements a filter kept out.
5. Other questions, other tools: what several entities share -> intersect_subgraphs; everything
   along one relation however deep (part-of, subclass-of) -> transitive_closure_query; a list
   with no starting point (every disputed claim, every Location) -> scan_query; how two
   entities connect -> shortest_path; clusters -> communities.
Results are bounded: limits says which bounds applied, truncated says when one cut the answer,
unresolved_seeds and warnings name IDs and names that are not in the graph (with suggestions).
"""


def create_mcp_server(gateway: Gateway) -> Server[Any]:
    """An MCP server answering every tool from `gateway`."""
    listed = ListToolsResult(tools=[Tool.model_validate(tool) for tool in tool_list(tool_schemas())["mcp"]])

    async def list_tools(_: Any, __: PaginatedRequestParams | None) -> ListToolsResult:
        return listed

    async def call_tool(_: Any, params: CallToolRequestParams) -> CallToolResult:
        if params.name not in TOOLS:
            return _error(f"invalid_input: unknown tool {params.name!r}; tools: {', '.join(TOOLS)}")
        call = partial(gateway.call, params.name, params.arguments or {},
                       reader=current_reader.get(), deadline=current_deadline.get())
        try:
            result = await anyio.to_thread.run_sync(call)
        except GatewayError as error:
            where = f" (field: {error.field})" if error.field else ""
            return _error(f"{error.code}: {error.message}{where}")
        return CallToolResult(
            content=[TextContent(type="text", text=result.model_dump_json(exclude_none=True))],
            structured_content=result.model_dump(mode="json", exclude_none=True),
        )

    return Server(
        "bfsql-gateway", version=_version(), title="BFS-QL gateway", instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool,
    )


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _version() -> str:
    try:
        return version("bfsql-gateway")
    except PackageNotFoundError:
        return "0"


def run_stdio(gateway: Gateway) -> None:
    """Serve MCP over stdin/stdout until the client closes it."""
    server = create_mcp_server(gateway)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
