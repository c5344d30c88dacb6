"""The deprecated flat names of ``Vault`` (before its namespaces), as one table.

``Vault`` derives from :class:`FlatNames`, so each old name still works (warning, see
``deprecated.Deprecated``) while the facade itself holds only its own calls. The list
is ``docs/quickstart.md``'s "Deprecated aliases": the names the public API promised.
"""

from __future__ import annotations

from ..review import ReviewService
from .admin import Admin
from .decisions import Decisions
from .deprecated import Deprecated
from .entities import Entities
from .learning import Learning
from .reveal import Reveal
from .workspace import Workspace


class FlatNames:
    """The deprecated flat names of ``Vault``, each reading its namespace (``vault.<space>``)."""

    upsert_card = Deprecated("workspace", Workspace.upsert_card)
    card_revisions = Deprecated("workspace", Workspace.card_revisions)
    card_text = Deprecated("workspace", Workspace.card_text)
    tasks = Deprecated("workspace", Workspace.tasks)
    add_task = Deprecated("workspace", Workspace.add_task)
    update_task = Deprecated("workspace", Workspace.update_task)
    move_task = Deprecated("workspace", Workspace.move_task)
    workspace_sessions = Deprecated("workspace", Workspace.sessions)
    entity = Deprecated("entities", Entities.get)
    add_alias = Deprecated("entities", Entities.add_alias)
    merge_entities = Deprecated("entities", Entities.merge)
    entity_graph = Deprecated("entities", Entities.graph)
    entity_memories = Deprecated("entities", Entities.memories)
    set_reveal_secret = Deprecated("reveal", Reveal.set_secret)
    reset_reveal_secret = Deprecated("reveal", Reveal.reset_secret)
    authorize_reveal = Deprecated("reveal", Reveal.authorize)
    unlock_reveal = Deprecated("reveal", Reveal.unlock)
    audit_log = Deprecated("reveal", Reveal.audit_log)
    quarantined = Deprecated("review", ReviewService.quarantined)
    approve = Deprecated("review", ReviewService.approve)
    reject = Deprecated("review", ReviewService.reject)
    decide = Deprecated("decisions", Decisions.decide)
    decision_history = Deprecated("decisions", Decisions.history)
    conflicts = Deprecated("decisions", Decisions.conflicts)
    flush_learning = Deprecated("learning", Learning.flush)
    users = Deprecated("admin", Admin.users)
    user_total = Deprecated("admin", Admin.user_total)
    llm_usage = Deprecated("admin", Admin.llm_usage)


__all__ = ["FlatNames"]
