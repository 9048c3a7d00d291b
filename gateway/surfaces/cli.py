"""`bfsql`: the command line.

    bfsql query TOOL JSON [--data PATH]... run one tool, print its result as JSON (PATH: an RDF file, a folder
                                           of them, a store or a bundle; --data again for more)
    bfsql query TOOL JSON --endpoint URL|NAME   the same over a remote SPARQL endpoint
    bfsql load FILE|FOLDER... --store DIR  bulk-load RDF into an on-disk store
    bfsql demo [medlit]                    a guided walk through the demo graph (or the book's medlit session)
    bfsql serve [PATH...]                  serve the HTTP tool API, /mcp and /sparql on 127.0.0.1:8000
    bfsql serve --endpoint URL|NAME --workers N   the same over a remote SPARQL endpoint, N processes
    bfsql mcp [PATH... | --endpoint URL|NAME]   serve MCP over stdio
    bfsql import-bundle DIR --out FILE     a JSON-lines property-graph bundle as RDF 1.2 TriG

Several files, or folders of them, are read into memory together; files whose extension
names no RDF syntax are read as `--rdf-format NAME` says (turtle, ntriples, ...). `--format`
is the output of `query` (json, or a picture); on load, serve and mcp it is an older
spelling of `--rdf-format`, still taken, with a line on stderr saying so.

What a folder leaves out (unnamed extensions, files that are not RDF, subfolders) is said
on stderr. `--profile NAME` is the statement model of the data or the endpoint alike.

`--endpoints FILE` (default: $BFSQL_ENDPOINTS) names endpoints and their settings
(`gateway.backends.endpoint_file`); a command given no data and no `--endpoint` uses the
file's only endpoint.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from gateway import redaction
from gateway.api import Gateway
from gateway.backends.endpoint_file import ENDPOINTS_VARIABLE, endpoints_path, resolve_endpoint
from gateway.backends.rdf_files import SYNTAXES
from gateway.errors import GatewayError, InvalidInput, StoreDamaged
from gateway.pictures import FORMATS
from gateway.resources import demo_path, package_version
from gateway.settings import Settings
from gateway.tools import TOOLS

SOURCE_HELP = ("RDF files, folders of them (read into memory), a store directory or a bundle directory "
               "(default: the demo graph)")
RDF_FORMAT_HELP = ("the RDF syntax of files whose extension names none: turtle, trig, ntriples, nquads, n3, rdfxml, "
                   "jsonld (or an extension, or a media type)")
ENDPOINT_HELP = ("a remote SPARQL endpoint to use instead of data: its URL (credentials: BFSQL_ENDPOINT_USER "
                 "and BFSQL_ENDPOINT_PASSWORD, or BFSQL_ENDPOINT_TOKEN, in the environment), or its NAME in the "
                 "endpoints file")
ENDPOINTS_HELP = (f"an endpoints file (TOML): endpoints by name, with their settings and credentials (default: "
                  f"${ENDPOINTS_VARIABLE}); with no data and no --endpoint, its only endpoint is used")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
PROFILES = ["native", "reification", "plain", "wikidata", "auto"]
EXIT_ERROR = 1
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        files = [u for u in unknown if not u.startswith("-") and Path(u).exists()]
        hint = ""
        if files and getattr(args, "data", None):  # `--data a.ttl b.nt`: each file takes its own
            hint = f"; give each file its own --data ({' '.join(f'--data {shlex.quote(f)}' for f in files)})"
        parser.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
    endpoint = getattr(args, "endpoint", None)
    if endpoint:
        redaction.register_url(endpoint)
    try:
        return int(args.run(args))
    except StoreDamaged as error:  # this user runs the store: the whole of it, and they must act on the path given
        print(f"bfsql: {redaction.redact(error.detail)}", file=sys.stderr)
        return EXIT_USAGE
    except GatewayError as error:
        print(f"bfsql: {redaction.redact(error.message)}", file=sys.stderr)
        # 2: what was given cannot be used (a blank ID too, `MalformedInput`); 1: the graph or the store said no.
        return EXIT_USAGE if isinstance(error, InvalidInput) else EXIT_ERROR
    except BrokenPipeError:  # the reader (say, `head`) closed the pipe: not an error
        sys.stderr.close()
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bfsql", description="BFS-QL gateway: graph traversal tools for LLM agents.")
    parser.add_argument("--version", action="version", version=f"bfsql {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    query = commands.add_parser("query", help="run one tool and print its result as JSON")
    query.add_argument("tool", choices=sorted(TOOLS), metavar="TOOL", help=f"one of: {', '.join(TOOLS)}")
    query.add_argument("arguments", nargs="?", default="{}", help="the tool's arguments as a JSON object ('-' reads stdin)")
    _data_options(query)
    _endpoint_options(query)
    query.add_argument("--compact", action="store_true", help="print one line of JSON")
    query.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                       help="time the call may take (default 30, at most 300)")
    query.add_argument("--format", default="json", type=_output_format, metavar="{json," + ",".join(FORMATS) + "}",
                       help="the output: json, or a picture of a walking tool's answer (dot, graphml, mermaid, svg)")
    query.set_defaults(run=_query)

    load = commands.add_parser("load", help="bulk-load RDF files into an on-disk store directory")
    load.add_argument("files", nargs="+", type=Path, metavar="FILE|FOLDER",
                      help="Turtle, TriG, N-Triples, N-Quads, RDF/XML, JSON-LD (optionally .gz), or folders of them")
    load.add_argument("--store", type=Path, required=True, help="the store directory to create or extend")
    load.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")
    _rdf_format_option(load, "the files' syntax, where a file's extension names none (turtle, ntriples, ...)")
    load.add_argument("--profile", default=None, choices=PROFILES,
                      help="the statement model the name index and statistics are made with, kept with the store "
                           "(auto detects it; default: the store's, else native)")
    load.set_defaults(run=_load)

    demo = commands.add_parser("demo", help="a guided walk through the demo graph (or the book's medlit session)")
    demo.add_argument("which", nargs="?", choices=["sherlock", "medlit"], default="sherlock",
                      help="sherlock (the demo graph, default) or medlit (the BFS-QL book's worked example)")
    demo.add_argument("--bundle", type=Path, default=None,
                      help="medlit: the bundle directory (default: shared/data/medlit here or in a folder above)")
    _data_options(demo)
    demo.set_defaults(run=_demo)

    mcp = commands.add_parser("mcp", help="serve the tools over MCP on stdin/stdout")
    mcp.add_argument("source", nargs="*", type=_local_path, default=[], metavar="PATH", help=SOURCE_HELP)
    mcp.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")
    _rdf_format_option(mcp, RDF_FORMAT_HELP)
    _endpoint_options(mcp)
    mcp.set_defaults(run=_mcp)

    from gateway.importers.bundle import add_import_bundle_arguments, import_bundle_command

    bundle = commands.add_parser("import-bundle", help="convert a JSON-lines property-graph bundle to RDF 1.2 TriG")
    add_import_bundle_arguments(bundle)
    bundle.set_defaults(run=import_bundle_command)

    serve = commands.add_parser("serve", help="serve the HTTP tool API and /sparql (default: the demo graph on 127.0.0.1:8000)")
    serve.add_argument("source", nargs="*", type=_local_path, default=[], metavar="PATH", help=SOURCE_HELP)
    _rdf_format_option(serve, RDF_FORMAT_HELP)
    serve.add_argument("--host", default="127.0.0.1", help="the address to bind (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="the port to bind (default: 8000)")
    serve.add_argument("--readers", type=Path, default=None, help="a readers file: bearer tokens and the graphs they read")
    serve.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="an origin (https://app.example) browsers may call from; repeatable; '*' for any")
    serve.add_argument("--allow-host", action="append", default=[], metavar="HOST[:PORT]",
                       help="a Host header value to answer besides the loopback names; repeatable; '*' for any")
    _endpoint_options(serve)
    serve.add_argument("--prefixes", type=Path, default=None, metavar="FILE",
                       help="prefixes to add to the data's own: a JSON object, or a file of @prefix/PREFIX lines "
                            "(for an --endpoint, added to those its endpoints file names)")
    serve.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    serve.add_argument("--on-disk", action="store_true",
                       help="serve a store directory from disk (default: in memory when it fits in half the free memory)")
    serve.add_argument("--sparql-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="stop a /sparql query after this long, waiting for a free worker included (default: 30)")
    serve.add_argument("--sparql-workers", type=int, default=2, metavar="N",
                       help="/sparql queries that run at once, each in a worker process (default: 2)")
    serve.add_argument("--sparql-memory", type=int, default=1024, metavar="MIB",
                       help="memory a /sparql query may use; past it the query is stopped with 413 (default: 1024)")
    serve.add_argument("--max-body-bytes", type=int, default=1_000_000, help="the largest request body (default: 1,000,000)")
    serve.add_argument("--request-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="time a client has to send a request's headers, and again its body (default: 30)")
    serve.add_argument("--max-response-bytes", type=int, default=20_000_000,
                       help="the largest answer; a larger one is refused with 413 (default: 20,000,000)")
    serve.add_argument("--languages", type=_languages, default=Settings.languages, metavar="TAGS",
                       help="label languages, most wanted first (default: en,mul; then none, then any)")
    serve.add_argument("--llm-url", default=None, metavar="URL",
                       help="an OpenAI-compatible base URL for answer (default: $BFSQL_LLM_URL; key: $BFSQL_LLM_API_KEY)")
    serve.add_argument("--llm-model", default=None, metavar="NAME", help="the model name (default: $BFSQL_LLM_MODEL)")
    serve.set_defaults(run=_serve)
    return parser


def _data_options(parser: argparse.ArgumentParser) -> None:
    # One path an occurrence (not nargs="+"): the JSON arguments may follow `--data PATH`.
    parser.add_argument("--data", type=_local_path, action="append", default=None, metavar="PATH",
                        help=f"{SOURCE_HELP}; repeat it for several")
    parser.add_argument("--lenient", action="store_true", help="accept what strict parsers refuse, and report it")
    parser.add_argument("--rdf-format", dest="rdf_format", default=None, metavar="NAME", help=RDF_FORMAT_HELP)


class _OlderSpelling(argparse.Action):
    """`--format` where it names the RDF syntax: taken, and said to be `--rdf-format` (on
    `query`, `--format` is the output's format, so one spelling for both misleads)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        _say(f"{option_string} names the files' RDF syntax here: spell it --rdf-format (on `bfsql query`, "
             "--format is the output's format)")
        setattr(namespace, self.dest, values)


def _rdf_format_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--rdf-format", dest="rdf_format", default=None, metavar="NAME", help=help)
    parser.add_argument("--format", dest="rdf_format", action=_OlderSpelling, metavar="NAME", help=argparse.SUPPRESS)


def _endpoint_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--endpoint", default=None, metavar="URL|NAME", help=ENDPOINT_HELP)
    parser.add_argument("--endpoints", default=None, metavar="FILE", help=ENDPOINTS_HELP)
    parser.add_argument("--profile", default=None, choices=PROFILES,
                        help="the statement model of the data or endpoint; auto detects it (default: the endpoints "
                             "file's, else native)")


def _output_format(text: str) -> str:
    if text in ("json", *FORMATS):
        return text
    syntax = " (the data's RDF syntax is --rdf-format)" if text.lower().replace("-", "") in SYNTAXES else ""
    raise argparse.ArgumentTypeError(f"{text!r} is no output format: json, {', '.join(FORMATS)}{syntax}")


def _local_path(text: str) -> Path:
    """A data path as given; a URL is refused here (a `Path` would fold its `//`)."""
    if _URL.match(text):
        raise argparse.ArgumentTypeError("a URL is no file or directory: give a remote SPARQL endpoint with --endpoint URL")
    return Path(text)


def _chosen_endpoint(args: argparse.Namespace, data: Sequence[Path] | None) -> tuple[str | None, str | None]:
    """(--endpoint, the endpoints file) when the command runs over a remote endpoint, else
    (None, None). Data given on the command line wins over $BFSQL_ENDPOINTS, not over an
    explicit --endpoint or --endpoints."""
    if data:
        if args.endpoint or args.endpoints:
            raise InvalidInput("use data or an --endpoint, not both", field="endpoint")
        return None, None
    return args.endpoint or None, endpoints_path(args.endpoints)


def _connect(args: argparse.Namespace, data: Sequence[Path] | None) -> Gateway | None:
    """The remote endpoint `bfsql query` or `bfsql mcp` was given, with its log lines
    redacted; None when it runs over data."""
    endpoint, path = _chosen_endpoint(args, data)
    if endpoint is None and path is None:
        return None
    logging.basicConfig(level=logging.WARNING, format="bfsql: %(levelname)s %(name)s: %(message)s")
    redaction.guard_logging()
    entry = resolve_endpoint(endpoint, path)
    return Gateway.connect(entry.config, profile=args.profile or entry.profile)


def _open(args: argparse.Namespace) -> Gateway:
    remote = _connect(args, args.data) if hasattr(args, "endpoints") else None
    return remote or _open_local(args.data or [], args)


def _open_local(sources: Sequence[Path], args: argparse.Namespace) -> Gateway:
    """The data given (the demo graph when none), its load warnings said on stderr."""
    from gateway.surfaces.sources import open_data

    gateway = open_data(sources or [demo_path()], lenient=args.lenient, say=_say,
                        rdf_format=args.rdf_format if sources else None,  # the demo graph's own syntax
                        profile=getattr(args, "profile", None))
    for warning in gateway.load_warnings():
        _say(warning)
    return gateway


def _say(line: str) -> None:
    print(f"bfsql: {line}", file=sys.stderr)


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
        if args.format != "json":
            sys.stdout.write(gateway.picture(args.tool, arguments, args.format, deadline=args.deadline))
            return 0
        result = gateway.call(args.tool, arguments, deadline=args.deadline)
    print(result.model_dump_json(exclude_none=True, indent=None if args.compact else 2))
    return 0


def _load(args: argparse.Namespace) -> int:
    from gateway.backends.rdf_files import left_out, syntax_named
    from gateway.loading import load_store

    given = syntax_named(args.rdf_format) if args.rdf_format else None
    report = load_store(args.files, args.store, lenient=args.lenient, rdf_format=given, profile=args.profile)
    print(json.dumps({"store": str(args.store), "quads": report.quads, "files": report.files}, indent=2))
    for warning in [*left_out(args.files, given), *report.warnings()]:
        _say(warning)
    return 0


def _demo(args: argparse.Namespace) -> int:
    if args.which == "medlit":
        from gateway.demos.medlit import run_medlit_demo
        from gateway.importers.bundle import find_medlit, open_bundle

        try:
            bundle = args.bundle or (args.data[0] if args.data else None) or find_medlit()
        except GatewayError as error:
            print(f"bfsql: {error.message}", file=sys.stderr)
            return EXIT_ERROR
        with open_bundle(bundle, lenient=args.lenient) as gateway:
            run_medlit_demo(gateway, data=str(bundle))
        return 0
    from gateway.demos.sherlock import run_demo

    with _open(args) as gateway:
        run_demo(gateway)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from gateway.surfaces.mcp import run_stdio

    if sys.stdin is not None and sys.stdin.isatty():  # a person typed it: the protocol's silence would look like a hang
        _say("this speaks MCP on stdin and stdout, for an MCP client to start (Claude Desktop, Claude Code, "
             "Cursor, ...): configure one as docs/mcp.md shows; Ctrl-D or Ctrl-C ends it")
    # stdout carries the protocol: nothing else may be printed there (the log is on stderr).
    gateway = _connect(args, args.source) or _open_local(args.source, args)
    run_stdio(gateway)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from gateway.surfaces.serve import ServeConfig, serve

    # Workers are given the file's path and the entry's name, never its secrets: each reads them itself.
    endpoint, endpoints_file = _chosen_endpoint(args, args.source)
    return serve(ServeConfig(
        source=str(args.source[0]) if args.source else None, more_sources=tuple(map(str, args.source[1:])),
        rdf_format=args.rdf_format, endpoint=endpoint, endpoints_file=endpoints_file,
        profile=args.profile,
        prefixes=str(args.prefixes) if args.prefixes else None,
        host=args.host, port=args.port,
        readers=str(args.readers) if args.readers else None, lenient=args.lenient,
        allow_origins=args.allow_origin, allow_hosts=args.allow_host, workers=args.workers, on_disk=args.on_disk,
        sparql_timeout=args.sparql_timeout, sparql_workers=args.sparql_workers, sparql_memory_mb=args.sparql_memory,
        max_body_bytes=args.max_body_bytes, request_timeout=args.request_timeout,
        max_response_bytes=args.max_response_bytes, languages=args.languages, llm_url=args.llm_url,
        llm_model=args.llm_model,
    ))


def _languages(text: str) -> tuple[str, ...]:
    tags = tuple(tag.strip() for tag in text.split(",") if tag.strip())
    try:
        Settings(languages=tags)
    except InvalidInput as error:
        raise argparse.ArgumentTypeError(error.message) from error
    return tags


if __name__ == "__main__":
    raise SystemExit(main())
