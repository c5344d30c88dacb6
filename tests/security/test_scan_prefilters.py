"""The scan's cheap first looks answer what the expressions they replaced answered
(issue 29 item 5): whether a text holds an invisible or a tag character, whether a
pattern matches three times, and that a text without a long run of base64 or URL-safe
characters has nothing to decode."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memvault.security.scan import decode, invisible

_PIECES = st.sampled_from(
    [
        *("word", "Ignore", "aGVsbG8gd29ybGQ=", "SGVsbG8sIHRoaXMgaXMgYSBzZWNyZXQ"),
        *("a+b/c", "x_y-z"),
        *("%20", "%2F", "%zz", "%", "abc", "ab", "\u200b", "\u200d", "\u202e", "\ufeff"),
        *("\U000e0041", "\U000e007f", "\U0010fffd", "\U000dffff", "\ufe0f", "🏴", "北京"),
        *(" ", "\n", "=", "-", "_", "/", "+", "0123456789", "A" * 15, "b" * 19),
    ]
)
_TEXTS = st.lists(_PIECES, max_size=20).map("".join)


@given(_TEXTS)
@example("")
@example("\U000e0000")
def test_the_character_looks_are_the_set_and_max_tests(text: str) -> None:
    assert (invisible._ANY_INVISIBLE.search(text) is None) == invisible.INVISIBLE.isdisjoint(text)
    assert (invisible._FROM_TAGS.search(text) is None) == (max(text, default="\0") < "\U000e0000")


@given(_TEXTS)
@example("%20%20%20")
@example("one two three")
@example("one two")
def test_at_least_three_is_counting_them_all(text: str) -> None:
    for regex in (decode._PERCENT, decode._LATIN_WORD):
        assert decode._at_least(regex, text, 3) == (len(regex.findall(text)) >= 3)


@given(_TEXTS)
@example("A" * 16)
@example("a+b/" * 4)
@example("x_y-" * 5)
def test_a_text_without_a_long_run_has_no_encoded_run(text: str) -> None:
    if decode._LONG_RUN.search(text) is None:
        assert decode._BASE64.search(text) is None
        assert decode._BASE64_URL.search(text) is None
