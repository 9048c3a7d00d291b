"""The HTTP app's middleware: Host and Origin allowlists with request and response bounds
(`Guard`), one log line a request (`AccessLog`), and a bug's answer (`Unexpected`)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.surfaces.problems import Problem, logger, problem_response

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
SINGLE_HEADERS = ("host", "origin", "authorization")
"""Headers a request may carry once: two, one of them foreign, must not let either win."""
MAX_JSON_DEPTH = 64
"""Nesting a JSON body may have (every tool's arguments nest four deep at most)."""
GUARDED_PATHS = ("/v1/", "/sparql", "/mcp")
"""Paths a cross-origin request may not reach: everything that reads the graph."""


@dataclass(frozen=True)
class Rule:
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


def host_rules(allowed: Iterable[str]) -> list[Rule]:
    return [Rule(*_split_host(entry)) for entry in allowed]


def origin_rules(allowed: Iterable[str]) -> list[Rule]:
    rules = []
    for entry in allowed:
        if entry.strip() == "*":
            rules.append(Rule("*", None))
            continue
        parts = urlsplit(entry.strip().lower())
        host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else (parts.hostname or "")
        rules.append(Rule(host, parts.port or _default_port(parts.scheme), parts.scheme or None))
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
        self, app: ASGIApp, *, hosts: list[Rule], origins: list[Rule], max_body_bytes: int, max_response_bytes: int,
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
        names = [k.decode("latin-1").lower() for k, _ in scope["headers"]]
        twice = sorted({name for name in SINGLE_HEADERS if names.count(name) > 1})
        if twice:  # HTTP/1.1: a request with two Host headers is refused; which one would count is no guess
            await problem_response(Problem(400, "malformed_request", f"the request has more than one {twice[0]} header",
                                           twice[0]))(scope, receive, send)
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
        await self.app(scope, replay_body(b"".join(chunks), receive), self._bounded(send))

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


def replay_body(body: bytes, receive: Receive) -> Receive:
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


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def check_json_depth(body: bytes) -> None:
    """A 400 for a body nesting deeper than `MAX_JSON_DEPTH`, before any parser recurses
    into it (Python's own gives up at about a thousand levels with a RecursionError)."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    if len(brackets) > MAX_JSON_DEPTH and max(accumulate(1 if b in b"[{" else -1 for b in brackets)) > MAX_JSON_DEPTH:
        raise Problem(400, "malformed_body", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
