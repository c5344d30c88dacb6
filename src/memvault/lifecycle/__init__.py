"""How memory ages and changes over time (seed 004): tiers and decay so far."""

from __future__ import annotations

from .tiers import Maintenance, MaintenanceReport, TierMove, last_activity, next_tier

__all__ = ["Maintenance", "MaintenanceReport", "TierMove", "last_activity", "next_tier"]
