"""``memvault migrate-v1``: DeerFlow memory V1 files moved to V2's places (seed 000 §13).

``run`` is the procedure, ``report`` the typed account of what it did. The procedure's
names are re-exported here, the path the documentation uses
(``memvault.agent.migrate_v1.migrate_v1``).
"""

from .run import (
    BACKUP_NAME,
    DEFAULT_AGENT,
    SECTION_LABELS,
    V1_FILE_NAME,
    ExternalMode,
    RetainingMemory,
    V1File,
    find_v1_files,
    migrate_v1,
    read_v1,
)

__all__ = [
    "BACKUP_NAME",
    "DEFAULT_AGENT",
    "SECTION_LABELS",
    "V1_FILE_NAME",
    "ExternalMode",
    "RetainingMemory",
    "V1File",
    "find_v1_files",
    "migrate_v1",
    "read_v1",
]
