"""What `profile="auto"` costs on real Wikidata exports, against naming the profile.

    PYTHONPATH=. python -m bench.profile_choice            # updates RESULTS.md
    PYTHONPATH=. python -m bench.profile_choice --no-write

On local data, auto reads the graph's namespace counts before keeping `wikidata`
(gateway/profiles/wikibase_share.py): those a `bfsql load` store's statistics keep, for
files counted alone in one read of the quads. Side by side in one process, interleaved, each
round with an empty statistics cache: `Gateway.open(FILE, profile=...)` and its first
describe_schema, with "wikidata" named and with "auto".
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECTION = "## Profile choice: auto against a named profile on local Wikidata files"
FILES = ("Q42.ttl", "RdfRepositoryUpdaterIntegrationTest.Q42-munged.ttl", "Q37599471.ttl")


def first_schema(path: Path, profile: str) -> float:
    from gateway import Gateway

    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # no statistics counted in an earlier round
        started = time.perf_counter()
        gateway = Gateway.open(path, profile=profile)
        gateway.describe_schema()
        elapsed = time.perf_counter() - started
    assert gateway.profile.name == "wikidata"
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    folder = HERE.parent.parent / "shared" / "data" / "wikidata"
    rows = []
    for name in FILES:
        named: list[float] = []
        auto: list[float] = []
        first_schema(folder / name, "wikidata")  # imports and parsers warmed
        for _ in range(args.rounds):
            named.append(first_schema(folder / name, "wikidata"))
            auto.append(first_schema(folder / name, "auto"))
        ratio = statistics.median(auto) / statistics.median(named)
        rows.append(f"| {name} | {statistics.median(named):.3f} | {statistics.median(auto):.3f} | {ratio:.2f}× |")
    text = "\n".join([
        SECTION, "",
        f"`bench/profile_choice.py`, {args.rounds} interleaved rounds a file, medians; each round with an empty "
        "statistics cache. auto detects Wikidata statements, then counts the namespaces (one read of the quads in "
        "memory; a `bfsql load` store's statistics keep them) before keeping `wikidata`.", "",
        "| file | wikidata named: open + describe_schema s | auto s | ratio |",
        "|---|---:|---:|---:|",
        *rows, "",
    ])
    return publish(args, SECTION, text)


if __name__ == "__main__":
    sys.exit(main())
