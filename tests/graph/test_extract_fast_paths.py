"""The extraction's shortcuts give what the plain regexes give (issue 29 item 5).

Finding how a known name is written (``_surface``) skips the case-blind regex where
case cannot differ (an ASCII text, a CJK key), and the sentence splitter looks ahead
before it looks behind; both must find exactly what they found before.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from memvault.graph.extract import _SENTENCE_END, _surface

_BEFORE = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bMt)(?<!\bProf)[.!?。！？]+\s*|\n+"
)

_PIECES = st.sampled_from(
    [
        *("Bob", "bob", "BOB", "Dr.", "Mr. ", "St.", "ſ", "K", "k", "İ", "i", "ß", "SS"),
        *("ss", "北京", "大学", "カタカナ", "한국", "Ｂｏｂ", ". ", "! ", "。", "？"),
        *("\n", " ", "x"),
    ]
)
_TEXTS = st.lists(_PIECES, max_size=14).map("".join)


def _by_regex(text: str, key: str) -> str:
    match = re.search(re.escape(key), text, flags=re.IGNORECASE)
    return match.group(0) if match else key


@given(_TEXTS, _TEXTS)
@example("Met BOB and bob", "bob")
@example("ſ and s", "s")  # not ASCII: the regex decides
@example("去北京大学", "北京")
@example("Kelvin K", "k")
def test_surface_is_the_case_blind_regex(text: str, key: str) -> None:
    lowered = text.lower() if text.isascii() else None
    assert _surface(text, key, lowered) == _by_regex(text, key)
    assert _surface(text, key) == _by_regex(text, key)


@given(_TEXTS)
@example("Dr. Smith met Mr. Jones. Then St. Ives! 好。Prof. X?\n\nEnd")
def test_sentences_split_where_they_did(text: str) -> None:
    assert _SENTENCE_END.split(text) == _BEFORE.split(text)
