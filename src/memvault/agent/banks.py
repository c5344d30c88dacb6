"""Bank ids: a user's user bank and per-agent work banks (seed 000, section 5.2).

``BankNaming`` is the one place that turns a (user, agent) into bank ids from the two
templates; ``Bank`` carries an id with its owner, ``Banks`` a session's pair. A leaf of
the agent layer: the external-memory protocol, the Hindsight provider and the V1
migration all name banks, and none of them may import the others for it.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from pydantic import ValidationError as PydanticValidationError

from ..errors import ConfigError, NotFoundError
from ..validation import check_ident, check_optional_ident
from .config.settings import HindsightSection, MemoryConfig

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


def _fields(template: str) -> list[tuple[str, str | None, str]]:
    """(literal, placeholder or None, the characters next to the placeholder) of
    ``template``: the last character of the literal before it, the first after it."""
    parsed = [(literal, name) for literal, name, _, _ in string.Formatter().parse(template)]
    out: list[tuple[str, str | None, str]] = []
    for i, (literal, name) in enumerate(parsed):
        after = parsed[i + 1][0][:1] if i + 1 < len(parsed) else ""
        out.append((literal, name, literal[-1:] + after))
    return out


def _bank_part(value: str, name: str, around: str) -> str:
    """``value`` as it goes into a bank id: the user id as it is (so a user's banks keep
    the ids they always had), any other part with the characters that delimit it in
    the template (and ``~``) escaped as ``~`` + hex. Then exactly one part may hold a
    separator, and no two (user, agent, thread) give the same bank: user ``alice-work``
    with agent ``x`` and user ``alice`` with agent ``work-x`` no longer meet."""
    if name == "user_id":
        return value
    special = set(around) | {"~"}
    return "".join(_escape(c) if c in special else c for c in value)


def _escape(char: str) -> str:
    if char == "~":
        return "~~"
    code = ord(char)
    return f"~{code:02x}" if code < 256 else f"~u{code:06x}"


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
        values = {"env": self.env, "thread_id": thread_id, **names}
        return "".join(
            literal + ("" if name is None else _bank_part(values[name], name, around))
            for literal, name, around in _fields(template)
        )

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


__all__ = [
    "DEFAULT_USER_BANK_TEMPLATE",
    "DEFAULT_WORK_BANK_TEMPLATE",
    "Bank",
    "BankNaming",
    "Banks",
]
