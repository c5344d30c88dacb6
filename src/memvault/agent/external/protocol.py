"""The external-memory protocol: what the gateway's ``/api/memory/v2`` search, reflect,
status and bank-clearing routes ask of whichever external provider is configured
(seed 000, section 11: those routes proxy the external provider).

Four operations, each over named banks (section 5.2):

* ``recall(query, banks=..., limit=...)`` -> ``list[ExternalHit]``, best first;
* ``reflect(query, banks=..., ...)`` -> ``Reflection``: an answer and the memories it used;
* ``status(banks)`` -> ``ExternalStatus``: name, reachable or not, the banks, a count;
* ``clear_bank(bank)`` -> how many memories went (None if the provider does not say).

Why a ``typing.Protocol`` and not an ABC like ``MemoryProvider``: a memory provider has a
lifecycle with many optional hooks that an ABC fills with defaults, while an external
memory has no optional part (an operation it lacks is answered with
``UnsupportedOperationError``, not skipped), so there is nothing to inherit. Structural
typing lets an adapter over a third-party client (Hindsight, issue 18) and a test double
conform without importing a base class, and ``runtime_checkable`` keeps a cheap
conformance check. Writing (Hindsight's *retain*) is not here: writes follow the agent's
turns and stay on ``MemoryProvider`` (``sync_turn``, ``on_memory_write``).

Banks. An external memory keeps a user's memories in two kinds of bank: the **user bank**
(``bank_id_template``, default ``deerflow-user-{user_id}``: who the user is, shared by
every agent) and one **work bank** per agent (``work_bank_id_template``, default
``deerflow-work-{user_id}-{agent_id}``: that agent's private notes). ``BankNaming`` is the
one place that turns a (user, agent) into bank ids. A ``Bank`` carries its owner as well
as its id, so an implementation keyed by scope (the vault) and one keyed by name
(Hindsight) both have what they need. Recall and reflect read a session's ``Banks``, the
user bank plus the agent's work bank when there is an agent, as the seed's prefetch does
(Appendix B.3); clearing takes one ``Bank``.

Errors, which the gateway maps by class:

* a provider that cannot be reached or answers badly raises ``UpstreamError`` (or a
  subclass; 502, ``LLMUnavailableError`` 503);
* an operation the provider does not offer, or any operation when no external provider
  is configured, raises ``UnsupportedOperationError`` (501: a fact about the set-up,
  not the request, so not 409, which says "change the state and retry");
* bad input raises ``ValidationError`` (422); a bank that is not one of the caller's,
  ``NotFoundError`` (404, from ``Banks.named``).

``status`` itself does not raise for an unreachable provider: it reports
``available=False`` with a ``detail`` saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ...errors import UnsupportedOperationError
from ...results.external import ExternalHit
from ..banks import (
    DEFAULT_USER_BANK_TEMPLATE,
    DEFAULT_WORK_BANK_TEMPLATE,
    Bank,
    BankNaming,
    Banks,
)
from ..provider import MemoryWrite

RecallBudget = Literal["low", "mid", "high"]
"""How hard a provider may look (Hindsight's recall budget); others may ignore it."""


@dataclass(frozen=True, slots=True)
class Reflection:
    """An answer reasoned from memories, and the memories it was based on."""

    answer: str
    memories: tuple[ExternalHit, ...] = ()


@dataclass(frozen=True, slots=True)
class ExternalStatus:
    """The provider's health as seen for one (user, agent).

    ``entries`` counts the memories in those banks where the provider can tell;
    ``detail`` says why the provider is not available (or is a short note when it is).
    """

    name: str
    available: bool
    banks: Banks
    entries: int | None = None
    detail: str | None = None


@runtime_checkable
class ExternalMemory(Protocol):
    """An external memory the gateway proxies; see the module docstring for the rules."""

    @property
    def name(self) -> str:
        """Short name shown in status (``memvault``, ``hindsight``, ``none``)."""
        ...

    def recall(
        self, query: str, *, banks: Banks, limit: int = 5, budget: RecallBudget = "mid"
    ) -> list[ExternalHit]:
        """Up to ``limit`` memories of ``banks`` relevant to ``query``, best first."""
        ...

    def reflect(
        self,
        query: str,
        *,
        banks: Banks,
        limit: int = 10,
        budget: RecallBudget = "mid",
        mission: str = "",
    ) -> Reflection:
        """An answer to ``query`` from the memories of ``banks``; ``mission`` is the user's
        guidance on how to reflect (``hindsight.bank_mission``); ``limit`` bounds the
        memories used where the provider has such a knob. A provider that reflects within
        one bank at a time (Hindsight) says in its docstring which of ``banks`` it uses."""
        ...

    def status(self, banks: Banks) -> ExternalStatus:
        """Whether the provider answers, and what it holds in ``banks``. Never raises for
        an unreachable provider: that is ``available=False`` with a ``detail``."""
        ...

    def clear_bank(self, bank: Bank) -> int | None:
        """Delete every memory of ``bank`` at once; returns how many were deleted, or
        None where the provider does not say (Hindsight's count is optional)."""
        ...


@runtime_checkable
class MirroringMemory(Protocol):
    """An external memory that keeps a copy of the builtin USER.md / MEMORY.md entries
    (seed 000: builtin writes are mirrored to the right bank). The gateway calls it
    after each builtin entry a route changed."""

    default_agent: str | None
    """The agent whose work bank an agent-less session uses (None: the user bank)."""

    def mirror_write(self, write: MemoryWrite, banks: Banks) -> None:
        """Copy one builtin write into ``banks``: USER.md to the user bank, MEMORY.md to
        the work bank; a replace or remove forgets the copy of the entry it replaced."""
        ...


class NoExternalMemory:
    """What answers when no external provider is configured (``memory.provider:
    builtin``): status says so, every operation raises ``UnsupportedOperationError``."""

    name = "none"

    def __init__(self, reason: str | None = None) -> None:
        self.reason = reason or (
            "no external memory provider is configured (memory.provider is 'builtin')"
        )

    def _unsupported(self, what: str) -> UnsupportedOperationError:
        return UnsupportedOperationError(
            f"{self.reason}, so there is nothing to {what}; set memory.provider to 'vault' "
            "or 'hindsight' in config.yaml and restart",
            provider=self.name,
        )

    def recall(
        self, query: str, *, banks: Banks, limit: int = 5, budget: RecallBudget = "mid"
    ) -> list[ExternalHit]:
        raise self._unsupported("recall from")

    def reflect(
        self,
        query: str,
        *,
        banks: Banks,
        limit: int = 10,
        budget: RecallBudget = "mid",
        mission: str = "",
    ) -> Reflection:
        raise self._unsupported("reflect over")

    def status(self, banks: Banks) -> ExternalStatus:
        return ExternalStatus(self.name, False, banks, detail=self.reason)

    def clear_bank(self, bank: Bank) -> int | None:
        raise self._unsupported("clear")


__all__ = [
    "DEFAULT_USER_BANK_TEMPLATE",
    "DEFAULT_WORK_BANK_TEMPLATE",
    "Bank",
    "BankNaming",
    "Banks",
    "ExternalMemory",
    "ExternalStatus",
    "NoExternalMemory",
    "RecallBudget",
    "Reflection",
]
