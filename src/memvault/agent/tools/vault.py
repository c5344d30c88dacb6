"""The ``memory_save`` / ``memory_recall`` tools over a ``Vault`` (seed 002 §5).

Schemas are OpenAI function-calling dicts; handlers return JSON strings written
for the model: on failure ``{"success": false, "error": ...}`` with what to do
next, never an exception. Scope is injected by the caller (user and agent),
never taken from the model's arguments, so a model cannot reach another
user's memories: an id that is not the caller's is simply "not found".

Entries held for review never reach the model: ``memory_recall`` leaves them out,
and wherever a result still names one (a save that was quarantined, a listing) it
shows ``[QUARANTINED: <id>]`` instead of its text (``brief``).
"""

from __future__ import annotations

import json
from typing import Any

from ...engine.deciding import MACHINE_SOURCES
from ...errors import ConfigError, MemvaultError, NotFoundError, SecurityError, ValidationError
from ...lifecycle.decisions import USER_ONLY, legal_moves
from ...model import CONFLICTS_KEY, DecisionStatus, Kind, MemoryEntry, Source
from ...security.notes import write_notes
from ...security.quarantine import injectable, placeholder, withheld
from ...validation import SUBJECT_USER
from ...vault import Vault

KINDS = [k.value for k in Kind]

#: ``kind``, memvault's name on every other surface (CLI, HTTP, Python), accepted beside
#: the seed's ``type`` (seed 002 names the field so): send either, or both alike.
KIND_ALIAS: dict[str, Any] = {
    "type": "string",
    "enum": KINDS,
    "description": "the same as type (memvault's other surfaces call it kind)",
}

#: What ``memory_recall`` says when no stored memory passes the relevance gate.
NOTHING_RELEVANT = "nothing relevant in memory for this query"

MEMORY_SAVE_SCHEMA: dict[str, Any] = {
    "name": "memory_save",
    "description": (
        "Create, update or delete a long-term memory. Saved memories are recalled "
        "automatically in later conversations. Update an existing memory (by id) "
        "instead of creating a near-duplicate. Every call names the memory's title (name) "
        "and type; create also needs content; update and delete need the id (a number or "
        "the id text memory_recall showed), and update changes the fields it is given."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["create", "update", "delete"]},
            "name": {"type": "string", "description": "a short title for the memory"},
            "type": {
                "type": "string",
                "enum": KINDS,
                "description": "user: who the user is; project: progress, decisions, "
                "constraints; feedback: corrections of your behaviour; reference: "
                "links and documents",
            },
            "kind": KIND_ALIAS,
            "content": {"type": "string", "description": "the memory itself"},
            "description": {
                "type": "string",
                "description": "one line saying when this memory is relevant",
            },
            "id": {
                "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}],
                "description": "the memory id, for update and delete: as memory_recall "
                "showed it (a NetaClaw number such as 42 names the memory imported with it)",
            },
            "session_id": {
                "type": "string",
                "description": "for a conversation turn: the conversation's id (turns of one "
                "session are also found by the words of the turns around them)",
            },
            "speaker": {"type": "string", "description": "for a turn: who said it"},
            "turn_index": {
                "type": "integer",
                "minimum": 0,
                "description": "for a turn: its position in the session (else: the order saved)",
            },
            "session_date": {"type": "string", "description": "for a turn: the session's date"},
            "subject": {
                "type": "string",
                "maxLength": 64,
                "description": "who the memory is about or from: 'user' (the default), "
                "'assistant' (you), or the name of another person",
            },
        },
        # Seed 002 section 5.1: name and type are required of every call; the handler asks
        # them of create only, so an update or delete by id alone (memvault's own clients,
        # the MCP memory_delete tool) keeps working.
        "required": ["action", "name", "type"],
        "additionalProperties": False,
    },
}

MEMORY_RECALL_SCHEMA: dict[str, Any] = {
    "name": "memory_recall",
    "description": "Search long-term memory for information from earlier conversations.",
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "type": {"type": "string", "enum": KINDS, "description": "only this kind"},
            "kind": KIND_ALIAS,
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 5,
                "description": "how many memories to return",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}

#: The statuses the model may name (``invalid`` is a person's call only).
MODEL_STATUSES = [s.value for s in DecisionStatus if s not in USER_ONLY]

MEMORY_DECISION_SCHEMA: dict[str, Any] = {
    "name": "memory_decision",
    "description": (
        "Record a decision the user made or is weighing, and move it along its lifecycle: "
        "proposed -> exploring -> pending -> adopted, or rejected (a rejected one may be "
        "proposed again); an adopted decision is later superseded by a newer one. Recall "
        "shows each decision with its status. A new decision that conflicts with an adopted "
        "one is recorded as a conflict: you cannot adopt it over the adopted one (ask the "
        "user), and only the user can mark a decision invalid."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["propose", "move", "history"],
                "description": "propose: record a new decision; move: change a decision's "
                "status; history: its moves and conflicts so far",
            },
            "id": {"type": "string", "description": "the decision's id, for move and history"},
            "name": {"type": "string", "description": "for propose: a short title"},
            "content": {
                "type": "string",
                "description": "for propose: what is decided, and the options if still open",
            },
            "status": {
                "type": "string",
                "enum": MODEL_STATUSES,
                "description": "for propose: where it starts (default proposed); for move: "
                "the new status",
            },
            "reason": {"type": "string", "description": "why (kept in the decision's history)"},
        },
        "required": ["action"],
        "additionalProperties": False,
    },
}

TOOL_SCHEMAS = [MEMORY_SAVE_SCHEMA, MEMORY_RECALL_SCHEMA, MEMORY_DECISION_SCHEMA]

#: ``memory_save`` arguments of a conversation turn kept as the entry's documented
#: metadata keys (``session_id`` is the entry's own field).
TURN_ARGS = ("speaker", "turn_index", "session_date")


def _ok(**payload: Any) -> str:
    return json.dumps({"success": True, **payload}, ensure_ascii=False)


def _notes(entry: MemoryEntry) -> dict[str, Any]:
    """``notes`` for a save's answer when the write held or redacted the memory: the
    model learns why its text will not come back as it was written."""
    notes = write_notes(entry)
    return {"notes": notes} if notes else {}


def fail(message: str) -> str:
    return json.dumps({"success": False, "error": message}, ensure_ascii=False)


def brief(entry: MemoryEntry) -> dict[str, Any]:
    """What a tool result shows of an entry (the memory tools and the MCP server alike).

    An entry that may not be shown to a model (held for review, or flagged by the scan
    and not approved) keeps its id and type; its text is ``[QUARANTINED: <id>]``.
    """
    if not injectable(entry):
        return {
            "id": entry.id,
            "type": entry.kind.value,
            "kind": entry.kind.value,
            "name": "",
            "description": "",
            "content": placeholder(entry),
            "quarantined": True,
            "updated_at": entry.updated_at.isoformat(),
        }
    return {
        "id": entry.id,
        "type": entry.kind.value,
        "kind": entry.kind.value,
        "name": entry.name,
        "description": entry.description,
        "content": entry.content,
        "updated_at": entry.updated_at.isoformat(),
    }


def kind_of(args: dict[str, Any]) -> str | None:
    """The kind the arguments name, as ``type`` or as ``kind``; ``ValidationError`` when
    it is not a kind or the two disagree."""
    named = {k: args[k] for k in ("type", "kind") if args.get(k) is not None}
    for field, value in named.items():
        if value not in KINDS:
            raise ValidationError(f"'{field}' must be one of {', '.join(KINDS)}")
    if len(set(named.values())) > 1:
        raise ValidationError("'type' and 'kind' name the same field: send one of them")
    return next(iter(named.values()), None)


def tool_entry_id(value: Any) -> str | None:
    """The entry id a tool call names, or None when it names none usable.

    Seed 002's ids are numbers (an auto-increment key), memvault's are text; a whole
    number names the entry whose id is its decimal text, which is the id the NetaClaw
    importer keeps for an imported row (``memvault import-from netaclaw``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if isinstance(value, str) and value:
        return value
    return None


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool arguments as a dict, or a JSON error string the model can act on."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return fail(
                f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}): "
                "send one JSON object with the tool's parameters"
            )
        except (ValueError, RecursionError):  # numbers too long, nesting too deep
            return fail("the arguments are not usable JSON: send one flat JSON object")
        if isinstance(value, dict):
            return value
    return fail("the arguments must be one JSON object with the tool's parameters")


class VaultTools:
    """The two tools bound to one user (and agent) of a vault. ``source`` is what the
    memories they save record: ``tool`` (a model's tool call), ``mcp`` behind the MCP
    server; both count as the model's writes, not the person's."""

    def __init__(
        self,
        vault: Vault,
        *,
        user_id: str,
        agent_id: str | None = None,
        source: Source = Source.TOOL,
    ) -> None:
        if source not in MACHINE_SOURCES:
            raise ConfigError(f"source must be one of the model's doors, not {source!r}")
        self.vault = vault
        self.user_id = user_id
        self.agent_id = agent_id
        self.source = source

    def call(self, name: str, raw_args: Any) -> str:
        args = parse_arguments(raw_args)
        if isinstance(args, str):
            return args
        try:
            if name == "memory_save":
                return self.save(args)
            if name == "memory_recall":
                return self.recall(args)
            if name == "memory_decision":
                return self.decision(args)
        except SecurityError as exc:
            return fail(
                f"blocked by the security scan ({exc.context.get('pattern_id', 'threat')}): "
                "memories must not contain instructions to the assistant, secrets or "
                "hidden characters; rephrase it as a plain fact"
            )
        except NotFoundError:
            return fail(f"no memory with id {args.get('id')!r}: call memory_recall to find the id")
        except MemvaultError as exc:
            return fail(str(exc))
        return fail(f"unknown tool {name!r}: use memory_save, memory_recall or memory_decision")

    def save(self, args: dict[str, Any]) -> str:
        unknown = set(args) - set(MEMORY_SAVE_SCHEMA["parameters"]["properties"])
        if unknown:
            return fail(f"unknown parameters {sorted(unknown)}: remove them")
        action = args.get("action")
        kind = kind_of(args)
        if action == "create":
            if not isinstance(args.get("content"), str) or not args["content"].strip():
                return fail("create needs 'content': the text to remember")
            if not isinstance(args.get("name"), str) or not args["name"].strip():
                return fail("create needs 'name': a short title for the memory")
            if kind is None:
                return fail(f"create needs 'type': one of {', '.join(KINDS)}")
            entry = self.vault.add(
                args["content"],
                user_id=self.user_id,
                agent_id=self.agent_id,
                kind=kind or "user",
                name=args.get("name"),
                description=args.get("description"),
                session_id=args.get("session_id"),
                metadata={k: args[k] for k in TURN_ARGS if k in args} or None,
                source=self.source,
                source_subject=args.get("subject") or SUBJECT_USER,
            )
            return _ok(action="created", memory=brief(entry), **_notes(entry))
        if action in ("update", "delete"):
            entry_id = tool_entry_id(args.get("id"))
            if entry_id is None:
                return fail(f"{action} needs the memory 'id': call memory_recall to find it")
            if action == "delete":
                self.vault.delete(entry_id, user_id=self.user_id, agent_id=self.agent_id)
                return _ok(action="deleted", id=entry_id)
            turn = sorted(k for k in ("session_id", *TURN_ARGS) if k in args)
            if turn:
                return fail(
                    f"{', '.join(turn)} describe a turn when it is created; update changes "
                    "only content, name, description, type and subject"
                )
            entry = self.vault.update(
                entry_id,
                user_id=self.user_id,
                agent_id=self.agent_id,
                content=args.get("content"),
                name=args.get("name"),
                description=args.get("description"),
                kind=kind,
                source_subject=args.get("subject"),
            )
            return _ok(action="updated", memory=brief(entry), **_notes(entry))
        return fail("'action' must be one of create, update, delete")

    def recall(self, args: dict[str, Any]) -> str:
        unknown = set(args) - set(MEMORY_RECALL_SCHEMA["parameters"]["properties"])
        if unknown:
            return fail(f"unknown parameters {sorted(unknown)}: remove them")
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return fail("'query' must be a non-empty string: the words to search for")
        limit = args.get("limit", 5)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 20:
            return fail("'limit' must be an integer from 1 to 20")
        # The hits context() would inject: search's best ``limit`` through the same
        # relevance gate, so a query about nothing stored answers "nothing relevant"
        # instead of the nearest unrelated memories with confident scores.
        kind = kind_of(args)
        scope: dict[str, Any] = {"user_id": self.user_id, "agent_id": self.agent_id}
        if kind is None:  # context()'s own selection, recorded as recalled like it
            found = [
                (h.entry, h.score) for h in self.vault.context_hits(query, **scope, limit=limit)
            ]
        else:  # context_hits has no kind filter: explain() reads the same gate per hit,
            # and the same screen of the block (a memory it withholds is not shown)
            trace = self.vault.explain(query, **scope, limit=limit, kind=kind, quarantined=False)
            found = [(c.entry, c.score) for c in trace.candidates if c.returned and c.shown]
        if not found:
            return _ok(count=0, memories=[], note=NOTHING_RELEVANT)
        return _ok(
            count=len(found),
            memories=[{**brief(entry), "score": round(score, 6)} for entry, score in found],
        )

    def decision(self, args: dict[str, Any]) -> str:
        unknown = set(args) - set(MEMORY_DECISION_SCHEMA["parameters"]["properties"])
        if unknown:
            return fail(f"unknown parameters {sorted(unknown)}: remove them")
        action = args.get("action")
        status = args.get("status")
        if status is not None and status not in MODEL_STATUSES:
            return fail(f"'status' must be one of {', '.join(MODEL_STATUSES)}")
        reason = args.get("reason", "")
        if not isinstance(reason, str):
            return fail("'reason' must be a string")
        if action == "propose":
            if not isinstance(args.get("content"), str) or not args["content"].strip():
                return fail("propose needs 'content': what is decided or being weighed")
            entry = self.vault.add(
                args["content"],
                user_id=self.user_id,
                agent_id=self.agent_id,
                kind="project",
                name=args.get("name"),
                status=status or DecisionStatus.PROPOSED,
                source=self.source,
            )
            return _ok(action="proposed", decision=self._decision(entry))
        if action not in ("move", "history"):
            return fail("'action' must be one of propose, move, history")
        entry_id = args.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            return fail(f"{action} needs the decision's 'id': call memory_recall to find it")
        if action == "history":
            entry = self.vault.get(entry_id, user_id=self.user_id, agent_id=self.agent_id)
            why = self.vault.model_view.withheld(
                [entry], user_id=self.user_id, agent_id=self.agent_id
            )
            if entry.id in why:  # read as a listing is: none of its text, and why
                shown = {"id": entry.id, "content": withheld(entry)}
                return _ok(decision=shown, withheld=why[entry.id])
            return _ok(
                decision=self._decision(entry),
                moves=[
                    m.to_dict()
                    for m in self.vault.decisions.history(entry.id, user_id=self.user_id)
                ],
                conflicts=[
                    c.to_dict()
                    for c in self.vault.decisions.conflicts(entry.id, user_id=self.user_id)
                ],
            )
        if status is None:
            return fail("move needs the new 'status'")
        entry = self.vault.decisions.decide(
            entry_id,
            status,
            user_id=self.user_id,
            agent_id=self.agent_id,
            reason=reason,
            actor="model",
            by_user=False,
        )
        return _ok(action="moved", decision=self._decision(entry))

    def _decision(self, entry: MemoryEntry) -> dict[str, Any]:
        """A decision as the tool shows it: the entry, its status, the moves open to the
        model, and the adopted decisions it conflicts with."""
        conflicts = entry.metadata.get(CONFLICTS_KEY)
        return {
            **brief(entry),
            "status": entry.status.value if entry.status else None,
            "next": [s.value for s in legal_moves(entry.status, by_user=False)],
            "conflicts_with": [c for c in conflicts if isinstance(c, str)]
            if isinstance(conflicts, list)
            else [],
        }


__all__ = [
    "KIND_ALIAS",
    "MEMORY_DECISION_SCHEMA",
    "MEMORY_RECALL_SCHEMA",
    "MEMORY_SAVE_SCHEMA",
    "NOTHING_RELEVANT",
    "TOOL_SCHEMAS",
    "TURN_ARGS",
    "VaultTools",
    "brief",
    "fail",
    "kind_of",
    "parse_arguments",
    "tool_entry_id",
]
