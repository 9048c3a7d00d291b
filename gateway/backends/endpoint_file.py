"""An endpoints file: the remote SPARQL endpoints a team uses, by name, in TOML.

    [endpoints.team]
    url = "https://sparql.example.org/sparql"   # required; no user:password@ in it
    profile = "reification"                    # native (default) | reification | plain | wikidata | auto
    contact = "mailto:ops@example.org"         # named in the User-Agent
    graphs = ["https://example.org/graph/main"]
    timeout = 30
    requests_per_minute = 120

    [endpoints.team.prefixes]
    ex = "https://example.org/"

    [endpoints.team.auth]
    type = "basic"                             # basic | digest | bearer
    user = "alice"                             # or user_env = "VAR"
    password_env = "TEAM_SPARQL_PASSWORD"      # or password = "..." in the file

    [endpoints.team.headers]
    "X-API-Key" = { env = "TEAM_API_KEY" }     # or a literal string

Every key of an `[endpoints.NAME]` table but `auth` and `headers` is an `EndpointConfig`
field of the same name, with the same meaning and type: `graphs` (an array), `prefixes`
(a table), `user_agent`, `contact`, `timeout`, `connect_timeout`, `deadline`,
`max_concurrency`, `requests_per_minute`, `query_seconds_per_minute`, `cache_ttl`,
`cache_max_bytes`, `result_format`, `max_rows`, `proxy`, `max_body`. A NAME is letters,
digits, `_` and `-`.

`auth`: `basic` sends the user name and password as Basic authentication and switches to
Digest when the endpoint asks for it; `digest` sends Digest only; `bearer` takes `token`
or `token_env`. Each secret is written in the file or, better, named by the environment
variable holding it (`*_env`); a header is a string or `{ env = "VAR" }`. An entry with
no `auth` table sends no credentials but its headers: the environment's
`BFSQL_ENDPOINT_*` are for a bare `--endpoint URL` (`gateway.backends.credentials`), not
for every endpoint a shared file names.

The file is checked whole when read: an unknown key, a value of the wrong type, an
unset environment variable, a URL carrying credentials or a TOML syntax error is an
`InvalidInput` naming the file and the key (`endpoints.NAME.KEY`), never a value. Every
secret is registered with `gateway.redaction` as it is read; a secret written in a file
that others may read is warned about.

`resolve_endpoint` is how every command picks one: `--endpoint URL` is that URL, alone
(the file is not read); `--endpoint NAME` is the file's entry; no `--endpoint` is the
file's only entry.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints
from urllib.parse import urlsplit

import httpx2
from pydantic import ConfigDict, TypeAdapter, ValidationError

from gateway import redaction
from gateway.backends.credentials import NO_CREDENTIALS, BasicOrDigestAuth, BearerAuth
from gateway.backends.endpoint_config import EndpointConfig
from gateway.errors import InvalidInput

ENDPOINTS_VARIABLE = "BFSQL_ENDPOINTS"
"""The environment variable naming the endpoints file when `--endpoints` is not given."""
PROFILE_NAMES = ("native", "reification", "plain", "wikidata", "auto")
"""The statement models an entry may name (`gateway.profiles.PROFILES`, and auto-detection)."""
NOT_IN_FILE = ("auth", "headers", "sleep", "retry", "breaker")
"""EndpointConfig fields that are no plain value: auth and headers have tables of their own."""
MAX_FILE_BYTES = 1 << 20
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
"""An HTTP header name (RFC 9110's token)."""
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_RESERVED_HEADERS = frozenset({"host", "content-length", "content-type", "transfer-encoding", "connection", "user-agent"})
"""Headers the gateway sets itself: the User-Agent is `user_agent` and `contact`."""
_AUTH_KEYS = {"basic": ("user", "password"), "digest": ("user", "password"), "bearer": ("token",)}
_FIELDS: dict[str, TypeAdapter[Any]] = {}
logger = logging.getLogger("gateway.endpoints")


@dataclass(frozen=True)
class EndpointEntry:
    """One endpoint, as the file (or a bare URL) names it."""

    name: str
    """The entry's NAME; a bare URL's is the URL, without its userinfo."""
    config: EndpointConfig
    profile: str = "native"


def _field_types() -> dict[str, TypeAdapter[Any]]:
    """Each plain EndpointConfig field's checker, strict (a string is no number), made once."""
    if not _FIELDS:
        hints = get_type_hints(EndpointConfig)
        strict = ConfigDict(strict=True)
        for each in fields(EndpointConfig):
            if each.name not in NOT_IN_FILE:
                _FIELDS[each.name] = TypeAdapter(hints[each.name], config=strict)
    return _FIELDS


def read_endpoints(path: str | Path, environ: Mapping[str, str] | None = None) -> dict[str, EndpointEntry]:
    """Every endpoint `path` names, by NAME, in the file's order, with their secrets read
    from it and from `environ` (default `os.environ`)."""
    environ = os.environ if environ is None else environ
    where = str(path)
    tables = _read_toml(Path(path)).get("endpoints")
    if not isinstance(tables, dict) or not tables:
        raise InvalidInput(f"{where}: names no endpoint; add an [endpoints.NAME] table with its url", field="endpoints")
    entries: dict[str, EndpointEntry] = {}
    for name, table in tables.items():
        if not _NAME.fullmatch(name):
            raise InvalidInput(f"{where}: endpoints.{name[:64]!r}: a name is 1 to 64 letters, digits, '_' and '-'",
                               field="endpoints")
        if not isinstance(table, dict):
            raise InvalidInput(f"{where}: endpoints.{name} must be a table ([endpoints.{name}])", field=f"endpoints.{name}")
        entries[name] = _entry(name, table, _Place(where, f"endpoints.{name}"), environ)
    _warn_if_others_read(Path(path), tables)
    return entries


def _warn_if_others_read(path: Path, tables: dict[str, Any]) -> None:
    """A secret written in the file is only as safe as the file's permissions."""
    written = [name for name, table in tables.items()
               if any(key in table.get("auth", {}) for key in ("password", "token"))
               or any(isinstance(value, str) for value in table.get("headers", {}).values())]
    if written and path.stat().st_mode & 0o077:
        logger.warning("%s: holds secrets for %s and others may read it: chmod 600 it, or name each secret by "
                       "its environment variable (password_env, token_env, { env = ... })", path, ", ".join(written))


def _read_toml(path: Path) -> dict[str, Any]:
    where = str(path)
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise InvalidInput(f"{where}: no such endpoints file", field="endpoints") from None
    except OSError as error:
        raise InvalidInput(f"{where}: cannot read the endpoints file: {error.strerror}", field="endpoints") from None
    if len(raw) > MAX_FILE_BYTES:
        raise InvalidInput(f"{where}: an endpoints file is at most {MAX_FILE_BYTES} bytes", field="endpoints")
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput(f"{where}: not UTF-8 text", field="endpoints") from None
    except tomllib.TOMLDecodeError as error:  # its message names the line and column, never the text
        raise InvalidInput(f"{where}: not valid TOML: {error}", field="endpoints") from None
    unknown = sorted(set(document) - {"endpoints"})
    if unknown:
        raise InvalidInput(f"{where}: unknown key {unknown[0][:64]!r}; the file holds [endpoints.NAME] tables",
                           field="endpoints")
    return document


@dataclass(frozen=True)
class _Place:
    """Where in which file a value is, for messages."""

    file: str
    key: str

    def inner(self, key: str) -> _Place:
        return _Place(self.file, f"{self.key}.{key}")

    def error(self, why: str) -> InvalidInput:
        return InvalidInput(f"{self.file}: {self.key}: {why}", field=self.key)


def _entry(name: str, table: dict[str, Any], place: _Place, environ: Mapping[str, str]) -> EndpointEntry:
    values = _plain_values(table, place)
    headers = _headers(table["headers"], place.inner("headers"), environ) if "headers" in table else None
    auth = _auth(table["auth"], place.inner("auth"), environ) if "auth" in table else NO_CREDENTIALS
    if auth is not NO_CREDENTIALS and headers and any(header.lower() == "authorization" for header in headers):
        raise place.inner("headers").error("an Authorization header and an auth table together: give one")
    try:
        config = EndpointConfig(**values, auth=auth, headers=headers)
    except ValueError as error:
        raise place.error(str(error)) from None
    return EndpointEntry(name, config, _profile(table.get("profile", "native"), place.inner("profile")))


def _plain_values(table: dict[str, Any], place: _Place) -> dict[str, Any]:
    """The table's EndpointConfig fields, each checked against the field's type."""
    types = _field_types()
    unknown = [key for key in table if key not in types and key not in ("profile", "auth", "headers")]
    if unknown:
        raise place.inner(unknown[0][:64]).error(f"unknown key; the keys are profile, auth, headers, {', '.join(types)}")
    if "url" not in table:
        raise place.inner("url").error("required: the endpoint's SPARQL URL")
    values = {key: _checked(types[key], value, place.inner(key)) for key, value in table.items() if key in types}
    _check_url(values["url"], place.inner("url"))
    if values.get("proxy"):
        redaction.register_url(values["proxy"])  # a proxy's userinfo is its own credential
    return values


def _profile(profile: object, place: _Place) -> str:
    if not isinstance(profile, str) or profile not in PROFILE_NAMES:
        shown = repr(profile[:40]) if isinstance(profile, str) else "that"
        raise place.error(f"{shown} is no profile; profiles: {', '.join(PROFILE_NAMES)}")
    return profile


def _checked(checker: TypeAdapter[Any], value: object, place: _Place) -> Any:
    try:
        return checker.validate_python(value)
    except ValidationError as error:
        first = error.errors()[0]  # its message, not its input: the value may be a secret
        inner = "".join(f".{step}" for step in first["loc"])
        raise _Place(place.file, place.key + inner).error(first["msg"]) from None


def _check_url(url: str, place: _Place) -> None:
    redaction.register_url(url)
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise place.error("must be an http or https URL")
    if "@" in parts.netloc:
        raise place.error("holds credentials (user:password@): give them in the auth table, by environment variable")


def _auth(table: object, place: _Place, environ: Mapping[str, str]) -> httpx2.Auth:
    if not isinstance(table, dict):
        raise place.error("must be a table ([...auth])")
    kind = table.get("type")
    if kind not in _AUTH_KEYS:
        raise place.inner("type").error("required: basic, digest or bearer")
    secrets = _AUTH_KEYS[kind]
    allowed = {"type", *secrets, *(f"{key}_env" for key in secrets)}
    unknown = [key for key in table if key not in allowed]
    if unknown:
        raise place.inner(unknown[0][:64]).error(f"unknown key for {kind} auth; the keys are {', '.join(sorted(allowed))}")
    if kind == "bearer":
        return BearerAuth(_secret(table, "token", place, environ))
    user, password = _secret(table, "user", place, environ), _secret(table, "password", place, environ)
    redaction.register_credentials(user, password)
    return BasicOrDigestAuth(user, password) if kind == "basic" else httpx2.DigestAuth(user, password)


def _secret(table: dict[str, Any], key: str, place: _Place, environ: Mapping[str, str]) -> str:
    """`key` written in the table, or read from the environment variable `KEY_env` names."""
    literal, variable = table.get(key), table.get(f"{key}_env")
    if (literal is None) == (variable is None):
        raise place.inner(key).error(f"give {key} or {key}_env, one of them")
    if variable is not None:
        return _from_environment(variable, place.inner(f"{key}_env"), environ)
    if not isinstance(literal, str) or not literal:
        raise place.inner(key).error("must be a non-empty string")
    if key != "user":
        redaction.register(literal)
    return literal


def _from_environment(variable: object, place: _Place, environ: Mapping[str, str]) -> str:
    if not isinstance(variable, str) or not _VARIABLE.fullmatch(variable):
        raise place.error("must name an environment variable")
    value = environ.get(variable)
    if not value:
        raise place.error(f"the environment variable {variable} is not set")
    redaction.register(value)
    return value


def _headers(table: object, place: _Place, environ: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(table, dict):
        raise place.error("must be a table ([...headers])")
    return {name: _header(name, value, place.inner(name[:100]), environ) for name, value in table.items()}


def _header(name: str, value: object, place: _Place, environ: Mapping[str, str]) -> str:
    if not _TOKEN.fullmatch(name):
        raise place.error("is no HTTP header name")
    if name.lower() in _RESERVED_HEADERS:
        raise place.error("is set by the gateway (the User-Agent by user_agent and contact)")
    if isinstance(value, dict) and list(value) == ["env"]:
        value = _from_environment(value["env"], place.inner("env"), environ)
    elif not isinstance(value, str):
        raise place.error('must be a string or { env = "VAR" }')
    redaction.register(value)  # headers are given for credentials (API keys): all taken for secrets
    if not value or any(ch in value for ch in "\r\n\0"):
        raise place.error("must be a non-empty line")
    return value


def _is_url(text: str) -> bool:
    return "://" in text


def select_endpoint(entries: Mapping[str, EndpointEntry], name: str | None, where: str) -> EndpointEntry:
    """The entry called `name`, or the only one when `name` is None."""
    names = ", ".join(entries)
    if name is None:
        if len(entries) == 1:
            return next(iter(entries.values()))
        raise InvalidInput(f"{where} names {len(entries)} endpoints ({names}): choose one with --endpoint NAME",
                           field="endpoint")
    if name not in entries:
        raise InvalidInput(f"{where} names no endpoint {name[:64]!r}; it names: {names}", field="endpoint")
    return entries[name]


def endpoints_path(given: str | Path | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The endpoints file: `given`, else the one `BFSQL_ENDPOINTS` names, else None."""
    environ = os.environ if environ is None else environ
    return str(given) if given else environ.get(ENDPOINTS_VARIABLE) or None


def resolve_endpoint(
    endpoint: str | None, endpoints_file: str | Path | None, *, environ: Mapping[str, str] | None = None
) -> EndpointEntry:
    """The endpoint a command was given: `endpoint` a URL (used alone, credentials then from
    the URL or the environment), or a NAME in `endpoints_file`, or None for the file's only
    entry. The profile is the entry's (native for a URL): a command's own `--profile`
    overrides it."""
    if endpoint and _is_url(endpoint):
        redaction.register_url(endpoint)
        return EndpointEntry(redaction.public_url(endpoint), EndpointConfig(endpoint))
    if not endpoints_file:
        if endpoint:
            raise InvalidInput(f"--endpoint {endpoint[:64]!r} is no URL, so it names an endpoint in an endpoints "
                               f"file; give one with --endpoints FILE or {ENDPOINTS_VARIABLE}", field="endpoint")
        raise InvalidInput("no endpoint: give --endpoint URL|NAME or an --endpoints FILE", field="endpoint")
    return select_endpoint(read_endpoints(endpoints_file, environ), endpoint or None, str(endpoints_file))
