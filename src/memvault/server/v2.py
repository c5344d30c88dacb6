"""``/api/memory/v2``: the DeerFlow memory routes (seed 000, section 11).

The builtin files (USER.md, MEMORY.md) come from ``BuiltinFileProvider``. Search,
reflect, bank clearing and the external part of the status go through the external
memory that ``memory.provider`` selects (``Gateway.external``, an ``ExternalMemory``):
the vault by default, whose banks are the user's shared entries (``bank_id_template``)
and one agent's private entries (``work_bank_id_template``). These routes only render
what the protocol returns; they never touch the vault themselves. Every route takes
``agent_id`` to pick the agent whose MEMORY.md and work bank it means.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi import Path as PathParam

from ..agent.external import ExternalStatus
from ..agent.files import join_entries
from ..errors import MemvaultError, ValidationError
from ..results.external import ExternalHit
from .auth import AgentQuery, GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, CONFLICT, EXTERNAL, NOT_FOUND, UNAVAILABLE, public_message
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
    StatusResponse,
    Target,
    V2SearchRequest,
    V2SearchResponse,
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


def _external(gw: Gateway, user_id: str, agent_id: str | None) -> dict[str, Any]:
    """The external provider's status for one (user, agent), as the schema has it."""
    banks = gw.banks(user_id, agent_id)
    external = gw.external
    try:
        status = external.status(banks)
    except MemvaultError as exc:  # the contract says status reports, but a page must render
        status = ExternalStatus(external.name, False, banks, detail=exc.message)
    shown: dict[str, Any] = {
        "provider": status.name,
        "bank": banks.user.id,  # the gateway names the banks, whatever the provider says
        "work_bank": banks.work.id if banks.work is not None else None,
        "last_recall_hits": gw.last_recall(user_id),
        "connected": status.available,
        "entries": status.entries,
    }
    if not status.available and status.detail:
        shown["error"] = public_message(status.detail, (str(gw.home),))
    return shown


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
        "hindsight_status": (status := _external(gw, user, agent_id)),
        "external": status,
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
        "llm_usage": gw.vault_for(agent_id).admin.llm_usage(user_id=user).to_dict(),
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


def _hit(hit: ExternalHit) -> dict[str, Any]:
    return {
        "id": hit.id,
        "text": hit.text,
        "score": hit.score,
        "bank": hit.bank,
        "metadata": dict(hit.metadata),
        "entry": hit.entry.to_dict() if hit.entry is not None else None,
        "sources": dict(hit.sources),
    }


@router.post("/search", response_model=V2SearchResponse, responses=EXTERNAL)
def search(
    body: V2SearchRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Recall from the external provider (``limit`` omitted: the agent's prefetch size);
    the hit count shows in the status."""
    user = act_as(who, user_id)
    budget = gw.config_store.get_effective_memory_config(user).config.hindsight.recall_budget
    limit = body.limit if body.limit is not None else gw.agents.settings(agent_id).prefetch_limit
    hits = gw.external.recall(
        body.query, banks=gw.banks(user, agent_id), limit=limit, budget=budget
    )
    gw.note_recall(user, len(hits))
    return {"results": [_hit(h) for h in hits]}


@router.post(
    "/reflect",
    response_model=ReflectResponse,
    responses={
        **UNAVAILABLE,
        **EXTERNAL,
        502: {"model": ErrorResponse, "description": "the LLM or the external provider failed"},
    },
)
def reflect(
    body: ReflectRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Answer a question from the external provider's memories (the vault: through the
    configured LLM, 503 if none)."""
    user = act_as(who, user_id)
    hindsight = gw.config_store.get_effective_memory_config(user).config.hindsight
    reflection = gw.external.reflect(
        body.query,
        banks=gw.banks(user, agent_id),
        limit=body.limit,
        budget=hindsight.recall_budget,
        mission=hindsight.bank_mission,
    )
    gw.note_recall(user, len(reflection.memories))
    return {"answer": reflection.answer, "memories": [_hit(h) for h in reflection.memories]}


@router.post("/bank/clear", response_model=BankClearResponse, responses=EXTERNAL)
def clear_bank(
    body: BankClearRequest,
    who: Who,
    gw: GatewayDep,
    user_id: UserQuery = None,
    agent_id: AgentQuery = None,
) -> dict[str, Any]:
    """Delete every memory of one bank. ``confirm`` must repeat the bank's name."""
    user = act_as(who, user_id)
    bank = gw.banks(user, agent_id).named(body.bank)
    if body.confirm != body.bank:
        raise ValidationError(
            "confirm must repeat the bank name exactly: clearing a bank cannot be undone",
            field="confirm",
        )
    return {"bank": bank.id, "deleted": gw.external.clear_bank(bank)}
