"""The numpy search of the Chinese tagger finds what jieba's finds (issue 29 item 5).

``graph.tagging`` replaces one step of ``jieba.posseg``: the Viterbi search over an
unknown stretch of characters. Its score, path, words and tags must be jieba's own,
on the Chinese chat of ``bench/data/zh.json`` and on strings of characters jieba
knows, does not know, and cannot tell apart (ties).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memvault.graph import tagging
from memvault.graph.extract import _chinese_names
from memvault.text import _segmenter

_segmenter()  # jieba's dictionary, as extraction loads it

import jieba.posseg as posseg  # type: ignore[import-untyped]  # noqa: E402
from jieba.posseg.char_state_tab import P as BY_CHAR  # type: ignore[import-untyped]  # noqa: E402
from jieba.posseg.prob_emit import P as EMIT  # type: ignore[import-untyped]  # noqa: E402
from jieba.posseg.prob_start import P as START  # type: ignore[import-untyped]  # noqa: E402
from jieba.posseg.prob_trans import P as TRANS  # type: ignore[import-untyped]  # noqa: E402
from jieba.posseg.viterbi import viterbi as jieba_viterbi  # type: ignore[import-untyped]  # noqa: E402

ZH = Path(__file__).parents[2] / "bench" / "data" / "zh.json"
_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _runs() -> list[str]:
    users = json.loads(ZH.read_text(encoding="utf-8"))["users"]
    return list(
        dict.fromkeys(r for u in users for t in u["turns"] for r in _RUN.findall(t["content"]))
    )


RUNS = _runs()
# Characters jieba's model knows (some with one state, some with many), some it does
# not (every state allowed), and rare ones its dictionary lacks.
_CHARS = sorted(BY_CHAR)[::40] + [chr(c) for c in range(0x9F00, 0x9F40)] + list("龘鱻齉𠀀")


def _same_search(text: str) -> None:
    score, path = jieba_viterbi(text, BY_CHAR, START, TRANS, EMIT)
    assert tagging.viterbi(text) == (score, path), text


def test_the_search_of_the_chat_runs_is_jiebas() -> None:
    assert len(RUNS) > 1000
    for run in RUNS[::4]:
        _same_search(run)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CHARS), min_size=1, max_size=14).map("".join))
@example("龘")
@example("鱻鱻鱻鱻")
@example("王小明在清华大学读书")
def test_the_search_of_any_characters_is_jiebas(text: str) -> None:
    _same_search(text)


def test_the_words_and_tags_of_the_chat_are_jiebas() -> None:
    tagged = 0
    for run in RUNS:
        want = [(p.word, p.flag) for p in posseg.cut(run, HMM=True)]
        got = tagging.cut(run)
        assert got == want, run
        tagged += any(flag in {"nr", "ns", "nt"} for _, flag in got)
    assert tagged > 100  # names, places and organisations among them
    assert _chinese_names("王小明在清华大学读书") == (
        ("王小明", "person"),
        ("清华大学", "organisation"),
    )


def test_the_tagger_is_jiebas_own_tokenizer() -> None:
    # The same dictionary and tags (one set of attributes), not a copy loaded again.
    assert tagging.tagger().__dict__ is posseg.dt.__dict__
