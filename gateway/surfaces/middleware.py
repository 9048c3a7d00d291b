"""The HTTP app's middleware, one concern each: a header sent twice (`SingleHeaders`), the
Host and Origin allowlists (`AllowedHosts`, `AllowedOrigins`), the request body's size and
time (`BoundedBody`), the answer's size (`BoundedResponse`), one log line a request
(`AccessLog`), and a bug's answer (`Unexpected`). `gateway.surfaces.http.create_app` stacks
them in one place, in the order a request meets their refusals."""

from __future__ import annotations

import asyncio
import re
import time
from abc import ABC, abstractmethod
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
        rules.append(Rule(_bracketed(parts.hostname), parts.port or _default_port(parts.scheme), parts.scheme or None))
    return rules


def _default_port(scheme: str) -> int | None:
    return {"http": 80, "https": 443}.get(scheme)


def _bracketed(hostname: str | None) -> str:
    """A URL's host as a Host header names it: an IPv6 address in brackets."""
    return f"[{hostname}]" if hostname and ":" in hostname else (hostname or "")


class _HttpMiddleware(ABC):
    """A pure ASGI middleware over HTTP requests; anything else (the lifespan) passes by."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None: ...


class _HeadRule(_HttpMiddleware):
    """A rule on the request's line and headers: the request passes, or gets `refusal`'s problem."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await problem_response(refusal)(scope, receive, send)

    @abstractmethod
    def refusal(self, scope: Scope) -> Problem | None: ...


def _header(scope: Scope, name: str) -> str | None:
    """The request's last `name` header (one a request may carry once is checked first: `SingleHeaders`)."""
    found = None
    for key, value in scope["headers"]:
        if key.decode("latin-1").lower() == name:
            found = value.decode("latin-1")
    return found


class SingleHeaders(_HeadRule):
    """A request with two of a `SINGLE_HEADERS` header is refused (400): which one would
    count is no guess (HTTP/1.1 says so of Host)."""

    def refusal(self, scope: Scope) -> Problem | None:
        names = [k.decode("latin-1").lower() for k, _ in scope["headers"]]
        twice = sorted({name for name in SINGLE_HEADERS if names.count(name) > 1})
        if not twice:
            return None
        return Problem(400, "malformed_request", f"the request has more than one {twice[0]} header", twice[0])


class AllowedHosts(_HeadRule):
    """A Host header no rule matches is refused (421): a DNS-rebinding page names its own host."""

    def __init__(self, app: ASGIApp, *, rules: list[Rule]) -> None:
        super().__init__(app)
        self.rules = rules

    def refusal(self, scope: Scope) -> Problem | None:
        value = _header(scope, "host") or ""
        host, port = _split_host(value)
        if any(rule.matches(host, port) for rule in self.rules):
            return None
        return Problem(421, "foreign_host", f"this server does not answer for the host {value!r}")


class AllowedOrigins(_HeadRule):
    """A request to `GUARDED_PATHS` whose Origin no rule matches is refused (403); one
    without an Origin (not from a browser's page) passes."""

    def __init__(self, app: ASGIApp, *, rules: list[Rule]) -> None:
        super().__init__(app)
        self.rules = rules

    def refusal(self, scope: Scope) -> Problem | None:
        origin = _header(scope, "origin")
        path: str = scope.get("path", "")
        if origin is None or not path.startswith(GUARDED_PATHS):
            return None
        try:  # an Origin that is no URL (`http://[::1`) is from no allowed origin
            parts = urlsplit(origin.lower())
            port = parts.port or _default_port(parts.scheme)
        except ValueError:
            parts, port = None, None
        if parts is not None and any(rule.matches(_bracketed(parts.hostname), port, parts.scheme) for rule in self.rules):
            return None
        return Problem(403, "foreign_origin", f"requests from the origin {origin!r} are not allowed")


class BoundedBody(_HttpMiddleware):
    """The request body, read whole before the app sees it: at most `max_bytes` (413: by
    Content-Length before a byte is read, else as the bytes arrive) within `timeout`
    seconds (408, and the connection closed), so no route reads an unbounded body or waits
    on a trickle."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, timeout: float = 30.0) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            length = _header(scope, "content-length") or ""
            if length.isdigit() and int(length) > self.max_bytes:
                raise self._too_large()
            body = await self._read(receive)
        except Problem as refusal:
            await problem_response(refusal)(scope, receive, send)
            return
        if body is not None:  # None: the client left
            await self.app(scope, replay_body(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        more = True
        deadline = time.monotonic() + self.timeout
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise Problem(408, "request_timeout", f"the request body did not arrive within {self.timeout:g} s",
                              headers={"Connection": "close"}) from None
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                raise self._too_large()
        return b"".join(chunks)

    def _too_large(self) -> Problem:
        return Problem(413, "body_too_large", f"the request body is over {self.max_bytes} bytes")


class BoundedResponse(_HttpMiddleware):
    """An answer over `max_bytes` becomes a 413 problem before any byte of it is sent,
    never a truncated answer. (A streamed answer without a length passes: only /mcp's
    event streams are streamed.)"""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, self._bounded(send))

    def _bounded(self, send: Send) -> Send:
        dropping = False

        async def bounded_send(message: Message) -> None:
            nonlocal dropping
            if message["type"] == "http.response.start":
                length = dict(message.get("headers", [])).get(b"content-length", b"")
                if length.isdigit() and int(length) > self.max_bytes:
                    dropping = True
                    response = problem_response(Problem(
                        413, "response_too_large",
                        f"the answer is {int(length)} bytes, over this server's bound of {self.max_bytes}; "
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


class AccessLog(_HttpMiddleware):
    """One log line per request: method, path, status, duration."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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


class Unexpected(_HttpMiddleware):
    """A bug's exception as a 500 problem, the connection kept; logged with its traceback."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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
