"""Hostile requests against a real `bfsql serve`, with what an unrelated caller sees meanwhile.

    PYTHONPATH=. python -m bench.reliability [--quick]

The probes of the reliability reviews, each sent to a server on a free 127.0.0.1 port:
IDs of 100,000 words and 1 MB strings in every string field, 20 MiB of headers, JSON nested
1,000 deep, two Host headers,
SERVICE in every spelling (a loopback listener counts what reaches it), deep nesting and
operator chains, runaway cartesian queries, answers over the response cap, an unbounded
ORDER BY, slow headers (slowloris), a burst of heavy tool calls, and a stalled remote
store behind `serve --endpoint`. During each probe a bystander thread asks `/healthz` and
a 1-hop `bfs_query` back to back; its worst latency is the figure that matters: an attack
must not stall anyone else. Memory is the PSS of the whole process tree (server, SPARQL
zygote and workers; shared pages counted once), before and after each probe.

Data: the 1M-triple reified graph of bench/data.py, loaded with `bfsql load` into an
on-disk store (--quick: 100k triples). Writes the "## Reliability" section of
bench/RESULTS.md (--quick: bench/out/RESULTS-quick.md).
"""

from __future__ import annotations

import argparse
import http.server
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from bench import data
from bench.http_load import Server
from bench.report import record, write_section
from support.processes import tree_pss
from support.synth import ENTITY

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Reliability"
CARTESIAN = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
SORT = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1"


@dataclass
class Probe:
    name: str
    sent: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    worst_bystander_s: float = 0.0
    bystander_failures: int = 0
    pss_before: int = 0
    pss_after: int = 0
    seconds: float = 0.0
    note: str = ""


@contextmanager
def bystander(url: str, seed: str, probe: Probe) -> Iterator[None]:
    """Someone else using the server while a probe runs: health checks and small walks."""
    stop = threading.Event()

    def ask() -> None:
        with httpx2.Client(base_url=url, timeout=120) as client:
            while not stop.is_set():
                for call in (lambda: client.get("/healthz"),
                             lambda: client.post("/v1/tools/bfs_query", json={"seeds": [seed], "max_hops": 1,
                                                                              "topology_only": True})):
                    started = time.perf_counter()
                    try:
                        ok = call().status_code == 200
                    except httpx2.HTTPError:
                        ok = False
                    probe.worst_bystander_s = max(probe.worst_bystander_s, time.perf_counter() - started)
                    probe.bystander_failures += not ok
                stop.wait(0.05)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def run_probe(server: Server, seed: str, name: str, attack: Callable[[Probe], None]) -> Probe:
    probe = Probe(name)
    probe.pss_before = tree_pss(server.process.pid)
    started = time.perf_counter()
    with bystander(server.url, seed, probe):
        attack(probe)
    probe.seconds = time.perf_counter() - started
    time.sleep(0.5)
    probe.pss_after = tree_pss(server.process.pid)
    if server.process.poll() is not None:
        probe.note = f"the server died ({server.process.returncode})"
    return probe


def _send(probe: Probe, requests: list[Callable[[], httpx2.Response]], parallel: int = 1) -> None:
    def one(request: Callable[[], httpx2.Response]) -> str:
        try:
            return str(request().status_code)
        except httpx2.HTTPError as error:
            return type(error).__name__

    with ThreadPoolExecutor(parallel) as pool:
        for status in pool.map(one, requests):
            probe.sent += 1
            probe.statuses[status] += 1


class _Listener(http.server.ThreadingHTTPServer):
    hits = 0


def _listener() -> _Listener:
    class Record(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.server.hits += 1  # type: ignore[attr-defined]
            self.send_response(200)
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    server = _Listener(("127.0.0.1", 0), Record)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _stalled_store() -> http.server.ThreadingHTTPServer:
    """A SPARQL endpoint that takes every request and never answers."""

    class Stall(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            time.sleep(600)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stall)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def probes(server: Server, seed: str, quick: bool) -> list[Probe]:
    client = httpx2.Client(base_url=server.url, timeout=120)

    def sparql(query: str) -> Callable[[], httpx2.Response]:
        return lambda: client.post("/sparql", data={"query": query})

    listener = _listener()
    target = f"http://127.0.0.1:{listener.server_address[1]}/x"
    spellings = [f"SELECT * WHERE {{ {s} <{target}> {{ ?s ?p ?o }} }}" for s in
                 ("SERVICE", "SERVICESILENT", "servicesilent", "SeRvIcE", "\\u0053ERVICE", "?x ?y 1SERVICE")]
    spellings.append(f"PREFIX ex: <{target}/> SELECT * WHERE {{ SERVICEex:p {{ ?s ?p ?o }} }}")
    killers = ["SELECT * WHERE " + "{" * 2500 + " ?s ?p ?o " + "}" * 2500,
               "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * 5000 + "true" + ")" * 5000 + ") }",
               "SELECT * WHERE { ?s ?p ?o FILTER(" + " || ".join(["true"] * 20_000) + ") }",
               "SELECT * WHERE { " + " UNION ".join(["{ ?s ?p ?o }"] * 20_000) + " }"]
    heavy = [{"name": "describe_schema", "args": {}},
             {"name": "scan_query", "args": {"limit": 1000}},
             {"name": "intersect_subgraphs", "args": {"seeds": [seed, f"{ENTITY}1", f"{ENTITY}2"], "k": 4}},
             {"name": "communities", "args": {"seeds": [f"{ENTITY}1"], "max_hops": 3}}] * 2

    def slowloris(probe: Probe) -> None:
        sockets = []
        for _ in range(50):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())
            sockets.append(sock)
            probe.sent += 1
        time.sleep(12)  # past the request timeout (10 s here)
        for sock in sockets:
            sock.settimeout(1)
            try:
                answer = sock.recv(100)
                probe.statuses[answer.split(b" ")[1].decode() if answer else "closed"] += 1
            except OSError:
                probe.statuses["open"] += 1
            sock.close()

    words = "Cushing " * 100_000
    long_strings = [("describe_entity", {"id": words}), ("bfs_query", {"seeds": [words]}),
                    ("shortest_path", {"source": words, "target": seed}), ("search_entities", {"query": "x" * 900_000}),
                    ("answer", {"question": "why " * 200_000}), ("scan_query", {"cursor": "c" * 900_000}),
                    ("bfs_query", {"seeds": [seed], "predicates": [words]}), ("describe_entities", {"ids": [words]})]

    def huge_headers(probe: Probe) -> None:
        line = b"X-Padding: " + b"a" * (5 << 20) + b"\r\n"
        for _ in range(8):
            probe.statuses[_raw(server.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + line * 4 + b"\r\n")] += 1
            probe.sent += 1

    def nested(probe: Probe) -> None:
        body = b'{"seeds": ' + b"[" * 1000 + b"null" + b"]" * 1000 + b"}"
        _send(probe, [lambda: client.post("/v1/tools/bfs_query", content=body,
                                          headers={"Content-Type": "application/json"})] * 4
              + [lambda: client.post("/mcp", content=body, headers={"Content-Type": "application/json",
                                                                    "Accept": "application/json, text/event-stream"})] * 4)

    def two_hosts(probe: Probe) -> None:
        for path in ("/v1/tools", "/mcp", "/sparql?query=ASK%7B%7D", "/"):
            head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n".encode()
            probe.statuses[_raw(server.port, head)] += 1
            probe.sent += 1

    results = [
        run_probe(server, seed, "100,000-word IDs and 1 MB strings, 8 at once", lambda p: _send(
            p, [lambda c=c: client.post(f"/v1/tools/{c[0]}", json=c[1]) for c in long_strings], 8)),
        run_probe(server, seed, "20 MiB of headers, x8", huge_headers),
        run_probe(server, seed, "JSON nested 1,000 deep, x8", nested),
        run_probe(server, seed, "two Host headers, x4", two_hosts),
        run_probe(server, seed, "SERVICE, 7 spellings x GET/POST", lambda p: _send(
            p, [sparql(q) for q in spellings] + [lambda q=q: client.get("/sparql", params={"query": q}) for q in spellings])),
        run_probe(server, seed, "nesting 2,500-5,000 deep, chains of 20,000", lambda p: _send(p, [sparql(q) for q in killers])),
        run_probe(server, seed, "runaway cartesian COUNT, 2 at once, x3", lambda p: _send(p, [sparql(RUNAWAY)] * 6, 2)),
        run_probe(server, seed, "SELECT * over the response cap, x6", lambda p: _send(p, [sparql(CARTESIAN)] * 6)),
        run_probe(server, seed, "ORDER BY over a cartesian product, x2", lambda p: _send(p, [sparql(SORT)] * 2)),
        run_probe(server, seed, "50 slow-header connections", slowloris),
        run_probe(server, seed, "8 heavy tool calls at once", lambda p: _send(
            p, [lambda c=c: client.post(f"/v1/tools/{c['name']}", json=c["args"]) for c in heavy], 8)),
    ]
    for probe in results:
        if probe.name.startswith("SERVICE"):
            probe.note = f"listener hits: {listener.hits}"
    listener.shutdown()
    client.close()
    return results


def _raw(port: int, data: bytes) -> str:
    """The status of an answer to bytes sent as they are ("closed": cut off while sending)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(data)
            answer = sock.recv(100)
        except OSError:
            return "closed"
    return answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "closed"


def stalled_remote_probe(seed: str) -> Probe:
    store = _stalled_store()
    endpoint = f"http://127.0.0.1:{store.server_address[1]}/sparql"
    server = Server(None, 1, "--endpoint", endpoint)
    server.wait_ready()
    probe = Probe("stalled remote store, 8 calls at once (deadline 5 s)")
    try:
        with httpx2.Client(base_url=server.url, timeout=120) as client:
            started = time.perf_counter()
            _send(probe, [lambda: client.post("/v1/tools/bfs_query", json={"seeds": [seed]},
                                              headers={"BFSQL-Deadline": "5"})] * 8, 8)
            probe.seconds = time.perf_counter() - started
            probe.note = "no bystander: the store itself is what stalls"
    finally:
        server.stop()
        store.shutdown()
    return probe


def run(output: Path, quick: bool) -> None:
    spec = data.GraphSpec("reified", True, 100_000 if quick else 1_000_000)
    source, _ = data.ntriples(spec)
    store = data.CACHE / "scratch" / f"reliability-{spec.n_triples}"
    if not (store / "meta.json").is_file():
        subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "load", str(source), "--store", str(store)],
                       check=True, cwd=ROOT)
    seed = f"{ENTITY}100"
    server = Server(store, 1, "--request-timeout", "10")
    server.wait_ready()
    # Warm: the first walk reads the statements that are not asserted; that is not an attack's doing.
    httpx2.post(f"{server.url}/v1/tools/bfs_query", json={"seeds": [seed]}, timeout=600)
    try:
        results = probes(server, seed, quick)
    finally:
        server.stop()
    results.append(stalled_remote_probe(seed))
    write_section(output, SECTION, _report(results, spec))


def _report(results: list[Probe], spec: data.GraphSpec) -> str:
    lines = [
        SECTION, "",
        f"`bfsql serve` over the {spec.n_triples:,}-triple reified graph (an on-disk store made by `bfsql load`), "
        "defaults but `--request-timeout 10`. A bystander asks `/healthz` and a 1-hop `bfs_query` back to back "
        "during each probe; memory is the PSS of the process tree (server, SPARQL zygote and workers).", "",
        "| probe | requests | answers | probe time | worst bystander latency | bystander failures | PSS before -> after | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in results:
        answers = ", ".join(f"{status} x{n}" for status, n in sorted(p.statuses.items()))
        memory = f"{p.pss_before >> 20} -> {p.pss_after >> 20} MiB" if p.pss_before else "-"
        lines.append(f"| {p.name} | {p.sent} | {answers} | {p.seconds:.1f} s | {p.worst_bystander_s:.2f} s "
                     f"| {p.bystander_failures} | {memory} | {p.note} |")
    lines.append("")
    worst = max(p.worst_bystander_s for p in results[:-1])
    grown = max((p.pss_after - p.pss_before) >> 20 for p in results[:-1])
    failures = sum(p.bystander_failures for p in results)
    service = next(p for p in results if p.name.startswith("SERVICE"))
    bounded = results[:4]  # the round-3 probes: answered within 5 s, a 4xx or a cut connection
    quick = all(p.seconds < 5 and all(s == "closed" or s.startswith("4") for s in p.statuses) for p in bounded)
    five_hundreds = sum(n for p in results for s, n in p.statuses.items() if s == "500")
    lines += [
        f"- SERVICE: {record('reliability', 'SERVICE reaches nothing', service.note, service.note == 'listener hits: 0')}",
        f"- bounds before work: {record('reliability', 'oversized and nested requests refused within 5 s', f'{max(p.seconds for p in bounded):.1f} s at most', quick)}",
        f"- no 500, server alive: {record('reliability', 'no 500 under attack', f'{five_hundreds} x 500', five_hundreds == 0)}",
        f"- bystander: {record('reliability', 'a bystander is answered during every probe', f'{failures} failures, worst {worst:.2f} s', failures == 0)}",
        f"- memory: {record('reliability', 'memory given back after each probe (< 300 MiB kept)', f'{grown} MiB at most', grown < 300)}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reliability", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    here = Path(__file__).parent
    run(args.output or (here / "out" / "RESULTS-quick.md" if args.quick else here / "RESULTS.md"), args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
