"""The default local embedder: English by all-MiniLM-L6-v2, everything else by multilingual-e5.

Why two models: measured on memvault's development sets, multilingual-e5-small finds
Chinese paraphrases that MiniLM cannot (it reads Chinese; MiniLM mostly matches shared
characters), while MiniLM is the better and several times cheaper model for English,
especially for long assistant answers and for cues that share no word with what they
recall. So each stored text is embedded by the model of its language (:func:`route`):
English (and any text in Latin script that reads as English) by MiniLM, Chinese,
Japanese, Korean, other scripts and Latin-script text in another language by e5.
Latin-script languages are told apart by their function words where the module knows
them, and otherwise by MiniLM's own vocabulary: most words of an English text are whole
words of it, most words of Swahili, Indonesian, Tagalog or Polish are not
(:func:`route`). A query is routed by its script and function words only
(:func:`query_route`), so it keeps the MiniLM half that meets vectors stored before the
vocabulary rule.

One vector space: a stored vector is ``[minilm | 0 | 1 | 0] / sqrt(2)`` or
``[0 | e5 | 0 | 1] / sqrt(2)`` (unit length, 770 numbers). A query is embedded by
both models into ``sqrt(2) * [minilm | scale * e5 | 0 | offset]``, so its dot product
with a stored vector is MiniLM's cosine for an English entry and
``scale * cosine + offset`` of e5 for the others: e5's cosines (unrelated texts near
0.8) mapped onto MiniLM's scale (unrelated near 0.1) by the :data:`CALIBRATION`
measured on ``bench/paraphrase.py``'s sets. One index, one channel, one ranking; the
thresholds downstream (``retrieval.min_similarity``, the context gate) read one scale.
An English query finds a Chinese memory through e5 (it is cross-lingual), weakly; a
query MiniLM cannot read gets no MiniLM half (its MiniLM vector is noise that matched
English memories above the Chinese one holding the query's words), so it meets English
memories by keyword only.

A query vector is not unit length, on purpose: a store that normalises it (pgvector's
cosine distance) gives the same order, and the vector index scales such a store's
scores back by the query's length.

Cost: a stored text costs one model call of its own language only; a query costs both
(short texts: a few milliseconds for MiniLM, about 20 ms of CPU for e5), unless it is
English and the vectors it will meet hold no e5 one (:meth:`BilingualEmbedder.routes_of`):
e5's half of the query then changes no score, so an English-only user's searches skip
e5. e5 reads at most
:data:`E5_MAX_CHARS` characters of a stored text (about its 512-token window for
Chinese): its cost grows with the text, and the start of a long message says what it
is about.
"""

from __future__ import annotations

import json
import math
import re
import threading
import unicodedata
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from ..lru import LRUCache
from .base import Embedder, ModelIdentity, Vectors
from .guard import ExitGuarded, guarded
from .local import IDENTITY as MINILM
from .local import TOKENIZER, LocalEmbedder
from .multilingual import IDENTITY as E5
from .multilingual import MultilingualEmbedder

MODEL_NAME = "bilingual-minilm-e5"

#: e5 cosine -> MiniLM scale: ``scale * cos + offset``. Fitted so that e5's mean cosine
#: of a Chinese question to its answer and to the other memories of the same vault
#: land where MiniLM's land for the English set (``bench/paraphrase.py`` data; see
#: ``bench/calibrate_bilingual.py``): 0.885 -> 0.40 and 0.84 -> 0.11.
CALIBRATION = (6.3, -5.18)
E5_MAX_CHARS = 600

_HALF = MINILM.dim  # 384: MiniLM's numbers, then e5's, then the two route flags
DIM = MINILM.dim + E5.dim + 2
#: The routes (:func:`route`), by the model that embeds them.
ROUTES = frozenset({"minilm", "e5"})
_ROOT2 = math.sqrt(2.0)

IDENTITY = ModelIdentity(
    MODEL_NAME,
    f"{MINILM.variant}+{E5.variant}+cal{CALIBRATION[0]:g}:{CALIBRATION[1]:g}",
    DIM,
    "route-l2",
)

# Function words that mark a Latin-script text as written in a language other than
# English (MiniLM reads English only). A text goes to e5 when such words outnumber the
# English ones and there are at least two of them.
_ENGLISH = frozenset(
    "the and is are was were to of in that it you my for with on have has be this not "
    "what do did me we they he she his her at from but or an will would can".split()
)
_OTHER = frozenset(
    # de
    "und der die das ist nicht ich ein eine zu mit auf für sie wir es den dem sich auch "
    # fr
    "le la les et est une des du je pas que qui pour dans avec ce il nous vous sur mais "
    # es / pt / it
    "el los las y es una por para con del mi yo pero muy su se lo como más "
    "os um não com da eu meu você isso "
    "il gli è che non di sono della per questo anche "
    # nl / sv / da / no
    "het een en niet ik van dat voor zijn maar och att jag det är inte som og ikke jeg "
    # tr / id / vi / pl
    "ve bir bu için değil yang dan tidak saya ini itu dengan và của không là tôi có "
    "nie jest się że jak".split()
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# The speaker the write path puts before a turn ("Ann: text", ``embedding.metadata_prefix``).
_SPEAKER = re.compile(r"([^\s:：]{1,24}(?: [^\s:：]{1,24}){0,2}): (.*)", re.DOTALL)


def without_speaker(text: str) -> str:
    """``text`` without a leading "speaker: " (up to three short words before ": ").

    The speaker's name helps MiniLM on English conversations where questions name
    people; for e5 on Chinese chats it hurt (recall@10 0.882 without, 0.850 with, on
    ``bench/data/zh.json``), and its Latin letters must not decide the route of a short
    Chinese reply ("assistant: 好的")."""
    m = _SPEAKER.fullmatch(text)
    return m.group(2) if m else text


@lru_cache(maxsize=4096)
def _script(ch: str) -> str:
    """'latin', 'other' (a letter of another script) or '' (not a letter)."""
    if not ch.isalpha():
        return ""
    if ch.isascii():
        return "latin"
    name = unicodedata.name(ch, "")
    return "latin" if name.startswith("LATIN") else "other"


def query_route(text: str) -> str:
    """``"e5"`` for text MiniLM cannot read (another script for at least a sixth of its
    letters, or Latin-script text whose function words are another language's), else
    ``"minilm"``; a leading speaker's name does not count (:func:`without_speaker`)."""
    return _route(without_speaker(text))[0]


def route(text: str) -> str:
    """The model that embeds a stored text: :func:`query_route`'s answer, and ``"e5"``
    also for Latin-script text of at least four words, fewer than :data:`WHOLE_WORDS` of
    them whole words of MiniLM's vocabulary and at most one an English function word
    (a language MiniLM was not trained on).

    Why a vocabulary: function-word lists cover a few languages; MiniLM's WordPiece
    vocabulary is English, so it tells any other Latin-script language from English.
    Measured on the screen's training texts (their language is labelled): of 143 texts in
    other languages that the function words left with MiniLM, 136 move to e5; of 964
    English ones, none; of LoCoMo's 5,882 turns none; of 18,920 LongMemEval turns 16
    (lists of made-up names, shell commands, typo-ridden one-liners). On 40 texts written
    apart from those (most of them in ``tests/embed/test_bilingual.py``): 24 of 25 in 15
    other languages move (a short Hausa one stays), and 2 of 15 English ones (a
    ``pip install`` line, a list of dish names)."""
    way, words = _route(without_speaker(text))
    if way == "e5" or len(words) < 4:
        return way
    if sum(w in _ENGLISH for w in words) > 1:
        return way
    # Imported here: the keyword index's package is not needed to embed a query, and a
    # CLI process loads a model beside its imports (embed.warm).
    from ..stores.bm25 import index_form

    vocabulary = _vocabulary()
    # Without accents, as the uncased tokenizer reads them (and the keyword index).
    whole = sum(index_form(w) in vocabulary for w in words)
    return "e5" if whole < WHOLE_WORDS * len(words) else "minilm"


#: Below this share of whole vocabulary words, a Latin-script text is not English.
WHOLE_WORDS = 0.6


def _route(text: str) -> tuple[str, list[str]]:
    """The route by script and function words and, for a text left with MiniLM, its
    lowercased words of two letters or more (none otherwise)."""
    latin = other = accented = 0
    for ch in text:
        kind = _script(ch)
        if kind == "latin":
            latin += 1
            accented += not ch.isascii()
        elif kind == "other":
            other += 1
    letters = latin + other
    if letters == 0:
        return "minilm", []
    # A CJK character carries a word's worth of meaning: a sixth of the letters is a lot.
    if other * 6 >= letters:
        return "e5", []
    if accented * 25 >= latin and accented >= 3:  # é, ü, ñ, ş, ă, ơ … in every other word
        return "e5", []
    words = [w.lower() for w in _WORD.findall(text)]
    english = sum(w in _ENGLISH for w in words)
    foreign = sum(w in _OTHER for w in words)
    if foreign >= 2 and foreign > english:
        return "e5", []
    return "minilm", [w for w in words if len(w) >= 2]


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    """MiniLM's whole words (its tokenizer file ships in the package): read once."""
    with TOKENIZER.open(encoding="utf-8") as fh:
        vocab = json.load(fh)["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha())


class BilingualEmbedder:
    """MiniLM for English, multilingual-e5 for the rest, in one calibrated space."""

    identity = IDENTITY
    quick_start = True

    def __init__(self, *, threads: int | None = None, query_cache: int = 1024) -> None:
        self.minilm = LocalEmbedder(threads=threads)
        self.e5 = MultilingualEmbedder(threads=threads, query_cache=1)
        # An agent asks the same question again more often than one would think: a
        # repeated query costs neither model.
        # Keyed by the text and whether e5's half was computed (:meth:`embed_queries`).
        self._queries: LRUCache[tuple[str, bool], Vectors] = LRUCache(query_cache)
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    @property
    def name(self) -> str:
        return IDENTITY.key

    @property
    def dim(self) -> int:
        return DIM

    def load(self) -> None:
        """Load both models now (each loads on first use otherwise)."""
        self.minilm.load()
        self.e5.load()

    def routes(self, texts: Sequence[str]) -> list[str]:
        """Which model embeds each stored text (:func:`route`)."""
        return [route(t) for t in texts]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of stored text, each by the model of its language."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        ways = self.routes(texts)
        english = [i for i, way in enumerate(ways) if way == "minilm"]
        others = [i for i, way in enumerate(ways) if way == "e5"]
        if english:
            out[english, :_HALF] = self.minilm.embed([texts[i] for i in english])
            out[english, DIM - 2] = 1.0
        if others:
            cut = [without_speaker(texts[i])[:E5_MAX_CHARS] for i in others]
            out[others, _HALF : DIM - 2] = self.e5.embed(cut)
            out[others, DIM - 1] = 1.0
        out /= _ROOT2
        return out

    def routes_of(self, vectors: Vectors) -> frozenset[str]:
        """The routes of stored vectors, read from their flags (all of them for vectors
        of another shape: never fewer than were used)."""
        if vectors.ndim == 2 and vectors.shape[0] == 0:
            return frozenset()
        if vectors.ndim != 2 or vectors.shape[1] != DIM:
            return ROUTES
        held = set()
        if np.any(vectors[:, DIM - 2] != 0):
            held.add("minilm")
        if np.any(vectors[:, DIM - 1] != 0):
            held.add("e5")
        return frozenset(held)

    def embed_queries(self, texts: Sequence[str], among: frozenset[str] | None = None) -> Vectors:
        """Query vectors (not unit length: see the module docstring); repeated queries
        come from a cache. ``among``: the routes of the stored vectors the queries will
        meet. Without ``"e5"`` there, an English query's e5 half is left out (zero): it
        changes none of their scores. A query always has the half of its own language,
        which the relevance gate compares with its bank of everyday requests."""
        with_e5 = among is None or "e5" in among
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        todo: list[int] = []
        for i, text in enumerate(texts):
            cached = self._queries.get((text, True))
            if cached is None and not with_e5:
                cached = self._queries.get((text, False))
            if cached is None:
                todo.append(i)
            else:
                out[i] = cached
        if todo:
            fresh, full = self._embed_queries([texts[i] for i in todo], with_e5)
            for i, vector in zip(todo, fresh, strict=True):
                out[i] = vector
                self._queries.setdefault((texts[i], full), vector)
        return out

    def _beside(self) -> ThreadPoolExecutor:
        """The one thread that runs e5 beside MiniLM for a query, made on first use."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="memvault-e5-query")
            return self._pool

    def _embed_queries(self, texts: Sequence[str], with_e5: bool) -> tuple[Vectors, bool]:
        """The query vectors, and whether they have e5's half (every text that is not
        English needs it, whatever ``with_e5`` says)."""
        scale, offset = CALIBRATION
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        # A query MiniLM cannot read gets no MiniLM half (see the module docstring).
        english = [i for i, text in enumerate(texts) if query_route(text) == "minilm"]
        with_e5 = with_e5 or len(english) < len(texts)
        if english and with_e5:
            # The two models run side by side (both release the GIL while they compute):
            # a cold process loads them at once, a warm one waits for the slower only.
            e5 = self._beside().submit(self.e5.embed_queries, list(texts))
            out[english, :_HALF] = self.minilm.embed([texts[i] for i in english])
            out[:, _HALF : DIM - 2] = scale * e5.result()
        elif english:
            out[english, :_HALF] = self.minilm.embed([texts[i] for i in english])
        else:
            out[:, _HALF : DIM - 2] = scale * self.e5.embed_queries(texts)
        out[:, DIM - 1] = offset
        out *= _ROOT2
        return out, with_e5


def comparable(embedder: Embedder | None) -> Embedder | None:
    """The embedder to compare two stored texts with (the semantic screen does): the
    bilingual model's stored vectors of an English and a Chinese text are orthogonal
    by construction, so such checks use its MiniLM, as they did before it was the
    default; any other embedder is returned as it is."""
    inner = embedder.inner if isinstance(embedder, ExitGuarded) else embedder
    if isinstance(inner, BilingualEmbedder):
        return guarded(inner.minilm)
    return embedder


__all__ = [
    "CALIBRATION",
    "DIM",
    "IDENTITY",
    "MODEL_NAME",
    "ROUTES",
    "BilingualEmbedder",
    "comparable",
    "query_route",
    "route",
    "without_speaker",
]
