"""The gateway's exceptions: one tree, mapped to HTTP and MCP in one place each.

    GatewayError
    ├── InvalidInput        bad argument from the caller (names the field)
    │   └── MalformedInput  an argument that cannot be what its field holds (a blank ID)
    ├── NotFound            a named thing is not in the graph (or not readable)
    ├── Unauthorized        no valid credentials
    ├── Forbidden           the reader may not do this
    ├── TooLarge            a request or a subgraph over a configured bound
    ├── ModelError          the language model `answer` uses failed, or answered what cannot be used
    │   └── NoModel         no language model is configured for `answer`
    ├── NotInstalled        an optional part is used without its extra (also an ImportError)
    └── BackendError        the store failed
        ├── EndpointTimeout the store did not answer in time
        ├── Unavailable     the store cannot take the query now (busy, or failing): retry later
        ├── RateLimited     the store asked us to slow down
        ├── UpstreamError   the store answered with an error
        ├── Truncated       the store cut an answer short
        └── StoreDamaged    the store's own files are damaged (said in full to its operator only)
"""

from __future__ import annotations


class GatewayError(Exception):
    """Base of every error the gateway raises on purpose."""

    code = "gateway_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, str]:
        body = {"error": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        return body


class InvalidInput(GatewayError):
    """The caller sent an argument the gateway cannot use."""

    code = "invalid_input"


class MalformedInput(InvalidInput):
    """An argument that cannot be what its field holds, such as a blank ID: malformed
    input (HTTP 400), not an ID the graph lacks (404) nor an out-of-range budget (clamped)."""

    code = "malformed_input"


class NotFound(GatewayError):
    """The thing named is not in the graph, or not readable by this reader."""

    code = "not_found"


class Unauthorized(GatewayError):
    """The request carries no valid credentials."""

    code = "unauthorized"


class Forbidden(GatewayError):
    """The reader may not do this."""

    code = "forbidden"


class TooLarge(GatewayError):
    """A request or the subgraph it asks for is over a configured bound."""

    code = "too_large"


class ModelError(GatewayError):
    """The language model `answer` uses failed, or answered what cannot be used (not the
    JSON asked for, or an answer that cites nothing). The whole answer fails with it."""

    code = "model_error"


class NoModel(ModelError):
    """No language model is configured for `answer` (the other tools never need one)."""

    code = "no_model"


class NotInstalled(GatewayError, ImportError):
    """An optional part of the gateway is used without the extra that provides it (such as
    `to_rdflib()` without `pip install "bfsql-gateway[rdflib]"`). An ImportError too, so
    code that guards an optional import catches it as one."""

    code = "not_installed"


class BackendError(GatewayError):
    """The store behind the gateway failed."""

    code = "backend_error"
    outage: bool = False
    """The store itself failed (not one query's answer): it counts toward a circuit breaker."""


class EndpointTimeout(BackendError):
    """The store did not answer in time. Never to be read as "not found"."""

    code = "endpoint_timeout"


class Unavailable(BackendError):
    """The store cannot take the query now: every slot is busy, or it keeps failing.
    `retry_after` says when asking again makes sense."""

    code = "unavailable"

    def __init__(self, message: str, *, retry_after: float | None = None, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after


class RateLimited(BackendError):
    """The store asked the gateway to slow down."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UpstreamError(BackendError):
    """The store answered with an error."""

    code = "upstream_error"


class Truncated(BackendError):
    """The store cut an answer short without saying so in the protocol."""

    code = "truncated"


class StoreDamaged(BackendError):
    """A query met damage in the store's own files. `message` is what a caller may read;
    `detail` names the server's files and the load that rebuilds them, for the operator
    alone (the CLI, whose user is the operator, and the server's log)."""

    code = "store_damaged"

    def __init__(self, message: str, *, detail: str) -> None:
        super().__init__(message)
        self.detail = detail
