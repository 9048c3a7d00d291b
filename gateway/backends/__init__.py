"""Stores the gateway reads: an embedded Oxigraph store, or a remote SPARQL endpoint."""

from gateway.backends.base import Backend, QueryLog
from gateway.backends.embedded import EmbeddedBackend
from gateway.backends.load_report import LoadReport

__all__ = ["Backend", "EmbeddedBackend", "LoadReport", "QueryLog"]
