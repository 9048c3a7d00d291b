"""Caller SPARQL runs in worker processes that can be stopped.

pyoxigraph cannot cancel a query, bound its memory, or be kept off the network by an
option; a process can. So `/sparql` hands each query to one of a few worker processes:

    server ── control socket ── zygote          forked once, when the endpoint is made
      │                           │ fork         (the data already loaded: shared, not copied)
      └──── a socket each ──── workers           one query at a time each

- **Deadline.** A query not answered within `SandboxLimits.deadline` (the wait for a free
  worker included) gets `EndpointTimeout`; its worker is killed and replaced at once, so
  a runaway query holds nothing after its deadline.
- **Memory.** A worker may add at most `memory_bytes` of address space to what it
  started with (RLIMIT_AS); a query that needs more fails inside it (`TooLarge`), and the
  worker is replaced. A worker whose private memory grew by `recycle_bytes` over the
  queries it ran is replaced after its answer, so memory is given back.
- **Network.** Each worker moves into a network namespace of its own (no interface but
  a loopback that is down), so even a SERVICE the text check missed reaches nothing.
  Where the kernel refuses namespaces, the server logs a warning once.
- **Queue.** A query waits at most `queue_wait` seconds for a free worker, then gets
  `Unavailable` with a Retry-After.
- **Crashes** (a stack overflow in the parser, say) take only the worker down: the query
  gets `UpstreamError`, the worker is replaced, the server goes on.

Results are created, serialized and dropped on one thread, the worker's only one.

The zygote is forked while the server is still single-threaded, so forking it is safe;
workers are forked from the zygote, which stays single-threaded. An in-memory store is
inherited by the fork; an on-disk store is opened read-only by each worker. Linux only.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import resource
import select
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread

from gateway.errors import EndpointTimeout, TooLarge, Unavailable, UpstreamError

logger = logging.getLogger("gateway.sparql")

Handler = Callable[[Any, dict[str, Any]], tuple[dict[str, Any], bytes]]
"""Runs in a worker: (store, request) -> (answer header, answer body)."""

_FRAME = struct.Struct(">II")
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000


@dataclass(frozen=True)
class SandboxLimits:
    workers: int = 2
    """Queries that run at once."""
    deadline: float = 30.0
    """Seconds from a query's arrival to its answer, the wait for a worker included."""
    queue_wait: float = 5.0
    """The longest wait for a free worker before `Unavailable`."""
    memory_bytes: int = 1 << 30
    """Address space a worker may add to what it started with."""
    recycle_bytes: int = 128 << 20
    """A worker whose private memory grew by this much is replaced after its answer."""


@dataclass
class _Worker:
    pid: int
    sock: socket.socket


class Sandbox:
    """A pool of worker processes running `handler` over the store `open_store()` gives."""

    def __init__(self, open_store: Callable[[], Any], handler: Handler, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self._open_store = open_store
        self._handler = handler
        self._control_lock = threading.Lock()
        self._closed = False
        self._warned = False
        self._free: asyncio.Queue[_Worker | None] | None = None
        self._control, self._zygote = self._start_zygote()
        self._spare = [self._fork() for _ in range(max(1, self.limits.workers))]
        self._threads = anyio.CapacityLimiter(max(1, self.limits.workers))

    # -- the server side ------------------------------------------------------------------
    async def run(self, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """Answer `request` in a worker, within the deadline."""
        started = time.monotonic()
        free = self._queue()
        try:
            worker = await asyncio.wait_for(free.get(), min(self.limits.queue_wait, self.limits.deadline))
        except TimeoutError:
            raise Unavailable(
                f"{self.limits.workers} SPARQL queries are running already; try again shortly",
                retry_after=max(1.0, self.limits.queue_wait),
            ) from None
        deadline = started + self.limits.deadline
        try:
            # Not cancellable: a client that goes away still waits for its worker to be
            # answered or replaced, so the slot is given back whole.
            outcome, worker = await anyio.to_thread.run_sync(self._exchange, worker, request, deadline, limiter=self._threads)
        finally:
            free.put_nowait(worker)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _queue(self) -> asyncio.Queue[_Worker | None]:
        if self._free is None:  # made in the server's event loop, on first use
            self._free = asyncio.Queue()
            for worker in self._spare:
                self._free.put_nowait(worker)
            self._spare = []
        return self._free

    def _exchange(
        self, worker: _Worker | None, request: dict[str, Any], deadline: float
    ) -> tuple[tuple[dict[str, Any], bytes] | BaseException, _Worker | None]:
        """(the answer or the error to raise, the worker to give back), in a thread.

        A slot whose worker could not be replaced holds None, and is filled on its next use.
        """
        try:
            if worker is None or _is_dead(worker):
                worker = self._replace(worker)
            return self._ask(worker, request, deadline)
        except UpstreamError as error:  # no worker could be started: the slot stays empty
            return error, None

    def _ask(
        self, worker: _Worker, request: dict[str, Any], deadline: float
    ) -> tuple[tuple[dict[str, Any], bytes] | BaseException, _Worker]:
        try:
            _send(worker.sock, request)
            header, body = _receive(worker.sock, deadline)
        except TimeoutError:
            os.kill(worker.pid, signal.SIGKILL)
            return EndpointTimeout(
                f"the query did not finish within {self.limits.deadline:g} s and was stopped; "
                "narrow it or add a LIMIT", field="query",
            ), self._replace(worker)
        except (EOFError, OSError):
            status = self._reap(worker)
            return self._crash(status), self._replace(worker, reaped=True)
        failure = header.pop("sandbox", None)
        if failure == "memory":
            return self._memory_error(), self._replace(worker)
        if failure is not None:
            return UpstreamError(f"the query failed: {header.get('message', failure)}"), self._replace(worker)
        if header.pop("retire", False):
            worker = self._replace(worker)
        return (header, body), worker

    def _crash(self, status: int | None) -> BaseException:
        if status == -signal.SIGABRT:  # Rust aborts when an allocation fails
            return self._memory_error()
        return UpstreamError(
            f"the query crashed its sandbox (exit status {status}); the server is unaffected. "
            "Simplify the query (less nesting, fewer operators)"
        )

    def _memory_error(self) -> TooLarge:
        mib = self.limits.memory_bytes >> 20
        return TooLarge(f"the query needed more than this server's {mib} MiB of memory and was stopped; "
                        "narrow it, add a LIMIT, or avoid ORDER BY over everything", field="query")

    def close(self) -> None:
        """Stop every worker and the zygote (it kills what it forked when its socket closes)."""
        with self._control_lock:
            if self._closed:
                return
            self._closed = True
            self._control.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._zygote, 0)

    # -- the zygote ---------------------------------------------------------------------------
    def _start_zygote(self) -> tuple[socket.socket, int]:
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the zygote
            status = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's shutdown ends it
                ours.close()
                os.closerange(3, theirs.fileno())
                os.closerange(theirs.fileno() + 1, _max_fd())
                self._serve_forks(theirs)
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        theirs.close()
        return ours, pid

    def _serve_forks(self, control: socket.socket) -> None:
        """The zygote's loop: `fork` makes a worker and sends back its socket, `reap PID`
        collects a dead one's exit status. A closed control socket kills every worker."""
        children: set[int] = set()
        lines = control.makefile("rb")
        for line in lines:
            command, _, argument = line.decode().strip().partition(" ")
            if command == "fork":
                server_end, worker_end = socket.socketpair()
                pid = os.fork()
                if pid == 0:
                    status = 0
                    try:
                        control.close()
                        server_end.close()
                        self._work(worker_end)
                    except BaseException:
                        status = 1
                    finally:
                        os._exit(status)
                worker_end.close()
                children.add(pid)
                socket.send_fds(control, [json.dumps({"pid": pid}).encode() + b"\n"], [server_end.fileno()])
                server_end.close()
            elif command == "reap":
                reaped = int(argument)
                exit_status = _wait(reaped) if reaped in children else None
                children.discard(reaped)
                control.sendall(json.dumps({"status": exit_status}).encode() + b"\n")
        for pid in children:
            _kill(pid)
        for pid in children:
            _wait(pid)

    def _fork(self) -> _Worker:
        with self._control_lock:
            if self._closed:
                raise Unavailable("the SPARQL endpoint is shutting down", retry_after=5)
            try:
                self._control.sendall(b"fork\n")
                message, fds, _, _ = socket.recv_fds(self._control, 4096, 1)
            except OSError as error:
                raise UpstreamError(f"the SPARQL sandbox is gone ({error}); restart the server") from None
            if not fds:
                raise UpstreamError("the SPARQL sandbox could not start a worker")
        worker = _Worker(int(json.loads(message)["pid"]), socket.socket(fileno=fds[0]))
        hello, _ = _receive(worker.sock, time.monotonic() + 120)
        if "error" in hello:
            raise UpstreamError(f"a SPARQL worker could not open the store: {hello['error']}")
        if not hello.get("isolated") and not self._warned:
            self._warned = True
            logger.warning("the SPARQL sandbox could not move its workers off the network (no network "
                           "namespaces here); SERVICE is still refused by the query check")
        return worker

    def _reap(self, worker: _Worker) -> int | None:
        with self._control_lock:
            if self._closed:
                return None
            reply = b""
            try:
                self._control.sendall(f"reap {worker.pid}\n".encode())
                while not reply.endswith(b"\n"):
                    chunk = self._control.recv(4096)
                    if not chunk:
                        return None
                    reply += chunk
            except OSError:
                return None
        status = json.loads(reply)["status"]
        return int(status) if status is not None else None

    def _replace(self, worker: _Worker | None, *, reaped: bool = False) -> _Worker:
        if worker is not None:
            _kill(worker.pid)
            worker.sock.close()
            if not reaped:
                self._reap(worker)
        return self._fork()

    # -- a worker -------------------------------------------------------------------------
    def _work(self, sock: socket.socket) -> None:
        """A worker's life: isolate, open the store, answer requests until the socket closes."""
        isolated = _isolate_network()
        try:
            store = self._open_store()
        except Exception as error:
            _send(sock, {"error": f"{type(error).__name__}: {error}"})
            return
        _limit_address_space(self.limits.memory_bytes)
        baseline = _private_bytes()
        _send(sock, {"isolated": isolated})
        while True:
            try:
                request, _ = _receive(sock, None)
            except (EOFError, OSError):
                return
            try:
                header, body = self._handler(store, request)
            except MemoryError:
                _send(sock, {"sandbox": "memory"})
                return
            except Exception as error:
                _send(sock, {"sandbox": "failed", "message": f"{type(error).__name__}: {error}"})
                return
            header["retire"] = _private_bytes() - baseline > self.limits.recycle_bytes
            _send(sock, header, body)
            if header["retire"]:
                return
            del header, body


# -- frames: a JSON header and a body, each length-prefixed -----------------------------------
def _send(sock: socket.socket, header: dict[str, Any], body: bytes = b"") -> None:
    data = json.dumps(header).encode()
    sock.sendall(_FRAME.pack(len(data), len(body)) + data + body)


def _receive(sock: socket.socket, deadline: float | None) -> tuple[dict[str, Any], bytes]:
    sizes = _read(sock, _FRAME.size, deadline)
    head, body = _FRAME.unpack(sizes)
    return json.loads(_read(sock, head, deadline)), _read(sock, body, deadline)


def _read(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
        count = sock.recv_into(view[done:])  # TimeoutError past the deadline
        if count == 0:
            raise EOFError
        done += count
    return bytes(buffer)


# -- process helpers ----------------------------------------------------------------------------
def _is_dead(worker: _Worker) -> bool:
    """An idle worker never writes: a readable socket means it is gone."""
    if worker.sock.fileno() < 0:
        return True
    readable, _, _ = select.select([worker.sock], [], [], 0)
    return bool(readable)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _wait(pid: int) -> int | None:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 65536


def _isolate_network() -> bool:
    """Move this (single-threaded) process into a network namespace of its own."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) == 0:
        return True
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
        return False
    # Keep this user's identity inside the new user namespace, so files stay readable.
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        try:
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        except OSError:
            pass
    return True


def _limit_address_space(extra: int) -> None:
    pages = int(Path("/proc/self/statm").read_text().split()[0])
    size = pages * os.sysconf("SC_PAGE_SIZE") + extra
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


def _private_bytes() -> int:
    """Memory this process holds for itself alone (not the pages shared with the zygote)."""
    try:
        with open("/proc/self/smaps_rollup") as handle:
            return sum(int(line.split()[1]) * 1024 for line in handle if line.startswith(("Private_Clean", "Private_Dirty")))
    except OSError:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
