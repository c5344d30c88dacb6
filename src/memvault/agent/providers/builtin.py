"""``BuiltinFileProvider``: the user profile and agent notes as two small text files.

Layout under ``base_dir`` (the same ``users/{user_id}`` tree holds
``memory_config.json``, which belongs to the configuration layer)::

    users/{user_id}/USER.md                      who the user is, shared by all agents
    users/{user_id}/agents/{agent_id}/MEMORY.md  one agent's private notes
    users/{user_id}/MEMORY.md                    the notes of the global agent (agent_id None)

The files use Hermes Agent's format (see ``memvault.agent.files``), so a user can
point both programs at the same files: pass ``user_file`` / ``memory_file`` to
override the layout.

Prompt text is a frozen snapshot: ``initialize`` reads both files once, and
``system_prompt_block`` and ``prefetch`` return that text for the whole session,
which keeps the prompt prefix cacheable. Writes go to disk at once (durable) but
show up in the prompt only after ``reload()`` or a new session
(``on_session_switch`` with ``reset=True``). Tool results always show the live files.

Personal data and secrets (card and resident id numbers, phones, emails, API keys,
passwords) in every ``add``/``replace`` are replaced by placeholders such as
``[bank_card#1]`` before the file is written, with the detectors of
``memvault.security.pii``; the originals are not kept anywhere. These files are
prompt text in Hermes' plain format, shared with other programs and edited by hand,
so they hold no sealed data: a value an agent must be able to recover belongs in the
vault (``Vault.add``), where it is sealed and revealable with the user's secret.
Entries written into the files by hand are redacted the same way when rendered.

Every ``add``/``replace`` is then scanned (``memvault.security.scan.strict``: the general
scan plus the seed's ``cat .env``) and refused
with ``SecurityError`` naming the pattern. An entry already poisoned on disk is
replaced in the prompt by a ``[BLOCKED: <pattern_id> ...]`` placeholder, but
``entries()`` still lists it so the user can see and remove it. The admin's
``security.scan_content: false`` (``scan_writes=False``) stops the refusal only: the
flagged entry is written, and withheld from the prompt like one poisoned on disk.
``security.block_invisible_unicode: false`` (``block_invisible=False``) removes invisible
characters from a write instead of refusing it.

Turns, for the tool's failure guard: a turn ends at ``sync_turn``, at
``on_session_switch``, and when ``prefetch`` is called with a query different
from the previous one (a new user message). ``prefetch`` runs before every model
call, including the calls inside one turn's tool loop, which repeat the same
query, so those do not reset the guard.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...errors import ConfigError, SecurityError
from ...retrieval.assembled import Shown, withheld_beside
from ...security.pii import redact
from ...security.scan.invisible import strip_invisible
from ...security.scan.strict import scan_strict
from ...validation import check_optional_ident
from ..files import (
    MEMORY_CHAR_LIMIT,
    USER_CHAR_LIMIT,
    Edit,
    EditResult,
    MemoryFile,
    Usage,
    check_entry,
    join_entries,
)
from ..provider import MemoryProvider, MemoryWrite, SessionContext, WriteAction, WriteTarget
from ..tools.memory import (
    MEMORY_TOOL_NAME,
    MEMORY_TOOL_SCHEMA,
    TurnGuard,
    parse_target,
    run_memory_tool,
)

logger = logging.getLogger(__name__)

RULE = "═" * 44
HEADERS: dict[WriteTarget, str] = {
    "user": "USER PROFILE (who the user is)",
    "memory": "MEMORY (your personal notes)",
}
# A file edited by hand far past its limit is cut when rendered, so it cannot flood
# the prompt; the model is told to consolidate.
RENDER_FACTOR = 2


def blocked_placeholder(pattern_id: str) -> str:
    """What the prompt shows instead of an entry the security scan flags."""
    return (
        f"[BLOCKED: {pattern_id} — this entry was withheld by the security scan; "
        "the user can review and remove it]"
    )


def split_placeholder() -> str:
    """What the prompt shows instead of an entry that forms an instruction with another."""
    return (
        "[WITHHELD: with another entry this one reads as an instruction to the assistant; "
        "the user can review and remove it]"
    )


def split_entries(files: dict[WriteTarget, list[str]]) -> dict[WriteTarget, set[int]]:
    """Per file, the positions of the entries that form an instruction with another entry
    of either file (``retrieval.assembled.withheld_beside``, in both orders). Each entry
    passed the scan alone when it was written; the prompt shows both files together,
    where two harmless halves of a cut instruction would meet."""
    place = {
        f"{target}:{i}": (target, i)
        for target, entries in files.items()
        for i in range(len(entries))
    }
    shown = [Shown(key, files[target][i]) for key, (target, i) in place.items()]
    out: dict[WriteTarget, set[int]] = {target: set() for target in files}
    for found in withheld_beside(shown):
        target, i = place[found.entry_id]
        out[target].add(i)
    return out


def sanitize(
    entries: Sequence[str],
    *,
    source: Path | None = None,
    split: AbstractSet[int] = frozenset(),
) -> list[str]:
    """``entries`` as a prompt may show them: a flagged entry replaced by its placeholder,
    personal data and secrets in the others redacted; those at the positions ``split``
    (:func:`split_entries`) replaced by theirs.

    With ``source`` (the file they came from), each flagged entry is also logged as a
    warning, from the same scan: loading a large file scans every entry once, not twice.
    """
    shown = []
    for i, entry in enumerate(entries):
        if i in split:
            shown.append(split_placeholder())
            continue
        threat = scan_strict(entry)
        if threat is not None and source is not None:
            logger.warning(
                "%s holds an entry flagged %s; it is withheld from the prompt",
                source,
                threat.pattern_id,
            )
        shown.append(
            redact(entry).text if threat is None else blocked_placeholder(threat.pattern_id)
        )
    return shown


def redact_edit(edit: Edit) -> Edit:
    """``edit`` with personal data and secrets in its new text replaced by placeholders."""
    if edit.action == "remove":
        return edit
    text = redact(edit.content).text
    return edit if text == edit.content else dataclasses.replace(edit, content=text)


def _without_invisible(edit: Edit) -> Edit:
    if edit.action == "remove":
        return edit
    text = strip_invisible(edit.content)
    # An entry that was nothing but invisible characters is refused as empty.
    return edit if text == edit.content else dataclasses.replace(edit, content=check_entry(text))


def render_block(
    target: WriteTarget,
    entries: Sequence[str],
    limit: int,
    *,
    source: Path | None = None,
    split: AbstractSet[int] = frozenset(),
) -> str:
    """One prompt block: rule, header with usage, rule, entries separated by ``§``.

    Usage counts the text on disk; flagged entries are shown as placeholders (and
    logged, naming ``source``, when it is given), as are those at the positions ``split``.
    Returns "" when there are no entries.
    """
    if not entries:
        return ""
    usage = Usage.of(entries, limit)
    over = ", over the limit" if usage.over else ""
    shown = sanitize(entries, source=source, split=split)
    cap = limit * RENDER_FACTOR
    kept: list[str] = []
    for entry in shown:
        if kept and len(join_entries([*kept, entry])) > cap:
            break
        kept.append(entry)
    body = join_entries(kept)
    if len(kept) < len(shown):
        body += (
            f"\n[... {len(shown) - len(kept)} more entries not shown: this file is over its "
            "limit; consolidate it with the memory tool]"
        )
    header = f"{HEADERS[target]} [{usage}{over}]"
    return f"{RULE}\n{header}\n{RULE}\n{body}"


class BuiltinFileProvider(MemoryProvider):
    """USER.md and MEMORY.md on local disk, with the ``memory`` tool.

    Limits default to Hermes' (1375 characters for USER.md, 2200 for MEMORY.md).
    ``on_write`` is called after each entry a write changed (so an orchestrator can
    mirror it to an external provider); its exceptions are logged, never raised,
    since the write is already on disk.
    """

    def __init__(
        self,
        *,
        user_char_limit: int = USER_CHAR_LIMIT,
        memory_char_limit: int = MEMORY_CHAR_LIMIT,
        user_file: str | Path | None = None,
        memory_file: str | Path | None = None,
        lock_timeout: float = 10.0,
        on_write: Callable[[MemoryWrite], None] | None = None,
        scan_writes: bool = True,
        block_invisible: bool = True,
    ) -> None:
        self.scan_writes = scan_writes
        self.block_invisible = block_invisible
        self._limits: dict[WriteTarget, int] = {
            "user": user_char_limit,
            "memory": memory_char_limit,
        }
        self._overrides: dict[WriteTarget, Path | None] = {
            "user": Path(user_file) if user_file is not None else None,
            "memory": Path(memory_file) if memory_file is not None else None,
        }
        self._lock_timeout = lock_timeout
        self._listeners: list[Callable[[MemoryWrite], None]] = (
            [on_write] if on_write is not None else []
        )
        self._context: SessionContext | None = None
        self._thread_id = ""
        self._files: dict[WriteTarget, MemoryFile] = {}
        self._snapshot = ""
        self._snapshot_at: datetime | None = None
        self._guard = TurnGuard()
        self._last_query: str | None = None
        self._state_lock = threading.Lock()

    # -- identity and lifecycle ---------------------------------------------------------

    @property
    def name(self) -> str:
        return "builtin"

    def is_available(self) -> bool:
        return True

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        context = SessionContext.from_kwargs(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=base_dir, **kwargs
        )
        self._open(context)
        self._thread_id = context.thread_id or ""
        self._guard.reset()
        self.reload()

    def _open(self, context: SessionContext) -> None:
        """Point both targets at ``context``'s files (the agent decides MEMORY.md's)."""
        user_dir = context.base_dir / "users" / context.user_id
        notes_dir = user_dir if context.agent_id is None else user_dir / "agents" / context.agent_id
        paths: dict[WriteTarget, Path] = {
            "user": self._overrides["user"] or user_dir / "USER.md",
            "memory": self._overrides["memory"] or notes_dir / "MEMORY.md",
        }
        self._files = {
            target: MemoryFile(path, self._limits[target], lock_timeout=self._lock_timeout)
            for target, path in paths.items()
        }
        self._context = context

    def reload(self) -> str:
        """Read both files again and freeze a new prompt snapshot; returns it."""
        taken_at = datetime.now(UTC)
        blocks = []
        files: dict[WriteTarget, list[str]] = {
            t: self._file(t).entries() for t in ("user", "memory")
        }
        split = split_entries(files)
        for target, entries in files.items():
            memory_file = self._file(target)
            blocks.append(
                render_block(
                    target, entries, memory_file.limit, source=memory_file.path, split=split[target]
                )
            )
        text = "\n\n".join(block for block in blocks if block)
        if text:
            text += (
                f"\n\n(Snapshot taken at {taken_at:%Y-%m-%d %H:%M} UTC; memory saved since then "
                "is on disk but not shown here.)"
            )
        with self._state_lock:
            self._snapshot = text
            self._snapshot_at = taken_at
        return text

    @property
    def snapshot_taken_at(self) -> datetime | None:
        return self._snapshot_at

    @property
    def paths(self) -> dict[WriteTarget, Path]:
        """Where each target lives (after ``initialize``)."""
        return {target: self._file(target).path for target in ("user", "memory")}

    # -- prompt -------------------------------------------------------------------------

    def system_prompt_block(self) -> str:
        return self._snapshot

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        with self._state_lock:
            if query != self._last_query:
                self._last_query = query
                self._guard.reset()
        return self._snapshot

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        self._end_turn()

    def on_session_switch(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        """A new or switched thread (``reset``) starts a session: refresh the snapshot.
        A branch or a continuation after compaction keeps it (the prompt prefix stays).
        An ``agent_id`` keyword that names another agent moves MEMORY.md to that agent's
        file and reloads (seed 000 §8), whatever ``reset`` says."""
        self._end_turn()
        context = self._context
        if context is None:
            return
        self._thread_id = new_thread_id or ""
        moved = False
        if "agent_id" in kwargs:
            agent_id = check_optional_ident(kwargs["agent_id"], "agent_id")
            if agent_id != context.agent_id:
                self._open(dataclasses.replace(context, agent_id=agent_id))
                moved = True
        if reset or moved:
            self.reload()

    def _end_turn(self) -> None:
        with self._state_lock:
            self._last_query = None
            self._guard.reset()

    # -- public API (live files) ----------------------------------------------------------

    def entries(self, target: str) -> list[str]:
        """The entries on disk now, as written (flagged ones included, for review)."""
        return self._file(parse_target(target)).entries()

    def display_entries(self, target: WriteTarget) -> list[str]:
        """The live entries as the model may see them (flagged ones, and those that form an
        instruction with an entry of either file, as placeholders)."""
        files: dict[WriteTarget, list[str]] = {t: self.entries(t) for t in ("user", "memory")}
        return sanitize(files[target], split=split_entries(files)[target])

    def usage_of(self, target: WriteTarget) -> Usage:
        return self._file(parse_target(target)).usage()

    def usage(self, target: str) -> dict[str, int]:
        """``chars`` (of the joined text), ``limit``, ``percent`` and ``count``."""
        return self.usage_of(parse_target(target)).as_dict()

    def add(self, target: str, content: str) -> EditResult:
        """Append an entry; an exact duplicate changes nothing (``result.changed`` is False)."""
        return self.edit(parse_target(target), [Edit.add(content)])

    def replace(self, target: str, old_text: str, content: str) -> EditResult:
        """Replace the one entry containing ``old_text``."""
        return self.edit(parse_target(target), [Edit.replace(old_text, content)])

    def remove(self, target: str, old_text: str) -> EditResult:
        """Remove the one entry containing ``old_text``."""
        return self.edit(parse_target(target), [Edit.remove(old_text)])

    def replace_at(
        self, target: str, index: int, content: str, *, expected: str | None = None
    ) -> EditResult:
        """Replace the entry at ``index`` of ``entries(target)``; with ``expected``, only
        if it still holds that text (``ConflictError`` otherwise)."""
        return self.edit(parse_target(target), [Edit.replace_at(index, content, expected)])

    def remove_at(self, target: str, index: int, *, expected: str | None = None) -> EditResult:
        """Remove the entry at ``index`` of ``entries(target)`` (see ``replace_at``)."""
        return self.edit(parse_target(target), [Edit.remove_at(index, expected)])

    def edit(
        self, target: WriteTarget, edits: Sequence[Edit], *, tool_name: str = ""
    ) -> EditResult:
        """Apply several edits to one file, all or nothing; the limit is checked on the
        result. New text is redacted, then scanned, so one flagged entry refuses the
        whole batch. ``tool_name`` is the model tool that asked ("" for a direct call);
        write listeners find it in the metadata (seed 003)."""
        memory_file = self._file(parse_target(target))
        edits = [redact_edit(edit) for edit in edits]
        if not self.block_invisible:
            edits = [_without_invisible(edit) for edit in edits]
        for number, edit in enumerate(edits, start=1):
            if edit.action == "remove":
                continue
            threat = scan_strict(edit.content)
            refused = (
                self.block_invisible
                if threat and threat.category == "invisible"
                else (self.scan_writes)
            )
            if threat is not None and refused:
                raise SecurityError(
                    f"the {edit.action} was blocked by the security scan: {threat.description} "
                    f"(pattern {threat.pattern_id})",
                    pattern_id=threat.pattern_id,
                    category=threat.category,
                    operation=number if len(edits) > 1 else None,
                )
        result = memory_file.edit(edits)
        self._notify(target, result, tool_name)
        return result

    # -- tools ----------------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [MEMORY_TOOL_SCHEMA]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        if tool_name != MEMORY_TOOL_NAME:
            return json.dumps(
                {"success": False, "error": f"unknown tool {tool_name!r}: use {MEMORY_TOOL_NAME!r}"}
            )
        return run_memory_tool(self, args, self._guard)

    def add_write_listener(self, listener: Callable[[MemoryWrite], None]) -> None:
        """Also call ``listener`` after each entry a write changed (``MemoryManager``
        registers itself so external providers mirror the builtin files)."""
        self._listeners.append(listener)

    def announce(self, action: WriteAction, target: WriteTarget, content: str) -> None:
        """Tell the write listeners about an entry that is not in the files: an extracted
        fact too big for them still reaches the external provider's bank (seed 000 §6
        routes extracted facts to the banks by category). Nothing is written here; new
        text passes the files' redaction and scan first, and a flagged one is not told."""
        if action != "remove":
            content = redact(content).text
            if (threat := scan_strict(content)) is not None:
                logger.warning("an extracted fact flagged %s is not mirrored", threat.pattern_id)
                return
        self._tell(action, target, content, {"source": "extraction"}, tool_name="")

    # -- internals ------------------------------------------------------------------------

    def _file(self, target: WriteTarget) -> MemoryFile:
        try:
            return self._files[target]
        except KeyError:
            raise ConfigError(
                "the builtin memory provider is not initialized: call initialize() first"
            ) from None

    def _notify(self, target: WriteTarget, result: EditResult, tool_name: str) -> None:
        for step in result.applied:
            if step.changed:
                extra = {"old_text": step.previous} if step.action == "replace" else {}
                self._tell(step.action, target, step.content, extra, tool_name=tool_name)

    def _tell(
        self,
        action: WriteAction,
        target: WriteTarget,
        content: str,
        extra: dict[str, Any],
        *,
        tool_name: str,
    ) -> None:
        if not self._listeners or self._context is None:
            return
        # Seed 003's write metadata: who, which agent, which thread, which tool.
        metadata = {
            "user_id": self._context.user_id,
            "agent_id": self._context.agent_id,
            "thread_id": self._thread_id,
            "tool_name": tool_name,
            **extra,
        }
        for listener in list(self._listeners):
            try:
                listener(MemoryWrite(action, target, content, dict(metadata)))
            except Exception:  # the write is on disk; a mirror failing must not undo it
                logger.exception("on_write hook failed after a %s on %s", action, target)


__all__ = [
    "BuiltinFileProvider",
    "blocked_placeholder",
    "redact_edit",
    "render_block",
    "split_entries",
    "split_placeholder",
]
