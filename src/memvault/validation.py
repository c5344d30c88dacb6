"""Input checks shared by every entry point.

``check_field`` applies the rule that ``memvault.fields`` gives an entry field; the
rules themselves are the ``check_*`` functions below.

Each check raises ``ValidationError`` with a message that says what to send
instead, before anything touches the store.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from .errors import ValidationError
from .fields import MAX_NAME_CHARS, Check, FieldSpec
from .model import Scope

IDENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$")
ENTRY_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
# SQLite stores integers as 64-bit signed: anything larger cannot be bound.
MAX_SQL_INT = 2**63 - 1
# The shape of metadata (and of any JSON a caller hands in to be stored): deeper or
# wider documents cost every later read, and past ~255 levels JSON encoders give up.
MAX_JSON_DEPTH = 32
MAX_JSON_KEYS = 1000
MAX_JSON_KEY_CHARS = 256
MAX_JSON_STRING_CHARS = 64 * 1024

E = TypeVar("E", bound=StrEnum)


def shown(value: object) -> str:
    """A short rendering of a rejected value for a message: never recursing into a
    container (a deep one would exhaust the stack) nor printing a huge number."""
    if isinstance(value, str | float | bool | None) or (
        isinstance(value, int) and abs(value) < 10**20
    ):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"(a {type(value).__name__})"


def check_ident(value: object, field: str) -> str:
    """User, agent, session and workspace ids later become file and bank names."""
    if not isinstance(value, str) or not IDENT_RE.fullmatch(value) or ".." in value:
        raise ValidationError(
            f"{field} {shown(value)} is not a valid id: use 1-128 characters from "
            "A-Z a-z 0-9 _ . @ -, starting with a letter or digit, without '..'",
            field=field,
        )
    return value


def thread_session(thread_id: str) -> str | None:
    """The session id of a thread's archived turns, so the engine indexes each turn with
    the turns around it: the thread id itself when it is a valid id, else a stable id
    derived from it; None without a thread."""
    if not thread_id:
        return None
    if IDENT_RE.fullmatch(thread_id) and ".." not in thread_id:
        return thread_id
    return "thread-" + hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:32]


def check_optional_ident(value: object, field: str) -> str | None:
    return None if value is None else check_ident(value, field)


def make_scope(user_id: object, agent_id: object = None) -> Scope:
    """Every call names a user; the agent is optional."""
    if user_id is None:
        raise ValidationError(
            "user_id is required: every memory belongs to a user", field="user_id"
        )
    return Scope(
        user_id=check_ident(user_id, "user_id"),
        agent_id=check_optional_ident(agent_id, "agent_id"),
    )


def check_entry_id(value: object) -> str:
    if not isinstance(value, str) or not ENTRY_ID_RE.fullmatch(value):
        raise ValidationError(
            f"memory id {shown(value)} is malformed: pass the id returned by add/list/search",
            field="id",
        )
    return value


def check_encodable(text: str, field: str) -> str:
    """Text must be valid Unicode (no lone surrogates) to be stored and indexed."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(
            f"{field} contains characters that are not valid Unicode (lone surrogates): "
            "send UTF-8 text",
            field=field,
        ) from None
    return text


def check_content(value: object, max_bytes: int, field: str = "content") -> str:
    """Content is stripped, must not be empty and must fit the configured size."""
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be a string, got {type(value).__name__}", field=field)
    text = check_encodable(value.strip(), field)
    if not text:
        raise ValidationError(f"{field} is empty: send the text to remember", field=field)
    if "\x00" in text:
        raise ValidationError(f"{field} contains a NUL character: remove it", field=field)
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise ValidationError(
            f"{field} is {size} bytes, over the limit of {max_bytes}: split it into smaller "
            "memories or raise max_content_bytes",
            field=field,
        )
    return text


def check_short_text(value: object, field: str, max_chars: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be a string, got {type(value).__name__}", field=field)
    text = check_encodable(value.strip(), field)
    if "\x00" in text:
        raise ValidationError(f"{field} contains a NUL character: remove it", field=field)
    if len(text) > max_chars:
        raise ValidationError(
            f"{field} is {len(text)} characters, over the limit of {max_chars}: shorten it",
            field=field,
        )
    return text


#: The two subjects every surface knows; any other value names a third party.
SUBJECT_USER = "user"
SUBJECT_ASSISTANT = "assistant"
#: Longest third party's name a source subject may hold (characters).
MAX_SUBJECT_CHARS = 64


def check_subject(value: object, field: str = "source_subject") -> str | None:
    """A source subject in its one stored form, or None for "nobody said".

    Normalised so that a filter and a write agree: Unicode NFKC (full-width letters
    become plain ones), runs of whitespace become one space, and "User" / "ASSISTANT"
    become the reserved lower-case words; any other name keeps its case. An empty
    value is None; control characters and names over ``MAX_SUBJECT_CHARS`` are refused."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be a string, got {type(value).__name__}", field=field)
    text = " ".join(unicodedata.normalize("NFKC", check_encodable(value, field)).split())
    if not text:
        return None
    if any(unicodedata.category(c) == "Cc" for c in text):
        raise ValidationError(f"{field} contains a control character: remove it", field=field)
    if len(text) > MAX_SUBJECT_CHARS:
        raise ValidationError(
            f"{field} is {len(text)} characters, over the limit of {MAX_SUBJECT_CHARS}: "
            "name the person in fewer words",
            field=field,
        )
    lowered = text.casefold()
    return lowered if lowered in (SUBJECT_USER, SUBJECT_ASSISTANT) else text


def _label(path: str) -> str:
    """A field path fit for a message: short, and printable even if a key is not UTF-8."""
    if len(path) > 80:
        path = path[:77] + "..."
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def check_json_shape(value: object, field: str) -> None:
    """Refuse JSON-like data nested deeper than ``MAX_JSON_DEPTH``, with more than
    ``MAX_JSON_KEYS`` keys in all, or with over-long keys or strings.

    Walks without recursion, so hostile input cannot exhaust the stack; run it
    before anything serialises the value.
    """
    keys = 0
    stack: list[tuple[object, str, int]] = [(value, field, 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            if len(node) > MAX_JSON_STRING_CHARS:
                raise ValidationError(
                    f"{_label(path)} is a string of {len(node)} characters, over the limit of "
                    f"{MAX_JSON_STRING_CHARS}: store long text as content",
                    field=field,
                )
            continue
        if not isinstance(node, Mapping | list | tuple):
            continue
        if depth > MAX_JSON_DEPTH:
            raise ValidationError(
                f"{_label(path)} is nested more than {MAX_JSON_DEPTH} levels deep: flatten {field}",
                field=field,
            )
        if isinstance(node, Mapping):
            keys += len(node)
            if keys > MAX_JSON_KEYS:
                raise ValidationError(
                    f"{field} has more than {MAX_JSON_KEYS} keys in all: store less",
                    field=field,
                )
            for key, child in node.items():
                if not isinstance(key, str):
                    raise ValidationError(
                        f"{_label(path)} has a key of type {type(key).__name__}: "
                        "keys must be strings",
                        field=field,
                    )
                if len(key) > MAX_JSON_KEY_CHARS:
                    raise ValidationError(
                        f"{_label(path)} has a key of {len(key)} characters, over the limit "
                        f"of {MAX_JSON_KEY_CHARS}: shorten it",
                        field=field,
                    )
                stack.append((child, f"{path}.{key}", depth + 1))
        else:
            stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(node))


def check_metadata(value: object, max_bytes: int, field: str = "metadata") -> dict[str, Any]:
    """Metadata must be a JSON object of bounded shape and size; it is copied through
    JSON so nothing mutable leaks in."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(
            f"{field} must be a JSON object (dict), got {type(value).__name__}", field=field
        )
    check_json_shape(value, field)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"{field} is not JSON-serialisable ({exc}): use strings, numbers, booleans, "
            "lists and objects only",
            field=field,
        ) from None
    if len(check_encodable(text, field).encode("utf-8")) > max_bytes:
        raise ValidationError(
            f"{field} is over the limit of {max_bytes} bytes as JSON: store less",
            field=field,
        )
    result: dict[str, Any] = json.loads(text)
    return result


#: The metadata keys that make an entry a conversation turn the engine understands:
#: who said it, the date of its session (as the caller writes it, e.g. "8 May 2023"),
#: and its position in the session. Each is optional; a value of the wrong type is
#: refused, so a typo never silently leaves a turn out of order.
SPEAKER_KEY = "speaker"
SESSION_DATE_KEY = "session_date"
TURN_INDEX_KEY = "turn_index"
MAX_SESSION_DATE_CHARS = 64


def check_turn_fields(metadata: Mapping[str, Any]) -> None:
    """The documented conversation keys of ``metadata`` (``speaker``, ``session_date``,
    ``turn_index``), if present, have their documented types; the one place they are
    checked, for every write path (add, add_many, import, update, HTTP, MCP)."""
    speaker = metadata.get(SPEAKER_KEY)
    if SPEAKER_KEY in metadata and (
        not isinstance(speaker, str) or not speaker.strip() or len(speaker) > MAX_NAME_CHARS
    ):
        raise ValidationError(
            f"metadata.speaker must be a non-empty name of at most {MAX_NAME_CHARS} "
            "characters (who said the turn)",
            field="metadata.speaker",
        )
    date = metadata.get(SESSION_DATE_KEY)
    if SESSION_DATE_KEY in metadata and (
        not isinstance(date, str) or not date.strip() or len(date) > MAX_SESSION_DATE_CHARS
    ):
        raise ValidationError(
            f"metadata.session_date must be a non-empty text of at most "
            f"{MAX_SESSION_DATE_CHARS} characters (e.g. '2023-05-08' or '8 May 2023')",
            field="metadata.session_date",
        )
    index = metadata.get(TURN_INDEX_KEY)
    if TURN_INDEX_KEY in metadata and (
        isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= MAX_SQL_INT
    ):
        raise ValidationError(
            "metadata.turn_index must be an integer from 0 (the turn's position in its session)",
            field="metadata.turn_index",
        )


def parse_json(text: str, field: str) -> Any:
    """``json.loads`` that fails only with ``ValidationError`` (malformed, too deep for
    the parser, or numbers too long to convert)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{field} is not valid JSON ({exc.msg})", field=field) from None
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ValidationError(f"{field} is not usable JSON ({reason})", field=field) from None


def check_enum(cls: type[E], value: object, field: str) -> E:
    if isinstance(value, cls):
        return value
    try:
        if isinstance(value, str):
            return cls(value)
    except ValueError:
        pass
    allowed = ", ".join(m.value for m in cls)
    raise ValidationError(f"{field} {shown(value)} is not valid: use one of {allowed}", field=field)


def check_optional_enum(cls: type[E], value: object, field: str) -> E | None:
    return None if value is None else check_enum(cls, value, field)


def check_unit_float(value: object, field: str, *, optional: bool = False) -> float | None:
    """A number from 0 to 1; booleans are not numbers."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{field} must be a number between 0 and 1", field=field)
    # Compare before converting: float() of a huge int overflows.
    if not 0 <= value <= 1:  # False for NaN too
        shown = repr(value) if isinstance(value, float) or abs(value) < 10**20 else "(huge)"
        raise ValidationError(f"{field} {shown} is out of range: use 0 to 1", field=field)
    return float(value)


def check_limit(value: object, field: str = "limit", *, maximum: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise ValidationError(f"{field} must be an integer from 1 to {maximum}", field=field)
    return value


def check_offset(value: object, field: str = "offset") -> int:
    """A position to start after (offset, audit ``after``): 0 up to SQLite's largest integer."""
    return check_count(value, field)


def check_datetime(value: object, field: str, *, optional: bool = True) -> datetime | None:
    """Accept datetimes or ISO 8601 strings; naive times are taken as UTC."""
    if value is None:
        if optional:
            return None
        raise ValidationError(f"{field} is required", field=field)
    when = value
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when)
        except ValueError:
            raise ValidationError(
                f"{field} {shown(value)} is not an ISO 8601 time (e.g. 2026-01-31T12:00:00+00:00)",
                field=field,
            ) from None
    if not isinstance(when, datetime):
        raise ValidationError(f"{field} must be an ISO 8601 time", field=field)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except OverflowError:
        raise ValidationError(
            f"{field} {shown(value)} is out of range in UTC: use a time from year 1 to 9999",
            field=field,
        ) from None


def check_count(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SQL_INT:
        raise ValidationError(
            f"{field} must be an integer from 0 to {MAX_SQL_INT} (2**63 - 1)", field=field
        )
    return value


def check_field(
    spec: FieldSpec, value: object, *, max_content_bytes: int, max_metadata_bytes: int
) -> object:
    """``value`` checked by the rule the field table gives ``spec`` (``fields.Check``),
    in the form it is stored in; the two size limits are the configured ones."""
    name = spec.name
    check = spec.check
    if check is Check.ENTRY_ID:
        return check_entry_id(value)
    if check is Check.IDENT:
        return check_optional_ident(value, name) if spec.optional else check_ident(value, name)
    if check is Check.CONTENT:
        return check_content(value, max_content_bytes, name)
    if check is Check.TEXT:
        text = check_short_text(value, name, spec.max_chars or MAX_NAME_CHARS)
        return (text or None) if spec.blank_is_none else text
    if check is Check.ENUM:
        cls = spec.enum
        if cls is None:
            raise TypeError(f"field {name} is checked as an enum but its type is not one")
        return (
            check_optional_enum(cls, value, name) if spec.optional else check_enum(cls, value, name)
        )
    if check is Check.UNIT:
        return check_unit_float(value, name, optional=spec.optional)
    if check is Check.COUNT:
        return check_count(value, name)
    if check is Check.TIME:
        return check_datetime(value, name, optional=spec.optional)
    if check is Check.JSON:
        return check_metadata(value, max_metadata_bytes, name)
    if check is Check.SUBJECT:
        return check_subject(value, name)
    raise TypeError(f"field {name} has no rule for check {check!r}")


def check_filter(spec: FieldSpec, value: object) -> Any:
    """A filter on ``spec``'s field: None (any value), or one value checked by the
    field's rule (``check_field``), in its stored form."""
    if value is None:
        return None
    if spec.check in (Check.CONTENT, Check.JSON):
        raise TypeError(f"field {spec.name} is not one a filter selects by")
    return check_field(
        replace(spec, optional=True), value, max_content_bytes=0, max_metadata_bytes=0
    )


def check_records(value: object, field: str) -> None:
    """A batch argument must be an iterable of items, not one item or a string."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ValidationError(
            f"{field} must be a list (or other iterable) of items, got {type(value).__name__}",
            field=field,
        )


def check_bool(value: object, field: str) -> bool:
    """A true/false flag (not a truthy string or number, which usually means a typo)."""
    if not isinstance(value, bool):
        raise ValidationError(f"{field} must be true or false", field=field)
    return value
