"""The book's two questions as an agent's conversation over MCP, counted in characters
(the fixed policy: `support.conversation`), this checkout and optionally a past commit
side by side.

    PYTHONPATH=. python bench/conversation.py                      # this checkout, stdio and HTTP
    PYTHONPATH=. python bench/conversation.py --baseline 65fd415   # and a commit of the past, side by side
    PYTHONPATH=. python bench/conversation.py --no-write
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from support.conversation import Transcript, import_bundle, over_http, over_stdio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUNDLE = ROOT.parent / "shared" / "data" / "medlit"
BASELINE = "65fd415"
"""The last commit before the agent-experience work: search, tool list, predicate walks."""
SECTION = "## Agent conversation (the book's two questions over MCP)"


def worktree(commit: str, scratch: Path) -> Path:
    """The project at `commit`, checked out beside the current one (git worktree)."""
    where = scratch / f"at-{commit}"
    subprocess.run(["git", "worktree", "add", "--detach", str(where), commit], cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    return where


# -- the report ------------------------------------------------------------------------------
def markdown(rows: Sequence[tuple[str, Transcript]], baseline: str | None) -> str:
    lines = [
        SECTION, "",
        "`bench/conversation.py`: a fixed policy plays an agent over MCP (the real client, a real `bfsql mcp` "
        "over stdio and `bfsql serve` over HTTP) on `shared/data/medlit`: tool list, `describe_schema`, "
        "Q1 (search \"Cushing's disease\", first hit, walk TREATS in, read the cited evidence passages), "
        "Q2 (search both names, `shortest_path`). Characters: the tool list as received, and per call the "
        "arguments written plus the answer's text.", "",
        "| version | transport | tool list | calls | conversation | first hit | treatments | passages | path | solved |",
        "|---|---|---:|---:|---:|---|---:|---:|---|---|",
    ]
    for name, t in rows:
        version, transport = name.rsplit(", ", 1)
        lines.append(f"| {version} | {transport} | {t.tool_list:,} | {len(t.calls)} | {t.total:,} | `{t.first_hit}` | "
                     f"{len(t.treatments)} | {t.passages} | {' → '.join(t.path) or '—'} | "
                     f"{'yes' if t.solved else '**no**'} |")
    lines += ["", "Characters per call (this checkout, stdio):", ""]
    current = next((t for name, t in rows if name.endswith("stdio") and not name.startswith("baseline")), None)
    if current is not None:
        lines += [f"- `{tool}`: {n:,}" for tool, n in current.calls]
    if baseline is not None:
        base = next(t for name, t in rows if name.startswith("baseline") and name.endswith("stdio"))
        if current is not None:
            lines += ["", f"Ratio: this checkout's conversation is {current.total / base.total:.2f}× the one at "
                      f"`{baseline}` ({current.total:,} vs {base.total:,} characters; goal: under 0.5×)."]
            if not base.solved:
                lines += ["", f"At `{baseline}` the policy is misled: the first hit for \"Cushing's disease\" is "
                          f"`{base.first_hit}`, so the walk finds {len(base.treatments)} treatments and no evidence, "
                          "and its fewer calls make that conversation cheaper than one that would have recovered."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bundle", type=Path, default=BUNDLE)
    parser.add_argument("--baseline", default=None, help="a commit to measure side by side (git worktree)")
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    rows: list[tuple[str, Transcript]] = []
    with tempfile.TemporaryDirectory(prefix="bfsql-conversation-") as scratch:
        versions = [("this checkout", ROOT)]
        if args.baseline:
            versions.insert(0, (f"baseline {args.baseline}", worktree(args.baseline, Path(scratch))))
        try:
            for name, code in versions:
                data = import_bundle(code, args.bundle, Path(scratch) / f"{len(rows)}.trig")
                rows.append((f"{name}, stdio", asyncio.run(over_stdio(code, data))))
                rows.append((f"{name}, HTTP", asyncio.run(over_http(code, data))))
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", str(versions[0][1])], cwd=ROOT,
                               capture_output=True, timeout=120)
    text = markdown(rows, args.baseline)
    return publish(args, SECTION, text)


if __name__ == "__main__":
    raise SystemExit(main())
