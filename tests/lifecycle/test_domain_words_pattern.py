"""The domain words' pattern finds what it found before it looked at first letters
first (issue 29 item 5), in the lower case and case-blind."""

from __future__ import annotations

import importlib
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

domains = importlib.import_module("memvault.lifecycle.domains")

_LISTS = [tuple(domains.WORK_WORDS), tuple(domains.LIFE_WORDS)]
_PIECES = st.sampled_from(
    [
        *domains.WORK_WORDS[:20],
        *domains.LIFE_WORDS[:20],
        *("Meeting", "FAMILY", "on-call", "\u212aids", "ſprint", "é", "_", "-", " ", "1", "x"),
    ]
)


def _before(words: tuple[str, ...], flags: int) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(w.lower()) for w in words) + r")\b", flags)


@pytest.mark.parametrize("flags", [0, re.IGNORECASE])
@pytest.mark.parametrize("words", _LISTS, ids=["work", "life"])
@given(st.lists(_PIECES, max_size=10).map("".join))
@example("the meeting with my family on-call, sprint xmeeting meetingx")
def test_the_pattern_finds_what_it_found(words: tuple[str, ...], flags: int, text: str) -> None:
    now = domains._pattern(words, flags)
    assert now.pattern != _before(words, flags).pattern
    spans = [m.span(1) for m in now.finditer(text)]
    assert spans == [m.span(1) for m in _before(words, flags).finditer(text)]
