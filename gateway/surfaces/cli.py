"""`bfsql`: the command line.

    bfsql query TOOL JSON [--data PATH]    run one tool, print its result as JSON
    bfsql load FILE... --store DIR         bulk-load RDF into an on-disk store
    bfsql demo                             a guided walk through the demo graph
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gateway.api import Gateway
from gateway.errors import GatewayError
from gateway.resources import resource_dir
from gateway.tools import TOOLS

EXIT_ERROR = 1
EXIT_USAGE = 2


def demo_path() -> Path:
    return resource_dir("data") / "sherlock.trig"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except GatewayError as error:
        print(f"bfsql: {error.message}", file=sys.stderr)
        return EXIT_USAGE if error.code == "invalid_input" else EXIT_ERROR
    except BrokenPipeError:  # the reader (say, `head`) closed the pipe: not an error
        sys.stderr.close()
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bfsql", description="BFS-QL gateway: graph traversal tools for LLM agents.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    query = commands.add_parser("query", help="run one tool and print its result as JSON")
    query.add_argument("tool", choices=sorted(TOOLS), metavar="TOOL", help=f"one of: {', '.join(TOOLS)}")
    query.add_argument("arguments", nargs="?", default="{}", help="the tool's arguments as a JSON object ('-' reads stdin)")
    _data_options(query)
    query.add_argument("--compact", action="store_true", help="print one line of JSON")
    query.set_defaults(run=_query)

    load = commands.add_parser("load", help="bulk-load RDF files into an on-disk store directory")
    load.add_argument("files", nargs="+", type=Path, help="Turtle, TriG, N-Triples, N-Quads, RDF/XML (optionally .gz)")
    load.add_argument("--store", type=Path, required=True, help="the store directory to create or extend")
    load.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")
    load.set_defaults(run=_load)

    demo = commands.add_parser("demo", help="a guided walk through the demo graph")
    _data_options(demo)
    demo.set_defaults(run=_demo)
    return parser


def _data_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None, help="an RDF file or store directory (default: the demo graph)")
    parser.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")


def _open(args: argparse.Namespace) -> Gateway:
    gateway = Gateway.open(args.data or demo_path(), lenient=args.lenient)
    for warning in gateway.load_warnings():
        print(f"bfsql: {warning}", file=sys.stderr)
    return gateway


def _query(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.arguments == "-" else args.arguments
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as error:
        print(f"bfsql: the arguments are not valid JSON: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(arguments, dict):
        print("bfsql: the arguments must be a JSON object, such as '{\"seeds\": [\"wiki:Sherlock_Holmes\"]}'", file=sys.stderr)
        return EXIT_USAGE
    with _open(args) as gateway:
        result = gateway.call(args.tool, arguments)
    print(result.model_dump_json(exclude_none=True, indent=None if args.compact else 2))
    return 0


def _load(args: argparse.Namespace) -> int:
    from gateway.loading import load_store

    report = load_store(args.files, args.store, lenient=args.lenient)
    print(json.dumps({"store": str(args.store), "quads": report.quads, "files": report.files}, indent=2))
    for warning in report.warnings():
        print(f"bfsql: {warning}", file=sys.stderr)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from gateway.demo import run_demo

    with _open(args) as gateway:
        run_demo(gateway)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
