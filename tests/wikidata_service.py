"""A fake Wikidata query service on 127.0.0.1, for the tests of endpoints at Wikidata's scale.

It answers SPARQL from a real pyoxigraph store holding the real Wikidata exports plus a
Wikidata-shaped filler (`filler`: items with labels, aliases, descriptions, P31 types,
ranked statements with qualifiers and references, property entities), large enough that
reading a whole predicate's triples costs tens of thousands of index rows. Like the
public service (Blazegraph behind the Wikimedia query service), it

- answers `SERVICE wikibase:mwapi` EntitySearch queries (labels and aliases in the asked
  language, case-insensitive prefix match, exact matches first, at most `mwapi:limit`),
  with the public service's output shape (`?item`, `?ordinal`, `?label`, `match/@type`,
  `match/@text`); the service block is found by a real SPARQL parser (rdflib) and
  replaced by its results as a `VALUES` block before the store runs the query;
- enforces a query timeout (`timeout`, a stand-in for the public 60 s): a query not done
  by then gets a 500 whose body is Blazegraph's `java.util.concurrent.TimeoutException`
  trace;
- on demand (`fail_next`): a 429 with `Retry-After`; a 200 whose body is cut mid-stream
  with the timeout trace written into it (as the public service does when a query times
  out after its answer started); a body cut by a closed connection; a query slowed past
  the timeout.

Every query received is kept in `queries` (as sent) and `evaluated` (as the store ran it,
the mwapi block replaced), so a test can hold each to a rule: `scan_check` says whether a
query reads the graph beyond what it names. It runs the query on the service's store and on
a copy holding `NOISE_ITEMS` more Wikidata-shaped items linked to nothing else, and
compares the rows every triple pattern produced (Oxigraph's own evaluation statistics,
`oxigraph query --explain --stats`). A query anchored by its constants, its VALUES and
LIMITs reads the same rows on both; one that scans a predicate, a class or everything
reads the extra items too.
"""

from __future__ import annotations

import bisect
import json
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

WD = "http://www.wikidata.org/entity/"
WDS = WD + "statement/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = P + "statement/"
PQ = P + "qualifier/"
PR = P + "reference/"
WDREF = "http://www.wikidata.org/reference/"
WIKIBASE = "http://wikiba.se/ontology#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
DESCRIPTION = "http://schema.org/description"
PROV = "http://www.w3.org/ns/prov#wasDerivedFrom"
XSD = "http://www.w3.org/2001/XMLSchema#"
MWAPI = "https://www.mediawiki.org/ontology#API/"
SERVICE_PARAM = "http://www.bigdata.com/rdf#serviceParam"
FIRST_FILLER_ID = 900_000_000
"""Filler items are Q900000000 and up: no real Wikidata item in the exports has such an ID."""

_FRAMES = (
    "java.util.concurrent.FutureTask.get(FutureTask.java:205)",
    "com.bigdata.rdf.sail.webapp.BigdataServlet.submitApiTask(BigdataServlet.java:292)",
    "com.bigdata.rdf.sail.webapp.QueryServlet.doSparqlQuery(QueryServlet.java:678)",
    "com.bigdata.rdf.sail.webapp.QueryServlet.doGet(QueryServlet.java:290)",
    "com.bigdata.rdf.sail.webapp.RESTServlet.doGet(RESTServlet.java:240)",
    "com.bigdata.rdf.sail.webapp.MultiTenancyServlet.doGet(MultiTenancyServlet.java:273)",
    "javax.servlet.http.HttpServlet.service(HttpServlet.java:687)",
    "javax.servlet.http.HttpServlet.service(HttpServlet.java:790)",
    "org.eclipse.jetty.servlet.ServletHolder.handle(ServletHolder.java:865)",
    "org.eclipse.jetty.servlet.ServletHandler$CachedChain.doFilter(ServletHandler.java:1655)",
    "org.wikidata.query.rdf.blazegraph.throttling.ThrottlingFilter.doFilter(ThrottlingFilter.java:320)",
    "org.eclipse.jetty.servlet.ServletHandler$CachedChain.doFilter(ServletHandler.java:1642)",
    "org.wikidata.query.rdf.blazegraph.throttling.SystemOverloadFilter.doFilter(SystemOverloadFilter.java:82)",
    "org.eclipse.jetty.servlet.ServletHandler$CachedChain.doFilter(ServletHandler.java:1642)",
    "org.eclipse.jetty.servlet.ServletHandler.doHandle(ServletHandler.java:533)",
    "org.eclipse.jetty.server.handler.ScopedHandler.handle(ScopedHandler.java:146)",
    "org.eclipse.jetty.security.SecurityHandler.handle(SecurityHandler.java:548)",
    "org.eclipse.jetty.server.handler.HandlerWrapper.handle(HandlerWrapper.java:132)",
    "org.eclipse.jetty.server.handler.ScopedHandler.nextHandle(ScopedHandler.java:257)",
    "org.eclipse.jetty.server.session.SessionHandler.doHandle(SessionHandler.java:1595)",
    "org.eclipse.jetty.server.handler.ScopedHandler.nextHandle(ScopedHandler.java:255)",
    "org.eclipse.jetty.server.handler.ContextHandler.doHandle(ContextHandler.java:1340)",
    "org.eclipse.jetty.server.handler.ScopedHandler.nextScope(ScopedHandler.java:203)",
    "org.eclipse.jetty.servlet.ServletHandler.doScope(ServletHandler.java:473)",
    "org.eclipse.jetty.server.handler.ContextHandler.doScope(ContextHandler.java:1242)",
    "org.eclipse.jetty.server.handler.ScopedHandler.handle(ScopedHandler.java:144)",
    "org.eclipse.jetty.server.Server.handle(Server.java:503)",
    "org.eclipse.jetty.server.HttpChannel.handle(HttpChannel.java:364)",
    "org.eclipse.jetty.io.AbstractConnection$ReadCallback.succeeded(AbstractConnection.java:305)",
    "java.lang.Thread.run(Thread.java:748)",
)
TIMEOUT_TRACE = "SPARQL-QUERY: queryStr={query}\njava.util.concurrent.TimeoutException\n" + "".join(
    f"\tat {frame}\n" for frame in _FRAMES)
"""What Blazegraph writes when a query runs out of time: the whole body of a 500, or the
tail of a 200 whose results had started (recorded from the public service's answers)."""

# (kind of item, its P31 class, how many of every 20 items, its statements: property -> kind of value)
KINDS: tuple[tuple[str, str, int, tuple[tuple[str, str], ...]], ...] = (
    ("person", "Q5", 8, (("P27", "country"), ("P106", "occupation"), ("P69", "university"), ("P19", "place"))),
    ("article", "Q13442814", 6, (("P50", "person"), ("P2860", "article"), ("P1433", "journal"))),
    ("place", "Q486972", 3, (("P17", "country"), ("P131", "place"))),
    ("university", "Q3918", 1, (("P17", "country"), ("P159", "place"))),
    ("journal", "Q5633421", 1, (("P123", "university"),)),
    ("country", "Q6256", 1, (("P47", "country"),)),
)
OCCUPATIONS = ("Q36180", "Q214917", "Q28389", "Q6625963", "Q1930187")
"""Writer, playwright, screenwriter, novelist, journalist: real items, Douglas Adams's
occupations among them, so a walk from him meets hubs whose other ends are filler."""
NOISE_ITEMS = 10_000
NOISE_SEED = 51
FIRST_NOISE_ID = 800_000_000
PROPERTY_LABELS = {
    "P17": "country", "P19": "place of birth", "P26": "spouse", "P27": "country of citizenship",
    "P31": "instance of", "P47": "shares border with", "P50": "author", "P69": "educated at",
    "P106": "occupation", "P123": "publisher", "P131": "located in the administrative territorial entity",
    "P159": "headquarters location", "P1433": "published in", "P2860": "cites work",
}


# -- the filler ------------------------------------------------------------------------------
def filler(items: int, *, seed: int = 15, first: int = FIRST_FILLER_ID, properties: bool = True,
           kinds_used: tuple[str, ...] | None = None) -> bytes:
    """N-Triples of `items` Wikidata-shaped items (about 27 triples each) numbered from
    Q`first`, deterministic; with the property entities unless `properties` is False;
    only `kinds_used` kinds of item when given (linked among themselves only)."""
    rng = random.Random(seed)
    chosen = [kind for kind in KINDS if kinds_used is None or kind[0] in kinds_used]
    kinds = [kind for kind in chosen for _ in range(kind[2])]
    kind_of = [kinds[i % len(kinds)] for i in range(items)]
    by_kind: dict[str, list[int]] = {}
    for i, kind in enumerate(kind_of):
        by_kind.setdefault(kind[0], []).append(i)
    lines: list[str] = []
    add = lines.append
    for name, label in PROPERTY_LABELS.items() if properties else ():
        prop = f"<{WD}{name}>"
        add(f'{prop} <{RDF_TYPE}> <{WIKIBASE}Property> .')
        add(f'{prop} <{WIKIBASE}propertyType> <{WIKIBASE}WikibaseItem> .')
        add(f'{prop} <{WIKIBASE}directClaim> <{WDT}{name}> .')
        add(f'{prop} <{WIKIBASE}claim> <{P}{name}> .')
        add(f'{prop} <{RDFS_LABEL}> "{label}"@en .')
    # spouse is a symmetric property, as on Wikidata
    if properties:
        add(f"<{WD}P26> <{P}P31> <{WDS}P26-symmetric> .")
        add(f"<{WDS}P26-symmetric> <{WIKIBASE}rank> <{WIKIBASE}NormalRank> .")
        add(f"<{WDS}P26-symmetric> <{PS}P31> <{WD}Q18647518> .")
    hubs = kinds_used is None
    for i, (kind, cls, _, properties) in enumerate(kind_of):
        item = f"<{WD}Q{first + i}>"
        title = f"{kind.capitalize()} {i}" if hubs else f"Unrelated {kind} {i}"
        add(f"{item} <{RDF_TYPE}> <{WIKIBASE}Item> .")
        add(f'{item} <{RDFS_LABEL}> "{title}"@en .')
        add(f'{item} <{RDFS_LABEL}> "{title} (de)"@de .')
        add(f'{item} <{ALT_LABEL}> "{kind} number {i}"@en .')
        add(f'{item} <{DESCRIPTION}> "a filler {kind}"@en .')
        claims = [("P31", f"<{WD}{cls}>")]
        for prop, target in properties:
            if hubs and prop == "P106" and i % 40 == 0:
                value = f"<{WD}{OCCUPATIONS[i // 40 % len(OCCUPATIONS)]}>"
            elif hubs and prop == "P27" and i % 100 == 0:
                value = f"<{WD}Q145>"  # a few citizens of the United Kingdom, Douglas Adams's country
            else:
                value = f"<{WD}Q{first + rng.choice(by_kind.get(target) or by_kind[kind])}>"
            claims.append((prop, value))
        for number, (prop, value) in enumerate(claims):
            statement = f"<{WDS}Q{first + i}-{number}>"
            roll = rng.random()
            rank = "DeprecatedRank" if roll < 0.02 else "PreferredRank" if roll < 0.07 else "NormalRank"
            add(f"{item} <{P}{prop}> {statement} .")
            add(f"{statement} <{RDF_TYPE}> <{WIKIBASE}Statement> .")
            add(f"{statement} <{WIKIBASE}rank> <{WIKIBASE}{rank}> .")
            add(f"{statement} <{PS}{prop}> {value} .")
            if rank != "DeprecatedRank":
                add(f"{item} <{WDT}{prop}> {value} .")
            if number and rng.random() < 0.3:
                year = rng.randint(1900, 2020)
                add(f'{statement} <{PQ}P580> "{year}-01-01T00:00:00Z"^^<{XSD}dateTime> .')
            if number and rng.random() < 0.3:
                reference = f"<{WDREF}{rng.getrandbits(64):016x}>"
                add(f"{statement} <{PROV}> {reference} .")
                add(f"{reference} <{PR}P248> <{WD}Q{first + rng.choice(by_kind.get('journal') or by_kind[kind])}> .")
    return ("\n".join(lines) + "\n").encode("utf-8")


# -- EntitySearch ------------------------------------------------------------------------------
class EntitySearch:
    """wbsearchentities over the store's labels and aliases, in one language."""

    def __init__(self, store: ox.Store) -> None:
        self._names: dict[str, list[tuple[str, str, str, str]]] = {}  # language -> sorted (folded, entity, kind, text)
        labels: dict[tuple[str, str], str] = {}
        for predicate, kind in ((RDFS_LABEL, "label"), (ALT_LABEL, "alias")):
            for quad in store.quads_for_pattern(None, ox.NamedNode(predicate), None):
                term, text = quad.subject, quad.object
                if not isinstance(term, ox.NamedNode) or not isinstance(text, ox.Literal) or not text.language:
                    continue
                if not term.value.startswith(WD) or term.value.startswith(WDS):
                    continue
                self._names.setdefault(text.language, []).append((text.value.casefold(), term.value, kind, text.value))
                if kind == "label":
                    labels[(term.value, text.language)] = text.value
        for names in self._names.values():
            names.sort()
        self._labels = labels

    def search(self, text: str, language: str, kind: str, limit: int) -> list[tuple[str, str, str, str]]:
        """(entity, its label, "label" or "alias", the matched text), best first."""
        folded = text.casefold().strip()
        names = self._names.get(language, [])
        start = bisect.bisect_left(names, (folded,))
        found: dict[str, tuple[tuple[int, int, int, str], str, str]] = {}
        letter = "P" if kind == "property" else "Q"
        for name, entity, matched, original in names[start:]:
            if not name.startswith(folded):
                break
            local = entity[len(WD):]
            if not local.startswith(letter) or not local[1:].isdigit():
                continue
            rank = (0 if name == folded else 1, 0 if matched == "label" else 1, int(local[1:]), entity)
            if entity not in found or rank < found[entity][0]:
                found[entity] = (rank, matched, original)
        best = sorted(found.items(), key=lambda kv: kv[1][0])[:limit]
        return [(entity, self._labels.get((entity, language), ""), matched, original) for entity, (_, matched, original) in best]


def mwapi_block(query: str) -> tuple[str, dict[str, str], dict[str, str]] | None:
    """(the SERVICE wikibase:mwapi block's text, its parameters, output variable -> output)
    of a query, found by parsing it; None when it has none."""
    try:
        algebra = translateQuery(parseQuery(query)).algebra
    except Exception:  # not ours to judge: the store reports syntax errors
        return None
    service = _find_service(algebra)
    if service is None:
        return None
    triples = _flat_triples(service["graph"])
    params: dict[str, str] = {}
    outputs: dict[str, str] = {}
    for s, p, o in triples:
        if str(s) == SERVICE_PARAM:
            params[str(p).rsplit("/", 1)[-1].rsplit("#", 1)[-1]] = str(o)
        elif str(p) == WIKIBASE + "apiOutputItem":
            outputs[str(s)] = "item"
        elif str(p) == WIKIBASE + "apiOrdinal":
            outputs[str(s)] = "ordinal"
        elif str(p) == WIKIBASE + "apiOutput":
            outputs[str(s)] = str(o).removeprefix(MWAPI)
    return str(service["service_string"]), params, outputs


def _find_service(node: Any) -> CompValue | None:
    if isinstance(node, CompValue):
        if node.name == "ServiceGraphPattern" and str(node.get("term")) == WIKIBASE + "mwapi":
            return node
        children: Iterable[Any] = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_service(child)
        if found is not None:
            return found
    return None


def _flat_triples(node: Any) -> list[tuple[Any, Any, Any]]:
    found: list[tuple[Any, Any, Any]] = []
    if isinstance(node, CompValue):
        if node.name == "TriplesBlock":
            for group in node["triples"]:
                found += [tuple(group[i : i + 3]) for i in range(0, len(group), 3)]  # type: ignore[misc]
        for child in node.values():
            found += _flat_triples(child)
    elif isinstance(node, list):
        for child in node:
            found += _flat_triples(child)
    return found


def _sparql_string(text: str) -> str:
    return str(ox.Literal(text))


# -- the service -------------------------------------------------------------------------------
@dataclass
class Fault:
    kind: str
    """"429", "cut" (a 200 cut mid-answer with the timeout trace), "drop" (a body cut by a
    closed connection), "slow" (the query takes longer than the timeout)."""
    retry_after: str | None = "1"


class WikidataService:
    """The fake service over `files` (Turtle, lenient) plus `filler_items` filler items."""

    def __init__(self, files: Iterable[Path], *, filler_items: int = 20_000, timeout: float = 5.0) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="bfsql-wdqs-"))
        self.store = ox.Store(str(self.directory / "store"))
        for path in files:
            self.store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE, lenient=True)
        self.store.bulk_load(filler(filler_items), format=ox.RdfFormat.N_TRIPLES)
        self.store.flush()
        self.search = EntitySearch(self.store)
        self.timeout = timeout
        self.queries: list[str] = []
        self.evaluated: list[str] = []
        self.faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=4)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        # The path of a Wikidata-style query service (the public one answers on /sparql too).
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/bigdata/namespace/wdq/sparql"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def fail_next(self, kind: str, times: int = 1, *, retry_after: str | None = "1") -> None:
        with self._lock:
            self.faults.extend(Fault(kind, retry_after) for _ in range(times))

    def clear(self) -> None:
        with self._lock:
            self.queries.clear()
            self.evaluated.clear()
            self.faults.clear()

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
        self._pool.shutdown(wait=True, cancel_futures=True)
        del self.store
        shutil.rmtree(self.directory, ignore_errors=True)

    # -- answering ---------------------------------------------------------------------------
    def _rewrite(self, query: str) -> str:
        """The query with its mwapi block replaced by the search's results."""
        block = mwapi_block(query)
        if block is None:
            return query
        text, params, outputs = block
        hits = self.search.search(params.get("search", ""), params.get("language", "en"), params.get("type", "item"),
                                  int(params.get("limit", "7") or 7))
        variables = list(outputs)
        rows = []
        for ordinal, (entity, label, matched, original) in enumerate(hits):
            values = {"item": f"<{entity}>", "ordinal": f'"{ordinal}"^^<{XSD}integer>', "label": _sparql_string(label),
                      "match/@type": _sparql_string(matched), "match/@text": _sparql_string(original)}
            rows.append("(" + " ".join(values.get(outputs[v], "UNDEF") for v in variables) + ")")
        head = " ".join(f"?{v}" for v in variables)
        return query.replace(text, f"VALUES ({head}) {{ {' '.join(rows)} }}", 1)

    def _evaluate(self, query: str, accept: str, delay: float) -> tuple[bytes, str]:
        if delay and self._stop.wait(delay):
            raise RuntimeError("stopped")
        results = self.store.query(query, use_default_graph_as_union=True)
        if "tab-separated-values" in accept.split(",")[0]:
            return results.serialize(format=ox.QueryResultsFormat.TSV), "text/tab-separated-values;charset=UTF-8"
        return results.serialize(format=ox.QueryResultsFormat.JSON), "application/sparql-results+json;charset=UTF-8"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer(parse_qs(urlsplit(self.path).query).get("query", [""])[0])

            def do_POST(self) -> None:
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8"))
                self._answer(form.get("query", [""])[0])

            def _answer(self, query: str) -> None:
                with service._lock:
                    service.queries.append(query)
                    fault = service.faults.popleft() if service.faults else None
                if fault is not None and fault.kind == "429":
                    headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                    return self._send(429, b"Too Many Requests - Please retry later.", "text/plain", headers)
                evaluated = service._rewrite(query)
                with service._lock:
                    service.evaluated.append(evaluated)
                delay = service.timeout * 3 if fault is not None and fault.kind == "slow" else 0.0
                future = service._pool.submit(service._evaluate, evaluated, self.headers.get("Accept", ""), delay)
                try:
                    body, kind = future.result(timeout=service.timeout)
                except FutureTimeout:
                    trace = TIMEOUT_TRACE.format(query=query).encode()
                    return self._send(500, trace, "text/plain;charset=utf-8")
                except SyntaxError as error:
                    return self._send(400, f"MalformedQueryException: {error}".encode(), "text/plain")
                if fault is not None and fault.kind == "cut":
                    trace = ("\n" + TIMEOUT_TRACE.format(query=query)).encode()
                    return self._send(200, body[: len(body) // 2] + trace, kind, close=True)
                if fault is not None and fault.kind == "drop":
                    return self._send(200, body[: len(body) // 2], kind, announced=len(body))
                return self._send(200, body, kind)

            def _send(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None, *,
                      close: bool = False, announced: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if close:  # streamed: the body ends where the connection does
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(announced if announced is not None else len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                if announced is not None:
                    self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        return Handler


# -- the rule ---------------------------------------------------------------------------------
def pattern_rows(binary: str, location: Path, query: str) -> list[tuple[str, int]]:
    """(triple or path pattern, rows it produced) for every pattern the store evaluated
    running `query` (repeated evaluations of one pattern, as in a loop join, add up)."""
    with tempfile.TemporaryDirectory(prefix="bfsql-explain-") as scratch:
        query_file, plan_file = Path(scratch) / "query.rq", Path(scratch) / "plan.json"
        query_file.write_text(query, encoding="utf-8")
        subprocess.run(
            [binary, "query", "--location", str(location), "--query-file", str(query_file), "--results-format", "tsv",
             "--union-default-graph", "--explain-file", str(plan_file), "--stats"],
            check=True, capture_output=True, timeout=120,
        )
        plan = json.loads(plan_file.read_text())
    return list(_patterns(plan["plan"]))


def _patterns(node: dict[str, Any]) -> Iterator[tuple[str, int]]:
    children = node.get("children") or []
    if not children and not node["name"].startswith(("StaticBindings", "Values", "Empty")):
        yield node["name"], int(node.get("number of results", 0))
    for child in children:
        yield from _patterns(child)


@dataclass(frozen=True)
class ScanCheck:
    query: str
    rows: int
    """Rows the query's patterns read on the service's store."""
    rows_with_noise: int
    """The same on the copy holding NOISE_ITEMS more items, linked to nothing else."""
    worst: str
    """The pattern that read the most extra rows."""

    @property
    def scans(self) -> bool:
        """Whether the query read the graph beyond what it names: more than 1% of the extra
        items' triples (a scan of one predicate of theirs alone reads about 10,000 rows)."""
        return self.rows_with_noise - self.rows > NOISE_ITEMS // 100


class ScanChecker:
    """Holds queries to the rule (see the module's docstring) on `service`'s store."""

    def __init__(self, service: WikidataService, binary: str) -> None:
        self.binary = binary
        self.original = service.directory / "store"
        self.noisy = service.directory / "noisy"
        service.store.backup(str(self.noisy))
        copy = ox.Store(str(self.noisy))
        copy.bulk_load(filler(NOISE_ITEMS, seed=NOISE_SEED, first=FIRST_NOISE_ID, properties=False, kinds_used=("person",)),
                       format=ox.RdfFormat.N_TRIPLES)
        copy.flush()
        del copy

    def check(self, query: str) -> ScanCheck:
        before = dict(_summed(pattern_rows(self.binary, self.original, query)))
        after = dict(_summed(pattern_rows(self.binary, self.noisy, query)))
        extra = {name: rows - before.get(name, 0) for name, rows in after.items()}
        worst = max(extra, key=extra.__getitem__, default="")
        return ScanCheck(query, sum(before.values()), sum(after.values()), worst)


def _summed(rows: Iterable[tuple[str, int]]) -> Iterator[tuple[str, int]]:
    totals: dict[str, int] = {}
    for name, count in rows:
        totals[name] = totals.get(name, 0) + count
    return iter(totals.items())


def wait_until(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
