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

import re
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import ValidationError as PydanticValidationError

from ..errors import ConfigError, NotFoundError, UnsupportedOperationError
from ..results.external import ExternalHit
from ..validation import check_ident, check_optional_ident
from .config import HindsightSection, MemoryConfig
from .provider import MemoryWrite

RecallBudget = Literal["low", "mid", "high"]
"""How hard a provider may look (Hindsight's recall budget); others may ignore it."""

_DEFAULTS = HindsightSection()
DEFAULT_USER_BANK_TEMPLATE = _DEFAULTS.bank_id_template
DEFAULT_WORK_BANK_TEMPLATE = _DEFAULTS.work_bank_id_template


@dataclass(frozen=True, slots=True)
class Bank:
    """One bank: its id as the provider knows it, and whose memories it holds.

    ``agent_id`` None is the user bank (shared across agents); set, it is that agent's
    work bank.
    """

    id: str
    user_id: str
    agent_id: str | None = None

    @property
    def is_work(self) -> bool:
        return self.agent_id is not None


@dataclass(frozen=True, slots=True)
class Banks:
    """The banks one (user, agent) reads: the user bank, plus the agent's work bank."""

    user: Bank
    work: Bank | None = None

    @property
    def user_id(self) -> str:
        return self.user.user_id

    @property
    def agent_id(self) -> str | None:
        return self.work.agent_id if self.work is not None else None

    @property
    def all(self) -> tuple[Bank, ...]:
        return (self.user,) if self.work is None else (self.user, self.work)

    def named(self, bank_id: str) -> Bank:
        """The bank called ``bank_id``; ``NotFoundError`` listing the real ones if none is."""
        for bank in self.all:
            if bank.id == bank_id:
                return bank
        names = " or ".join(bank.id for bank in self.all)
        raise NotFoundError(
            f"no bank {bank_id!r} here: this user's banks are {names}", user_id=self.user_id
        )

    def holding(self, agent_id: str | None) -> Bank:
        """The bank that holds a memory of ``agent_id`` (None: a shared one)."""
        if agent_id is None:
            return self.user
        if self.work is not None and self.work.agent_id == agent_id:
            return self.work
        raise NotFoundError(
            f"agent {agent_id!r} has no bank among {self.user_id!r}'s banks here",
            user_id=self.user_id,
            agent_id=agent_id,
        )


@dataclass(frozen=True, slots=True)
class BankNaming:
    """Bank ids from the two templates (seed 000, section 5.2), in one place.

    The templates must hold ``{user_id}`` (and the work template ``{agent_id}``) so that
    banks never mix users or agents; ``ConfigError`` otherwise.
    """

    user_template: str = DEFAULT_USER_BANK_TEMPLATE
    work_template: str = DEFAULT_WORK_BANK_TEMPLATE
    env: str = ""

    def __post_init__(self) -> None:
        try:  # the config's own template checks, so both paths say the same
            HindsightSection(
                bank_id_template=self.user_template, work_bank_id_template=self.work_template
            )
        except PydanticValidationError as exc:
            problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"invalid bank template: {problems}") from None

    @classmethod
    def from_config(cls, config: MemoryConfig) -> BankNaming:
        section = config.hindsight
        return cls(section.bank_id_template, section.work_bank_id_template, env=section.env)

    def _format(self, template: str, thread_id: str, **names: str) -> str:
        # An optional placeholder left empty takes the separator before it along, so
        # "deerflow-user-{user_id}-{env}" without an env is "deerflow-user-alice".
        for name, value in (("env", self.env), ("thread_id", thread_id)):
            if not value:
                template = re.sub(r"[-_.]?\{" + name + r"\}", "", template)
        return template.format(env=self.env, thread_id=thread_id, **names)

    def user_bank(self, user_id: str, *, thread_id: str = "") -> Bank:
        user = check_ident(user_id, "user_id")
        return Bank(self._format(self.user_template, thread_id, user_id=user), user)

    def work_bank(self, user_id: str, agent_id: str, *, thread_id: str = "") -> Bank:
        user = check_ident(user_id, "user_id")
        agent = check_ident(agent_id, "agent_id")
        bank_id = self._format(self.work_template, thread_id, user_id=user, agent_id=agent)
        return Bank(bank_id, user, agent)

    def banks(self, user_id: str, agent_id: str | None = None, *, thread_id: str = "") -> Banks:
        """The banks of ``user_id`` as ``agent_id`` sees them (no agent: the user bank only);
        ``thread_id`` fills a ``{thread_id}`` placeholder ("" where there is none)."""
        agent = check_optional_ident(agent_id, "agent_id")
        work = None if agent is None else self.work_bank(user_id, agent, thread_id=thread_id)
        return Banks(self.user_bank(user_id, thread_id=thread_id), work)


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
