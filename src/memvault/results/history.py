"""A fact's history as calls return it: one ``Version`` per period the entry was current
(``Vault.history``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import MemoryEntry


@dataclass(frozen=True, slots=True)
class Version:
    """One period in the history of a fact: the entry as it was while it was current.

    ``valid_from`` is when the change that made this state happened (``at`` of it),
    ``valid_to`` when the next change ended it (None: it is the current fact);
    ``actor`` and ``action`` say who made that change and what it was (``added``,
    ``supersede``, ``update``, ``undo``), ``changed`` the fields it changed.
    """

    entry: MemoryEntry
    valid_from: datetime
    valid_to: datetime | None
    actor: str
    action: str
    changed: tuple[str, ...] = ()

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry.to_dict(),
            "valid_from": self.valid_from.isoformat(),
            "valid_to": None if self.valid_to is None else self.valid_to.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "changed": list(self.changed),
            "current": self.current,
        }


__all__ = ["Version"]
