"""The book's two questions as an agent's conversation over MCP, counted in characters:
the policy, and a version's MCP server to run it against (stdio or HTTP).

A fixed policy plays the agent (no model in the loop, so the run is repeatable):

1. load the tool list (`tools/list`);
2. `describe_schema` once, to learn the predicates;
3. Q1 "What treats Cushing's disease, and what is the evidence?": `search_entities` with
   the question's words, take the first hit, walk TREATS edges into it (`predicates`,
   `direction: in`, the compact layout with nodes as labelled stubs and edges in full;
   where a version has no traversal predicate filter, a 1-hop walk with TREATS edges
   detailed by `edge_filter`), then read the evidence passages the edges cite
   (`describe_entities` of their `bfs:evidencePassage` IDs, or `bfs:evidence` where the
   data has no passages);
4. Q2 "How is desmopressin connected to Cushing's disease?": `search_entities` for each
   name, first hit, `shortest_path` between them.

What the agent reads is counted: the tool list as the client receives it (compact JSON),
and for each call the arguments it writes plus the text content of the answer (what a
host hands to the model; the structured copy of the same JSON is not counted twice). The
conversation is judged too: whether the first search hit is Cushing's disease, how many
treatments and evidence passages it found, whether the path was found.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CUSHING = "DBPedia:Cushing's_disease"


@dataclass
class Transcript:
    """What the agent read, call by call, and what it concluded."""

    tool_list: int = 0
    calls: list[tuple[str, int]] = field(default_factory=list)
    """(tool, characters written and read)."""
    first_hit: str | None = None
    treatments: list[str] = field(default_factory=list)
    passages: int = 0
    path: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.tool_list + sum(n for _, n in self.calls)

    @property
    def solved(self) -> bool:
        return self.first_hit == CUSHING and len(self.treatments) >= 10 and self.passages > 0 and bool(self.path)


class Agent:
    """The fixed policy, over one MCP client session."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.transcript = Transcript()

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        result = await self.client.call_tool(tool, arguments)
        text = "".join(getattr(part, "text", "") for part in result.content)
        self.transcript.calls.append((tool, len(json.dumps(arguments, ensure_ascii=False)) + len(text)))
        if result.is_error:
            raise RuntimeError(f"{tool}: {text}")
        return json.loads(text)

    async def run(self) -> Transcript:
        tools = (await self.client.list_tools()).tools
        listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
        self.transcript.tool_list = len(json.dumps(listed, separators=(",", ":"), ensure_ascii=False))
        walk_filter = any("predicates" in (tool.input_schema.get("properties") or {}) for tool in tools
                          if tool.name == "bfs_query")
        await self.call("describe_schema", {})
        # Q1: what treats Cushing's disease, and what is the evidence?
        disease = (await self.call("search_entities", {"query": "Cushing's disease"}))["results"][0]["id"]
        self.transcript.first_hit = disease
        if walk_filter:
            walk = await self.call("bfs_query", {"seeds": [disease], "predicates": ["TREATS"], "direction": "in",
                                                 "max_hops": 1, "layout": "compact", "node_filter": {"entity_types": []}})
        else:
            walk = await self.call("bfs_query", {"seeds": [disease], "direction": "in", "max_hops": 1,
                                                 "edge_filter": {"predicates": ["TREATS"]}})
        edges = _edges(walk)
        treats = [e for e in edges if e["predicate"] == "TREATS"]
        self.transcript.treatments = sorted({e["subject"] for e in treats})
        # The passages the edges cite, where the data has them (each distinct text once);
        # else the evidence rows.
        cited = [(e.get("provenance") or {}) for e in treats]
        key = "bfs:evidencePassage" if any("bfs:evidencePassage" in c for c in cited) else "bfs:evidence"
        passages = sorted({p for c in cited for p in c.get(key, [])})
        if passages:
            read = await self.call("describe_entities", {"ids": passages[:100]})
            self.transcript.passages = len(read["entities"])
        # Q2: how is desmopressin connected to Cushing's disease?
        drug = (await self.call("search_entities", {"query": "desmopressin"}))["results"][0]["id"]
        path = await self.call("shortest_path", {"source": drug, "target": disease})
        self.transcript.path = path.get("nodes", []) if path.get("found") else []
        return self.transcript


def _edges(walk: dict[str, Any]) -> list[dict[str, Any]]:
    """Full edges of a walk in either layout."""
    if isinstance(walk.get("edges"), list):
        return [e for e in walk["edges"] if "id" in e or "provenance" in e]
    return list(walk.get("edge_details") or [])


# -- running a version's MCP server --------------------------------------------------------
def import_bundle(code: Path, bundle: Path, out: Path) -> Path:
    """The bundle as TriG, written by the version under test (its own importer)."""
    done = subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "import-bundle", str(bundle), "--out", str(out)],
                          cwd=code, env={**os.environ, "PYTHONPATH": str(code)}, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return out


async def over_stdio(code: Path, data: Path) -> Transcript:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "gateway.surfaces.cli", "mcp", str(data)],
                                   cwd=str(code), env={**os.environ, "PYTHONPATH": str(code)})
    async with Client(params) as client:
        return await Agent(client).run()


async def over_http(code: Path, data: Path) -> Transcript:
    from mcp import Client

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "gateway.surfaces.cli", "serve", str(data), "--port", str(port)],
                              cwd=code, env={**os.environ, "PYTHONPATH": str(code)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await _wait_for(f"http://127.0.0.1:{port}/healthz")
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(Client(f"http://127.0.0.1:{port}/mcp"))
            return await Agent(client).run()
    finally:
        server.terminate()
        server.wait(timeout=30)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _wait_for(url: str, seconds: float = 120) -> None:
    import httpx2

    for _ in range(int(seconds * 10)):
        try:
            if httpx2.get(url, timeout=1).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")
