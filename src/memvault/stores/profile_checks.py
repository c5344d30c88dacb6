"""What every backend checks of a profile save, and the error a lost race raises.

Kept here, beside no backend, so the memory store and the SQL stores refuse the same
documents with the same words and report a stale revision the same way.
"""

from __future__ import annotations

from datetime import datetime

from ..errors import ConflictError, ValidationError

#: The largest profile document a store keeps, in bytes of UTF-8 (1 MiB). A profile is
#: a few sections and at most some hundred facts; one this big is a runaway writer.
MAX_PROFILE_BYTES = 1024 * 1024


def check_put(agent_id: str | None, document: str, revision: int, now: datetime) -> None:
    """Refuse what no backend could keep the same way, before anything is written."""
    if agent_id == "":
        # '' is how the SQL stores key the user's own profile (agent_id None).
        raise ValidationError(
            "agent_id must not be empty: pass None for the user's own profile",
            field="agent_id",
        )
    if not isinstance(document, str):
        raise ValidationError("the profile document must be JSON text (a str)", field="document")
    if "\x00" in document:
        raise ValidationError(
            "the profile document holds a NUL character, which no SQL backend stores: "
            "write it as the JSON escape \\u0000",
            field="document",
        )
    try:
        size = len(document.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"the profile document is not valid Unicode ({exc.reason}): fix its text",
            field="document",
        ) from None
    if size > MAX_PROFILE_BYTES:
        raise ValidationError(
            f"the profile document is {size} bytes, over the limit of {MAX_PROFILE_BYTES}: "
            "remove facts or shorten its sections",
            field="document",
            size=size,
            limit=MAX_PROFILE_BYTES,
        )
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        raise ValidationError(
            "revision must be a whole number of at least 0 (0: no profile saved yet)",
            field="revision",
        )
    if not isinstance(now, datetime) or now.tzinfo is None:
        raise ValidationError("now must be a timezone-aware datetime", field="now")


def stale_revision(stored: int, revision: int) -> ConflictError:
    """The error of a save whose revision is no longer the stored one."""
    return ConflictError(
        f"the profile changed meanwhile (revision {stored}, not {revision}): "
        "read it again and re-apply the change",
        revision=stored,
    )


__all__ = ["MAX_PROFILE_BYTES", "check_put", "stale_revision"]
