"""Writes session 9's training texts (``attacks9.jsonl``, ``benign9.jsonl``) for the model screen.

Written by hand for issue 31, mostly English with Chinese, without reading the frozen
corpus (``../scan_frozen``) or any held-out split: attacks in many surface forms, and
benign look-alikes (a person's security notes, incident reports, policies, pentest and
phishing write-ups, dev notes, runbooks). The texts live in ``texts9_*.py``; this
script turns them into JSON Lines of the shape of ``attacks.jsonl`` /
``benign.jsonl`` (``class``, ``lang``, ``text``; a split instruction also carries
``group`` and ``part``), and marks each row's ``split``: ``heldout`` for about a fifth
of them, chosen by a stable hash of the text (of the group for the two halves of a
split instruction, so both stay on one side), ``train`` for the rest. Training
(``bench/train_screen.py``) never reads the held-out rows; ``bench/scan_eval.py
--corpus heldout9`` measures on them. The split rule is session 8's, so a text's side
never depends on which other texts exist. Run from the repository root:
``python bench/data/scan_train/make_train9.py``. It refuses to write a text as near
as :data:`NEAR` (character-trigram Jaccard) to a held-out text of the tuning corpus or of
session 8, and prints the nearest pair between this round's two sides.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_train8  # noqa: E402
import texts9_a  # noqa: E402
import texts9_b  # noqa: E402
import texts9_c  # noqa: E402
import texts9_d  # noqa: E402
import texts9_e  # noqa: E402
import texts9_f  # noqa: E402
import texts9_g  # noqa: E402

PARTS = (texts9_a, texts9_b, texts9_c, texts9_d, texts9_e, texts9_f, texts9_g)
NEAR = 0.6  # character-trigram Jaccard at which two texts count as one


def earlier_texts() -> list[str]:
    """Every text of the earlier training and tuning files."""
    files = [HERE / f"{n}.jsonl" for n in ("attacks", "benign", "attacks8", "benign8")]
    files += sorted((HERE.parents[2] / "tests" / "scan_corpus").glob("*.jsonl"))
    return [
        json.loads(line)["text"]
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def trigrams(text: str) -> frozenset[str]:
    flat = " ".join(text.lower().split())
    return frozenset(flat[i : i + 3] for i in range(max(len(flat) - 2, 1)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / max(len(a | b), 1)


def nearest(texts: list[str], others: list[str]) -> tuple[float, str, str]:
    """The most similar pair (Jaccard, text, other)."""
    grams = [(o, trigrams(o)) for o in others]
    best = (0.0, "", "")
    for t in texts:
        mine = trigrams(t)
        for o, theirs in grams:
            j = jaccard(mine, theirs)
            if j > best[0]:
                best = (j, t, o)
    return best


def held_out_elsewhere() -> list[str]:
    """The texts measured as held out: the tuning corpus's ``heldout.jsonl`` and the
    held-out rows of session 8."""
    root = HERE.parents[2]
    out = [
        json.loads(line)["text"]
        for line in (root / "tests/scan_corpus/heldout.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    for name in ("attacks8.jsonl", "benign8.jsonl"):
        for line in (HERE / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("split") == "heldout":
                out.append(row["text"])
    return out


def rows() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    # A text of an earlier round would sit on both sides of a held-out split.
    return make_train8.rows(PARTS, "s9", earlier_texts())


def main() -> None:
    attacks, benign = rows()
    mine = [str(r["text"]) for r in [*attacks, *benign]]
    score, text, other = nearest(mine, held_out_elsewhere())
    print(f"nearest to a held-out text elsewhere: {score:.2f}")
    if score >= NEAR:
        raise SystemExit(f"too near a held-out text ({score:.2f}): {text!r} ~ {other!r}")
    held = [str(r["text"]) for r in [*attacks, *benign] if r["split"] == "heldout"]
    train = [str(r["text"]) for r in [*attacks, *benign] if r["split"] == "train"]
    score, text, other = nearest(held, [*train, *earlier_texts()])
    print(f"nearest between this round's held-out rows and any training text: {score:.2f}")
    print(f"  {text!r}\n  {other!r}")
    make_train8.save(attacks, benign, 9)


if __name__ == "__main__":
    main()
