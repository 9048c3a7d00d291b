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

What is refused, and why:

- Updates (an `update` parameter, `application/sparql-update`, update text in `query`):
  403. pyoxigraph's `Store.query` parses queries only, so an update can never run here;
  the keyword scanner below only chooses the message.
- SERVICE: 403. pyoxigraph would fetch the remote endpoint from this machine (request
  forgery). pyoxigraph offers no way to parse a query without running it, nor to inspect
  its algebra, so `keywords` scans the text at the lexer level: strings, IRIs, comments
  and escaped characters are skipped exactly as SPARQL's grammar delimits them. The
  text is scanned twice, as written and with its `\\uXXXX` escapes decoded (SPARQL
  decodes them before parsing; pyoxigraph 0.5 only inside strings and IRIs), so neither
  reading can hide the keyword. A word SERVICE that could be the keyword (not part of a
  prefixed name, variable, blank node or language tag) is refused; a local name such
  as `ex:a.SERVICE` is refused too, on the safe side.

Bounds. A query runs in its own daemon thread; after `timeout` seconds the request gets a
504 problem. pyoxigraph cannot cancel a query, so the thread goes on: a streaming query
stops at its next chunk of output (the output sink checks a cancel flag), while one
that must compute everything before its first row (ORDER BY, GROUP BY, COUNT) runs to
its end. At most `max_running` queries run at once, finished or abandoned; beyond that
the endpoint answers 503 with Retry-After. An answer over `max_bytes` is a 413 problem,
never a truncated document: the sink stops the serialization as soon as it is over.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import pyoxigraph as ox
from fastapi import FastAPI, Request
from fastapi.responses import Response

from gateway.auth import DEFAULT_GRAPH, Reader
from gateway.backends.embedded import NO_GRAPH
from gateway.errors import EndpointTimeout, Forbidden, TooLarge, UpstreamError
from gateway.surfaces.http import Problem, problem_responses

T = TypeVar("T")

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
UPDATE_KEYWORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"})
FORM = "application/x-www-form-urlencoded"
SPARQL_QUERY = "application/sparql-query"
SPARQL_UPDATE = "application/sparql-update"

# -- the keyword scanner ------------------------------------------------------------------
_LEXEMES = re.compile(
    r'''(?P<skip>
        """(?:(?:"|"")?(?:[^"\\]|\\.))*"""          # STRING_LITERAL_LONG2
      | \'\'\'(?:(?:'|'')?(?:[^'\\]|\\.))*\'\'\'     # STRING_LITERAL_LONG1
      | "(?:[^"\\\n\r]|\\.)*"                        # STRING_LITERAL2
      | '(?:[^'\\\n\r]|\\.)*'                        # STRING_LITERAL1
      | <[^<>"{}|^`\\\x00-\x20]*>                    # IRIREF
      | \\.                                          # PN_LOCAL_ESC, outside strings
      | \#[^\n\r]*                                   # a comment
    )
    | (?P<word>\w+)
    | (?P<other>.)''',
    re.VERBOSE | re.DOTALL,
)
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _decode_codepoints(text: str) -> str:
    """SPARQL decodes \\uXXXX and \\UXXXXXXXX anywhere in a query before parsing it."""

    def decode(match: re.Match[str]) -> str:
        value = int(match.group(1) or match.group(2), 16)
        return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else match.group(0)

    return _CODEPOINT.sub(decode, text)


def _scan(text: str) -> list[str]:
    words = []
    for match in _LEXEMES.finditer(text):
        if match.lastgroup != "word":
            continue
        before = text[match.start() - 1] if match.start() else " "
        after = text[match.end()] if match.end() < len(text) else " "
        # Not a keyword: ?var $var _:b ex:local prefix: @lang -subtag
        if before in ":?$@-" or after == ":":
            continue
        words.append(match.group().upper())
    return words


def keywords(query: str) -> list[str]:
    """The words of `query` that may be SPARQL keywords, upper-cased, in order.

    The query is scanned both as written and with its code point escapes decoded, so an
    escape can neither hide a keyword nor make one up unseen.
    """
    decoded = _decode_codepoints(query)
    found = _scan(decoded)
    return found if decoded == query else found + _scan(query)


def looks_like_update(words: Sequence[str]) -> bool:
    operation = next((w for w in words if w not in ("PREFIX", "BASE")), None)
    return operation in UPDATE_KEYWORDS


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


# -- output ---------------------------------------------------------------------------------
class _Overflow(Exception):
    pass


class _Abandoned(Exception):
    pass


class _Sink:
    """A bounded in-memory file for pyoxigraph's serializers."""

    def __init__(self, limit: int, cancelled: threading.Event) -> None:
        self.limit = limit
        self.cancelled = cancelled
        self.chunks: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> int:
        if self.cancelled.is_set():
            raise _Abandoned
        self.size += len(data)
        if self.size > self.limit:
            raise _Overflow
        self.chunks.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def getvalue(self) -> bytes:
        return b"".join(self.chunks)


# -- the endpoint -----------------------------------------------------------------------------
class SparqlEndpoint:
    def __init__(
        self,
        store: ox.Store,
        authenticate: Callable[[Request], Reader | None],
        *,
        timeout: float = 30.0,
        max_bytes: int = 20_000_000,
        max_running: int = 2,
    ) -> None:
        self.store = store
        self.authenticate = authenticate
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_running = max_running
        self._slots = threading.BoundedSemaphore(max_running)

    def add_routes(self, app: FastAPI) -> None:
        app.add_api_route("/sparql", self.get, methods=["GET"], tags=["sparql"], summary="SPARQL query (GET)",
                          openapi_extra=_GET_DOC)
        app.add_api_route("/sparql", self.post, methods=["POST"], tags=["sparql"], summary="SPARQL query (POST)",
                          openapi_extra=_POST_DOC)

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
        words = keywords(query)
        if "SERVICE" in words:
            raise Problem(403, "service_refused", "SERVICE is not allowed: this endpoint queries its own store only", "query")
        dataset = self._dataset(
            reader,
            [value for key, value in params if key == "default-graph-uri"],
            [value for key, value in params if key == "named-graph-uri"],
            uses_from="FROM" in words,
        )
        accept = request.headers.get("accept")
        cancelled = threading.Event()
        body, media = await self._in_thread(lambda: self._execute(query, words, dataset, accept, cancelled), cancelled)
        charset = "; charset=utf-8" if media.startswith("text/") else ""
        return Response(body, media_type=media + charset, headers={"Vary": "Accept"})

    def _dataset(self, reader: Reader | None, defaults: list[str], named: list[str], *, uses_from: bool) -> dict[str, Any]:
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
            return {
                "default_graph": [_graph(g) for g in defaults] or [ox.NamedNode(NO_GRAPH)],
                "named_graphs": [ox.NamedNode(g) for g in named if g != DEFAULT_GRAPH] or [ox.NamedNode(NO_GRAPH)],
            }
        if readable is None:
            # The query's own FROM clauses, else every graph as the default graph (as the tools see it).
            return {} if uses_from else {"use_default_graph_as_union": True}
        if uses_from:
            raise Forbidden("FROM and FROM NAMED are not available to a reader limited to some graphs; "
                            "name them with default-graph-uri and named-graph-uri", field="query")
        return {
            "default_graph": [_graph(g) for g in readable] or [ox.NamedNode(NO_GRAPH)],
            "named_graphs": [ox.NamedNode(g) for g in readable if g != DEFAULT_GRAPH] or [ox.NamedNode(NO_GRAPH)],
        }

    def _execute(
        self, query: str, words: list[str], dataset: dict[str, Any], accept: str | None, cancelled: threading.Event
    ) -> tuple[bytes, str]:
        """Run the query and serialize its answer (in a worker thread)."""
        if not self._slots.acquire(blocking=False):
            raise Problem(503, "busy", f"{self.max_running} SPARQL queries are running already; try again shortly",
                          headers={"Retry-After": "5"})
        try:
            try:
                result = self.store.query(query, **dataset)
            except SyntaxError as error:
                if looks_like_update(words):
                    raise Problem(403, "read_only", "this endpoint is read-only: SPARQL Update is not accepted",
                                  "query") from None
                raise Problem(400, "malformed_query", f"the query is not valid SPARQL: {error}", "query") from None
            offers: Sequence[tuple[str, Any]] = GRAPH_TYPES if isinstance(result, ox.QueryTriples) else RESULTS_TYPES
            media = negotiate(accept, [m for m, _ in offers])
            if media is None:
                raise Problem(406, "not_acceptable", "this answer is available as " + ", ".join(m for m, _ in offers))
            sink = _Sink(self.max_bytes, cancelled)
            result.serialize(sink, format=dict(offers)[media])
            return sink.getvalue(), media
        except _Overflow:
            raise TooLarge(f"the answer is over this server's bound of {self.max_bytes} bytes; "
                           "add a LIMIT or ask for fewer variables", field="query") from None
        except OSError as error:
            raise UpstreamError(f"the store could not evaluate the query: {error}") from None
        finally:
            self._slots.release()

    async def _in_thread(self, work: Callable[[], T], cancelled: threading.Event) -> T:
        """`work()` in a daemon thread, waited for at most `timeout` seconds.

        A daemon thread, not the shared pool: an abandoned query must neither hold a pool
        worker nor keep the process from exiting.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def deliver(result: Any, error: BaseException | None) -> None:
            if not future.done():
                future.set_exception(error) if error is not None else future.set_result(result)

        def target() -> None:
            try:
                outcome: tuple[Any, BaseException | None] = (work(), None)
            except BaseException as error:  # noqa: BLE001 - handed to the waiting request, whatever it is
                outcome = (None, error)
            try:
                loop.call_soon_threadsafe(deliver, *outcome)
            except RuntimeError:  # the event loop is closed: the server stopped meanwhile
                pass

        threading.Thread(target=target, name="sparql-query", daemon=True).start()
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            raise EndpointTimeout(
                f"the query did not finish within {self.timeout:g} s; narrow it or add a LIMIT", field="query"
            ) from None
        finally:
            cancelled.set()  # harmless once the work is done; stops an abandoned streaming query


def _graph(name: str) -> ox.NamedNode | ox.DefaultGraph:
    return ox.DefaultGraph() if name == DEFAULT_GRAPH else ox.NamedNode(name)


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
