"""HTTP load on a real `bfsql serve`: requests/s and latency of 1-hop bfs_query under concurrent clients.

    PYTHONPATH=. python -m bench.http_load [--quick] [--seconds 30] [--clients 16]

Each scenario starts `python -m gateway.surfaces.cli serve FILE --port P [--workers N]`
(what `bfsql serve` runs) on a free 127.0.0.1 port, waits until every worker has finished
loading its graph (the log says "Application startup complete." once per worker) and
`GET /healthz` answers, and then runs a bounded load generator in this process: one
`httpx2.AsyncClient` (keep-alive, one connection per client), `--clients` coroutines, each
posting `{"seeds": [S], "max_hops": 1, "topology_only": true}` to `/v1/tools/bfs_query`
back to back for `--seconds`, rotating over a set of seeds. A short unrecorded warm-up
run comes first. An error is a non-200 answer or an exception (timeouts included).
The server is stopped with SIGTERM to its pid.

Scenarios (full mode): the demo graph (data/sherlock.trig, every sh:Person as a seed) with
1 worker; the 1M-triple plain graph of bench/data.py with 1 worker and with 2 workers
(median-degree seeds), and with 1 worker from top-0.1% hubs (a third of the time; a hub's
1-hop answer holds ~1,000 nodes / ~1,450 edges, so it is reported apart).

Per-request overhead of HTTP: the same calls made sequentially, interleaved per seed,
(a) in-process `Gateway.open(FILE).bfs_query(...)`, (b) the same plus
`model_dump_json(exclude_none=True)` (what the server sends), (c) one synchronous
`httpx2.Client` posting to the idle server. Medians, and (c) - (a).

CPU: the server's CPU seconds (its pid and worker children, from /proc), this process's
(the load generator), and the whole machine's busy time (/proc/stat) are read around each
load window, so a shared machine shows as "other" cores.

Writes the "## HTTP load" section of bench/RESULTS.md (--quick: bench/out/RESULTS-quick.md,
the 100k-triple graph and 5 s windows, unless --output says otherwise).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from bench import data
from bench.report import record, write_section
from gateway import Gateway
from support.processes import TICK, cpu_seconds, descendants
from support.synth import ENTITY

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## HTTP load"
DEMO = ROOT / "data" / "sherlock.trig"
PERSON = "https://example.org/schema/Person"
TOOL_PATH = "/v1/tools/bfs_query"

TARGET_RPS = 500.0
TARGET_P99_MS = 50.0
TARGET_SCALING = 1.6


# -- the server ---------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all cores), from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values[:8]) - idle) / TICK


class Server:
    """`bfsql serve [SOURCE] --port P --workers N [OPTIONS]`, its log in a temporary file."""

    def __init__(self, source: Path | None, workers: int, *options: str) -> None:
        self.source, self.workers = source, workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="bfsql-http-load-", suffix=".log")[1])
        self.command = [sys.executable, "-m", "gateway.surfaces.cli", "serve", *([str(source)] if source else []),
                        "--port", str(self.port), "--workers", str(workers), *options]
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.started = time.perf_counter()
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        self.ready_s = 0.0

    def wait_ready(self, timeout: float = 600.0) -> None:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited ({self.process.returncode}):\n{self.log_tail()}")
            if self.log.read_text(errors="replace").count("Application startup complete.") >= self.workers:
                try:
                    if httpx2.get(self.url + "/healthz", timeout=5).status_code == 200:
                        self.ready_s = time.perf_counter() - self.started
                        return
                except httpx2.TransportError:
                    pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"the server was not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def pids(self) -> list[int]:
        return [self.process.pid, *descendants(self.process.pid)]

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pids())

    def stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        code = self.process.returncode
        self.log.unlink(missing_ok=True)
        return code

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


# -- the load -----------------------------------------------------------------------------
def body(seed: str) -> bytes:
    return json.dumps({"seeds": [seed], "max_hops": 1, "topology_only": True}).encode()


@dataclass
class Load:
    name: str
    workers: int
    seeds: str
    seed_count: int
    clients: int
    raw: bool = False
    """The raw-socket control client instead of httpx2."""
    nodes: list[int] = field(default_factory=list)
    edges: list[int] = field(default_factory=list)
    answer_bytes: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    """Seconds, of every answered request (errors included)."""
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    machine_cpu: float = 0.0
    ready_s: float = 0.0
    connections: list[int] = field(default_factory=list)
    """Established connections per server process, midway through the window."""

    @property
    def rps(self) -> float:
        return self.ok / self.elapsed if self.elapsed else 0.0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return 1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def cores(self, seconds: float) -> float:
        return seconds / self.elapsed if self.elapsed else 0.0


class RawConnection:
    """A minimal keep-alive HTTP/1.1 client over asyncio streams: the control load generator,
    to tell the server's cost from httpx2's (the raw client costs next to nothing)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, payload: bytes) -> tuple[int, int]:
        """(status, body bytes); reconnects after a failure."""
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.streams
        try:
            writer.write(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (TOOL_PATH.encode(), self.port, len(payload), payload))
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            length = next(int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:"))
            await reader.readexactly(length)
            return status, length
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


def connections_per_process(pids: Sequence[int], port: int) -> list[int]:
    """Established connections to `port` held by each of `pids`, from /proc (most first)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    counts = []
    for pid in pids:
        try:
            links = [os.readlink(f) for f in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        held = sum(1 for link in links if link.startswith("socket:[") and link[8:-1] in inodes)
        if held:
            counts.append(held)
    return sorted(counts, reverse=True)


async def _run(server: Server, bodies: Sequence[bytes], clients: int, seconds: float, load: Load | None,
               raw: bool = False) -> None:
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    headers = {"content-type": "application/json"}
    async with httpx2.AsyncClient(base_url=server.url, limits=limits, timeout=httpx2.Timeout(30.0)) as client:
        deadline = time.perf_counter() + seconds

        async def one_client(number: int) -> float:
            connection = RawConnection(server.port) if raw else None
            i = number
            while time.perf_counter() < deadline:
                payload = bodies[i % len(bodies)]
                i += 1
                started = time.perf_counter()
                try:
                    if connection is not None:
                        status, _ = await asyncio.wait_for(connection.post(payload), 30.0)
                    else:
                        status = (await client.post(TOOL_PATH, content=payload, headers=headers)).status_code
                except Exception as error:  # noqa: BLE001 - every failure is an error to count
                    if load is not None:
                        load.errors[type(error).__name__] += 1
                    continue
                if load is not None:
                    load.latencies.append(time.perf_counter() - started)
                    if status == 200:
                        load.ok += 1
                    else:
                        load.errors[f"HTTP {status}"] += 1
            if connection is not None:
                connection.close()
            return time.perf_counter()

        async def count_connections() -> None:
            await asyncio.sleep(seconds / 2)
            if load is not None:
                load.connections = connections_per_process(server.pids(), server.port)

        started = time.perf_counter()
        counting = asyncio.ensure_future(count_connections())
        ends = await asyncio.gather(*(one_client(n) for n in range(clients)))
        await counting
        if load is not None:
            load.elapsed = max(ends) - started


def run_load(server: Server, load: Load, seeds: Sequence[str], seconds: float, warmup: float) -> Load:
    bodies = [body(seed) for seed in seeds]
    with httpx2.Client(base_url=server.url, timeout=60) as client:  # one call a seed: what it returns
        for payload in bodies:
            answer = client.post(TOOL_PATH, content=payload, headers={"content-type": "application/json"})
            answer.raise_for_status()
            parsed = answer.json()
            load.nodes.append(parsed["node_count"])
            load.edges.append(parsed["edge_count"])
            load.answer_bytes.append(len(answer.content))
    asyncio.run(_run(server, bodies, load.clients, warmup, None, load.raw))
    load.ready_s = server.ready_s
    pids = server.pids()
    server_before, machine_before = cpu_seconds(pids), machine_busy_seconds()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    client_before = usage.ru_utime + usage.ru_stime
    asyncio.run(_run(server, bodies, load.clients, seconds, load, load.raw))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    load.client_cpu = usage.ru_utime + usage.ru_stime - client_before
    load.server_cpu = cpu_seconds(pids) - server_before
    load.machine_cpu = machine_busy_seconds() - machine_before
    print(f"  {load.name}: {load.rps:.0f} req/s, p50 {load.percentile(0.5):.1f} ms, p99 {load.percentile(0.99):.1f} ms, "
          f"{load.error_count} errors; server {load.cores(load.server_cpu):.2f} cores, "
          f"client {load.cores(load.client_cpu):.2f}, machine {load.cores(load.machine_cpu):.2f}", flush=True)
    return load


# -- HTTP over the Python API -----------------------------------------------------------
@dataclass
class Overhead:
    name: str
    samples: int
    api_ms: float
    dump_ms: float
    http_ms: float

    @property
    def difference_ms(self) -> float:
        return self.http_ms - self.api_ms


def overhead(name: str, gateway: Gateway, server: Server, seeds: Sequence[str], rounds: int) -> Overhead:
    """Sequential calls, one at a time, (a) (b) (c) interleaved per seed in rotating order."""
    api, dump, http = [], [], []
    headers = {"content-type": "application/json"}
    with httpx2.Client(base_url=server.url, timeout=60) as client:

        def a(seed: str) -> None:
            gateway.bfs_query(seeds=[seed], max_hops=1, topology_only=True)

        def b(seed: str) -> None:
            gateway.bfs_query(seeds=[seed], max_hops=1, topology_only=True).model_dump_json(exclude_none=True)

        def c(seed: str) -> None:
            response = client.post(TOOL_PATH, content=body(seed), headers=headers)
            if response.status_code != 200:
                raise SystemExit(f"{name}: HTTP {response.status_code} for {seed}")
            response.content  # noqa: B018 - read in full

        for seed in seeds:  # warm both sides
            a(seed), c(seed)
        ways = [(a, api), (b, dump), (c, http)]
        for number in range(rounds):
            seed = seeds[number % len(seeds)]
            for offset in range(3):
                call, times = ways[(number + offset) % 3]
                started = time.perf_counter()
                call(seed)
                times.append(time.perf_counter() - started)
    result = Overhead(name, rounds, *(1000 * statistics.median(t) for t in (api, dump, http)))
    print(f"  overhead {name}: API {result.api_ms:.3f} ms, API+JSON {result.dump_ms:.3f} ms, "
          f"HTTP {result.http_ms:.3f} ms", flush=True)
    return result


# -- the report ---------------------------------------------------------------------------
def spread(values: Sequence[int]) -> str:
    low, mid, high = min(values), int(statistics.median(values)), max(values)
    return f"{mid:,}" if low == high else f"{mid:,} ({low:,}–{high:,})"


def load_table(loads: Sequence[Load]) -> list[str]:
    lines = [
        ("| scenario | workers | client | seeds | nodes / edges per answer | answer bytes | requests | req/s | p50 ms | p99 ms "
        "| errors | connections per worker | server cores | server CPU ms / request | client cores | other cores | ready s |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x in loads:
        errors = str(x.error_count) if not x.errors else f"{x.error_count} ({', '.join(f'{k}: {v}' for k, v in x.errors.items())})"
        other = max(0.0, x.machine_cpu - x.server_cpu - x.client_cpu)
        per_request = 1000 * x.server_cpu / x.ok if x.ok else float("nan")
        lines.append(
            f"| {x.name} | {x.workers} | {'raw socket' if x.raw else 'httpx2'} | {x.seed_count} {x.seeds} "
            f"| {spread(x.nodes)} / {spread(x.edges)} | {spread(x.answer_bytes)} | {len(x.latencies):,} | {x.rps:.0f} "
            f"| {x.percentile(0.5):.1f} | {x.percentile(0.99):.1f} | {errors} | {' + '.join(map(str, x.connections)) or '–'} "
            f"| {x.cores(x.server_cpu):.2f} | {per_request:.2f} | {x.cores(x.client_cpu):.2f} | {x.cores(other):.2f} | {x.ready_s:.1f} |"
        )
    return lines


def overhead_table(results: Sequence[Overhead]) -> list[str]:
    lines = [
        "| calls | samples | (a) Python API ms | (b) API + model_dump_json ms | (c) HTTP ms | (c) − (a) ms | (c) / (a) |",
        "|---|---|---|---|---|---|---|",
    ]
    for x in results:
        lines.append(f"| {x.name} | {x.samples} | {x.api_ms:.3f} | {x.dump_ms:.3f} | {x.http_ms:.3f} "
                     f"| {x.difference_ms:.3f} | {x.http_ms / x.api_ms:.1f}× |")
    return lines


def target_lines(one: Load, two: Load | None, controls: dict[int, Load], triples: int) -> list[str]:
    def verdict(ok: bool, target: str = "", measured: str = "") -> str:
        if target:
            return record("HTTP", target, measured, ok)
        return "met" if ok else "**missed**"

    def control(workers: int, what: str) -> str:
        raw = controls.get(workers)
        if raw is None:
            return ""
        figure = f"{raw.rps:.0f} req/s" if what == "rps" else f"{raw.percentile(0.99):.1f} ms"
        return f" (raw-socket client: {figure})"

    size = f"{triples:,} triples"
    p99 = one.percentile(0.99)
    lines = [
        "| target | measured (httpx2 load generator) | |",
        "|---|---|---|",
        (f"| ≥ {TARGET_RPS:.0f} requests/s, 1-hop bfs_query, {size}, 1 worker, {one.clients} clients "
        f"| {one.rps:.0f} req/s{control(1, 'rps')} | {verdict(one.rps >= TARGET_RPS)} |"),
        f"| p99 < {TARGET_P99_MS:.0f} ms, same | {p99:.1f} ms{control(1, 'p99')} | {verdict(p99 < TARGET_P99_MS)} |",
        f"| 0 errors, same | {one.error_count} | {verdict(one.error_count == 0)} |",
    ]
    if two is not None:
        scaling = two.rps / one.rps if one.rps else 0.0
        measured = f"httpx2 client: {two.rps:.0f} / {one.rps:.0f} req/s = {scaling:.2f}×"
        if 1 in controls and 2 in controls and controls[1].rps:
            # The raw-socket client leaves the machine's 2 cores to the server: the verdict's basis.
            scaling = controls[2].rps / controls[1].rps
            measured = (f"raw-socket client: {controls[2].rps:.0f} / {controls[1].rps:.0f} req/s = {scaling:.2f}×; "
                        + measured)
        target = f"2 workers ≥ {TARGET_SCALING}× the throughput of 1 (1-hop bfs_query, {size})"
        lines.append(f"| 2 workers ≥ {TARGET_SCALING}× the throughput of 1 | {measured} "
                     f"| {verdict(scaling >= TARGET_SCALING, target, measured)} |")
        lines.append(f"| 0 errors, 2 workers | {two.error_count} | {verdict(two.error_count == 0)} |")
    return lines


def report(args: argparse.Namespace, command: str, loads: list[Load], overheads: list[Overhead], load_start: str,
           wall: float, triples: int) -> str:
    from bench.report import machine

    label = args.graph_label
    by_name = {x.name: x for x in loads}
    one, two = by_name.get(f"{label} median"), by_name.get(f"{label} median, 2 workers")
    controls = {x.workers: x for x in loads if x.raw}
    lines = [
        SECTION,
        "",
        ("Made by `python -m bench.http_load` (bench/http_load.py): a real `bfsql serve` subprocess on 127.0.0.1, "
        "loaded by concurrent clients in this process; see the module docstring and bench/README.md."),
        "",
        "### Run",
        "",
        f"- command: `{command}`",
        *machine(),
        (f"- load average at the start {load_start}; the machine is shared with other processes (and the load generator "
        "runs on the same cores as the server), so *other cores* below is the machine's busy time during each window "
        "less the server's and the load generator's"),
        (f"- load: {args.clients} concurrent clients, keep-alive, loopback, {args.seconds:g} s a window "
        f"({args.seconds / 3:.3g} s for hubs) after {args.warmup:g} s of unrecorded warm-up; each request "
        "`{\"seeds\": [S], \"max_hops\": 1, \"topology_only\": true}`, S rotating over the seeds; default budget. "
        "*httpx2*: one `httpx2.AsyncClient` (the load generator); *raw socket*: a minimal HTTP/1.1 client on asyncio "
        "streams, a control that costs next to no CPU, to tell the server's limits from the generator's"),
        ("- server: `python -m gateway.surfaces.cli serve FILE --port P --workers N` (= `bfsql serve`), the file loaded "
        "into memory by each worker; *ready s* is from spawn to every worker up and /healthz answering"),
        f"- wall time of the whole run: {wall:.0f} s",
        "",
        "### Throughput and latency",
        "",
        *load_table(loads),
        "",
        ("*req/s* counts 200 answers over the window; p50/p99 are over every answered request; *errors* are non-200 answers "
        "and exceptions. *connections per worker*: the clients' established connections held by each server process "
        "midway through the window. *server cores* is the server's CPU seconds (all its processes) over the window, "
        "*server CPU ms / request* the same per 200 answer, *client cores* the load generator's (this process), *other "
        f"cores* everything else on the machine; the machine has {os.cpu_count()} cores in all."),
        "",
        "### HTTP over the Python API",
        "",
        ("Sequential calls, one at a time, interleaved per seed in rotating order against an idle server: (a) in-process "
        "`Gateway.open(FILE).bfs_query(seeds=[S], max_hops=1, topology_only=True)`; (b) the same plus "
        "`model_dump_json(exclude_none=True)`, what the server sends; (c) one `httpx2.Client` posting the call on one "
        "keep-alive connection and reading the whole answer (not decoding it). Medians."),
        "",
        *overhead_table(overheads),
        "",
    ]
    if one is not None:
        lines += [
            "### Targets",
            "",
            f"From the project's issue, on this {os.cpu_count()}-core machine, for median-degree seeds"
            + (" (full mode is the 1M-triple graph; this quick run has a smaller one)" if args.quick else "") + ":",
            "",
            *target_lines(one, two, controls, triples),
            "",
        ]
    return "\n".join(lines)


# -- the command --------------------------------------------------------------------------
def demo_people(gateway: Gateway) -> list[str]:
    store = gateway.backend.store  # type: ignore[attr-defined]
    rows = store.query(f"SELECT DISTINCT ?p WHERE {{ ?p a <{PERSON}> }} ORDER BY ?p", use_default_graph_as_union=True)
    return [_compact(gateway, row[0].value) for row in rows]  # type: ignore[union-attr,index]


def _compact(gateway: Gateway, iri: str) -> str:
    """`wiki:Irene_Adler`, as an agent would write a seed (the longest matching namespace)."""
    matches = [(len(ns), prefix) for prefix, ns in gateway.backend.prefixes.items() if prefix and iri.startswith(ns)]
    if not matches:
        return iri
    length, prefix = max(matches)
    return f"{prefix}:{iri[length:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_load", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 100k-triple graph, 5 s windows, a smoke run")
    parser.add_argument("--seconds", type=float, default=None, help="length of each load window (default 30; --quick 5)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--triples", type=int, default=None, help="size of the generated graph (default 1,000,000; --quick 100,000)")
    parser.add_argument("--seeds", type=int, default=None, help="median-degree seeds to rotate over (default 64; --quick 16)")
    parser.add_argument("--rounds", type=int, default=None, help="sequential samples a way for the overhead (default 600; --quick 60)")
    parser.add_argument("--no-control", action="store_true", help="skip the raw-socket control windows")
    parser.add_argument("--output", type=Path, default=None,
                        help="results file (default bench/RESULTS.md; --quick: bench/out/RESULTS-quick.md)")
    args = parser.parse_args(argv)
    quick = args.quick
    args.seconds = args.seconds or (5.0 if quick else 30.0)
    args.warmup = min(3.0, max(1.0, args.seconds / 10))
    triples = args.triples or (100_000 if quick else 1_000_000)
    seed_count = args.seeds or (16 if quick else 64)
    rounds = args.rounds or (60 if quick else 600)
    output = args.output or (ROOT / "bench" / "out" / "RESULTS-quick.md" if quick else ROOT / "bench" / "RESULTS.md")
    label = args.graph_label = f"{triples // 1000}k" if triples < 1_000_000 else f"{triples / 1e6:g}M"
    command = "PYTHONPATH=. python -m bench.http_load" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    load_start = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    started = time.perf_counter()
    loads: list[Load] = []
    overheads: list[Overhead] = []
    clients = args.clients

    # 1. the demo graph, 1 worker, every person
    print(f"demo graph ({DEMO.relative_to(ROOT)}), 1 worker", flush=True)
    server = Server(DEMO, 1)
    try:
        demo = Gateway.open(DEMO)
        people = demo_people(demo)
        server.wait_ready()
        loads.append(run_load(server, Load("demo", 1, "people", len(people), clients), people, args.seconds, args.warmup))
        overheads.append(overhead(f"demo, {len(people)} people, 1 worker", demo, server, people, rounds))
    finally:
        server.stop()
    del demo

    # 2. the generated graph, 1 worker: median seeds (httpx2, raw control), then hubs
    spec = data.GraphSpec("plain", False, triples)
    path, _ = data.ntriples(spec)
    degrees = data.degrees(spec)
    median = [f"{ENTITY}{n}" for n in data.pick_seeds(degrees, seed_count)["median"]]
    hubs = [f"{ENTITY}{n}" for n in data.pick_seeds(degrees, 5)["hub"]]
    print(f"{label} graph ({path.relative_to(ROOT)}), 1 worker", flush=True)
    server = Server(path, 1)
    try:
        gateway = Gateway.open(path)  # while the server loads its own copy
        server.wait_ready()
        loads.append(run_load(server, Load(f"{label} median", 1, "median-degree", len(median), clients),
                              median, args.seconds, args.warmup))
        if not args.no_control:
            loads.append(run_load(server, Load(f"{label} median, raw client", 1, "median-degree", len(median), clients, raw=True),
                                  median, args.seconds, args.warmup))
        loads.append(run_load(server, Load(f"{label} hub", 1, "top-0.1% hub", len(hubs), clients),
                              hubs, args.seconds / 3, args.warmup))
        overheads.append(overhead(f"{label}, {len(median)} median-degree seeds, 1 worker", gateway, server, median, rounds))
        overheads.append(overhead(f"{label}, {len(hubs)} hub seeds, 1 worker", gateway, server, hubs, max(10, rounds // 10)))
    finally:
        server.stop()

    # 3. the generated graph, 2 workers, median seeds
    print(f"{label} graph, 2 workers", flush=True)
    server = Server(path, 2)
    try:
        server.wait_ready()
        loads.append(run_load(server, Load(f"{label} median, 2 workers", 2, "median-degree", len(median), clients),
                              median, args.seconds, args.warmup))
        if not args.no_control:
            loads.append(run_load(server, Load(f"{label} median, 2 workers, raw client", 2, "median-degree", len(median),
                                               clients, raw=True), median, args.seconds, args.warmup))
        overheads.append(overhead(f"{label}, {len(median)} median-degree seeds, 2 workers", gateway, server, median,
                                  max(30, rounds // 5)))
    finally:
        server.stop()
    del gateway

    text = report(args, command, loads, overheads, load_start, time.perf_counter() - started, triples)
    print(text)
    output.parent.mkdir(parents=True, exist_ok=True)
    if not output.exists():
        output.write_text("# Benchmark results\n")
    write_section(output, SECTION, text)
    print(f"wrote the {SECTION[3:]!r} section of {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
