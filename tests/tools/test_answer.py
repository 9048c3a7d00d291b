"""answer: map-reduce over communities with every citation checked, against a scripted
OpenAI-compatible server (tests/llm_server.py) and an MCP client that answers sampling.

The script cites the facts that mention the question's subject, plus labels that were
never given; those, a finding citing only them, and a finding scoring 0 must never reach
the answer, and every statement behind a cited finding must be one the model was given.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from gateway import Gateway
from gateway.errors import EndpointTimeout, ModelError, NoModel, TooLarge
from gateway.importers.bundle import open_bundle
from gateway.settings import Settings
from gateway.surfaces.mcp import create_mcp_server
from gateway.tools.answer import BATCH_BYTES
from tests.conftest import DEMO, shared_data
from tests.llm_server import INVENTED, ChatServer, Script

QUESTION = "What treats Cushing's disease?"
IDS = re.compile(r"\(([^()\s]+:[^()\s]*)\)")


@pytest.fixture(scope="module")
def medlit_store() -> Gateway:
    return open_bundle(shared_data("medlit"))


def served(gateway: Gateway, script: Script) -> tuple[Gateway, ChatServer]:
    server = ChatServer(script)
    settings = Settings(llm_url=server.url, llm_model="scripted")
    return Gateway(gateway.backend, settings=settings, profile=gateway.profile), server


@pytest.fixture
def chat(medlit_store: Gateway) -> Iterator[tuple[Gateway, Script]]:
    script = Script(wanted=("treats", "Cushing"))
    gateway, server = served(medlit_store, script)
    yield gateway, script
    server.stop()


def test_every_citation_was_given_and_no_invented_one_survives(chat: tuple[Gateway, Script]) -> None:
    gateway, script = chat
    result = gateway.answer(QUESTION)
    assert result.status == "answered" and result.answer == "These treat it."
    assert result.model_calls == len(script.maps) + len(script.reduces) == len(script.maps) + 1
    # The reduce call saw only findings that cited given facts and scored above 0.
    (given,) = script.reduces
    assert sorted(given.values()) == sorted(given.values()) and all(t.endswith("facts say so") for t in given.values())
    assert result.cites == sorted(given)  # the invented (77) is dropped
    batches = [facts for facts in script.maps if any("treats" in line and "Cushing" in line for line in facts.values())]
    assert len(result.findings) == len(batches) >= 1
    for finding, facts in zip(sorted(result.findings, key=lambda f: f.number), _by_score(script), strict=True):
        cited = [label for label, line in facts.items() if "treats" in line.lower() and "cushing" in line.lower()][:20]
        assert INVENTED not in cited and len(finding.statements) == len(cited)
        lines = [facts[label] for label in cited]
        for statement in finding.statements:
            edge = gateway.describe_entity(statement).statement
            assert edge is not None, statement  # exists
            assert any(IDS.findall(line) == [edge.subject, edge.object] for line in lines), statement  # and was given
        assert finding.communities


def _by_score(script: Script) -> list[dict[int, str]]:
    """The map batches that produced a finding, in the order the reduce call numbered them
    (all score 90: batch order)."""
    return [facts for facts in script.maps
            if any("treats" in line.lower() and "cushing" in line.lower() for line in facts.values())]


def test_counts_and_bounds_are_reported(chat: tuple[Gateway, Script], medlit_store: Gateway) -> None:
    gateway, script = chat
    result = gateway.answer(QUESTION, max_batches=3)
    coarsest = medlit_store.communities().levels[0].community_count
    assert result.communities_read + result.communities_skipped == coarsest
    assert len(script.maps) == 3 and result.clipped  # the bound cut the facts, and says so
    assert result.facts == sum(len(facts) for facts in script.maps)
    for facts in script.maps:
        assert len("\n".join(facts.values()).encode()) <= BATCH_BYTES
    # The communities holding an entity the question names come first: the first batch has Cushing's.
    assert any("Cushing" in line for line in script.maps[0].values())
    widened = gateway.answer(QUESTION, max_batches=50)
    assert widened.warnings and widened.model_calls <= 9


def test_a_small_graph_is_read_whole() -> None:
    script = Script(wanted=("Irene",))
    gateway, server = served(Gateway.open(DEMO), script)
    try:
        result = gateway.answer("Who is Irene Adler?")
    finally:
        server.stop()
    assert (result.clipped, result.communities_skipped, len(script.maps)) == (False, 0, 1)
    assert result.status == "answered" and result.findings[0].statements


@pytest.mark.parametrize(("mode", "error"), [
    ("fail_second_map", "HTTP 500"), ("not_json", "did not answer JSON"), ("uncited", "without citing"),
])
def test_a_failed_or_uncited_model_call_fails_the_whole_answer(medlit_store: Gateway, mode: str, error: str) -> None:
    gateway, server = served(medlit_store, Script(wanted=("treats",), mode=mode))
    try:
        with pytest.raises(ModelError, match=error):
            gateway.answer(QUESTION)
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["empty", "nothing"])
def test_nothing_to_say_is_ungrounded(medlit_store: Gateway, mode: str) -> None:
    script = Script(wanted=("treats",), mode=mode)
    gateway, server = served(medlit_store, script)
    try:
        result = gateway.answer(QUESTION, max_batches=2)
    finally:
        server.stop()
    assert (result.status, result.answer, result.findings) == ("ungrounded", "", [])
    assert result.model_calls == len(script.maps) + (1 if mode == "empty" else 0)  # no findings: no reduce call


def test_a_server_without_json_mode_is_asked_again_plainly(medlit_store: Gateway) -> None:
    script = Script(wanted=("treats", "Cushing"), mode="no_json_mode")
    gateway, server = served(medlit_store, script)
    try:
        result = gateway.answer(QUESTION, max_batches=1)
    finally:
        server.stop()
    assert result.status in ("answered", "ungrounded")
    assert "response_format" in server.requests[0] and all("response_format" not in r for r in server.requests[1:])


def test_without_a_model_the_error_says_how_to_configure_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BFSQL_LLM_URL")
    with pytest.raises(NoModel, match="BFSQL_LLM_URL"):
        Gateway.open(DEMO).answer("Who is Irene Adler?")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_over_mcp_the_clients_own_model_answers(monkeypatch: pytest.MonkeyPatch, medlit_store: Gateway, mode: str) -> None:
    """No model configured: the MCP client's sampling is the model, and its citations are
    checked as any model's. The newest protocol asks between rounds (input-required
    results, the map calls together); a handshake-era one ("legacy") asks the client
    directly, one request per call."""
    monkeypatch.delenv("BFSQL_LLM_URL")
    script = Script(wanted=("treats", "Cushing"))
    asked: list[CreateMessageRequestParams] = []

    async def sample(_: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        asked.append(params)
        prompt = params.messages[0].content
        assert isinstance(prompt, TextContent)
        return CreateMessageResult(role="assistant", model="scripted",
                                   content=TextContent(type="text", text=script.reply(params.system_prompt or "", prompt.text)))

    async def run() -> dict[str, Any]:
        async with Client(create_mcp_server(medlit_store), sampling_callback=sample, mode=mode) as client:
            result = await client.call_tool("answer", {"question": QUESTION})
            assert not result.is_error, result.content
            return result.structured_content or {}

    answer = asyncio.run(run())
    assert answer["status"] == "answered" and answer["model_calls"] == len(asked) == len(script.maps) + 1
    given = [line for facts in script.maps for line in facts.values()]
    for finding in answer["findings"]:
        for statement in finding["statements"]:
            edge = medlit_store.describe_entity(statement).statement
            assert edge is not None and any(IDS.findall(line) == [edge.subject, edge.object] for line in given)

    async def without_sampling() -> Any:
        async with Client(create_mcp_server(medlit_store)) as client:
            return await client.call_tool("answer", {"question": QUESTION})

    refused = asyncio.run(without_sampling())
    assert refused.is_error and "no_model" in refused.content[0].text  # type: ignore[union-attr]


def test_a_forged_request_state_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replies carried between rounds are sealed: a client cannot hand in replies the
    rounds did not ask for."""
    monkeypatch.delenv("BFSQL_LLM_URL")

    async def sample(_: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(role="assistant", model="scripted", content=TextContent(type="text", text="{}"))

    async def run(state: str) -> Any:
        async with Client(create_mcp_server(Gateway.open(DEMO)), sampling_callback=sample) as client:
            return await client.session.call_tool("answer", {"question": "Who is Irene Adler?"},
                                                  request_state=state, allow_input_required=True)

    for state in ("eyJ4IjogInkifQ==.forged", "eyJ4IjogInkifQ==." + "é" * 64, "no seal", "\udcff.\udcff"):
        refused = asyncio.run(run(state))
        assert refused.is_error and "request_state was not made by this server" in refused.content[0].text, state  # type: ignore[union-attr]


def test_a_graph_over_the_bound_is_refused_with_what_to_do(medlit_store: Gateway) -> None:
    server = ChatServer(Script())
    try:
        small = Gateway(medlit_store.backend, settings=Settings(llm_url=server.url, communities_max_edges=100),
                        profile=medlit_store.profile)
        with pytest.raises(TooLarge, match="answer partitions the whole graph"):
            small.answer(QUESTION)
        assert server.requests == []  # nothing was asked of the model
    finally:
        server.stop()


def test_a_slow_model_ends_at_the_calls_deadline(medlit_store: Gateway) -> None:
    gateway, server = served(medlit_store, Script(mode="slow"))
    try:
        # The name index is made before the clock starts, and the deadline leaves the
        # partition time on a loaded machine: the model, not the walk, is what it cuts.
        gateway.call("search_entities", {"query": QUESTION})
        started = time.monotonic()
        with pytest.raises(EndpointTimeout, match="did not answer within the call's deadline"):
            gateway.call("answer", {"question": QUESTION, "max_batches": 1}, deadline=3)
        assert time.monotonic() - started < 4.5  # the model's 5 s were not waited out
    finally:
        server.stop()


def test_a_client_that_never_samples_does_not_hold_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Handshake-era sampling waits for the client's reply no longer than the call's deadline."""
    monkeypatch.delenv("BFSQL_LLM_URL")

    async def silent(_: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        await anyio.sleep(60)
        raise AssertionError("never reached")

    async def run() -> Any:
        gateway = Gateway.open(DEMO, settings=Settings(deadline=1.5))
        async with Client(create_mcp_server(gateway), sampling_callback=silent, mode="legacy") as client:
            with anyio.fail_after(10):
                return await client.call_tool("answer", {"question": "Who is Irene Adler?"})

    started = time.monotonic()
    refused = asyncio.run(run())
    assert refused.is_error and "endpoint_timeout" in refused.content[0].text  # type: ignore[union-attr]
    assert time.monotonic() - started < 8
