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

from ..errors import ConflictError
from ..results.profile import Profile, parse_profile
from ..stores.protocols import ProfileStore
from ..validation import make_scope

#: How often a change is re-applied when other writers keep saving first.
CHANGE_ATTEMPTS = 8


class Profiles:
    """The profile documents of a store (see the module docstring)."""

    def __init__(self, store: ProfileStore, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock

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
    ) -> tuple[Profile, int]:
        """Apply ``change`` to the current profile and save it; the saved profile and its
        revision. Re-applied on a newer document when another writer saved first."""
        store = self._store
        user_id, agent_id = _key(user_id, agent_id)
        for _ in range(CHANGE_ATTEMPTS):
            profile, revision = self.read(user_id, agent_id)
            changed = change(profile.model_copy(deep=True))
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

    def replace(self, user_id: str, agent_id: str | None, profile: Profile) -> int:
        """Save ``profile`` whole, over whatever is stored; its new revision."""
        return self.change(user_id, agent_id, lambda _old: profile)[1]

    def delete(self, user_id: str, agent_id: str | None = None) -> bool:
        user_id, agent_id = _key(user_id, agent_id)
        return self._store.delete_profile(user_id, agent_id)


def _key(user_id: str, agent_id: str | None) -> tuple[str, str | None]:
    scope = make_scope(user_id, agent_id)
    return scope.user_id, scope.agent_id


__all__ = ["CHANGE_ATTEMPTS", "Profiles"]
