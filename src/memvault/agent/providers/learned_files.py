"""Extracted facts mirrored into the builtin files (seed 000 §6, §13.2).

The vault holds every fact an extraction learns; the builtin files are the small, always
injected profile. ``FilesMirror`` listens to the vault's extractions (``Vault.on_learned``)
and writes each new fact where the seed routes its category: the person's facts
(preference, personal_info, identity) into USER.md, shared by every agent; the rest into
the MEMORY.md of the agent the conversation was with. A correction replaces the entry
holding the old fact's text, a removal removes it.

"When it fits": a fact that would push a file past its character limit is not written
there (it stays in the vault and the profile, where recall finds it) and is counted in
``did_not_fit``; it still goes to the external provider's bank of its category, as the
files' writes do (``BuiltinFileProvider.announce``), and so does its removal; a fact
already in the file changes nothing; a fact the file's own security scan refuses is
counted in ``refused``. A failure here never undoes the extraction: the files are a
mirror.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import CharLimitError, MemvaultError, SecurityError
from ...results.profile import USER_CATEGORIES, Learned
from ..provider import WriteTarget
from .builtin import BuiltinFileProvider

log = logging.getLogger(__name__)

BuiltinFor = Callable[[str, str | None], BuiltinFileProvider | None]


@dataclass
class MirrorCounts:
    written: int = 0
    replaced: int = 0
    removed: int = 0
    unchanged: int = 0
    did_not_fit: int = 0
    refused: int = 0


def target_of(category: str) -> WriteTarget:
    """USER.md for the facts about the person, MEMORY.md for the rest."""
    return "user" if category in USER_CATEGORIES else "memory"


class FilesMirror:
    """A ``Vault.on_learned`` listener writing facts into USER.md / MEMORY.md.

    ``builtin_for(user_id, agent_id)`` gives the files provider of that user and agent
    (None: that user's files are switched off, nothing is written)."""

    def __init__(self, builtin_for: BuiltinFor) -> None:
        self._builtin_for = builtin_for
        self._lock = threading.Lock()
        self.counts = MirrorCounts()

    def __call__(self, learned: Learned) -> None:
        if not (learned.added or learned.removed_text):
            return
        provider = self._builtin_for(learned.user_id, learned.agent_id)
        if provider is None:
            return
        with self._lock:
            for added in learned.added:
                fact = added.fact
                old = learned.replaced_text.get(fact.id)
                self._write(provider, target_of(fact.category), fact.content, old)
            for text in learned.removed_text:
                self._remove(provider, text)

    def _write(
        self, provider: BuiltinFileProvider, target: WriteTarget, content: str, old: str | None
    ) -> None:
        counts = self.counts
        try:
            if old is not None and old in provider.entries(target):
                index = provider.entries(target).index(old)
                provider.replace_at(target, index, content, expected=old)
                counts.replaced += 1
                return
            result = provider.add(target, content)
        except CharLimitError:
            counts.did_not_fit += 1
            log.info("an extracted fact did not fit %s; it stays in the vault", target)
            provider.announce("add", target, content)
            return
        except SecurityError as exc:
            counts.refused += 1
            log.warning("an extracted fact was refused by the %s file: %s", target, exc)
            return
        except MemvaultError as exc:
            log.warning("an extracted fact was not mirrored into %s: %s", target, exc)
            return
        if result.changed:
            counts.written += 1
        else:
            counts.unchanged += 1

    def _remove(self, provider: BuiltinFileProvider, text: str) -> None:
        targets: tuple[WriteTarget, ...] = ("user", "memory")
        if not any(text in provider.entries(target) for target in targets):
            # Never written to the files (it did not fit): the banks may hold it.
            for target in targets:
                provider.announce("remove", target, text)
            return
        for target in targets:
            entries = provider.entries(target)
            if text not in entries:
                continue
            try:
                provider.remove_at(target, entries.index(text), expected=text)
                self.counts.removed += 1
            except MemvaultError as exc:
                log.warning("a removed fact stays in %s: %s", target, exc)


__all__ = ["BuiltinFor", "FilesMirror", "MirrorCounts", "target_of"]
