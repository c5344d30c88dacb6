"""The SQL of every concern, written once for the three SQL backends.

Each module is one concern's statements and its protocol's methods over a backend's
runner and dialect (``runner``): ``entries``, ``audit`` (originals, reveal, the audit
log, erasure), ``versions``, ``profiles``, ``workspace``, ``graph``, ``stats``,
``usage``, ``settings``, and ``migrations`` (the registry every backend's schema uses). A backend
package adds its connection, its dialect, and what only it does; ``SQLShared`` gathers
the concerns no backend adds anything to.
"""

from __future__ import annotations

from .graph import SQLGraph
from .profiles import SQLProfiles
from .settings import SQLSettings
from .stats import SQLStats
from .usage import SQLUsage
from .versions import SQLVersions
from .workspace import SQLWorkspace


class SQLShared(SQLStats, SQLUsage, SQLVersions, SQLProfiles, SQLWorkspace, SQLGraph, SQLSettings):
    """Aggregates, the token ledger, versions, profiles, the workspace, the graph and
    the vault's settings, as every SQL backend has them."""


__all__ = ["SQLShared"]
