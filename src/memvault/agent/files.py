"""The USER.md / MEMORY.md file format, its editing rules, and safe writes to it.

The format is the one Hermes Agent's builtin memory uses, so both programs can
share the same files:

* a file holds entries joined by ``ENTRY_DELIMITER`` (a line holding only ``§``);
  there is no header and no trailing delimiter;
* an entry may span several lines but never contains a line that is exactly ``§``;
* the size limit is counted in characters on the joined text, delimiters included.

Reading needs no lock: writers replace the file atomically, so a reader sees an
old or a new complete version. Every write takes ``<file>.lock`` (an ``flock``
lock through ``filelock``, the same kind of lock Hermes takes on the same name),
re-reads the file under it, applies the edits, checks the limit and writes a
temporary file that is fsynced and moved over the original with ``os.replace``
(:mod:`memvault.atomic`).

If the file was edited by hand into something that would not survive a rewrite
(blank entries, stray whitespace around a delimiter, one entry longer than the
whole limit, bytes that are not UTF-8), a rewriting edit is refused with
``FileDriftError`` and the file is copied to ``<file>.<time>.bak`` first.
Appending is still allowed when the rewrite only normalises whitespace.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from ..atomic import LockTimeout, file_lock, lock_path, replace_file
from ..errors import (
    AmbiguousMatchError,
    CharLimitError,
    ConflictError,
    FileDriftError,
    NotFoundError,
    StoreError,
    ValidationError,
)
from ..validation import check_encodable

logger = logging.getLogger(__name__)

ENTRY_DELIMITER = "\n§\n"
SECTION_SIGN = "§"
USER_CHAR_LIMIT = 1375
MEMORY_CHAR_LIMIT = 2200
DEFAULT_LOCK_TIMEOUT = 10.0
PREVIEW_CHARS = 80

EditAction = Literal["add", "replace", "remove"]
EDIT_ACTIONS: tuple[EditAction, ...] = ("add", "replace", "remove")


# -- format ---------------------------------------------------------------------------


def split_entries(text: str) -> list[str]:
    """Every non-blank entry of ``text``, stripped, in file order (duplicates kept)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    return [part.strip() for part in text.split(ENTRY_DELIMITER) if part.strip()]


def parse_entries(text: str) -> list[str]:
    """The entries of ``text`` as loaded: stripped, blank ones dropped, first copy kept."""
    return list(dict.fromkeys(split_entries(text)))


def join_entries(entries: Sequence[str]) -> str:
    """The file text for ``entries`` (no header, no trailing newline)."""
    return ENTRY_DELIMITER.join(entries)


def joined_length(entries: Sequence[str]) -> int:
    """The size counted against the limit: characters of the joined text."""
    return len(join_entries(entries))


def preview(entry: str, width: int = PREVIEW_CHARS) -> str:
    """One line of at most ``width`` characters standing for ``entry``."""
    flat = " ".join(entry.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def check_entry(content: object, field: str = "content") -> str:
    """A stripped entry that will come back unchanged from the file, or ValidationError."""
    if not isinstance(content, str):
        raise ValidationError(
            f"{field} must be a string, got {type(content).__name__}", field=field
        )
    # Line ends are stored as LF: the file reader folds CRLF, so anything else would
    # not come back unchanged.
    text = check_encodable(content.replace("\r\n", "\n").replace("\r", "\n").strip(), field)
    if not text:
        raise ValidationError(f"{field} is empty: send the text of the entry", field=field)
    if "\x00" in text:
        raise ValidationError(f"{field} contains a NUL character: remove it", field=field)
    if any(line.strip() == SECTION_SIGN for line in text.replace("\r\n", "\n").split("\n")):
        raise ValidationError(
            f"{field} has a line holding only '{SECTION_SIGN}', which separates entries "
            "in the file: write one entry per call, or drop that line",
            field=field,
        )
    return text


def find_drift(text: str, limit: int) -> str | None:
    """Why rewriting ``text`` from its parsed entries would change it, or None.

    A trailing newline, a byte-order mark, CRLF line ends and repeated entries are
    not drift: rewriting them loses nothing a reader of the entries could see.
    """
    normal = text.removeprefix("\ufeff").replace("\r\n", "\n")
    parts = split_entries(normal)
    if join_entries(parts) != normal.strip():
        return "blank entries or whitespace around a '§' separator"
    longest = max((len(part) for part in parts), default=0)
    if longest > limit:
        return (
            f"one entry is {longest} characters, more than the whole file may hold ({limit}); "
            "text was probably added without '§' separators"
        )
    return None


@dataclass(frozen=True, slots=True)
class Usage:
    """How full a memory file is."""

    chars: int
    limit: int
    count: int

    @classmethod
    def of(cls, entries: Sequence[str], limit: int) -> Usage:
        return cls(chars=joined_length(entries), limit=limit, count=len(entries))

    @property
    def percent(self) -> int:
        return self.chars * 100 // self.limit if self.limit > 0 else 0

    @property
    def over(self) -> bool:
        return self.chars > self.limit

    def as_dict(self) -> dict[str, int]:
        return {
            "chars": self.chars,
            "limit": self.limit,
            "percent": self.percent,
            "count": self.count,
        }

    def __str__(self) -> str:
        return f"{self.percent}% — {self.chars}/{self.limit} chars"


# -- edits ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Edit:
    """One change to a list of entries.

    ``add`` needs ``content``. ``replace`` and ``remove`` find their entry either by
    ``old_text`` (a substring of exactly one entry) or by ``index`` (0-based, as
    listed); with ``expected`` set, the entry at ``index`` must still be that text.
    Build edits with the class methods, which validate their input.
    """

    action: EditAction
    content: str = ""
    old_text: str = ""
    index: int | None = None
    expected: str | None = None

    @classmethod
    def add(cls, content: object) -> Edit:
        return cls("add", content=check_entry(content))

    @classmethod
    def replace(cls, old_text: object, content: object) -> Edit:
        return cls("replace", content=check_entry(content), old_text=_check_old_text(old_text))

    @classmethod
    def remove(cls, old_text: object) -> Edit:
        return cls("remove", old_text=_check_old_text(old_text))

    @classmethod
    def replace_at(cls, index: object, content: object, expected: str | None = None) -> Edit:
        return cls(
            "replace", content=check_entry(content), index=_check_index(index), expected=expected
        )

    @classmethod
    def remove_at(cls, index: object, expected: str | None = None) -> Edit:
        return cls("remove", index=_check_index(index), expected=expected)


def _check_old_text(old_text: object) -> str:
    if not isinstance(old_text, str) or not old_text.strip():
        raise ValidationError(
            "old_text is required: send a short piece of the entry to change, "
            "unique among the entries",
            field="old_text",
        )
    return old_text.strip()


def _check_index(index: object) -> int:
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValidationError("index must be an integer >= 0", field="index")
    return index


@dataclass(frozen=True, slots=True)
class Applied:
    """What one edit did: its action, the entry text involved, whether it changed
    anything (an ``add`` of an entry that already exists changes nothing), and for a
    ``replace`` the entry it replaced (mirrors drop their copy of it)."""

    action: EditAction
    content: str
    changed: bool
    previous: str = ""


@dataclass(frozen=True, slots=True)
class EditResult:
    """The outcome of a write: the entries now on disk, what each edit did, and usage."""

    entries: list[str]
    applied: list[Applied]
    usage: Usage

    @property
    def changed(self) -> bool:
        return any(step.changed for step in self.applied)


def locate(entries: Sequence[str], edit: Edit, label: str) -> int:
    """The position of the entry ``edit`` addresses, or NotFoundError/AmbiguousMatchError."""
    if edit.index is not None:
        if edit.index >= len(entries):
            raise NotFoundError(
                f"{label} has {len(entries)} entries, so there is no entry at index {edit.index}",
                index=edit.index,
            )
        if edit.expected is not None and entries[edit.index] != edit.expected:
            raise ConflictError(
                f"The entry at index {edit.index} of {label} changed since it was listed: "
                "list the entries again",
                index=edit.index,
            )
        return edit.index
    hits = [i for i, entry in enumerate(entries) if edit.old_text in entry]
    if not hits:
        raise NotFoundError(
            f"No entry of {label} contains {edit.old_text!r}", old_text=edit.old_text
        )
    if len(hits) > 1:
        exact = [i for i in hits if entries[i] == edit.old_text]
        if len(exact) == 1:
            return exact[0]
        raise AmbiguousMatchError(
            f"{edit.old_text!r} matches {len(hits)} entries of {label}",
            old_text=edit.old_text,
            matches=[preview(entries[i]) for i in hits],
        )
    return hits[0]


def apply_edits(
    entries: Sequence[str], edits: Sequence[Edit], label: str
) -> tuple[list[str], list[Applied]]:
    """Apply ``edits`` in order to a copy of ``entries``; the input is never changed.

    Raises on the first edit that cannot apply (its position is in the error's
    ``context["operation"]``, counted from 1), so a batch is all or nothing. A
    replacement equal to another entry merges the two.
    """
    working = list(entries)
    done: list[Applied] = []
    for number, edit in enumerate(edits, start=1):
        try:
            if edit.action == "add":
                changed = edit.content not in working
                if changed:
                    working.append(edit.content)
                done.append(Applied("add", edit.content, changed))
                continue
            position = locate(working, edit, label)
            if edit.action == "replace":
                previous = working[position]
                changed = previous != edit.content
                working[position] = edit.content
                working = list(dict.fromkeys(working))
                done.append(Applied("replace", edit.content, changed, previous))
            else:
                done.append(Applied("remove", working.pop(position), True))
        except (ValidationError, NotFoundError, ConflictError) as exc:
            if len(edits) > 1:
                exc.context.setdefault("operation", number)
            raise
    return working, done


# -- the file -------------------------------------------------------------------------


class MemoryFile:
    """One USER.md or MEMORY.md: reads, and locked read-modify-write with atomic replace."""

    def __init__(
        self, path: Path, limit: int, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> None:
        if limit < 1:
            raise ValidationError(f"the limit of {path.name} must be >= 1", field="limit")
        self.path = path
        self.limit = limit
        self.lock_timeout = lock_timeout

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def lock_path(self) -> Path:
        return lock_path(self.path)

    def read_text(self) -> tuple[str, bool]:
        """The file's text ("" when missing) and whether it decoded as UTF-8."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return "", True
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc}", path=str(self.path)) from exc
        try:
            return data.decode("utf-8"), True
        except UnicodeDecodeError:
            return data.decode("utf-8", errors="replace"), False

    def entries(self) -> list[str]:
        """The entries on disk now, deduplicated."""
        return parse_entries(self.read_text()[0])

    def usage(self) -> Usage:
        return Usage.of(self.entries(), self.limit)

    def edit(self, edits: Sequence[Edit]) -> EditResult:
        """Apply ``edits`` under the lock and write the result; all or nothing.

        Raises
        ``CharLimitError`` when the result is over the limit and larger than
        before (a file already over its limit may still shrink),
        ``FileDriftError`` when a rewriting edit meets a hand-edited file, and the
        errors of ``apply_edits``.
        """
        if not edits:
            raise ValidationError("no edits to apply", field="operations")
        rewrites = any(edit.action != "add" for edit in edits)
        with self._locked():
            text, decoded = self.read_text()
            drift = None if decoded else "the file is not valid UTF-8"
            if drift is None and rewrites:
                drift = find_drift(text, self.limit)
            if drift is not None:
                backup = self._backup(text if decoded else None)
                raise FileDriftError(
                    f"{self.label} was edited outside the memory tool ({drift}), so rewriting "
                    f"it could lose text. Nothing was changed; a copy is in {backup.name}. "
                    f"The file needs a manual fix first: entries separated by lines holding "
                    f"only '{SECTION_SIGN}', no blank entries.",
                    path=str(self.path),
                    backup=str(backup),
                    reason=drift,
                )
            before = parse_entries(text)
            after, applied = apply_edits(before, edits, self.label)
            now, later = joined_length(before), joined_length(after)
            if later > self.limit and later > now:
                raise CharLimitError(
                    f"{self.label} would hold {later} characters, over its limit of "
                    f"{self.limit} (it holds {now} now)",
                    chars=now,
                    chars_after=later,
                    limit=self.limit,
                )
            result = EditResult(after, applied, Usage.of(after, self.limit))
            if result.changed:
                self._write(join_entries(after))
            return result

    # -- internals ------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold ``<file>.lock``; a fresh lock object per call, so threads exclude each other."""
        try:
            with file_lock(self.path, timeout=self.lock_timeout):
                yield
        except LockTimeout as exc:
            raise StoreError(
                f"{self.label} is locked by another writer (waited {self.lock_timeout:g}s): "
                "retry shortly",
                path=str(self.path),
            ) from exc

    def _write(self, text: str) -> None:
        """Replace the file with ``text`` (under the lock; the file keeps its mode)."""
        try:
            replace_file(self.path, text)
        except OSError as exc:
            raise StoreError(f"cannot write {self.path}: {exc}", path=str(self.path)) from exc

    def _backup(self, text: str | None) -> Path:
        """Copy the file beside itself as ``<name>.<UTC time>.bak`` (once per content)."""
        data = self.path.read_bytes() if text is None else text.encode("utf-8")
        for existing in sorted(self.path.parent.glob(f"{self.path.name}.*.bak")):
            if existing.read_bytes() == data:
                return existing
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = self.path.with_name(f"{self.path.name}.{stamp}.bak")
        backup.write_bytes(data)
        logger.warning("%s does not round-trip; copied it to %s", self.path, backup)
        return backup


__all__ = [
    "EDIT_ACTIONS",
    "ENTRY_DELIMITER",
    "MEMORY_CHAR_LIMIT",
    "USER_CHAR_LIMIT",
    "AmbiguousMatchError",
    "Applied",
    "CharLimitError",
    "Edit",
    "EditResult",
    "FileDriftError",
    "MemoryFile",
    "Usage",
    "apply_edits",
    "check_entry",
    "find_drift",
    "join_entries",
    "joined_length",
    "parse_entries",
    "preview",
    "split_entries",
]
