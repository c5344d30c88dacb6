"""``HindsightExternalMemory``: a Hindsight server behind the external-memory protocol.

What the gateway's ``/api/memory/v2`` search, reflect, status and bank-clearing routes
use when ``memory.provider`` is ``hindsight``; banks are named by the gateway
(``BankNaming``) and are Hindsight bank ids as they are. It also implements the
migration's ``RetainingMemory``, so ``memvault migrate-v1`` sends the V1 history and
facts to the Hindsight banks, one document per item keyed by the migration's stable key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import MemvaultError, UpstreamError, ValidationError
from ...results.external import ExternalHit
from ..config.settings import MemoryConfig
from ..provider import MemoryWrite
from ..providers.hindsight import (
    DEFAULT_AGENT,
    document_id,
    merge_hits,
    readable,
    reflect_banks,
)
from ..providers.hindsight import hits_from as _hits_from
from ..providers.hindsight_conn import HindsightConnection, describe
from .protocol import Bank, Banks, ExternalStatus, RecallBudget, Reflection


class HindsightExternalMemory:
    """The protocol over one ``HindsightConnection``; reflect runs in every bank given
    (Hindsight reflects within one bank) and joins the answers, user bank first."""

    name = "hindsight"
    default_agent: str | None = DEFAULT_AGENT  # as HindsightProvider: "default"'s work bank

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        timeout: float | None = None,
        connection: HindsightConnection | None = None,
    ) -> None:
        """``timeout`` overrides ``hindsight.timeout_seconds``."""
        self.config = config or MemoryConfig()
        section = self.config.hindsight
        timeout = section.timeout_seconds if timeout is None else timeout
        if connection is None:
            key = section.api_key
            connection = HindsightConnection(
                section.api_url,
                api_key=key.get_secret_value() if key is not None else None,
                timeout=timeout,
            )
        self.conn = connection
        self._created: set[str] = set()

    def close(self) -> None:
        self.conn.close()

    @staticmethod
    def _query(query: str) -> str:
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query must be a non-empty string", field="query")
        return query.strip()

    def recall(
        self, query: str, *, banks: Banks, limit: int = 5, budget: RecallBudget = "mid"
    ) -> list[ExternalHit]:
        text = self._query(query)[: self.config.hindsight.recall_max_input_chars]
        calls = [
            self.conn.recall_call(
                bank.id, text, budget=budget, max_tokens=self.config.hindsight.recall_max_tokens
            )
            for bank in banks.all
        ]
        answers = self.conn.gather(calls, "recall")
        per_bank = []
        for bank, answer in zip(banks.all, answers, strict=True):
            if isinstance(answer, BaseException):
                if getattr(answer, "status", None) == 404:
                    continue
                raise UpstreamError(
                    f"Hindsight at {self.conn.api_url} failed the recall in bank {bank.id}: "
                    f"{describe(answer)}; check the server's log",
                    provider="hindsight",
                )
            per_bank.append(_hits_from(answer, bank.id))
        return readable(merge_hits(per_bank)[:limit])

    def reflect(
        self,
        query: str,
        *,
        banks: Banks,
        limit: int = 10,
        budget: RecallBudget = "mid",
        mission: str = "",
    ) -> Reflection:
        answer, memories = reflect_banks(
            self.conn, self._query(query), banks, budget=budget, mission=mission
        )
        return Reflection(answer, tuple(memories[:limit]))

    def status(self, banks: Banks) -> ExternalStatus:
        try:
            version = self.conn.version()
            entries = sum(self.conn.count(bank.id) for bank in banks.all)
        except MemvaultError as exc:
            return ExternalStatus(self.name, False, banks, detail=exc.message)
        return ExternalStatus(
            self.name, True, banks, entries=entries, detail=f"Hindsight {version}"
        )

    def clear_bank(self, bank: Bank) -> int | None:
        return self.conn.clear(bank.id)

    def _ensure(self, bank: Bank) -> None:
        if bank.id not in self._created:
            self.conn.create_bank(
                bank.id,
                mission=self.config.hindsight.bank_mission,
                retain_mission=self.config.hindsight.bank_retain_mission,
            )
            self._created.add(bank.id)

    def mirror_write(self, write: MemoryWrite, banks: Banks) -> None:
        """The gateway's copy of a builtin write, as ``HindsightProvider`` makes it: the
        entry is document ``document_id(target, text)`` of its bank."""
        bank = banks.user if write.target == "user" or banks.work is None else banks.work
        old = ""
        if write.action == "remove":
            old = write.content
        elif write.action == "replace":
            old = str(write.metadata.get("old_text", ""))
        if old.strip() and (write.action == "remove" or old != write.content):
            self.conn.delete_document(bank.id, document_id(write.target, old))
        if write.action in ("add", "replace") and write.content.strip():
            self._ensure(bank)
            self.conn.retain(
                bank.id,
                write.content,
                document_id=document_id(write.target, write.content),
                context="builtin memory",
                metadata={"source": "builtin", "target": write.target},
            )

    def retain(self, text: str, *, bank: Bank, key: str, metadata: Mapping[str, Any]) -> bool:
        """Store ``text`` in ``bank`` as document ``key``; False when that document is
        already there (a second migration run adds nothing)."""
        self._ensure(bank)
        if self.conn.has_document(bank.id, key):
            return False
        self.conn.retain(
            bank.id,
            text,
            document_id=key,
            context="memvault migrate-v1",
            metadata={str(k): str(v) for k, v in metadata.items() if v is not None},
        )
        return True


__all__ = ["HindsightExternalMemory"]
