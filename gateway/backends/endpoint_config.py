"""One remote SPARQL endpoint and how the gateway talks to it, as one value.

`RemoteBackend` takes an `EndpointConfig`; `Gateway.connect` and the command line build
one. Every field is a plain value with a default, so a file naming endpoints can map
onto it field by field; `auth` and `sleep` are the two a program gives (an httpx2 auth
flow, a clock for tests), and credentials otherwise come from the URL or the environment
(`gateway.backends.credentials`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import httpx2

from gateway.backends.resilience import BreakerPolicy, RetryPolicy

DEFAULT_MAX_BODY = 256 << 20
"""The largest answer read, in decoded bytes: 256 MiB."""


@dataclass(frozen=True)
class EndpointConfig:
    """Every setting of one endpoint. Checked when made: a bad value fails here, before any
    connection is opened."""

    url: str
    """The endpoint's URL (its userinfo, if any, is a credential: never shown)."""
    graphs: Sequence[str] | None = None
    """The dataset a query reads when the caller names none: those graphs as the default
    graph (their union) and as the named graphs. None leaves the endpoint's own default
    dataset (on Virtuoso, every graph including its system graphs; start `oxigraph serve`
    with `--union-default-graph` to match an embedded store)."""
    prefixes: Mapping[str, str] | None = None
    """Prefixes configured for the endpoint (none are read from its data)."""
    user_agent: str | None = None
    """The whole User-Agent, when given (it then counts as naming a contact); None: one naming
    the project, its version and the contact (`gateway.backends.etiquette`)."""
    contact: str | None = None
    """Who runs this gateway (a URL or an e-mail address), named in the User-Agent so that a
    public endpoint's operators can reach you rather than block you. None: `$BFSQL_CONTACT`,
    else the project's URL, and a warning at start on a public service (whose budget for a
    client naming nobody may be far lower: Wikimedia's)."""
    timeout: float = 60.0
    """Seconds a read may wait for the next bytes."""
    connect_timeout: float = 10.0
    deadline: float | None = None
    """Seconds for a whole answer (None: twice `timeout`): a server dripping bytes never
    trips the read timeout."""
    max_concurrency: int | None = None
    """Requests in flight at once (None: the public service's known limit, else 4); always 1 on
    Wikimedia's query services."""
    requests_per_minute: int | None = None
    """Requests sent per minute at most, counted over the last 60 s for every client of the
    endpoint's origin in the process (None: the public service's known limit, else none)."""
    query_seconds_per_minute: float | None = None
    """Seconds of query time used per minute at most, a query's time being the wall time from
    sending it to its answer read (None: the public service's known limit, else none)."""
    cache_ttl: float = 300.0
    """Seconds an answer is served from the result cache (0: no cache)."""
    cache_max_bytes: int = 64 << 20
    """The result cache's bound, in bytes of answers held."""
    retry: RetryPolicy | None = None
    breaker: BreakerPolicy | None = None
    result_format: str = "auto"
    """"auto" (TSV, JSON where the server's TSV is lossy), "tsv" or "json"."""
    max_rows: int | None = None
    """The endpoint's row cap when known (None: the public service's, if known); learned from
    `X-SPARQL-MaxRows` otherwise."""
    proxy: str | None = None
    auth: httpx2.Auth | None = None
    headers: Mapping[str, str] | None = None
    """Sent with every request (an API key's, say)."""
    max_body: int = DEFAULT_MAX_BODY
    """The largest answer read, counted in decoded bytes (a compressed answer counts as it inflates)."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    """How a wait before asking again (a 429's, a budget's) is waited out."""

    def __post_init__(self) -> None:
        if self.result_format not in ("auto", "tsv", "json"):
            raise ValueError(f"result_format must be auto, tsv or json, not {self.result_format!r}")
        if self.max_body < 1:
            raise ValueError(f"max_body must be at least 1 byte, not {self.max_body}")
        if self.cache_ttl < 0 or self.cache_max_bytes < 0:
            raise ValueError("cache_ttl and cache_max_bytes must not be negative")
        if self.requests_per_minute is not None and self.requests_per_minute < 1:
            raise ValueError(f"requests_per_minute must be at least 1, not {self.requests_per_minute}")
        if self.query_seconds_per_minute is not None and self.query_seconds_per_minute <= 0:
            raise ValueError(f"query_seconds_per_minute must be positive, not {self.query_seconds_per_minute}")
