"""Writes session 8's training texts (``attacks8.jsonl``, ``benign8.jsonl``) for the model screen.

Written by hand for issue 31 item 4, in twenty-two languages, without reading the
frozen corpus (``../scan_frozen``). The texts live in ``texts8_a.py`` … ``texts8_f.py``;
this script turns them into JSON Lines of the shape of ``attacks.jsonl`` /
``benign.jsonl`` (``class``, ``lang``, ``text``; a split instruction also carries
``group`` and ``part``), and marks each row's ``split``: ``heldout`` for about a fifth
of them, chosen by a stable hash of the text (of the group for the two halves of a
split instruction, so both stay on one side), ``train`` for the rest. Training
(``bench/train_screen.py``) never reads the held-out rows; ``bench/scan_eval.py
--corpus train8`` measures on them. Run from the repository root:
``python bench/data/scan_train/make_train8.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import texts8_a  # noqa: E402
import texts8_b  # noqa: E402
import texts8_c  # noqa: E402
import texts8_d  # noqa: E402
import texts8_e  # noqa: E402
import texts8_f  # noqa: E402

PARTS = (texts8_a, texts8_b, texts8_c, texts8_d, texts8_e, texts8_f)
HELDOUT_FIFTHS = 1  # of five hash buckets


def split_of(key: str) -> str:
    """``heldout`` or ``train``, the same for the same key on every machine."""
    bucket = int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % 5
    return "heldout" if bucket < HELDOUT_FIFTHS else "train"


def rows(
    parts: Sequence[Any] = PARTS, prefix: str = "s8", seen: Iterable[str] = ()
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The attack and benign rows of ``parts`` (split pairs grouped as ``prefix-<part><i>``);
    a text met twice, or among ``seen``, stops the run."""
    attacks: list[dict[str, object]] = []
    benign: list[dict[str, object]] = []
    seen = set(seen)
    for part in parts:
        for cls, lang, text in part.ATTACKS:
            attacks.append({"class": cls, "lang": lang, "text": text, "split": split_of(text)})
        for i, (lang, first, second) in enumerate(part.SPLITS):
            group = f"{prefix}-{part.__name__[-1]}{i}"
            where = split_of(first + "\n" + second)
            for n, text in enumerate((first, second), start=1):
                attacks.append(
                    {
                        "class": "split",
                        "lang": lang,
                        "text": text,
                        "group": group,
                        "part": n,
                        "split": where,
                    }
                )
        for kind, lang, text in part.BENIGN:
            benign.append({"class": kind, "lang": lang, "text": text, "split": split_of(text)})
    for row in [*attacks, *benign]:
        if row["text"] in seen:
            raise SystemExit(f"duplicate text: {row['text']!r}")
        seen.add(str(row["text"]))
    return attacks, benign


def write(name: str, items: list[dict[str, object]]) -> None:
    lines = [json.dumps(r, ensure_ascii=False) for r in items]
    (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def save(attacks: list[dict[str, object]], benign: list[dict[str, object]], n: int) -> None:
    """Write round ``n``'s rows (``attacks<n>.jsonl``, ``benign<n>.jsonl``), say what they hold."""
    write(f"attacks{n}.jsonl", attacks)
    write(f"benign{n}.jsonl", benign)
    langs = {str(r["lang"]).split("-")[0] for r in [*attacks, *benign]}
    held = (
        sum(r["split"] == "heldout" for r in attacks),
        sum(r["split"] == "heldout" for r in benign),
    )
    print(f"{len(attacks)} attacks, {len(benign)} benign, {len(langs)} languages; held out {held}")


def main() -> None:
    save(*rows(), 8)


if __name__ == "__main__":
    main()
