"""What a remote endpoint is told who the gateway is: the credentials and their sources.

In this order, the first found:

1. `auth=` (any httpx2 auth: `httpx2.BasicAuth`, `httpx2.DigestAuth`, `BearerAuth`);
2. the endpoint URL's userinfo (`http://user:password@host/sparql`), taken out of the URL;
3. `headers=` (an API key's header, say), sent with either of the above too;
4. when none of those is given, the environment: `BFSQL_ENDPOINT_USER` with
   `BFSQL_ENDPOINT_PASSWORD`, or `BFSQL_ENDPOINT_TOKEN` (a bearer token); not for
   `auth=NO_CREDENTIALS`, which an endpoints file's entry without an auth table has (the
   environment's credentials are for a bare URL, not for every endpoint the file names).

A user name and password are sent as Basic authentication; an endpoint that answers with
a Digest challenge gets Digest from then on (`BasicOrDigestAuth`). Every secret is
registered with `gateway.redaction` as it is read, so that none reaches a message or a log.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import httpx2

from gateway import redaction
from gateway.errors import InvalidInput

USER, PASSWORD, TOKEN = "BFSQL_ENDPOINT_USER", "BFSQL_ENDPOINT_PASSWORD", "BFSQL_ENDPOINT_TOKEN"


class BearerAuth(httpx2.Auth):
    """`Authorization: Bearer TOKEN` on every request."""

    def __init__(self, token: str) -> None:
        redaction.register(token)
        self._header = f"Bearer {token}"

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        request.headers["Authorization"] = self._header
        yield request


class _NoCredentials(httpx2.Auth):
    """No credentials, on purpose: the environment's are not read either."""


NO_CREDENTIALS = _NoCredentials()


class BasicOrDigestAuth(httpx2.Auth):
    """A user name and password: Basic authentication, until the endpoint answers a 401 with
    a Digest challenge; that request is sent again with Digest, and every later one too (a
    server that asks for Digest is not sent the password as Basic again)."""

    def __init__(self, username: str, password: str) -> None:
        redaction.register_credentials(username, password)
        self._basic = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
        self._digest = httpx2.DigestAuth(username, password)
        self.uses_digest = False

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        if self.uses_digest:
            yield from self._digest.auth_flow(request)
            return
        request.headers["Authorization"] = self._basic
        response = yield request
        if response.status_code != 401:
            return
        if not _asks_digest(response):
            if response.headers.get_list("www-authenticate"):
                return  # a challenge of another kind: the credentials were refused
            # Virtuoso answers Basic with a bare 401 and challenges only a request carrying no
            # credentials: asked once so, for the challenge.
            del request.headers["Authorization"]
            response = yield request
            if response.status_code != 401 or not _asks_digest(response):
                return
        self.uses_digest = True
        # DigestAuth's own flow, handed the challenge already received: it answers it.
        digest = self._digest.auth_flow(request)
        next(digest)
        try:
            answered = digest.send(response)
        except StopIteration:
            return
        yield answered


def _asks_digest(response: httpx2.Response) -> bool:
    return any(value.strip().lower().startswith("digest") for value in response.headers.get_list("www-authenticate"))


@dataclass(frozen=True)
class Credentials:
    """An endpoint URL without its userinfo, and how the gateway identifies itself to it."""

    url: str
    auth: httpx2.Auth | None = None
    headers: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    """Where the credentials came from, for messages ("the endpoint URL", "BFSQL_ENDPOINT_TOKEN"); None: none."""


def credentials_for(
    url: str, *, auth: httpx2.Auth | None = None, headers: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Credentials:
    """The credentials for `url` (see the module's order), every secret among them registered
    (the userinfo is taken out of the URL even when `auth` is what is used)."""
    environ = os.environ if environ is None else environ
    redaction.register_url(url)
    headers = dict(headers or {})
    redaction.register(*headers.values())  # headers are given for credentials (API keys): all taken for secrets
    clean = redaction.public_url(url)
    if auth is NO_CREDENTIALS:
        auth, environ = None, {}
    if auth is not None:
        return Credentials(clean, auth, headers, "auth=")
    in_url = _from_url(url)
    if in_url is not None:
        return Credentials(clean, in_url, headers, "the endpoint URL")
    if headers:
        return Credentials(clean, None, headers, "headers=")
    return _from_environment(clean, environ)


def _from_url(url: str) -> httpx2.Auth | None:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return None
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    # A name and no password is a token (https://TOKEN@host/): sent as a bearer token.
    return BasicOrDigestAuth(user, password) if parts.password is not None else BearerAuth(user)


def _from_environment(clean: str, environ: Mapping[str, str]) -> Credentials:
    named, secret, token = environ.get(USER), environ.get(PASSWORD), environ.get(TOKEN)
    if token and (named or secret):
        raise InvalidInput(f"set {USER} and {PASSWORD}, or {TOKEN}, not both", field="endpoint")
    if token:
        return Credentials(clean, BearerAuth(token), {}, TOKEN)
    if bool(named) != bool(secret):
        raise InvalidInput(f"{USER} and {PASSWORD} go together: set both or neither", field="endpoint")
    if named and secret:
        return Credentials(clean, BasicOrDigestAuth(named, secret), {}, f"{USER} and {PASSWORD}")
    return Credentials(clean)
