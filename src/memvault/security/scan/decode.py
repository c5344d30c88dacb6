"""Text that is in the message but not readable as written: encoded runs and comments.

An instruction can be stored base64-encoded, URL-encoded or rot13'd and still be
followed by a model that decodes it, and text inside an HTML comment
(``<!-- ... -->``) or a markdown comment (``[//]: # (...)``) is invisible in a
rendered note yet read by the model. :func:`layers` yields each decoded layer so
the whole scan can run on it; :func:`comments` yields comment bodies.

Decoding is bounded (a few candidates, a size cap) so that a hostile text
cannot make the scan expensive.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Iterator
from itertools import islice
from urllib.parse import unquote_plus

_MAX_CANDIDATES = 8
_MAX_DECODED = 20_000

_BASE64 = re.compile(
    r"(?<![\w+/-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2,3}={0,2})?(?![\w+/=-])"
)
_BASE64_URL = re.compile(r"(?<![\w-])[A-Za-z0-9_-]{20,}={0,2}(?![\w=-])")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)", re.DOTALL)
_MD_COMMENT = re.compile(
    r"^[ \t]*\[(?://|#|comment|_|\s*)\]:\s*(?:#|<>|\S+)\s*(?:\((.*)\)|\"(.*)\"|'(.*)')[ \t]*$",
    re.MULTILINE,
)


def _readable(raw: bytes) -> str | None:
    """``raw`` as text if it looks like words (not a binary blob or a key)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or len(text) > _MAX_DECODED:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    if printable < 0.9 * len(text):
        return None
    if " " not in text and not re.search("[\u3040-\u9fff\uac00-\ud7af]", text):
        return None
    return text


# Both encodings need a run this long of their characters: a text without one has
# nothing to decode (most chat), and a search for it is cheaper than theirs.
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{16}")


def _at_least(regex: re.Pattern[str], text: str, count: int) -> bool:
    """Whether ``regex`` matches ``text`` ``count`` times or more (found one by one,
    up to ``count``, rather than all of them)."""
    return next(islice(regex.finditer(text), count - 1, None), None) is not None


def _base64_runs(text: str) -> Iterator[str]:
    if _LONG_RUN.search(text) is None:
        return
    seen = 0
    for regex, decoder in (
        (_BASE64, base64.b64decode),
        (_BASE64_URL, base64.urlsafe_b64decode),
    ):
        for match in regex.finditer(text):
            if seen >= _MAX_CANDIDATES:
                return
            run = match.group(0)
            if run.isalpha() and (run.islower() or run.isupper()):
                continue  # a long word, not an encoding
            seen += 1
            try:
                raw = decoder(run + "=" * (-len(run) % 4))
            except (binascii.Error, ValueError):
                continue
            decoded = _readable(raw)
            if decoded is not None:
                yield decoded


def layers(text: str) -> Iterator[tuple[str, str]]:
    """Each decodable hidden layer of ``text`` as ``(name, decoded text)``."""
    for decoded in _base64_runs(text):
        yield "base64", decoded
    if _at_least(_PERCENT, text, 3):
        decoded = unquote_plus(text)
        if decoded != text:
            yield "URL encoding", decoded
    if _at_least(_LATIN_WORD, text, 3):
        yield "rot13", codecs.encode(text, "rot13")


def comments(text: str) -> Iterator[str]:
    """The bodies of HTML and markdown comments in ``text``."""
    if "<!--" in text:
        for match in _HTML_COMMENT.finditer(text):
            yield match.group(1)
    if "]:" in text:
        for match in _MD_COMMENT.finditer(text):
            yield next(g for g in match.groups() if g is not None)
