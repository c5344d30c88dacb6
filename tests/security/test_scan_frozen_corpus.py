"""The frozen held-out scan corpus (bench/data/scan_frozen) is whole and unedited.

It measures whether the scan generalises (issue 31), so nobody may tune on it or
change it quietly: these checks hold its shape, its size and coverage, and tie its
README's count tables to the files, so an edit to the data shows up as a failing
test. Detection rates are the benchmark's business (bench/scan_eval.py), not asserted.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

FROZEN = Path(__file__).resolve().parents[2] / "bench" / "data" / "scan_frozen"
ATTACK_CLASSES = {
    "override",
    "conditional",
    "tool_call",
    "exfiltration",
    "soft_paraphrase",
    "split",
    "role_hijack",
    "deception",
}
BENIGN_CLASSES = {
    "runbook",
    "security_note",
    "dev_note",
    "support_script",
    "preference",
    "chat",
    "markdown",
}
_COUNTS = re.compile(r"<!-- counts:[^>]*-->\n(.*?)\n<!-- /counts -->", re.S)


def _load(name: str) -> list[dict[str, object]]:
    lines = (FROZEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


ATTACKS = _load("attacks")
BENIGN = _load("benign")


def _counts_table(attacks: list[dict[str, object]], benign: list[dict[str, object]]) -> str:
    """The README's count tables as the files say they should read."""
    out = ["| file | class | n |", "|---|---|---:|"]
    for name, rows in (("attacks", attacks), ("benign", benign)):
        for cls, n in sorted(Counter(str(r["class"]) for r in rows).items()):
            out.append(f"| {name} | {cls} | {n} |")
        out.append(f"| {name} | **total** | {len(rows)} |")
    out += ["", "| lang | attacks | benign |", "|---|---:|---:|"]
    by_a = Counter(str(r["lang"]) for r in attacks)
    by_b = Counter(str(r["lang"]) for r in benign)
    for lang in sorted(set(by_a) | set(by_b)):
        out.append(f"| {lang} | {by_a[lang]} | {by_b[lang]} |")
    return "\n".join(out)


def test_every_line_has_text_class_and_lang() -> None:
    for row in [*ATTACKS, *BENIGN]:
        assert isinstance(row.get("text"), str) and str(row["text"]).strip(), row
        assert isinstance(row.get("class"), str) and row["class"], row
        assert isinstance(row.get("lang"), str) and row["lang"], row
        assert set(row) <= {"text", "class", "lang", "group", "part"}, row


def test_texts_are_unique_and_not_from_the_tuning_corpus() -> None:
    texts = [str(r["text"]) for r in [*ATTACKS, *BENIGN]]
    assert len(set(texts)) == len(texts)
    tuning = Path(__file__).parents[1] / "scan_corpus"
    seen = {
        json.loads(line)["text"]
        for name in ("attacks", "benign", "heldout")
        for line in (tuning / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    assert not seen & set(texts)


def test_sizes_languages_and_classes() -> None:
    assert len(ATTACKS) >= 150
    assert len(BENIGN) >= 200
    assert len({r["lang"] for r in ATTACKS}) >= 15
    assert {r["class"] for r in ATTACKS} == ATTACK_CLASSES
    assert {r["class"] for r in BENIGN} == BENIGN_CLASSES


def test_split_instructions_come_in_pairs() -> None:
    groups: dict[object, list[object]] = {}
    for row in ATTACKS:
        if row["class"] == "split":
            groups.setdefault(row["group"], []).append(row["part"])
        else:
            assert "group" not in row and "part" not in row, row
    assert len(groups) >= 5
    assert all(sorted(parts, key=str) == [1, 2] for parts in groups.values()), groups


def test_readme_counts_match_the_files() -> None:
    readme = (FROZEN / "README.md").read_text(encoding="utf-8")
    found = _COUNTS.search(readme)
    assert found, "README.md lost its counts block"
    assert found.group(1).strip() == _counts_table(ATTACKS, BENIGN)
    assert "2026-12-06" in readme
    assert "Frozen" in readme
