"""The scan's behaviour on the repository's own corpora (tests/scan_corpus/*.jsonl).

``attacks.jsonl`` holds memory-poisoning payloads across the attack classes of
issue 11 (paraphrases, nine languages, homoglyphs, spacing and leetspeak,
invisible characters, comments, encodings, look-alike fences); ``benign.jsonl``
holds notes people really store that share words or characters with them. The
assertions are the targets: every attack caught (blocked or quarantined) except
the listed known misses and at least 95 % overall; benign texts refused at most
1 %, quarantined at most 5 %.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memvault.security.scan import Verdict, assess

CORPUS = Path(__file__).parents[1] / "scan_corpus"


def _load(name: str) -> list[dict[str, str]]:
    lines = (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


ATTACKS = _load("attacks")
BENIGN = _load("benign")
HELDOUT = _load("heldout")
KNOWN_MISSES = {
    line
    for line in (CORPUS / "known_misses.txt").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
}


def test_corpora_are_large_labelled_and_cover_the_classes() -> None:
    assert len(ATTACKS) >= 150
    assert len(BENIGN) >= 200
    for row in (*ATTACKS, *BENIGN, *HELDOUT):
        assert set(row) == {"text", "class", "lang"}
        assert row["text"] and row["class"] and row["lang"]
    classes = Counter(row["class"] for row in ATTACKS)
    for cls in (
        "injection", "role_hijack", "deception", "exfiltration", "secret_file", "ssh_backdoor",
        "agent_config", "paraphrase", "homoglyph", "spaced", "invisible", "comment", "encoded",
        "fence",
    ):  # fmt: skip
        assert classes[cls] >= 5, cls
    langs = {row["lang"] for row in ATTACKS}
    required = {"zh-Hans", "zh-Hant", "ja", "ko", "es", "ru", "ar", "fa", "hi", "en"}
    assert required <= langs
    assert KNOWN_MISSES.issubset(row["text"] for row in ATTACKS)


@pytest.mark.parametrize("row", ATTACKS, ids=lambda r: f"{r['class']}-{r['lang']}")
def test_attack_is_caught(row: dict[str, str]) -> None:
    result = assess(row["text"])
    if row["text"] in KNOWN_MISSES:
        # Kept honest both ways: a listed miss that is caught now leaves the list.
        assert result.verdict is Verdict.ALLOW, "caught now: remove it from known_misses.txt"
        return
    assert result.verdict is not Verdict.ALLOW, row


def test_caught_rate_with_known_misses() -> None:
    caught = sum(assess(row["text"]).verdict is not Verdict.ALLOW for row in ATTACKS)
    assert caught / len(ATTACKS) >= 0.95
    missed = {row["text"] for row in ATTACKS if assess(row["text"]).verdict is Verdict.ALLOW}
    assert missed <= KNOWN_MISSES  # a new miss must be fixed or listed


def test_benign_refused_and_quarantined_rates() -> None:
    verdicts = Counter(assess(row["text"]).verdict for row in BENIGN)
    assert verdicts[Verdict.BLOCK] / len(BENIGN) <= 0.01, verdicts
    assert verdicts[Verdict.QUARANTINE] / len(BENIGN) <= 0.05, verdicts


@pytest.mark.parametrize(
    "text",
    [
        'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/users',
        "const url = `https://maps.example.com/api?address=${addr}&key=${API_KEY}`;",
        "Add the deploy key to authorized_keys on the staging box.",
        "update AGENTS.md",
        "Runbook: ssh into the box, cd /srv/app, cat .env to check DATABASE_URL.",
        "วันนี้\u200bอากาศ\u200bดี\u200bมาก",
        "ខ្ញុំ\u200bចង់\u200bទៅ\u200bផ្សារ",
        "\u202bשלום, הפגישה מחר בשעה עשר\u202c",
        "\u202bمرحبا بكم في الاجتماع\u202c at 10:00",
        "\ufeffThis file starts with a byte order mark.",
        "请不要忘记之前提到的设计规则",
    ],
)
def test_issue_false_positives_are_allowed(text: str) -> None:
    # The benign notes issue 11 found refused: all must now be stored and injected.
    result = assess(text)
    assert result.verdict is Verdict.ALLOW, result.threats
