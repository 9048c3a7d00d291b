"""A headless Chromium page (Debian's `chromium`), driven with DevTools protocol commands:
what the explorer tests share. It records every request the page makes, every script error
and every dialog a script opened (none should: a dialog is what an injected `alert` does)."""

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


class Browser:
    """One headless Chromium page, driven with DevTools protocol commands."""

    def __init__(self, binary: str, size: tuple[int, int] = (1400, 900)) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="bfsql-chromium-"))
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", f"--window-size={size[0]},{size[1]}", "about:blank"],
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
        # Entered as a context manager (closed in close()): the connection's own warning asks for that.
        self.socket = connect(page["webSocketDebuggerUrl"], max_size=None).__enter__()
        self.next_id = 0
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        for domain in ("Network", "Page", "Runtime"):
            self.send(f"{domain}.enable")
        # Whatever the page's Content-Security-Policy refused, in window.violations.
        self.send("Page.addScriptToEvaluateOnNewDocument", source=(
            "window.violations = []; document.addEventListener('securitypolicyviolation', "
            "(e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));"))

    def _note(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params["exceptionDetails"])[:2000])
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(json.dumps(params.get("args"))[:2000])
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append(params.get("message", ""))
            self.socket.send(json.dumps({"id": 0, "method": "Page.handleJavaScriptDialog", "params": {"accept": True}}))

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            self._note(message)
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
            time.sleep(0.05)
        raise AssertionError(f"never true: {expression}; script errors: {self.errors}")

    def open(self, url: str, forget: bool = False) -> None:
        """Load `url` afresh (from a blank page: a new hash alone would not reload) and wait for
        the page's script to be running. `forget`: the requests recorded so far are dropped once
        the page before is gone (its last requests, sent after a test began, included)."""
        self.send("Page.navigate", url="about:blank")
        self.wait("location.href === 'about:blank'")
        if forget:
            self.requests.clear()
        self.send("Page.navigate", url=url)
        self.wait("document.readyState === 'complete' && !!window.bfsqlExplorer")

    def drawn(self, after: int) -> int:
        """Wait for a drawing after the `after`-th; its number."""
        return int(self.wait(f"Number(document.body.dataset.rendered || 0) > {after} && document.body.dataset.rendered"))

    def rendered(self) -> int:
        return int(self.evaluate("Number(document.body.dataset.rendered || 0)"))

    def screenshot(self, path: Path, width: int | None = None) -> bytes:
        """The page as a PNG, scaled down to `width` pixels across if given (as docs/ holds them)."""
        clip: dict[str, Any] = {}
        if width is not None:
            across, down = self.evaluate("[window.innerWidth, window.innerHeight]")
            clip = {"clip": {"x": 0, "y": 0, "width": across, "height": down, "scale": width / across}}
        shot = base64.b64decode(self.send("Page.captureScreenshot", format="png", **clip)["data"])
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(shot)
        return shot

    def violations(self) -> list[str]:
        """What the page's Content-Security-Policy refused since it was loaded."""
        return list(self.evaluate("window.violations || []"))

    def outside(self) -> list[str]:
        """Requests that left 127.0.0.1."""
        return [url for url in self.requests
                if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname != "127.0.0.1"]

    def close(self) -> None:
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)


def chromium() -> str:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("Chromium is not installed (Debian's chromium; .ci/run installs it)")
    return binary


@pytest.fixture
def browser() -> Iterator[Browser]:
    opened = Browser(chromium())
    yield opened
    opened.close()


def not_blank(png: bytes) -> bool:
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
