"""Which detectors run: the ``Registry`` type and the process-wide default registry.

The default registry is filled with the built-in detectors (:func:`builtin_detectors`)
the first time it is read; importing a detector module registers nothing, so the set
of rules never depends on what happened to be imported. Extra rules are added with
:func:`register` and removed with :func:`unregister`.

It sits above the detectors and :mod:`.base`: it imports them, and none of them
imports it, which keeps the package free of import cycles.
"""

from __future__ import annotations

import threading

from .api_key import ApiKeyDetector, PrivateKeyDetector
from .bank_card import BankCardDetector
from .base import Detector
from .cn_id import ChineseIdDetector
from .email import EmailDetector
from .password import PasswordDetector
from .phone import PhoneDetector


class Registry:
    """An ordered, thread-safe collection of detectors.

    Order matters only to break ties: when two findings cover exactly the same
    span at the same level, the one from the earlier detector is kept.
    """

    def __init__(self, detectors: tuple[Detector, ...] = ()) -> None:
        self._lock = threading.Lock()
        self._detectors: list[Detector] = list(detectors)

    def register(self, detector: Detector, *, first: bool = False) -> None:
        """Add ``detector`` (at the end, or before all others with ``first=True``).

        Registering the same object twice is a no-op.
        """
        if not isinstance(detector, Detector):
            raise TypeError(f"{detector!r} lacks a `kind` attribute or a `detect` method")
        with self._lock:
            if any(existing is detector for existing in self._detectors):
                return
            if first:
                self._detectors.insert(0, detector)
            else:
                self._detectors.append(detector)

    def unregister(self, kind_or_detector: str | Detector) -> int:
        """Remove one detector, or every detector of a kind; returns how many went."""
        with self._lock:
            before = len(self._detectors)
            if isinstance(kind_or_detector, str):
                self._detectors = [d for d in self._detectors if d.kind != kind_or_detector]
            else:
                self._detectors = [d for d in self._detectors if d is not kind_or_detector]
            return before - len(self._detectors)

    def detectors(self) -> tuple[Detector, ...]:
        with self._lock:
            return tuple(self._detectors)


def builtin_detectors() -> tuple[Detector, ...]:
    """A fresh instance of every built-in detector, most specific first."""
    return (
        PrivateKeyDetector(),
        ApiKeyDetector(),
        PasswordDetector(),
        ChineseIdDetector(),
        BankCardDetector(),
        EmailDetector(),
        PhoneDetector(),
    )


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The process-wide registry, filled with the built-in detectors on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Registry(builtin_detectors())
        return _default


def register(detector: Detector, *, first: bool = False) -> None:
    """Add a detector to the default registry."""
    default_registry().register(detector, first=first)


def unregister(kind_or_detector: str | Detector) -> int:
    """Remove a detector (or all detectors of a kind) from the default registry."""
    return default_registry().unregister(kind_or_detector)


def detectors() -> tuple[Detector, ...]:
    """The detectors of the default registry, in order."""
    return default_registry().detectors()


__all__ = [
    "Registry",
    "builtin_detectors",
    "default_registry",
    "detectors",
    "register",
    "unregister",
]
