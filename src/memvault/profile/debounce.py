"""Wait for a quiet moment before learning from a conversation (seed 001 §3.3).

A person often sends several messages in a row; extracting memories after each would
pay the LLM several times for one exchange. ``DebounceQueue`` keeps the latest messages
of each conversation (a newer ``add`` for the same user, agent and thread replaces the
older one: it holds the whole conversation so far) and restarts its timer on every add;
when ``delay_s`` pass without one, the worker hands everything queued to ``process`` in
one call — one extraction per quiet period, however many messages arrived.

Nothing queued is lost: ``flush()`` processes now (tests, shutdown), ``close()`` stops the
timer and drains the queue (also at interpreter exit), and a batch whose ``process``
raises (or the conversations it returns as not finished) is queued again — unless a
newer version of a conversation arrived meanwhile — and tried at the next quiet period,
at most ``max_attempts`` times (then it is logged as dropped). The timer is injectable
(``schedule``) so tests run without sleeping; the default is a daemon
``threading.Timer``, which never keeps a process alive.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ValidationError

log = logging.getLogger(__name__)

DEFAULT_DELAY_S = 30.0


class Handle(Protocol):
    def cancel(self) -> None: ...


Schedule = Callable[[float, Callable[[], None]], Handle]


def daemon_timer(delay: float, fn: Callable[[], None]) -> Handle:
    """Run ``fn`` once after ``delay`` seconds on a daemon thread."""
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer


@dataclass(frozen=True, slots=True)
class Pending:
    """One conversation waiting to be learnt from."""

    user_id: str
    agent_id: str | None
    thread_id: str
    messages: tuple[Any, ...]
    attempts: int = 0
    #: Whatever the caller needs with the conversation when it is processed.
    extra: Any = None

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.user_id, self.agent_id, self.thread_id)


class DebounceQueue:
    """Conversations waiting for a quiet period (see the module docstring)."""

    def __init__(
        self,
        process: Callable[[list[Pending]], Sequence[Pending] | None],
        *,
        delay_s: float = DEFAULT_DELAY_S,
        schedule: Schedule = daemon_timer,
        max_attempts: int = 3,
        drain_at_exit: bool = True,
    ) -> None:
        if isinstance(delay_s, bool) or not isinstance(delay_s, int | float) or delay_s < 0:
            raise ValidationError("delay_s must be a number of seconds, 0 or more", field="delay_s")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValidationError(
                "max_attempts must be an integer of at least 1", field="max_attempts"
            )
        self._process = process
        self._delay = float(delay_s)
        self._schedule = schedule
        self._max_attempts = max_attempts
        self._queue: dict[tuple[str, str | None, str], Pending] = {}
        self._timer: Handle | None = None
        self._lock = threading.Lock()  # the queue and the timer
        self._running = threading.Lock()  # one batch at a time
        self._closed = False
        if drain_at_exit:
            atexit.register(_drain, weakref.ref(self))

    def add(
        self,
        thread_id: str,
        messages: Sequence[Any],
        *,
        user_id: str,
        agent_id: str | None = None,
        extra: Any = None,
    ) -> None:
        """Queue the conversation so far (replacing the thread's earlier version) and
        restart the quiet-period timer."""
        for value, name in ((thread_id, "thread_id"), (user_id, "user_id")):
            if not isinstance(value, str) or not value:
                raise ValidationError(f"{name} must be a non-empty string", field=name)
        if agent_id is not None and (not isinstance(agent_id, str) or not agent_id):
            raise ValidationError("agent_id must be a non-empty string or None", field="agent_id")
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
            raise ValidationError("messages must be a list of chat messages", field="messages")
        pending = Pending(user_id, agent_id, thread_id, tuple(messages), extra=extra)
        with self._lock:
            if self._closed:
                raise ValidationError(
                    "this queue is closed: make a new one to queue more conversations"
                )
            self._queue.pop(pending.key, None)  # re-inserted last: the order of arrival
            self._queue[pending.key] = pending
            self._restart()

    def discard(self, thread_id: str, *, user_id: str, agent_id: str | None = None) -> bool:
        """Drop a queued conversation (its caller processes it itself); whether one was."""
        with self._lock:
            return self._queue.pop((user_id, agent_id, thread_id), None) is not None

    def discard_user(self, user_id: str) -> int:
        """Drop every queued conversation of ``user_id`` (the user is being erased)."""
        with self._lock:
            keys = [k for k in self._queue if k[0] == user_id]
            for key in keys:
                del self._queue[key]
            return len(keys)

    def _restart(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._schedule(self._delay, self._quiet)

    def _quiet(self) -> None:
        self.flush()

    def pending(self) -> int:
        """How many conversations wait."""
        with self._lock:
            return len(self._queue)

    def flush(self) -> int:
        """Process everything queued now, in one call; returns how many conversations."""
        with self._running:
            with self._lock:
                batch = list(self._queue.values())
                self._queue.clear()
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None
            if not batch:
                return 0
            try:
                failed = self._process(batch)
            except Exception:
                log.exception("learning from %d queued conversation(s) failed", len(batch))
                self._requeue(batch)
            else:
                if failed:  # the conversations ``process`` could not finish, to try again
                    self._requeue(list(failed))
            return len(batch)

    def _requeue(self, batch: list[Pending]) -> None:
        with self._lock:
            again = False
            for pending in batch:
                tried = pending.attempts + 1
                if tried >= self._max_attempts:
                    log.error(
                        "dropped the conversation %s of user %s after %d failed attempts",
                        pending.thread_id,
                        pending.user_id,
                        tried,
                    )
                    continue
                if pending.key not in self._queue:  # a newer version wins
                    self._queue[pending.key] = Pending(
                        pending.user_id,
                        pending.agent_id,
                        pending.thread_id,
                        pending.messages,
                        tried,
                        pending.extra,
                    )
                    again = True
            if again and not self._closed:
                self._restart()

    def close(self) -> None:
        """Stop the timer and drain the queue (what fails now is logged). Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for _ in range(self._max_attempts):
            self.flush()
            if not self.pending():
                break

    def __enter__(self) -> DebounceQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _drain(ref: weakref.ref[DebounceQueue]) -> None:
    """At interpreter exit: drain a queue that is still alive (a weak reference, so the
    exit hook never keeps one alive)."""
    queue = ref()
    if queue is not None:
        queue.close()


__all__ = ["DEFAULT_DELAY_S", "DebounceQueue", "Handle", "Pending", "Schedule", "daemon_timer"]
