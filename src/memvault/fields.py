"""The one table of ``MemoryEntry`` fields: what each is, and what every layer does with it.

``FIELDS`` has one :class:`FieldSpec` per field of ``model.MemoryEntry``, in the same
order. Each row says the field's value type and default, how it is stored (the column's
SQL type and encoding), which rule of ``memvault.validation`` checks it (with its length
limit), whether an import record keeps it, whether ``update`` may change it (and what
None means there), and whether the HTTP create and update bodies expose it.

Read by (``READERS``; ``tests/test_fields.py`` keeps the list true):

* ``stores.rows``: the column list and the row encoding, both ways;
* ``stores.memory`` and ``stores.mysql.entries``: which fields feed the embedder (a change
  drops the vector; SQLite's trigger names them itself);
* ``validation``: ``check_field``, the one rule per field, and the length limits;
* ``stores.values``: the filter fields named like an entry field, which select by an
  equal value (``EQUAL_FIELDS``, compared in ``stores.sql.clauses`` too);
* ``engine.views``: a filter word is checked by its field's rule (``check_filter``);
* ``engine.write``: the draft's defaults, the patchable fields, the protected (redacted) fields;
* ``engine.transfer``: the fields an import record may carry;
* ``integrations.langgraph`` and ``integrations.anthropic_memory``: the title's length limit.

Typed mirrors stay written out, so a type checker sees every field: ``MemoryEntry``,
``engine.write.Draft`` and ``engine.write.Patch``, the words of ``Vault.add`` /
``Vault.update`` (``engine.words``) and the HTTP bodies of ``server/schemas.py``.
``tests/test_fields.py`` checks each against this table (names, types, enums,
optionality) and the SQLite ``memories`` columns against the stored rows, so a field
added here and forgotten there fails a test.

How to add a field
------------------
1. Add its row below, where it should sit in ``MemoryEntry``.
2. Add the attribute to ``model.MemoryEntry`` with the row's type and default; if the row
   says an import keeps it, to ``engine.write.Draft``; if update may change it, to
   ``engine.write.Patch`` and ``engine.words.Changes``; if HTTP exposes it, to the bodies in
   ``server/schemas.py``; and to ``server.schemas.Entry``, which returns every field.
3. A stored field needs a migration: ``ALTER TABLE memories ADD COLUMN ...`` in
   ``stores/sqlite/schema.py`` and ``stores/mysql/schema.py`` (and in each other backend),
   with the row's SQL type and ``NOT NULL DEFAULT ...`` unless the field is optional. The
   row mapping, the import field set, the update rules and the validation follow from the
   row.
4. Run ``tests/test_fields.py``: it names every place still missing the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any, Final

from .model import DecisionStatus, Domain, Kind, MemClass, Sensitivity, Source, Tier

#: Longest title, category or hold reason; longest description (characters).
MAX_NAME_CHARS: Final = 255
MAX_DESCRIPTION_CHARS: Final = 500


class Column(StrEnum):
    """How a stored field is written in its column."""

    TEXT = "text"  # a string, as is
    REAL = "real"  # a float
    INTEGER = "integer"  # an int
    ENUM = "enum"  # the enum's value, as text
    TIME = "time"  # fixed-width UTC ISO 8601 text (``stores.rows.format_time``): sorts as time
    JSON = "json"  # a JSON object as text, keys sorted

    @property
    def sql_type(self) -> str:
        """The column's declared SQL type."""
        if self is Column.REAL:
            return "REAL"
        if self is Column.INTEGER:
            return "INTEGER"
        return "TEXT"


class Check(StrEnum):
    """The rule of ``memvault.validation`` a value must pass (see ``check_field``)."""

    ENTRY_ID = "entry_id"  # check_entry_id
    IDENT = "ident"  # check_ident: user, agent, session and workspace ids
    CONTENT = "content"  # check_content: non-empty, at most ``max_content_bytes``
    TEXT = "text"  # check_short_text: at most ``max_chars`` characters
    ENUM = "enum"  # check_enum: one of the values of the field's enum
    UNIT = "unit"  # check_unit_float: a number from 0 to 1
    COUNT = "count"  # check_count: an integer from 0 to 2**63 - 1
    TIME = "time"  # check_datetime: a datetime or ISO 8601 text, stored as UTC
    JSON = "json"  # check_metadata: a JSON object, bounded shape, ``max_metadata_bytes``
    SUBJECT = "subject"  # check_subject: "user", "assistant" or a short name


class Imported(StrEnum):
    """What an import (or ``add_many``) record may do with the field. Exports carry every
    field, so every field is accepted; an unknown key is refused."""

    KEEP = "keep"  # the record's value is kept (validated like any write)
    DROP = "drop"  # accepted and dropped: the owner is the importer, approvals are not carried


class OnUpdate(StrEnum):
    """Whether ``update`` may change the field."""

    FIXED = "fixed"  # written once; no update changes it
    ENGINE = "engine"  # the engine moves it (the version, the protection level, the review state)
    SET = "set"  # update may set it; None keeps the current value
    SET_OR_CLEAR = "set_or_clear"  # update may set it; None clears it; ``write.KEEP`` keeps it


class Made(Enum):
    """Defaults the write path makes instead of copying a value."""

    REQUIRED = "required"  # none: the caller gives it (content) or the engine always sets it
    NEW_ID = "new_id"  # a fresh time-ordered id (``model.new_id``)
    CLOCK = "clock"  # the injected clock's time at the write
    CREATED = "created"  # the entry's own ``created_at``
    EMPTY = "empty"  # a new empty JSON object


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldSpec:
    """One field of ``MemoryEntry`` and its rules in every layer."""

    name: str
    py_type: type[Any]  # the value type: str, float, int, datetime, dict or the field's StrEnum
    optional: bool = False  # None is a valid value (a nullable column)
    default: object = Made.REQUIRED  # a plain value, or how the write path makes one
    column: Column | None  # how it is stored; None: not a column
    check: Check
    max_chars: int | None = None  # Check.TEXT: the longest value
    blank_is_none: bool = False  # Check.TEXT: an empty value is stored as None
    imported: Imported = Imported.KEEP
    on_update: OnUpdate = OnUpdate.FIXED
    http_create: bool = False  # in the body of POST /v1/memories
    http_update: bool = False  # in the body of PATCH /v1/memories/{id}
    protected: bool = False  # free text: redacted on write, screened again when it changes
    embedded: bool = False  # part of what the embedder sees: a change drops the vector
    doc: str = ""

    @property
    def enum(self) -> type[StrEnum] | None:
        """The field's enum, for enum-valued fields."""
        return self.py_type if issubclass(self.py_type, StrEnum) else None

    @property
    def patchable(self) -> bool:
        return self.on_update in (OnUpdate.SET, OnUpdate.SET_OR_CLEAR)


FIELDS: Final[tuple[FieldSpec, ...]] = (
    # -- identity and scope ------------------------------------------------------------
    FieldSpec(
        name="id",
        py_type=str,
        default=Made.NEW_ID,
        column=Column.TEXT,
        check=Check.ENTRY_ID,
        doc="the entry's id, unique per user",
    ),
    FieldSpec(
        name="user_id",
        py_type=str,
        column=Column.TEXT,
        check=Check.IDENT,
        imported=Imported.DROP,
        doc="the owner; always the caller's user (over HTTP: ``ADDRESS``)",
    ),
    FieldSpec(
        name="content",
        py_type=str,
        column=Column.TEXT,
        check=Check.CONTENT,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        protected=True,
        embedded=True,
        doc="the text to remember",
    ),
    FieldSpec(
        name="agent_id",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.IDENT,
        http_create=True,
        doc="the agent it is private to; None: the user's, across agents",
    ),
    FieldSpec(
        name="session_id",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.IDENT,
        http_create=True,
        doc="the conversation it came from",
    ),
    FieldSpec(
        name="workspace_id",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.IDENT,
        http_create=True,
        doc="the workspace it belongs to (by default its session's, if a card or task tied "
        "the session to one)",
    ),
    # -- text ----------------------------------------------------------------------------
    FieldSpec(
        name="name",
        py_type=str,
        default="",
        column=Column.TEXT,
        check=Check.TEXT,
        max_chars=MAX_NAME_CHARS,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        protected=True,
        embedded=True,
        doc="a title",
    ),
    FieldSpec(
        name="description",
        py_type=str,
        default="",
        column=Column.TEXT,
        check=Check.TEXT,
        max_chars=MAX_DESCRIPTION_CHARS,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        protected=True,
        embedded=True,
        doc="one line that says when the memory is relevant",
    ),
    # -- classification ------------------------------------------------------------------
    FieldSpec(
        name="kind",
        py_type=Kind,
        default=Kind.USER,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        doc="what it is about",
    ),
    FieldSpec(
        name="mem_class",
        py_type=MemClass,
        default=MemClass.SEMANTIC,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        doc="how long-lived it is",
    ),
    FieldSpec(
        name="domain",
        py_type=Domain,
        optional=True,
        default=None,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        doc="work or life",
    ),
    FieldSpec(
        name="source_subject",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.SUBJECT,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        doc='who it is about or from: "user", "assistant" or a third party\'s name',
    ),
    FieldSpec(
        name="category",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.TEXT,
        max_chars=MAX_NAME_CHARS,
        blank_is_none=True,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        protected=True,
        doc="a V1 fact's category",
    ),
    FieldSpec(
        name="confidence",
        py_type=float,
        optional=True,
        default=None,
        column=Column.REAL,
        check=Check.UNIT,
        doc="a V1 fact's confidence, 0 to 1",
    ),
    FieldSpec(
        name="importance",
        py_type=float,
        default=0.5,
        column=Column.REAL,
        check=Check.UNIT,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        doc="0 to 1; weighs recall gently",
    ),
    # -- lifecycle -----------------------------------------------------------------------
    FieldSpec(
        name="tier",
        py_type=Tier,
        default=Tier.ACTIVE,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.SET,
        http_update=True,
        doc="storage tier; recall prefers active",
    ),
    FieldSpec(
        name="created_at",
        py_type=datetime,
        default=Made.CLOCK,
        column=Column.TIME,
        check=Check.TIME,
        doc="when it was first written",
    ),
    FieldSpec(
        name="updated_at",
        py_type=datetime,
        default=Made.CREATED,
        column=Column.TIME,
        check=Check.TIME,
        on_update=OnUpdate.ENGINE,
        doc="its version: every update moves it",
    ),
    FieldSpec(
        name="last_accessed_at",
        py_type=datetime,
        optional=True,
        default=None,
        column=Column.TIME,
        check=Check.TIME,
        doc="when it was last recalled",
    ),
    FieldSpec(
        name="access_count",
        py_type=int,
        default=0,
        column=Column.INTEGER,
        check=Check.COUNT,
        doc="how often it was recalled",
    ),
    FieldSpec(
        name="expires_at",
        py_type=datetime,
        optional=True,
        default=None,
        column=Column.TIME,
        check=Check.TIME,
        on_update=OnUpdate.SET_OR_CLEAR,
        doc="after this, recall leaves it out",
    ),
    FieldSpec(
        name="status",
        py_type=DecisionStatus,
        optional=True,
        default=None,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.SET,
        http_create=True,
        doc="a decision's state",
    ),
    # -- protection ----------------------------------------------------------------------
    FieldSpec(
        name="sensitivity",
        py_type=Sensitivity,
        default=Sensitivity.NORMAL,
        column=Column.ENUM,
        check=Check.ENUM,
        on_update=OnUpdate.ENGINE,
        doc="raised by what the sensitive-data detectors find",
    ),
    FieldSpec(
        name="metadata",
        py_type=dict,
        default=Made.EMPTY,
        column=Column.JSON,
        check=Check.JSON,
        on_update=OnUpdate.SET,
        http_create=True,
        http_update=True,
        protected=True,
        embedded=True,
        doc="a JSON object",
    ),
    FieldSpec(
        name="source",
        py_type=Source,
        default=Source.API,
        column=Column.ENUM,
        check=Check.ENUM,
        doc="which door it came in through",
    ),
    # -- review --------------------------------------------------------------------------
    FieldSpec(
        name="quarantine",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.TEXT,
        max_chars=MAX_NAME_CHARS,
        on_update=OnUpdate.ENGINE,
        doc="held for review: why (None: clear); an imported hold stays",
    ),
    FieldSpec(
        name="approved_at",
        py_type=datetime,
        optional=True,
        default=None,
        column=Column.TIME,
        check=Check.TIME,
        imported=Imported.DROP,
        on_update=OnUpdate.ENGINE,
        doc="when a person approved its current text",
    ),
    # -- validity (lifecycle.history) -----------------------------------------------------
    FieldSpec(
        name="valid_from",
        py_type=datetime,
        optional=True,
        default=None,
        column=Column.TIME,
        check=Check.TIME,
        on_update=OnUpdate.ENGINE,
        doc="when the fact became current; None: when it was created",
    ),
    FieldSpec(
        name="valid_to",
        py_type=datetime,
        optional=True,
        default=None,
        column=Column.TIME,
        check=Check.TIME,
        on_update=OnUpdate.ENGINE,
        doc="when it stopped being current (superseded); None: still current",
    ),
    FieldSpec(
        name="superseded_by",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.ENTRY_ID,
        on_update=OnUpdate.ENGINE,
        doc="the id of the entry that replaced it",
    ),
    FieldSpec(
        name="supersedes",
        py_type=str,
        optional=True,
        default=None,
        column=Column.TEXT,
        check=Check.ENTRY_ID,
        http_create=True,
        doc="the id of the entry it replaced (on add: that entry stops being current)",
    ),
)

#: Every row by field name.
BY_NAME: Final[Mapping[str, FieldSpec]] = MappingProxyType({f.name: f for f in FIELDS})
#: Field names in ``MemoryEntry`` order.
NAMES: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS)
#: The fields stored as columns, in column order.
STORED: Final[tuple[FieldSpec, ...]] = tuple(f for f in FIELDS if f.column is not None)
#: Keys an import or ``add_many`` record may carry (anything else is refused as a typo).
RECORD_NAMES: Final[frozenset[str]] = frozenset(NAMES)
#: The fields a record's value is kept for (the fields of ``write.Draft``).
KEPT: Final[tuple[FieldSpec, ...]] = tuple(f for f in FIELDS if f.imported is Imported.KEEP)
#: The fields ``update`` may change (the fields of ``write.Patch``).
PATCHABLE: Final[tuple[FieldSpec, ...]] = tuple(f for f in FIELDS if f.patchable)
#: Free-text fields: redacted and sealed on every write, screened again when changed.
PROTECTED: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS if f.protected)
#: The fields the embedder reads: changing one drops the entry's vector.
EMBEDDED: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS if f.embedded)
#: Who acts, named in every HTTP memory body: they address an entry, they are not changes.
ADDRESS: Final[tuple[str, ...]] = ("user_id", "agent_id")
#: The fields of the HTTP create and update bodies (besides ``ADDRESS``).
HTTP_CREATE: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS if f.http_create)
HTTP_UPDATE: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS if f.http_update)

#: The modules that read this table (kept true by ``tests/test_fields.py``).
READERS: Final[tuple[str, ...]] = (
    "memvault.engine.transfer",
    "memvault.engine.views",
    "memvault.engine.write",
    "memvault.integrations.anthropic_memory",
    "memvault.integrations.langgraph",
    "memvault.stores.memory.store",
    "memvault.stores.mysql.entries",
    "memvault.stores.rows",
    "memvault.stores.values",
    "memvault.validation",
)


__all__ = [
    "ADDRESS",
    "BY_NAME",
    "EMBEDDED",
    "FIELDS",
    "HTTP_CREATE",
    "HTTP_UPDATE",
    "KEPT",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "NAMES",
    "PATCHABLE",
    "PROTECTED",
    "READERS",
    "RECORD_NAMES",
    "STORED",
    "Check",
    "Column",
    "FieldSpec",
    "Imported",
    "Made",
    "OnUpdate",
]
