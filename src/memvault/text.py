"""Turning text into search tokens, the same way for documents and queries.

Latin-script text is lower-cased, split into words, stop words dropped and the
rest Snowball-stemmed ("services" -> "servic"). A run of Han, kana or hangul
characters yields two kinds of tokens, one after the other: the words jieba finds in
it (search mode, which emits both words and their parts, so "数据仓库" in a query
meets "公司的数据仓库" in a document), then the run's overlapping character bigrams
("销售看板" -> 销售 售看 看板; a lone character is its own unigram), as Lucene's
CJK bigram filter does. Bigrams do not depend on where jieba cuts, so a query meets
every document that holds it as a substring even when jieba segments the two
differently ("看板" in "销售看板", which jieba cuts as 看 / 板). Every backend indexes
the resulting space-joined tokens, so ranking behaves the same on all of them.

A run's bigrams sit next to each other in the token stream, so "the query's run is
in the document, contiguous" is an ordinary phrase of bigram tokens
(``query_phrases``), which the keyword index can score as one more term.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# Han, CJK extension A, compatibility ideographs, kana and hangul.
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W_]+")

ENGLISH_STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each few for from further had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just ll me
    more most mustn my myself no nor not now of off on once only or other ought our ours
    ourselves out over own re same shan she should shouldn so some such t than that the
    their theirs them themselves then there these they this those through to too under until
    up ve very was wasn we were weren what when where which while who whom why will with won
    would wouldn you your yours yourself yourselves s d m o y also did does yes
    """.split()
)

CHINESE_STOPWORDS = frozenset(
    (
        "的 了 是 在 和 与 及 或 也 就 都 而 着 吗 "
        "呢 吧 啊 呀 哦 嗯 之 其 这 那 这个 那个 一个 什么 "
        "怎么 哪 哪个 哪些 为什么 如何 我 你 他 她 它 我们 你们 他们 "
        "她们 有 没有 被 把 给 让 对 从 向 吗 么 还 又 "
        "很 最 更 所以 因为 但是 而且 如果 ， 。 "
    ).split()
)

STOPWORDS = ENGLISH_STOPWORDS | CHINESE_STOPWORDS

# Words that shape a question but say nothing about what is asked for; dropped
# from queries only ("What kind of music might she like?" -> music, like).
QUESTION_WORDS = frozenset(
    """
    what when where who whom whose which why how did does do kind type sort likely would
    could might many much ever yet
    """.split()
)

_jieba_lock = threading.Lock()
_jieba: Any = None
_word_table: Callable[[], Path] | None = None


def use_word_table(directory: Callable[[], Path] | None) -> None:
    """Cut Chinese with jieba's dictionary read from a table on disk, a word at a time,
    rather than loaded whole (see ``memvault.jieba_table``): the same words, without most
    of a second of loading, for a process that cuts a few sentences. A process that cuts
    many (a server, an import) keeps the dictionary in memory, where a lookup is cheaper.

    ``directory`` says where the table is kept (called when Chinese first appears);
    None goes back to the whole dictionary. Decides only before the first Chinese text
    is cut; if the table cannot be built or read, the dictionary is loaded as usual."""
    global _word_table
    _word_table = directory


def _segmenter() -> Any:
    """jieba loads its dictionary (about a second) on first use, so only when CJK text appears."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                if (
                    _word_table is None
                    or jieba.dt.initialized  # loaded whole already, by a caller of jieba's own
                    or not _install_word_table(jieba, _word_table)
                ):
                    jieba.initialize()
                _jieba = jieba
    return _jieba


def _install_word_table(jieba: Any, directory: Callable[[], Path]) -> bool:
    """Whether jieba's default tokenizer now reads its dictionary from the table."""
    from . import jieba_table

    try:
        jieba_table.install(jieba.dt, directory())
    except Exception as exc:  # any failure: the whole dictionary gives the same words
        logging.getLogger(__name__).info(
            "jieba's word table is not usable (%s); loading the whole dictionary", exc
        )
        return False
    return True


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word.isascii() and word.isalpha():
        return str(_stemmer().stemWord(word))
    return word


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def _latin_tokens(chunk: str, skip: frozenset[str]) -> list[str]:
    return [
        _stem(word)
        for word in _WORD.findall(chunk.lower())
        if word not in ENGLISH_STOPWORDS and word not in skip
    ]


@lru_cache(maxsize=8192)
def _cjk_words(run: str) -> tuple[str, ...]:
    """The words jieba finds in a CJK run (search mode), stop words left out.

    Cached: jieba is the slow part of indexing, and a run recurs (a query and its
    phrases, an entry's texts read twice by migration 11)."""
    words = []
    for piece in _segmenter().cut_for_search(run):
        piece = piece.strip()
        if piece and piece not in CHINESE_STOPWORDS and _WORD.fullmatch(piece):
            words.append(piece)
    return tuple(words)


def cjk_bigrams(run: str) -> list[str]:
    """The overlapping character bigrams of a CJK run, in order.

    The run is cut at any character that is not part of a word (a katakana middle
    dot, say), so every bigram is one token for every full-text index; a piece of
    one character is its own unigram. Bigrams that are stop words ("我们", "什么")
    are left out, the same way in documents and queries, so a run's remaining
    bigrams still follow each other wherever the run occurs.
    """
    grams: list[str] = []
    for piece in _WORD.findall(run):
        if len(piece) == 1:
            grams.append(piece)
        else:
            grams.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    return [g for g in grams if g not in CHINESE_STOPWORDS]


def _cjk_tokens(run: str, bigrams: bool) -> list[str]:
    """jieba's words, then the bigrams (a lone character only once: jieba's word is it)."""
    words = list(_cjk_words(run))
    if not bigrams:
        return words
    return words + [g for g in cjk_bigrams(run) if len(g) > 1 or g not in words]


def tokenize(text: str, *, skip: frozenset[str] = frozenset(), bigrams: bool = True) -> list[str]:
    """Search tokens of ``text`` in order (duplicates kept: they count for BM25).

    ``skip`` holds further lower-case words to leave out, before stemming.
    ``bigrams=False`` leaves the CJK bigrams out: the tokens of schema version 10
    and before, which the SQLite store's migration 11 recognises to upgrade them.
    """
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text)
    tokens: list[str] = []
    pos = 0
    for match in _CJK_RUN.finditer(text):
        tokens.extend(_latin_tokens(text[pos : match.start()], skip))
        tokens.extend(_cjk_tokens(match.group(), bigrams))
        pos = match.end()
    tokens.extend(_latin_tokens(text[pos:], skip))
    return tokens


def cjk_runs(text: str) -> list[str]:
    """The runs of Han, kana and hangul characters in ``text`` (NFKC-normalised first)."""
    return _CJK_RUN.findall(unicodedata.normalize("NFKC", text)) if text else []


def index_text(*parts: str) -> str:
    """The space-joined tokens a backend stores in its full-text column."""
    return " ".join(tok for part in parts if part for tok in tokenize(part))


def query_terms(
    text: str, max_terms: int = 64, *, skip: frozenset[str] = QUESTION_WORDS
) -> list[str]:
    """Distinct tokens of a query, first occurrence first, at most ``max_terms``.

    Question words are dropped by default: they say how something is asked,
    not what is asked for.
    """
    seen: dict[str, None] = {}
    for tok in tokenize(text, skip=skip):
        if tok not in seen:
            seen[tok] = None
            if len(seen) >= max_terms:
                break
    return list(seen)


# Bigrams in one phrase at most: a longer run is searched as several phrases.
MAX_PHRASE_BIGRAMS = 32


def query_phrases(text: str, max_phrases: int = 8) -> list[str]:
    """The CJK runs of a query as phrases of their bigrams ("销售看板" -> "销售 售看 看板").

    A document holds the phrase (its tokens next to each other in one column) when it
    holds the run as a contiguous substring, and practically only then, so a keyword
    index that scores the phrase as one more term ranks exact substrings above entries
    that only have the run's bigrams scattered. Runs of one bigram are plain terms
    already and give no phrase; a run of more than ``MAX_PHRASE_BIGRAMS`` bigrams gives
    one phrase per stretch of that many. Distinct, first occurrence first, at most
    ``max_phrases``.
    """
    phrases: dict[str, None] = {}
    for run in cjk_runs(text):
        for piece in _WORD.findall(run):
            grams = cjk_bigrams(piece)
            for start in range(0, len(grams), MAX_PHRASE_BIGRAMS):
                stretch = grams[start : start + MAX_PHRASE_BIGRAMS]
                if len(stretch) >= 2:
                    phrases.setdefault(" ".join(stretch))
                    if len(phrases) >= max_phrases:
                        return list(phrases)
    return list(phrases)


__all__ = [
    "QUESTION_WORDS",
    "STOPWORDS",
    "cjk_bigrams",
    "cjk_runs",
    "has_cjk",
    "index_text",
    "query_phrases",
    "query_terms",
    "tokenize",
    "use_word_table",
]
