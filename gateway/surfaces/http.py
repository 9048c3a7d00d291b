"""The HTTP JSON API: a thin FastAPI adapter over `Gateway.call`.

    POST /v1/tools/{name}   run one tool: the body is its input model, the answer its output model
    GET  /v1/tools          every tool in OpenAI function-calling format and in MCP tool format
    GET  /openapi.json      OpenAPI 3.1, generated from the same pydantic models as the tools
    GET  /healthz           liveness
    GET|POST /sparql        read-only SPARQL 1.1 Protocol (`gateway.surfaces.sparql_endpoint`)

Every error is an RFC 9457 problem document (`gateway.surfaces.problems`, the one place
where exceptions become HTTP statuses); Host, Origin, size and time bounds are in
`gateway.surfaces.middleware`; the tools' schemas come from `gateway.tools.json_schemas`.

A JSON body must have the types its schema states (`"max_hops": 2`, not `"2"`): the
HTTP contract is the published schema, while the Python API and the CLI coerce.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.api import Gateway
from gateway.arguments import without_nulls
from gateway.auth import Reader, Readers
from gateway.backends import result_cache
from gateway.errors import GatewayError, InvalidInput, NotFound, Unauthorized
from gateway.pictures import FORMATS, MEDIA_TYPES, PICTURED
from gateway.surfaces.mcp import create_mcp_server, current_abandoned, current_deadline, current_reader
from gateway.surfaces.middleware import (
    LOOPBACK_HOSTS,
    AccessLog,
    AllowedHosts,
    AllowedOrigins,
    BoundedBody,
    BoundedResponse,
    Rule,
    SingleHeaders,
    Unexpected,
    check_json_depth,
    host_rules,
    origin_rules,
    replay_body,
)
from gateway.surfaces.problems import (
    PROBLEM_SCHEMA,
    Problem,
    problem_response,
    problem_responses,
    validation_problem,
)
from gateway.surfaces.sparql_endpoint import SparqlEndpoint, store_opener
from gateway.surfaces.sparql_sandbox import SandboxLimits
from gateway.tools import TOOLS, Tool
from gateway.tools.json_schemas import Schemas, strict_tool_list, tool_list, tool_schemas


# -- requests --------------------------------------------------------------------------
def parse_arguments(model: type[BaseModel], body: bytes) -> BaseModel:
    """The body as `model`, strictly typed as JSON; an empty body is `{}` (tools without required fields)."""
    check_json_depth(body)
    if b"null" in body:  # null means "not given" (see gateway.arguments.without_nulls)
        with contextlib.suppress(ValueError):  # not JSON: pydantic says where, below
            body = json.dumps(without_nulls(model, json.loads(body))).encode()
    try:
        return model.model_validate_json(body if body.strip() else b"{}", strict=True)
    except ValidationError as error:
        raise validation_problem(error.errors(), model=model) from None


Authenticate = Callable[[Request], Reader | None]
DEADLINE_HEADER = "BFSQL-Deadline"
"""Seconds the caller gives a tool call (less than the default, or more when trusted)."""
CACHE_HEADER = "BFSQL-Cache"
"""On a tool's answer over a remote endpoint with a result cache: `hits=N; misses=M`, the
call's queries answered from the cache (or by an identical request in flight) and sent."""


def asked_deadline(request: Request) -> float | None:
    value = request.headers.get(DEADLINE_HEADER)
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not (0 < seconds < float("inf")):
        raise Problem(400, "malformed_request", f"the {DEADLINE_HEADER} header must be a number of seconds, not {value[:40]!r}",
                      DEADLINE_HEADER)
    return seconds


def authenticator(readers: Readers | None) -> Authenticate:
    """`Authorization: Bearer <token>` as a reader; without a readers file everything is readable."""

    def authenticate(request: Request) -> Reader | None:
        if readers is None:
            return None
        header = request.headers.get("authorization")
        if header is None:
            return readers.authenticate(None)
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("expected an Authorization: Bearer <token> header")
        return readers.authenticate(token.strip())

    return authenticate


TOOL_PROBLEMS = (400, 401, 403, 404, 405, 413, 421, 422, 429, 500, 502, 503, 504)
TOOL_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["openai", "mcp"],
    "properties": {
        "openai": {"type": "array", "items": {"type": "object"}, "description": "OpenAI function-calling tools."},
        "mcp": {"type": "array", "items": {"type": "object"}, "description": "MCP tools (tools/list)."},
    },
}


def build_openapi(app: FastAPI, schemas: Schemas) -> dict[str, Any]:
    """FastAPI's document, with each tool's body and answer taken from the shared schemas."""
    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update(schemas.components)
    components["Problem"] = PROBLEM_SCHEMA
    for name, tool in TOOLS.items():
        operation = document["paths"][f"/v1/tools/{name}"]["post"]
        required = any(f.is_required() for f in tool.input.model_fields.values())
        operation["requestBody"] = {"required": required, "content": {"application/json": {"schema": schemas.inputs[name]}}}
        operation["responses"] = {
            "200": {"description": "The tool's answer; fields that are None are omitted.",
                    "content": {"application/json": {"schema": schemas.outputs[name]}}},
            **problem_responses(*TOOL_PROBLEMS),
        }
    listing = document["paths"]["/v1/tools"]["get"]  # `?strict=` is checked too: a bad value is a Problem
    listing["responses"].update(problem_responses(422))
    # FastAPI's own validation error schemas are never served: every error is a Problem.
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return document


# -- the app ------------------------------------------------------------------------------
@dataclass(frozen=True)
class HttpConfig:
    """What the HTTP app answers for and the bounds it keeps (`bfsql serve` makes one from
    its options: `gateway.surfaces.serve.ServeConfig.app_config`)."""

    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    """The Host header values answered: `name` (any port) or `name:port`; `*` answers every host."""
    allowed_origins: tuple[str, ...] = ()
    """Origins that may call besides the server's own (http and https on the allowed hosts),
    such as `https://app.example` (`*`: any); CORS is answered for them. A request without
    an Origin header always passes."""
    max_body_bytes: int = 1_000_000
    """A request body's bound (413 past it)."""
    max_response_bytes: int = 20_000_000
    """An answer's bound, a SPARQL result's included (413 past it, never a truncated answer)."""
    request_timeout: float = 30.0
    """Seconds a request's body has to arrive (408 past it)."""
    sparql: SandboxLimits = field(default_factory=SandboxLimits)
    """The SPARQL endpoint's workers, deadline and memory."""
    mcp_sessions: bool = True
    """Keep MCP sessions for handshake-era clients (see `_mcp`); a server of several worker
    processes turns it off, since a session lives in one process."""


def create_app(gateway: Gateway, config: HttpConfig | None = None, *, readers: Readers | None = None) -> FastAPI:
    """The HTTP API over `gateway`, configured by `config` (default `HttpConfig()`), its
    requests read as `readers` allow (None: everything is readable).

    The SPARQL endpoint is added when the backend is an embedded store; its sandbox
    processes are started here, while the process is still single-threaded.
    """
    config = config or HttpConfig()
    schemas = tool_schemas()
    tools_listing = tool_list(schemas)
    strict_listing = {**tools_listing, "openai": strict_tool_list(schemas)}
    authenticate = authenticator(readers)
    sparql = _sparql_endpoint(gateway, authenticate, config.sparql, config.max_response_bytes)
    mcp_endpoint, mcp_session_managers = _mcp(gateway, authenticate, sessions=config.mcp_sessions)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            async with contextlib.AsyncExitStack() as running:
                for manager in mcp_session_managers:
                    await running.enter_async_context(manager.run())
                yield
        finally:
            if sparql is not None:
                sparql.close()

    app = FastAPI(
        title="BFS-QL gateway",
        version="1",
        description="Bounded graph-traversal tools for LLM agents over an RDF 1.2 graph.",
        # No /docs or /redoc: both load their script from a CDN (blank offline, and against
        # the rule that a page of this server talks to this server only). /openapi.json
        # is the document; any OpenAPI viewer reads it.
        docs_url=None, redoc_url=None,
        lifespan=lifespan,
        middleware=app_middleware(config),
    )
    # MCP over streamable HTTP, under the same Host/Origin/body rules as every route.
    # POST, and DELETE to end a session; GET (a standalone event stream that never ends)
    # gets 405, which the protocol allows.
    mcp_methods = ["POST", "DELETE"] if config.mcp_sessions else ["POST"]
    app.router.routes.append(Route("/mcp", endpoint=mcp_endpoint, methods=mcp_methods))

    async def problem_handler(request: Request, error: Exception) -> Response:
        return problem_response(error, credentials_sent="authorization" in request.headers)

    for error_type in (Problem, GatewayError, RequestValidationError, StarletteHTTPException):
        app.add_exception_handler(error_type, problem_handler)

    for tool in TOOLS.values():
        app.add_api_route(
            f"/v1/tools/{tool.name}", _tool_endpoint(gateway, tool, authenticate), methods=["POST"],
            response_model=tool.output, operation_id=tool.name, summary=tool.name, description=tool.description,
            tags=["tools"],
        )

    async def unknown_tool(name: str) -> Response:
        raise NotFound(f"there is no tool {name!r}; the tools are {', '.join(TOOLS)}", field="name")

    app.add_api_route("/v1/tools/{name}", unknown_tool, methods=["POST"], include_in_schema=False)

    async def list_tools(strict: bool = False) -> dict[str, Any]:
        """`?strict=true`: the OpenAI tools in strict mode (every field required, null for "not given")."""
        return strict_listing if strict else tools_listing

    app.add_api_route(
        "/v1/tools", list_tools, methods=["GET"], tags=["tools"], summary="The tools, for OpenAI and MCP clients",
        operation_id="list_tools",
        responses={"200": {"content": {"application/json": {"schema": TOOL_LIST_SCHEMA}}}, **problem_responses()},
    )

    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.add_api_route(
        "/healthz", healthz, methods=["GET"], summary="Liveness", operation_id="healthz",
        responses={"200": {"content": {"application/json": {"schema": {
            "type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}}}}},
            **problem_responses()},
    )

    _explorer_routes(app)
    if sparql is not None:
        sparql.add_routes(app)
    else:
        async def no_sparql() -> Response:
            raise NotFound("no /sparql here: this gateway reads a remote store, which has its own SPARQL endpoint")

        app.add_api_route("/sparql", no_sparql, methods=["GET", "POST"], include_in_schema=False)

    app.openapi = lambda: app.openapi_schema or _cache(app, build_openapi(app, schemas))  # type: ignore[method-assign]
    return app


def app_middleware(config: HttpConfig) -> list[Middleware]:
    """The app's middleware, outermost first. The order is the order of refusals: a request
    breaking two rules gets the first one's problem (a second Host header, a foreign Host,
    a foreign Origin, then the body's size and time)."""
    hosts = host_rules(config.allowed_hosts)
    # The server's own origins are always allowed (a page it serves posts with an Origin);
    # allowed_origins add to them.
    # A wildcard host is no origin: answering any Host must not mean trusting any page.
    origins = [Rule(rule.host, rule.port, scheme) for rule in hosts if rule.host != "*" for scheme in ("http", "https")]
    origins += origin_rules(config.allowed_origins)
    # Browsers on an allowed foreign origin need CORS answers; same-origin pages do not.
    cors = [Middleware(
        CORSMiddleware, allow_origins=["*"] if "*" in config.allowed_origins else list(config.allowed_origins),
        allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type", "Accept", DEADLINE_HEADER],
        expose_headers=[CACHE_HEADER],
    )] if config.allowed_origins else []
    return [
        Middleware(AccessLog),
        Middleware(SingleHeaders),
        Middleware(AllowedHosts, rules=hosts),
        Middleware(AllowedOrigins, rules=origins),
        Middleware(BoundedBody, max_bytes=config.max_body_bytes, timeout=config.request_timeout),
        Middleware(BoundedResponse, max_bytes=config.max_response_bytes),
        *cors,
        # Anything else is a bug: `Unexpected` answers it with a 500 problem and keeps the
        # connection (Starlette's own last-resort handler re-raises, and the server then
        # drops the connection without a word).
        Middleware(Unexpected),
    ]


def _sparql_endpoint(
    gateway: Gateway, authenticate: Authenticate, limits: SandboxLimits, max_bytes: int
) -> SparqlEndpoint | None:
    """/sparql over an embedded store (a remote store has its own endpoint)."""
    local = gateway.backend.capabilities.local_store
    if local is None:
        return None
    path = str(local.path) if local.path is not None else None
    return SparqlEndpoint(store_opener(local.store, path), authenticate, limits=limits, max_bytes=max_bytes)


MCP_SESSION_IDLE = 300.0
"""Seconds an MCP session with nothing in flight is kept."""
MCP_SESSIONS_KEPT = 1000
"""MCP sessions open at once; past it a new one is refused (503) until one ends."""


def _mcp(gateway: Gateway, authenticate: Authenticate, *, sessions: bool) -> tuple[ASGIApp, list[Any]]:
    """The MCP endpoint and its session managers, which the app's lifespan runs.

    Requests are answered statelessly (every request carries what it needs; the newest
    protocol's `answer` asks the client's model between rounds, in input-required results).
    A handshake-era client can be asked only within a session: with `sessions`, its
    `initialize`, and every request naming the session it opened, go to a manager that
    keeps sessions (a few, briefly: `MCP_SESSION_IDLE`, `MCP_SESSIONS_KEPT`) and answers
    as event streams, so `answer` samples such a client as it does over stdio. Every
    request is still authorized by its own bearer token, whatever session it names."""
    server = create_mcp_server(gateway)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)

    def app(**options: Any) -> tuple[ASGIApp, Any]:
        starlette = server.streamable_http_app(streamable_http_path="/mcp", transport_security=security, **options)
        route = next(r.endpoint for r in starlette.routes if isinstance(r, Route) and r.path == "/mcp")
        return route, server.session_manager  # the manager of the app just made

    stateless, manager = app(stateless_http=True, json_response=True)
    if not sessions:
        return _AsReader(stateless, authenticate), [manager]
    kept, keeper = app(stateless_http=False, json_response=False, session_idle_timeout=MCP_SESSION_IDLE,
                       max_sessions=MCP_SESSIONS_KEPT)
    return _AsReader(stateless, authenticate, sessions=kept), [manager, keeper]


class _AsReader:
    """Runs an ASGI app with the request's reader and deadline in `gateway.surfaces.mcp`'s
    context variables, once the JSON-RPC envelope is checked; a handshake and the requests
    of the session it opens go to `sessions` (see `_mcp`)."""

    def __init__(self, app: ASGIApp, authenticate: Authenticate, *, sessions: ASGIApp | None = None) -> None:
        self.app = app
        self.sessions = sessions
        self.authenticate = authenticate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            reader = self.authenticate(request)
            deadline = asked_deadline(request)
        except (GatewayError, Problem) as error:
            await problem_response(error, credentials_sent="authorization" in request.headers)(scope, receive, send)
            return
        body = await request.body()
        try:
            check_json_depth(body)
        except Problem as error:
            await problem_response(error)(scope, receive, send)
            return
        messages = _messages(body)
        if not _valid_ids(messages):
            # The SDK takes a message with an unusable id for a notification and answers 202
            # with nothing: the caller would wait for an answer that never comes.
            refusal = {"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": "Invalid Request: an id must be a string or an integer"}}
            await Response(json.dumps(refusal), status_code=400, media_type="application/json")(scope, receive, send)
            return
        app = self.app
        if self.sessions is not None and ("mcp-session-id" in request.headers or request.method == "DELETE"
                                          or any(m.get("method") == "initialize" for m in messages)):
            app = self.sessions
        # The SDK does not cancel a call whose HTTP request the client left (a stateless
        # request's answer has nowhere to go): the calls it carries are told here instead.
        gone = threading.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(request, gone))
        tokens = current_reader.set(reader), current_deadline.set(deadline), current_abandoned.set(gone)
        try:
            await app(scope, replay_body(body, receive), send)
        finally:
            watcher.cancel()
            current_reader.reset(tokens[0])
            current_deadline.reset(tokens[1])
            current_abandoned.reset(tokens[2])


def _messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a body (none when it is not JSON: the SDK says so in JSON-RPC)."""
    try:
        data = json.loads(body)
    except ValueError:
        return []
    return [m for m in (data if isinstance(data, list) else [data]) if isinstance(m, dict)]


def _valid_ids(messages: list[dict[str, Any]]) -> bool:
    """Whether every JSON-RPC message has no id or a string or integer one (the protocol's
    ids: the SDK takes 1.5 or 1e308 for a notification's and never answers)."""
    for message in messages:
        if "id" in message:
            value = message["id"]
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                return False
    return True


def _cache(app: FastAPI, document: dict[str, Any]) -> dict[str, Any]:
    app.openapi_schema = document
    return document


def _tool_endpoint(gateway: Gateway, tool: Tool, authenticate: Authenticate) -> Callable[[Request], Awaitable[Response]]:
    cached = getattr(gateway.backend, "cache", None) is not None

    def cache_header(count: result_cache.CacheCount) -> dict[str, str] | None:
        """The call's answers from the endpoint's result cache, where it has one."""
        return {CACHE_HEADER: count.header()} if cached else None

    async def run_tool(request: Request) -> Response:
        reader = authenticate(request)
        deadline = asked_deadline(request)
        arguments = parse_arguments(tool.input, await request.body())
        fmt = _picture_format(request, tool.name)
        abandoned = threading.Event()
        # Tools are synchronous and read the store: run them off the event loop, and stop
        # one whose client went away (a walk stops at its next hop, as at its deadline).
        watcher = asyncio.ensure_future(_watch_disconnect(request, abandoned))
        try:
            with result_cache.counting() as count:  # the worker thread runs in a copy of this context
                if fmt is not None:
                    drawn = await run_in_threadpool(gateway.picture, tool.name, arguments, fmt, reader=reader,
                                                    deadline=deadline, abandoned=abandoned)
                    return Response(drawn, media_type=MEDIA_TYPES[fmt], headers=cache_header(count))
                result = await run_in_threadpool(gateway.call, tool.name, arguments, reader=reader, deadline=deadline,
                                                 abandoned=abandoned)
                return Response(result.model_dump_json(exclude_none=True), media_type="application/json",
                                headers=cache_header(count))
        finally:
            watcher.cancel()

    run_tool.__name__ = f"run_{tool.name}"
    return run_tool


async def _watch_disconnect(request: Request, abandoned: threading.Event) -> None:
    """Set `abandoned` when the client disconnects (the body is read: what comes next is that)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    abandoned.set()


EXPLORER = Path(__file__).with_name("explorer")
EXPLORER_POLICY = ("default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; "
                   "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The explorer page talks to this server only (no CDN), and runs no script but its own."""
EXPLORER_VENDOR = ("cytoscape.min.js", "layout-base.js", "cose-base.js", "cytoscape-fcose.js", "README.md",
                   "LICENSE-cytoscape.txt", "LICENSE-layout-base.txt", "LICENSE-cose-base.txt", "LICENSE-cytoscape-fcose.txt")
"""The vendored files the explorer page loads (scripts) or points to (their licences), each a fixed route."""


def _explorer_routes(app: FastAPI) -> None:
    """`/`: the explorer page (static: it reads the graph through /v1/tools with the
    reader's own token)."""
    files = {"/": ("index.html", "text/html; charset=utf-8"), "/explorer.js": ("explorer.js", "text/javascript"),
             "/explorer.css": ("explorer.css", "text/css; charset=utf-8")}
    # The drawing library, vendored (vendor/README.md: versions, licences): served from here, never a CDN.
    for name in EXPLORER_VENDOR:
        files[f"/vendor/{name}"] = (f"vendor/{name}", "text/javascript" if name.endswith(".js") else "text/plain; charset=utf-8")
    for path, (name, media) in files.items():
        app.add_api_route(path, _static((EXPLORER / name).read_bytes(), media), methods=["GET"], include_in_schema=False)


def _static(body: bytes, media: str) -> Callable[[], Awaitable[Response]]:
    """A handler for one fixed file (no parameter: nothing of the request reaches the answer)."""

    async def page() -> Response:
        return Response(body, media_type=media, headers={"Content-Security-Policy": EXPLORER_POLICY,
                                                          "X-Content-Type-Options": "nosniff"})

    return page


def _picture_format(request: Request, tool: str) -> str | None:
    """A picture format asked with `?format=` (json: none), or by an Accept header naming
    one of the pictures' media types. Accept is a preference, not a demand: a tool whose
    answers are not drawn answers JSON to it (`?format=` on one is a 422)."""
    asked = request.query_params.get("format")
    if asked is not None:
        if asked != "json" and asked not in FORMATS:
            raise InvalidInput(f"format must be one of json, {', '.join(FORMATS)}; not {asked[:40]!r}", field="format")
        return None if asked == "json" else asked
    if tool not in PICTURED:
        return None
    accepted = {part.split(";")[0].strip() for part in request.headers.get("accept", "").split(",")}
    return next((fmt for fmt, media in MEDIA_TYPES.items() if media in accepted), None)
