"""``Client`` and ``AsyncClient``: the same methods, one blocking, one awaitable.

Each method is a function of ``calls`` (or ``browse``) bound by ``_sync`` or ``_async``:
the function builds the ``Call``, the class sends it through ``exchange`` with its own
I/O (an ``httpx.Client`` and ``time.sleep``, or an ``httpx.AsyncClient`` and
``asyncio.sleep``).
So both classes have exactly the signatures and docstrings of those functions, and type
checkers see them (``ParamSpec``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

import httpx

from .._version import __version__
from ..errors import UpstreamError, ValidationError
from ..validation import check_optional_ident
from . import browse, calls
from .exchange import Call, Outcome, RetryPolicy, Send, exchange

P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8765"
_NO_RETRY = RetryPolicy(attempts=1)


def _settings(
    base_url: object, api_key: object, user_id: object, timeout: object, retry: object
) -> tuple[str, dict[str, str], str | None, float, RetryPolicy]:
    """The constructor's arguments, checked: what both clients keep."""
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValidationError(
            f"base_url must be the server's http:// or https:// URL, not {base_url!r} "
            f"(memvault serve listens on {DEFAULT_URL})",
            field="base_url",
        )
    headers = {"User-Agent": f"memvault-client/{__version__}"}
    if api_key is not None:
        if not isinstance(api_key, str) or not api_key.strip() or "\n" in api_key:
            raise ValidationError(
                "api_key must be the key `memvault keys create` printed", field="api_key"
            )
        headers["Authorization"] = f"Bearer {api_key.strip()}"
    user = check_optional_ident(user_id, "user_id")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ValidationError(
            f"timeout must be a number of seconds > 0, not {timeout!r}", field="timeout"
        )
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise ValidationError("retry must be a RetryPolicy (or None for the default)")
    return base_url.rstrip("/"), headers, user, float(timeout), retry or RetryPolicy()


def _request(
    http: httpx.Client | httpx.AsyncClient, call: Call[Any], default_user: str | None
) -> tuple[httpx.Request, str | None]:
    """The HTTP request of ``call``, the user it acts for put where the route reads it."""
    user = call.user_id if call.user_id is not None else default_user
    params = dict(call.params)
    body = None if call.json is None else dict(call.json)
    if user is not None and call.user_in == "query":
        params["user_id"] = user
    elif user is not None and call.user_in == "body":
        body = {**(body or {}), "user_id": user}
    headers = {"Content-Type": call.content_type} if call.content_type else None
    request = http.build_request(
        call.method, call.path, params=params, json=body, content=call.content, headers=headers
    )
    return request, user if call.user_in != "none" else None


def _signature(build: Callable[..., Any]) -> inspect.Signature:
    """``build``'s signature as a method's: ``self`` first, returning what the call
    decodes to (``Call[MemoryEntry]`` shows as ``MemoryEntry``), for ``help()`` and IDEs."""
    signature = inspect.signature(build)
    returned = signature.return_annotation
    if isinstance(returned, str) and returned.startswith("Call[") and returned.endswith("]"):
        returned = returned[len("Call[") : -1]
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return signature.replace(
        parameters=[this, *signature.parameters.values()], return_annotation=returned
    )


def _sync(
    build: Callable[P, Call[T]], name: str | None = None
) -> Callable[Concatenate[Client, P], T]:
    @functools.wraps(build)
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(build(*args, **kwargs))

    if name is not None:
        method.__name__ = method.__qualname__ = name
    method.__signature__ = _signature(build)  # type: ignore[attr-defined]
    return method


def _async(
    build: Callable[P, Call[T]], name: str | None = None
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    @functools.wraps(build)
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(build(*args, **kwargs))

    if name is not None:
        method.__name__ = method.__qualname__ = name
    method.__signature__ = _signature(build)  # type: ignore[attr-defined]
    return method


class Client:
    """A blocking client of a memvault server; the methods mirror ``Vault``'s and
    return the library's own objects, raising the library's own errors.

    ``user_id`` is the default user of every call (an admin key, or a server run with
    ``--no-auth``, must name one; a user key acts for its own user). ``retry`` says how
    a 503 or a refused connection is tried again (``RetryPolicy``); ``sleep`` is how
    the wait between tries is spent. Use it as a context manager, or call ``close``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        user_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url, headers, user, seconds, policy = _settings(base_url, api_key, user_id, timeout, retry)
        self.base_url = url
        self.user_id = user
        self.retry = policy
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=url, headers=headers, timeout=seconds, transport=transport
        )

    def _run(self, call: Call[T], policy: RetryPolicy | None = None) -> T:
        request, user = _request(self._http, call, self.user_id)
        steps = exchange(call, request, policy or self.retry, user)
        try:
            step = next(steps)
            while True:
                outcome: Outcome = None
                if isinstance(step, Send):
                    try:
                        outcome = self._http.send(step.request)
                    except httpx.TransportError as exc:
                        outcome = exc
                else:
                    self._sleep(step.seconds)
                step = steps.send(outcome)
        except StopIteration as done:
            return cast(T, done.value)

    def wait_until_ready(self, timeout: float = 30.0) -> dict[str, Any]:
        """Poll ``/healthz`` until the server answers (for a server just started);
        ``UpstreamError`` if it does not within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._run(calls.health(), _NO_RETRY)
            except UpstreamError:
                if time.monotonic() >= deadline:
                    raise
                self._sleep(0.2)

    def close(self) -> None:
        """Close the connections (the client cannot be used after)."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client({self.base_url!r}, user_id={self.user_id!r})"

    add = _sync(calls.add)
    add_many = _sync(calls.add_many)
    get = _sync(calls.get)
    update = _sync(calls.update)
    delete = _sync(calls.delete)
    delete_many = _sync(calls.delete_many)
    count = _sync(calls.count)
    search = _sync(calls.search)
    explain = _sync(calls.explain)
    context = _sync(calls.context)
    export = _sync(calls.export)
    import_ = _sync(calls.import_)
    remember = _sync(calls.remember)
    history = _sync(calls.history)
    undo = _sync(calls.undo)
    decide = _sync(calls.decide)
    profile = _sync(calls.profile)
    save_profile = _sync(calls.save_profile)
    erase_user = _sync(calls.erase_user)
    health = _sync(calls.health)
    get_memory = _sync(calls.get_memory)
    add_memory_entry = _sync(calls.add_memory_entry)
    replace_memory_entry = _sync(calls.replace_memory_entry)
    remove_memory_entry = _sync(calls.remove_memory_entry)
    get_memory_config = _sync(calls.get_memory_config)
    update_memory_config = _sync(calls.update_memory_config)
    search_memory = _sync(calls.search_memory)
    stats = _sync(browse.stats)
    entities = _sync(browse.entities)
    entity = _sync(browse.entity)
    entity_memories = _sync(browse.entity_memories)
    entity_graph = _sync(browse.entity_graph)
    workspace_sessions = _sync(browse.workspace_sessions)
    users = _sync(browse.users)
    user_total = _sync(browse.user_total)
    # Last: a class attribute named ``list`` would hide the builtin from what follows.
    list = _sync(calls.list_entries, "list")


class AsyncClient:
    """``Client`` for asyncio: the same methods and arguments, each awaitable. Use it as
    ``async with AsyncClient(...) as c:``, or await ``aclose``."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        user_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        url, headers, user, seconds, policy = _settings(base_url, api_key, user_id, timeout, retry)
        self.base_url = url
        self.user_id = user
        self.retry = policy
        self._sleep = sleep
        self._http = httpx.AsyncClient(
            base_url=url, headers=headers, timeout=seconds, transport=transport
        )

    async def _run(self, call: Call[T], policy: RetryPolicy | None = None) -> T:
        request, user = _request(self._http, call, self.user_id)
        steps = exchange(call, request, policy or self.retry, user)
        try:
            step = next(steps)
            while True:
                outcome: Outcome = None
                if isinstance(step, Send):
                    try:
                        outcome = await self._http.send(step.request)
                    except httpx.TransportError as exc:
                        outcome = exc
                else:
                    await self._sleep(step.seconds)
                step = steps.send(outcome)
        except StopIteration as done:
            return cast(T, done.value)

    async def wait_until_ready(self, timeout: float = 30.0) -> dict[str, Any]:
        """Poll ``/healthz`` until the server answers; ``UpstreamError`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return await self._run(calls.health(), _NO_RETRY)
            except UpstreamError:
                if time.monotonic() >= deadline:
                    raise
                await self._sleep(0.2)

    async def aclose(self) -> None:
        """Close the connections (the client cannot be used after)."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncClient({self.base_url!r}, user_id={self.user_id!r})"

    add = _async(calls.add)
    add_many = _async(calls.add_many)
    get = _async(calls.get)
    update = _async(calls.update)
    delete = _async(calls.delete)
    delete_many = _async(calls.delete_many)
    count = _async(calls.count)
    search = _async(calls.search)
    explain = _async(calls.explain)
    context = _async(calls.context)
    export = _async(calls.export)
    import_ = _async(calls.import_)
    remember = _async(calls.remember)
    history = _async(calls.history)
    undo = _async(calls.undo)
    decide = _async(calls.decide)
    profile = _async(calls.profile)
    save_profile = _async(calls.save_profile)
    erase_user = _async(calls.erase_user)
    health = _async(calls.health)
    get_memory = _async(calls.get_memory)
    add_memory_entry = _async(calls.add_memory_entry)
    replace_memory_entry = _async(calls.replace_memory_entry)
    remove_memory_entry = _async(calls.remove_memory_entry)
    get_memory_config = _async(calls.get_memory_config)
    update_memory_config = _async(calls.update_memory_config)
    search_memory = _async(calls.search_memory)
    stats = _async(browse.stats)
    entities = _async(browse.entities)
    entity = _async(browse.entity)
    entity_memories = _async(browse.entity_memories)
    entity_graph = _async(browse.entity_graph)
    workspace_sessions = _async(browse.workspace_sessions)
    users = _async(browse.users)
    user_total = _async(browse.user_total)
    list = _async(calls.list_entries, "list")


__all__ = ["DEFAULT_URL", "AsyncClient", "Client"]
