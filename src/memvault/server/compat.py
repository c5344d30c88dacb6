"""Seed 004's route names, as aliases of the routes that already do the work.

deepmemory's clients call ``POST /v1/memories/add``, ``/v1/v2/recall`` and the lifecycle
run under ``/v1/v2/``; here each name is bound to the handler of memvault's own route
(``POST /v1/memories``, ``POST /v1/memories/search``, ``POST /v1/maintenance/run``), so
the body, the answer, the keys and the isolation are those of the original, and there is
no second copy of the logic to drift. The state-card, task and session-config routes of
the seed are memvault's own routes already (``server.workspace``, ``server.session_config``).
"""

from __future__ import annotations

from fastapi import APIRouter

from . import maintenance, memories
from .errors import COMMON_ERRORS, FORBIDDEN, NOT_FOUND
from .schemas import Entry, SearchResponse

router = APIRouter(tags=["seed 004 compatibility"], responses=COMMON_ERRORS)

router.add_api_route(
    "/v1/memories/add",
    memories.add_memory,
    methods=["POST"],
    status_code=201,
    response_model=Entry,
    summary="Add a memory (seed 004's name for POST /v1/memories)",
)
router.add_api_route(
    "/v1/v2/recall",
    memories.search_memories,
    methods=["POST"],
    response_model=SearchResponse,
    responses=NOT_FOUND,
    summary="Recall memories (seed 004's name for POST /v1/memories/search)",
)
router.add_api_route(
    "/v1/v2/lifecycle/run",
    maintenance.run_maintenance,
    methods=["POST"],
    responses=FORBIDDEN,
    summary="Run the tier transitions (seed 004's name for POST /v1/maintenance/run)",
)

__all__ = ["router"]
