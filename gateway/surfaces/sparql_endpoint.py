"""A read-only SPARQL 1.1 Protocol endpoint at `/sparql` over the embedded pyoxigraph store.

    GET  /sparql?query=...
    POST /sparql   application/x-www-form-urlencoded   query=...
    POST /sparql   application/sparql-query            the query is the body
    default-graph-uri, named-graph-uri                 choose the dataset (URL or form parameters)

Answers are negotiated with `Accept`: SPARQL results as JSON, XML, TSV or CSV for SELECT
and ASK; Turtle, N-Triples, RDF/XML, JSON-LD, N3, N-Quads or TriG for CONSTRUCT and
DESCRIBE. Errors are the HTTP API's problem documents.

The dataset. Without a readers file the default graph is the union of every graph (as
the tools see it), unless the query names its own with FROM / FROM NAMED or the request
with default-graph-uri / named-graph-uri. A reader limited to some graphs queries their
union; it may narrow that with default-graph-uri / named-graph-uri, is refused (403) a
graph outside its list, and is refused FROM / FROM NAMED, which the endpoint cannot check
against its list. "default" names the store's default graph, as in a readers file.

What is refused, and why (`gateway.surfaces.sparql_text` reads the text for it):

- Updates (an `update` parameter, `application/sparql-update`, update text in `query`):
  403. pyoxigraph's `Store.query` parses queries only, so an update can never run here;
  the text check only chooses the message.
- SERVICE: 403, found however it is spelled (glued to the next word, escaped, any case).
  pyoxigraph would fetch the remote endpoint from this machine (request forgery); the
  sandbox below has no network besides.
- Nesting deeper than `MAX_DEPTH` brackets, or more than `MAX_OPERATORS` operators: 400,
  before the query reaches pyoxigraph, whose recursive parser would overflow its stack.

Bounds. Every query runs in a worker process of `gateway.surfaces.sparql_sandbox`, where
it can be stopped: at most `SandboxLimits.workers` at once, each answered within the
deadline (504 past it, the worker killed and replaced), within a memory bound (413 past
it), a short wait for a free worker (503 with Retry-After past it). An answer over
`max_bytes` is a 413 problem, never a truncated document: the serialization stops as soon
as it is over.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl

import pyoxigraph as ox
from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from gateway.auth import Reader
from gateway.backends.embedded import dataset
from gateway.errors import Forbidden, TooLarge, UpstreamError
from gateway.surfaces.problems import Problem, problem_responses
from gateway.surfaces.sparql_sandbox import Sandbox, SandboxLimits
from gateway.surfaces.sparql_text import MAX_DEPTH, MAX_OPERATORS, read_query
from gateway.terms import DEFAULT_GRAPH

RESULTS_TYPES: list[tuple[str, ox.QueryResultsFormat]] = [
    ("application/sparql-results+json", ox.QueryResultsFormat.JSON),
    ("application/sparql-results+xml", ox.QueryResultsFormat.XML),
    ("text/tab-separated-values", ox.QueryResultsFormat.TSV),
    ("text/csv", ox.QueryResultsFormat.CSV),
    ("application/json", ox.QueryResultsFormat.JSON),
    ("application/xml", ox.QueryResultsFormat.XML),
    ("text/xml", ox.QueryResultsFormat.XML),
]
"""For SELECT and ASK, in order of preference (the first is the default)."""
GRAPH_TYPES: list[tuple[str, ox.RdfFormat]] = [
    ("text/turtle", ox.RdfFormat.TURTLE),
    ("application/n-triples", ox.RdfFormat.N_TRIPLES),
    ("application/rdf+xml", ox.RdfFormat.RDF_XML),
    ("application/ld+json", ox.RdfFormat.JSON_LD),
    ("text/n3", ox.RdfFormat.N3),
    ("application/n-quads", ox.RdfFormat.N_QUADS),
    ("application/trig", ox.RdfFormat.TRIG),
    ("text/plain", ox.RdfFormat.N_TRIPLES),
]
"""For CONSTRUCT and DESCRIBE, in order of preference."""
FORM = "application/x-www-form-urlencoded"
SPARQL_QUERY = "application/sparql-query"
SPARQL_UPDATE = "application/sparql-update"

# -- content negotiation ---------------------------------------------------------------------
def negotiate(accept: str | None, offers: Sequence[str]) -> str | None:
    """The offer the Accept header prefers (most specific range wins, then the offers' order)."""
    if accept is None or not accept.strip():
        return offers[0]
    ranges: list[tuple[str, float]] = []
    for part in accept.split(","):
        media, *params = [piece.strip() for piece in part.split(";")]
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if media:
            ranges.append((media.lower(), quality))
    best, best_quality = None, 0.0
    for offer in offers:
        kind = offer.split("/")[0]
        specificity, quality = -1, 0.0
        for media, q in ranges:
            rank = 2 if media == offer else 1 if media == f"{kind}/*" else 0 if media in ("*/*", "*") else -1
            if rank > specificity:
                specificity, quality = rank, q
        if specificity >= 0 and quality > best_quality:
            best, best_quality = offer, quality
    return best


# -- in a sandbox worker ---------------------------------------------------------------------
class _Overflow(Exception):
    pass


class _Sink(io.BytesIO):
    """An in-memory file for pyoxigraph's serializers that refuses to grow past `limit`."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def write(self, data: Any) -> int:
        if self.tell() + len(data) > self.limit:
            raise _Overflow
        return super().write(data)


def run_query(store: ox.Store, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """Run one caller query and serialize its answer (in a sandbox worker).

    The answer header is `{"media": ...}`, or `{"refused": reason, ...}` for what the
    server turns into a problem.
    """
    try:
        result = store.query(request["query"], **_dataset_arguments(request["dataset"]))
    except SyntaxError as error:
        return {"refused": "syntax", "message": str(error)}, b""
    graph = isinstance(result, ox.QueryTriples)
    offers: Sequence[tuple[str, Any]] = GRAPH_TYPES if graph else RESULTS_TYPES
    media = negotiate(request["accept"], [m for m, _ in offers])
    if media is None and graph and negotiate(request["accept"], [m for m, _ in RESULTS_TYPES]) is not None:
        # A client that names only result formats (roqet does) asked as for a SELECT: a
        # graph comes back in the default RDF syntax rather than not at all.
        media = GRAPH_TYPES[0][0]
    if media is None:
        return {"refused": "not_acceptable", "offers": [m for m, _ in offers]}, b""
    sink = _Sink(request["max_bytes"])
    try:
        result.serialize(sink, format=dict(offers)[media])
    except _Overflow:
        return {"refused": "too_large"}, b""
    except OSError as error:
        if dict(offers)[media] == ox.RdfFormat.JSON_LD:  # "JSON-LD does not support RDF 1.2 yet"
            return {"refused": "not_acceptable", "offers": [m for m, f in offers if f != ox.RdfFormat.JSON_LD],
                    "why": f"the answer cannot be written as JSON-LD ({error})"}, b""
        return {"refused": "failed", "message": str(error)}, b""
    except RuntimeError as error:
        return {"refused": "failed", "message": str(error)}, b""
    body = sink.getvalue()
    if media.endswith("xml") and _NOT_XML.search(body.decode("utf-8", "replace")):
        return {"refused": "not_acceptable", "offers": [m for m, _ in offers if not m.endswith("xml")],
                "why": "the answer holds characters XML 1.0 cannot carry (control characters or noncharacters)"}, b""
    return {"media": media}, body


_PARSER_SAID = re.compile(r"error at (\d+):(\d+): expected (?:one of )?(.*)", re.S)
_FIRST_WORD = re.compile(r"(?:\s|#[^\n]*\n?)*([^\s{<(]+)")
_QUERY_STARTS = {"SELECT", "CONSTRUCT", "ASK", "DESCRIBE", "PREFIX", "BASE"}
_PARSER_WORDS = {"[_]": None, "IRI parsing failed": "a valid IRI"}
"""The parser's names for what it expected, in plain words (None: an internal rule, left out)."""


def syntax_said(query: str, message: str) -> str:
    """pyoxigraph's `error at 3:10: expected one of ",", "}", [_]` in plain words: the line
    and column (its column counts characters), what is written there, and what could have
    been; its own words where they are in another shape."""
    said = _PARSER_SAID.fullmatch(message.strip())
    if said is None:
        return message
    line, column = int(said.group(1)), int(said.group(2))
    first = _FIRST_WORD.match(query)
    if first and first.group(1).upper() not in _QUERY_STARTS:
        # The parser reports how far it read, often mid-word past a misspelt keyword.
        return (f"a query starts with SELECT, CONSTRUCT, ASK or DESCRIBE (after any PREFIX or BASE), "
                f"not `{first.group(1)[:30]}`")
    lines = query.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    token = re.match(r"\s*(\S{1,30})", text[column - 1:])
    if token:
        where = f"at `{token.group(1)}`"
    elif line >= len(lines) or not "".join(lines[line:]).strip():
        where = "at the end of the query"
    else:
        where = "at the end of the line"
    # Character classes (`['0' ..= '9' | ...]`) are the grammar's, not words a reader knows.
    wanted = [_PARSER_WORDS.get(name, name) for name in said.group(3).split(", ") if not name.startswith("['")]
    expected = " or ".join(w.strip('"') if w.startswith('"') else w for w in wanted if w) or "more of the query"
    return f"line {line} column {column}, {where}: expected {expected}"


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character XML 1.0 does not allow: Oxigraph writes such a literal as it is, which no
XML parser reads."""


def _dataset_arguments(request: dict[str, Any]) -> dict[str, Any]:
    if "default" not in request:
        return request  # {} (the query's own FROM) or {"use_default_graph_as_union": True}
    return dataset(request["default"], request["named"])


def store_opener(store: ox.Store, path: str | None) -> Callable[[], ox.Store]:
    """How a sandbox worker gets the store: an in-memory store is inherited by the fork,
    an on-disk one is opened read-only again (its files are not shared across a fork)."""
    if path is None:
        return lambda: store
    return lambda: ox.Store.read_only(path)


# -- the endpoint -----------------------------------------------------------------------------
class SparqlEndpoint:
    def __init__(
        self,
        open_store: Callable[[], ox.Store],
        authenticate: Callable[[Request], Reader | None],
        *,
        limits: SandboxLimits | None = None,
        max_bytes: int = 20_000_000,
    ) -> None:
        self.authenticate = authenticate
        self.max_bytes = max_bytes
        self.sandbox = Sandbox(open_store, run_query, limits)

    def add_routes(self, app: FastAPI) -> None:
        app.add_api_route("/sparql", self.get, methods=["GET"], tags=["sparql"], summary="SPARQL query (GET)",
                          operation_id="sparql_get", openapi_extra=_GET_DOC)
        app.add_api_route("/sparql", self.post, methods=["POST"], tags=["sparql"], summary="SPARQL query (POST)",
                          operation_id="sparql_post", openapi_extra=_POST_DOC)

    def close(self) -> None:
        self.sandbox.close()

    async def get(self, request: Request) -> Response:
        params = [(k, v) for k, v in request.query_params.multi_items()]
        return await self._answer(request, params)

    async def post(self, request: Request) -> Response:
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        params = [(k, v) for k, v in request.query_params.multi_items()]
        body = await request.body()
        if media == SPARQL_UPDATE:
            raise Problem(403, "read_only", "this endpoint is read-only: SPARQL Update is not accepted")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise Problem(400, "malformed_request", "the body is not UTF-8") from None
        if media == FORM:
            params += parse_qsl(text, keep_blank_values=True)
        elif media == SPARQL_QUERY:
            params.append(("query", text))
        else:
            raise Problem(415, "unsupported_media_type",
                          f"send the query as {FORM} (query=...) or as {SPARQL_QUERY}, not {media or 'no content type'}")
        return await self._answer(request, params)

    async def _answer(self, request: Request, params: list[tuple[str, str]]) -> Response:
        reader = self.authenticate(request)
        if any(key == "update" for key, _ in params):
            raise Problem(403, "read_only", "this endpoint is read-only: SPARQL Update is not accepted", "update")
        queries = [value for key, value in params if key == "query"]
        if len(queries) != 1:
            raise Problem(400, "malformed_query", "give exactly one query parameter", "query")
        query = queries[0]
        text = await run_in_threadpool(read_query, query)  # ~0.1 s for a 400 KB query: not on the event loop
        if text.service is not None:
            raise Problem(403, "service_refused", f"SERVICE is not allowed (found in {text.service[:40]!r}): this "
                          "endpoint queries its own store only. A prefix whose name contains 'service' is refused "
                          "too; rename it", "query")
        if text.depth > MAX_DEPTH or text.operators > MAX_OPERATORS:
            raise Problem(400, "query_too_complex",
                          f"the query nests {text.depth} brackets deep and holds {text.operators} operators; this "
                          f"endpoint takes at most {MAX_DEPTH} and {MAX_OPERATORS}", "query")
        dataset = self._dataset(
            reader,
            [value for key, value in params if key == "default-graph-uri"],
            [value for key, value in params if key == "named-graph-uri"],
            uses_from=text.uses_from,
        )
        header, body = await self.sandbox.run(
            {"query": query, "dataset": dataset, "accept": request.headers.get("accept"), "max_bytes": self.max_bytes}
        )
        refused = header.get("refused")
        if refused == "syntax":
            if text.looks_like_update:
                raise Problem(403, "read_only", "this endpoint is read-only: SPARQL Update is not accepted", "query")
            raise Problem(400, "malformed_query", f"the query is not valid SPARQL: {syntax_said(query, header['message'])}",
                          "query")
        if refused == "not_acceptable":
            why = f"{header['why']}; it" if "why" in header else "this answer"
            raise Problem(406, "not_acceptable", f"{why} is available as " + ", ".join(header["offers"]))
        if refused == "too_large":
            raise TooLarge(f"the answer is over this server's bound of {self.max_bytes} bytes; "
                           "add a LIMIT or ask for fewer variables", field="query")
        if refused is not None:
            raise UpstreamError(f"the store could not evaluate the query: {header.get('message', refused)}")
        media = str(header["media"])
        charset = "; charset=utf-8" if media.startswith("text/") else ""
        return Response(body, media_type=media + charset, headers={"Vary": "Accept"})

    def _dataset(self, reader: Reader | None, defaults: list[str], named: list[str], *, uses_from: bool) -> dict[str, Any]:
        """The dataset, as JSON for the worker (`_dataset_arguments` makes pyoxigraph's arguments of it)."""
        readable = None if reader is None else reader.graphs
        for name, graphs in (("default-graph-uri", defaults), ("named-graph-uri", named)):
            for graph in graphs:
                if graph != DEFAULT_GRAPH:
                    try:
                        ox.NamedNode(graph)
                    except ValueError:
                        raise Problem(400, "malformed_request", f"{graph!r} is not an IRI", name) from None
                if readable is not None and graph not in readable:
                    raise Forbidden(f"this reader may not read the graph {graph!r}", field=name)
        if defaults or named:
            return {"default": defaults, "named": named}
        if readable is None:
            # The query's own FROM clauses, else every graph as the default graph (as the tools see it).
            return {} if uses_from else {"use_default_graph_as_union": True}
        if uses_from:
            raise Forbidden("FROM and FROM NAMED are not available to a reader limited to some graphs; "
                            "name them with default-graph-uri and named-graph-uri", field="query")
        return {"default": list(readable), "named": list(readable)}


_GRAPH_PARAMS = [
    {"name": name, "in": "query", "required": False, "style": "form", "explode": True,
     "schema": {"type": "array", "items": {"type": "string"}}, "description": description}
    for name, description in (
        ("default-graph-uri", "A graph of the default graph (repeatable); \"default\" is the store's default graph."),
        ("named-graph-uri", "A graph GRAPH may name (repeatable)."),
    )
]
_ANSWERS = {
    "200": {
        "description": "SELECT/ASK: SPARQL results; CONSTRUCT/DESCRIBE: RDF. Negotiated with Accept.",
        "content": {media: {} for media, _ in [*RESULTS_TYPES, *GRAPH_TYPES]},
    },
    **problem_responses(400, 401, 403, 406, 413, 415, 421, 502, 503, 504),
}
_GET_DOC: dict[str, Any] = {
    "parameters": [
        {"name": "query", "in": "query", "required": True, "schema": {"type": "string"},
         "description": "A SPARQL 1.1 query (no SERVICE, no update)."},
        *_GRAPH_PARAMS,
    ],
    "responses": _ANSWERS,
}
_POST_DOC: dict[str, Any] = {
    "parameters": _GRAPH_PARAMS,
    "requestBody": {
        "required": True,
        "content": {
            FORM: {"schema": {
                "type": "object", "required": ["query"],
                "properties": {"query": {"type": "string"},
                               "default-graph-uri": {"type": "array", "items": {"type": "string"}},
                               "named-graph-uri": {"type": "array", "items": {"type": "string"}}},
            }},
            SPARQL_QUERY: {"schema": {"type": "string"}},
        },
    },
    "responses": _ANSWERS,
}
