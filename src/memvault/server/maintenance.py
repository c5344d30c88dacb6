"""``POST /v1/maintenance/run`` (admin) and the schedule that runs the same on its own.

Maintenance moves entries down the tiers (``Vault.maintain``) in the default store and
in every agent's own store. ``memvault serve`` runs it every
``lifecycle.schedule_minutes`` (6 hours by default) on a background thread; an app made
with ``create_app`` does so only when ``ServerSettings.run_maintenance`` is set, so tests
and embedding applications decide for themselves. With several workers, a lock file in
the data directory lets one of them run at a time; the others skip that round.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from ..atomic import LockTimeout, file_lock
from ..errors import MemvaultError
from .auth import Admin, GatewayDep
from .errors import COMMON_ERRORS, FORBIDDEN
from .state import Gateway

log = logging.getLogger(__name__)

router = APIRouter(
    prefix="/v1/maintenance", tags=["maintenance"], responses={**COMMON_ERRORS, **FORBIDDEN}
)

MAX_LISTED_MOVES = 1000
LOCK_FILE = "maintenance"


class MaintenanceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    now: str | None = None  # ISO 8601; default: the server's clock
    dry_run: bool = False
    user_id: str | None = None


@router.post("/run")
def run_maintenance(
    _: Admin, gw: GatewayDep, body: MaintenanceRequest | None = None
) -> dict[str, Any]:
    """Run the tier transitions now. ``dry_run`` reports what would move and writes
    nothing; the first 1,000 moves are listed, the counts are always complete."""
    body = body or MaintenanceRequest()
    report = gw.agents.maintain(now=body.now, dry_run=body.dry_run, user_id=body.user_id)
    return report.to_dict(max_moves=MAX_LISTED_MOVES)


class Scheduler:
    """Runs maintenance every ``interval`` seconds until ``stop``."""

    def __init__(self, gw: Gateway, interval: float) -> None:
        self.gw = gw
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memvault-maintenance", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.run_once()

    def run_once(self) -> bool:
        """One round, unless another process holds the lock; True if it ran."""
        try:
            with file_lock(self.gw.home / LOCK_FILE, timeout=0):
                report = self.gw.agents.maintain()
        except LockTimeout:
            return False
        except MemvaultError as exc:
            log.warning("scheduled maintenance failed (it runs again next round): %s", exc)
            return False
        if report.moves:
            log.info("maintenance moved %d entries: %s", len(report.moves), report.counts)
        return True


def start_schedule(gw: Gateway) -> Scheduler | None:
    """The scheduler the settings ask for (started), or None."""
    minutes = gw.vault.config.lifecycle.schedule_minutes
    if not gw.settings.run_maintenance or minutes is None:
        return None
    scheduler = Scheduler(gw, minutes * 60)
    scheduler.start()
    return scheduler


__all__ = ["Scheduler", "router", "start_schedule"]
