"""One request and its answer, without I/O: the part the sync and async clients share.

A :class:`Call` says what to send and how to read the answer. :func:`exchange` is a
generator that drives one call to its end: it yields :class:`Send` (send this request,
then send me the response or the transport error) and :class:`Sleep` (wait this long
before the next try), and returns the decoded value or raises. ``Client`` runs it with
``httpx.Client`` and ``time.sleep``, ``AsyncClient`` with ``httpx.AsyncClient`` and
``asyncio.sleep``; retries, error mapping and decoding exist once.

Errors: the server answers ``{"error": {"code", "message"}}``; the code names the class
of the error tree that was raised (``memvault.errors``), so the client raises that very
class with the server's message. An answer without that body (a proxy's) is mapped by
its status: the inverse of the gateway's table (``memvault.server.errors.STATUS``).

Retries: a 503 (the store, or the embedder behind the server, is away for the moment)
and a connection that could not be opened (the server is restarting) are tried again,
up to ``RetryPolicy.attempts`` tries in all, waiting ``backoff``, then twice as long each
time (at most ``max_delay``), or what the server's ``Retry-After`` asks (at most
``max_retry_after``; a longer wait is not waited for). Nothing else is retried: a 503
whose code says the setup is wrong (``config_error``, ``llm_unavailable``) would answer
the same again, and a request that may have reached the server (a read timeout, a
dropped connection) may have been applied, so repeating a write could apply it twice.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any, Generic, Literal, TypeVar, cast

import httpx

from .. import errors
from ..errors import (
    AuthError,
    ConflictError,
    ForbiddenError,
    LLMBudgetError,
    MemvaultError,
    NotFoundError,
    PayloadTooLargeError,
    StoreUnavailableError,
    UnsupportedOperationError,
    UpstreamError,
    ValidationError,
)
from ..model import utcnow

T = TypeVar("T")

#: Every class of the error tree by its ``code``, as the server sends it.
BY_CODE: dict[str, type[MemvaultError]] = {
    cls.code: cls
    for cls in (getattr(errors, name) for name in errors.__all__)
    if isinstance(cls, type) and issubclass(cls, MemvaultError)
}

#: An answer without memvault's error body, by status (the gateway's table inverted).
BY_STATUS: dict[int, type[MemvaultError]] = {
    400: ValidationError,
    401: AuthError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: ValidationError,
    429: LLMBudgetError,
    501: UnsupportedOperationError,
    503: StoreUnavailableError,
}

#: 503 codes that name a setup problem: the same request would fail the same way.
NOT_TRANSIENT = frozenset({"config_error", "llm_unavailable"})


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One route call: method, path (already quoted), query, body, and how to read the
    answer (``decode(response, user_id)``, the user the call acted for or None).

    ``user_id`` None takes the client's default user; ``user_in`` says where the route
    reads it (query parameter or body field). Without any, the key's own user acts.
    """

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    path: str
    decode: Callable[[httpx.Response, str | None], T]
    params: Mapping[str, Any] = field(default_factory=dict)
    json: Mapping[str, Any] | None = None
    content: bytes | None = None
    content_type: str | None = None
    user_id: str | None = None
    user_in: Literal["query", "body", "none"] = "query"


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``request``; answer with the response, or the ``httpx.TransportError``."""

    request: httpx.Request


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds`` before the next try."""

    seconds: float


Step = Send | Sleep
Outcome = httpx.Response | httpx.TransportError | None


def _positive(value: object, name: str, *, whole: bool = False) -> None:
    number = isinstance(value, int) if whole else isinstance(value, int | float)
    if isinstance(value, bool) or not number or cast(float, value) < (1 if whole else 0):
        least = "a whole number >= 1" if whole else "a number >= 0"
        raise ValidationError(f"RetryPolicy {name} must be {least}, not {value!r}", field=name)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """How the client tries again after a 503 or a refused connection (see the module
    docstring). ``RetryPolicy(attempts=1)`` never retries. ``clock`` reads an HTTP-date
    ``Retry-After``."""

    attempts: int = 4
    backoff: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    connect_errors: bool = True
    clock: Callable[[], datetime] = utcnow

    def __post_init__(self) -> None:
        _positive(self.attempts, "attempts", whole=True)
        for name in ("backoff", "max_delay", "max_retry_after"):
            _positive(getattr(self, name), name)
        if not isinstance(self.connect_errors, bool):
            raise ValidationError("RetryPolicy connect_errors must be true or false")

    def delay(self, retry: int, retry_after: float | None) -> float | None:
        """The wait before retry number ``retry`` (from 0), or None: give up."""
        if retry + 1 >= self.attempts:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        return float(min(self.max_delay, self.backoff * 2**retry))

    def retry_after(self, response: httpx.Response) -> float | None:
        """The server's ``Retry-After`` in seconds (delta or HTTP-date), None if absent
        or unreadable."""
        value = response.headers.get("retry-after", "").strip()
        if not value:
            return None
        if value.isdigit():
            return float(value)
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - self.clock()).total_seconds())


#: What a keyless client is told when the server asks for a key: the server's own
#: message names the header, which a user of this client never writes.
NO_KEY = (
    "no API key: pass api_key='<key>' to Client(...) or AsyncClient(...), the key "
    "`memvault keys create --user ID` printed"
)


def error_of(response: httpx.Response, route: str, *, sent_key: bool = True) -> MemvaultError:
    """The error of the tree the server raised, with its message (in the client's words
    when it sent no key: ``sent_key`` False)."""
    status = response.status_code
    code = message = None
    try:
        body = response.json()
        detail = body["error"]
        code, message = str(detail["code"]), str(detail["message"])
    except (ValueError, TypeError, KeyError):
        pass
    cls = BY_CODE.get(code or "") or BY_STATUS.get(status)
    if status == 401 and not sent_key:
        message = NO_KEY
    if cls is None:
        cls = UpstreamError if status >= 500 else MemvaultError
    if message is None:
        text = response.text.strip()[:200] or response.reason_phrase
        message = f"the server answered {status} to {route}: {text}"
    return cls(message, status=status, route=route)


def _unreachable(exc: httpx.TransportError, route: str, tries: int) -> UpstreamError:
    url = exc.request.url if _has_request(exc) else "the server"
    return UpstreamError(
        f"could not reach the memvault server for {route} ({type(exc).__name__}: {exc}) "
        f"after {tries} {'try' if tries == 1 else 'tries'}: check that it runs "
        f"(memvault serve) and that base_url points at it ({url})",
        route=route,
    )


def _has_request(exc: httpx.TransportError) -> bool:
    try:
        exc.request  # noqa: B018 - httpx raises RuntimeError when no request is attached
    except RuntimeError:
        return False
    return True


def _reached_nothing(exc: httpx.TransportError) -> bool:
    """Whether the request surely did not reach the server (safe to send again)."""
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)


def exchange(
    call: Call[T], request: httpx.Request, policy: RetryPolicy, user_id: str | None
) -> Generator[Step, Outcome, T]:
    """Drive ``call`` to its decoded answer (see the module docstring)."""
    route = f"{call.method} {call.path}"
    sent_key = "authorization" in request.headers
    retry = 0
    while True:
        outcome = yield Send(request)
        if isinstance(outcome, httpx.TransportError):
            wait = (
                policy.delay(retry, None)
                if policy.connect_errors and _reached_nothing(outcome)
                else None
            )
            if wait is None:
                raise _unreachable(outcome, route, retry + 1) from outcome
        elif outcome is None:  # pragma: no cover - a driver bug, not a server answer
            raise RuntimeError("the driver sent no response")
        elif outcome.status_code == 503 and _transient(outcome):
            wait = policy.delay(retry, policy.retry_after(outcome))
            if wait is None:
                raise error_of(outcome, route, sent_key=sent_key)
        elif outcome.is_error:
            raise error_of(outcome, route, sent_key=sent_key)
        else:
            try:
                return call.decode(outcome, user_id)
            except (KeyError, TypeError, ValueError) as exc:
                raise UpstreamError(
                    f"the server's answer to {route} is not in the shape this client reads "
                    f"({type(exc).__name__}: {exc}): use a client of the server's version",
                    route=route,
                ) from exc
        retry += 1
        yield Sleep(wait)


def _transient(response: httpx.Response) -> bool:
    try:
        code = response.json()["error"]["code"]
    except (ValueError, TypeError, KeyError):
        return True  # not memvault's answer (a proxy in front of a restarting server)
    return code not in NOT_TRANSIENT


__all__ = [
    "BY_CODE",
    "BY_STATUS",
    "NOT_TRANSIENT",
    "Call",
    "RetryPolicy",
    "Send",
    "Sleep",
    "Step",
    "error_of",
    "exchange",
]
