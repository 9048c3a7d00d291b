"""The MCP server: every tool of `gateway.tools.TOOLS` on the official `mcp` SDK (MCPServer).

Tools are registered from the same pydantic models as the Python API and the HTTP
routes: the input schema is the tool's input model (unknown fields refused), the output
schema its output model, results come back as structured content (compact, None fields
left out) with the same JSON as text. A `GatewayError` becomes an `is_error` result that
says what went wrong and names the field; every tool is read-only.

Over streamable HTTP the reader comes from the request's bearer token (set by the HTTP
app in `current_reader`, with the deadline it asks for in `current_deadline`); over stdio
the local user reads everything.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import create_model

from gateway.api import Gateway
from gateway.auth import Reader
from gateway.errors import GatewayError
from gateway.tools import TOOLS, Tool

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


def create_mcp_server(gateway: Gateway) -> MCPServer:
    """An MCP server answering every tool from `gateway`."""
    server: MCPServer = MCPServer(
        "bfsql-gateway",
        title="BFS-QL gateway",
        instructions=INSTRUCTIONS,
        version=_version(),
        warn_on_duplicate_tools=False,
    )
    for tool in TOOLS.values():
        server.add_tool(
            _tool_function(gateway, tool),
            name=tool.name,
            title=tool.name.replace("_", " "),
            description=tool.description,
            annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False),
            structured_output=True,
        )
        registered = server._tool_manager.get_tool(tool.name)  # noqa: SLF001 - see _strict_arguments
        _strict_arguments(registered, tool)
    return server


def _tool_function(gateway: Gateway, tool: Tool) -> Callable[..., CallToolResult]:
    """A function with the tool's own parameters, so the SDK derives the same schemas."""

    def run(**arguments: Any) -> CallToolResult:
        try:
            result = gateway.call(tool.name, arguments, reader=current_reader.get(), deadline=current_deadline.get())
        except GatewayError as error:
            where = f" (field: {error.field})" if error.field else ""
            raise ToolError(f"{error.code}: {error.message}{where}") from None
        structured = result.model_dump(mode="json", exclude_none=True)
        text = result.model_dump_json(exclude_none=True)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=field.annotation,
            default=inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True),
        )
        for name, field in tool.input.model_fields.items()
    ]
    run.__signature__ = inspect.Signature(parameters, return_annotation=tool.output)  # type: ignore[attr-defined]
    run.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": tool.output}
    run.__name__ = tool.name
    return run


def _strict_arguments(registered: Any, tool: Tool) -> None:
    """Validate arguments with the tool's own model, so an unknown field is an error naming it.

    The SDK builds an argument model from the signature that ignores unknown fields; the
    FuncMetadata fields are read at call time, so the stricter model replaces it.
    """
    registered.fn_metadata.arg_model = create_model(f"{tool.name}_arguments", __base__=(ArgModelBase, tool.input))
    registered.parameters = tool.input.model_json_schema()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bfsql-gateway")
    except PackageNotFoundError:
        return "0"


def run_stdio(gateway: Gateway) -> None:
    """Serve MCP over stdin/stdout until the client closes it."""
    create_mcp_server(gateway).run("stdio")
