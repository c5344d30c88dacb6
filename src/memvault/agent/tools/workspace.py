"""The ``state_card`` and ``task_board`` tools (seed 004): the model keeps its own
conversation's state card and the tasks of its workspace.

Scope is injected, never taken from the model's arguments: the user, the conversation
(``session_id``) and, when the caller knows it, the workspace. A model can change only
its own session's card, and see or change only the tasks of its session's workspace; a
task of another workspace (or user) is simply "not found". The model does not move a
task to another conversation: people do that (the HTTP routes, the panel).

Handlers return JSON strings written for the model: ``{"success": false, "error": ...}``
with what to do next, never an exception (like ``agent.tools.vault``). The MCP server
has no conversation of its own, so its variants of the schemas take ``session_id`` as
an argument (``with_session``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ...errors import ConflictError, MemvaultError, NotFoundError
from ...vault import Vault
from ...workspace.board import MAX_NOTES_CHARS, MAX_TITLE_CHARS, Task, TaskStatus
from ...workspace.cards import MAX_FIELDS, MAX_LIST_ITEMS, Card
from .vault import fail, parse_arguments

STATUSES = [s.value for s in TaskStatus]
_TEXTS = {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LIST_ITEMS}

STATE_CARD_SCHEMA: dict[str, Any] = {
    "name": "state_card",
    "description": (
        "Read or update the state card of this conversation: its goal, the progress so "
        "far, the decisions made, the questions still open and the next step, plus free "
        "fields. The card is shown at the top of your memory context in later turns, so "
        "keep it short and current. 'update' changes only the parts you send (a list you "
        "send replaces that list; a field sent as null is removed); every update is kept "
        "as a revision."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["get", "update"]},
            "goal": {"type": "string", "description": "what this conversation is for"},
            "progress": {"type": "string", "description": "where things stand now"},
            "decisions": {**_TEXTS, "description": "decisions made so far, the whole list"},
            "open_questions": {**_TEXTS, "description": "questions still open, the whole list"},
            "next_step": {"type": "string", "description": "the very next thing to do"},
            "fields": {
                "type": "object",
                "maxProperties": MAX_FIELDS,
                "additionalProperties": {"type": ["string", "null"]},
                "description": "free named values (e.g. a branch or a ticket); null removes one",
            },
            "expected_revision": {
                "type": "integer",
                "minimum": 0,
                "description": "the revision you read; the update is refused if the card "
                "changed since",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
}

TASK_BOARD_SCHEMA: dict[str, Any] = {
    "name": "task_board",
    "description": (
        "The task board of this conversation's workspace: list its tasks, create a task "
        "(linked to this conversation), or update one (title, notes, status: todo, doing, "
        "blocked, done). Keep the board true: move a task to doing when you start it and "
        "to done when it is finished."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["list", "create", "update"]},
            "task_id": {"type": "string", "description": "the task's id, for update"},
            "title": {"type": "string", "maxLength": MAX_TITLE_CHARS},
            "notes": {"type": "string", "maxLength": MAX_NOTES_CHARS},
            "status": {
                "type": "string",
                "enum": STATUSES,
                "description": "for create and update: the task's status; for list: only "
                "tasks with it",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
}

WORKSPACE_TOOL_SCHEMAS = [STATE_CARD_SCHEMA, TASK_BOARD_SCHEMA]


def with_session(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with a required ``session_id`` (for surfaces without a conversation)."""
    out = copy.deepcopy(schema)
    params = out["parameters"]
    params["properties"]["session_id"] = {
        "type": "string",
        "description": "the id of the conversation this call is about",
    }
    params["required"] = [*params["required"], "session_id"]
    return out


def _ok(**payload: Any) -> str:
    return json.dumps({"success": True, **payload}, ensure_ascii=False)


def card_view(card: Card) -> dict[str, Any]:
    """What the tool (and the MCP server) shows of a card."""
    return {
        "session_id": card.session_id,
        "workspace_id": card.workspace_id,
        "revision": card.revision,
        **card.content.to_dict(),
        "updated_at": card.updated_at.isoformat() if card.updated_at else None,
    }


def task_view(task: Task, session_id: str | None = None) -> dict[str, Any]:
    out = {
        "id": task.id,
        "title": task.title,
        "notes": task.notes,
        "status": task.status.value,
        "session_id": task.session_id,
        "revision": task.revision,
        "updated_at": task.updated_at.isoformat(),
    }
    if session_id is not None:
        out["this_conversation"] = task.session_id == session_id
    return out


def _unknown(args: dict[str, Any], schema: dict[str, Any]) -> str | None:
    unknown = set(args) - set(schema["parameters"]["properties"])
    return f"unknown parameters {sorted(unknown)}: remove them" if unknown else None


class WorkspaceTools:
    """The two tools bound to one user's conversation (and, if known, its workspace)."""

    def __init__(
        self,
        vault: Vault,
        *,
        user_id: str,
        session_id: str | None,
        workspace_id: str | None = None,
    ) -> None:
        self.vault = vault
        self.user_id = user_id
        self.session_id = session_id
        self.workspace_id = workspace_id

    def call(self, name: str, raw_args: Any, *, session_id: str | None = None) -> str:
        """Run one tool; ``session_id`` only from a surface that takes it as an argument."""
        args = parse_arguments(raw_args)
        if isinstance(args, str):
            return args
        if name not in ("state_card", "task_board"):
            return fail(f"unknown tool {name!r}: use state_card or task_board")
        if session_id is None and "session_id" in args:
            return fail("remove 'session_id': the tool always works on this conversation")
        args.pop("session_id", None)
        session = session_id or self.session_id
        if not session:
            return fail(
                "this conversation has no id, so it has no state card or task board: the "
                "host must start the session with a thread id"
            )
        try:
            if name == "state_card":
                return self.card(args, session)
            return self.board(args, session)
        except ConflictError as exc:
            return fail(f"{exc}. Call the tool with action 'get' or 'list' and try again")
        except NotFoundError:
            return fail(
                f"no task {args.get('task_id')!r} on this workspace's board: call task_board "
                "with action 'list' for the ids"
            )
        except MemvaultError as exc:
            return fail(str(exc))

    def card(self, args: dict[str, Any], session: str) -> str:
        problem = _unknown(args, STATE_CARD_SCHEMA)
        if problem:
            return fail(problem)
        action = args.get("action")
        if action == "get":
            card = self.vault.workspace.card(user_id=self.user_id, session_id=session)
            return _ok(card=card_view(card))
        if action != "update":
            return fail("'action' must be get or update")
        parts = ("goal", "progress", "decisions", "open_questions", "next_step", "fields")
        if not any(p in args for p in parts):
            return fail(f"update needs at least one of {', '.join(parts)}")
        fields = args.get("fields")
        if fields is not None and not isinstance(fields, dict):
            return fail("'fields' must be an object of names to texts (null removes one)")
        card = self.vault.workspace.upsert_card(
            user_id=self.user_id,
            session_id=session,
            goal=args.get("goal"),
            progress=args.get("progress"),
            decisions=args.get("decisions"),
            open_questions=args.get("open_questions"),
            next_step=args.get("next_step"),
            fields=fields,
            expected_revision=args.get("expected_revision"),
            actor="model",
            workspace_id=self.workspace_id,
        )
        return _ok(action="updated", card=card_view(card))

    def _workspace(self, session: str) -> str | None:
        return self.workspace_id or self.vault.workspace.session_workspace(
            user_id=self.user_id, session_id=session
        )

    def board(self, args: dict[str, Any], session: str) -> str:
        problem = _unknown(args, TASK_BOARD_SCHEMA)
        if problem:
            return fail(problem)
        action = args.get("action")
        if action not in ("list", "create", "update"):
            return fail("'action' must be list, create or update")
        workspace = self._workspace(session)
        if workspace is None:
            return fail(
                "this conversation belongs to no workspace yet, so it has no task board: "
                "a person links it to one (a task or a card with a workspace), or the host "
                "names the workspace when the session starts"
            )
        if action == "list":
            tasks = self.vault.workspace.tasks(
                user_id=self.user_id, workspace_id=workspace, status=args.get("status")
            )
            return _ok(
                workspace_id=workspace,
                count=len(tasks),
                tasks=[task_view(t, session) for t in tasks],
            )
        if action == "create":
            if not isinstance(args.get("title"), str) or not args["title"].strip():
                return fail("create needs a 'title': what the task is")
            task = self.vault.workspace.add_task(
                user_id=self.user_id,
                workspace_id=workspace,
                session_id=session,
                title=args["title"],
                notes=args.get("notes", ""),
                status=args.get("status", TaskStatus.TODO),
            )
            return _ok(action="created", task=task_view(task, session))
        task_id = args.get("task_id")
        if not isinstance(task_id, str) or not task_id:
            return fail("update needs the 'task_id': call task_board with action 'list'")
        if not any(k in args for k in ("title", "notes", "status")):
            return fail("update needs at least one of title, notes, status")
        found = self.vault.workspace.task(user_id=self.user_id, task_id=task_id)
        if found.workspace_id != workspace:
            raise NotFoundError("not on this board")  # another board's task: not the model's
        task = self.vault.workspace.update_task(
            user_id=self.user_id,
            task_id=task_id,
            title=args.get("title"),
            notes=args.get("notes"),
            status=args.get("status"),
        )
        return _ok(action="updated", task=task_view(task, session))


__all__ = [
    "STATE_CARD_SCHEMA",
    "TASK_BOARD_SCHEMA",
    "WORKSPACE_TOOL_SCHEMAS",
    "WorkspaceTools",
    "card_view",
    "task_view",
    "with_session",
]
