"""The book's two questions as an agent's MCP conversation (support/conversation.py's fixed
policy), over stdio and HTTP with the real client: solved, and in under half the
characters of the conversation before the agent-experience work (61,406, recorded in
bench/RESULTS.md, "Agent conversation")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from support.conversation import CUSHING, import_bundle, over_http, over_stdio
from tests.conftest import ROOT, shared_data

BEFORE = 61_406
"""The same policy's conversation at bench.conversation.BASELINE (misled, and still larger)."""


@pytest.fixture(scope="module")
def medlit_trig(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_bundle(ROOT, shared_data("medlit"), tmp_path_factory.mktemp("medlit") / "medlit.trig")


@pytest.mark.parametrize("transport", [over_stdio, over_http], ids=["stdio", "http"])
def test_the_books_questions_are_answered_in_under_half_the_characters(medlit_trig: Path, transport: object) -> None:
    transcript = asyncio.run(transport(ROOT, medlit_trig))  # type: ignore[operator]
    assert transcript.first_hit == CUSHING
    assert {"RxNorm:3251", "RxNorm:2286252", "RxNorm:1364105", "RxNorm:6923"} <= set(transcript.treatments)
    # Every distinct passage the TREATS evidence cites, read once (counted from the bundle's rows).
    assert len(transcript.treatments) == 12 and transcript.passages == len(_cited_passages(CUSHING, "TREATS"))
    assert transcript.path == ["RxNorm:3251", CUSHING]
    assert [tool for tool, _ in transcript.calls] == [
        "describe_schema", "search_entities", "bfs_query", "describe_entities", "search_entities", "shortest_path"]
    assert transcript.total < BEFORE / 2, transcript.calls


def _cited_passages(target: str, predicate: str) -> set[tuple[str, str]]:
    directory = shared_data("medlit")
    keys = {f"{r['subject_id']}:{predicate}:{target}" for r in map(json.loads, (directory / "relationships.jsonl").open())
            if r["predicate"] == predicate and r["object_id"] == target}
    return {(e["document_id"], e["text_span"]) for e in map(json.loads, (directory / "evidence.jsonl").open())
            if e["relationship_key"] in keys}
