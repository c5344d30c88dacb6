"""Request and response bodies of the HTTP API.

They only shape the wire format; the engine validates the values themselves,
so the rules live in one place.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddRequest(_Body):
    user_id: str
    content: str
    agent_id: str | None = None
    kind: str = "user"
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    session_id: str | None = None
    importance: float = 0.5


class SearchRequest(_Body):
    user_id: str
    query: str
    agent_id: str | None = None
    limit: int = Field(5, ge=1, le=100)
    kind: str | None = None


class UpdateRequest(_Body):
    user_id: str
    agent_id: str | None = None
    content: str | None = None
    name: str | None = None
    description: str | None = None
    kind: str | None = None
    metadata: dict[str, Any] | None = None
    importance: float | None = None


class Entry(BaseModel):
    """A memory as the API returns it (``MemoryEntry.to_dict``)."""

    model_config = ConfigDict(extra="allow")

    id: str
    user_id: str
    content: str
    agent_id: str | None = None
    kind: str
    created_at: str
    updated_at: str


class SearchHit(BaseModel):
    entry: Entry
    score: float


class SearchResponse(BaseModel):
    results: list[SearchHit]


class ListResponse(BaseModel):
    items: list[Entry]
    total: int
    limit: int
    offset: int


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail
