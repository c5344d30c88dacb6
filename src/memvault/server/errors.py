"""From the error tree to HTTP: one table of status codes and the JSON error body.

Every error response is ``{"error": {"code", "message"}}``. Messages never carry a
filesystem path: ``public_message`` cuts each absolute path down to its last name
(``keys.json``), and the full message of a server-side failure is logged instead.
The gateway's own refusals (``AuthError`` 401: no key, or a wrong or revoked one;
``ForbiddenError`` 403: a user key on an admin-only route; ``PayloadTooLargeError`` 413:
the body is over the size limit) are defined in ``memvault.errors``, so the HTTP client
raises the same classes; they are re-exported here.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    AuthError,
    AuthorizationError,
    ConfigError,
    ConflictError,
    EmbeddingError,
    ForbiddenError,
    LLMBudgetError,
    LLMError,
    LLMUnavailableError,
    MemvaultError,
    NotFoundError,
    PayloadTooLargeError,
    StoreError,
    UnsupportedOperationError,
    UpstreamError,
    ValidationError,
)
from .schemas import ErrorResponse

logger = logging.getLogger("memvault.server")

# An absolute path of two or more parts (POSIX, ~/, or C:\): not inside a URL or a
# word, up to a quote, space or bracket, without trailing punctuation. One part alone
# ("/v1") is left: it is a route, and names no file; so is a path under /v1/ or /v2/
# (the API's own routes, which messages name to say what to send).
_PATH = re.compile(
    r"""(?<![\w:/.~-])(?:[A-Za-z]:\\|~?/(?!v\d+/))[^\s'"()<>,;/\\]+[/\\][^\s'"()<>,;]*[^\s'"()<>,;.:]"""
)


# Most specific first: the first matching class decides.
STATUS: list[tuple[type[MemvaultError], int]] = [
    (AuthError, 401),
    (ForbiddenError, 403),
    (AuthorizationError, 403),
    (PayloadTooLargeError, 413),
    (ValidationError, 422),
    (NotFoundError, 404),
    (ConflictError, 409),
    (UnsupportedOperationError, 501),  # the configured external provider cannot do this
    (LLMUnavailableError, 503),
    (LLMBudgetError, 429),  # the daily token budget: try again tomorrow (or raise it)
    (LLMError, 502),
    (StoreError, 503),
    (EmbeddingError, 503),
    (ConfigError, 503),
    (UpstreamError, 502),  # any other external provider (LLM, embeddings, memory service)
]

COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "missing, wrong or revoked API key"},
    404: {"model": ErrorResponse, "description": "no such thing for this user"},
    413: {"model": ErrorResponse, "description": "request body over the size limit"},
    422: {"model": ErrorResponse, "description": "invalid input; nothing was changed"},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "no such thing for this user"},
}
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorResponse, "description": "clashes with what is stored"},
}
FORBIDDEN: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorResponse, "description": "this route needs an admin key"},
}
UNAVAILABLE: dict[int | str, dict[str, Any]] = {
    503: {"model": ErrorResponse, "description": "a backing service is unavailable"},
}
EXTERNAL: dict[int | str, dict[str, Any]] = {
    501: {
        "model": ErrorResponse,
        "description": "the configured external memory provider (or none) cannot do this",
    },
    502: {"model": ErrorResponse, "description": "the external memory provider failed"},
}


def status_for(exc: MemvaultError) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def _last_name(match: re.Match[str]) -> str:
    text = match.group()
    path = PureWindowsPath(text) if "\\" in text else PurePosixPath(text)
    return path.name or "(a path)"


def public_message(message: str, private: tuple[str, ...] = ()) -> str:
    """``message`` fit for any HTTP caller: the ``private`` directories (the data
    directory) dropped, other absolute paths cut to their last name, and characters
    that are not valid UTF-8 (lone surrogates) escaped."""
    # Only absolute directories: a relative home ("data") is a word that messages use too.
    roots = {r for r in private if os.path.isabs(r) and r.rstrip("/\\") not in ("", "~")}
    for root in sorted(roots, key=len, reverse=True):
        message = message.replace(root.rstrip("/\\") + "/", "").replace(root, "(data directory)")
    text = _PATH.sub(_last_name, message)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


#: What to do about an error, in the HTTP API's words (see ``errors.LIBRARY_REMEDIES``).
HTTP_REMEDIES = {
    "import.skip_existing": "send on_conflict=skip to import only the new ids",
    "update.fields": "send at least one field to change, such as content or name",
    "reveal.set_secret": "set one first with PUT /v1/sensitive/secret",
    "reveal.current_secret": "to change it send current_secret, or reset it with an admin key",
}


def error_response(
    status: int, code: str, message: str, private: tuple[str, ...] = ()
) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(
        {"error": {"code": code, "message": public_message(message, private)}},
        status_code=status,
        headers=headers,
    )


def memvault_error_response(exc: MemvaultError, private: tuple[str, ...] = ()) -> JSONResponse:
    """The answer to ``exc``; a server-side failure (5xx) is logged in full first, as
    its message may name files that the answer leaves out."""
    status = status_for(exc)
    message = exc.say(HTTP_REMEDIES)
    if status >= 500:
        logger.warning("%s (%s): %s", exc.code, status, message)
    return error_response(status, exc.code, message, private)


def private_dirs(app: Any) -> tuple[str, ...]:
    """The directories of ``app``'s data, which no answer may name."""
    gw = getattr(app.state, "gateway", None)
    if gw is None:
        return ()
    dirs = (Path(gw.home), Path(gw.vault.config.database).parent)
    return tuple(dict.fromkeys(str(p) for d in dirs for p in (d, d.absolute())))


def _not_json(error: Mapping[str, Any]) -> str:
    """A body that does not parse, in the API's words: where it broke and what to send
    (FastAPI says ``body.16: JSON decode error``)."""
    loc = error.get("loc", ())
    why = str((error.get("ctx") or {}).get("error") or "it does not parse")
    why = why[0].lower() + why[1:].removesuffix(" at")  # "Unterminated string starting at"
    if loc and isinstance(loc[-1], int):
        why += f" at character {loc[-1]}"
    return (
        f"the request body is not valid JSON ({why}): send one complete JSON object, "
        "with Content-Type: application/json"
    )


def install_handlers(app: FastAPI) -> None:
    """Map memvault errors, malformed requests and router errors to the JSON body."""

    @app.exception_handler(MemvaultError)
    async def _memvault_error(request: Request, exc: MemvaultError) -> JSONResponse:
        return memvault_error_response(exc, private_dirs(request.app))

    @app.exception_handler(RequestValidationError)
    async def _request_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        broken = next((e for e in errors if e.get("type") == "json_invalid"), None)
        if broken is not None:
            return error_response(422, "invalid_input", _not_json(broken))
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}" for err in errors
        )
        return error_response(422, "invalid_input", f"request is malformed: {problems}")

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI's "could not parse the body": malformed input
            return error_response(422, "invalid_input", f"request is malformed: {exc.detail}")
        codes = {404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, "http_error")
        response = error_response(exc.status_code, code, str(exc.detail))
        response.headers.update(exc.headers or {})  # a 405's Allow
        return response


__all__ = [
    "COMMON_ERRORS",
    "CONFLICT",
    "EXTERNAL",
    "FORBIDDEN",
    "NOT_FOUND",
    "STATUS",
    "UNAVAILABLE",
    "AuthError",
    "ForbiddenError",
    "PayloadTooLargeError",
    "error_response",
    "install_handlers",
    "memvault_error_response",
    "private_dirs",
    "public_message",
    "status_for",
]
