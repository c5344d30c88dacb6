"""Detection and redaction of personal data and secrets (seed 004, "默认敏感保护").

Every memory is checked before it is stored: bank card numbers (Luhn), Chinese
resident ids (check character, birth date, area), phone numbers, e-mail
addresses, API keys and tokens, private keys, and passwords written in
natural language in Chinese or English. What is found is replaced by a typed
placeholder, and the entry takes the highest sensitivity level found::

    >>> from memvault.security.pii import redact
    >>> result = redact("我的手机是13812345678，邮箱 li@example.com")
    >>> result.text
    '我的手机是[phone#1]，邮箱 [email#1]'
    >>> result.sensitivity
    <Sensitivity.SENSITIVE: 'sensitive'>

One module per kind; :mod:`.base` holds the shared types, :mod:`.registry` decides
which detectors run, :mod:`.redact` combines their findings.
"""

from __future__ import annotations

from .base import DEFAULT_LEVELS, Detector, Finding
from .redact import Redaction, detect_all, redact
from .registry import (
    Registry,
    builtin_detectors,
    default_registry,
    detectors,
    register,
    unregister,
)

__all__ = [
    "DEFAULT_LEVELS",
    "Detector",
    "Finding",
    "Redaction",
    "Registry",
    "builtin_detectors",
    "default_registry",
    "detect_all",
    "detectors",
    "redact",
    "register",
    "unregister",
]
