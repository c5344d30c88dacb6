"""``/v1/memories/context``, ``/explain`` and ``/batch``: the rest of the ``Vault`` API
over HTTP, so the typed client (``memvault.client``) mirrors the library call for call.

``context`` answers the prompt block ``Vault.context`` renders (``""`` when nothing is
relevant); ``explain`` the trace of a search (``Explanation.to_dict``, the gate's
settings added so the client rebuilds the same object); ``batch`` stores many memories
in one transaction, all or none (``Vault.add_many``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..errors import ValidationError
from ..render import count_tokens
from .auth import GatewayDep, SurfaceDep, Who, act_as
from .errors import COMMON_ERRORS, NOT_FOUND
from .schemas import MAX_SEARCH, AddRequest, Entry, RecallFilters, SearchRequest, _Body

router = APIRouter(tags=["memories"], responses={**COMMON_ERRORS, **NOT_FOUND})

MAX_BATCH = 1000


class ContextRequest(RecallFilters):
    max_tokens: int | None = Field(None, ge=1, le=1_000_000, strict=True)
    limit: int | None = Field(None, ge=1, le=MAX_SEARCH, strict=True)


class ContextResponse(BaseModel):
    context: str = Field(description='the block for a system prompt; "" when nothing is relevant')
    max_tokens: int = Field(description="the token budget the block was packed into")
    tokens: int = Field(description="the block's size, in the estimate the packing uses")
    limit: int = Field(description="how many of the best hits the relevance gate judged")


class BatchRequest(_Body):
    records: list[AddRequest] = Field(
        max_length=MAX_BATCH,
        description="the memories, each as POST /v1/memories takes it (without user_id)",
    )
    user_id: str | None = None
    agent_id: str | None = Field(
        None, description="the agent whose store they go to; a record without agent_id gets it"
    )


class BatchResponse(BaseModel):
    items: list[Entry]


@router.post("/v1/memories/context", response_model=ContextResponse)
def context(body: ContextRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """The recalled-memory block for a system prompt (``Vault.context``), with the budget
    it was packed into and what it uses of it (the panel's Playground shows both)."""
    vault = gw.vault_for(body.agent_id)
    block = vault.context(
        body.query,
        user_id=act_as(who, body.user_id),
        max_tokens=body.max_tokens,
        limit=body.limit,
        **body.filters(),
    )
    budget = body.max_tokens or vault.config.context.max_tokens
    return {
        "context": block,
        "max_tokens": budget,
        "tokens": count_tokens(block),
        "limit": body.limit or vault.config.context.limit,
    }


@router.post("/v1/memories/explain")
def explain(body: SearchRequest, who: Who, gw: GatewayDep) -> dict[str, Any]:
    """Why each candidate of this search ranked where it did (``Vault.explain``)."""
    explanation = gw.vault_for(body.agent_id).explain(
        body.query, user_id=act_as(who, body.user_id), limit=body.limit, **body.filters()
    )
    out = explanation.to_dict()
    gate = explanation.gate
    if gate is not None:
        out["gate"]["settings"] = {
            "margin": gate.settings.margin,
            "band": gate.settings.band,
            "min_similarity": gate.settings.min_similarity,
        }
    return out


@router.post("/v1/memories/batch", status_code=201, response_model=BatchResponse)
def add_batch(body: BatchRequest, who: Who, gw: GatewayDep, source: SurfaceDep) -> dict[str, Any]:
    """Store every record in one transaction, or none of them when one is invalid."""
    user = act_as(who, body.user_id)
    records: list[dict[str, Any]] = []
    for i, record in enumerate(body.records):
        if record.user_id is not None:
            raise ValidationError(
                f"records[{i}].user_id: name the user once, in the body's user_id",
                field="user_id",
                index=i,
            )
        if record.agent_id is not None and record.agent_id != body.agent_id:
            raise ValidationError(
                f"records[{i}].agent_id differs from the body's agent_id: send one batch "
                "per agent (the body's agent_id picks the store)",
                field="agent_id",
                index=i,
            )
        if record.supersedes is not None:
            raise ValidationError(
                f"records[{i}].supersedes: a batch stores new memories only; send a "
                "replacement alone, to POST /v1/memories",
                field="supersedes",
                index=i,
            )
        fields = record.model_dump(exclude_unset=True, exclude={"user_id"})
        fields["agent_id"] = body.agent_id
        fields["source"] = source
        records.append(fields)
    entries = gw.vault_for(body.agent_id).add_many(records, user_id=user)
    return {"items": [e.to_dict() for e in entries]}


__all__ = ["router"]
