"""The secrets in use, and text with them taken out.

A remote endpoint's credentials (the password of a URL's userinfo, a token, the values of
headers given for it) are registered here when they are read; `redact` takes every one
of them out of a text, and `RedactingFilter` out of every log line, so that a secret that
reaches a message by some path nobody foresaw still never reaches a caller or a log.
The first rule is still to show an endpoint without its userinfo (`public_url`): this is
the last line, not the only one.

>>> register("s3cret!")
>>> redact("GET http://alice:s3cret!@example.org/sparql failed")
'GET http://alice:***@example.org/sparql failed'
>>> public_url("http://alice:s3cret!@example.org:8080/sparql?x=1")
'http://example.org:8080/sparql?x=1'
"""

from __future__ import annotations

import base64
import logging
import re
import threading
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

MASK = "***"
_SECRET_PARAMETER = re.compile(r"key|token|secret|pass|auth|sig|session|credential", re.IGNORECASE)
"""Query parameters whose values are taken for credentials (`?api_key=...`)."""

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()
"""Longest first, so that a secret holding another is taken out whole."""


def register(*secrets: str | None) -> None:
    """Take these out of every text from now on (empty ones are no secret).

    Each is also registered percent-encoded, as it stands in a URL."""
    global _secrets
    found = {form for secret in secrets if secret for form in (secret, quote(secret, safe=""), quote(secret))}
    with _lock:
        _secrets = tuple(sorted(set(_secrets) | found, key=len, reverse=True))


def register_credentials(username: str, password: str) -> None:
    """A user name and password: the password, and both as Basic authentication writes them."""
    pair = f"{username}:{password}"
    register(password, pair, base64.b64encode(pair.encode("utf-8")).decode("ascii") if password else None)


def register_url(url: str) -> None:
    """The secrets a URL carries: its userinfo's password (or its user name when it has no
    password: then the name is the token), and the values of credential-like query
    parameters."""
    parts = urlsplit(url)
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if colon and password:
            register(userinfo, password, unquote(password))
            register_credentials(unquote(user), unquote(password))
        else:
            register(userinfo, unquote(user))
    register(*(value for name, value in parse_qsl(parts.query) if _SECRET_PARAMETER.search(name)))


def public_url(url: str) -> str:
    """`url` without its userinfo: the form in which an endpoint is ever shown."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host)) if host != parts.netloc else url


def redact(text: str) -> str:
    """`text` with every registered secret replaced by `MASK`."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class RedactingFilter(logging.Filter):
    """Takes the registered secrets out of each record a handler writes: its message, its
    traceback and its stack (formatted here, so the handler's formatter uses this text)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        try:
            message = record.getMessage()
            malformed = False
        except Exception:  # a malformed call: its parts as they are (the handler would print them raw)
            message, malformed = f"{record.msg} {record.args!r}", True
        cleaned = redact(message)
        if cleaned != message or malformed:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_FILTER = RedactingFilter()


def guard_logging() -> None:
    """Put the filter on every handler of the root logger (a filter on a logger would miss
    the records its children pass up) and on the handler of last resort."""
    handlers = [*logging.getLogger().handlers, logging.lastResort]
    for handler in handlers:
        if handler is not None and _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
