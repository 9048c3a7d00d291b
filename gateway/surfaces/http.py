"""The HTTP JSON API: a thin FastAPI adapter over `Gateway.call`.

    POST /v1/tools/{name}   run one tool: the body is its input model, the answer its output model
    GET  /v1/tools          every tool in OpenAI function-calling format and in MCP tool format
    GET  /openapi.json      OpenAPI 3.1, generated from the same pydantic models as the tools
    GET  /healthz           liveness
    GET|POST /sparql        read-only SPARQL 1.1 Protocol (`gateway.surfaces.sparql_endpoint`)

Every error is an RFC 9457 problem document (`application/problem+json`): `type`,
`title`, `status`, `detail`, `code`, and `field` when one argument is to blame.
`STATUS` and `to_problem` below are the one place where exceptions become HTTP statuses.

A JSON body must have the types its schema states (`"max_hops": 2`, not `"2"`): the
HTTP contract is the published schema, while the Python API and the CLI coerce.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager
from dataclasses import dataclass
from dataclasses import field as _field_default
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.api import Gateway
from gateway.auth import Reader, Readers
from gateway.backends.embedded import EmbeddedBackend
from gateway.errors import (
    BackendError,
    EndpointTimeout,
    Forbidden,
    GatewayError,
    InvalidInput,
    NotFound,
    RateLimited,
    TooLarge,
    Truncated,
    Unauthorized,
    Unavailable,
    UpstreamError,
)
from gateway.surfaces.sparql_sandbox import SandboxLimits
from gateway.tools import TOOLS, Tool

if TYPE_CHECKING:
    from gateway.surfaces.sparql_endpoint import SparqlEndpoint

logger = logging.getLogger("gateway.http")

PROBLEM_TYPE = "https://w3id.org/bfsql/problems/"
"""Each problem's `type` is this plus its `code`."""
PROBLEM_JSON = "application/problem+json"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
GUARDED_PATHS = ("/v1/", "/sparql", "/mcp")
"""Paths a cross-origin request may not reach: everything that reads the graph."""

# -- errors: the one mapping ---------------------------------------------------------
STATUS: dict[type[GatewayError], int] = {
    InvalidInput: 422,  # it names a field, like a schema validation error
    NotFound: 404,
    Unauthorized: 401,
    Forbidden: 403,
    TooLarge: 413,
    RateLimited: 429,
    EndpointTimeout: 504,
    Unavailable: 503,
    UpstreamError: 502,
    Truncated: 502,
    BackendError: 503,
    GatewayError: 500,
}
_HTTP_CODES = {400: "malformed_request", 404: "not_found", 405: "method_not_allowed", 406: "not_acceptable",
               413: "too_large", 415: "unsupported_media_type"}


@dataclass(eq=False)
class Problem(Exception):
    """An HTTP-level refusal with no counterpart in the core's exception tree."""

    status: int
    code: str
    detail: str
    field: str | None = None
    headers: dict[str, str] = _field_default(default_factory=dict)
    extra: dict[str, Any] = _field_default(default_factory=dict)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": PROBLEM_TYPE + self.code,
            "title": self.code.replace("_", " ").capitalize(),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.field is not None:
            body["field"] = self.field
        return body | self.extra


def to_problem(error: BaseException, *, credentials_sent: bool = False) -> Problem:
    """Any exception as a problem. Never leaks internals: an unexpected error is a bare 500."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, GatewayError):
        status = next(STATUS[cls] for cls in type(error).__mro__ if cls in STATUS)
        headers: dict[str, str] = {}
        if isinstance(error, Unauthorized):
            headers["WWW-Authenticate"] = 'Bearer realm="bfsql"' + (', error="invalid_token"' if credentials_sent else "")
        if isinstance(error, (RateLimited, Unavailable)):
            default = 60 if isinstance(error, RateLimited) else 5
            headers["Retry-After"] = str(math.ceil(error.retry_after if error.retry_after is not None else default))
        return Problem(status, error.code, error.message, error.field, headers)
    if isinstance(error, RequestValidationError):
        return validation_problem(error.errors(), strip_location=True)
    if isinstance(error, StarletteHTTPException):
        code = _HTTP_CODES.get(error.status_code, HTTPStatus(error.status_code).phrase.lower().replace(" ", "_"))
        return Problem(error.status_code, code, str(error.detail), headers=dict(error.headers or {}))
    return Problem(500, "internal_error", "the gateway failed unexpectedly; the error is in its log")


def problem_response(error: BaseException, *, credentials_sent: bool = False) -> Response:
    problem = to_problem(error, credentials_sent=credentials_sent)
    if problem.status >= 500 and not isinstance(error, (Problem, GatewayError)):
        logger.error("unexpected error", exc_info=error)
    return Response(
        json.dumps(problem.body(), ensure_ascii=False), status_code=problem.status,
        headers=problem.headers, media_type=PROBLEM_JSON,
    )


def validation_problem(errors: Sequence[Mapping[str, Any]], *, strip_location: bool = False) -> Problem:
    """Pydantic errors as one problem: 400 when the body is not a JSON object, else 422 naming the field."""
    first = errors[0]
    if first["type"] == "json_invalid":
        return Problem(400, "malformed_body", f"the body is not valid JSON: {first.get('ctx', {}).get('error', first['msg'])}")
    located = [_field(error["loc"], strip_location) for error in errors]
    if located[0] is None and first["type"] in ("model_type", "model_attributes_type", "dict_type"):
        return Problem(400, "malformed_body", "the body must be a JSON object of the tool's arguments")
    listed = [{"field": name, "message": error["msg"]} for name, error in zip(located, errors)][:20]
    return Problem(422, "invalid_input", f"{located[0] or 'body'}: {first['msg']}", located[0], extra={"errors": listed})


def _field(location: Iterable[int | str], strip: bool) -> str | None:
    parts = [str(part) for part in location]
    if strip and parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or None


# -- requests --------------------------------------------------------------------------
def parse_arguments(model: type[BaseModel], body: bytes) -> BaseModel:
    """The body as `model`, strictly typed as JSON; an empty body is `{}` (tools without required fields)."""
    try:
        return model.model_validate_json(body if body.strip() else b"{}", strict=True)
    except ValidationError as error:
        raise validation_problem(error.errors()) from None


Authenticate = Callable[[Request], Reader | None]
DEADLINE_HEADER = "BFSQL-Deadline"
"""Seconds the caller gives a tool call (less than the default, or more when trusted)."""


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


# -- schemas: generated once from the tools' models ----------------------------------
@dataclass(frozen=True)
class Schemas:
    components: dict[str, Any]
    """Every input (validation mode) and output (serialization mode, None fields omitted) definition."""
    inputs: dict[str, dict[str, Any]]
    outputs: dict[str, dict[str, Any]]
    """Per tool: a `$ref` (or union of them) into `components`."""

    def standalone(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A schema with every `$ref` inlined, for clients that resolve none (the models have no cycles)."""
        return _inline(schema, self.components, ())


def tool_schemas(tools: Mapping[str, Tool] = TOOLS, *, ref_prefix: str = "#/components/schemas/") -> Schemas:
    adapters = [((name, "in"), "validation", TypeAdapter(tool.input)) for name, tool in tools.items()]
    adapters += [((name, "out"), "serialization", TypeAdapter(tool.output)) for name, tool in tools.items()]
    roots, top = TypeAdapter.json_schemas(adapters, ref_template=ref_prefix + "{model}")  # type: ignore[arg-type]
    components: dict[str, Any] = top.get("$defs", {})
    inputs = {name: roots[((name, "in"), "validation")] for name in tools}
    outputs = {name: roots[((name, "out"), "serialization")] for name in tools}
    # Responses are dumped with exclude_none: a None field is absent, never null. Say so in
    # the output definitions (only those no input uses), or a conforming answer would
    # fail its own schema.
    from_inputs = _reachable(inputs.values(), components)
    for name in _reachable(outputs.values(), components) - from_inputs:
        components[name] = _omit_nulls(components[name])
    return Schemas(components, inputs, outputs)


def _refs(schema: Any) -> Iterable[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("$ref"), str):
            yield schema["$ref"].rsplit("/", 1)[-1]
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _refs(value)


def _reachable(roots: Iterable[Any], components: Mapping[str, Any]) -> set[str]:
    seen: set[str] = set()
    stack = [name for root in roots for name in _refs(root)]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(_refs(components[name]))
    return seen


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


def _omit_nulls(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    nullable = set()
    new_properties = {}
    for name, prop in properties.items():
        options = prop.get("anyOf")
        if isinstance(options, list) and any(_is_null(option) for option in options):
            nullable.add(name)
            kept = [option for option in options if not _is_null(option)]
            rest = {k: v for k, v in prop.items() if k != "anyOf" and not (k == "default" and v is None)}
            prop = {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}
        new_properties[name] = prop
    required = [name for name in schema.get("required", []) if name not in nullable]
    result = {**schema, "properties": new_properties}
    if required:
        result["required"] = required
    else:
        result.pop("required", None)
    return result


def _inline(schema: Any, components: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(schema, list):
        return [_inline(item, components, stack) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if isinstance(schema.get("$ref"), str):
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in stack:
            raise ValueError(f"the schema of {name} is recursive; it cannot be inlined")
        target = _inline(components[name], components, (*stack, name))
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return {key: _inline(value, components, stack) for key, value in schema.items()}


def tool_list(schemas: Schemas, tools: Mapping[str, Tool] = TOOLS) -> dict[str, list[dict[str, Any]]]:
    """The tools in OpenAI function-calling format and in MCP `tools/list` format."""
    openai, mcp = [], []
    for name, tool in tools.items():
        parameters = schemas.standalone(schemas.inputs[name])
        output = schemas.standalone(schemas.outputs[name])
        output.setdefault("type", "object")  # MCP wants an object at the root; a union of objects is one
        openai.append({"type": "function", "function": {"name": name, "description": tool.description, "parameters": parameters}})
        mcp.append({
            "name": name, "description": tool.description, "inputSchema": parameters,
            "outputSchema": output, "annotations": {"readOnlyHint": True},
        })
    return {"openai": openai, "mcp": mcp}


PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem document.",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "The problem's short name; `type` ends with it."},
        "field": {"type": "string", "description": "The argument to blame, as a dotted path (seeds.0)."},
        "errors": {
            "type": "array", "description": "Every validation error, when there were several.",
            "items": {"type": "object", "properties": {"field": {"type": ["string", "null"]}, "message": {"type": "string"}}},
        },
    },
}
PROBLEM_STATUSES = {
    400: "Malformed request (not JSON, not an object)", 401: "No valid bearer token",
    403: "Forbidden (a foreign Origin, or not for this reader)", 404: "Not found",
    405: "Method not allowed", 406: "Not acceptable", 408: "The request (headers or body) did not arrive in time",
    413: "Request or response too large",
    415: "Unsupported media type", 421: "Foreign Host header", 422: "An argument is invalid (see field)",
    429: "Rate limited (see Retry-After)", 500: "Unexpected failure", 502: "The store answered with an error",
    503: "The store is unavailable or busy", 504: "The store did not answer in time",
}


def problem_responses(*statuses: int) -> dict[str, Any]:
    return {
        str(status): {"description": PROBLEM_STATUSES[status],
                      "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
        for status in sorted(set(statuses) | {400, 403, 408, 413, 421, 500})
    }


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
    # FastAPI's own validation error schemas are never served: every error is a Problem.
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return document


# -- middleware --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Rule:
    """An allowed host (or origin): a name, an optional port, an optional scheme."""

    host: str
    port: int | None
    scheme: str | None = None

    def matches(self, host: str, port: int | None, scheme: str | None = None) -> bool:
        return (self.host == "*" or self.host == host) and self.port in (None, port) and self.scheme in (None, scheme)


def _split_host(value: str) -> tuple[str, int | None]:
    """`name[:port]` or `[v6][:port]`, lower-cased."""
    value = value.strip().lower()
    host, port = value, None
    if value.startswith("["):
        end = value.find("]")
        host, rest = value[: end + 1], value[end + 1 :]
        port = int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    elif value.count(":") == 1:
        name, _, digits = value.partition(":")
        if digits.isdigit():
            host, port = name, int(digits)
    return host, port


def host_rules(allowed: Iterable[str]) -> list[_Rule]:
    return [_Rule(*_split_host(entry)) for entry in allowed]


def origin_rules(allowed: Iterable[str]) -> list[_Rule]:
    rules = []
    for entry in allowed:
        if entry.strip() == "*":
            rules.append(_Rule("*", None))
            continue
        parts = urlsplit(entry.strip().lower())
        host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else (parts.hostname or "")
        rules.append(_Rule(host, parts.port or _default_port(parts.scheme), parts.scheme or None))
    return rules


def _default_port(scheme: str) -> int | None:
    return {"http": 80, "https": 443}.get(scheme)


class Guard:
    """Host and Origin allowlists, a request body bound and a response size bound.

    The body is read here, up to the bound and within `body_timeout` seconds (a slow body
    gets 408 and the connection is closed), before the app sees it, so no route reads an
    unbounded body or waits on a trickle; a response over its bound becomes a 413 problem
    before any byte of it is sent, never a truncated answer. (Streamed responses without a
    length pass: only the future /mcp event streams are streamed.)
    """

    def __init__(
        self, app: ASGIApp, *, hosts: list[_Rule], origins: list[_Rule], max_body_bytes: int, max_response_bytes: int,
        body_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = origins
        self.max_body_bytes = max_body_bytes
        self.max_response_bytes = max_response_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await problem_response(refusal)(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        deadline = time.monotonic() + self.body_timeout
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                slow = Problem(408, "request_timeout", f"the request body did not arrive within {self.body_timeout:g} s",
                               headers={"Connection": "close"})
                await problem_response(slow)(scope, receive, send)
                return
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_body_bytes:
                await problem_response(self._body_too_large())(scope, receive, send)
                return
        await self.app(scope, _replay(b"".join(chunks), receive), self._bounded(send))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Problem | None:
        host, port = _split_host(headers.get("host", ""))
        if not any(rule.matches(host, port) for rule in self.hosts):
            return Problem(421, "foreign_host", f"this server does not answer for the host {headers.get('host', '')!r}")
        origin = headers.get("origin")
        path: str = scope.get("path", "")
        if origin is not None and path.startswith(GUARDED_PATHS):
            parts = urlsplit(origin.lower())
            o_host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else (parts.hostname or "")
            try:
                o_port = parts.port or _default_port(parts.scheme)
            except ValueError:
                o_port = None
            if not any(rule.matches(o_host, o_port, parts.scheme) for rule in self.origins):
                return Problem(403, "foreign_origin", f"requests from the origin {origin!r} are not allowed")
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            return self._body_too_large()
        return None

    def _body_too_large(self) -> Problem:
        return Problem(413, "body_too_large", f"the request body is over {self.max_body_bytes} bytes")

    def _bounded(self, send: Send) -> Send:
        dropping = False

        async def bounded_send(message: Message) -> None:
            nonlocal dropping
            if message["type"] == "http.response.start":
                length = dict(message.get("headers", [])).get(b"content-length", b"")
                if length.isdigit() and int(length) > self.max_response_bytes:
                    dropping = True
                    response = problem_response(Problem(
                        413, "response_too_large",
                        f"the answer is {int(length)} bytes, over this server's bound of {self.max_response_bytes}; "
                        "ask for less (topology_only, layout compact, a smaller max_nodes or limit)",
                    ))
                    await send({"type": "http.response.start", "status": response.status_code,
                                "headers": response.raw_headers})
                    await send({"type": "http.response.body", "body": response.body})
                    return
            elif dropping:
                return
            await send(message)

        return bounded_send


def _replay(body: bytes, receive: Receive) -> Receive:
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect, as the server would

    return replay


class AccessLog:
    """One log line per request: method, path, status, duration."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # what the client gets if the app raises before answering

        async def logged_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, logged_send)
        finally:
            logger.info("%s %s %d %.1fms", scope["method"], scope["path"], status, (time.perf_counter() - start) * 1000)


# -- the app ------------------------------------------------------------------------------
def create_app(
    gateway: Gateway,
    *,
    readers: Readers | None = None,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    max_body_bytes: int = 1_000_000,
    max_response_bytes: int = 20_000_000,
    sparql_timeout: float = 30.0,
    sparql_max_running: int = 2,
    sparql_memory_bytes: int = 1 << 30,
    request_timeout: float = 30.0,
) -> FastAPI:
    """The HTTP API over `gateway`.

    `allowed_hosts` are the Host header values answered: `name` (any port) or
    `name:port`; default the loopback names on any port; `*` answers every host.
    The server's own origins (http and https on the allowed hosts) may always call it;
    `allowed_origins` adds others, such as `https://app.example` (`*`: any), and turns
    on CORS for them. A request without an Origin header is always let through.
    The SPARQL endpoint is added when the backend is an embedded store; its sandbox
    processes are started here, while the process is still single-threaded.
    """
    schemas = tool_schemas()
    tools_listing = tool_list(schemas)
    authenticate = authenticator(readers)
    sparql = _sparql_endpoint(gateway, authenticate, SandboxLimits(
        workers=sparql_max_running, deadline=sparql_timeout, memory_bytes=sparql_memory_bytes,
    ), max_response_bytes)
    mcp_endpoint, mcp_session_manager = _mcp(gateway, authenticate)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            async with mcp_session_manager.run():
                yield
        finally:
            if sparql is not None:
                sparql.close()

    app = FastAPI(
        title="BFS-QL gateway",
        version="1",
        description="Bounded graph-traversal tools for LLM agents over an RDF 1.2 graph.",
        redoc_url=None,
        lifespan=lifespan,
    )
    # MCP over streamable HTTP; the Guard below applies the same Host/Origin/body rules.
    # Stateless: no session to resume (GET would open an event stream that never ends) or
    # to end (DELETE), so only POST is answered; the others get 405.
    app.router.routes.append(Route("/mcp", endpoint=mcp_endpoint, methods=["POST"]))

    async def problem_handler(request: Request, error: Exception) -> Response:
        return problem_response(error, credentials_sent="authorization" in request.headers)

    for error_type in (Problem, GatewayError, RequestValidationError, StarletteHTTPException):
        app.add_exception_handler(error_type, problem_handler)
    # Anything else is a bug: `Unexpected` answers it with a 500 problem and keeps the
    # connection (Starlette's own last-resort handler re-raises, and the server then drops
    # the connection without a word).
    app.add_middleware(Unexpected)

    for tool in TOOLS.values():
        app.add_api_route(
            f"/v1/tools/{tool.name}", _tool_endpoint(gateway, tool, authenticate), methods=["POST"],
            response_model=tool.output, operation_id=tool.name, summary=tool.name, description=tool.description,
            tags=["tools"],
        )

    async def unknown_tool(name: str) -> Response:
        raise NotFound(f"there is no tool {name!r}; the tools are {', '.join(TOOLS)}", field="name")

    app.add_api_route("/v1/tools/{name}", unknown_tool, methods=["POST"], include_in_schema=False)

    async def list_tools() -> dict[str, Any]:
        return tools_listing

    app.add_api_route(
        "/v1/tools", list_tools, methods=["GET"], tags=["tools"], summary="The tools, for OpenAI and MCP clients",
        responses={"200": {"content": {"application/json": {"schema": TOOL_LIST_SCHEMA}}}, **problem_responses()},
    )

    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.add_api_route(
        "/healthz", healthz, methods=["GET"], summary="Liveness",
        responses={"200": {"content": {"application/json": {"schema": {
            "type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}}}}},
            **problem_responses()},
    )

    if sparql is not None:
        sparql.add_routes(app)

    app.openapi = lambda: app.openapi_schema or _cache(app, build_openapi(app, schemas))  # type: ignore[method-assign]

    hosts = host_rules(allowed_hosts if allowed_hosts is not None else LOOPBACK_HOSTS)
    # The server's own origins are always allowed (a page it serves posts with an Origin);
    # allowed_origins add to them.
    # A wildcard host is no origin: answering any Host must not mean trusting any page.
    origins = [_Rule(rule.host, rule.port, scheme) for rule in hosts if rule.host != "*" for scheme in ("http", "https")]
    origins += origin_rules(allowed_origins or [])
    if allowed_origins:
        # Browsers on an allowed foreign origin need CORS answers; same-origin pages do not.
        app.add_middleware(
            CORSMiddleware, allow_origins=["*"] if "*" in allowed_origins else list(allowed_origins),
            allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type", "Accept", DEADLINE_HEADER],
        )
    app.add_middleware(
        Guard, hosts=hosts, origins=origins, max_body_bytes=max_body_bytes, max_response_bytes=max_response_bytes,
        body_timeout=request_timeout,
    )
    app.add_middleware(AccessLog)
    return app


def _sparql_endpoint(
    gateway: Gateway, authenticate: Authenticate, limits: SandboxLimits, max_bytes: int
) -> SparqlEndpoint | None:
    """/sparql over an embedded store (a remote store has its own endpoint)."""
    from gateway.surfaces.sparql_endpoint import SparqlEndpoint, store_opener

    backend = gateway.backend
    if not isinstance(backend, EmbeddedBackend):
        return None
    path = str(backend.store_path) if backend.store_path is not None else None
    return SparqlEndpoint(store_opener(backend.store, path), authenticate, limits=limits, max_bytes=max_bytes)


def _mcp(gateway: Gateway, authenticate: Authenticate) -> tuple[ASGIApp, Any]:
    """The MCP endpoint (stateless streamable HTTP: every request carries its own reader)
    and its session manager, which the app's lifespan runs."""
    from mcp.server.transport_security import TransportSecuritySettings

    from gateway.surfaces.mcp import create_mcp_server

    server = create_mcp_server(gateway)
    starlette = server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    endpoint = next(route.endpoint for route in starlette.routes if getattr(route, "path", None) == "/mcp")
    return _AsReader(endpoint, authenticate), server.session_manager


class _AsReader:
    """Runs an ASGI app with the request's reader and deadline in `gateway.surfaces.mcp`'s
    context variables, once the JSON-RPC envelope is checked."""

    def __init__(self, app: ASGIApp, authenticate: Authenticate) -> None:
        self.app = app
        self.authenticate = authenticate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from gateway.surfaces.mcp import current_deadline, current_reader

        request = Request(scope, receive)
        try:
            reader = self.authenticate(request)
            deadline = asked_deadline(request)
        except (GatewayError, Problem) as error:
            await problem_response(error, credentials_sent="authorization" in request.headers)(scope, receive, send)
            return
        body = await request.body()
        if not _valid_ids(body):
            # The SDK takes a message with an unusable id for a notification and answers 202
            # with nothing: the caller would wait for an answer that never comes.
            error = {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32600, "message": "Invalid Request: an id must be a string or a number"}}
            await Response(json.dumps(error), status_code=400, media_type="application/json")(scope, receive, send)
            return
        tokens = current_reader.set(reader), current_deadline.set(deadline)
        try:
            await self.app(scope, _replay(body, receive), send)
        finally:
            current_reader.reset(tokens[0])
            current_deadline.reset(tokens[1])


def _valid_ids(body: bytes) -> bool:
    """Whether every JSON-RPC message in `body` has no id or a string or number one (JSON
    that does not parse is left to the SDK, which says so in JSON-RPC)."""
    try:
        data = json.loads(body)
    except ValueError:
        return True
    for message in data if isinstance(data, list) else [data]:
        if isinstance(message, dict) and "id" in message:
            value = message["id"]
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                return False
    return True


class Unexpected:
    """A bug's exception as a 500 problem, the connection kept; logged with its traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except Exception as error:
            if started:
                raise  # half an answer is out: only dropping the connection tells the client
            await problem_response(error)(scope, receive, send)


def _cache(app: FastAPI, document: dict[str, Any]) -> dict[str, Any]:
    app.openapi_schema = document
    return document


def _tool_endpoint(gateway: Gateway, tool: Tool, authenticate: Authenticate) -> Callable[[Request], Awaitable[Response]]:
    async def run_tool(request: Request) -> Response:
        reader = authenticate(request)
        deadline = asked_deadline(request)
        arguments = parse_arguments(tool.input, await request.body())
        # Tools are synchronous and read the store: run them off the event loop.
        result = await run_in_threadpool(gateway.call, tool.name, arguments, reader=reader, deadline=deadline)
        return Response(result.model_dump_json(exclude_none=True), media_type="application/json")

    run_tool.__name__ = f"run_{tool.name}"
    return run_tool
