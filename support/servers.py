"""Real SPARQL servers for the remote-backend tests: `oxigraph serve`, Virtuoso (its
Digest-protected `/sparql-auth` too), and Debian's nginx in front of them (Basic
authentication, a bearer token, redirects, large files).

Each server runs from a temporary directory, bound to 127.0.0.1 on free ports, in its
own process group, and is stopped by that group's id (its temporary directory is
removed). A missing binary skips the tests that need it, with the reason, except under
CI (the environment variable CI is set), where .ci/run installs them, so it fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import httpx2
import pyoxigraph as ox
import pytest

HOST = "127.0.0.1"
START_TIMEOUT = 90.0


def require_binary(*names: str, package: str) -> str:
    """The path of the first of `names` found (beside this Python first: venv scripts)."""
    for name in names:
        beside = Path(sys.executable).parent / name
        found = str(beside) if beside.is_file() else shutil.which(name)
        if found:
            return found
    reason = f"{names[0]} is not installed (it comes with {package})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; .ci/run installs it, so under CI this is an error", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    """A server process in its own process group, with a temporary directory."""

    url: str

    def __init__(self, prefix: str) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix=prefix))
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.directory / "server.log"

    def _spawn(self, command: list[str]) -> None:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=self.directory, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )

    def _wait_until_answering(self, probe: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"{self.process.args[0]} exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx2.get(probe, timeout=2.0).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"no answer from {probe} in {START_TIMEOUT:.0f} s: {self.log.read_text(errors='replace')[-2000:]}")

    @contextmanager
    def _stopped_on_error(self) -> Iterator[None]:
        """A server that fails to start is not left running."""
        try:
            yield
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the process group (SIGTERM, then SIGKILL) and remove the directory."""
        if self.process is not None and self.process.poll() is None:
            group = os.getpgid(self.process.pid)
            os.killpg(group, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(group, signal.SIGKILL)
                self.process.wait(timeout=15)
        shutil.rmtree(self.directory, ignore_errors=True)


class OxigraphServer(Server):
    """`oxigraph serve` (PyPI package `oxigraph`) over files loaded with `oxigraph load`.

    The default graph is the union of all graphs, as in the embedded backend.
    """

    def __init__(self, files: Iterable[Path]) -> None:
        binary = require_binary("oxigraph", package="the PyPI package oxigraph")
        super().__init__("bfsql-oxigraph-")
        store = self.directory / "store"
        for path in files:
            subprocess.run([binary, "load", "--location", str(store), "--file", str(path)],
                           check=True, capture_output=True, timeout=300)
        port = free_port()
        self.url = f"http://{HOST}:{port}/query"
        with self._stopped_on_error():
            self._spawn([binary, "serve", "--location", str(store), "--bind", f"{HOST}:{port}", "--union-default-graph"])
            self._wait_until_answering(f"{self.url}?query=ASK%7B%7D")


VIRTUOSO_INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = {host}:{sql_port}
DisableUnixSocket = 1
DirsAllowed = ., {d}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
CheckpointInterval = 0
CaseMode = 2

[HTTPServer]
ServerPort = {host}:{http_port}
ServerRoot = {d}
ServerThreads = 10
Charset = UTF-8

[SPARQL]
ResultSetMaxRows = {max_rows}
MaxQueryExecutionTime = 60
MaxQueryCostEstimationTime = 400
"""


class VirtuosoServer(Server):
    """Virtuoso 7 (Debian `virtuoso-opensource`) with N-Quads loaded into their graphs.

    A fresh database is created in the temporary directory (DBA password "dba").
    Quads of the default graph go to `DEFAULT_GRAPH`: Virtuoso keeps no graph-less triples.
    """

    DEFAULT_GRAPH = "urn:bfsql:default-graph"

    def __init__(self, nquads: str, *, max_rows: int = 100_000) -> None:
        binary = require_binary("virtuoso-t", package="Debian's virtuoso-opensource")
        self.isql = require_binary("isql-vt", "isql", package="Debian's virtuoso-opensource")
        super().__init__("bfsql-virtuoso-")
        self.sql_port, self.http_port = free_port(), free_port()
        ini = self.directory / "virtuoso.ini"
        ini.write_text(VIRTUOSO_INI.format(
            d=self.directory, host=HOST, sql_port=self.sql_port, http_port=self.http_port, max_rows=max_rows,
        ))
        self.url = f"http://{HOST}:{self.http_port}/sparql"
        with self._stopped_on_error():
            self._spawn([binary, "+foreground", "+configfile", str(ini)])
            self._wait_until_answering(f"{self.url}?query=ASK%7B%7D")
            self.load(nquads)

    def load(self, nquads: str) -> None:
        """Load N-Quads, one N-Triples file per graph through `DB.DBA.TTLP_MT`."""
        statements = []
        for number, (graph, triples) in enumerate(sorted(_by_graph(nquads).items())):
            path = self.directory / f"graph{number}.nt"
            path.write_bytes(ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES))
            statements.append(f"DB.DBA.TTLP_MT(file_to_string_output('{path}'), '', '{graph}', 0);")
        self.sql(" ".join([*statements, "checkpoint;"]))

    @property
    def auth_url(self) -> str:
        """`/sparql-auth`: the same endpoint behind HTTP Digest authentication, for the users
        `add_sparql_user` makes (and dba)."""
        return f"{self.url}-auth"

    def add_sparql_user(self, name: str, password: str) -> None:
        """A SQL user who may query through `/sparql-auth` (the role SPARQL_SELECT), no more."""
        def quoted(text: str) -> str:
            return text.replace("'", "''")

        self.sql(f"DB.DBA.USER_CREATE('{quoted(name)}', '{quoted(password)}'); "
                 f'GRANT SPARQL_SELECT TO "{name.replace(chr(34), "")}";')

    def sql(self, text: str) -> str:
        result = subprocess.run(
            [self.isql, f"{HOST}:{self.sql_port}", "dba", "dba", f"exec={text}"],
            check=False, capture_output=True, text=True, timeout=300,
        )
        if result.returncode != 0 or "Error" in result.stdout + result.stderr:
            raise RuntimeError(f"isql failed: {result.stdout[-2000:]} {result.stderr[-2000:]}")
        return result.stdout


def _by_graph(nquads: str) -> dict[str, list[ox.Triple]]:
    graphs: dict[str, list[ox.Triple]] = {}
    for quad in ox.parse(nquads.encode("utf-8"), format=ox.RdfFormat.N_QUADS):
        name = quad.graph_name.value if isinstance(quad.graph_name, ox.NamedNode) else VirtuosoServer.DEFAULT_GRAPH
        graphs.setdefault(name, []).append(ox.Triple(quad.subject, quad.predicate, quad.object))
    return graphs


NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log notice;
events {{ worker_connections 64; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    default_type text/plain;
    server {{
        listen {host}:{port};
        location = /healthz {{ return 200 "ok"; }}
{locations}
    }}
}}
"""


def bearer_location(path: str, token: str, upstream: str, *, refusal: int = 401) -> str:
    """An nginx `location` passing requests that carry `Authorization: Bearer TOKEN` to
    `upstream`, and answering any other with `refusal` (401, or 403 as some servers do)."""
    return (f'        location = {path} {{ if ($http_authorization != "Bearer {token}") {{ return {refusal}; }} '
            f"proxy_pass {upstream}; }}\n")


class NginxServer(Server):
    """Debian's nginx (package `nginx`) with the `locations` given: `location` blocks of its
    configuration, in which `{d}` is the server's directory and `{port}` its port.

    `users` go to `{d}/htpasswd` (for `auth_basic_user_file {d}/htpasswd;`), their
    passwords in nginx's `{PLAIN}` form. Files the locations serve are written under
    `{d}/files` before the server starts (a file given as an int is a sparse file of that
    many zero bytes: gigabytes at no cost in disk).
    """

    def __init__(self, locations: str, *, users: dict[str, str] | None = None,
                 files: dict[str, bytes | int] | None = None) -> None:
        binary = require_binary("nginx", "/usr/sbin/nginx", package="Debian's nginx")  # sbin: off a user's PATH
        super().__init__("bfsql-nginx-")
        # The worker may run as another user than the tests: it must read what it serves.
        self.directory.chmod(0o755)
        (self.directory / "tmp").mkdir()
        (self.directory / "files").mkdir()
        for name, content in (files or {}).items():
            path = self.directory / "files" / name
            if isinstance(content, int):
                with open(path, "wb") as sparse:
                    sparse.truncate(content)
            else:
                path.write_bytes(content)
        (self.directory / "htpasswd").write_text(
            "".join(f"{user}:{{PLAIN}}{password}\n" for user, password in (users or {}).items()))
        self.port = free_port()
        self.base = f"http://{HOST}:{self.port}"
        self.url = f"{self.base}/sparql"
        conf = self.directory / "nginx.conf"
        conf.write_text(NGINX_CONF.format(d=self.directory, host=HOST, port=self.port,
                                          locations=locations.replace("{d}", str(self.directory))
                                          .replace("{port}", str(self.port))))
        with self._stopped_on_error():
            self._spawn([binary, "-p", str(self.directory), "-c", str(conf)])
            self._wait_until_answering(f"{self.base}/healthz")


HOP = "# One BFS hop"
"""How a walk's hop query begins (queries/native/hop.rq): what `FaultProxy` faults."""
STALL = 5.0
"""Seconds `FaultProxy` holds a stalled answer: well past a client's read timeout."""


class FaultProxy:
    """Forwards SPARQL requests to `upstream`; a hop query (its text starting `HOP`) that names
    `iri` gets `fault` instead: "504" (a server in front of the endpoint gave up), or "stall"
    (held `STALL` seconds, past a client's read timeout, then 504). `faults` counts them."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.iri, self.fault = upstream, "", "504"
        self.faults = 0
        self.released = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                query = parse_qs(body.decode("ascii")).get("query", [""])[0]
                if proxy.iri and query.startswith(HOP) and f"<{proxy.iri}>" in query:
                    proxy.faults += 1
                    if proxy.fault == "stall":
                        proxy.released.wait(STALL)
                    self._reply(504, b"upstream timed out", "text/plain")
                    return
                request = urllib.request.Request(proxy.upstream, data=body, method="POST", headers={
                    "Content-Type": self.headers.get("Content-Type", ""), "Accept": self.headers.get("Accept", "")})
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        self._reply(answer.status, answer.read(), answer.headers.get("Content-Type", ""))
                except urllib.error.HTTPError as error:
                    self._reply(error.code, error.read(), error.headers.get("Content-Type", ""))

            def _reply(self, status: int, body: bytes, kind: str) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up first (the stall): nobody reads this

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/query"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()
