"""Claude's client-side memory tool (``memory_20250818``) over memvault.

Claude's memory tool asks the client to ``view``, ``create``, ``str_replace``,
``insert``, ``delete`` and ``rename`` files under a ``/memories`` directory; the
client decides where those files live. The ``anthropic`` SDK ships the abstract
tool (``BetaAbstractMemoryTool``: it declares the tool to the API and turns each
``tool_use`` block into a typed command); the two classes here are its backends:

* ``BuiltinMemoryTool`` — ``/memories/USER.md`` and ``/memories/MEMORY.md`` are the
  builtin provider's two files. Every change is turned into entry edits of that
  provider (``BuiltinFileProvider.edit``), so its limits, redaction, threat scan and
  file lock apply exactly as they do to the ``memory`` tool. The model sees the files
  as the prompt shows them (flagged entries as placeholders); entries the model did
  not touch stay as they are on disk. Entries it adds go to the end of the file.
* ``VaultMemoryTool`` — every file under ``/memories`` is one vault entry of the
  user (and agent), its id derived from the path and the path kept in
  ``metadata["anthropic_memory"]["path"]`` (and as its name), so the files are
  found by ``Vault.search`` and recalled into ``Vault.context`` like any memory.
  Directories are implied by the files in them: a directory exists while it holds
  a file.

Paths are checked before anything is read: a path must be ``/memories`` or lie
under it, with no ``.`` or ``..`` segment, backslash, control character, NUL or
over-long name; nothing is ever resolved on a real filesystem, so links cannot
lead out. A refused command raises the SDK's ``ToolError``, which the tool runner
sends back as a ``tool_result`` with ``is_error`` and the text saying what to do.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaFunctionToolResultType, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..agent.files import ENTRY_DELIMITER, Edit, split_entries
from ..agent.provider import WriteTarget
from ..agent.providers.builtin import BuiltinFileProvider
from ..errors import ConflictError, MemvaultError, NotFoundError
from ..fields import MAX_NAME_CHARS
from ..model import Kind, MemoryEntry, Source
from ..security.quarantine import withheld
from ..validation import make_scope
from ..vault import Vault

ROOT = "/memories"
MAX_PATH_CHARS = 512
MAX_SEGMENT_CHARS = 128
MAX_DEPTH = 12
METADATA_KEY = "anthropic_memory"
ID_PREFIX = "am-"
BUILTIN_FILES: dict[str, WriteTarget] = {"USER.md": "user", "MEMORY.md": "memory"}
LINE_NUMBER_WIDTH = 6
_PAGE = 1000

_T = TypeVar("_T")


# -- paths ----------------------------------------------------------------------------


def memory_path(path: object, field: str = "path") -> tuple[str, ...]:
    """The segments of ``path`` below ``/memories`` (``()`` for the root itself).

    Raises ``ToolError`` with the reason for anything that is not a plain path
    inside ``/memories``; a trailing slash is allowed and dropped.
    """
    if not isinstance(path, str):
        raise ToolError(f"{field} must be a string such as '{ROOT}/notes.md'")
    if len(path) > MAX_PATH_CHARS:
        raise ToolError(f"{field} is {len(path)} characters long; the limit is {MAX_PATH_CHARS}")
    if "\x00" in path or any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise ToolError(f"{field} {path!r} contains a control character: remove it")
    if "\\" in path:
        raise ToolError(f"{field} {path!r} contains a backslash: separate folders with '/'")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise ToolError(f"{field} {path!r} is outside {ROOT}: every path must start with {ROOT}/")
    parts = path[len(ROOT) :].split("/")
    segments = tuple(part for part in parts if part)
    if any(not part for part in parts[1:-1]):
        raise ToolError(f"{field} {path!r} has an empty segment ('//'): write each folder once")
    for segment in segments:
        if segment in (".", ".."):
            raise ToolError(
                f"{field} {path!r} contains '{segment}': write the path from {ROOT} down, "
                "without '.' or '..'"
            )
        if len(segment) > MAX_SEGMENT_CHARS:
            raise ToolError(
                f"{field} {path!r} has a name longer than {MAX_SEGMENT_CHARS} characters"
            )
    if len(segments) > MAX_DEPTH:
        raise ToolError(f"{field} {path!r} is more than {MAX_DEPTH} folders deep")
    return segments


def path_text(segments: tuple[str, ...]) -> str:
    """The path of ``segments`` as the model writes it."""
    return "/".join((ROOT, *segments))


def _field(command: object, name: str, kind: type[_T]) -> _T:
    """A command field of the right type (the SDK builds commands without checking)."""
    value = getattr(command, name, None)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ToolError(f"the command needs {name} ({kind.__name__}): send it and retry")
    return value


def _size(n: int) -> str:
    """A byte count as the SDK's own listing prints it (``512B``, ``1.5K``)."""
    size, unit = float(n), "B"
    for bigger in ("K", "M"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{int(size)}{unit}" if size == int(size) else f"{size:.1f}{unit}"


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _numbered(path: str, text: str, view_range: object) -> str:
    lines = text.split("\n")
    start, end = 1, len(lines)
    if view_range is not None:
        if (
            not isinstance(view_range, list)
            or len(view_range) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
        ):
            raise ToolError("view_range must be two line numbers [first, last] (last -1 = end)")
        start = max(1, view_range[0])
        end = len(lines) if view_range[1] == -1 else min(view_range[1], len(lines))
        if start > len(lines) or end < start:
            raise ToolError(
                f"view_range {view_range} is outside {path}, which has {len(lines)} lines"
            )
    shown = [
        f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{lines[number - 1]}"
        for number in range(start, end + 1)
    ]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(shown)


def _replaced(path: str, text: str, old: str, new: str) -> str:
    count = text.count(old) if old else 0
    if count == 0:
        raise ToolError(
            f"No replacement was performed: old_str did not appear verbatim in {path}; "
            "view the file and copy the text exactly"
        )
    if count > 1:
        raise ToolError(
            f"No replacement was performed: old_str appears {count} times in {path}; "
            "include more of the surrounding text so it is unique"
        )
    return text.replace(old, new, 1)


def _inserted(path: str, text: str, line: int, insert: str) -> str:
    lines = text.split("\n") if text else []
    if line < 0 or line > len(lines):
        raise ToolError(
            f"insert_line {line} is outside {path}: use 0 (before the first line) to {len(lines)}"
        )
    lines[line:line] = insert.rstrip("\n").split("\n")
    return "\n".join(lines)


def _tool_errors(run: Callable[[], str]) -> str:
    """``run()``, with memvault's refusals turned into text for the model."""
    try:
        return run()
    except MemvaultError as exc:
        raise ToolError(str(exc)) from exc


class _MemoryTool(BetaAbstractMemoryTool):
    """What both backends share: command checks and the command-to-text steps."""

    def call(self, input: object) -> BetaFunctionToolResultType:
        if not isinstance(input, dict) or not isinstance(input.get("command"), str):
            raise ToolError(
                "the memory tool needs a command: view, create, str_replace, insert, "
                "delete or rename"
            )
        return super().call(input)

    # The text of a file, or None when there is none; what each backend must provide.
    def read(self, segments: tuple[str, ...]) -> str | None:
        raise NotImplementedError

    def write(self, segments: tuple[str, ...], text: str, *, new: bool) -> str:
        """Store ``text`` as the file; returns a note for the model ("" when none)."""
        raise NotImplementedError

    def _existing(self, segments: tuple[str, ...], path: str) -> str:
        text = self.read(segments)
        if text is None:
            raise ToolError(f"The file {path} does not exist: view {ROOT} to see what exists")
        return text

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        path = _field(command, "path", str)
        old, new = _field(command, "old_str", str), _field(command, "new_str", str)
        segments = memory_path(path)

        def run() -> str:
            text = _replaced(path, self._existing(segments, path), old, new)
            note = self.write(segments, text, new=False)
            return f"The memory file {path} has been edited.{note}"

        return _tool_errors(run)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        path = _field(command, "path", str)
        line, text_in = _field(command, "insert_line", int), _field(command, "insert_text", str)
        segments = memory_path(path)

        def run() -> str:
            text = _inserted(path, self._existing(segments, path), line, text_in)
            note = self.write(segments, text, new=False)
            return f"The memory file {path} has been edited.{note}"

        return _tool_errors(run)


# -- the builtin files --------------------------------------------------------------------


class BuiltinMemoryTool(_MemoryTool):
    """``/memories/USER.md`` and ``/memories/MEMORY.md`` as the builtin provider's files.

    ``provider`` must be initialized (``BuiltinFileProvider.initialize``) for the
    user and agent the tool serves. The two files always exist (possibly empty);
    no other file can be created, and neither can be renamed.
    """

    def __init__(self, provider: BuiltinFileProvider, **kwargs: Any) -> None:
        if not isinstance(provider, BuiltinFileProvider):
            raise ToolError("BuiltinMemoryTool needs a BuiltinFileProvider")
        super().__init__(**kwargs)
        self.provider = provider

    def _target(self, segments: tuple[str, ...], path: str) -> WriteTarget:
        if len(segments) == 1 and segments[0] in BUILTIN_FILES:
            return BUILTIN_FILES[segments[0]]
        raise ToolError(
            f"{path} does not exist: this memory holds only {ROOT}/USER.md (about the user) "
            f"and {ROOT}/MEMORY.md (your notes)"
        )

    def read(self, segments: tuple[str, ...]) -> str | None:
        target = self._target(segments, path_text(segments))
        return ENTRY_DELIMITER.join(self.provider.display_entries(target))

    def write(self, segments: tuple[str, ...], text: str, *, new: bool) -> str:
        target = self._target(segments, path_text(segments))
        raw = self.provider.entries(target)
        shown = self.provider.display_entries(target)
        wanted = list(dict.fromkeys(split_entries(text)))
        edits = entry_edits(raw, shown, wanted)
        if not edits:
            return " Nothing changed."
        result = self.provider.edit(target, edits)
        return f" {result.usage}."

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = _field(command, "path", str)
        segments = memory_path(path)

        def run() -> str:
            if not segments:
                lines = [f"{_size(0)}\t{ROOT}"]
                for name in BUILTIN_FILES:
                    lines.append(f"{_size(_bytes(self.read((name,)) or ''))}\t{ROOT}/{name}")
                return (
                    f"Here're the files and directories up to 2 levels deep in {ROOT}, "
                    "excluding hidden items:\n" + "\n".join(lines)
                )
            return _numbered(path, self.read(segments) or "", command.view_range)

        return _tool_errors(run)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path = _field(command, "path", str)
        text = _field(command, "file_text", str)
        segments = memory_path(path)

        def run() -> str:
            note = self.write(segments, text, new=True)
            return f"File created successfully at: {path}.{note}"

        return _tool_errors(run)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = _field(command, "path", str)
        segments = memory_path(path)
        if not segments:
            raise ToolError(f"Cannot delete the {ROOT} directory itself")

        def run() -> str:
            note = self.write(segments, "", new=False)
            return f"Successfully emptied {path} (the file itself always exists).{note}"

        return _tool_errors(run)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        memory_path(_field(command, "old_path", str), "old_path")
        memory_path(_field(command, "new_path", str), "new_path")
        raise ToolError(
            f"{ROOT}/USER.md and {ROOT}/MEMORY.md cannot be renamed: edit them in place"
        )


def entry_edits(raw: list[str], shown: list[str], wanted: list[str]) -> list[Edit]:
    """The entry edits that turn a file whose entries read ``shown`` into ``wanted``.

    ``raw`` are the same entries as stored (``shown`` is how the prompt shows them);
    each edit names the stored text it expects, so an entry changed by someone else
    meanwhile makes the batch fail (``ConflictError``) rather than be overwritten.
    Kept entries are not touched; new ones are appended.
    """
    replaces: list[Edit] = []
    removes: list[int] = []
    adds: list[str] = []
    matcher = difflib.SequenceMatcher(a=shown, b=wanted, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            replaces.append(Edit.replace_at(i1 + k, wanted[j1 + k], expected=raw[i1 + k]))
        removes.extend(range(i1 + pairs, i2))
        adds.extend(wanted[j1 + pairs : j2])
    edits = list(replaces)
    edits.extend(Edit.remove_at(i, expected=raw[i]) for i in sorted(removes, reverse=True))
    edits.extend(Edit.add(text) for text in adds)
    return edits


# -- the vault ------------------------------------------------------------------------------


class VaultMemoryTool(_MemoryTool):
    """Each file under ``/memories`` one entry of ``user_id`` (``agent_id``: private to
    that agent) in ``vault``, written with ``kind`` and ``source="tool"``."""

    def __init__(
        self,
        vault: Vault,
        *,
        user_id: str,
        agent_id: str | None = None,
        kind: Kind | str = Kind.REFERENCE,
        **kwargs: Any,
    ) -> None:
        scope = make_scope(user_id, agent_id)
        super().__init__(**kwargs)
        self.vault = vault
        self.user_id = scope.user_id
        self.agent_id = scope.agent_id
        self.kind = Kind(kind)

    def entry_id(self, segments: tuple[str, ...]) -> str:
        """The id of the entry that holds the file at ``segments``."""
        address = json.dumps([self.agent_id, list(segments)], ensure_ascii=False)
        return ID_PREFIX + hashlib.sha256(address.encode("utf-8")).hexdigest()

    def files(self) -> dict[tuple[str, ...], MemoryEntry]:
        """Every file of this user and agent, by path segments."""
        found: dict[tuple[str, ...], MemoryEntry] = {}
        for entry in self._entries():
            marker = entry.metadata.get(METADATA_KEY)
            path = marker.get("path") if isinstance(marker, dict) else None
            if not isinstance(path, str) or entry.agent_id != self.agent_id:
                continue
            try:
                segments = memory_path(path)
            except ToolError:
                continue
            if segments and entry.id == self.entry_id(segments):
                found[segments] = entry
        return found

    def _entries(self) -> Iterator[MemoryEntry]:
        offset = 0
        while True:
            page = self.vault.list(
                user_id=self.user_id,
                agent_id=self.agent_id,
                quarantined=False,
                limit=_PAGE,
                offset=offset,
            )
            yield from page
            if len(page) < _PAGE:
                return
            offset += _PAGE

    def _load(self, segments: tuple[str, ...]) -> MemoryEntry | None:
        if not segments:
            return None
        try:
            entry = self.vault.get(
                self.entry_id(segments), user_id=self.user_id, agent_id=self.agent_id
            )
        except NotFoundError:
            return None
        return None if entry.quarantine is not None else entry

    def read(self, segments: tuple[str, ...]) -> str | None:
        entry = self._load(segments)
        return None if entry is None else entry.content

    def write(self, segments: tuple[str, ...], text: str, *, new: bool) -> str:
        entry_id = self.entry_id(segments)
        if not text.strip():
            raise ToolError(
                f"{path_text(segments)} would be empty: memories hold text; delete the file instead"
            )
        if not new:
            self.vault.update(entry_id, user_id=self.user_id, agent_id=self.agent_id, content=text)
            return ""
        path = path_text(segments)
        try:
            entry = self.vault.add(
                text,
                user_id=self.user_id,
                agent_id=self.agent_id,
                kind=self.kind,
                name=path[:MAX_NAME_CHARS],
                metadata={METADATA_KEY: {"path": path}},
                source=Source.TOOL,
                id=entry_id,
            )
        except ConflictError:
            raise ToolError(
                f"{path} already exists (or is held for review): view it, then use "
                "str_replace or insert, or delete it first"
            ) from None
        if entry.quarantine is not None:
            return " It is held for the user's review and not shown until approved."
        return ""

    def _shown(self, entry: MemoryEntry) -> str:
        """The file's text as the model may view it: a stand-in when ``vault.model_view``
        withholds it (with another file it forms an instruction, or it is flagged)."""
        view = self.vault.model_view
        why = view.withheld([entry], user_id=self.user_id, agent_id=self.agent_id)
        if entry.id not in why:
            return entry.content
        return f"{withheld(entry)} not shown to the assistant: {why[entry.id]}"

    def _check_new(
        self, segments: tuple[str, ...], files: dict[tuple[str, ...], MemoryEntry]
    ) -> None:
        path = path_text(segments)
        if not segments:
            raise ToolError(f"{ROOT} is the memory directory, not a file: name a file under it")
        if segments in files:
            raise ToolError(
                f"{path} already exists: view it, then use str_replace or insert, "
                "or delete it first"
            )
        if any(key[: len(segments)] == segments for key in files):
            raise ToolError(f"{path} is a directory: name a file inside it")
        for depth in range(1, len(segments)):
            if segments[:depth] in files:
                raise ToolError(
                    f"{path_text(segments[:depth])} is a file, so it cannot hold {path}"
                )

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = _field(command, "path", str)
        segments = memory_path(path)

        def run() -> str:
            entry = self._load(segments)
            if entry is not None:
                return _numbered(path, self._shown(entry), command.view_range)
            files = self.files()
            under = {k: e for k, e in files.items() if k[: len(segments)] == segments}
            if not under and segments:
                raise ToolError(f"The path {path} does not exist: view {ROOT} to see what exists")
            return _listing(path_text(segments), segments, under)

        return _tool_errors(run)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path = _field(command, "path", str)
        text = _field(command, "file_text", str)
        segments = memory_path(path)

        def run() -> str:
            self._check_new(segments, self.files())
            note = self.write(segments, text, new=True)
            return f"File created successfully at: {path}.{note}"

        return _tool_errors(run)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = _field(command, "path", str)
        segments = memory_path(path)
        if not segments:
            raise ToolError(f"Cannot delete the {ROOT} directory itself")

        def run() -> str:
            doomed = [e.id for k, e in self.files().items() if k[: len(segments)] == segments]
            if not doomed:
                raise ToolError(f"The path {path} does not exist: view {ROOT} to see what exists")
            self.vault.delete_many(doomed, user_id=self.user_id, agent_id=self.agent_id)
            return f"Successfully deleted {path}"

        return _tool_errors(run)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old_path = _field(command, "old_path", str)
        new_path = _field(command, "new_path", str)
        old, new = memory_path(old_path, "old_path"), memory_path(new_path, "new_path")
        if not old:
            raise ToolError(f"Cannot rename the {ROOT} directory itself")
        if new[: len(old)] == old:
            raise ToolError(f"Cannot move {old_path} into itself")

        def run() -> str:
            files = self.files()
            moving = {k: e for k, e in files.items() if k[: len(old)] == old}
            if not moving:
                raise ToolError(
                    f"The path {old_path} does not exist: view {ROOT} to see what exists"
                )
            if new in files or any(k[: len(new)] == new for k in files):
                raise ToolError(f"The destination {new_path} already exists: pick another name")
            for depth in range(1, len(new)):
                if new[:depth] in files:
                    raise ToolError(
                        f"{path_text(new[:depth])} is a file, so it cannot hold {new_path}"
                    )
            for segments, entry in moving.items():
                target = new + segments[len(old) :]
                self.write(target, entry.content, new=True)
                self.vault.delete(entry.id, user_id=self.user_id, agent_id=self.agent_id)
            return f"Successfully renamed {old_path} to {new_path}"

        return _tool_errors(run)

    def clear_all_memory(self) -> str:
        """Delete every file of this user and agent (the tool's "start over")."""
        doomed = [entry.id for entry in self.files().values()]
        if doomed:
            self.vault.delete_many(doomed, user_id=self.user_id, agent_id=self.agent_id)
        return "All memory cleared"


def _listing(
    path: str, segments: tuple[str, ...], files: dict[tuple[str, ...], MemoryEntry]
) -> str:
    """A directory listing two levels deep, in the shape the SDK's own backend prints."""
    sizes: dict[tuple[str, ...], int] = {}
    is_dir: set[tuple[str, ...]] = set()
    for key, entry in files.items():
        rest = key[len(segments) :]
        for depth in range(1, min(len(rest), 2) + 1):
            item = rest[:depth]
            size = _bytes(entry.content)
            sizes[item] = sizes.get(item, 0) + size
            if depth < len(rest):
                is_dir.add(item)
    lines = [f"{_size(sum(_bytes(e.content) for e in files.values()))}\t{path}"]
    for item in sorted(sizes):
        suffix = "/" if item in is_dir else ""
        lines.append(f"{_size(sizes[item])}\t{path}/{'/'.join(item)}{suffix}")
    return (
        f"Here're the files and directories up to 2 levels deep in {path}, "
        "excluding hidden items:\n" + "\n".join(lines)
    )


__all__ = [
    "BUILTIN_FILES",
    "ROOT",
    "BuiltinMemoryTool",
    "VaultMemoryTool",
    "entry_edits",
    "memory_path",
]
