"""The MCP server: every tool of `gateway.tools.TOOLS` on the official `mcp` SDK.

It uses the SDK's public low-level `Server` with two handlers: `tools/list` publishes the
schemas of `gateway.tools.json_schemas` (the very ones `GET /v1/tools` and OpenAPI carry), and
`tools/call` validates the arguments with the tool's own input model (an unknown field is
an error naming it) and runs `Gateway.call` in a worker thread, told to stop (its
`abandoned` event) when the client cancels the request (`notifications/cancelled`) or goes
away: the call stops at its next check, as at its deadline. Results come back as
structured content (compact, None fields left out) with the same JSON as text. A
`GatewayError` becomes an `is_error` result that says what went wrong and names the
field; every tool is read-only.

Over streamable HTTP the reader comes from the request's bearer token (set by the HTTP
app in `current_reader`, with the deadline it asks for in `current_deadline`); over stdio
the local user reads everything.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import sys
import threading
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp import MCPDeprecationWarning, MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    InputRequest,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    SamplingCapability,
    SamplingMessage,
    TextContent,
    Tool,
)
from pydantic import BaseModel

from gateway import deadline as deadlines
from gateway import llm
from gateway.api import Gateway
from gateway.auth import Reader
from gateway.errors import EndpointTimeout, GatewayError, InvalidInput, ModelError, NoModel, StoreDamaged
from gateway.llm import Model
from gateway.redaction import redact
from gateway.resources import package_version
from gateway.tools import TOOLS
from gateway.tools.json_schemas import tool_list, tool_schemas

T = TypeVar("T")
logger = logging.getLogger("gateway.mcp")
current_reader: ContextVar[Reader | None] = ContextVar("current_reader", default=None)
current_deadline: ContextVar[float | None] = ContextVar("current_deadline", default=None)
"""Seconds the caller asked for (the BFSQL-Deadline header over HTTP); None: the default."""
current_abandoned: ContextVar[threading.Event | None] = ContextVar("current_abandoned", default=None)
"""Set when the HTTP request carrying the call ends before its answer (the client left): the
SDK does not cancel a handler for that, so the HTTP app says so here."""

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
5. Other questions, other tools (the same traversal filters as bfs_query): the few neighbours
   worth reading next, ranked, with previews -> expand_neighbors; what several entities
   share -> intersect_subgraphs; everything along one relation however deep (part-of,
   subclass-of) -> transitive_closure_query; a list with no starting point (every disputed
   claim, every Location) -> scan_query; how two entities connect -> shortest_path (no path is
   found=false with a reason); clusters -> communities. The text an edge rests on -> fetch_slice
   on its bfs:evidencePassage (cite parent_id). A question with no starting point at all ->
   answer (a language model reads the graph's communities; slower, and only where one is
   configured or this client offers sampling).
Results are bounded: limits says which bounds applied, truncated says when one cut the answer,
unresolved_seeds and warnings name IDs and names that are not in the graph (with suggestions).
"""


def create_mcp_server(gateway: Gateway) -> Server[Any]:
    """An MCP server answering every tool from `gateway`."""
    listed = ListToolsResult(tools=[Tool.model_validate(tool) for tool in tool_list(tool_schemas())["mcp"]])

    async def list_tools(_: Any, __: PaginatedRequestParams | None) -> ListToolsResult:
        return listed

    async def call_tool(
        request: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        if params.name not in TOOLS:
            return _error(f"invalid_input: unknown tool {params.name!r}; tools: {', '.join(TOOLS)}")
        abandoned, outer = threading.Event(), current_abandoned.get()
        call = partial(gateway.call, params.name, params.arguments or {},
                       reader=current_reader.get(), deadline=current_deadline.get(), abandoned=abandoned)
        if params.name == "answer" and request.session.check_client_capability(
            ClientCapabilities(sampling=SamplingCapability())
        ):
            if request.session.can_send_request:  # a protocol with server-to-client requests
                model: Model = ClientModel(request)
            else:  # the client answers between rounds (input-required results)
                try:
                    model = llm.Replayed(_replies(gateway, params))
                except GatewayError as error:
                    return _error(f"{error.code}: {error.message}")
            call = partial(_with_model, model, call)
        try:
            result = await _stoppable(call, abandoned, outer)
        except llm.NeedInput as need:
            return _ask(gateway, need, params)
        except NoModel as error:
            if request.session.client_capabilities is None:  # stateless HTTP: the handshake is not known here
                return _error(f"{error.code}: {error.message}; this server's /mcp keeps no sessions (it runs several "
                              "workers), so a handshake-era client's own model cannot be asked here: connect with "
                              "the newest protocol (its model is asked between rounds) or over stdio (bfsql mcp)")
            return _error(f"{error.code}: {error.message}")
        except GatewayError as error:
            if isinstance(error, StoreDamaged):  # where and how to rebuild it: for the operator's eyes
                logger.error("%s", error.detail)
            where = f" (field: {error.field})" if error.field else ""
            return _error(f"{error.code}: {error.message}{where}")
        except Exception:  # as over HTTP: a bare error, the details in the log only (never their text)
            logger.exception("unexpected error in %s", params.name)
            return _error("internal_error: the gateway failed unexpectedly; the error is in its log")
        return CallToolResult(
            content=[TextContent(type="text", text=result.model_dump_json(exclude_none=True))],
            structured_content=result.model_dump(mode="json", exclude_none=True),
        )

    return Server(
        "bfsql-gateway", version=package_version(), title="BFS-QL gateway", instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool,
    )


class ClientModel:
    """The MCP client's own model, through sampling, for `answer`: asked from the worker
    thread the tool runs in (a protocol version with server-to-client requests)."""

    def __init__(self, request: ServerRequestContext[Any, Any]) -> None:
        self.request = request

    def complete(self, system: str, prompt: str) -> str:
        left = deadlines.remaining()  # read here: the call's deadline lives in this thread's context
        try:
            with warnings.catch_warnings():  # deprecated in the newest protocol, still the way in older ones
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                result = anyio.from_thread.run(self._sample, system, prompt, left)
        except TimeoutError:
            raise EndpointTimeout("the client's model did not answer within the call's deadline",
                                  field="max_batches") from None
        except MCPError as error:
            raise ModelError(f"the client's model failed: {error}") from None
        if not isinstance(result.content, TextContent):
            raise ModelError("the client's model answered no text")
        return result.content.text

    async def _sample(self, system: str, prompt: str, seconds: float | None) -> Any:
        # A client that never answers must not hold the worker thread past the deadline.
        with anyio.fail_after(seconds):
            return await self.request.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                max_tokens=MAX_TOKENS, system_prompt=system, temperature=0.0,
                related_request_id=self.request.request_id,
            )


OUTER_POLL = 0.1
"""Seconds between two looks at whether the HTTP request carrying a call has ended."""
MAX_TOKENS = 4096
"""What a sampling request lets the client's model write."""
MAX_REPLY = 100_000
"""Characters of one reply carried between rounds."""


def _ask(gateway: Gateway, need: llm.NeedInput, params: CallToolRequestParams) -> InputRequiredResult:
    """The prompts `answer` still needs, for the client's model, with the replies so far
    sealed in `request_state` (the call runs again, whole, when the client retries)."""
    requests: dict[str, InputRequest] = {
        key: CreateMessageRequest(params=CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
            system_prompt=system, max_tokens=MAX_TOKENS, temperature=0.0))
        for key, (system, prompt) in need.asks.items()
    }
    return InputRequiredResult(input_requests=requests, request_state=_seal(gateway, _replies(gateway, params)))


def _replies(gateway: Gateway, params: CallToolRequestParams) -> dict[str, str]:
    """The client model's replies so far: those sealed in the state the client echoes,
    and the ones it sends now."""
    known = _unseal(gateway, params.request_state) if params.request_state else {}
    for key, response in (params.input_responses or {}).items():
        content = getattr(response, "content", None)
        if not isinstance(content, TextContent):
            raise ModelError(f"the client's model answered {key!r} with no text")
        if len(content.text) > MAX_REPLY:
            raise ModelError(f"the client's model answered {key!r} with more than {MAX_REPLY} characters")
        known[key] = content.text
    return known


def _seal(gateway: Gateway, replies: dict[str, str]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(replies, sort_keys=True).encode()).decode()
    return f"{body}.{_mac(gateway, body)}"


def _unseal(gateway: Gateway, state: str) -> dict[str, str]:
    body, _, mac = state.rpartition(".")
    # A sealed state is ASCII; anything else would make compare_digest raise (TypeError).
    if not state.isascii() or not body or not hmac.compare_digest(mac, _mac(gateway, body)):
        raise InvalidInput("request_state was not made by this server", field="request_state")
    replies = json.loads(base64.urlsafe_b64decode(body))
    return {str(k): str(v) for k, v in replies.items()}


def _mac(gateway: Gateway, body: str) -> str:
    return hmac.new(gateway.context.cursor_secret(), b"answer-state\0" + body.encode(), hashlib.sha256).hexdigest()


async def _stoppable(call: Callable[[], T], abandoned: threading.Event, outer: threading.Event | None = None) -> T:
    """`call` in a worker thread; once this request is cancelled (the SDK cancels its handler
    when the client sends `notifications/cancelled`, or when a stdio or in-memory session
    ends) or the HTTP request carrying it has ended (`outer`), `abandoned` is set so that
    the call stops at its next check instead of working for nobody. A cancellation reaches
    this handler only once the thread has stopped: the worker is never left running behind
    it, and what it answered then goes nowhere."""

    async def watch() -> None:
        try:
            if outer is None:
                await anyio.sleep_forever()
            while outer is not None and not outer.is_set():
                await anyio.sleep(OUTER_POLL)
        finally:  # cancelled or left: the request was (or the call is over, and then it is moot)
            abandoned.set()

    def caught() -> tuple[T | None, Exception | None]:
        try:
            return call(), None
        except Exception as error:  # carried out of the task group as it is, not as a group of one
            return None, error

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            result, error = await anyio.to_thread.run_sync(caught)
        finally:
            group.cancel_scope.cancel()
    await anyio.lowlevel.checkpoint_if_cancelled()  # a cancelled request is not answered
    if error is not None:
        raise error
    return result  # type: ignore[return-value]


def _with_model(model: Model, call: Callable[[], BaseModel]) -> BaseModel:
    with llm.using(model):
        return call()


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=redact(text))], is_error=True)


def run_stdio(gateway: Gateway) -> None:
    """Serve MCP over stdin/stdout until the client closes it."""
    server = create_mcp_server(gateway)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(_SaysNonMcp(read), write, server.create_initialization_options())

    anyio.run(serve)


class _SaysNonMcp:
    """stdin's messages, passed on as read; the first line that is no JSON-RPC message is
    said on stderr once (the SDK drops it without a word, so a person typing at the
    command, or a shell piping text to it, saw nothing at all)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.told = False

    @property
    def last_context(self) -> Any:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Any:
        item = await self.inner.receive()
        if isinstance(item, Exception) and not self.told:
            self.told = True
            print("bfsql: stdin holds something other than MCP's JSON-RPC messages, which this command reads (an MCP "
                  "client starts it: docs/mcp.md); for one call from a shell, use `bfsql query TOOL JSON`",
                  file=sys.stderr, flush=True)
        return item

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> _SaysNonMcp:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _SaysNonMcp:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
