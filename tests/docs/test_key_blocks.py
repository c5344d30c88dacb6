"""The key-management block of docs/http-reference.md works on a real home.

The page used to revoke ``"$(memvault keys list | cut -d' ' -f1)"``: the first field of
*every* line, so it failed whenever two keys existed — which is always the case after
``make serve``, whose first start creates an admin key (issue 33).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.server.keys import KeyStore
from tests.doc_blocks import ROOT, blocks, run_console

(KEYS_BLOCK,) = [
    b for b in blocks(ROOT / "docs" / "http-reference.md", "console") if "keys revoke" in b.code
]


@pytest.mark.slow
def test_the_revoke_example_works_next_to_the_first_admin_key(tmp_path: Path) -> None:
    keys = KeyStore.in_home(tmp_path / "home")  # the block's home (tests/doc_blocks.py)
    assert keys.ensure_admin() is not None  # what the first `memvault serve` leaves
    assert run_console(KEYS_BLOCK.code, tmp_path, KEYS_BLOCK.marks) == []
    left = {r.label: r.revoked for r in keys.list()}
    assert left == {"first admin": False, "laptop": True}  # only the laptop's key went
