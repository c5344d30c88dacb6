"""How memory ages and changes over time (seed 004): tiers, decay and reinforcement."""

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
