"""The ``memory`` tool: its schema, and the adapter that turns calls into edits.

This is the only layer that speaks to the model. It reads the call's arguments
into typed ``Edit`` objects, runs them through a ``MemoryToolBackend`` (the
builtin provider), and renders the outcome — or the memvault error the core
raised — as a JSON string with ``success`` and, on failure, an ``error`` that
tells the model what exists and what to send next.

A model that keeps failing could loop on the tool for the rest of its budget, so
a ``TurnGuard`` counts failed calls: the third failure in a turn is answered
with a terminal "stop retrying" result, and every later call in that turn gets
the same answer without touching the files. The provider resets the guard when
a turn ends (see ``BuiltinFileProvider``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ...errors import (
    ConflictError,
    MemvaultError,
    NotFoundError,
    SecurityError,
    ValidationError,
)
from ...validation import shown
from ..files import (
    EDIT_ACTIONS,
    AmbiguousMatchError,
    CharLimitError,
    Edit,
    EditResult,
    FileDriftError,
    Usage,
)
from ..provider import WriteTarget

MEMORY_TOOL_NAME = "memory"
MAX_FAILURES_PER_TURN = 3
TARGETS: tuple[WriteTarget, ...] = ("memory", "user")

MEMORY_TOOL_DESCRIPTION = (
    "Keep facts that will still matter in later conversations. What you save here is "
    "shown to you at the start of every future session, so keep each entry short and "
    "only save what you will really reuse.\n\n"
    "Save without being asked when:\n"
    "- the user corrects you or asks you to remember something;\n"
    "- the user reveals a preference, habit or personal detail (name, role, time zone, "
    "how they like answers);\n"
    "- you learn a stable fact about their environment, project or tools that you will "
    "need again.\n\n"
    "Targets:\n"
    "- 'user': who the user is — identity, preferences, communication style. Shared by "
    "all of the user's agents.\n"
    "- 'memory': your own working notes — environment facts, conventions, pitfalls you "
    "hit. Private to this agent.\n\n"
    "Actions: 'add' a new entry; 'replace' the entry containing old_text with content; "
    "'remove' the entry containing old_text. old_text is a short piece of the entry that "
    "appears in no other entry. To make room and add in one step, also send 'operations', "
    "a list of further actions on the same target: they are applied after 'action', all "
    "together or not at all.\n\n"
    "Do not save progress on the current task, anything you can look up again, or "
    "temporary to-do state."
)

_EDIT_PROPERTIES: dict[str, Any] = {
    "action": {
        "type": "string",
        "enum": list(EDIT_ACTIONS),
        "description": "add a new entry, replace one, or remove one",
    },
    "content": {
        "type": "string",
        "description": "the text of the entry (required for add and replace)",
    },
    "old_text": {
        "type": "string",
        "description": "a short piece of the entry to replace or remove, found in no other entry",
    },
}

MEMORY_TOOL_SCHEMA: dict[str, Any] = {
    "name": MEMORY_TOOL_NAME,
    "description": MEMORY_TOOL_DESCRIPTION,
    "parameters": {
        "type": "object",
        "properties": {
            **_EDIT_PROPERTIES,
            "target": {
                "type": "string",
                "enum": list(TARGETS),
                "description": "'user' for the user profile, 'memory' for your own notes",
            },
            "operations": {
                "type": "array",
                "description": (
                    "optional further actions on the same target, applied after 'action' "
                    "and together with it or not at all; the size limit is checked on the "
                    "result"
                ),
                "items": {
                    "type": "object",
                    "properties": _EDIT_PROPERTIES,
                    "required": ["action"],
                },
            },
        },
        # Seed 000 §10 requires both; a call with only ``operations`` is still accepted.
        "required": ["action", "target"],
    },
}

STOP_MESSAGE = (
    "Memory writes failed {count} times in this turn. Stop retrying: leave memory as it "
    "is, carry on with your answer to the user, and save the fact in a later turn if it "
    "still matters."
)

_DONE_MESSAGES = {
    "add": "Entry added.",
    "replace": "Entry replaced.",
    "remove": "Entry removed.",
}
_DUPLICATE_MESSAGE = "An identical entry already exists; nothing was added."
_UNCHANGED_MESSAGE = "The entry already had this text; nothing changed."


class MemoryToolBackend(Protocol):
    """What the tool needs from a store of USER.md / MEMORY.md entries."""

    def edit(
        self, target: WriteTarget, edits: Sequence[Edit], *, tool_name: str = ""
    ) -> EditResult:
        """Apply ``edits``; ``tool_name`` names the tool that asked (seed 003 metadata)."""
        ...

    def usage_of(self, target: WriteTarget) -> Usage: ...

    def display_entries(self, target: WriteTarget) -> list[str]:
        """Live entries safe to show the model (poisoned ones replaced by a placeholder)."""
        ...


class TurnGuard:
    """Counts failed memory calls in the current turn (thread-safe)."""

    def __init__(self, max_failures: int = MAX_FAILURES_PER_TURN) -> None:
        self.max_failures = max_failures
        self._failures = 0
        self._lock = threading.Lock()

    @property
    def failures(self) -> int:
        return self._failures

    @property
    def exhausted(self) -> bool:
        return self._failures >= self.max_failures

    def record_failure(self) -> int:
        with self._lock:
            self._failures += 1
            return self._failures

    def reset(self) -> None:
        with self._lock:
            self._failures = 0


# -- arguments --------------------------------------------------------------------------


def parse_target(value: object) -> WriteTarget:
    if value == "user":
        return "user"
    if value == "memory":
        return "memory"
    raise ValidationError(
        f"target {shown(value)} is not valid: use 'user' (the user profile) or 'memory' "
        "(your own notes)",
        field="target",
    )


def parse_edit(args: Mapping[str, Any]) -> Edit:
    """One ``{action, content, old_text}`` object as an ``Edit``."""
    action = args.get("action")
    if action == "add":
        return Edit.add(args.get("content"))
    if action == "replace":
        old_text, content = args.get("old_text"), args.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ValidationError(
                "replace needs content, the new text of the entry (use 'remove' to delete it)",
                field="content",
            )
        return Edit.replace(old_text, content)
    if action == "remove":
        return Edit.remove(args.get("old_text"))
    raise ValidationError(
        f"action {shown(action)} is not valid: use 'add', 'replace' or 'remove'", field="action"
    )


def parse_memory_call(args: Mapping[str, Any]) -> tuple[WriteTarget, list[Edit], bool]:
    """The target, the edits, and whether the call was a batch (``operations``)."""
    if not isinstance(args, Mapping):
        raise ValidationError("the arguments must be a JSON object", field="args")
    target = parse_target(args.get("target"))
    operations = args.get("operations")
    if operations is None:
        return target, [parse_edit(args)], False
    if not isinstance(operations, list) or not operations:
        raise ValidationError(
            "operations must be a non-empty list of {action, content, old_text} objects",
            field="operations",
        )
    # The schema requires ``action`` (seed 000 §10): given beside ``operations``, it is
    # the batch's first change.
    if args.get("action") is not None:
        first = {key: args[key] for key in ("action", "content", "old_text") if key in args}
        operations = [first, *operations]
    edits = []
    for number, operation in enumerate(operations, start=1):
        try:
            if not isinstance(operation, Mapping):
                raise ValidationError(
                    "each operation must be an object with action, content and old_text",
                    field="operations",
                )
            if operation.get("target", target) != target:
                raise ValidationError(
                    "every operation applies to the call's target; send one call per target",
                    field="target",
                )
            edits.append(parse_edit(operation))
        except ValidationError as exc:
            exc.context.setdefault("operation", number)
            raise
    return target, edits, True


# -- results --------------------------------------------------------------------------


def _dump(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)


def success_payload(target: WriteTarget, result: EditResult, batch: bool) -> dict[str, Any]:
    if batch:
        changed = sum(step.changed for step in result.applied)
        message = f"Applied {len(result.applied)} operations ({changed} changed the file)."
    else:
        step = result.applied[0]
        if step.changed:
            message = _DONE_MESSAGES[step.action]
        else:
            message = _DUPLICATE_MESSAGE if step.action == "add" else _UNCHANGED_MESSAGE
    return {
        "success": True,
        "target": target,
        "message": message,
        "usage": str(result.usage),
        "entry_count": result.usage.count,
        "note": "Saved for future sessions. This change is complete; do not repeat it.",
    }


def error_payload(
    backend: MemoryToolBackend, target: WriteTarget | None, exc: MemvaultError
) -> dict[str, Any]:
    """The failure shown to the model: what went wrong, what exists, what to send."""
    where = f"Operation {exc.context['operation']}: " if "operation" in exc.context else ""
    batch_note = " No operations were applied." if where else ""
    payload: dict[str, Any] = {"success": False}

    def with_entries() -> None:
        if target is None:
            return
        try:
            payload["current_entries"] = backend.display_entries(target)
            payload["usage"] = str(backend.usage_of(target))
        except MemvaultError:  # the listing is a courtesy; the error itself matters more
            pass

    if isinstance(exc, SecurityError):
        pattern = exc.context.get("pattern_id", "unknown")
        payload["error"] = (
            f"{where}Blocked by the security scan (pattern {pattern}). Memory is shown in "
            "future system prompts, so it must not hold instructions to the model, hidden "
            "characters or ways to leak secrets. Save only the plain fact, reworded."
            f"{batch_note}"
        )
        payload["pattern_id"] = pattern
    elif isinstance(exc, CharLimitError):
        payload["error"] = (
            f"{where}{exc.message}. Consolidate now: merge related entries with 'replace' "
            "or drop stale ones with 'remove' (current_entries below), then add again — or "
            "send one call with 'operations' that makes room and adds together."
            f"{batch_note}"
        )
        with_entries()
    elif isinstance(exc, AmbiguousMatchError):
        payload["error"] = (
            f"{where}{exc.message}. Send a longer old_text that appears in only one of "
            f"them.{batch_note}"
        )
        payload["matches"] = exc.context.get("matches", [])
    elif isinstance(exc, NotFoundError):
        payload["error"] = (
            f"{where}{exc.message}. Copy old_text from one of current_entries below.{batch_note}"
        )
        with_entries()
    elif isinstance(exc, FileDriftError):
        payload["error"] = (
            f"{where}{exc.message} Do not retry in this conversation; tell the user the "
            "memory file needs a manual fix."
        )
    elif isinstance(exc, ConflictError | ValidationError):
        payload["error"] = f"{where}{_sentence(exc.message)}{batch_note}"
    else:
        payload["error"] = f"{where}Memory could not be saved: {_sentence(exc.message)}"
    return payload


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def stop_payload(count: int, error: str | None = None) -> dict[str, Any]:
    stop = STOP_MESSAGE.format(count=count)
    return {
        "success": False,
        "done": True,
        "error": f"{error} {stop}" if error else stop,
    }


def run_memory_tool(backend: MemoryToolBackend, args: Mapping[str, Any], guard: TurnGuard) -> str:
    """Run one ``memory`` call and return the JSON string for the model."""
    if guard.exhausted:
        return _dump(stop_payload(guard.failures))
    target: WriteTarget | None = None
    try:
        if isinstance(args, Mapping) and args.get("target") in TARGETS:
            target = args["target"]
        target, edits, batch = parse_memory_call(args)
        result = backend.edit(target, edits, tool_name=MEMORY_TOOL_NAME)
    except MemvaultError as exc:
        payload = error_payload(backend, target, exc)
        count = guard.record_failure()
        if count >= guard.max_failures:
            payload.update(stop_payload(count, payload["error"]))
        return _dump(payload)
    return _dump(success_payload(target, result, batch))


__all__ = [
    "MAX_FAILURES_PER_TURN",
    "MEMORY_TOOL_DESCRIPTION",
    "MEMORY_TOOL_NAME",
    "MEMORY_TOOL_SCHEMA",
    "MemoryToolBackend",
    "TurnGuard",
    "parse_memory_call",
    "run_memory_tool",
]
