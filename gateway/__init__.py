"""BFS-QL gateway: bounded graph traversal tools for LLM agents over RDF stores."""

from gateway.api import Gateway
from gateway.errors import (
    BackendError,
    EndpointTimeout,
    Forbidden,
    GatewayError,
    InvalidInput,
    MalformedInput,
    NotFound,
    NotInstalled,
    RateLimited,
    TooLarge,
    Truncated,
    Unavailable,
    UpstreamError,
)
from gateway.resources import package_version
from gateway.settings import Settings

__version__ = package_version()

__all__ = [
    "BackendError", "EndpointTimeout", "Forbidden", "Gateway", "GatewayError", "InvalidInput", "MalformedInput",
    "NotFound", "NotInstalled", "RateLimited", "Settings", "TooLarge", "Truncated", "Unavailable", "UpstreamError",
]
