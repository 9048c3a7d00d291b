"""Problem documents (RFC 9457): the one place where exceptions become HTTP statuses.

Every error the HTTP surface answers is `application/problem+json` with `type`, `title`,
`status`, `detail`, `code`, and `field` when one argument is to blame. `STATUS` maps the
core's exception tree; `Problem` is an HTTP-level refusal with no counterpart there.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as _field_default
from http import HTTPStatus
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from gateway import redaction
from gateway.arguments import MALFORMED, explain, ordered
from gateway.errors import (
    BackendError,
    EndpointTimeout,
    Forbidden,
    GatewayError,
    InvalidInput,
    MalformedInput,
    ModelError,
    NoModel,
    NotFound,
    RateLimited,
    StoreDamaged,
    TooLarge,
    Truncated,
    Unauthorized,
    Unavailable,
    UpstreamError,
)

logger = logging.getLogger("gateway.http")

PROBLEM_TYPE = "https://w3id.org/bfsql/problems/"
"""Each problem's `type` is this plus its `code`."""
PROBLEM_JSON = "application/problem+json"

STATUS: dict[type[GatewayError], int] = {
    MalformedInput: 400,
    InvalidInput: 422,  # it names a field, like a schema validation error
    NotFound: 404,
    Unauthorized: 401,
    Forbidden: 403,
    TooLarge: 413,
    NoModel: 501,
    ModelError: 502,
    RateLimited: 429,
    EndpointTimeout: 504,
    Unavailable: 503,
    UpstreamError: 502,
    Truncated: 502,
    BackendError: 503,
    GatewayError: 500,
}
_HTTP_CODES = {400: "malformed_request", 404: "not_found", 405: "method_not_allowed", 406: "not_acceptable",
               413: "too_large", 415: "unsupported_media_type"}


@dataclass(eq=False)
class Problem(Exception):
    """An HTTP-level refusal with no counterpart in the core's exception tree."""

    status: int
    code: str
    detail: str
    field: str | None = None
    headers: dict[str, str] = _field_default(default_factory=dict)
    extra: dict[str, Any] = _field_default(default_factory=dict)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": PROBLEM_TYPE + self.code,
            "title": self.code.replace("_", " ").capitalize(),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.field is not None:
            body["field"] = self.field
        return body | self.extra


def to_problem(error: BaseException, *, credentials_sent: bool = False) -> Problem:
    """Any exception as a problem. Never leaks internals: an unexpected error is a bare 500."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, GatewayError):
        status = next(STATUS[cls] for cls in type(error).__mro__ if cls in STATUS)
        headers: dict[str, str] = {}
        if isinstance(error, Unauthorized):
            headers["WWW-Authenticate"] = 'Bearer realm="bfsql"' + (', error="invalid_token"' if credentials_sent else "")
        if isinstance(error, (RateLimited, Unavailable)):
            default = 60 if isinstance(error, RateLimited) else 5
            headers["Retry-After"] = str(math.ceil(error.retry_after if error.retry_after is not None else default))
        # Messages name an endpoint without its credentials; redacting is the last line.
        return Problem(status, error.code, redaction.redact(error.message), error.field, headers)
    if isinstance(error, RequestValidationError):
        return validation_problem(error.errors(), strip_location=True)
    if isinstance(error, StarletteHTTPException):
        code = _HTTP_CODES.get(error.status_code, HTTPStatus(error.status_code).phrase.lower().replace(" ", "_"))
        headers = dict(error.headers or {})
        detail = str(error.detail)
        if error.status_code == 405 and headers.get("Allow"):  # say which method the route takes
            allowed = headers["Allow"]
            detail = f"this route takes {' or '.join(m.strip() for m in allowed.split(','))}" + (
                ", with the arguments as a JSON object in the body" if allowed.strip() == "POST" else "")
        return Problem(error.status_code, code, detail, headers=headers)
    return Problem(500, "internal_error", "the gateway failed unexpectedly; the error is in its log")


def problem_response(error: BaseException, *, credentials_sent: bool = False) -> Response:
    problem = to_problem(error, credentials_sent=credentials_sent)
    if isinstance(error, StoreDamaged):  # where and how to rebuild it: for the operator's eyes
        logger.error("%s", error.detail)
    if problem.status >= 500 and not isinstance(error, (Problem, GatewayError)):
        logger.error("unexpected error", exc_info=error)
    return Response(
        json.dumps(problem.body(), ensure_ascii=False), status_code=problem.status,
        headers=problem.headers, media_type=PROBLEM_JSON,
    )


def validation_problem(
    errors: Sequence[Mapping[str, Any]], *, model: type[BaseModel] | None = None, strip_location: bool = False
) -> Problem:
    """Pydantic errors as one problem: 400 when the body is not a JSON object, else 422 naming
    the field (each error told as `gateway.arguments.explain` tells it, given the model)."""
    errors = ordered(errors)
    first = errors[0]
    if first["type"] == "json_invalid":
        return Problem(400, "malformed_body", f"the body is not valid JSON: {first.get('ctx', {}).get('error', first['msg'])}")
    located = [_field(error["loc"], strip_location) for error in errors]
    if located[0] is None and first["type"] in ("model_type", "model_attributes_type", "dict_type"):
        return Problem(400, "malformed_body", "the body must be a JSON object of the tool's arguments")
    messages = [
        explain(model, error)[1] if model is not None else f"{name or 'body'}: {error['msg']}"
        for name, error in zip(located, errors)
    ]
    listed = [{"field": name, "message": message} for name, message in zip(located, messages)][:20]
    if first["type"] == MALFORMED:
        return Problem(400, "malformed_input", messages[0], located[0], extra={"errors": listed})
    return Problem(422, "invalid_input", messages[0], located[0], extra={"errors": listed})


def _field(location: Iterable[int | str], strip: bool) -> str | None:
    parts = [str(part) for part in location]
    if strip and parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or None


PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem document.",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "The problem's short name; `type` ends with it."},
        "field": {"type": "string", "description": "The argument to blame, as a dotted path (seeds.0)."},
        "errors": {
            "type": "array", "description": "Every validation error, when there were several.",
            "items": {"type": "object", "properties": {"field": {"type": ["string", "null"]}, "message": {"type": "string"}}},
        },
    },
}
PROBLEM_STATUSES = {
    400: "Malformed request (not JSON, not an object)", 401: "No valid bearer token",
    403: "Forbidden (a foreign Origin, or not for this reader)", 404: "Not found",
    405: "Method not allowed", 406: "Not acceptable", 408: "The request (headers or body) did not arrive in time",
    413: "Request or response too large",
    415: "Unsupported media type", 421: "Foreign Host header", 422: "An argument is invalid (see field)",
    429: "Rate limited (see Retry-After)", 500: "Unexpected failure", 501: "No language model is configured (answer)",
    502: "The store or the language model answered with an error",
    503: "The store is unavailable or busy", 504: "The store did not answer in time",
}


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        str(status): {"description": PROBLEM_STATUSES[status],
                      "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
        for status in sorted(set(statuses) | {400, 403, 408, 413, 421, 500})
    }
