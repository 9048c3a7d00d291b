"""The language model `answer` calls: one `complete(system, prompt) -> str` per call.

Two kinds. Over MCP, the client's own model through sampling, when the client offers it
(the MCP surface sets it for the call with `using`). Otherwise an OpenAI-compatible
chat-completions endpoint: `Settings.llm_url` / `BFSQL_LLM_URL` (a base URL such as
http://127.0.0.1:8080/v1), `llm_model` / `BFSQL_LLM_MODEL`, and an optional bearer token
`llm_api_key` / `BFSQL_LLM_API_KEY`. The model is the deployment's choice, never a
caller's: no URL comes from a request. The other tools never need one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

import httpx2

from gateway import deadline as deadlines
from gateway.errors import EndpointTimeout, ModelError, NoModel
from gateway.settings import Settings


class Model(Protocol):
    def complete(self, system: str, prompt: str) -> str:
        """The model's reply to one prompt (asked to be a JSON object)."""
        ...


_current: ContextVar[Model | None] = ContextVar("model", default=None)

HOW = ("set BFSQL_LLM_URL (an OpenAI-compatible base URL such as http://127.0.0.1:8080/v1) and "
       "BFSQL_LLM_MODEL, or `bfsql serve --llm-url URL --llm-model NAME`, or call answer over MCP "
       "from a client that offers sampling")


@contextmanager
def using(model: Model | None) -> Iterator[None]:
    """`model` answers this call's `answer` (the MCP surface: the client's own model);
    None: the configured one."""
    token = _current.set(model)
    try:
        yield
    finally:
        _current.reset(token)


def model_for(settings: Settings) -> Model:
    """The model of this call: the one set with `using`, else the configured endpoint."""
    chosen = _current.get()
    if chosen is not None:
        return chosen
    url = settings.llm_url or os.environ.get("BFSQL_LLM_URL")
    if not url:
        raise NoModel(f"answer needs a language model and none is configured: {HOW}")
    name = settings.llm_model or os.environ.get("BFSQL_LLM_MODEL") or "default"
    key = settings.llm_api_key or os.environ.get("BFSQL_LLM_API_KEY")
    return ChatCompletions(url, name, api_key=key, timeout=settings.llm_timeout)


class ChatCompletions:
    """An OpenAI-compatible `POST {base}/chat/completions`, in JSON mode where the server
    offers it (one that refuses `response_format` is asked again without it, once)."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 120.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.json_mode = True

    def complete(self, system: str, prompt: str) -> str:
        body: dict[str, Any] = {
            "model": self.model, "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        }
        response = self._post({**body, "response_format": {"type": "json_object"}} if self.json_mode else body)
        if response.status_code == 400 and self.json_mode:
            self.json_mode = False  # a server without JSON mode: the prompt still asks for JSON
            response = self._post(body)
        if response.status_code != 200:
            raise ModelError(f"the language model answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, LookupError, TypeError) as error:
            raise ModelError(f"the language model's reply is not a chat completion: {error!r}") from None
        if not isinstance(content, str):
            raise ModelError("the language model's reply has no text")
        return content

    def _post(self, body: dict[str, Any]) -> httpx2.Response:
        # Never past the call's deadline: a slow model must not hold the call's thread.
        left = deadlines.remaining()
        if left is not None and left <= 0:
            raise EndpointTimeout("the call's deadline ended before the model answered", field="max_batches")
        try:
            return httpx2.post(self.url, json=body, headers=self.headers,
                               timeout=self.timeout if left is None else min(self.timeout, left))
        except httpx2.TimeoutException:
            raise EndpointTimeout("the language model did not answer within the call's deadline",
                                  field="max_batches") from None
        except httpx2.HTTPError as error:
            raise ModelError(f"the language model could not be reached: {error}") from None


class NeedInput(Exception):
    """The prompts a call still needs its client's model to answer, keyed by `ask_key`:
    raised by `Replayed` so a surface that asks between rounds (MCP's input-required
    results) can ask them all at once and run the call again with the replies."""

    def __init__(self, asks: dict[str, tuple[str, str]]) -> None:
        super().__init__(f"{len(asks)} model replies needed")
        self.asks = asks


def ask_key(system: str, prompt: str) -> str:
    return hashlib.sha256(f"{system}\0{prompt}".encode()).hexdigest()[:24]


def ask_all(model: Model, asks: list[tuple[str, str]]) -> list[str]:
    """Replies to several prompts that do not depend on each other (all at once where the
    model can take them so)."""
    many = getattr(model, "complete_many", None)
    return list(many(asks)) if many is not None else [model.complete(system, prompt) for system, prompt in asks]


class Replayed:
    """A model whose replies were given in earlier rounds; the prompts not answered yet
    are asked for together (`NeedInput`). The call it serves is deterministic, so running
    it again asks the same prompts."""

    def __init__(self, known: dict[str, str]) -> None:
        self.known = known

    def complete(self, system: str, prompt: str) -> str:
        return self.complete_many([(system, prompt)])[0]

    def complete_many(self, asks: list[tuple[str, str]]) -> list[str]:
        missing = {ask_key(s, p): (s, p) for s, p in asks if ask_key(s, p) not in self.known}
        if missing:
            raise NeedInput(missing)
        return [self.known[ask_key(s, p)] for s, p in asks]


def parse_object(reply: str) -> dict[str, Any]:
    """A model's reply as the JSON object asked for; a fenced block (```json ... ```) is
    unwrapped. Anything else is a `ModelError`: a reply that cannot be read fails the call."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        value = json.loads(text)
    except ValueError:
        raise ModelError(f"the language model did not answer JSON: {reply[:200]!r}") from None
    if not isinstance(value, dict):
        raise ModelError(f"the language model answered JSON that is not an object: {reply[:200]!r}")
    return value
