"""`bfsql serve`: one process serving the HTTP tool API and `/sparql` (later `/mcp` too).

It binds 127.0.0.1:8000 by default and answers only for the loopback host names (the
`Host` header is checked: DNS rebinding) on that port, plus the bound address and any
`--allow-host`. SIGINT and SIGTERM shut it down gracefully, with exit status 0.

With `--workers N` (N > 1) uvicorn starts N processes, each importing `app_from_env`,
which reads this process's settings from the environment variable `BFSQL_SERVE`; each
worker opens the graph itself (an RDF file is loaded N times; a store directory is
opened read-only N times).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from gateway.api import Gateway
from gateway.auth import Readers
from gateway.errors import InvalidInput
from gateway.surfaces.http import LOOPBACK_HOSTS, create_app

ENV = "BFSQL_SERVE"
WILDCARDS = ("0.0.0.0", "::", "")
logger = logging.getLogger("gateway.serve")


@dataclass(frozen=True)
class ServeConfig:
    source: str | None = None
    """An RDF file or a store directory; None serves the demo graph (or `endpoint`)."""
    endpoint: str | None = None
    """A remote SPARQL endpoint to serve instead of a local source."""
    profile: str = "native"
    """The remote store's statement model (see `Gateway.connect`)."""
    host: str = "127.0.0.1"
    port: int = 8000
    readers: str | None = None
    lenient: bool = False
    allow_origins: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    workers: int = 1
    sparql_timeout: float = 30.0
    max_body_bytes: int = 1_000_000
    max_response_bytes: int = 20_000_000

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


def build_app(config: ServeConfig) -> FastAPI:
    from gateway.surfaces.cli import demo_path

    if config.endpoint:
        gateway = Gateway.connect(config.endpoint, profile=config.profile)
    else:
        gateway = Gateway.open(config.source or demo_path(), lenient=config.lenient)
    for warning in gateway.load_warnings():
        logger.warning("%s", warning)
    readers = Readers.open(Path(config.readers)) if config.readers else None
    return create_app(
        gateway,
        readers=readers,
        allowed_hosts=config.allowed_hosts(),
        allowed_origins=list(config.allow_origins) or None,
        max_body_bytes=config.max_body_bytes,
        max_response_bytes=config.max_response_bytes,
        sparql_timeout=config.sparql_timeout,
    )


def app_from_env() -> FastAPI:
    """The app of one worker process (`--workers N`): settings from `BFSQL_SERVE`."""
    configure_logging()
    return build_app(ServeConfig(**json.loads(os.environ[ENV])))


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


class _Server(uvicorn.Server):
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, so the process dies of
    the signal; a requested shutdown is a success here, so it only shuts down."""

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
    if config.workers < 1:
        raise InvalidInput("--workers must be at least 1", field="workers")
    if config.source and config.endpoint:
        raise InvalidInput("serve a FILE|DIR or an --endpoint, not both", field="endpoint")
    if config.host in WILDCARDS and not config.allow_hosts:
        logger.warning("listening on every interface, but answering only for loopback Host names; "
                       "add --allow-host NAME for the names clients use")
    where = f"http://{'[' + config.host + ']' if ':' in config.host else config.host}:{config.port}"
    options: dict[str, Any] = {"host": config.host, "port": config.port, "access_log": False, "log_config": None,
                               "timeout_graceful_shutdown": 5}
    if config.workers > 1:
        # Fail here, once, on a bad graph or readers file, not in every worker.
        if config.readers:
            Readers.open(Path(config.readers))
        if config.source and not Path(config.source).exists():
            raise InvalidInput(f"{config.source}: no such file or store directory", field="source")
        os.environ[ENV] = json.dumps(asdict(config))
        logger.info("serving %s with %d workers at %s", config.endpoint or config.source or "the demo graph", config.workers, where)
        uvicorn.run("gateway.surfaces.serve:app_from_env", factory=True, workers=config.workers, **options)
        return 0
    app = build_app(config)
    logger.info("serving %s at %s (tools: %s/v1/tools, SPARQL: %s/sparql)", config.endpoint or config.source or "the demo graph",
                where, where, where)
    server = _Server(uvicorn.Config(app, **options))
    server.run()
    return 0 if server.started else 1
