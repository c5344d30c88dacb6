"""Moved: the fence lives in :mod:`memvault.fences`, the renderer in :mod:`memvault.render`.

This module only re-exports them under their old path so code written against it keeps
importing; new code imports from the two modules above. (Delete once nothing imports it.)
"""

from __future__ import annotations

from ..fences import CLOSE_TAG, CONTEXT_NOTE, FENCE_MARKER, OPEN_TAG, escape_data, strip_fences
from ..render import count_tokens, pack, render_entry

__all__ = [
    "CLOSE_TAG",
    "CONTEXT_NOTE",
    "FENCE_MARKER",
    "OPEN_TAG",
    "count_tokens",
    "escape_data",
    "pack",
    "render_entry",
    "strip_fences",
]
