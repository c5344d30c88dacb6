"""The scan's regexes are read ahead of time (``literals.json``, written by
``bench/scan_literals.py``): the shipped reading must be what reading them now gives,
and every process must build the same regexes, since the file is keyed by their text."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from memvault.security.scan import literals
from memvault.security.scan.literals import SHIPPED, key, openings, reading, required, written
from memvault.security.scan.patterns import PATTERNS


def test_the_shipped_reading_is_current_and_covers_every_rule() -> None:
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    rules = [p for p in PATTERNS if p.mask is None]
    missing = [p.id for p in rules if key(p.regex) not in shipped]
    assert not missing, f"run bench/scan_literals.py (rules read at run time: {missing})"
    stale = [p.id for p in rules if shipped[key(p.regex)] != written(p.regex)]
    assert not stale, f"run bench/scan_literals.py (stale: {stale})"
    for p in rules:
        needs, starts = reading(p.regex)
        assert set(needs) == set(required(p.regex)) and starts == openings(p.regex), p.id


def test_a_regex_the_file_does_not_hold_is_read_at_run_time() -> None:
    regex = re.compile(r"(?:launch|fire) the (?:rockets|missiles) now", re.IGNORECASE)
    assert key(regex) not in literals._shipped()
    phrases = frozenset(
        f"{verb} the {what} now" for verb in ("launch", "fire") for what in ("rockets", "missiles")
    )
    assert reading(regex) == ((phrases,), phrases)


def test_every_process_builds_the_same_regexes() -> None:
    # String hashing differs between processes: a rule built by iterating a set of
    # words would differ, and miss the shipped reading.
    code = (
        "import json; from memvault.security.scan.patterns import PATTERNS; "
        "print(json.dumps([p.regex.pattern for p in PATTERNS]))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2", "3")
    ]
    assert runs[0] == runs[1] == runs[2]
    assert json.loads(runs[0]) == [p.regex.pattern for p in PATTERNS]
