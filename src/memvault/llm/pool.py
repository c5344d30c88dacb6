"""The engine's LLM clients: one metered client per model name, made on first use.

Every feature that may call a model (extraction, compression, conflict checks, domain
and replacement judgements, graph extraction) asks the pool for a call bound to one
operation and one user; the pool hands back ``None`` when no LLM is configured, and the
feature then uses its rules. Each client sits behind the ledger and the budgets
(``llm.metered``). The pool is shared between threads; ``close`` closes every client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

from ..config import LLMConfig
from ..stores.protocols import UsageLedger
from .client import ChatClient, LLMFor
from .metered import MeteredCall, MeteredLLM


class LLMPool:
    """The configured LLM's clients (``config``; a call may name another model)."""

    def __init__(
        self, config: LLMConfig, ledger: UsageLedger, clock: Callable[[], datetime]
    ) -> None:
        self._config = config
        self._ledger = ledger
        self._clock = clock
        self._clients: dict[str | None, MeteredLLM] = {}
        self._lock = threading.Lock()

    def call(
        self,
        operation: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        model: str | None = None,
    ) -> MeteredCall | None:
        """A call of ``operation`` for the user on ``model`` (None: the configured one), or
        None when no LLM is configured."""
        if not self._config.configured:
            return None
        with self._lock:
            metered = self._clients.get(model)
            if metered is None:
                llm = self._config
                if model is not None:
                    llm = llm.model_copy(update={"model": model})
                metered = self._clients[model] = MeteredLLM(
                    ChatClient(llm), self._ledger, self._config, self._clock
                )
        return metered.for_call(operation, user_id=user_id, agent_id=agent_id)

    def on_model(self, model: str | None) -> LLMFor:
        """``call`` bound to ``model`` (None: the configured one), for a feature that has
        a model of its own (extraction's ``model_name``)."""

        def call(
            operation: str, *, user_id: str, agent_id: str | None = None
        ) -> MeteredCall | None:
            return self.call(operation, user_id=user_id, agent_id=agent_id, model=model)

        return call

    def close(self) -> None:
        """Close every client made so far (a later call makes a new one)."""
        with self._lock:
            for metered in self._clients.values():
                metered.client.close()
            self._clients.clear()


__all__ = ["LLMPool"]
