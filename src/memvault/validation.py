"""Input checks shared by every entry point.

Each check raises ``ValidationError`` with a message that says what to send
instead, before anything touches the store.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from .errors import ValidationError
from .model import Scope

IDENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$")
ENTRY_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
MAX_NAME_CHARS = 255
MAX_DESCRIPTION_CHARS = 500

E = TypeVar("E", bound=StrEnum)


def check_ident(value: object, field: str) -> str:
    """User, agent, session and workspace ids later become file and bank names."""
    if not isinstance(value, str) or not IDENT_RE.fullmatch(value) or ".." in value:
        raise ValidationError(
            f"{field} {value!r} is not a valid id: use 1-128 characters from A-Z a-z 0-9 _ . @ -, "
            "starting with a letter or digit, without '..'",
            field=field,
        )
    return value


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
            f"memory id {value!r} is malformed: pass the id returned by add/list/search",
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


def check_metadata(value: object, max_bytes: int) -> dict[str, Any]:
    """Metadata must be a JSON object; it is copied through JSON so nothing mutable leaks in."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(
            f"metadata must be a JSON object (dict), got {type(value).__name__}", field="metadata"
        )
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            f"metadata is not JSON-serialisable ({exc}): use strings, numbers, booleans, "
            "lists and objects only",
            field="metadata",
        ) from None
    if len(check_encodable(text, "metadata").encode("utf-8")) > max_bytes:
        raise ValidationError(
            f"metadata is over the limit of {max_bytes} bytes as JSON: store less",
            field="metadata",
        )
    result: dict[str, Any] = json.loads(text)
    return result


def check_enum(cls: type[E], value: object, field: str) -> E:
    if isinstance(value, cls):
        return value
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        raise ValidationError(
            f"{field} {value!r} is not valid: use one of {allowed}", field=field
        ) from None


def check_optional_enum(cls: type[E], value: object, field: str) -> E | None:
    return None if value is None else check_enum(cls, value, field)


def check_unit_float(value: object, field: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{field} must be a number between 0 and 1", field=field)
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValidationError(f"{field} {value!r} is out of range: use 0 to 1", field=field)
    return number


def check_limit(value: object, field: str = "limit", *, maximum: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise ValidationError(f"{field} must be an integer from 1 to {maximum}", field=field)
    return value


def check_offset(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError("offset must be an integer >= 0", field="offset")
    return value


def check_datetime(value: object, field: str, *, optional: bool = True) -> datetime | None:
    """Accept datetimes or ISO 8601 strings; naive times are taken as UTC."""
    if value is None:
        if optional:
            return None
        raise ValidationError(f"{field} is required", field=field)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(
                f"{field} {value!r} is not an ISO 8601 time (e.g. 2026-01-31T12:00:00+00:00)",
                field=field,
            ) from None
    if not isinstance(value, datetime):
        raise ValidationError(f"{field} must be an ISO 8601 time", field=field)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValidationError(f"{field} {value!r} is out of range", field=field) from None


def check_count(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"{field} must be an integer >= 0", field=field)
    return value
