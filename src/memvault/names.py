"""Entity names in one normal form, and the name candidates a text could hold.

An entity is written many ways: "Ｃｌｉｃｋ　House" (full width), "clickhouse",
"ClickHouse's"; the graph keys every surface form by :func:`name_key` so they meet.
The key is NFKC (full and half width become one), case-folded, with whitespace
collapsed, surrounding punctuation and a trailing possessive dropped.

:func:`candidate_keys` lists the keys a text could name (runs of up to a few
words; CJK substrings), so a query or a new entry is matched against the names a
user already has with one indexed lookup, whatever the text's case or width.
A bottom-layer module: the write path (extraction) and recall (the graph channel)
both use it, and neither may import the other.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Longest key kept, in characters (longer "names" are sentences, not names).
MAX_KEY_CHARS = 120

_SPACE = re.compile(r"\s+")
_POSSESSIVES = ("'s", "’s", "s'", "s’")
_EDGE = "\"'’‘“”()[]{}<>.,;:!?-–—/\\|*_#@~`"
# A word of a name: letters or digits, with inner . - & + ' (Node.js, Jean-Luc, C++, O'Brien).
_WORD = re.compile(r"[^\W_](?:[\w.&+'’-]*[\w+])?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
# Punctuation that ends a clause: a name never runs across it.
_CLAUSE = re.compile(r"[.!?;:,()\[\]{}\"“”\n\r\t。！？；：，、（）【】]+")


def name_key(name: str) -> str:
    """The one form of a name all its spellings share ("" when nothing is left)."""
    return _tidy(_SPACE.sub(" ", unicodedata.normalize("NFKC", name).casefold()))


def _tidy(text: str) -> str:
    """``name_key`` of NFKC, case-folded text whose whitespace is single spaces."""
    return _tidied(text)[:MAX_KEY_CHARS]


def _tidied(text: str) -> str:
    text = text.strip().strip(_EDGE).strip()
    if len(text) > 3:
        if text.endswith(_POSSESSIVES):
            text = text[:-2]
        text = text.rstrip(_EDGE).strip()
    return text


@lru_cache(maxsize=16384)
def _word_keys(word: str) -> tuple[str, str]:
    """The key of ``word`` (a ``_WORD``, case-folded) alone, and how it ends the key of
    a run of several words (words repeat, so both are remembered).

    Such a run starts with a letter or digit and ``_tidy`` changes only its end, which
    lies in its last word; the run is longer than three characters wherever a
    possessive could be dropped. So the key of "w1 … wn" is "w1 … wn-1 " and the
    second value, cut at the key's length: what ``_tidy`` leaves of ``word`` after
    any two letters."""
    return _tidy(word), _tidied("xx " + word)[3:]


def display_name(name: str) -> str:
    """A surface form tidied for showing: NFKC, whitespace collapsed, possessive dropped."""
    return _tidy(_SPACE.sub(" ", unicodedata.normalize("NFKC", name)))


def candidate_keys(
    text: str, *, max_words: int = 4, cjk_max: int = 6, limit: int = 4000
) -> list[str]:
    """The keys of every run of 1..``max_words`` words inside one clause of ``text``, and
    of every CJK substring of 2..``cjk_max`` characters; distinct, in text order, at most
    ``limit``. What a lookup of known names is asked about."""
    seen: dict[str, None] = {}
    normal = unicodedata.normalize("NFKC", text)
    for clause in _CLAUSE.split(normal):
        # name_key of each run, with the text normalised once rather than per run (a
        # long answer has thousands of runs): words hold no whitespace, and NFKC text
        # joined by spaces is still NFKC.
        words = [w.casefold() for w in _WORD.findall(clause)]
        keys = [_word_keys(w) for w in words]
        count = len(words)
        for i in range(count):
            run = words[i]
            if keys[i][0]:
                seen.setdefault(keys[i][0], None)
            for j in range(i + 1, min(count, i + max_words)):
                seen.setdefault(f"{run} {keys[j][1]}"[:MAX_KEY_CHARS], None)
                run = f"{run} {words[j]}"
        for run in _CJK_RUN.findall(clause):
            for i in range(len(run)):
                for n in range(2, cjk_max + 1):
                    if i + n > len(run):
                        break
                    seen.setdefault(run[i : i + n].casefold(), None)
        if len(seen) >= limit:
            break
    return list(seen)[:limit]


# Everyday words a name key may equal ("go", "may", "will"): a text names such an
# entity only when it writes the word capitalised.
_EVERYDAY = frozenset(
    """
    a an and are as at be but by can do for from go had has have he her his i if in is it
    its may me my no not of on or our she so that the their them they this to up us was we
    were what when where which who will with you your
    """.split()
)


def named_here(key: str, text: str) -> bool:
    """Whether ``text`` may be naming the entity ``key`` (one of its candidate keys): a
    short or everyday key counts only where the text writes it with a capital letter
    (or in CJK), so "where did she go" does not name the language Go."""
    if _CJK_RUN.search(key):
        return True
    if len(key) >= 4 and key not in _EVERYDAY:
        return True
    pattern = r"(?<!\w)" + re.escape(key) + r"(?!\w)"
    normal = unicodedata.normalize("NFKC", text)
    return any(
        m.group(0) != m.group(0).lower() for m in re.finditer(pattern, normal, flags=re.IGNORECASE)
    )


def written_as_name(key: str, text: str) -> bool:
    """Whether ``text`` writes ``key`` the way names are written: with a capital
    letter, in CJK, or as several words."""
    if _CJK_RUN.search(key) or " " in key:
        return True
    pattern = r"(?<!\w)" + re.escape(key) + r"(?!\w)"
    normal = unicodedata.normalize("NFKC", text)
    return any(
        m.group(0) != m.group(0).lower() for m in re.finditer(pattern, normal, flags=re.IGNORECASE)
    )


__all__ = [
    "MAX_KEY_CHARS",
    "candidate_keys",
    "display_name",
    "name_key",
    "named_here",
    "written_as_name",
]
