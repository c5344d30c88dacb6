"""Regenerate ``_confusables.py`` from a ``confusables.json`` (confusable-homoglyphs).

Run only by a maintainer when the Unicode data should be refreshed::

    python -m memvault.security.scan._build_confusables PATH/confusables.json

The scan itself never imports this module, so the package needs no dependency at
run time: the table it writes is plain data.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

# Scripts whose letters must keep their identity: the multilingual rules read them.
_KEEP = (
    "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "ARABIC", "HEBREW", "DEVANAGARI",
    "THAI", "KHMER", "BOPOMOFO", "YI ", "KANGXI",
)  # fmt: skip


def build(data: dict[str, list[dict[str, str]]]) -> dict[int, str]:
    """Each confusable character outside ``_KEEP`` mapped to its one-ASCII-character prototype."""
    out: dict[int, str] = {}
    for char, homoglyphs in data.items():
        if len(char) != 1 or ord(char) < 128:
            continue
        name = unicodedata.name(char, "")
        if not name or name.startswith(_KEEP):
            continue
        targets = [h["c"] for h in homoglyphs if len(h["c"]) == 1 and 32 < ord(h["c"]) < 127]
        if not targets:
            continue
        targets.sort(key=lambda c: (not c.isalpha(), not c.isalnum()))
        target = targets[0]
        if unicodedata.normalize("NFKC", char) == target:
            continue
        # TR39 writes every I-like letter as "l"; the rules are case-insensitive English.
        if target == "l" and ("CAPITAL LETTER I" in name or "IOTA" in name or name.endswith(" I")):
            target = "i"
        out[ord(char)] = target
    return out


def render(table: dict[int, str]) -> str:
    rows: list[str] = []
    line = ""
    for cp, target in sorted(table.items()):
        item = f"{cp:x}{target} "
        if len(line) + len(item) > 80:
            rows.append(f"    {line!r}")
            line = ""
        line += item
    if line:
        rows.append(f"    {line!r}")
    body = "\n".join(rows)
    return f'''"""Confusable characters and the ASCII character each one imitates (generated).

Built from the Unicode TR39 confusables data as packaged by confusable-homoglyphs 3.3.1
(``confusables.json``): every non-ASCII character outside the CJK, Hangul, Arabic, Hebrew,
Devanagari, Thai and Khmer blocks whose prototype is one printable ASCII character, minus
those NFKC already folds. Capital-I look-alikes map to ``i`` rather than TR39's ``l`` so that
case-insensitive English rules still read them. Regenerate with
``python -m memvault.security.scan._build_confusables PATH/confusables.json``.
"""

from __future__ import annotations

# code point -> ASCII prototype, packed as (hex code point)(character), space separated
_PACKED = (
{body}
)


def table() -> dict[int, str]:
    """The mapping as a ``str.translate`` table."""
    out: dict[int, str] = {{}}
    for item in _PACKED.split():
        out[int(item[:-1], 16)] = item[-1]
    return out
'''


def main(argv: list[str]) -> None:
    data = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    target = Path(__file__).with_name("_confusables.py")
    target.write_text(render(build(data)), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
