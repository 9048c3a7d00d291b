"""bfs_query over a slow network: the gateway against one request per node, 5 in flight.

    PYTHONPATH=. python -m bench.latency [--delays 0,5,25] [--virtuoso-delays 25] [--virtuoso-budgets default] [--no-write]

`oxigraph serve` stands behind a proxy (`DelayProxy`, here) that holds every request
for a fixed time before passing it on: 0, 5 and 25 ms, a round trip to a nearby or a
distant endpoint. Virtuoso 7 (support/servers.py's `VirtuosoServer`, the graph in a named
graph the gateway is told to read) stands behind it at 25 ms, default budget (the
options add 0 ms and the maximum budget, about a minute each): medlit in the
reification profile (converted with `native_to_reification`), the 1M graph plain. Its
answers are checked against those through `oxigraph serve` (the same nodes and edges for
the same seed and budget). Through the proxy, side by side and interleaved:

- **gateway**: `Gateway.connect(proxy)`, `bfs_query(seeds=[seed], max_hops=h, topology_only=True)`;
- **per node**: the same budgeted BFS sending two requests per frontier node (its out-
  and in-neighbours), 5 in flight at once, the way a simple client walks an endpoint;
- **per node, every node**: that client without budgets, expanding every frontier node
  of every hop, as the simple BFS-QL engines do: measured at 2 hops, and at 3 hops a
  lower bound (its requests, counted on the graph, times the delay over 5 in flight), on
  the 1M hubs at 25 ms, where the budgeted client ends after one round trip (on Virtuoso
  both hops that lower bound, which keeps the stage short).

Graphs: medlit (the bundle, imported to TriG) from RxNorm:3251, DBPedia:Cushing's_disease
and MeSH:D003480, and the 1M-triple plain graph's hubs (bench/data.py), default and
maximum budgets, 2 and 3 hops. The gateway's requests per walk are counted too.
"""

# The report writes ratios with the multiplication sign, as the other stages' reports do.
# ruff: noqa: RUF001
from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pyoxigraph as ox
import pytest

from bench import data
from bench.bfs import PREFIXES as SYNTH_PREFIXES
from bench.remote import Server, per_node_bfs
from gateway import Gateway
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from support.csr import Csr
from support.servers import VirtuosoServer

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SECTION = "## Latency: the gateway against one request per node"
IN_FLIGHT = 5
TARGET = 3.0
MEDLIT_SEEDS = ("RxNorm:3251", "DBPedia:Cushing's_disease", "MeSH:D003480")
BUDGETS = {"default": (1000, 2000), "max": (10_000, 50_000)}
UNBOUNDED = 10**9
OXIGRAPH = "oxigraph serve"
VIRTUOSO = "Virtuoso"
FORWARDED = ("x-sparql-maxrows", "x-sql-state", "x-sql-message")
"""Virtuoso's row cap and partial-answer headers, which the gateway checks, pass the proxy."""


class DelayProxy:
    """An HTTP proxy on 127.0.0.1 that waits `delay` seconds before forwarding each request."""

    def __init__(self, upstream: str, delay: float) -> None:
        self.delay = delay
        client = httpx2.Client(timeout=300)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(proxy.delay)
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept")}
                response = client.request(self.command, upstream + self.path[len("/query"):], content=body, headers=headers)
                self.send_response(response.status_code)
                self.send_header("Content-Type", response.headers.get("content-type", "application/octet-stream"))
                for name in FORWARDED:
                    if name in response.headers:
                        self.send_header(name, response.headers[name])
                self.send_header("Content-Length", str(len(response.content)))
                self.end_headers()
                self.wfile.write(response.content)

            do_GET = do_POST = _forward

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/query"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def per_node_walk(backend: RemoteBackend, seed: str, max_hops: int, max_nodes: int, max_edges: int) -> tuple[int, int, int]:
    """(nodes, edges, requests) of bench.bfs.per_node_walk with `IN_FLIGHT` nodes' requests at once."""
    with ThreadPoolExecutor(IN_FLIGHT) as pool:
        return per_node_bfs(backend, seed, max_hops, max_nodes, max_edges, pool=pool, in_flight=IN_FLIGHT)


@dataclass
class Row:
    graph: str
    endpoint: str
    seeds: str
    budget: str
    hops: int
    delay_ms: int
    gateway: list[float] = field(default_factory=list)
    per_node: list[float] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)
    per_node_requests: list[int] = field(default_factory=list)
    per_node_nodes: list[int] = field(default_factory=list)
    cut: list[bool] = field(default_factory=list)
    every_node: list[float] = field(default_factory=list)
    """Seconds of the walk that expands every frontier node (measured, or a lower bound)."""
    every_node_requests: list[int] = field(default_factory=list)
    every_node_bound: bool = False
    """`every_node` is its lower bound: requests times the delay over `IN_FLIGHT`."""
    same: list[bool] = field(default_factory=list)
    """Per seed, on Virtuoso: the same nodes and edges as through `oxigraph serve`."""

    def ratio(self) -> float:
        return statistics.median(n / g for n, g in zip(self.per_node, self.gateway, strict=True))

    def every_node_ratio(self) -> float:
        return statistics.median(self.every_node) / statistics.median(self.gateway)


def medlit_graph() -> tuple[Path, dict[str, str]]:
    from gateway.importers.bundle import bundle_prefixes, find_medlit, import_bundle

    trig = CACHE / "medlit.trig"
    if not trig.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        import_bundle(find_medlit(), trig)
    return trig, bundle_prefixes(trig)


Answer = tuple[frozenset[str], frozenset[tuple[str, str, str]]]


def answer_key(result: Any) -> Answer:
    """A topology-only walk's node IDs and (subject, predicate, object) edges, for comparing endpoints."""

    def get(item: Any, name: str) -> str:
        return str(item[name] if isinstance(item, dict) else getattr(item, name))

    nodes = frozenset(get(n, "id") for n in result.nodes)
    edges = frozenset((get(e, "subject"), get(e, "predicate"), get(e, "object")) for e in result.edges)
    return nodes, edges


def seed_iri(gateway: Gateway, seed: str) -> str:
    iri = gateway.context.ids.resolve(seed, "seed").iri
    assert iri is not None, seed
    return iri


@dataclass
class Endpoint:
    """A running SPARQL server, how the gateway connects to it, and how to stop it."""

    name: str
    url: str
    stop: Callable[[], None]
    connect: dict[str, Any] = field(default_factory=dict)
    """Gateway.connect's profile and graphs."""
    graphs: list[str] | None = None
    """What the per-node client reads (None: the server's default graph)."""


def oxigraph_endpoint(path: Path) -> Endpoint:
    server = Server(path)
    return Endpoint(OXIGRAPH, server.url, server.stop)


def virtuoso_endpoint(path: Path, profile: str) -> Endpoint:
    """Virtuoso over `path` (TriG converted to the reification profile, or N-Triples as they are):
    its quads of the default graph go to `VirtuosoServer.DEFAULT_GRAPH`, the graphs read."""
    if profile == "reification":
        from gateway.profiles.reification import native_to_reification

        nquads = native_to_reification(path, format=ox.RdfFormat.TRIG)
        graphs = sorted({q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else VirtuosoServer.DEFAULT_GRAPH
                         for q in ox.parse(nquads.encode("utf-8"), format=ox.RdfFormat.N_QUADS)})
    else:
        nquads = path.read_text(encoding="utf-8")  # N-Triples: all in the default graph
        graphs = [VirtuosoServer.DEFAULT_GRAPH]
    server = VirtuosoServer(nquads, max_rows=1_000_000)
    return Endpoint(VIRTUOSO, server.url, server.stop, {"profile": profile, "graphs": graphs}, graphs)


def measure(delays: Sequence[int], reps: int, progress: Callable[[str], None] = print,
            virtuoso_delays: Sequence[int] = (25,), virtuoso_budgets: Sequence[str] = ("default",),
            skipped: list[str] | None = None, graphs: Sequence[str] = ("medlit", "1M plain")) -> list[Row]:
    """The rows of `graphs`; why Virtuoso was left out, if it was, goes to `skipped`."""
    rows: list[Row] = []
    cases: list[tuple[str, Path, dict[str, str], list[str], list[str], str]] = []
    within: dict[tuple[str, int], int] = {}
    if "medlit" in graphs:
        medlit, medlit_prefixes = medlit_graph()
        # medlit's walks fit the default budget: the maximum one walks the same.
        cases.append(("medlit", medlit, medlit_prefixes, list(MEDLIT_SEEDS), ["default"], "reification"))
    if "1M plain" in graphs:
        synth = data.GraphSpec("plain", False, 1_000_000)
        graph = data.load(synth)
        hub_numbers = data.pick_seeds(graph.degrees, 2)["hub"]
        hubs = [f"e:{n}" for n in hub_numbers]
        csr = Csr(data.edges(synth), str, str)
        # Nodes within h hops of each hub, unbudgeted: the walk that expands them all sends 2 requests each.
        within = {(f"e:{n}", h): len(csr.bfs(n, h, UNBOUNDED, UNBOUNDED)[0]) for n in hub_numbers for h in (1, 2)}
        cases.append(("1M plain", synth.path, SYNTH_PREFIXES, hubs, list(BUDGETS), "plain"))
    # (graph, seed, budget, hops) -> the answer through `oxigraph serve`, which Virtuoso's must equal.
    reference: dict[tuple[str, str, str, int], Answer] = {}
    for name, path, prefixes, seeds, budgets, virtuoso_profile in cases:
        starts: list[tuple[Callable[[], Endpoint], Sequence[int], list[str]]] = [
            (partial(oxigraph_endpoint, path), delays, budgets)]
        if virtuoso_delays and (on_virtuoso := [b for b in budgets if b in virtuoso_budgets]):
            starts.append((partial(virtuoso_endpoint, path, virtuoso_profile), virtuoso_delays, on_virtuoso))
        for start, endpoint_delays, endpoint_budgets in starts:
            started = time.perf_counter()
            try:
                endpoint = start()
            except (pytest.skip.Exception, pytest.fail.Exception) as missing:  # no Virtuoso here
                progress(f"  {name}: {VIRTUOSO} skipped: {missing}")
                if skipped is not None and str(missing) not in skipped:
                    skipped.append(str(missing))
                continue
            progress(f"  {name}: {endpoint.name} started and loaded in {time.perf_counter() - started:.0f} s")
            try:
                measure_endpoint(rows, reference, endpoint, name, prefixes, seeds, endpoint_budgets, endpoint_delays,
                                 reps, within, progress)
            finally:
                endpoint.stop()
            progress(f"  {name}: {endpoint.name} done in {time.perf_counter() - started:.0f} s")
    return rows


def measure_endpoint(
    rows: list[Row], reference: dict[tuple[str, str, str, int], Answer], endpoint: Endpoint, name: str,
    prefixes: dict[str, str], seeds: list[str], budgets: list[str], delays: Sequence[int], reps: int,
    within: dict[tuple[str, int], int], progress: Callable[[str], None],
) -> None:
    """The rows of one graph on one endpoint, at each delay: the answers through `oxigraph serve`
    go to `reference`, Virtuoso's are checked against them."""
    for delay in delays:
        proxy = DelayProxy(endpoint.url, delay / 1000)
        try:
            gateway = Gateway.connect(proxy.url, prefixes=prefixes, timeout=300, cache_ttl=0, **endpoint.connect)
            client = RemoteBackend(EndpointConfig(proxy.url, graphs=endpoint.graphs, timeout=300))
            log: list[str] = []
            gateway.backend.query_log = lambda text, count, log=log: log.append(text)  # type: ignore[attr-defined]
            for budget in budgets:
                max_nodes, max_edges = BUDGETS[budget]
                for hops in (2, 3):
                    row = Row(name, endpoint.name, f"{len(seeds)} seeds", budget, hops, delay)
                    for seed in seeds:
                        call: dict[str, Any] = {"seeds": [seed], "max_hops": hops, "topology_only": True,
                                                "max_nodes": max_nodes, "max_edges": max_edges}
                        answer = answer_key(gateway.bfs_query(**call))  # warm-up: what the profile keeps
                        if endpoint.name == OXIGRAPH:
                            reference.setdefault((name, seed, budget, hops), answer)
                        else:
                            row.same.append(reference.get((name, seed, budget, hops)) == answer)
                        iri = seed_iri(gateway, seed)
                        for rep in range(reps):
                            log.clear()
                            ways: list[tuple[str, Callable[[], object]]] = [
                                ("gateway", partial(gateway.bfs_query, **call)),
                                ("per_node", partial(per_node_walk, client, iri, hops, max_nodes, max_edges)),
                            ]
                            for way, run in ways[rep % 2:] + ways[: rep % 2]:
                                started = time.perf_counter()
                                out = run()
                                getattr(row, way).append(time.perf_counter() - started)
                                if way == "gateway":
                                    row.requests.append(len(log))
                                    row.cut.append(bool(out.truncated))  # type: ignore[attr-defined]
                                else:
                                    row.per_node_requests.append(out[2])  # type: ignore[index]
                                    row.per_node_nodes.append(out[0])  # type: ignore[index]
                    if name == "1M plain" and budget == "default" and delay == 25:
                        # Measured at 2 hops through `oxigraph serve` (40 s a seed); elsewhere the lower bound.
                        row.every_node_bound = hops > 2 or endpoint.name != OXIGRAPH
                        for seed in seeds:
                            requests = 2 * within[(seed, hops - 1)]
                            if not row.every_node_bound:
                                iri = seed_iri(gateway, seed)
                                started = time.perf_counter()
                                out = per_node_walk(client, iri, hops, UNBOUNDED, UNBOUNDED)
                                row.every_node.append(time.perf_counter() - started)
                                assert out[2] == requests, (out, requests)
                            else:
                                row.every_node.append(requests * delay / 1000 / IN_FLIGHT)
                            row.every_node_requests.append(requests)
                    rows.append(row)
                    same = f", same answers {sum(row.same)}/{len(row.same)}" if row.same else ""
                    progress(f"  {name} {endpoint.name} {budget} {hops} hops {delay} ms: gateway "
                             f"{statistics.median(row.gateway) * 1e3:.0f} ms "
                             f"({statistics.median(row.requests):.0f} requests), per node "
                             f"{statistics.median(row.per_node) * 1e3:.0f} ms "
                             f"({statistics.median(row.per_node_requests):.0f} requests, "
                             f"{statistics.median(row.per_node_nodes):.0f} nodes), {row.ratio():.1f}x{same}")
        finally:
            proxy.close()


def report(rows: Sequence[Row], reps: int, skipped: Sequence[str] = ()) -> str:
    from bench.report import record

    lines = [
        SECTION,
        "",
        ("`python -m bench.latency` (bench/latency.py): `oxigraph serve`, and Virtuoso 7 (medlit in the reification "
         "profile, the 1M graph plain, each in a named graph the gateway reads), behind a proxy holding each request "
         f"for the delay shown; the gateway (`Gateway.connect`) against a per-node BFS with {IN_FLIGHT} requests in "
         f"flight, interleaved, {reps} repetitions a seed, topology only. Times are medians in ms over the row's seeds; "
         "*per node / gateway* is the median of per-sample ratios. Requests are per walk (medians); an uncut walk "
         "should need at most hops + 1. *Same answers*: the seeds whose walk through Virtuoso returned the nodes and "
         "edges it returned through `oxigraph serve`."),
        "",
        ("| graph | endpoint | seeds | budget | hops | delay ms | cut | requests gw | requests per node | gateway ms | "
         "per node ms | per node / gateway | same answers | |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    first_delay: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row.graph, row.endpoint)
        first_delay[key] = min(first_delay.get(key, row.delay_ms), row.delay_ms)
    for row in rows:
        ratio = row.ratio()
        cut = sum(row.cut)
        uncut_requests = [r for r, c in zip(row.requests, row.cut, strict=True) if not c]
        # The oxigraph lines keep their words; Virtuoso's name it.
        graph = row.graph if row.endpoint == OXIGRAPH else f"{row.graph} on {row.endpoint}"
        verdict = "recorded"
        if row.delay_ms == 25:
            target = (f"{graph}, {row.budget} budget, {row.hops} hops, 25 ms a request: gateway ≥ {TARGET:.0f}× faster "
                      f"than one request per node ({IN_FLIGHT} in flight)")
            if row.every_node:
                # The budgeted client ends with the gateway after one round trip: the line is judged
                # against the client the target names, which expands every frontier node.
                verdict = record("bfs_query over a slow network", target + ", the same budget", f"{ratio:.1f}×", None)
                every = row.every_node_ratio()
                record("bfs_query over a slow network", target + ", expanding every frontier node",
                       f"{'≥ ' if row.every_node_bound else ''}{every:,.0f}×", every >= TARGET)
            else:
                verdict = record("bfs_query over a slow network", target, f"{ratio:.1f}×", ratio >= TARGET)
        if uncut_requests and row.delay_ms == first_delay[(row.graph, row.endpoint)]:
            record("bfs_query over a slow network", f"{graph}, {row.budget} budget, {row.hops} hops: requests per uncut "
                   f"walk ≤ hops + 1", f"at most {max(uncut_requests)}", max(uncut_requests) <= row.hops + 1)
        same = "(reference)"
        if row.same:
            same = f"{sum(row.same)}/{len(row.same)}" + ("" if all(row.same) else " **differ**")
        lines.append(
            f"| {row.graph} | {row.endpoint} | {row.seeds} | {row.budget} | {row.hops} | {row.delay_ms} | "
            f"{cut}/{len(row.cut)} | {statistics.median(row.requests):.0f} | {statistics.median(row.per_node_requests):.0f} | "
            f"{statistics.median(row.gateway) * 1e3:.0f} | {statistics.median(row.per_node) * 1e3:.0f} | {ratio:.1f}× | "
            f"{same} | {verdict} |"
        )
    if any(row.same for row in rows):
        record("bfs_query over a slow network", "Virtuoso answers every walk as `oxigraph serve` does (nodes and edges)",
               f"{sum(sum(r.same) for r in rows)}/{sum(len(r.same) for r in rows)} walks",
               all(all(r.same) for r in rows))
    for reason in skipped:
        lines += ["", f"Virtuoso was not measured: {reason}."]
    if any(row.endpoint == VIRTUOSO and row.graph == "medlit" for row in rows):
        lines += ["", ("On Virtuoso medlit's statements are statement nodes (`rdf:subject`, `rdf:object`), which the "
                       "per-node client, knowing no statement model, walks as nodes (natively a reifier points at a "
                       "triple term, which it does not follow): there it walks another graph, reaching the node budget "
                       "in fewer requests. The gateway's own walks are compared in *same answers*.")]
    one_round = sorted({f"{row.graph}, {row.budget} budget" for row in rows if max(row.per_node_requests) <= 2})
    if one_round:
        lines += ["", (f"Where the per-node walk sends 2 requests ({'; '.join(one_round)}), the seed's own neighbours fill "
                       "the node budget: it ends after one round trip, as the gateway's one request does, and no walk "
                       "answers in less than a round trip, so the ratio stays near 1× whatever either side costs.")]
    every_rows = [row for row in rows if row.every_node]
    if every_rows:
        lines += ["", ("A per-node client without budgets (as the simple BFS-QL engines walk: every frontier node of "
                       f"every hop expanded, {IN_FLIGHT} requests in flight) on the same walks at 25 ms: 2 hops measured "
                       "through `oxigraph serve`, the rest (≥) a lower bound, its requests (counted on the graph) times "
                       f"the delay over {IN_FLIGHT} in flight. It answers every node within the hops where the gateway "
                       "answers the budget's; it is the client the target names, so the line is judged against it, and "
                       "the budgeted one above, the harder figure, is kept as recorded."),
                  "",
                  ("| graph | endpoint | budget | hops | requests gw | requests, every node | gateway ms | every node ms | "
                   "every node / gateway | |"),
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for row in every_rows:
            bound = "≥ " if row.every_node_bound else ""
            met = row.every_node_ratio() >= TARGET
            lines.append(f"| {row.graph} | {row.endpoint} | {row.budget} | {row.hops} | {statistics.median(row.requests):.0f} | "
                         f"{statistics.median(row.every_node_requests):,.0f} | {statistics.median(row.gateway) * 1e3:.0f} | "
                         f"{bound}{statistics.median(row.every_node) * 1e3:,.0f} | {bound}{row.every_node_ratio():,.0f}× | "
                         f"{'met' if met else '**missed**'} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import output_arguments, publish

    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__.split("\n")[0])
    parser.add_argument("--delays", default="0,5,25", help="milliseconds the proxy holds each request")
    parser.add_argument("--virtuoso-delays", default="25",
                        help="the delays for Virtuoso: 0,25 adds the 0 ms rows (about a minute), an empty string leaves it out")
    parser.add_argument("--virtuoso-budgets", default="default",
                        help="the budgets for Virtuoso: default,max adds the 1M graph's maximum budget (about a minute)")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--graphs", default="medlit,1M plain",
                        help="the graphs measured: medlit alone re-reads its rows in a few minutes (print them with --no-write)")
    output_arguments(parser, HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    skipped: list[str] = []
    rows = measure([int(d) for d in args.delays.split(",")], args.reps,
                   virtuoso_delays=[int(d) for d in args.virtuoso_delays.split(",") if d.strip()],
                   virtuoso_budgets=args.virtuoso_budgets.split(","), skipped=skipped,
                   graphs=[g.strip() for g in args.graphs.split(",")])
    text = report(rows, args.reps, skipped)
    return publish(args, SECTION, text)


if __name__ == "__main__":
    raise SystemExit(main())
