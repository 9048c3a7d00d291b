"""The HTTP app's middleware as `create_app` stacks it, in-process over a bare endpoint: a
request breaking several rules gets the first rule's refusal, in a fixed order (a header
sent twice, the Host, the Origin, the body's length, then its arrival), and an answer
over its bound is refused whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message

from gateway.surfaces.http import HttpConfig, app_middleware

HOST = (b"host", b"127.0.0.1:8000")
FOREIGN_HOST = (b"host", b"rebound.example")
FOREIGN_ORIGIN = (b"origin", b"http://evil.example")
OWN_ORIGIN = (b"origin", b"http://127.0.0.1:8000")
CONFIG = HttpConfig(allowed_hosts=("127.0.0.1:8000",), max_body_bytes=10, max_response_bytes=100, request_timeout=0.05)


async def _echo(request: Request) -> Response:
    body = await request.body()
    return Response(body * int(request.query_params.get("times", "1")), media_type="text/plain")


def _ask(headers: list[tuple[bytes, bytes]], body: bytes | None = b"", query: bytes = b"") -> tuple[int, Any]:
    """The status and answer of one POST to /v1/echo; a None body never arrives."""
    app = Starlette(routes=[Route("/v1/echo", _echo, methods=["POST"])], middleware=app_middleware(CONFIG))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/v1/echo", "raw_path": b"/v1/echo", "root_path": "", "query_string": query, "headers": headers,
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000)}
    sent: list[Message] = []
    arrived = False

    async def receive() -> Message:
        nonlocal arrived
        if body is None or arrived:
            await asyncio.Event().wait()  # a client that sends nothing more
        arrived = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(content) if status >= 400 else content


def _code(headers: list[tuple[bytes, bytes]], body: bytes | None = b"", query: bytes = b"") -> tuple[int, str]:
    status, problem = _ask(headers, body, query)
    return status, problem["code"]


def test_a_request_breaking_several_rules_gets_the_first_ones_refusal() -> None:
    too_long = (b"content-length", b"11")
    assert _code([HOST, HOST, FOREIGN_ORIGIN, too_long], None) == (400, "malformed_request")
    assert _code([FOREIGN_HOST, FOREIGN_ORIGIN, too_long], None) == (421, "foreign_host")
    assert _code([HOST, FOREIGN_ORIGIN, too_long], None) == (403, "foreign_origin")
    assert _code([HOST, OWN_ORIGIN, too_long], None) == (413, "body_too_large")
    assert _code([HOST, OWN_ORIGIN], None) == (408, "request_timeout")
    assert _code([HOST], b"x" * 11) == (413, "body_too_large")


def test_a_request_within_the_rules_is_answered_and_a_long_answer_refused() -> None:
    assert _ask([HOST, OWN_ORIGIN], b"0123456789") == (200, b"0123456789")
    assert _code([HOST], b"0123456789", b"times=11") == (413, "response_too_large")


def test_a_host_or_origin_that_is_no_url_is_refused_as_foreign() -> None:
    """`urlsplit` raises on these: the answer is a refusal, never a 500."""
    for origin in (b"http://[::1", b"http://127.0.0.1:99999", b"http://[v1.x]", b"::::", b"http://127.0.0.1:8000]"):
        assert _code([HOST, (b"origin", origin)]) == (403, "foreign_origin"), origin
    for host in (b"[::1", b"127.0.0.1:abc", b"127.0.0.1:99999999", b"]", b""):
        assert _code([(b"host", host)]) == (421, "foreign_host"), host
