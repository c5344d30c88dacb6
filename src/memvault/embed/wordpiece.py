"""BERT's uncased WordPiece tokenizer in plain Python, read from the model's tokenizer.json.

all-MiniLM-L6-v2 tokenizes as BERT does: clean the text, put spaces around CJK
ideographs, strip accents, lower-case, split on whitespace and punctuation, then cut
each word into the longest pieces of the vocabulary (``##`` marks a piece inside a
word). This is the ``tokenizers`` library's ``BertNormalizer`` + ``BertPreTokenizer`` +
``WordPiece`` pipeline; done here it saves the install of ``tokenizers`` and the
Hugging Face hub client it pulls in (about 25 MB), and loads in a few milliseconds.
``tests/test_local_model.py`` checks the ids against ones the library produced.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

Ids = npt.NDArray[np.int64]

# The CJK ideograph blocks BERT isolates (its _is_chinese_char).
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_MAX_WORD_CHARS = 100


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK)


def _is_whitespace(ch: str) -> bool:
    # Unicode White_Space (as Rust's char::is_whitespace); Python's isspace adds \x1c-\x1f.
    return ch.isspace() and ch not in "\x1c\x1d\x1e\x1f"


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


# ASCII text (most of it, in English) takes a short path with the same result.
_ASCII_SPACE = re.compile(r"[\t\n\r]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")


def _ascii_words(text: str) -> list[str]:
    text = _ASCII_CONTROL.sub("", _ASCII_SPACE.sub(" ", text)).lower()
    return _ASCII_WORDS.findall(text)


def _normalise(text: str) -> str:
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        # Control and format characters go first (\x0b and \x85 too, though White_Space),
        # then whitespace becomes a space: the order of BERT's clean-up.
        if ch in "\t\n\r":
            out.append(" ")
        elif unicodedata.category(ch).startswith("C"):
            continue
        elif _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").lower()


def _words(text: str) -> list[str]:
    words: list[str] = []
    for chunk in text.split():
        start = 0
        for i, ch in enumerate(chunk):
            if _is_punctuation(ch):
                if i > start:
                    words.append(chunk[start:i])
                words.append(ch)
                start = i + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


class WordPiece:
    """Text to the model's token ids: ``[CLS] pieces [SEP]``, at most ``max_tokens``."""

    def __init__(self, vocab: dict[str, int], *, max_tokens: int) -> None:
        self.vocab = vocab
        self.max_tokens = max_tokens
        self.cls, self.sep = vocab["[CLS]"], vocab["[SEP]"]
        self.unk, self.pad = vocab["[UNK]"], vocab["[PAD]"]
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def from_file(cls, path: Path, *, max_tokens: int) -> WordPiece:
        """The vocabulary of a ``tokenizer.json`` (its WordPiece model)."""
        data = json.loads(path.read_text(encoding="utf-8"))
        model = data["model"]
        if model.get("type") != "WordPiece":
            raise ValueError(f"{path} holds a {model.get('type')} model, not WordPiece")
        return cls({str(k): int(v) for k, v in model["vocab"].items()}, max_tokens=max_tokens)

    def _pieces(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is None:
            cached = self._split(word)
            if len(self._cache) < 100_000:
                self._cache[word] = cached
        return cached

    def _split(self, word: str) -> list[int]:
        """Greedy longest-match pieces; a word with any unknown part is ``[UNK]``."""
        if len(word) > _MAX_WORD_CHARS:
            return [self.unk]
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                found = self.vocab.get(word[start:end] if start == 0 else "##" + word[start:end])
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unk]
            pieces.append(found)
            start = end
        return pieces

    def encode(self, text: str) -> list[int]:
        ids = [self.cls]
        room = self.max_tokens - 1
        words = _ascii_words(text) if text.isascii() else _words(_normalise(text))
        for word in words:
            ids.extend(self._pieces(word))
            if len(ids) >= room:
                del ids[room:]
                break
        ids.append(self.sep)
        return ids

    def encode_batch(self, texts: Sequence[str]) -> tuple[Ids, Ids]:
        """Token ids and attention mask, padded to the longest text of the batch."""
        encoded = [self.encode(t) for t in texts]
        width = max(len(e) for e in encoded)
        ids = np.full((len(encoded), width), self.pad, dtype=np.int64)
        mask = np.zeros((len(encoded), width), dtype=np.int64)
        for row, e in enumerate(encoded):
            ids[row, : len(e)] = e
            mask[row, : len(e)] = 1
        return ids, mask


__all__ = ["WordPiece"]
