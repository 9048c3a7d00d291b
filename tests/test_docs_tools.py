"""The docs against the code they describe, so a stale page fails here rather than misleading a
newcomer: every doc that counts or lists the tools names exactly those of the registry
(`gateway.tools.TOOLS`), and every example of the README's "A short tour" (a `bfsql query`
call with its printed answer, the figures of `describe_schema` quoted in the prose, the
error message of a wrong field) is run and compared with what it answers now. Nothing
expected is written here: the figures are read from the README itself."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest

from gateway import Gateway
from gateway.surfaces import cli
from gateway.tools import TOOLS
from tests.conftest import DEMO, ROOT, SHARED_DATA

# The docs that count or list the tools.
DOCS = ["README.md", "docs/tools.md", "docs/mcp.md", "docs/http.md", "docs/explorer.md"]
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
           "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
NUMBER = r"(\d+|" + "|".join(NUMBERS) + r")"
# "fourteen bounded, read-only tools", "(14 tools;", "for all fourteen without output schemas"
COUNTED = [re.compile(r"\b" + NUMBER + r"(?:[ ,-]+[a-z-]+){0,3}[ ,]+tools\b", re.IGNORECASE),
           re.compile(r"\ball " + NUMBER + r" (?:without|with|tools)\b", re.IGNORECASE)]
# A tool named where only a tool can stand: a command, a route, an MCP call.
NAMED = [re.compile(r"bfsql query ([a-z_]+)"), re.compile(r"/v1/tools/([a-z_]+)"),
         re.compile(r'"method": "tools/call",\s*"params": \{"name": "([a-z_]+)"')]


def text(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


def as_number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.index(word.lower())


def backticked(paragraph: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", paragraph))


@pytest.mark.parametrize("doc", DOCS)
def test_every_count_of_the_tools_is_the_registry_s(doc: str) -> None:
    counts = [(found.group(0), as_number(found.group(1))) for pattern in COUNTED for found in pattern.finditer(text(doc))]
    assert all(n == len(TOOLS) for _, n in counts), (doc, len(TOOLS), counts)


@pytest.mark.parametrize("doc", DOCS)
def test_every_tool_named_where_only_a_tool_can_stand_is_one(doc: str) -> None:
    named = {found.group(1) for pattern in NAMED for found in pattern.finditer(text(doc))}
    assert named <= set(TOOLS), (doc, sorted(named - set(TOOLS)))


def test_the_readme_s_opening_names_every_tool() -> None:
    """The paragraph that introduces the tools (the one naming `describe_schema` first)."""
    opening = next(p for p in text("README.md").split("\n\n") if "`describe_schema`" in p)
    assert backticked(opening) == set(TOOLS)


def test_the_table_of_docs_tools_names_every_tool() -> None:
    table = re.search(r"\| tool \| question \|\n\|---\|---\|\n((?:\|.*\n)+)", text("docs/tools.md"))
    assert table is not None
    rows = [row.split("|")[1] for row in table.group(1).splitlines()]
    named = [name for row in rows for name in re.findall(r"`([a-z_]+)`", row)]
    assert sorted(named) == sorted(TOOLS)


# -- the README's tour, run ----------------------------------------------------------------------


def tour() -> str:
    readme = text("README.md")
    start = readme.index("## A short tour")
    return readme[start:readme.index("\n## ", start + 1)]


def shown_calls() -> list[tuple[list[str], Any]]:
    """Each `$ bfsql query ...` of the tour's code blocks: its arguments and the answer printed
    under it (None where the block shows only the command)."""
    calls = []
    for block in re.findall(r"```sh\n\$ (bfsql query .*?)```", tour(), re.DOTALL):
        command, _, printed = block.partition("\n{")
        calls.append((shlex.split(command)[2:], json.loads("{" + printed) if printed else None))
    for inline in re.findall(r"`(bfsql query [a-z_]+ '[^`]+)`", tour()):
        calls.append((shlex.split(inline)[2:], None))
    return calls


def run(words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    """One `bfsql query` in process: the exit code, the answer as JSON and what went to stderr.
    A `--data` path is the README's, read from the checkout (where `../shared/data` is CI's folder)."""
    if "--data" in words:
        at = words.index("--data") + 1
        path = (ROOT / words[at]).resolve()
        if not path.exists():
            pytest.skip(f"{path} is absent (the shared data folder is not beside this checkout)")
        words = [*words[:at], str(path), *words[at + 1:]]
    else:
        words = [*words, "--data", str(DEMO)]
    code = cli.main(["query", *words])
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 else None, err


def agrees(shown: Any, live: Any, where: str = "") -> list[str]:
    """Where what the README shows differs from the live answer: every key shown has the live
    value (keys the answer added since are not shown, and need not be), a list has the same
    length and order, a number equal to the precision it is shown with."""
    if isinstance(shown, dict) and isinstance(live, dict):
        return [d for k, v in shown.items()
                for d in (agrees(v, live[k], f"{where}.{k}") if k in live else [f"{where}.{k}: not in the answer"])]
    if isinstance(shown, list) and isinstance(live, list):
        if len(shown) != len(live):
            return [f"{where}: {len(shown)} shown, {len(live)} answered: {live}"]
        return [d for i, (s, v) in enumerate(zip(shown, live, strict=True)) for d in agrees(s, v, f"{where}[{i}]")]
    if isinstance(shown, float) and isinstance(live, int | float) and not isinstance(live, bool):
        places = len(repr(shown).partition(".")[2])
        return [] if round(live, places) == shown else [f"{where}: shown {shown}, answered {live}"]
    return [] if shown == live and type(shown) is type(live) else [f"{where}: shown {shown!r}, answered {live!r}"]


def test_the_tour_s_calls_answer_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    calls = shown_calls()
    assert len(calls) >= 4 and sum(printed is not None for _, printed in calls) >= 3
    medlit = (SHARED_DATA / "medlit").exists()
    for words, printed in calls:
        if "--data" in words and not medlit:
            continue
        code, live, err = run(words, capsys)
        assert code == 0, (words, err)
        if printed is None:  # a call shown without its answer still answers something
            assert live.get("nodes") or live.get("rows"), (words, live)
        else:
            assert not agrees(printed, live), (words, agrees(printed, live))


def test_the_tour_s_prose_figures_are_describe_schema_s() -> None:
    """The figures the **Orient.** paragraph quotes: truth statuses with their counts, the
    statements without a position, the as_of and valid_at ranges, the traits."""
    orient = " ".join(next(p for p in tour().split("\n\n") if p.startswith("**Orient.**")).split())
    schema = Gateway.open(DEMO).describe_schema().model_dump(exclude_none=True)
    statuses = {s: int(n) for s, n in re.findall(r"`([a-z_]+)` (\d+)", orient)}
    assert statuses == schema["truth_statuses"]
    lacking = re.search(r"lack a position \((\d+)\)", orient)
    assert lacking and int(lacking.group(1)) == schema["statements"]["without_asserted_at"]
    for field in ("as_of", "valid_at"):
        shown = re.search(rf"`{field}` range \((\d+)\.\.(\d+)\)", orient)
        assert shown and tuple(map(int, shown.groups())) == (schema[f"{field}_range"]["min"], schema[f"{field}_range"]["max"])
    traits = {p["id"]: p.get("traits", []) for p in schema["predicates"]}
    quoted = re.findall(r"`(rel:\w+)` (Symmetric|Transitive|Inverse of `rel:\w+`)", orient)
    assert quoted
    for predicate, trait in quoted:
        assert trait.replace(" of `", "(").replace("`", ")") in traits[predicate], (predicate, traits[predicate])


def test_the_tour_s_walk_prose_counts_what_was_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    said = re.search(r"(\w+) statements next to her were kept out by `as_of`, (\w+) by the default `truth_status`",
                     " ".join(tour().split()))
    walk = next(printed for words, printed in shown_calls() if printed and "hidden_by_filter" in printed)
    assert said and walk
    assert (as_number(said.group(1)), as_number(said.group(2))) == (walk["hidden_by_filter"]["as_of"],
                                                                  walk["hidden_by_filter"]["truth_status"])


def test_the_tour_s_wrong_field_says_what_the_readme_says(capsys: pytest.CaptureFixture[str]) -> None:
    message = re.search(r"\(`(([a-z_]+): no such field; did you mean ([a-z_]+)\?)`\)", " ".join(tour().split()))
    assert message
    code, _, err = run(["bfs_query", json.dumps({"seeds": ["wiki:Irene_Adler"], message.group(2): ["rel:Knows"]})], capsys)
    assert code != 0 and message.group(1) in err, err

