"""External memory: the protocol the gateway's ``/api/memory/v2`` routes ask of the
configured external provider (``protocol``), and its implementations: memvault's own
engine (``vault``), a Hindsight server (``hindsight``), and the choice between them
(``factory``). The protocol's names are re-exported here, the path the documentation uses.
"""

from ...results.external import ExternalHit
from .protocol import (
    DEFAULT_USER_BANK_TEMPLATE,
    DEFAULT_WORK_BANK_TEMPLATE,
    Bank,
    BankNaming,
    Banks,
    ExternalMemory,
    ExternalStatus,
    MirroringMemory,
    NoExternalMemory,
    RecallBudget,
    Reflection,
)

__all__ = [
    "DEFAULT_USER_BANK_TEMPLATE",
    "DEFAULT_WORK_BANK_TEMPLATE",
    "Bank",
    "BankNaming",
    "Banks",
    "ExternalHit",
    "ExternalMemory",
    "ExternalStatus",
    "MirroringMemory",
    "NoExternalMemory",
    "RecallBudget",
    "Reflection",
]
