"""A whole user's data in and out: the memories (``transfer``) with the workspace, and
erasure.

``Vault.export`` / ``import_report`` call this: the memory lines come from and go to
``Transfer``, the state cards and tasks from and to ``workspace.archive`` (in the same
store transaction on import). The workspace is the user's, never one agent's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, Literal

from ..errors import ValidationError
from ..profile.learn import Learner
from ..security.screen import TextScreen
from ..stores.protocols import Store
from ..validation import make_scope
from ..workspace.archive import WorkspaceImport, export_lines
from .transfer import ImportReport, Transfer
from .views import owner_view


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValidationError("workspace must be true or false", field="workspace")
    return value


class Backup:
    """Export and import of a user's memories, with or without their workspace."""

    def __init__(
        self,
        transfer: Transfer,
        learner: Learner,
        store: Store,
        clock: Callable[[], datetime],
        screen: TextScreen,
    ) -> None:
        self._transfer = transfer
        self._learner = learner
        self._store = store
        self._clock = clock
        self._screen = screen

    def export(
        self, user_id: str, agent_id: str | None, *, workspace: object
    ) -> Iterator[dict[str, Any]]:
        """The caller's entries as JSON-ready dicts, then (``workspace``) the user's
        cards and tasks; refused with an agent id, as the workspace is the user's."""
        if _flag(workspace) and agent_id is not None:
            raise ValidationError(
                "the workspace (state cards and tasks) is the user's, not one agent's: "
                "export it without agent_id",
                field="workspace",
            )
        yield from self._transfer.export(owner_view(user_id, agent_id))
        if workspace:
            yield from export_lines(self._store, make_scope(user_id).user_id)

    def import_report(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"],
        workspace: object,
    ) -> ImportReport:
        """Import the records, all or nothing; ``workspace=False`` refuses card and
        task lines."""
        accept = _flag(workspace)
        others = WorkspaceImport(self._store, self._clock, accept=accept, screen=self._screen)
        memories = self._transfer.import_(
            records, user_id=user_id, on_conflict=on_conflict, others=others
        )
        done = others.imported
        return ImportReport(memories, done.cards, done.revisions, done.tasks)

    def erase_user(self, user_id: str, *, actor: str) -> int:
        """Erase every trace of a user (``Transfer.erase_user``), dropping first the
        conversations of theirs still waiting to be learnt from."""
        with self._learner.user_lock(user_id):
            self._learner.forget_user(user_id)
            return self._transfer.erase_user(user_id=user_id, actor=actor)


__all__ = ["Backup"]
