"""Removing ``<memory-context>`` spans from a model's streamed output (seed 000, §12.3).

Recalled memories reach the model inside a ``<memory-context>`` block. A model
may echo that block back; before its output is streamed to a user (over SSE,
say), every span from an open tag to its matching close tag is cut out, so raw
recall never shows in the UI.

``StreamingContextScrubber`` is a small state machine fed one chunk at a time.
Internally it steps one character at a time, so where a stream is cut into
chunks never changes what comes out: any chunking gives the same text as
feeding the whole stream at once.

Rules, in the order a reader will ask about them:

* Tags match case-insensitively, and only the exact forms ``<memory-context>``
  and ``</memory-context>`` (ASCII letters folded, nothing else). A lookalike
  such as ``<memory-contextual>`` or ``<memory-context >`` is ordinary text and
  is kept: ``render`` always writes the exact tags, and allowing free spacing
  would mean holding back an unbounded amount of text.
* Spans nest: an open tag inside a span deepens it, and only the close tag that
  brings the depth back to zero ends it.
* A span never closed swallows the rest of the stream; ``flush`` then returns "".
* A close tag outside any span is dropped as well; it is markup, never content.
* Outside a span, only a tail of text that could still become a tag is held
  back, so at most ``MAX_HELD`` (the longest tag's length minus one) characters.
* Tag matching runs over the text as it will be shown, so removing a span
  cannot glue two halves into a new tag: in ``<memory-`` + span + ``context>``
  the second half completes a tag and is treated as one. The output therefore
  never contains either tag.
"""

from __future__ import annotations

from ..fences import CLOSE_TAG, OPEN_TAG

#: The most characters the scrubber ever holds back outside a span.
MAX_HELD = max(len(OPEN_TAG), len(CLOSE_TAG)) - 1

# Lowercases ASCII only, so a fold never changes a string's length (``"İ".lower()``
# is two characters) and no non-ASCII character can pass for a tag letter.
_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_OPEN = OPEN_TAG.translate(_ASCII_FOLD)
_CLOSE = CLOSE_TAG.translate(_ASCII_FOLD)
_TAG_PREFIXES = frozenset(tag[:n] for tag in (_OPEN, _CLOSE) for n in range(1, len(tag)))


def _tag_at_end(window: str) -> str | None:
    """Which tag, if any, ``window`` ends with (case-insensitively)."""
    folded = window[-len(_CLOSE) :].translate(_ASCII_FOLD)
    if folded.endswith(_CLOSE):
        return _CLOSE
    if folded.endswith(_OPEN):
        return _OPEN
    return None


def _partial_tag_len(window: str) -> int:
    """Length of the longest suffix of ``window`` that is a proper prefix of a tag."""
    start = max(0, len(window) - MAX_HELD)
    i = window.find("<", start)
    while i != -1:
        if window[i:].translate(_ASCII_FOLD) in _TAG_PREFIXES:
            return len(window) - i
        i = window.find("<", i + 1)
    return 0


class StreamingContextScrubber:
    """Cuts ``<memory-context>`` spans out of text that arrives in chunks.

    >>> s = StreamingContextScrubber()
    >>> s.feed("Hi <memory-con") + s.feed("text>secret</memory-context> there") + s.flush()
    'Hi  there'

    One instance serves one stream at a time; ``flush`` ends a stream and leaves
    the scrubber ready for the next, ``reset`` drops a stream half-way.
    """

    __slots__ = ("_depth", "_inner", "_pending", "_shown")

    def __init__(self) -> None:
        self._depth = 0  # how many spans are open
        self._pending = ""  # outside a span: held text that may still start a tag
        self._shown = ""  # the last MAX_HELD characters already emitted
        self._inner = ""  # inside a span: recent characters, to spot the next tag

    @property
    def pending(self) -> str:
        """The text held back right now; never longer than ``MAX_HELD``."""
        return self._pending

    @property
    def inside_span(self) -> bool:
        """Whether the stream is currently inside a span that is being dropped."""
        return self._depth > 0

    def feed(self, chunk: str) -> str:
        """Take the next piece of the stream; return the text that is safe to show now."""
        out: list[str] = []
        for ch in chunk:
            if self._depth:
                self._step_inside(ch)
            else:
                emitted = self._step_outside(ch)
                if emitted:
                    out.append(emitted)
        return "".join(out)

    def flush(self) -> str:
        """End the stream: return the held-back text (none if a span is still open).

        A partial tag left at the end of the stream can no longer become a tag, so
        it is ordinary text. The scrubber is reset afterwards.
        """
        rest = "" if self._depth else self._pending
        self.reset()
        return rest

    def reset(self) -> None:
        """Forget the current stream, including anything held back."""
        self._depth = 0
        self._pending = ""
        self._shown = ""
        self._inner = ""

    # -- one character at a time ----------------------------------------------

    def _step_outside(self, ch: str) -> str:
        # Match against what the reader has seen plus what is held back, so a tag
        # formed across a removed span is still recognised.
        window = self._shown + self._pending + ch
        tag = _tag_at_end(window)
        if tag is not None:
            self._pending = ""
            if tag == _OPEN:
                self._depth = 1
                self._inner = ""
            return ""
        unsent = self._pending + ch
        keep = min(_partial_tag_len(window), len(unsent))
        emitted = unsent[: len(unsent) - keep]
        self._pending = unsent[len(unsent) - keep :]
        if emitted:
            self._shown = (self._shown + emitted)[-MAX_HELD:]
        return emitted

    def _step_inside(self, ch: str) -> None:
        window = self._inner + ch
        tag = _tag_at_end(window)
        if tag == _OPEN:
            self._depth += 1
            self._inner = ""
        elif tag == _CLOSE:
            self._depth -= 1
            self._inner = ""
        else:
            self._inner = window[-MAX_HELD:]


def scrub(text: str) -> str:
    """The whole of ``text`` with every span removed, as one stream."""
    scrubber = StreamingContextScrubber()
    return scrubber.feed(text) + scrubber.flush()


__all__ = ["MAX_HELD", "StreamingContextScrubber", "scrub"]
