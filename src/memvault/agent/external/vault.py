"""``VaultExternalMemory``: memvault's own engine behind the external-memory protocol.

A bank is a scope of the vault: the user bank is the user's shared entries
(``agent_id`` None), a work bank one agent's private entries. Recall is a vault search
over the session's view (the shared entries plus the agent's), reflect asks the
configured chat model to answer from that recall, and clearing a bank deletes its
entries in one store transaction.

It is a class of its own rather than more methods on ``VaultProvider``: a provider is
bound to one session (``initialize`` with a user and an agent), while the gateway serves
every user from one external memory, naming the banks on each call.

Given ``AgentVaults``, a work bank is searched, counted and cleared in its agent's own
store when the agent has one (``memvault agents set``); the user bank is the default
store's.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import MemvaultError
from ...llm import Chat, reflect_messages
from ...llm.client import unavailable
from ...model import Hit
from ...results.external import ExternalHit
from ...security.quarantine import injectable, placeholder
from ...vault import Vault
from ..stores import AgentVaults
from .protocol import Bank, Banks, ExternalStatus, RecallBudget, Reflection


class VaultExternalMemory:
    """The vault as the external memory (``memory.provider: vault``, the default).

    ``llm`` returns the chat client reflect uses; without it reflect goes through the
    vault's LLM (``Vault.llm_call``: budgeted and on the token ledger, as operation
    ``reflect``). With no chat model configured, reflect raises ``LLMUnavailableError``
    before it recalls anything. ``budget`` is accepted and ignored: the vault's recall
    has one depth.
    """

    name = "memvault"

    def __init__(
        self, vault: Vault | AgentVaults, *, llm: Callable[[], Chat] | None = None
    ) -> None:
        self.agents = vault if isinstance(vault, AgentVaults) else None
        self.vault = vault.default if isinstance(vault, AgentVaults) else vault
        self._llm = llm

    def _client(self, banks: Banks) -> Chat:
        if self._llm is not None:
            return self._llm()
        vault = self._vault(banks.agent_id)
        call = vault.llm_call("reflect", user_id=banks.user_id, agent_id=banks.agent_id)
        if call is None:
            raise unavailable()
        return call

    def close(self) -> None:
        """Nothing of its own to close: reflect uses the vault's LLM (the vault closes it)."""

    def _vault(self, agent_id: str | None) -> Vault:
        return self.vault if self.agents is None else self.agents.vault_for(agent_id)

    def _search(self, query: str, banks: Banks, limit: int) -> list[Hit]:
        vault = self._vault(banks.agent_id)
        # What is recalled here is handed to a model (the gateway's callers, reflect):
        # read as a prompt block is, so an instruction split across memories stays out.
        return vault.search(
            query, user_id=banks.user_id, agent_id=banks.agent_id, limit=limit, for_model=True
        )

    @staticmethod
    def _hit(hit: Hit, banks: Banks) -> ExternalHit:
        entry = hit.entry
        return ExternalHit(
            id=entry.id,
            # ``text`` is what a caller hands a model: a withheld entry is its placeholder
            # (its owner still reads it whole in ``entry``, marked by ``quarantine``).
            text=entry.content if injectable(entry) else placeholder(entry),
            score=hit.score,
            bank=banks.holding(entry.agent_id).id,
            metadata=dict(entry.metadata),
            sources=dict(hit.sources),
            entry=entry,
        )

    def recall(
        self, query: str, *, banks: Banks, limit: int = 5, budget: RecallBudget = "mid"
    ) -> list[ExternalHit]:
        """A vault search in the banks' view; held entries are included, marked by
        ``entry.quarantine``, as ``Vault.search`` returns them, with ``[QUARANTINED: id]``
        as their ``text``."""
        return [self._hit(h, banks) for h in self._search(query, banks, limit)]

    def reflect(
        self,
        query: str,
        *,
        banks: Banks,
        limit: int = 10,
        budget: RecallBudget = "mid",
        mission: str = "",
    ) -> Reflection:
        """The chat model's answer from up to ``limit`` recalled entries. Held entries
        never reach the model: the answer is built from clear ones only, and those are
        the memories returned."""
        client = self._client(banks)
        hits = [h for h in self._search(query, banks, limit) if injectable(h.entry)]
        answer = client.complete(reflect_messages(query, hits, mission=mission))
        return Reflection(answer, tuple(self._hit(h, banks) for h in hits))

    def status(self, banks: Banks) -> ExternalStatus:
        """Available when the store answers; ``entries`` counts the banks' view."""
        try:
            vault = self._vault(banks.agent_id)
            entries = vault.count(user_id=banks.user_id, agent_id=banks.agent_id)
        except MemvaultError as exc:
            return ExternalStatus(self.name, False, banks, detail=exc.message)
        return ExternalStatus(self.name, True, banks, entries=entries)

    def clear_bank(self, bank: Bank) -> int:
        """Delete the bank's entries: listed first, then deleted in one call, which is
        one store transaction (all of them go, or none)."""
        vault = self._vault(bank.agent_id)
        doomed = [
            record["id"]
            for record in vault.export(user_id=bank.user_id, agent_id=bank.agent_id)
            if record["agent_id"] == bank.agent_id
        ]
        return len(vault.delete_many(doomed, user_id=bank.user_id))


__all__ = ["VaultExternalMemory"]
