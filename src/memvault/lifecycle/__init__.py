"""How memory ages and is sorted (seed 004): tiers, decay, reinforcement, work or life."""

from __future__ import annotations

from .access import AccessLog
from .tiers import Maintenance, MaintenanceReport, TierMove, last_activity, next_tier

__all__ = [
    "AccessLog",
    "Maintenance",
    "MaintenanceReport",
    "TierMove",
    "last_activity",
    "next_tier",
]
