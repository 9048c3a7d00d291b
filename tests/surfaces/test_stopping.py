"""A call whose caller goes away stops: an MCP client cancelling its request (the real client
sends `notifications/cancelled`), an HTTP client disconnecting from a real `bfsql serve`,
from a tool's route or from /mcp."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from typing import Any

import anyio
import pytest
from mcp import Client
from pydantic import BaseModel

from gateway import Gateway, Settings
from gateway.surfaces.mcp import create_mcp_server
from tests.surfaces.conftest import Served, start_server
from tests.test_deadline import EX, chain
from tests.tools.test_tabulate_bounds import THROUGH_HUBS, hub_quads

HOPS = 6
PAUSE = 0.3


class Recorded(Gateway):
    """A gateway that says when a call has ended, and how."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ended = threading.Event()
        self.outcome: object = None

    def call(self, *args: Any, **kwargs: Any) -> BaseModel:
        try:
            self.outcome = super().call(*args, **kwargs)
            return self.outcome  # type: ignore[return-value]
        except Exception as error:
            self.outcome = error
            raise
        finally:
            self.ended.set()


def test_an_mcp_request_cancelled_by_the_client_stops_its_call() -> None:
    """A walk of six slow hops, cancelled by the client during the second: the walk ends at
    its next check, not after its sixth hop (the deadline, a minute, is far)."""
    gateway = Recorded(Gateway.open(chain()).backend, settings=Settings(deadline=60))
    hops: list[str] = []

    def slow(text: str, rows: int) -> None:
        hops.append(text)
        time.sleep(PAUSE)

    gateway.backend.query_log = slow  # type: ignore[attr-defined]

    async def session() -> None:
        async with Client(create_mcp_server(gateway)) as client:
            with anyio.move_on_after(PAUSE * 1.5):
                await client.call_tool("bfs_query", {"seeds": [f"{EX}n0"], "max_hops": HOPS, "direction": "out",
                                                     "topology_only": True})
            await anyio.to_thread.run_sync(gateway.ended.wait, 30)

    asyncio.run(session())
    assert gateway.ended.is_set()
    walked = gateway.outcome
    stopped = isinstance(walked, Exception) or getattr(getattr(walked, "truncation", None), "reason", None) == "deadline"
    assert stopped, walked
    assert len(hops) < HOPS  # a whole walk asks once a hop, and for the types


@pytest.fixture(scope="module")
def served_hubs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("served-hubs")
    path = directory / "hubs.nt"
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"{quad.triple}.\n" for quad in hub_quads(20_000))
    served = start_server(directory, str(path))
    yield served
    served.stop()


def _logged(served: Served, path: str) -> int:
    return sum(f"POST {path} " in line for line in served.log_text().splitlines())


def _disconnect_after(served: Served, path: str, body: bytes, seconds: float, headers: dict[str, str]) -> None:
    """Send a request, wait `seconds`, then close the connection without reading the answer."""
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{served.port}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    with socket.create_connection(("127.0.0.1", served.port)) as connection:
        connection.sendall("\r\n".join(lines).encode() + body)
        time.sleep(seconds)


def test_an_http_client_gone_stops_its_table(served_hubs: Served) -> None:
    """The table through hubs runs for minutes unchecked; its client leaves after a second,
    asking for two minutes: the server logs the request (which it does once the call has
    ended) within seconds."""
    path = "/v1/tools/tabulate"
    before = _logged(served_hubs, path)
    _disconnect_after(served_hubs, path, json.dumps(THROUGH_HUBS).encode(), 1.0, {"BFSQL-Deadline": "120"})
    left = time.monotonic()
    while _logged(served_hubs, path) == before and time.monotonic() - left < 10:
        time.sleep(0.1)
    assert _logged(served_hubs, path) > before, served_hubs.log_text()[-2000:]


def test_an_mcp_client_gone_over_http_stops_its_call(served_hubs: Served) -> None:
    """The SDK cancels no handler when the HTTP request carrying a call is left: the HTTP app
    watches the connection itself and tells the call."""
    path = "/mcp"
    before = _logged(served_hubs, path)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "tabulate", "arguments": THROUGH_HUBS}}
    _disconnect_after(served_hubs, path, json.dumps(call).encode(), 1.0,
                      {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18",
                       "BFSQL-Deadline": "120"})
    left = time.monotonic()
    while _logged(served_hubs, path) == before and time.monotonic() - left < 10:
        time.sleep(0.1)
    assert _logged(served_hubs, path) > before, served_hubs.log_text()[-2000:]


def test_the_server_answers_the_next_caller(served_hubs: Served) -> None:
    with served_hubs.client() as client:
        answer = client.post("/v1/tools/tabulate", json={"type": THROUGH_HUBS["type"], "limit": 2})
    assert answer.status_code == 200 and len(answer.json()["rows"]) == 2
