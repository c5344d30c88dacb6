"""Writes ``src/memvault/security/scan/literals.json``: what every rule's regex cannot
match without and what its matches begin with (``literals.required`` and
``literals.openings``), read ahead of time so that no process reads the regexes again.

Run it after changing a rule (a rule missing from the file is read at run time, and
``tests/security/test_scan_literals.py`` fails until the file is written again):

    .venv/bin/python bench/scan_literals.py
"""

from __future__ import annotations

import json

from memvault.security.scan.literals import SHIPPED, key, written
from memvault.security.scan.patterns import PATTERNS


def main() -> None:
    entries = {key(p.regex): written(p.regex) for p in PATTERNS if p.mask is None}
    text = json.dumps(dict(sorted(entries.items())), ensure_ascii=False, separators=(",", ":"))
    SHIPPED.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {SHIPPED} ({len(entries)} regexes, {SHIPPED.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
