"""How the gateway behaves towards endpoints other people run: who it says it is, and the
limits it keeps to on public services without being asked.

- The User-Agent is `bfsql-gateway/VERSION (CONTACT) httpx2/VERSION`, the form
  Wikimedia's User-Agent policy asks of every client. CONTACT is `EndpointConfig.contact`,
  else `$BFSQL_CONTACT`, else the project's URL; `EndpointConfig.user_agent` replaces the
  whole header.
- `SERVICES` names public services and the limits their operators document (or, where
  they document none, a conservative default of the gateway's). An endpoint on one of
  them gets those limits for every setting its configuration leaves unset (None); a
  setting given is kept (an arrangement with the operators, say), except that Wikimedia's
  query services always get one request in flight.
- A gateway started against a public service with no contact (no `contact`, no
  `$BFSQL_CONTACT`, no `user_agent` of its own) logs a warning on `gateway.remote` and, on
  Wikimedia's services, keeps to the far lower budget of an unidentified client.

The budgets are enforced per endpoint origin, process-wide, in
`gateway.backends.resilience` (`EndpointShare`).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from urllib.parse import urlsplit

import httpx2

from gateway.backends.endpoint_config import EndpointConfig
from gateway.errors import InvalidInput

PROJECT_URL = "https://w3id.org/bfsql"
CONTACT_ENV = "BFSQL_CONTACT"
DEFAULT_CONCURRENCY = 4
"""Requests in flight at once when neither the configuration nor a known service says."""
_HEADER_TEXT = re.compile(r"[\x20-\x7e]{1,200}")
"""Printable ASCII: what a header value may carry (no line break to smuggle a header in)."""
logger = logging.getLogger("gateway.remote")


@dataclass(frozen=True)
class PublicService:
    """A public SPARQL service and the limits the gateway keeps to on it."""

    name: str
    domains: tuple[str, ...]
    """Hosts: each domain itself and every host under it."""
    policy: str
    """Where its operators document its limits (or what they document in place of limits)."""
    max_concurrency: int
    requests_per_minute: int | None = None
    unidentified_requests_per_minute: int | None = None
    """The budget of a client that names no contact (None: the same as `requests_per_minute`)."""
    query_seconds_per_minute: float | None = None
    max_rows: int | None = None
    """The service's row cap, so that an answer cut at it is told from a whole one."""
    fixed_concurrency: bool = False
    """`max_concurrency` whatever the configuration asks: the operators' policy."""

    def serves(self, host: str) -> bool:
        return any(host == domain or host.endswith("." + domain) for domain in self.domains)


WIKIMEDIA = PublicService(
    "Wikimedia's query services", ("wikidata.org", "wikimedia.org"),
    "https://www.mediawiki.org/wiki/Wikidata_Query_Service/User_Manual#Query_limits",
    # One request at a time: their operators' advice, and a client that trips the limits
    # gets banned for a day, for every user of the machine's address.
    max_concurrency=1, fixed_concurrency=True,
    requests_per_minute=200, unidentified_requests_per_minute=10, query_seconds_per_minute=60.0,
)
SERVICES: tuple[PublicService, ...] = (
    WIKIMEDIA,
    # No published limits: a university's research service, shared by everyone.
    PublicService("QLever", ("qlever.cs.uni-freiburg.de", "qlever.dev"),
                  "https://github.com/ad-freiburg/qlever/wiki/QLever-API-documentation",
                  max_concurrency=2, requests_per_minute=120),
    # Fair use: 50 connections and 100 requests a second per address, 10,000 rows an answer.
    PublicService("DBpedia", ("dbpedia.org",), "https://wiki.dbpedia.org/public-sparql-endpoint",
                  max_concurrency=DEFAULT_CONCURRENCY, max_rows=10_000),
    # No published limits: the SIB's endpoints (UniProt, Rhea) serve the life sciences at large.
    PublicService("SIB's life-science endpoints", ("sparql.uniprot.org", "sparql.rhea-db.org"),
                  "https://sparql.uniprot.org/", max_concurrency=2, requests_per_minute=60),
)


@dataclass(frozen=True)
class Limits:
    """What one endpoint gets, its configuration and the service it is on taken together."""

    max_concurrency: int
    requests_per_minute: int | None
    query_seconds_per_minute: float | None
    max_rows: int | None
    service: PublicService | None


def service_for(url: str) -> PublicService | None:
    """The public service `url` is on, if it is a known one."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return next((service for service in SERVICES if service.serves(host)), None)


def is_wikimedia(url: str) -> bool:
    """Whether `url` is a Wikimedia query service (one request in flight at a time)."""
    return service_for(url) is WIKIMEDIA


def contact_for(given: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """Who runs this gateway: the contact `given` (an endpoint's), else `$BFSQL_CONTACT`; None:
    nobody said."""
    environ = os.environ if environ is None else environ
    if given is not None:
        return _header_text(given, "contact")
    named = environ.get(CONTACT_ENV, "").strip()
    return _header_text(named, CONTACT_ENV) if named else None


def default_user_agent(contact: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """A User-Agent per Wikimedia's policy: tool/version (contact) library/version, the
    contact `contact`, else `$BFSQL_CONTACT`, else the project's URL."""
    contact = contact_for(contact, environ) or PROJECT_URL
    return f"bfsql-gateway/{_version('bfsql-gateway')} ({contact}) httpx2/{httpx2.__version__}"


def user_agent_for(config: EndpointConfig, environ: Mapping[str, str] | None = None) -> str:
    if config.user_agent is not None:
        return _header_text(config.user_agent, "user_agent")
    return default_user_agent(config.contact, environ)


def identified(config: EndpointConfig, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the endpoint's operators are told who to reach: a contact, or a User-Agent of
    the gateway's runner's own making."""
    return config.user_agent is not None or contact_for(config.contact, environ) is not None


def limits_for(config: EndpointConfig, environ: Mapping[str, str] | None = None) -> Limits:
    """The endpoint's limits: each one its configuration gives, else its service's, else none."""
    service = service_for(config.url)
    if service is None:
        return Limits(max(1, config.max_concurrency or DEFAULT_CONCURRENCY), config.requests_per_minute,
                      config.query_seconds_per_minute, config.max_rows, None)
    if service.fixed_concurrency or config.max_concurrency is None:
        concurrency = service.max_concurrency
    else:
        concurrency = max(1, config.max_concurrency)
    requests = config.requests_per_minute
    if requests is None:
        anonymous = service.unidentified_requests_per_minute
        requests = service.requests_per_minute if anonymous is None or identified(config, environ) else anonymous
    seconds = config.query_seconds_per_minute
    return Limits(concurrency, requests, service.query_seconds_per_minute if seconds is None else seconds,
                  service.max_rows if config.max_rows is None else config.max_rows, service)


def warn_if_unidentified(config: EndpointConfig, endpoint: str, environ: Mapping[str, str] | None = None) -> None:
    """A warning when a public service's operators would have nobody to reach."""
    service = service_for(config.url)
    if service is None or identified(config, environ):
        return
    budget = limits_for(config, environ).requests_per_minute
    logger.warning(
        "%s is a public service (%s) and this gateway names no contact: set %s (or the endpoint's contact) to a "
        "URL or an e-mail address its operators can reach you at, so that they can ask rather than block%s; "
        "their limits: %s", endpoint, service.name, CONTACT_ENV,
        f" (until then the gateway sends at most {budget} requests a minute)" if budget is not None else "",
        service.policy,
    )


def _header_text(value: str, field: str) -> str:
    if not _HEADER_TEXT.fullmatch(value):
        raise InvalidInput(f"{field} must be 1 to 200 printable ASCII characters (it goes into the User-Agent "
                           "header)", field=field)
    return value


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "0"
