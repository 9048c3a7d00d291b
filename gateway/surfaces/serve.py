"""`bfsql serve`: one process serving the HTTP tool API, `/mcp` and (over local data) `/sparql`.

It binds 127.0.0.1:8000 by default and answers only for the loopback host names (the
`Host` header is checked: DNS rebinding) on that port, plus the bound address and any
`--allow-host`. SIGINT and SIGTERM shut it down gracefully, with exit status 0.

With `--workers N` (N > 1) this process starts N worker processes and waits; each opens
the graph itself (an RDF file is loaded N times; a store directory is opened read-only N
times; an endpoints file, and the secrets it names, are read by each) and listens on its
own socket bound to the same port with SO_REUSEPORT, so the kernel spreads connections
over the workers evenly. (With one shared socket, as
uvicorn's own `--workers` has it, whichever worker wakes first takes a burst of
keep-alive connections: measured, all 16 of a benchmark's connections on one of two.)
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import multiprocessing
import os
import signal
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gateway import redaction
from gateway.api import Gateway
from gateway.auth import Readers
from gateway.backends.embedded import fits_in_memory, is_store_directory, read_prefix_file
from gateway.backends.endpoint_file import EndpointEntry, resolve_endpoint
from gateway.backends.rdf_files import syntax_named
from gateway.deployment_key import deployment_key
from gateway.errors import InvalidInput
from gateway.importers.bundle import is_bundle
from gateway.resources import demo_path
from gateway.settings import Settings
from gateway.surfaces.http import HttpConfig, create_app
from gateway.surfaces.middleware import LOOPBACK_HOSTS
from gateway.surfaces.problems import PROBLEM_JSON, Problem
from gateway.surfaces.sources import open_data
from gateway.surfaces.sparql_sandbox import SandboxLimits

WILDCARDS = ("0.0.0.0", "::", "")
logger = logging.getLogger("gateway.serve")


@dataclass(frozen=True)
class ServeConfig:
    source: str | None = None
    """An RDF file, a folder of them, a store or bundle directory; None serves the demo graph
    (or `endpoint`)."""
    more_sources: tuple[str, ...] = ()
    """RDF files or folders read into memory with `source` (`gateway.surfaces.sources`)."""
    rdf_format: str | None = None
    """The syntax of the files whose extension names none (`syntax_named`)."""
    endpoint: str | None = None
    """A remote SPARQL endpoint to serve instead of a local source: its URL, or its NAME in
    `endpoints_file`."""
    endpoints_file: str | None = None
    """An endpoints file (`gateway.backends.endpoint_file`): each worker reads it, and the
    secrets it names, itself; with no `endpoint`, its only endpoint is served."""
    profile: str | None = None
    """The statement model of the data or remote store (see `Gateway.connect`); None: the
    endpoints file's, else native."""
    prefixes: str | None = None
    """A file of prefixes to add to the data's own (JSON, or Turtle/SPARQL prefix lines)."""
    host: str = "127.0.0.1"
    port: int = 8000
    readers: str | None = None
    lenient: bool = False
    on_disk: bool = False
    """Serve a store directory from disk even when it fits in memory (see `build_app`)."""
    allow_origins: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    workers: int = 1
    # The app's bounds as the command line says them (`app_config` makes them the app's),
    # with the app's defaults.
    sparql_timeout: float = SandboxLimits.deadline
    sparql_workers: int = SandboxLimits.workers
    sparql_memory_mb: int = SandboxLimits.memory_bytes >> 20
    max_body_bytes: int = HttpConfig.max_body_bytes
    max_response_bytes: int = HttpConfig.max_response_bytes
    request_timeout: float = HttpConfig.request_timeout
    """Seconds a client has to send a request's headers, and again its body."""
    languages: tuple[str, ...] = Settings.languages
    """Label languages, most wanted first (`Settings.languages`)."""
    llm_url: str | None = None
    """The OpenAI-compatible model `answer` uses (`Settings.llm_url`; else BFSQL_LLM_URL)."""
    llm_model: str | None = None

    def sources(self) -> list[Path]:
        return [Path(s) for s in ([self.source] if self.source else []) + list(self.more_sources)]

    def allowed_hosts(self) -> list[str]:
        """The Host header values answered: loopback names and the bound address, on this port."""
        names = list(LOOPBACK_HOSTS)
        bound = f"[{self.host}]" if ":" in self.host else self.host
        if self.host not in WILDCARDS and bound not in names:
            names.append(bound)
        hosts = [f"{name}:{self.port}" for name in names]
        if self.port == 80:  # a client may leave the default port out of Host
            hosts += names
        return hosts + list(self.allow_hosts)

    def app_config(self) -> HttpConfig:
        """The HTTP app's configuration: these options, and MCP sessions kept by a lone process."""
        return HttpConfig(
            allowed_hosts=tuple(self.allowed_hosts()),
            allowed_origins=tuple(self.allow_origins),
            max_body_bytes=self.max_body_bytes,
            max_response_bytes=self.max_response_bytes,
            request_timeout=self.request_timeout,
            sparql=SandboxLimits(workers=self.sparql_workers, deadline=self.sparql_timeout,
                                 memory_bytes=self.sparql_memory_mb << 20),
            mcp_sessions=self.workers == 1,
        )


def build_app(config: ServeConfig, *, tell: bool = True) -> FastAPI:
    """The app serving `config`'s graph; `tell`: log what several files were read into (one
    worker of several says it for all)."""
    prefixes = read_prefix_file(Path(config.prefixes)) if config.prefixes else None
    settings = Settings(languages=config.languages, llm_url=config.llm_url, llm_model=config.llm_model)
    entry = endpoint_entry(config)
    if entry is not None:
        gateway = _connect(entry, config.profile, prefixes, settings)
    else:
        # A store directory is served from memory when every worker's copy fits in half the
        # free memory: walks are 2.3-2.6x faster than from disk (bench/RESULTS.md).
        sources = config.sources()
        source = sources[0] if sources else demo_path()
        in_memory = (not config.on_disk and is_store_directory(source) and not is_bundle(source)
                     and fits_in_memory(source, copies=config.workers))
        # RDF files, folders of them, a store directory or a JSON-lines bundle, as `bfsql query --data` takes them.
        say = (lambda line: logger.info("%s", line)) if tell else (lambda line: None)
        gateway = open_data(sources, lenient=config.lenient, rdf_format=config.rdf_format, say=say,
                            prefixes=prefixes, in_memory=in_memory, settings=settings, profile=config.profile)
        if in_memory:
            logger.info("%s: copied into memory (--on-disk keeps it on disk)", source)
    for warning in gateway.load_warnings():
        logger.warning("%s", warning)
    readers = Readers.open(Path(config.readers)) if config.readers else None
    return create_app(gateway, config.app_config(), readers=readers)


def _connect(entry: EndpointEntry, profile: str | None, prefixes: dict[str, str] | None, settings: Settings) -> Gateway:
    """The endpoint's gateway: `--prefixes` added to the file's, `--profile` over the file's."""
    endpoint = entry.config
    if prefixes:
        endpoint = replace(endpoint, prefixes={**(endpoint.prefixes or {}), **prefixes})
    return Gateway.connect(endpoint, profile=profile or entry.profile, settings=settings)


def configure_logging() -> None:
    """The log on stderr, every line of it through `gateway.redaction` (an endpoint's
    credentials never reach it, whichever logger a line comes from)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Its start and stop, said once per session manager: /mcp runs two (stateless, and one
    # keeping a handshake-era client's session), so each said twice. The start line names /mcp.
    logging.getLogger("mcp.server.streamable_http_manager").setLevel(logging.WARNING)
    redaction.guard_logging()


def endpoint_entry(config: ServeConfig) -> EndpointEntry | None:
    """The remote endpoint served, None for local data."""
    if not config.endpoint and not config.endpoints_file:
        return None
    return resolve_endpoint(config.endpoint, config.endpoints_file)


def start_line(config: ServeConfig, entry: EndpointEntry | None) -> str:
    """What is served, where: the endpoint without its userinfo, and the routes (no
    /sparql over an endpoint, which has its own)."""
    where = f"http://{'[' + config.host + ']' if ':' in config.host else config.host}:{config.port}"
    if entry is None:
        what = " ".join(map(str, config.sources())) or "the demo graph"
    else:
        url = redaction.public_url(entry.config.url)
        what = url if entry.name == url else f"{url} ({entry.name} in {config.endpoints_file})"
    workers = f" with {config.workers} workers" if config.workers > 1 else ""
    sparql = f", SPARQL: {where}/sparql" if entry is None else ""
    return f"serving {what}{workers} at {where} (explorer: {where}/, tools: {where}/v1/tools, MCP: {where}/mcp{sparql})"


MAX_HEADER_BYTES = 64 << 10
"""A request's line and headers, at most (a browser sends a few KiB)."""
MAX_HEADERS = 100


class BoundedHead(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a bound on a request's line and headers: at most
    `MAX_HEADER_BYTES` and `MAX_HEADERS` of them, counted as the bytes arrive, before the
    parser buffers them; past either the answer is 431 and the connection is closed
    (uvicorn has no bound, and keeps what it read)."""

    _header_bytes = 0
    _header_count = 0
    _in_headers = True
    _tail = b""

    def data_received(self, data: bytes) -> None:
        if self._in_headers:
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._header_bytes += len(data) if end < 0 else max(end + 4 - len(self._tail), 0)
            self._tail = seen[-3:]
            if self._header_bytes > MAX_HEADER_BYTES:
                self._refuse(f"the request's headers are over {MAX_HEADER_BYTES} bytes")
                return
        super().data_received(data)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        if self._header_count > MAX_HEADERS:
            self._refuse(f"the request has more than {MAX_HEADERS} headers")
            return
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_headers = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # The next request on this connection starts its own count.
        self._in_headers, self._header_bytes, self._header_count, self._tail = True, 0, 0, b""

    def _refuse(self, why: str) -> None:
        if not self.transport.is_closing():  # the problem document every other refusal is
            body = json.dumps(Problem(431, "headers_too_large", why).body()).encode()
            self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
                                 b"Content-Type: " + PROBLEM_JSON.encode() + b"\r\nContent-Length: "
                                 + str(len(body)).encode() + b"\r\n\r\n" + body)
            self.transport.close()


class TimedHead(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a deadline on a request's line and headers: `timeout`
    seconds from the connection or the previous answer (uvicorn waits forever, so a client
    sending a byte a minute would hold a connection for good); past it, 408 and the
    connection is closed."""

    timeout = 30.0
    """Set from `ServeConfig.request_timeout` for the whole process."""
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        self._arm()  # bytes after an answer start the next request: its headers are timed
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._header_timer = self.loop.call_later(self.timeout, self._expire)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expire(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            self.transport.close()


class GuardedHttp(TimedHead, BoundedHead):
    """The protocol `bfsql serve` runs: a request's line and headers arrive in time (`TimedHead`)
    and within bounds (`BoundedHead`) before the app sees the request; the body has its own
    bounds (`gateway.surfaces.middleware.BoundedBody`)."""


class _Server(uvicorn.Server):
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, so the process dies of
    the signal; a requested shutdown is a success here, so it only shuts down. `ready` is
    logged once it listens and the app has started (a line said before could be false)."""

    def __init__(self, config: uvicorn.Config, ready: str | None = None) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.ready:
            logger.info("%s", self.ready)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def serve(config: ServeConfig) -> int:
    """Serve until SIGINT or SIGTERM; 0 after a clean shutdown."""
    configure_logging()
    if config.endpoint:
        redaction.register_url(config.endpoint)  # before any line is logged, workers' start included
    if config.workers < 1:
        raise InvalidInput("--workers must be at least 1", field="workers")
    if config.source and (config.endpoint or config.endpoints_file):
        raise InvalidInput("serve a FILE|DIR or an --endpoint, not both", field="endpoint")
    entry = endpoint_entry(config)  # a bad endpoints file fails here, once, before any worker starts
    if config.host in WILDCARDS and not config.allow_hosts:
        logger.warning("listening on every interface, but answering only for loopback Host names; "
                       "add --allow-host NAME for the names clients use")
    options: dict[str, Any] = {"host": config.host, "port": config.port, "access_log": False, "log_config": None,
                               "timeout_graceful_shutdown": 5, "http": GuardedHttp}
    _check_sources(config)
    if config.workers > 1:
        _check_once(config)
        return _serve_workers(config, options, start_line(config, entry))
    GuardedHttp.timeout = config.request_timeout
    # Bound before the graph is read: a busy port is said at once, not after a long load.
    with listening(config, reuse_port=False) as listener:
        server = _Server(uvicorn.Config(build_app(config), **options), ready=start_line(config, entry))
        server.run(sockets=[listener])
    return 0 if server.started else 1


@contextlib.contextmanager
def listening(config: ServeConfig, *, reuse_port: bool) -> Iterator[socket.socket]:
    """A socket listening on the configured address (shared by workers with `reuse_port`),
    or `InvalidInput` saying why it cannot be, and what to do."""
    listener = socket.socket(_family(config.host), socket.SOCK_STREAM)
    with listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            listener.bind((config.host, config.port))
            listener.listen(2048)
        except OSError as error:
            raise InvalidInput(cannot_listen(config, error), field="port") from None
        yield listener


def cannot_listen(config: ServeConfig, error: OSError) -> str:
    where = f"cannot listen on {config.host}:{config.port}"
    if error.errno == errno.EADDRINUSE:
        return (f"{where}: the port is in use (another `bfsql serve`, or another server, listens there): stop "
                f"that one, or choose a free port with --port N")
    if error.errno == errno.EACCES:
        return f"{where}: ports below 1024 need privileges: choose --port 8000 or another above 1023"
    if error.errno == errno.EADDRNOTAVAIL or isinstance(error, socket.gaierror):
        return f"{where}: no interface of this machine has that address: --host 127.0.0.1 serves this machine only"
    return f"{where}: {error.strerror or error}"


def _check_sources(config: ServeConfig) -> None:
    """Fail on a missing file or a bad --rdf-format before the port is bound."""
    for source in config.sources():
        if not source.exists():
            raise InvalidInput(f"{source}: no such file, folder or store directory", field="source")
    if config.rdf_format:
        syntax_named(config.rdf_format)


def _check_once(config: ServeConfig) -> None:
    """Fail here, once, on a bad graph or readers file, not in every worker."""
    if config.readers:
        Readers.open(Path(config.readers))
    if config.prefixes:
        read_prefix_file(Path(config.prefixes))
    deployment_key()  # made once here, so every worker seals scan cursors alike


def _serve_workers(config: ServeConfig, options: dict[str, Any], ready: str) -> int:
    """Run `config.workers` worker processes until SIGINT or SIGTERM; 0 after a clean
    shutdown, 1 if a worker ended on its own (it could not bind, or failed to start). The
    first worker logs `ready` once it listens."""
    # SO_REUSEPORT would let the workers share the port with a server already on it: bind
    # once without it, so a busy port is refused as with one worker.
    with listening(config, reuse_port=False):
        pass
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, args=(asdict(config), options, ready if i == 0 else None))
               for i in range(config.workers)]
    for worker in workers:
        worker.start()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.is_set() and all(w.is_alive() for w in workers):
            stop.wait(0.2)
    finally:
        _stop(workers)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0 if stop.is_set() and _stopped_cleanly(workers) else 1


def _stopped_cleanly(workers: Sequence[multiprocessing.process.BaseProcess]) -> bool:
    # A worker may see the signal twice (from the terminal's process group, then from
    # here) and die of the second after its graceful shutdown: that is a clean stop too.
    return all(w.exitcode in (0, -signal.SIGTERM, -signal.SIGINT) for w in workers)


def _stop(workers: Sequence[multiprocessing.process.BaseProcess]) -> None:
    for worker in workers:
        if worker.is_alive() and worker.pid is not None:
            os.kill(worker.pid, signal.SIGTERM)
    for worker in workers:
        worker.join(30)


def _worker(fields: dict[str, Any], options: dict[str, Any], ready: str | None) -> None:
    configure_logging()
    config = ServeConfig(**fields)
    if config.endpoint:
        redaction.register_url(config.endpoint)
    GuardedHttp.timeout = config.request_timeout
    with listening(config, reuse_port=True) as listener:
        server = _Server(uvicorn.Config(build_app(config, tell=ready is not None), **options), ready=ready)
        server.run(sockets=[listener])
    raise SystemExit(0 if server.started else 1)


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
