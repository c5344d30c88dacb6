"""``POST /api/memory/v2/prefetch``: what a user's agent gets from memory on its next call.

The gateway builds the user's manager exactly as an agent host does
(:func:`memvault.agent.assembly.build_manager`, from the same config store and data
directory) and answers with its static prompt text, its recall for ``query`` and its
tools. So the panel, or a test, can see a switch take effect: after ``PATCH
/api/memory/v2/config`` with ``{"injection.enabled": false}`` the next answer holds no
memory. The route is memvault's own (seed 000 has none like it); it reads and never writes.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ..agent.assembly import build_manager
from ..validation import check_optional_ident
from .auth import GatewayDep, Who, act_as
from .errors import COMMON_ERRORS, UNAVAILABLE

router = APIRouter(prefix="/api/memory/v2", tags=["memory v2"], responses=COMMON_ERRORS)


class PrefetchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(max_length=20_000, description="the user message recall is made for")
    agent_id: str | None = Field(None, description="the agent whose memory it is")
    thread_id: str | None = Field(None, max_length=200, description="the conversation, if any")
    user_id: str | None = Field(None, description="required with an admin key")


class PrefetchResponse(BaseModel):
    user_id: str
    agent_id: str | None
    system_prompt: str = Field(description="static text: the USER/MEMORY snapshot, instructions")
    recall: str = Field(description="the recalled block for query; empty for none")
    tools: list[str] = Field(description="the memory tools the agent is given")


@router.post("/prefetch", response_model=PrefetchResponse, responses=UNAVAILABLE)
def prefetch(body: PrefetchRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """The memory the user's agent would get on its next model call, as its settings say."""
    user = act_as(who, body.user_id)
    agent = check_optional_ident(body.agent_id, "agent_id")
    manager = build_manager(
        gw.config_store,
        user,
        agent,
        vault=gw.agents,
        base_dir=gw.home,
        thread_id=body.thread_id,
    )
    try:
        return {
            "user_id": user,
            "agent_id": agent,
            "system_prompt": manager.system_prompt_blocks(),
            "recall": manager.prefetch_all(
                body.query, thread_id=body.thread_id or "", include_builtin=False
            ),
            "tools": manager.tool_names(),
        }
    finally:
        manager.shutdown_all()


__all__ = ["PrefetchRequest", "PrefetchResponse", "router"]
