"""``StreamingContextScrubber``: what it removes, and that chunking never matters."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.security.scrubber import MAX_HELD, StreamingContextScrubber, scrub

OPEN = "<memory-context>"
CLOSE = "</memory-context>"

# (input, expected output when fed whole): one case per rule in the module docstring.
CASES: dict[str, tuple[str, str]] = {
    "plain": ("hello world, nothing to hide", "hello world, nothing to hide"),
    "one span": (f"before {OPEN}secret{CLOSE} after", "before  after"),
    "two spans": (f"a{OPEN}x{CLOSE}b{OPEN}y{CLOSE}c", "abc"),
    "nested": (f"a{OPEN}x{OPEN}y{CLOSE}still hidden{CLOSE}b", "ab"),
    "unclosed": (f"kept {OPEN}dropped forever <b>", "kept "),
    "unclosed nested": (f"k{OPEN}{OPEN}x{CLOSE}still inside", "k"),
    "mixed case": ("x<Memory-CONTEXT>s</MEMORY-context>y", "xy"),
    "less-than": ("a < b and c<d, <b>bold</b> <", "a < b and c<d, <b>bold</b> <"),
    "lookalike kept": ("<memory-contextual> and <memory-context >", None),
    "stray close": (f"one{CLOSE}two", "onetwo"),
    "partial tag at end": ("ends with <memory-cont", "ends with <memory-cont"),
    "halves glued by a span": (f"<memory-{OPEN}x{CLOSE}context>gone", "<memory-"),
    "two-level glue": (f"<memory-{OPEN}a{CLOSE}context>b{CLOSE}context>", "<memory-"),
    "tag after almost-tag": (f"<memory-contex{OPEN}s{CLOSE}!", "<memory-contex!"),
}


def _expected(name: str) -> str:
    text, expected = CASES[name]
    return text if expected is None else expected


def _stream(chunks: list[str]) -> str:
    scrubber = StreamingContextScrubber()
    return "".join(scrubber.feed(chunk) for chunk in chunks) + scrubber.flush()


def _has_tag(text: str) -> bool:
    folded = text.lower()
    return OPEN in folded or CLOSE in folded


@pytest.mark.parametrize("name", CASES)
def test_whole_text(name: str) -> None:
    assert scrub(CASES[name][0]) == _expected(name)


@pytest.mark.parametrize("name", CASES)
def test_every_split_into_two_and_three_chunks_matches_whole(name: str) -> None:
    text = CASES[name][0]
    whole = scrub(text)
    n = len(text)
    for i in range(n + 1):
        assert _stream([text[:i], text[i:]]) == whole, (name, i)
        for j in range(i, n + 1):
            assert _stream([text[:i], text[i:j], text[j:]]) == whole, (name, i, j)


def test_one_character_at_a_time() -> None:
    for name, (text, _) in CASES.items():
        assert _stream(list(text)) == _expected(name), name


def test_lookalike_tag_names_are_kept_verbatim() -> None:
    # Decision: only the exact tags (any ASCII case) count; a longer name or extra
    # spacing is ordinary text, because the renderer never writes those forms.
    text = "<memory-contextual>x</memory-contextual> <memory-context >y< /memory-context>"
    assert scrub(text) == text


# -- holding back ---------------------------------------------------------------


def test_max_held_is_longest_tag_minus_one() -> None:
    assert max(len(OPEN), len(CLOSE)) - 1 == MAX_HELD == 16


def test_holds_back_only_a_possible_tag_start() -> None:
    s = StreamingContextScrubber()
    assert s.feed("plain text") == "plain text"
    assert s.pending == ""
    assert s.feed(" a < b") == " a < b"
    assert s.pending == ""
    assert s.feed(" x <Memory-Con") == " x "
    assert s.pending == "<Memory-Con"
    assert s.feed("sole") == "<Memory-Console"
    assert s.pending == ""
    assert s.feed("</memory-context") == ""
    assert s.pending == "</memory-context"
    assert len(s.pending) == MAX_HELD


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>/-memoryctxMC a", max_size=120))
def test_held_back_text_is_bounded_and_could_still_be_a_tag(text: str) -> None:
    s = StreamingContextScrubber()
    for ch in text:
        s.feed(ch)
        held = s.pending.lower()
        assert len(held) <= MAX_HELD
        assert held == "" or OPEN.startswith(held) or CLOSE.startswith(held)
        if s.inside_span:
            assert held == ""


def test_nothing_is_held_inside_a_span() -> None:
    s = StreamingContextScrubber()
    assert s.feed(f"a{OPEN}lots of hidden text <memory-con") == "a"
    assert s.pending == ""
    assert s.inside_span


# -- end of stream, reuse ---------------------------------------------------------


def test_flush_of_unclosed_span_is_empty() -> None:
    s = StreamingContextScrubber()
    assert s.feed(f"visible{OPEN}hidden <memory-") == "visible"
    assert s.flush() == ""


def test_flush_ends_the_stream_and_the_next_one_starts_clean() -> None:
    s = StreamingContextScrubber()
    s.feed(f"{OPEN}never closed")
    assert s.flush() == ""
    assert s.feed("second stream <mem") == "second stream "
    assert s.flush() == "<mem"
    assert s.feed("third") == "third"


def test_reset_drops_held_text_and_open_spans() -> None:
    s = StreamingContextScrubber()
    s.feed(f"{OPEN}{OPEN}deep")
    s.reset()
    assert not s.inside_span
    assert s.feed("fresh <memory") == "fresh "
    s.reset()
    assert s.pending == ""
    assert s.flush() == ""


# -- properties -------------------------------------------------------------------

_PIECES = st.one_of(
    st.sampled_from(
        [OPEN, CLOSE, "<", "memory", "-context>", "<memory-", "</memory-", "<Memory-Context>"]
    ),
    st.text(alphabet="abcXYZ<>/- -", min_size=1, max_size=5),
)


def _chunkings(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def _text_and_chunks(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = "".join(draw(st.lists(_PIECES, max_size=25)))
    return text, _chunkings(draw, text)


@settings(max_examples=500, deadline=None)
@given(_text_and_chunks())
def test_streamed_output_equals_whole_and_never_shows_a_tag(case: tuple[str, list[str]]) -> None:
    text, chunks = case
    assert "".join(chunks) == text
    whole = scrub(text)
    assert _stream(chunks) == whole
    assert not _has_tag(whole)


def _reference(tokens: list[str]) -> str:
    """Depth counting over whole tokens: right when no tag can be formed by gluing."""
    depth, out = 0, []
    for token in tokens:
        if token == OPEN:
            depth += 1
        elif token == CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(token)
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([OPEN, CLOSE]), st.text(alphabet="ab <>/", min_size=1)),
        max_size=20,
    ),
    st.data(),
)
def test_matches_simple_depth_counting_when_no_tag_is_glued(
    tokens: list[str], data: st.DataObject
) -> None:
    text = "".join(tokens)
    chunks = data.draw(_chunk_strategy(text))
    assert _stream(chunks) == _reference(tokens)


def _chunk_strategy(text: str) -> st.SearchStrategy[list[str]]:
    @st.composite
    def build(draw: st.DrawFn) -> list[str]:
        return _chunkings(draw, text)

    return build()
