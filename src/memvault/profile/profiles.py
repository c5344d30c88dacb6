"""Reading and saving profile documents on the store, one read-change-write at a time.

A change is a function from the profile to the new profile. ``Profiles.change`` reads
the stored document and its revision, applies the function, and saves only if nobody
saved since (``ProfileStore.put_profile``); when someone did, it reads again and applies
the function to the newer document — so an extraction that took a minute of model time
never overwrites what a person or another extraction saved meanwhile, and the function
is re-applied rather than its old result written.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..errors import ConflictError, SecurityError, ValidationError
from ..results.profile import (
    HISTORY_SECTIONS,
    USER_SECTIONS,
    Profile,
    parse_profile,
    texts_of,
    with_texts,
)
from ..security.screen import Door, TextScreen
from ..stores.protocols import ProfileStore
from ..validation import make_scope

SECTIONS = USER_SECTIONS + HISTORY_SECTIONS

#: How often a change is re-applied when other writers keep saving first.
CHANGE_ATTEMPTS = 8


class Profiles:
    """The profile documents of a store (see the module docstring)."""

    def __init__(
        self, store: ProfileStore, clock: Callable[[], datetime], screen: TextScreen | None = None
    ) -> None:
        self._store = store
        self._clock = clock
        # The profile is rendered to models (summarize_me, the V1 prompt block): new
        # summaries and facts pass the one screen, whoever wrote them.
        self._screen = screen or TextScreen()

    def read(self, user_id: str, agent_id: str | None = None) -> tuple[Profile, int]:
        """The profile (an empty one when none was saved) and its revision (0: none)."""
        user_id, agent_id = _key(user_id, agent_id)
        stored = self._store.get_profile(user_id, agent_id)
        if stored is None:
            return Profile(), 0
        return parse_profile(stored.document, origin="the stored profile"), stored.revision

    def change(
        self,
        user_id: str,
        agent_id: str | None,
        change: Callable[[Profile], Profile],
        *,
        drop_flagged: bool = False,
    ) -> tuple[Profile, int]:
        """Apply ``change`` to the current profile and save it; the saved profile and its
        revision. Re-applied on a newer document when another writer saved first.

        New text passes the screen: what it flags is refused (``SecurityError``), or with
        ``drop_flagged`` (a machine writer: extraction) left out, the fact dropped and the
        section keeping its summary, so one poisoned turn does not stop the learning."""
        store = self._store
        user_id, agent_id = _key(user_id, agent_id)
        for _ in range(CHANGE_ATTEMPTS):
            profile, revision = self.read(user_id, agent_id)
            changed = change(profile.model_copy(deep=True))
            if drop_flagged:
                changed = self._unflagged(profile, changed)
            changed = self._screened(profile, changed)
            try:
                saved = store.put_profile(
                    user_id, agent_id, changed.to_json(), revision=revision, now=self._clock()
                )
            except ConflictError:
                continue
            return changed, saved.revision
        raise ConflictError(
            f"the profile of user {user_id!r} kept changing while this change was applied "
            f"({CHANGE_ATTEMPTS} tries): try again",
            user_id=user_id,
        )

    def _screened(self, before: Profile, after: Profile) -> Profile:
        """``after`` with each text that ``before`` did not hold screened (what was
        stored already passed, or predates the screen)."""
        kept = set(texts_of(before))

        def text(value: str) -> str:
            return value if value in kept else self._screen(value, Door.PROFILE)

        return with_texts(after, text)

    def _unflagged(self, before: Profile, after: Profile) -> Profile:
        """``after`` without the new facts and summaries the screen would refuse."""
        kept = set(texts_of(before))

        def passes(text: str) -> bool:
            try:
                self._screen(text, Door.PROFILE)
            except SecurityError:
                return False
            return True

        out = after.model_copy(deep=True)
        out.facts = [f for f in out.facts if f.content in kept or passes(f.content)]
        for name in SECTIONS:
            section, old = out.section(name), before.section(name)
            if section.summary not in kept and not passes(section.summary):
                section.summary, section.updated_at = old.summary, old.updated_at
        return out

    def replace(self, user_id: str, agent_id: str | None, profile: Profile) -> int:
        """Save ``profile`` whole, over whatever is stored; its new revision."""
        if not isinstance(profile, Profile):
            raise ValidationError(
                "profile must be a Profile (memvault.profile.parse_profile reads one from JSON)",
                field="profile",
            )
        return self.change(user_id, agent_id, lambda _old: profile)[1]

    def delete(self, user_id: str, agent_id: str | None = None) -> bool:
        user_id, agent_id = _key(user_id, agent_id)
        return self._store.delete_profile(user_id, agent_id)


def _key(user_id: str, agent_id: str | None) -> tuple[str, str | None]:
    scope = make_scope(user_id, agent_id)
    return scope.user_id, scope.agent_id


__all__ = ["CHANGE_ATTEMPTS", "Profiles"]
