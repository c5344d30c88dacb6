"""jieba's part-of-speech tagging, with its hidden-Markov step computed by numpy.

Extraction tags each Chinese run with ``jieba.posseg`` (``extract._chinese_names``).
Where jieba's dictionary does not cover a stretch of single characters, posseg finds
their words and tags with a Viterbi search over 256 (position, tag) states, in pure
Python: a max over every state of the previous character for every state of the next,
about a quarter of a millisecond per character, and a tenth of the write path's time
on a chat in Chinese. :class:`Tagger` is posseg's own tokenizer (the same dictionary,
the same cutting) with that one search done on arrays: the same additions in the same
order on the same doubles, and ties broken as Python's ``max`` of ``(score, state)``
pairs breaks them (the larger state), so the path, and with it every word and tag,
is the one jieba finds (a test compares them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

State = tuple[str, str]  # (B / M / E / S: where in a word, the word's tag)
_Floats = npt.NDArray[np.float64]
_Ints = npt.NDArray[np.intp]
_Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class _Model:
    """posseg's hidden-Markov model as arrays over its states (in ``states`` order)."""

    states: tuple[State, ...]
    start: _Floats
    trans: _Floats  # [from, to]: the log probability, -inf where jieba has none
    follows: _Bools  # [from, to]: jieba lists the transition (whatever its value)
    leads: _Bools  # the state has a transition at all (the others end a path)
    rank: _Ints  # the state's place in the order of the tuples (ties go to the larger)
    index: dict[State, int]
    by_char: dict[str, tuple[State, ...]]
    emit: dict[State, dict[str, float]]


# jieba's own floors: an emission it never saw, a transition it does not have.
_MIN_FLOAT = -3.14e100
_MIN_INF = float("-inf")


@cache
def _model() -> _Model:
    from jieba.posseg.char_state_tab import P as by_char  # type: ignore[import-untyped]
    from jieba.posseg.prob_emit import P as emit  # type: ignore[import-untyped]
    from jieba.posseg.prob_start import P as start  # type: ignore[import-untyped]
    from jieba.posseg.prob_trans import P as trans  # type: ignore[import-untyped]

    states = tuple(trans)
    index = {s: i for i, s in enumerate(states)}
    size = len(states)
    matrix = np.full((size, size), _MIN_INF)
    follows = np.zeros((size, size), dtype=bool)
    for a, row in trans.items():
        for b, p in row.items():
            matrix[index[a], index[b]] = p
            follows[index[a], index[b]] = True
    order = sorted(states)
    return _Model(
        states=states,
        start=np.array([start[s] for s in states], dtype=np.float64),
        trans=matrix,
        follows=follows,
        leads=np.array([bool(trans[s]) for s in states]),
        rank=np.array([order.index(s) for s in states], dtype=np.intp),
        index=index,
        by_char=by_char,
        emit=emit,
    )


@lru_cache(maxsize=8192)
def _char(char: str) -> tuple[_Ints, _Bools, _Floats]:
    """The states jieba allows ``char`` (indexes and mask; every state when it knows
    none), and each state's emission of it."""
    model = _model()
    allowed = model.by_char.get(char)
    if allowed is None:
        mask = np.ones(len(model.states), dtype=bool)
    else:
        mask = np.zeros(len(model.states), dtype=bool)
        mask[[model.index[s] for s in allowed]] = True
    emitted = np.array([model.emit[s].get(char, _MIN_FLOAT) for s in model.states])
    return np.flatnonzero(mask), mask, emitted


def _best(scores: _Floats, rows: _Ints, model: _Model) -> _Ints:
    """For each column of ``scores`` (one row per state of ``rows``), the row Python's
    ``max`` of ``(score, state)`` pairs picks: the highest score, then the larger state."""
    top = scores.max(axis=0)
    ranks = np.where(scores == top, model.rank[rows][:, None], -1)
    picked: _Ints = ranks.argmax(axis=0)
    return picked


def viterbi(text: str) -> tuple[float, list[State]]:
    """jieba.posseg.viterbi's ``(score, state of each character)`` for ``text`` (one
    or more characters)."""
    model = _model()
    first, _, emitted = _char(text[0])
    cols = first
    scores = model.start[cols] + emitted[cols]
    # For each character after the first: its states, and the best previous of each.
    back: list[tuple[_Ints, _Ints]] = []
    for i, char in enumerate(text[1:], 1):
        live = model.leads[cols]
        rows, before = cols[live], scores[live]
        if not rows.size:  # no state leads on: jieba's max() of nothing fails too
            raise ValueError(f"no state of {text[:i]!r} leads on to {char!r}")
        expected: _Bools = np.any(model.follows[rows], axis=0)
        _, allowed, emitted = _char(char)
        mask = allowed & expected
        if not mask.any():
            mask = expected  # not empty: the rows lead somewhere
        cols = np.flatnonzero(mask)
        grid = (before[:, None] + model.trans[rows][:, cols]) + emitted[cols][None, :]
        picked = _best(grid, rows, model)
        scores = grid[picked, np.arange(cols.size)]
        back.append((cols, rows[picked]))
    last = int(_best(scores[:, None], cols, model)[0])
    state = int(cols[last])
    score = float(scores[last])
    path = [state]
    for cols_t, previous in reversed(back):
        state = int(previous[int(np.flatnonzero(cols_t == state)[0])])
        path.append(state)
    path.reverse()
    return score, [model.states[i] for i in path]


def _tokenizer_class() -> Any:
    import jieba.posseg as posseg  # type: ignore[import-untyped]

    class Tagged(posseg.POSTokenizer):  # type: ignore[misc]
        """posseg's default tokenizer (its very attributes: dictionary, tags) with
        the numpy search in the step that tags unknown stretches."""

        def __init__(self, base: Any) -> None:
            self.__dict__ = base.__dict__  # shared: a reload of jieba's is this one's too

        def _POSTokenizer__cut(self, sentence: str) -> Any:  # jieba's private step
            _, states = viterbi(sentence)
            pair = posseg.pair
            begin, after = 0, 0
            for i, char in enumerate(sentence):
                where, tag = states[i]
                if where == "B":
                    begin = i
                elif where == "E":
                    yield pair(sentence[begin : i + 1], tag)
                    after = i + 1
                elif where == "S":
                    yield pair(char, tag)
                    after = i + 1
            if after < len(sentence):
                yield pair(sentence[after:], states[after][1])

    return Tagged


@cache
def tagger() -> Any:
    """jieba.posseg's default tokenizer with the numpy search (made on first use)."""
    import jieba.posseg as posseg

    return _tokenizer_class()(posseg.dt)


def cut(text: str) -> Sequence[tuple[str, str]]:
    """``(word, flag)`` of each word of ``text``: ``jieba.posseg.cut(text, HMM=True)``."""
    return [(p.word, p.flag) for p in tagger().cut(text, HMM=True)]


__all__ = ["cut", "tagger", "viterbi"]
