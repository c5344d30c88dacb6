"""The second stage: a small learned model re-orders the fused candidates of a search.

Why: fixed fusion weights fit one shape of data. Where questions reuse the words of
their answer (LoCoMo) BM25 is the better channel; where they paraphrase it (long
assistant answers, a cue and its trigger weeks apart) embeddings are, and a fixed
weighting is worse there than the vector channel alone. Which channel to trust is a
property of the query, and the candidates show it: a keyword channel whose best
matches hold most of the query's words found the question; one whose best matches
hold a stray word did not. A linear model over such features, trained offline on
both shapes (``bench/train_rerank.py``), learns when each channel is confident.

Features are computed by :func:`features` from what the search already has: each
channel's rank and score, the query-entry cosine (looked up for entries only the
keyword channel found), the share of the query's terms in the entry's own text, the
person match and the boost factors, and query-level readings (the keyword channel's
best coverage, the vector channel's best cosine and its gap to the fifth) crossed
with the per-entry ones, so one linear model can lean on keyword search for one
query and on meaning for the next. The model is a weight per feature; the score is
its dot product with them, squashed to (0, 1). Everything is deterministic: the same
candidates give the same order (ties keep the fused order).

The weights file (``rerank_weights.json`` in this package, or
``retrieval.rerank_weights``) names the features in order, the embedding model the
cosines came from, and a format version. A file that does not parse or does not
match this module's features is a broken install: :func:`load_model` raises
``ConfigError`` when the vault opens. A file trained for another embedding model is
a legitimate setup (the user chose another model), so the search falls back to plain
fusion and says so once in the log and in ``explain()``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..lru import LRUCache
from ..model import MemoryEntry
from ..stores.bm25 import index_form
from ..text import has_cjk, tokenize

SHIPPED = Path(__file__).with_name("rerank_weights.json")
FORMAT = "memvault-rerank"
VERSION = 2

#: The features, in the order the weights file lists them. Per candidate: keyword
#: channel (``kw_*``: ranks, BM25 relative to the query's best), vector channel
#: (``vec_*`` ranks; ``cos`` the calibrated cosine, ``cos_rel`` its distance below the
#: best, ``cos_z`` its standard score among the query's candidates), the entry's own
#: text (``cover``; ``own``, the same weighed by how rare each term is among the
#: candidates' own texts), boosts; then crossed with the query-level readings ``kq`` (keyword
#: coverage of the query), ``vtop`` (best calibrated cosine), ``vgap`` (best minus
#: fifth), ``kwtop`` (ln(1 + best BM25)), ``kwper`` (best BM25 per query term: a rare
#: word matched scores high, a stray common one low), ``kwcos`` (the keyword channel's
#: best three's mean cosine minus the best cosine: whether meaning backs them),
#: ``agree`` (how many of the two channels' first ten are the same entries), ``cjk``
#: (the query has CJK text) and ``qlen`` (query terms, up to ten, over ten).
FEATURES: tuple[str, ...] = (
    "kw_rr",
    "kw_lr",
    "kw_rel",
    "kw_miss",
    "vec_rr",
    "vec_lr",
    "vec_miss",
    "cos",
    "cos_rel",
    "cos_z",
    "cover",
    "own",
    "person",
    "boost",
    "fused_rel",
    "kw_lr*kq",
    "kw_rel*kq",
    "vec_lr*kq",
    "cos_rel*kq",
    "cover*kq",
    "own*kq",
    "kw_lr*vtop",
    "vec_lr*vtop",
    "cos_rel*vtop",
    "vec_lr*vgap",
    "cos_rel*vgap",
    "kw_lr*kwtop",
    "cos_rel*kwtop",
    "kw_lr*kwper",
    "cos_rel*kwper",
    "kw_lr*kwcos",
    "cos_rel*kwcos",
    "kw_lr*agree",
    "vec_lr*agree",
    "kw_lr*cjk",
    "kw_rel*cjk",
    "vec_lr*cjk",
    "cos_rel*cjk",
    "cover*cjk",
    "own*cjk",
    "kw_lr*qlen",
    "cos_rel*qlen",
)

#: Rank features fall linearly in log rank from 1 at rank 1 to 0 past this depth.
_RANK_SCALE = math.log(101.0)


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the reranker reads of one fused candidate (built by ``retrieval.recall``)."""

    entry: MemoryEntry
    keyword: tuple[int, float] | None  # (rank from 1, BM25) or None
    vector: tuple[int, float] | None  # (rank from 1, cosine) or None
    cosine: float | None  # query-entry cosine, also for keyword-only candidates
    fused: float
    boost: float  # importance x recency x tier
    person: bool


@dataclass(frozen=True, slots=True)
class Model:
    """A loaded weights file: one weight per feature of :data:`FEATURES`."""

    model: str  # the embedding model whose cosines it was trained on
    version: int
    weights: np.ndarray  # float64, len(FEATURES)
    bias: float
    source: str  # the file it came from, for messages

    def logits(self, matrix: np.ndarray) -> np.ndarray:
        """The reranker's logit of each row of a feature matrix (what it orders by)."""
        out: np.ndarray = np.clip(matrix @ self.weights + self.bias, -50.0, 50.0)
        return out

    def scores(self, matrix: np.ndarray) -> np.ndarray:
        """The reranker's score in (0, 1) of each row of a feature matrix."""
        return squash(self.logits(matrix))


def squash(logits: np.ndarray) -> np.ndarray:
    """Logits to scores in (0, 1)."""
    out: np.ndarray = 1.0 / (1.0 + np.exp(-logits))
    return out


def _log_rank(rank: int) -> float:
    return max(0.0, 1.0 - math.log(rank) / _RANK_SCALE)


def screen(terms: frozenset[str]) -> re.Pattern[str]:
    """The words that start like one of ``terms`` (its first three characters), as one
    pattern for :func:`coverage`."""
    starts = sorted({re.escape(t[:3]) for t in terms}, key=lambda s: (-len(s), s))
    return re.compile(r"\b(?:" + "|".join(starts) + r")\w*") if starts else re.compile(r"(?!)")


def covered(entry: MemoryEntry, terms: frozenset[str], prefixes: re.Pattern[str]) -> set[str]:
    """Which of the query's ``terms`` the entry's own text holds (name, description,
    content; not the neighbouring turns the index adds).

    Tokenising every candidate whole would cost more than the rest of the search, so
    in text without CJK only the words that start like a term (its first three
    letters, the pattern ``prefixes``) go through the tokenizer: a stem keeps its word's first
    letters, so this finds the same terms except for a word whose first letters carry
    a diacritic."""
    if not terms:
        return set()
    text = " ".join(p for p in (entry.name, entry.description, entry.content) if p)
    if has_cjk(text):
        found = {index_form(t) for t in tokenize(text)}
    else:
        words = prefixes.findall(text.lower())
        found = {index_form(t) for t in tokenize(" ".join(words))} if words else set()
    return set(terms & found)


_RUN = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class _Words:
    """What :func:`covered` reads of one text, whatever the query: the index forms of
    its tokens (text with CJK), or its distinct lower-case word runs, sorted, one a
    line (so the runs that start like a term are consecutive lines; one string holds
    them in a few bytes each)."""

    forms: frozenset[str] | None
    runs: str  # "\nrun\nrun\n"


class OwnWords:
    """:func:`covered` with the words of each entry's own text kept between searches.

    Why: re-reading every candidate's text (up to 8 kB of code) for every query was a
    tenth of a search at 10,000 entries. Kept by user, entry id and a digest of the
    text itself, so an entry whose text changed is read anew, never answered from its
    old words (a deleted entry is no candidate; its words age out). Bounded: the
    ``maxsize`` texts used last (about 2 kB each for a mix with long answers)."""

    def __init__(self, maxsize: int = 16384) -> None:
        self._words: LRUCache[tuple[str, str, bytes], _Words] = LRUCache(maxsize)

    def __len__(self) -> int:
        return len(self._words)

    def _of(self, entry: MemoryEntry, text: str) -> _Words:
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (entry.user_id, entry.id, digest)
        words = self._words.get(key)
        if words is not None:
            return words
        if has_cjk(text):
            words = _Words(frozenset(index_form(t) for t in tokenize(text)), "")
        else:
            runs = sorted(set(_RUN.findall(text.lower())))
            words = _Words(None, "\n" + "\n".join(runs) + "\n" if runs else "\n")
        return self._words.setdefault(key, words)

    def covered(self, entry: MemoryEntry, terms: frozenset[str], starts: Sequence[str]) -> set[str]:
        """:func:`covered` of ``entry`` for ``terms`` whose first letters (up to three)
        are ``starts``: the same terms. A word run that starts like a term is what
        ``screen``'s pattern finds in the text (a term is made of word characters, so
        its pattern matches whole runs only), and the tokenizer reads each word alike
        wherever it stands."""
        if not terms:
            return set()
        text = " ".join(p for p in (entry.name, entry.description, entry.content) if p)
        words = self._of(entry, text)
        if words.forms is not None:
            return set(terms & words.forms)
        runs = words.runs
        picked: set[str] = set()
        for start in starts:
            i = runs.find("\n" + start)
            while i >= 0 and runs.startswith(start, i + 1):
                end = runs.index("\n", i + 1)
                picked.add(runs[i + 1 : end])
                i = end
        if not picked:
            return set()
        return set(terms & {index_form(t) for t in tokenize(" ".join(sorted(picked)))})


def word_starts(terms: frozenset[str]) -> tuple[str, ...] | None:
    """The first letters (up to three) of ``terms``, as :func:`screen` takes them; None
    when one holds a character that is not a word character (``OwnWords`` then does
    not apply: :func:`covered` reads the text)."""
    starts = tuple(sorted({t[:3] for t in terms}))
    return starts if all(_RUN.fullmatch(s) for s in starts) else None


def coverage(entry: MemoryEntry, terms: frozenset[str], prefixes: re.Pattern[str]) -> float:
    """The share of the query's ``terms`` found in the entry's own text (:func:`covered`)."""
    return len(covered(entry, terms, prefixes)) / len(terms) if terms else 0.0


def features(
    candidates: Sequence[Candidate],
    terms: Sequence[str],
    *,
    cjk: bool = False,
    calibration: tuple[float, float] = (1.0, 0.0),
    kept: OwnWords | None = None,
) -> np.ndarray:
    """The feature matrix (one row per candidate, columns as :data:`FEATURES`).

    ``kept``: where the candidates' own words are kept between searches (the same
    features, computed faster).

    ``calibration`` maps the embedder's cosines onto the scale the weights were fitted
    on (``scale * cos + offset``, :func:`calibration_for`); every other feature is a
    rank, a share, or a score relative to the same query's other candidates, so no
    feature names the embedder."""
    wanted = frozenset(index_form(t) for t in terms)
    n = len(candidates)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return out
    scale, offset = calibration
    starts = word_starts(wanted) if kept is not None else None
    if kept is not None and starts is not None:
        found = [kept.covered(c.entry, wanted, starts) for c in candidates]
    else:
        prefixes = screen(wanted)
        found = [covered(c.entry, wanted, prefixes) for c in candidates]
    cover = [len(f) / len(wanted) if wanted else 0.0 for f in found]
    # The own text's coverage with each term weighed by how few candidates hold it in
    # their own text: a turn that holds the rare words itself beats one whose
    # neighbours lent it them (the keyword channel scores both alike).
    held = {t: sum(t in f for f in found) for t in wanted}
    rarity = {t: math.log1p(n / (1 + held[t])) for t in wanted}
    total = sum(rarity.values()) or 1.0
    own = [sum(rarity[t] for t in f) / total for f in found]
    kw_best = max((c.keyword[1] for c in candidates if c.keyword), default=0.0)
    by_kw = sorted(
        (c.keyword[0], cover[i]) for i, c in enumerate(candidates) if c.keyword is not None
    )
    kq = max((share for _, share in by_kw[:3]), default=0.0)
    vec = sorted(
        (c.vector[0], scale * c.vector[1] + offset) for c in candidates if c.vector is not None
    )
    vtop = vec[0][1] if vec else 0.0
    vgap = vtop - vec[min(4, len(vec) - 1)][1] if vec else 0.0
    cos_floor = min((v for _, v in vec), default=0.0)
    fused_best = max(c.fused for c in candidates) or 1.0
    kwtop = math.log1p(max(0.0, kw_best))
    kwper = max(0.0, kw_best) / max(1, len(wanted))
    cosines = [scale * c.cosine + offset if c.cosine is not None else cos_floor for c in candidates]
    spread = float(np.std(cosines)) if n > 1 else 0.0
    mean_cos = float(np.mean(cosines))
    kw_first = sorted(
        (c.keyword[0], cosines[i]) for i, c in enumerate(candidates) if c.keyword is not None
    )[:3]
    kwcos = (sum(cos for _, cos in kw_first) / len(kw_first) - vtop) if kw_first and vec else 0.0
    top_kw = {id(c) for c in candidates if c.keyword is not None and c.keyword[0] <= 10}
    top_vec = {id(c) for c in candidates if c.vector is not None and c.vector[0] <= 10}
    agree = len(top_kw & top_vec) / 10.0
    qcjk = float(cjk)
    qlen = min(len(wanted), 10) / 10.0
    for i, c in enumerate(candidates):
        kw_rr = kw_lr = kw_rel = 0.0
        if c.keyword is not None:
            rank, score = c.keyword
            kw_rr, kw_lr = 1.0 / rank, _log_rank(rank)
            kw_rel = score / kw_best if kw_best > 0 else 0.0
        vec_rr = vec_lr = 0.0
        if c.vector is not None:
            vec_rr, vec_lr = 1.0 / c.vector[0], _log_rank(c.vector[0])
        cos = cosines[i]
        cos_rel = cos - vtop
        cos_z = (cos - mean_cos) / spread if spread > 1e-6 else 0.0
        out[i] = (
            kw_rr,
            kw_lr,
            kw_rel,
            float(c.keyword is None),
            vec_rr,
            vec_lr,
            float(c.vector is None),
            cos,
            cos_rel,
            cos_z,
            cover[i],
            own[i],
            float(c.person),
            math.log(c.boost) if c.boost > 0 else 0.0,
            c.fused / fused_best,
            kw_lr * kq,
            kw_rel * kq,
            vec_lr * kq,
            cos_rel * kq,
            cover[i] * kq,
            own[i] * kq,
            kw_lr * vtop,
            vec_lr * vtop,
            cos_rel * vtop,
            vec_lr * vgap,
            cos_rel * vgap,
            kw_lr * kwtop,
            cos_rel * kwtop,
            kw_lr * kwper,
            cos_rel * kwper,
            kw_lr * kwcos,
            cos_rel * kwcos,
            kw_lr * agree,
            vec_lr * agree,
            kw_lr * qcjk,
            kw_rel * qcjk,
            vec_lr * qcjk,
            cos_rel * qcjk,
            cover[i] * qcjk,
            own[i] * qcjk,
            kw_lr * qlen,
            cos_rel * qlen,
        )
    return out


#: Model-name prefixes of embedders trained on English text only: their cosines of a
#: CJK text mostly count shared characters (an unrelated Chinese question scores 0.8
#: against a Chinese vault), so they are no evidence for a CJK query.
ENGLISH_ONLY: tuple[str, ...] = ("all-MiniLM-L6-v2",)


def reads(model: str, text: str) -> bool:
    """Whether ``model``'s cosines mean anything for ``text`` (English-only models do
    not read CJK)."""
    return not (model.startswith(ENGLISH_ONLY) and has_cjk(text))


#: Cosine calibrations of the local models onto the scale the shipped weights were
#: fitted on (MiniLM's, which the default bilingual embedder's scores already use):
#: ``scale * cos + offset``, by model name (the first part of an embedder's name).
#: A model not listed (an API model, the hashing embedder) has no calibration: its
#: searches keep the fused order (measuring one from a vault's own cosines is not done).
CALIBRATIONS: dict[str, tuple[float, float]] = {
    "all-MiniLM-L6-v2": (1.0, 0.0),
    "bilingual-minilm-e5": (1.0, 0.0),
    "multilingual-e5-small": (6.3, -5.18),
}


def calibration_for(model: str) -> tuple[float, float] | None:
    """The cosine calibration of embedding model ``model`` (see :data:`CALIBRATIONS`),
    or None for a model without one (an API model, the hashing embedder): its cosines
    are on a scale the weights never saw."""
    return CALIBRATIONS.get(model.split("/", 1)[0])


def _bad(source: str, why: str) -> ConfigError:
    return ConfigError(
        f"the reranker weights file {source} is not usable ({why}): reinstall memvault, "
        "point retrieval.rerank_weights at a file bench/train_rerank.py wrote, or set "
        "retrieval.rerank = false"
    )


def parse_model(data: object, source: str) -> Model:
    """A :class:`Model` from a weights file's parsed JSON, or ``ConfigError``."""
    if not isinstance(data, Mapping):
        raise _bad(source, "not a JSON object")
    if data.get("format") != FORMAT:
        raise _bad(source, f"format is {data.get('format')!r}, expected {FORMAT!r}")
    if data.get("version") != VERSION:
        raise _bad(source, f"version {data.get('version')!r}, this memvault reads {VERSION}")
    model = data.get("model")
    if not isinstance(model, str) or not model:
        raise _bad(source, "no embedding model named")
    names = data.get("features")
    if not isinstance(names, list) or tuple(names) != FEATURES:
        raise _bad(source, "its features are not the ones this memvault computes")
    weights = data.get("weights")
    bias = data.get("bias", 0.0)
    if (
        not isinstance(weights, list)
        or len(weights) != len(FEATURES)
        or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights)
        or not isinstance(bias, (int, float))
        or isinstance(bias, bool)
    ):
        raise _bad(source, f"weights must be {len(FEATURES)} numbers and a numeric bias")
    array = np.asarray(weights, dtype=np.float64)
    if not np.all(np.isfinite(array)) or not math.isfinite(float(bias)):
        raise _bad(source, "a weight is not a finite number")
    return Model(model, VERSION, array, float(bias), source)


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> Model:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise _bad(path, f"cannot read it: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(path, f"not JSON: {exc.msg} at line {exc.lineno}") from exc
    return parse_model(data, path)


def load_model(path: str | Path | None = None) -> Model:
    """The weights at ``path`` (default: the shipped file), read once per file version."""
    target = Path(path) if path is not None else SHIPPED
    try:
        mtime = target.stat().st_mtime_ns
    except OSError as exc:
        raise _bad(str(target), f"cannot read it: {exc.strerror or exc}") from exc
    return _load(str(target), mtime)


__all__ = [
    "CALIBRATIONS",
    "ENGLISH_ONLY",
    "FEATURES",
    "FORMAT",
    "SHIPPED",
    "VERSION",
    "Candidate",
    "Model",
    "OwnWords",
    "calibration_for",
    "coverage",
    "covered",
    "features",
    "load_model",
    "parse_model",
    "reads",
    "squash",
]
