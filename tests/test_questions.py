"""The question set on published vocabularies (support/questions.py), its CI slice: SHACL,
DASH and schema.org as pyshacl ships them, in three named graphs. Each answer the tools
lead to must equal the one SPARQL gives on the same file (the whole set is a benchmark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.questions import Outcome, ask, pyshacl_file, slice_questions


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    path = pyshacl_file(Path(tmp_path_factory.mktemp("vocabularies")))
    return {o.question.text: o for o in ask(slice_questions(), path)}


@pytest.mark.parametrize("question", [q.text for q in slice_questions()])
def test_the_tools_answer_as_sparql_does(outcomes: dict[str, Outcome], question: str) -> None:
    outcome = outcomes[question]
    assert outcome.expected, "the oracle found nothing: the question is not about this data"
    assert outcome.answered == outcome.expected
    assert outcome.read < 60_000  # characters the agent read, describe_schema included
