"""The explorer page of `bfsql serve`, driven in a real headless Chromium (Debian's
`chromium`) through the DevTools protocol: search "Irene", open her neighbourhood, check
the picture holds exactly her 1-hop nodes, toggle a truth status and check the drawn
edges change as the API says, save a screenshot (.artifacts/explorer.png), and see that
no request left 127.0.0.1. Skipped where Chromium is not installed."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from websockets.sync.client import connect

from gateway import Gateway
from tests.conftest import DEMO, ROOT
from tests.surfaces.conftest import start_server

ARTIFACTS = ROOT / ".artifacts"


class Browser:
    """One headless Chromium page, driven with DevTools protocol commands."""

    def __init__(self, binary: str) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="bfsql-chromium-"))
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--window-size=1400,900", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.is_file() or not port_file.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError("Chromium did not open its DevTools port")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        page = next(t for t in httpx2.get(f"http://127.0.0.1:{port}/json/list").json() if t["type"] == "page")
        self.socket = connect(page["webSocketDebuggerUrl"], max_size=None)
        self.next_id = 0
        self.requests: list[str] = []

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("method") == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, seconds: float = 30) -> Any:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"never true: {expression}")

    def close(self) -> None:
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def browser() -> Iterator[Browser]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("Chromium is not installed (Debian's chromium; .ci/run installs it)")
    opened = Browser(binary)
    yield opened
    opened.close()


def test_the_explorer_draws_what_the_api_answers(tmp_path: Path, browser: Browser) -> None:
    served = start_server(tmp_path)
    gateway = Gateway.open(DEMO)
    try:
        browser.send("Network.enable")
        browser.send("Page.enable")
        browser.send("Page.navigate", url=f"{served.url}/")
        browser.wait("document.readyState === 'complete' && !!document.getElementById('search')")
        browser.evaluate("document.getElementById('search').value = 'Irene'; "
                         "document.getElementById('search-form').requestSubmit(); true")
        browser.wait("!!document.querySelector('#results button[data-id=\"wiki:Irene_Adler\"]')")
        browser.evaluate("document.querySelector('#results button[data-id=\"wiki:Irene_Adler\"]').click(); true")
        browser.wait("document.body.dataset.edges !== undefined")
        drawn = set(browser.evaluate("[...document.querySelectorAll('#picture .node')].map(n => n.getAttribute('data-id'))"))
        walk = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1)
        assert drawn == {n["id"] if isinstance(n, dict) else n.id for n in walk.nodes}  # type: ignore[union-attr]
        assert int(browser.evaluate("document.body.dataset.edges")) == walk.edge_count
        call = json.loads(browser.evaluate("document.getElementById('call').textContent"))
        assert call == {"tool": "bfs_query", "arguments": {"seeds": ["wiki:Irene_Adler"], "max_hops": 1,
                                                            "direction": "both", "truth_status": ["asserted_true"]}}
        assert gateway.bfs_query(**call["arguments"]).model_dump() == walk.model_dump()  # the copied call is the view

        before = int(browser.evaluate("document.body.dataset.edges"))
        browser.evaluate("const box = document.getElementById('status-disputed'); box.click(); true")
        wider = gateway.bfs_query(seeds=["wiki:Irene_Adler"], max_hops=1, truth_status=["asserted_true", "disputed"])
        assert wider.edge_count != before
        browser.wait(f"document.body.dataset.edges === '{wider.edge_count}'")

        shot = base64.b64decode(browser.send("Page.captureScreenshot", format="png")["data"])
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "explorer.png").write_bytes(shot)
        assert _not_blank(shot)
        outside = [url for url in browser.requests
                   if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname != "127.0.0.1"]
        assert not outside, outside
        assert any(url.endswith("/v1/tools/bfs_query?format=svg") for url in browser.requests)
    finally:
        served.stop()


def _not_blank(png: bytes) -> bool:
    """Whether a PNG holds a picture: its pixel bytes take many values (a blank page is one)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    data, at = b"", 8
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        kind = png[at + 4:at + 8]
        if kind == b"IDAT":
            data += png[at + 8:at + 8 + length]
        at += 12 + length
    pixels = zlib.decompress(data)
    return len(set(pixels[::7])) > 20


