"""The structured profile of one user (seed 001 §1.2): who they are now, how they got
here, and what is known about them, distilled from conversations.

Three layers with three lifetimes:

* ``user`` — ``workContext``, ``personalContext``, ``topOfMind``: the current state,
  replaced when it changes;
* ``history`` — ``recentMonths``, ``earlierContext``, ``longTermBackground``: the
  timeline, replaced period by period;
* ``facts`` — discrete facts, each with a category and a confidence, added and removed
  one at a time; each keeps where it came from (``FactSource``: the conversation and
  the messages) and, once written there, the id of its vault entry.

The JSON shape is V1's (camelCase keys, ``version``), so a V1 ``memory.json`` reads as
a profile and a profile exported for V1 tools reads back. There is one profile per user
and agent (``agent_id`` None: the user's own); the store keeps it with a revision number,
so two writers never overwrite each other's change unseen (``ProfileStore``).

Beside the document: what one extraction learnt (``Learned``) and what ``remember`` did
with a conversation (``Remembered``), as the engine returns them and the HTTP client
decodes them (the package docstring says why they live here).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic import ValidationError as PydanticValidationError

from ..errors import ValidationError

PROFILE_VERSION = "1.0"

USER_SECTIONS: tuple[str, ...] = ("workContext", "personalContext", "topOfMind")
HISTORY_SECTIONS: tuple[str, ...] = ("recentMonths", "earlierContext", "longTermBackground")

Category = Literal[
    "preference", "personal_info", "identity", "knowledge", "context", "behavior", "goal"
]
CATEGORIES: tuple[str, ...] = (
    "preference",
    "personal_info",
    "identity",
    "knowledge",
    "context",
    "behavior",
    "goal",
)
#: Facts about the person, shared by every agent (seed 000 §6): the user's memory.
USER_CATEGORIES = frozenset({"preference", "personal_info", "identity"})
#: Facts of the work with one agent: that agent's memory.
AGENT_CATEGORIES = frozenset(CATEGORIES) - USER_CATEGORIES

MAX_FACT_CHARS = 2000
MAX_SUMMARY_CHARS = 4000


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Section(_Model):
    """One summary of the profile and when it last changed."""

    summary: str = Field("", max_length=MAX_SUMMARY_CHARS)
    updated_at: datetime | None = Field(None, alias="updatedAt")

    @field_validator("updated_at", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value


class UserContext(_Model):
    work_context: Section = Field(default_factory=Section, alias="workContext")
    personal_context: Section = Field(default_factory=Section, alias="personalContext")
    top_of_mind: Section = Field(default_factory=Section, alias="topOfMind")


class History(_Model):
    recent_months: Section = Field(default_factory=Section, alias="recentMonths")
    earlier_context: Section = Field(default_factory=Section, alias="earlierContext")
    long_term_background: Section = Field(default_factory=Section, alias="longTermBackground")


class FactSource(_Model):
    """Where a fact was learnt: the conversation, and the messages in it (their ids when
    the messages had ids, and their positions in the list that was handed over)."""

    thread_id: str | None = Field(None, alias="threadId")
    session_id: str | None = Field(None, alias="sessionId")
    message_ids: list[str] = Field(default_factory=list, alias="messageIds")
    message_indexes: list[int] = Field(default_factory=list, alias="messageIndexes")
    #: The vault entries that archived those messages (``Vault.remember``).
    turn_entry_ids: list[str] = Field(default_factory=list, alias="turnEntryIds")
    at: datetime | None = None


class Fact(_Model):
    """One discrete fact about the user (or their work with an agent)."""

    id: str = Field(min_length=1, max_length=64)
    content: str = Field(min_length=1, max_length=MAX_FACT_CHARS)
    category: Category = "context"
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    created_at: datetime | None = Field(None, alias="createdAt")
    updated_at: datetime | None = Field(None, alias="updatedAt")
    #: How many later conversations said the same again (seed 000 §9: reinforcement).
    reinforced: int = Field(0, ge=0)
    #: The fact this one corrected, when it replaced an older one.
    replaces: str | None = None
    sources: list[FactSource] = Field(default_factory=list)
    #: The vault entry that holds this fact for recall, once written.
    entry_id: str | None = Field(None, alias="entryId")

    @field_validator("created_at", "updated_at", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @model_validator(mode="before")
    @classmethod
    def _v1_source(cls, data: object) -> object:
        """A V1 fact's ``source`` (the thread it was learnt in) becomes its first
        ``sources`` entry, so a real V1 file reads as written (seed 001 §1.2)."""
        if not isinstance(data, dict) or "source" not in data:
            return data
        data = dict(data)
        source = data.pop("source")
        if isinstance(source, str) and source.strip() and not data.get("sources"):
            data["sources"] = [{"threadId": source.strip()}]
        return data


class Profile(_Model):
    """The whole document (see the module docstring)."""

    version: str = PROFILE_VERSION

    @model_validator(mode="before")
    @classmethod
    def _v1_last_updated(cls, data: object) -> object:
        """V1's top-level ``lastUpdated`` is accepted and dropped: the store keeps its own
        revision and each section and fact its own time."""
        if isinstance(data, dict) and "lastUpdated" in data:
            data = {key: value for key, value in data.items() if key != "lastUpdated"}
        return data

    user: UserContext = Field(default_factory=UserContext)
    history: History = Field(default_factory=History)
    facts: list[Fact] = Field(default_factory=list)

    def section(self, name: str) -> Section:
        """A section by its JSON name (``workContext`` … ``longTermBackground``)."""
        for group in (self.user, self.history):
            for field_name, info in type(group).model_fields.items():
                if info.alias == name:
                    value = getattr(group, field_name)
                    assert isinstance(value, Section)
                    return value
        raise ValidationError(
            f"unknown profile section {name!r}; sections: "
            f"{', '.join(USER_SECTIONS + HISTORY_SECTIONS)}",
            field="section",
        )

    def fact(self, fact_id: str) -> Fact | None:
        return next((f for f in self.facts if f.id == fact_id), None)

    def to_json(self) -> str:
        """The V1-shaped JSON text (camelCase keys)."""
        return self.model_dump_json(by_alias=True)

    def to_dict(self) -> dict[str, object]:
        data = json.loads(self.to_json())
        assert isinstance(data, dict)
        return data


def texts_of(profile: Profile) -> list[str]:
    """The free text of a profile: its summaries and its facts' contents."""
    sections = [*profile.user.model_dump().values(), *profile.history.model_dump().values()]
    return [s["summary"] for s in sections] + [f.content for f in profile.facts]


def with_texts(profile: Profile, text: Callable[[str], str]) -> Profile:
    """``profile`` with ``text`` applied to each summary and fact content."""
    copy = profile.model_copy(deep=True)
    for group in (copy.user, copy.history):
        for name in type(group).model_fields:
            section = getattr(group, name)
            section.summary = text(section.summary)
    for fact in copy.facts:
        fact.content = text(fact.content)
    return copy


def parse_profile(data: str | bytes | dict[str, object], *, origin: str = "profile") -> Profile:
    """A profile from its JSON text or decoded object; ``ValidationError`` naming
    ``origin`` and the first problem when it is not one."""
    try:
        if isinstance(data, str | bytes):
            return Profile.model_validate_json(data)
        return Profile.model_validate(data)
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "(top level)"
        raise ValidationError(
            f"{origin} is not a valid profile document: {where}: {first.get('msg')}",
            field="profile",
        ) from None


Status = Literal["learned", "nothing_new", "no_llm", "disabled", "failed", "over_budget"]


@dataclass(frozen=True)
class LearnedFact:
    """A fact one extraction added: the profile it went to (``agent_id`` None: the
    user's own) and its vault entry (None when the write was refused)."""

    fact: Fact
    agent_id: str | None
    entry_id: str | None


@dataclass
class Learned:
    """What one extraction did, for logs, listeners and ``remember(wait=True)``."""

    user_id: str
    agent_id: str | None
    thread_id: str
    status: Status
    added: list[LearnedFact] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    corrected: dict[str, str] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    #: The text of what was corrected (by the new fact's id) and of what was removed, for
    #: mirrors that find entries by their text (USER.md / MEMORY.md).
    replaced_text: dict[str, str] = field(default_factory=dict)
    removed_text: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    dropped_low_confidence: int = 0
    dropped_over_limit: int = 0
    merged: int = 0
    refused: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "thread_id": self.thread_id,
            "added": [
                {
                    "id": a.fact.id,
                    "content": a.fact.content,
                    "category": a.fact.category,
                    "confidence": a.fact.confidence,
                    "agent_id": a.agent_id,
                    "entry_id": a.entry_id,
                    "replaces": a.fact.replaces,
                }
                for a in self.added
            ],
            "reinforced": list(self.reinforced),
            "corrected": dict(self.corrected),
            "removed": list(self.removed),
            "sections": list(self.sections),
            "dropped_low_confidence": self.dropped_low_confidence,
            "dropped_over_limit": self.dropped_over_limit,
            "merged": self.merged,
            "refused": list(self.refused),
            "error": self.error,
        }


Extraction = Literal["queued", "done", "no_llm", "disabled", "nothing_to_learn"]


@dataclass
class Remembered:
    """What ``remember`` did with one conversation."""

    session_id: str
    thread_id: str
    received: int
    kept: int
    archived: list[str] = field(default_factory=list)  # new turn entry ids
    already_archived: int = 0
    refused: int = 0  # messages the security scan would not store
    extraction: Extraction = "queued"
    note: str = ""
    learned: Learned | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "thread_id": self.thread_id,
            "received": self.received,
            "kept": self.kept,
            "dropped": self.received - self.kept,
            "archived": list(self.archived),
            "already_archived": self.already_archived,
            "refused": self.refused,
            "extraction": self.extraction,
            "note": self.note,
            "learned": self.learned.to_dict() if self.learned is not None else None,
        }


__all__ = [
    "AGENT_CATEGORIES",
    "CATEGORIES",
    "HISTORY_SECTIONS",
    "PROFILE_VERSION",
    "USER_CATEGORIES",
    "USER_SECTIONS",
    "Category",
    "Extraction",
    "Fact",
    "FactSource",
    "History",
    "Learned",
    "LearnedFact",
    "Profile",
    "Remembered",
    "Section",
    "Status",
    "UserContext",
    "parse_profile",
]
