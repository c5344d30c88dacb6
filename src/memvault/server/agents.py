"""``/v1/agents``: each agent's memory settings (seed 002, section 8.1), for admin keys.

An agent's record says whether its memory is on, which store holds its memories and
how many memories the prefetch injects (``memvault.agent.stores``). Store URLs are shown
without their password. Changing an agent's store does not move its memories: copy them
first with ``memvault migrate-store --from OLD --to NEW --user ID``.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from ..agent.stores import DEFAULTS
from ..validation import check_ident
from .auth import Admin, GatewayDep
from .errors import COMMON_ERRORS, FORBIDDEN, NOT_FOUND

router = APIRouter(prefix="/v1/agents", tags=["agents"], responses={**COMMON_ERRORS, **FORBIDDEN})


class AgentSettingsOut(BaseModel):
    agent_id: str
    enabled: bool
    store: str | None = Field(description="the agent's own store (no password); null: default")
    prefetch_limit: int
    own_settings: bool = Field(description="false: the agent has no record and gets defaults")


class AgentList(BaseModel):
    agents: list[AgentSettingsOut]
    defaults: dict[str, Any]


class AgentSettingsIn(BaseModel):
    """The fields to change; those left out keep their value. ``store: null`` moves the
    agent back to the default store. NetaClaw's own keys (seed 002 section 8.1) are taken
    too: ``backend`` (``mysql``: the default store; ``sqlite``: ``sqlitePath``, or
    ``<home>/memory/memory.db``) and ``prefetchLimit``, so an agent's ``config.memory``
    object can be sent as it is."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None
    store: str | None = None
    prefetch_limit: int | None = Field(None, ge=1, le=100, strict=True)
    backend: Literal["mysql", "sqlite"] | None = Field(None, description="NetaClaw's key")
    sqlitePath: str | None = Field(None, description="NetaClaw's key (backend sqlite)")
    prefetchLimit: int | None = Field(
        None, ge=1, le=100, strict=True, description="NetaClaw's key for prefetch_limit"
    )


def _out(agent_id: str, gw: Any) -> dict[str, Any]:
    registry = gw.agents.registry
    return {
        "agent_id": agent_id,
        **registry.get(agent_id).public(),
        "own_settings": registry.has(agent_id),
    }


@router.get("", response_model=AgentList)
def list_agents(_: Admin, gw: GatewayDep) -> dict[str, Any]:
    """Every agent with settings of its own; any other agent gets ``defaults``."""
    return {
        "agents": [_out(agent_id, gw) for agent_id in gw.agents.registry.all()],
        "defaults": DEFAULTS.public(),
    }


@router.get("/{agent_id}", response_model=AgentSettingsOut)
def get_agent(agent_id: str, _: Admin, gw: GatewayDep) -> dict[str, Any]:
    return _out(check_ident(agent_id, "agent_id"), gw)


@router.put("/{agent_id}", response_model=AgentSettingsOut)
def set_agent(agent_id: str, body: AgentSettingsIn, _: Admin, gw: GatewayDep) -> dict[str, Any]:
    """Change an agent's settings. A new store is opened (its schema created) before the
    record is written: one that cannot be reached is refused (503) and the agent keeps
    its old settings."""
    gw.agents.configure(agent_id, **body.model_dump(exclude_unset=True))
    return _out(agent_id, gw)


@router.delete("/{agent_id}", status_code=204, response_class=Response, responses=NOT_FOUND)
def reset_agent(agent_id: str, _: Admin, gw: GatewayDep) -> Response:
    """Drop the agent's own settings: it gets the defaults (and the default store) again.
    Its memories stay where they are."""
    gw.agents.registry.remove(agent_id)
    return Response(status_code=204)
