"""``/api/memory/v2``: the DeerFlow memory routes (seed 000, section 11).

The builtin files (USER.md, MEMORY.md) come from ``BuiltinFileProvider``; the
external provider is the vault itself, whose "banks" are the user's shared entries
(``bank_id_template``) and one agent's private entries (``work_bank_id_template``).
Every route takes ``agent_id`` to pick the agent whose MEMORY.md and work bank it means.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi import Path as PathParam

from ..agent.files import join_entries
from ..errors import MemvaultError, NotFoundError, ValidationError
from ..llm import reflect_messages
from ..model import Hit
from ..security.quarantine import injectable
from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, CONFLICT, NOT_FOUND, UNAVAILABLE, public_message
from .schemas import (
    BankClearRequest,
    BankClearResponse,
    ConfigResponse,
    EntriesResponse,
    EntryAdd,
    EntryReplace,
    ErrorResponse,
    Overview,
    ReflectRequest,
    ReflectResponse,
    ReloadResponse,
    SearchResponse,
    StatusResponse,
    Target,
    V2SearchRequest,
)
from .state import Gateway

PREFIX = "/api/memory/v2"
router = APIRouter(prefix=PREFIX, tags=["memory v2"], responses={**COMMON_ERRORS, **NOT_FOUND})

Index = Annotated[int, PathParam(ge=0, le=100_000, description="0-based, as listed")]


def _mtime(path: Path) -> str | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
    except FileNotFoundError:
        return None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _banks(gw: Gateway, user_id: str, agent_id: str | None) -> tuple[str, str | None]:
    hindsight = gw.config_store.get_effective_memory_config(user_id).config.hindsight
    bank = hindsight.bank_id_template.format(user_id=user_id)
    work = (
        None
        if agent_id is None
        else hindsight.work_bank_id_template.format(user_id=user_id, agent_id=agent_id)
    )
    return bank, work


def _external(gw: Gateway, user_id: str, agent_id: str | None) -> dict[str, Any]:
    bank, work = _banks(gw, user_id, agent_id)
    status: dict[str, Any] = {
        "provider": "memvault",
        "bank": bank,
        "work_bank": work,
        "last_recall_hits": gw.last_recall(user_id),
    }
    try:
        status.update(connected=True, entries=gw.vault.count(user_id=user_id, agent_id=agent_id))
    except MemvaultError as exc:
        status.update(
            connected=False, entries=None, error=public_message(exc.message, (str(gw.home),))
        )
    return status


def _usage(gw: Gateway, user_id: str, agent_id: str | None) -> dict[str, Any]:
    files = gw.builtin(user_id, agent_id)
    return {target: files.usage(target) for target in ("user", "memory")}


@router.get("", response_model=Overview)
def overview(
    who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """Both memory files, the external provider's status, usage and modification times."""
    user = act_as(who, user_id)
    files = gw.builtin(user, agent_id)
    return {
        "user_id": user,
        "agent_id": agent_id,
        "user_md": join_entries(files.entries("user")),
        "memory_md": join_entries(files.entries("memory")),
        "external": _external(gw, user, agent_id),
        "char_usage": _usage(gw, user, agent_id),
        "last_modified": {target: _mtime(path) for target, path in files.paths.items()},
        "snapshot_taken_at": _iso(files.snapshot_taken_at),
    }


@router.post("/reload", response_model=ReloadResponse)
def reload(
    who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """Re-read the files and freeze a new prompt snapshot."""
    files = gw.builtin(act_as(who, user_id), agent_id)
    snapshot = files.reload()
    return {"snapshot_taken_at": _iso(files.snapshot_taken_at), "snapshot_chars": len(snapshot)}


def _config(gw: Gateway, user: str) -> dict[str, Any]:
    return {"user_id": user, "fields": gw.config_store.get_effective_memory_config(user).to_dict()}


@router.get("/config", response_model=ConfigResponse, responses=UNAVAILABLE)
def get_config(who: Who, gw: GatewayDep, user_id: UserQuery = None) -> dict[str, Any]:
    """Every setting with its value and the layer it comes from."""
    return _config(gw, act_as(who, user_id))


@router.patch("/config", response_model=ConfigResponse, responses=UNAVAILABLE)
def patch_config(
    who: Who,
    gw: GatewayDep,
    changes: Annotated[
        dict[str, Any],
        Body(description='dotted field -> value, e.g. {"injection.enabled": false}'),
    ],
    user_id: UserQuery = None,
) -> dict[str, Any]:
    """Override user-writable fields for this user; all or nothing."""
    user = act_as(who, user_id)
    if not changes:
        raise ValidationError("nothing to change: send at least one field")
    store = gw.config_store
    before = store.user_overrides(user)
    try:
        for field, value in changes.items():
            store.set_user_override(user, field, value)
    except MemvaultError:
        for field in changes:  # put back what the earlier fields replaced
            if field in before:
                store.set_user_override(user, field, before[field])
            elif field in store.user_overrides(user):
                store.clear_user_override(user, field)
        raise
    return _config(gw, user)


@router.delete("/config/{field}", response_model=ConfigResponse, responses=UNAVAILABLE)
def clear_config(field: str, who: Who, gw: GatewayDep, user_id: UserQuery = None) -> dict[str, Any]:
    """Drop this user's override of one field; the next layer shows through."""
    user = act_as(who, user_id)
    gw.config_store.clear_user_override(user, field)
    return _config(gw, user)


@router.get("/status", response_model=StatusResponse)
def status(
    who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """Switches, usage, the banks and the external provider's health."""
    user = act_as(who, user_id)
    config = gw.config_store.get_effective_memory_config(user).config
    return {
        "user_id": user,
        "agent_id": agent_id,
        "builtin_enabled": config.builtin.enabled,
        "injection_enabled": config.injection.enabled,
        "memory_mode": config.hindsight.memory_mode,
        "char_usage": _usage(gw, user, agent_id),
        "external": _external(gw, user, agent_id),
        "snapshot_taken_at": _iso(gw.builtin(user, agent_id).snapshot_taken_at),
    }


def _entries(target: Target, result: Any) -> dict[str, Any]:
    return {
        "target": target,
        "entries": result.entries,
        "changed": result.changed,
        "usage": result.usage.as_dict(),
    }


@router.post("/entries", response_model=EntriesResponse, responses=CONFLICT)
def add_entry(
    body: EntryAdd, who: Who, gw: GatewayDep, user_id: UserQuery = None, agent_id: AgentQuery = None
) -> dict[str, Any]:
    """Append an entry to USER.md (``user``) or MEMORY.md (``memory``)."""
    files = gw.builtin(act_as(who, user_id), agent_id)
    return _entries(body.target, files.add(body.target, body.content))


@router.put("/entries/{target}/{idx}", response_model=EntriesResponse, responses=CONFLICT)
def replace_entry(
    target: Target,
    idx: Index,
    body: EntryReplace,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    files = gw.builtin(act_as(who, user_id), agent_id)
    return _entries(target, files.replace_at(target, idx, body.content, expected=body.expected))


@router.delete("/entries/{target}/{idx}", response_model=EntriesResponse, responses=CONFLICT)
def remove_entry(
    target: Target,
    idx: Index,
    who: Who,
    gw: GatewayDep,
    expected: Annotated[str | None, Query(description="the entry's text as listed")] = None,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    files = gw.builtin(act_as(who, user_id), agent_id)
    return _entries(target, files.remove_at(target, idx, expected=expected))


def _recall(gw: Gateway, user: str, agent_id: str | None, query: str, limit: int) -> list[Hit]:
    """Search the vault for ``user`` and record the hit count for the status page."""
    hits = gw.vault.search(query, user_id=user, agent_id=agent_id, limit=limit)
    gw.note_recall(user, len(hits))
    return hits


@router.post("/search", response_model=SearchResponse)
def search(
    body: V2SearchRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Recall from the vault (the external provider)."""
    hits = _recall(gw, act_as(who, user_id), agent_id, body.query, body.limit)
    return {"results": [h.to_dict() for h in hits]}


@router.post(
    "/reflect",
    response_model=ReflectResponse,
    responses={
        **UNAVAILABLE,
        502: {"model": ErrorResponse, "description": "the LLM failed"},
    },
)
def reflect(
    body: ReflectRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Answer a question from recalled memories through the configured LLM (503 if none)."""
    user = act_as(who, user_id)
    client = gw.llm()
    # Held entries never reach the model: the answer is built from clear ones only.
    hits = [h for h in _recall(gw, user, agent_id, body.query, body.limit) if injectable(h.entry)]
    mission = gw.config_store.get_effective_memory_config(user).config.hindsight.bank_mission
    answer = client.complete(reflect_messages(body.query, hits, mission=mission))
    return {"answer": answer, "memories": [h.to_dict() for h in hits]}


@router.post("/bank/clear", response_model=BankClearResponse)
def clear_bank(
    body: BankClearRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Delete every entry of one bank. ``confirm`` must repeat the bank's name."""
    user = act_as(who, user_id)
    bank, work = _banks(gw, user, agent_id)
    if body.bank not in (bank, work):
        names = bank if work is None else f"{bank} or {work}"
        raise NotFoundError(f"no bank {body.bank!r} here: this user's banks are {names}")
    if body.confirm != body.bank:
        raise ValidationError(
            "confirm must repeat the bank name exactly: clearing a bank cannot be undone",
            field="confirm",
        )
    deleted = gw.clear_entries(user, agent_id, private=body.bank == work)
    return {"bank": body.bank, "deleted": deleted}
