"""A scripted OpenAI-compatible chat-completions server for `answer`'s tests: a real HTTP
server on 127.0.0.1 that reads the prompts the gateway sends and answers by a script.

The default script plays a careful model with one bad habit: each map reply cites the
facts that mention every word of `wanted` it was given, plus a label that was never in
the batch, and adds a finding that cites only invented labels and one scoring itself 0
(both must be discarded). The reduce reply cites every finding. `mode` makes it fail in
the ways `answer` must refuse.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FACT = re.compile(r"^\[(\d+)\] (.*)$", re.M)
FINDING = re.compile(r"^\((\d+)\) (.*)$", re.M)
INVENTED = 987_654


@dataclass
class Script:
    wanted: tuple[str, ...] = ("TREATS",)
    mode: str = "careful"
    """careful | fail_second_map | not_json | uncited | empty | nothing | no_json_mode | slow"""
    maps: list[dict[int, str]] = field(default_factory=list)
    """Each map call's facts as the gateway labelled them."""
    reduces: list[dict[int, str]] = field(default_factory=list)
    """Each reduce call's findings."""

    def reply(self, system: str, prompt: str) -> str:
        if self.mode == "slow":  # a model slower than any call's deadline
            time.sleep(5)
        if "Facts:" in prompt:
            facts = {int(n): line for n, line in FACT.findall(prompt)}
            self.maps.append(facts)
            if self.mode == "fail_second_map" and len(self.maps) == 2:
                raise RuntimeError("scripted failure")
            if self.mode == "not_json":
                return "Here are my findings: none."
            hits = [n for n, line in facts.items() if all(w.lower() in line.lower() for w in self.wanted)]
            if self.mode == "nothing" or not hits:
                return json.dumps({"findings": []})
            return json.dumps({"findings": [
                {"text": f"{len(hits)} facts say so", "cites": [*hits[:20], INVENTED], "score": 90},
                {"text": "an invented fact", "cites": [INVENTED, INVENTED + 1], "score": 95},
                {"text": "a finding of no use", "cites": hits[:1], "score": 0},
            ]})
        findings = {int(n): text for n, text in FINDING.findall(prompt)}
        self.reduces.append(findings)
        if self.mode == "empty":
            return json.dumps({"answer": "", "cites": []})
        if self.mode == "uncited":
            return json.dumps({"answer": "Something treats it.", "cites": []})
        return "```json\n" + json.dumps({"answer": "These treat it.", "cites": [*findings, 77]}) + "\n```"


class ChatServer:
    """`POST /v1/chat/completions` answered by `script`; `requests` keeps every body."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                if server.script.mode == "no_json_mode" and "response_format" in body:
                    return self._send(400, {"error": {"message": "response_format is not supported"}})
                messages = {m["role"]: m["content"] for m in body["messages"]}
                try:
                    content = server.script.reply(messages["system"], messages["user"])
                except RuntimeError:
                    return self._send(500, {"error": {"message": "the model crashed"}})
                self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


Reply = Callable[[str, str], str]
