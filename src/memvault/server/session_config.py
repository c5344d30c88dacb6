"""``/v1/config/session``: one conversation's own settings (seed 004's session-level config).

A session overrides the same whitelisted settings a user may (``USER_WRITABLE_FIELDS``,
the preset and the recall scope among them), on top of the user's layer; every answer
lists each setting with its value and the layer it came from (``source: session`` for
the session's own). ``set`` changes several settings at once, all or nothing; ``reset``
drops the named ones, or all of them, so the user's layer shows through again. Same keys
and isolation as every route: a user key reaches only its own user's sessions.

``POST /v1/session/context`` builds the block a session injects before a model call
(:func:`memvault.agent.session_block.session_block`): the session's preset and scope, the
USER/MEMORY snapshot of the (user, agent), the recalled memories, and the state card and
task board texts the caller sends, fitted to the model's window, with the allocator's
report. ``GET /v1/presets`` lists the presets and their budget contracts.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from ..agent.config import EffectiveConfig
from ..agent.session_block import session_block
from ..validation import check_ident
from ..workspace.allocator import MAX_WINDOW
from ..workspace.presets import shipped_presets
from .auth import GatewayDep, UserQuery, Who, act_as
from .errors import COMMON_ERRORS, UNAVAILABLE
from .schemas import ConfigField
from .state import Gateway

PREFIX = "/v1/config/session"
router = APIRouter(tags=["session config"], responses={**COMMON_ERRORS, **UNAVAILABLE})


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SessionSet(_Body):
    session_id: str = Field(description="the conversation whose settings change")
    settings: dict[str, Any] = Field(
        description='dotted setting -> value, e.g. {"injection.preset": "task", '
        '"injection.scope": "workspace"}'
    )
    user_id: str | None = Field(None, description="required with an admin key")


class SessionReset(_Body):
    session_id: str
    fields: list[str] | None = Field(
        None, description="the settings to drop; omitted or null: every one of the session's"
    )
    user_id: str | None = Field(None, description="required with an admin key")


class SessionConfigResponse(BaseModel):
    user_id: str
    session_id: str
    overrides: dict[str, Any] = Field(description="what the session itself sets")
    fields: dict[str, ConfigField]


def _answer(gw: Gateway, effective: EffectiveConfig, user: str, session: str) -> dict[str, Any]:
    return {
        "user_id": user,
        "session_id": session,
        "overrides": gw.config_store.session_overrides(user, session),
        "fields": effective.to_dict(),
    }


@router.get(PREFIX, response_model=SessionConfigResponse)
def get_session_config(
    who: Who,
    gw: GatewayDep,
    session_id: str = Query(description="the conversation"),
    user_id: UserQuery = None,
) -> dict[str, Any]:
    """Every setting as this session sees it, with the layer each comes from."""
    user = act_as(who, user_id)
    session = check_ident(session_id, "session_id")
    effective = gw.config_store.get_effective_memory_config(user, session)
    return _answer(gw, effective, user, session)


@router.post(f"{PREFIX}/set", response_model=SessionConfigResponse)
def set_session_config(body: SessionSet, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Override settings for one session, all or nothing (a bad one changes nothing)."""
    user = act_as(who, body.user_id)
    session = check_ident(body.session_id, "session_id")
    effective = gw.config_store.set_session_overrides(user, session, body.settings)
    return _answer(gw, effective, user, session)


@router.post(f"{PREFIX}/reset", response_model=SessionConfigResponse)
def reset_session_config(body: SessionReset, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Drop the session's overrides of ``fields`` (all of them without a list)."""
    user = act_as(who, body.user_id)
    session = check_ident(body.session_id, "session_id")
    effective = gw.config_store.reset_session(user, session, body.fields)
    return _answer(gw, effective, user, session)


MAX_PART_CHARS = 200_000


class SessionContextRequest(_Body):
    query: str = Field(description="the request the memories are recalled for")
    session_id: str
    window: int = Field(ge=1, le=MAX_WINDOW, strict=True, description="the model's context window")
    workspace_id: str | None = Field(None, description="needed by the workspace scope")
    agent_id: str | None = None
    user_id: str | None = Field(None, description="required with an admin key")
    state_card: str | None = Field(None, max_length=MAX_PART_CHARS)
    task_board: str | None = Field(None, max_length=MAX_PART_CHARS)


class GrantOut(BaseModel):
    component: str
    priority: int | None
    min_tokens: int
    wanted: int
    asked: int
    granted: int
    cut: int
    reason: str | None


class SessionContextResponse(BaseModel):
    text: str = Field(description="the block to inject; empty for none")
    parts: dict[str, str]
    preset: str
    window: int
    budget: int
    used: int
    unused: int
    minimums_fit: bool
    grants: list[GrantOut]


@router.post("/v1/session/context", response_model=SessionContextResponse)
def session_context(body: SessionContextRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """The block a session injects before a model call, and what each part got."""
    user = act_as(who, body.user_id)
    session = check_ident(body.session_id, "session_id")
    settings = gw.config_store.get_effective_memory_config(user, session).config
    snapshot = None
    if settings.builtin.enabled:
        snapshot = gw.builtin(user, body.agent_id).system_prompt_block()
    parts = {
        name: text
        for name, text in (("state_card", body.state_card), ("task_board", body.task_board))
        if text is not None
    }
    block = session_block(
        gw.vault_for(body.agent_id),
        gw.config_store,
        body.query,
        user_id=user,
        session_id=session,
        window=body.window,
        workspace_id=body.workspace_id,
        agent_id=body.agent_id,
        snapshot=snapshot,
        components=parts,
    )
    return block.to_dict()


@router.get("/v1/presets")
def list_presets(_: Who) -> dict[str, Any]:
    """The presets a session can choose (``injection.preset``) and their budget contracts."""
    return {"presets": [preset.model_dump(mode="json") for preset in shipped_presets().values()]}


__all__ = ["PREFIX", "SessionConfigResponse", "router"]
