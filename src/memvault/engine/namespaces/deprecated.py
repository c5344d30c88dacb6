"""The old flat names of ``Vault`` (before its namespaces), kept as warning aliases.

Each alias is one class attribute naming the namespace and method that replaced it
(the table is ``namespaces.flat.FlatNames``, which ``Vault`` derives from); reading it
warns (``DeprecationWarning``) and returns that method, so an old call works unchanged.
Only names the public API promised (the README, ``docs/``, the CHANGELOG) get one;
``docs/quickstart.md`` lists them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Deprecated:
    """``Vault.<old>``: warns, then hands back ``vault.<space>.<name>``."""

    def __init__(self, space: str, target: Callable[..., Any]) -> None:
        self.space = space
        self.target = target
        self.name = target.__name__
        self.old = self.name

    def __set_name__(self, owner: type, attr: str) -> None:
        self.old = attr

    def __get__(self, vault: object, owner: type | None = None) -> Callable[..., Any]:
        if vault is None:  # on the class: the new method, so its signature can be read
            return self.target
        warn(f"Vault.{self.old}", f"vault.{self.space}.{self.name}")
        method: Callable[..., Any] = getattr(getattr(vault, self.space), self.name)
        return method


class Space(Generic[T]):
    """A namespace whose name was a method of ``Vault`` before (``entities``, ``reveal``).

    On a vault it is the namespace object, kept in ``_<name>``; on the class it is
    ``flat``, the namespace's method the old call now runs (``Entities.list``), so what
    the old call took can still be read off ``Vault`` (``inspect.signature``).
    """

    def __init__(self, flat: Callable[..., Any]) -> None:
        self.flat = flat
        self.slot = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.slot = f"_{attr}"

    @overload
    def __get__(self, vault: None, owner: type | None = None) -> Callable[..., Any]: ...
    @overload
    def __get__(self, vault: object, owner: type | None = None) -> T: ...
    def __get__(self, vault: object, owner: type | None = None) -> T | Callable[..., Any]:
        if vault is None:
            return self.flat
        space: T = getattr(vault, self.slot)
        return space


def warn(old: str, new: str) -> None:
    """The one deprecation message, pointing at the caller's line."""
    warnings.warn(f"{old} is deprecated: call {new}", DeprecationWarning, stacklevel=3)


__all__ = ["Deprecated", "Space", "warn"]
