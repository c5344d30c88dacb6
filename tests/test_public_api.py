"""The curated public surface stays true: sorted, importable, documented."""

from __future__ import annotations

import memvault


def test_all_is_sorted_and_importable() -> None:
    names = [n for n in memvault.__all__ if n != "__version__"]
    assert names == sorted(names, key=lambda n: (n[0].islower(), n))
    for name in memvault.__all__:
        assert hasattr(memvault, name), name


def test_every_public_class_has_a_docstring() -> None:
    for name in memvault.__all__:
        obj = getattr(memvault, name)
        if isinstance(obj, type):
            assert obj.__doc__ and obj.__doc__.strip(), name


def test_every_error_derives_from_the_base() -> None:
    for name in memvault.__all__:
        obj = getattr(memvault, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, memvault.MemvaultError), name
