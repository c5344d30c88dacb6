"""State cards (seed 004): one small current-state document per (user, session).

A card says where a conversation stands — its goal, the progress so far, the decisions
made, the questions still open, the next step — plus a bounded map of free ``fields``.
``Cards.upsert`` changes only what it is given and keeps every revision: the store saves
the new document by compare-and-set on its revision and appends the revision (who saved
it, when by the injected clock, and the diff from the one before) in the same
transaction. A caller that passes ``expected_revision`` gets ``ConflictError`` when
someone saved since; one that does not has its change re-applied to the newer card, so
no writer ever silently overwrites another's fields.

Nothing here renders prompts (``workspace.render``) or knows a surface; the store keeps
the card as JSON text this module writes and reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import ConflictError, ValidationError
from ..stores.workspace_values import CardRevision as StoredRevision
from ..stores.workspace_values import StoredCard
from ..validation import check_ident, check_short_text, make_scope, shown
from .links import Links, WorkspaceBackend, require_store

#: Limits of a card, so one always fits a prompt's top and a runaway writer is refused.
MAX_GOAL_CHARS = 1000
MAX_PROGRESS_CHARS = 4000
MAX_NEXT_STEP_CHARS = 1000
MAX_LIST_ITEMS = 50  # decisions, open questions
MAX_ITEM_CHARS = 1000
MAX_FIELDS = 32
MAX_FIELD_KEY_CHARS = 64
MAX_FIELD_VALUE_CHARS = 2000
MAX_CARD_CHARS = 32 * 1024  # the whole card, every part counted
MAX_ACTOR_CHARS = 128

#: How often a change without ``expected_revision`` is re-applied while others save first.
UPSERT_ATTEMPTS = 8

#: The typed parts of a card, in the order a card is shown.
TEXT_PARTS = ("goal", "progress", "next_step")
LIST_PARTS = ("decisions", "open_questions")
PARTS = ("goal", "progress", "decisions", "open_questions", "next_step", "fields")


@dataclass(frozen=True, slots=True)
class StateCard:
    """The content of a card: the typed schema and the free ``fields``."""

    goal: str = ""
    progress: str = ""
    decisions: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    next_step: str = ""
    fields: Mapping[str, str] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not any(
            (
                self.goal,
                self.progress,
                self.decisions,
                self.open_questions,
                self.next_step,
                self.fields,
            )
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "progress": self.progress,
            "decisions": list(self.decisions),
            "open_questions": list(self.open_questions),
            "next_step": self.next_step,
            "fields": dict(sorted(self.fields.items())),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


def screened_content(card: StateCard, text: Callable[[str], str]) -> StateCard:
    """``card`` with ``text`` (a screen) applied to every string it holds, keys included."""
    return StateCard(
        goal=text(card.goal),
        progress=text(card.progress),
        decisions=tuple(text(d) for d in card.decisions),
        open_questions=tuple(text(q) for q in card.open_questions),
        next_step=text(card.next_step),
        fields={text(k): text(v) for k, v in card.fields.items()},
    )


@dataclass(frozen=True, slots=True)
class Card:
    """A session's card as stored: its content, revision (0: never saved), who saved it
    last and when, and the workspace its session belongs to (None: not linked yet)."""

    user_id: str
    session_id: str
    content: StateCard
    revision: int
    actor: str | None
    updated_at: datetime | None
    workspace_id: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """One part of a card that a revision changed: a text part's value before and
    after, the items a list part gained and lost, or one free field (``fields.<key>``;
    None: absent on that side)."""

    part: str
    before: str | None = None
    after: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        if self.part in LIST_PARTS:
            return {"part": self.part, "added": list(self.added), "removed": list(self.removed)}
        return {"part": self.part, "before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True)
class Revision:
    """One revision of a card, kept for good: the content as saved, who saved it, when,
    and what changed from the revision before."""

    revision: int
    content: StateCard
    actor: str
    changed_at: datetime
    changes: tuple[Change, ...]


# -- checking what callers send ------------------------------------------------------


def _text(value: object, part: str, limit: int) -> str:
    return check_short_text(value, part, limit)


def _items(value: object, part: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValidationError(
            f"{part} must be a list of short texts, got {shown(value)}", field=part
        )
    if len(value) > MAX_LIST_ITEMS:
        raise ValidationError(
            f"{part} has {len(value)} items, over the limit of {MAX_LIST_ITEMS}: keep the "
            "ones that still matter",
            field=part,
        )
    out: list[str] = []
    for i, item in enumerate(value):
        text = check_short_text(item, f"{part}[{i}]", MAX_ITEM_CHARS)
        if text and text not in out:
            out.append(text)
    return tuple(out)


def _field_key(key: object) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ValidationError(
            f"a card field's name must be non-empty text, got {shown(key)}", field="fields"
        )
    return check_short_text(key, "fields (a name)", MAX_FIELD_KEY_CHARS)


def _fields_patch(value: object) -> dict[str, str | None]:
    """A patch of free fields: a text value sets the field, None (or '') removes it."""
    if not isinstance(value, Mapping):
        raise ValidationError(
            f"fields must be a map of names to short texts, got {shown(value)}", field="fields"
        )
    if len(value) > MAX_FIELDS:
        raise ValidationError(
            f"fields has {len(value)} names, over the limit of {MAX_FIELDS}", field="fields"
        )
    out: dict[str, str | None] = {}
    for key, item in value.items():
        name = _field_key(key)
        text = (
            None
            if item is None
            else check_short_text(item, f"fields.{name}", MAX_FIELD_VALUE_CHARS)
        )
        out[name] = text or None
    return out


def check_actor(actor: object) -> str:
    """Who saves a revision: a surface or person, named in at most 128 characters."""
    text = check_short_text(actor, "actor", MAX_ACTOR_CHARS)
    if not text:
        raise ValidationError(
            "actor is empty: name who saves the card (e.g. 'tool', 'api', 'ui')", field="actor"
        )
    return text


def check_card(card: StateCard) -> StateCard:
    """A whole card within its limits (each part, the number of fields, the total)."""
    if len(card.fields) > MAX_FIELDS:
        raise ValidationError(
            f"the card would have {len(card.fields)} fields, over the limit of {MAX_FIELDS}: "
            "remove some (send them as null)",
            field="fields",
        )
    total = (
        len(card.goal)
        + len(card.progress)
        + len(card.next_step)
        + sum(map(len, card.decisions))
        + sum(map(len, card.open_questions))
        + sum(len(k) + len(v) for k, v in card.fields.items())
    )
    if total > MAX_CARD_CHARS:
        raise ValidationError(
            f"the card would be {total} characters, over the limit of {MAX_CARD_CHARS}: "
            "summarise the progress or drop settled questions",
            field="card",
            size=total,
            limit=MAX_CARD_CHARS,
        )
    return card


@dataclass(frozen=True, slots=True)
class CardPatch:
    """What an upsert changes; a part left None keeps its value. ``fields`` merges: a
    name with a text sets that field, one with None removes it."""

    goal: str | None = None
    progress: str | None = None
    decisions: tuple[str, ...] | None = None
    open_questions: tuple[str, ...] | None = None
    next_step: str | None = None
    fields: Mapping[str, str | None] | None = None

    @classmethod
    def of(
        cls,
        *,
        goal: object = None,
        progress: object = None,
        decisions: object = None,
        open_questions: object = None,
        next_step: object = None,
        fields: object = None,
    ) -> CardPatch:
        """A patch from caller values, each checked against its limit."""
        return cls(
            goal=None if goal is None else _text(goal, "goal", MAX_GOAL_CHARS),
            progress=None if progress is None else _text(progress, "progress", MAX_PROGRESS_CHARS),
            decisions=None if decisions is None else _items(decisions, "decisions"),
            open_questions=(
                None if open_questions is None else _items(open_questions, "open_questions")
            ),
            next_step=(
                None if next_step is None else _text(next_step, "next_step", MAX_NEXT_STEP_CHARS)
            ),
            fields=None if fields is None else _fields_patch(fields),
        )

    def is_empty(self) -> bool:
        return all(getattr(self, part) is None for part in PARTS)

    def apply(self, card: StateCard, *, replace: bool = False) -> StateCard:
        """The card with this patch applied (``replace``: the parts not given are
        emptied rather than kept)."""
        base = StateCard() if replace else card
        fields = dict(base.fields)
        for name, value in (self.fields or {}).items():
            if value is None:
                fields.pop(name, None)
            else:
                fields[name] = value
        return check_card(
            StateCard(
                goal=base.goal if self.goal is None else self.goal,
                progress=base.progress if self.progress is None else self.progress,
                decisions=base.decisions if self.decisions is None else self.decisions,
                open_questions=(
                    base.open_questions if self.open_questions is None else self.open_questions
                ),
                next_step=base.next_step if self.next_step is None else self.next_step,
                fields=fields,
            )
        )


# -- diffs and the stored JSON ----------------------------------------------------------


def diff(before: StateCard, after: StateCard) -> tuple[Change, ...]:
    """What changed from ``before`` to ``after``, part by part, in the card's order."""
    out: list[Change] = []
    for part in ("goal", "progress"):
        a, b = getattr(before, part), getattr(after, part)
        if a != b:
            out.append(Change(part, before=a, after=b))
    for part in LIST_PARTS:
        a_items, b_items = getattr(before, part), getattr(after, part)
        if a_items != b_items:
            added = tuple(i for i in b_items if i not in a_items)
            removed = tuple(i for i in a_items if i not in b_items)
            out.append(Change(part, added=added, removed=removed))
    if before.next_step != after.next_step:
        out.append(Change("next_step", before=before.next_step, after=after.next_step))
    for name in sorted(set(before.fields) | set(after.fields)):
        a_value, b_value = before.fields.get(name), after.fields.get(name)
        if a_value != b_value:
            out.append(Change(f"fields.{name}", before=a_value, after=b_value))
    return tuple(out)


def _diff_json(changes: Sequence[Change]) -> str:
    return json.dumps([c.to_dict() for c in changes], ensure_ascii=False)


def _changes_of(text: str) -> tuple[Change, ...]:
    out = []
    for item in json.loads(text):
        out.append(
            Change(
                item["part"],
                before=item.get("before"),
                after=item.get("after"),
                added=tuple(item.get("added", ())),
                removed=tuple(item.get("removed", ())),
            )
        )
    return tuple(out)


def card_of_json(text: str) -> StateCard:
    """A stored card document back as a ``StateCard`` (the store holds what we wrote)."""
    data = json.loads(text)
    return StateCard(
        goal=data.get("goal", ""),
        progress=data.get("progress", ""),
        decisions=tuple(data.get("decisions", ())),
        open_questions=tuple(data.get("open_questions", ())),
        next_step=data.get("next_step", ""),
        fields=dict(data.get("fields", {})),
    )


def _revision(stored: StoredRevision) -> Revision:
    return Revision(
        revision=stored.revision,
        content=card_of_json(stored.document),
        actor=stored.actor,
        changed_at=stored.changed_at,
        changes=_changes_of(stored.diff),
    )


# -- the service -------------------------------------------------------------------------


class Cards:
    """The state cards of a store (see the module docstring)."""

    def __init__(self, store: object, clock: Callable[[], datetime]) -> None:
        self._raw = store
        self._clock = clock

    @property
    def _store(self) -> WorkspaceBackend:
        return require_store(self._raw)

    def _card(self, stored: StoredCard | None, user_id: str, session_id: str) -> Card:
        link = self._store.session_link(user_id, session_id)
        workspace = link.workspace_id if link is not None else None
        if stored is None:
            return Card(
                user_id=user_id,
                session_id=session_id,
                content=StateCard(),
                revision=0,
                actor=None,
                updated_at=None,
                workspace_id=workspace,
            )
        return Card(
            user_id=user_id,
            session_id=session_id,
            content=card_of_json(stored.document),
            revision=stored.revision,
            actor=stored.actor,
            updated_at=stored.updated_at,
            workspace_id=workspace,
        )

    def get(self, user_id: str, session_id: str) -> Card:
        """The session's card; an empty one at revision 0 when none was saved."""
        user_id = make_scope(user_id).user_id
        session_id = check_ident(session_id, "session_id")
        return self._card(self._store.get_card(user_id, session_id), user_id, session_id)

    def upsert(
        self,
        user_id: str,
        session_id: str,
        patch: CardPatch,
        *,
        actor: str,
        expected_revision: int | None = None,
        workspace_id: str | None = None,
        replace: bool = False,
    ) -> Card:
        """Apply ``patch`` to the session's card and save it as the next revision.

        ``expected_revision``: the revision the caller read (0: it saw no card); a card
        saved since raises ``ConflictError`` and nothing changes. Without it, a lost
        race re-applies the patch to the newer card. A patch that changes nothing saves
        no revision (on a session without a card: no card). ``workspace_id`` links the
        session to that workspace (refused when it belongs to another).
        """
        user_id = make_scope(user_id).user_id
        session_id = check_ident(session_id, "session_id")
        actor = check_actor(actor)
        if expected_revision is not None and (
            isinstance(expected_revision, bool)
            or not isinstance(expected_revision, int)
            or expected_revision < 0
        ):
            raise ValidationError(
                "expected_revision must be a whole number of at least 0 (0: no card yet)",
                field="expected_revision",
            )
        if not isinstance(patch, CardPatch):
            raise ValidationError("patch must be a CardPatch (CardPatch.of builds one)")
        if not isinstance(replace, bool):
            raise ValidationError("replace must be true or false", field="replace")
        store = self._store
        links = Links(store, self._clock)
        workspace = None if workspace_id is None else check_ident(workspace_id, "workspace_id")
        for _ in range(UPSERT_ATTEMPTS):
            stored = store.get_card(user_id, session_id)
            current = card_of_json(stored.document) if stored is not None else StateCard()
            revision = stored.revision if stored is not None else 0
            if expected_revision is not None and expected_revision != revision:
                raise ConflictError(
                    f"the state card of session {session_id!r} is at revision {revision}, "
                    f"not {expected_revision}: read it again and re-apply the change",
                    revision=revision,
                    session_id=session_id,
                )
            changed = patch.apply(current, replace=replace)
            changes = diff(current, changed)
            if not changes:
                # Nothing to save (not even a first, empty revision); a workspace given
                # still links the session.
                if workspace is not None:
                    links.link(user_id, session_id, workspace)
                return self._card(stored, user_id, session_id)
            try:
                with store.atomic():
                    if workspace is not None:
                        links.link(user_id, session_id, workspace)
                    saved = store.put_card(
                        user_id,
                        session_id,
                        changed.to_json(),
                        revision=revision,
                        diff=_diff_json(changes),
                        actor=actor,
                        now=self._clock(),
                    )
            except ConflictError:
                # Only the card's compare-and-set conflicts here (a link to another
                # workspace is a ValidationError): re-read, unless the caller pinned one.
                if expected_revision is not None:
                    raise
                continue
            return self._card(saved, user_id, session_id)
        raise ConflictError(
            f"the state card of session {session_id!r} kept changing while this change was "
            f"applied ({UPSERT_ATTEMPTS} tries): try again",
            session_id=session_id,
        )

    def revisions(self, user_id: str, session_id: str) -> list[Revision]:
        """Every saved revision of the session's card, oldest first."""
        user_id = make_scope(user_id).user_id
        session_id = check_ident(session_id, "session_id")
        return [_revision(r) for r in self._store.card_revisions(user_id, session_id)]

    def delete(self, user_id: str, session_id: str) -> bool:
        """Drop the session's card and all its revisions; False when there was none.
        The session stays in its workspace while a task still links it."""
        user_id = make_scope(user_id).user_id
        session_id = check_ident(session_id, "session_id")
        store = self._store
        with store.atomic():
            gone = store.delete_card(user_id, session_id)
            Links(store, self._clock).release(user_id, session_id)
        return gone


__all__ = [
    "MAX_CARD_CHARS",
    "MAX_FIELDS",
    "MAX_LIST_ITEMS",
    "Card",
    "CardPatch",
    "Cards",
    "Change",
    "Revision",
    "StateCard",
    "card_of_json",
    "check_actor",
    "check_card",
    "diff",
    "screened_content",
]
