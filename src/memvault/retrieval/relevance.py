"""Which recalled hits ``Vault.context`` puts into a prompt, and which it leaves out.

Search always returns its best candidates; a prompt should get them only when they
bear on the message. A fixed cosine cut does not tell the two apart with a small
sentence model: a paraphrase of a stored memory ("what does she code in?" against
"Alice writes Go and Rust services") scores about 0.26 with all-MiniLM-L6-v2, and so
does an unrelated question about a famous person against the same vault. What does
tell them apart is *where else* the query lands: a question about the user is nearer
to the user's memories than to everyday requests, a general question is the reverse.

So the gate compares, for each query, the best cosine among the candidates with the
best cosine to :data:`BACKGROUND`, a fixed bank of everyday requests (general
knowledge, how-to, writing tasks, in English and Chinese; none about any user):

* ``margin = best candidate cosine - best background cosine``. A query whose margin
  is under ``context.margin`` is about something else: nothing is injected, not even
  a hit that shares a word with it ("Write a limerick about a penguin" is not about
  "Alice writes Go services").
* Otherwise a hit goes in when the keyword channel found it through a word of its
  own text, or when its cosine reaches ``context.min_similarity`` and comes within
  ``context.band`` of the best one.
* With no meaning to judge by (a keyword-only vault, or a query in a script the
  model does not read) the keyword matches decide alone.
* A word counts as a match only if it is a real word: CJK tokens of one character
  (她, 用, 会 …) are function words more often than not.

The margin compares two cosines of the same model, so it carries over to other
models better than an absolute cut; the defaults were measured with all-MiniLM-L6-v2
on ``bench/paraphrase.py`` (README, configuration). That model reads English only:
for a query with CJK characters its cosines say nothing (an unrelated Chinese
question scores 0.8 against a Chinese vault), so such a query is judged by keyword
evidence alone (:func:`reads`). The background bank ships embedded for the local
models (:data:`SHIPPED`); another model embeds it once per process (one model call).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config import ContextConfig
from ..embed.base import Embedder, Vectors, normalize
from ..model import Hit, MemoryEntry
from ..results.recall import CALIBRATIONS, DEFAULT_CALIBRATION, Calibration, Gate
from ..stores.bm25 import index_form
from ..text import has_cjk, tokenize
from .recall import Recalled, Scored
from .rerank import ENGLISH_ONLY, reads

#: Everyday requests an assistant gets that no personal memory answers: the
#: comparison point of the margin. Keep it broad and about no one in particular.
BACKGROUND: tuple[str, ...] = (
    "How do I make pancakes without eggs?",
    "What is the boiling point of olive oil?",
    "Who wrote Pride and Prejudice?",
    "When did the Roman Empire fall?",
    "What is the largest ocean on Earth?",
    "How many bones are in the human body?",
    "Explain how photosynthesis works.",
    "What is the difference between weather and climate?",
    "How do I change a car tyre?",
    "Write a short poem about the sea.",
    "Tell me a joke about cats.",
    "Summarise the plot of Romeo and Juliet.",
    "What is the formula for the area of a circle?",
    "How do airplanes stay in the air?",
    "Why is the sky dark at night?",
    "What language is spoken in Brazil?",
    "How do I fix a leaking tap?",
    "What are the symptoms of the flu?",
    "How do I invert a binary tree?",
    "What does HTTP stand for?",
    "How do I centre an element with CSS?",
    "Explain recursion to a beginner.",
    "What is the time complexity of quicksort?",
    "How does a blockchain work?",
    "Who was Napoleon Bonaparte?",
    "What did Isaac Newton discover?",
    "How old was Mozart when he wrote his first symphony?",
    "Who was the first woman to win a Nobel Prize?",
    "What is the most popular song of all time?",
    "Which country has the largest population?",
    "How far away is the sun?",
    "What is inflation?",
    "How do I write a good cover letter?",
    "Give me ideas for a birthday present for a ten-year-old.",
    "What are the health benefits of green tea?",
    "How many calories are in a banana?",
    "Convert 5 miles to kilometres.",
    "What is 15 percent of 80?",
    "Translate 'thank you' into German.",
    "What is the meaning of the word serendipity?",
    "Recommend a classic film from the 1950s.",
    "How do I grow basil indoors?",
    "What is the best way to store fresh bread?",
    "How do earthquakes happen?",
    "Why do leaves change colour in autumn?",
    "What is the tallest building in the world?",
    "How does the stock market work?",
    "What are the main causes of climate change?",
    "Describe the water cycle.",
    "How do I train a puppy to sit?",
    "What is machine learning?",
    "How do I make a budget spreadsheet?",
    "What is the history of the Olympic Games?",
    "Who discovered penicillin?",
    "How does a refrigerator keep food cold?",
    "What is the speed of sound?",
    "Which animals live in the Arctic?",
    "How do I tie a tie?",
    "What is a haiku?",
    "Plan a three-day itinerary for Rome.",
    "不放鸡蛋怎么做煎饼？",
    "《西游记》的作者是谁？",
    "秦始皇是哪一年统一六国的？",
    "地球上最大的海洋是哪个？",
    "人体有多少块骨头？",
    "天气和气候有什么区别？",
    "汽车轮胎怎么更换？",
    "写一首关于大海的短诗。",
    "讲一个关于猫的笑话。",
    "概括一下《三国演义》的主要情节。",
    "圆的面积公式是什么？",
    "飞机为什么能在天上飞？",
    "巴西人说什么语言？",
    "水龙头漏水怎么修？",
    "流感有哪些症状？",
    "什么是递归？",
    "快速排序的时间复杂度是多少？",
    "区块链是怎么工作的？",
    "李白是哪个朝代的诗人？",
    "牛顿发现了什么定律？",
    "世界上人口最多的国家是哪个？",
    "太阳离地球有多远？",
    "什么是通货膨胀？",
    "求职信应该怎么写？",
    "给十岁孩子送什么生日礼物好？",
    "喝绿茶有什么好处？",
    "一根香蕉有多少热量？",
    "五英里等于多少公里？",
    "八十的百分之十五是多少？",
    "“谢谢”用德语怎么说？",
    "推荐一部经典的老电影。",
    "室内怎么种罗勒？",
    "面包怎么保存才不会变硬？",
    "地震是怎么发生的？",
    "秋天树叶为什么会变黄？",
    "世界上最高的建筑是哪座？",
    "股票市场是怎么运作的？",
    "全球变暖的主要原因是什么？",
    "水循环是怎样的过程？",
    "怎么训练小狗坐下？",
    "什么是机器学习？",
    "怎么做家庭预算表？",
    "奥运会的历史有多长？",
    "青霉素是谁发现的？",
    "冰箱为什么能制冷？",
    "声音的传播速度是多少？",
    "北极有哪些动物？",
    "领带怎么系？",
    "什么是七言绝句？",
    "帮我规划一个三天的西安行程。",
    "孔子的主要思想是什么？",
    "饺子馅怎么调才好吃？",
    "如何提高英语口语？",
    "一年有多少个节气？",
    "长江流经哪些省份？",
    "宇宙是怎么形成的？",
    "怎样预防近视？",
    "高血压要注意什么饮食？",
    "珠穆朗玛峰有多高？",
    "如何写一份工作总结？",
)

#: :data:`BACKGROUND` embedded by the local models ahead of time (float16, one array
#: per model name, written by ``bench/background_vectors.py``), so no prompt waits for
#: a model call of 120 texts; other models embed the bank on first use.
SHIPPED = Path(__file__).with_name("background.npz")

_banks: dict[tuple[str, int], Vectors] = {}
_banks_lock = threading.Lock()


def fingerprint() -> str:
    """Identifies the text of :data:`BACKGROUND`: shipped vectors of another text are stale."""
    return hashlib.sha256("\n".join(BACKGROUND).encode("utf-8")).hexdigest()[:16]


def shipped(name: str, dim: int, path: Path = SHIPPED) -> Vectors | None:
    """The shipped bank vectors of model ``name``, or None (none, stale, or another size)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if name not in data.files or str(data["fingerprint"]) != fingerprint():
                return None
            vectors = np.asarray(data[name], dtype=np.float32)
    except (OSError, KeyError, ValueError):
        return None
    if vectors.shape != (len(BACKGROUND), dim):
        return None
    return normalize(vectors)


def background(embedder: Embedder) -> Vectors:
    """:data:`BACKGROUND` as ``embedder``'s vectors: shipped, or embedded once per process."""
    key = (embedder.name, embedder.dim)
    with _banks_lock:
        bank = _banks.get(key)
    if bank is None:
        bank = shipped(embedder.name, embedder.dim)
        if bank is None:
            bank = np.asarray(embedder.embed(list(BACKGROUND)), dtype=np.float32)
        with _banks_lock:
            bank = _banks.setdefault(key, bank)
    return bank


def _word(token: str) -> bool:
    return not (has_cjk(token) and len(token) < 2)


def calibration(model: str | None, config: ContextConfig) -> Calibration:
    """The gate settings for ``model``: the config's where set, the model's otherwise."""
    measured = CALIBRATIONS.get((model or "").split("/", 1)[0], DEFAULT_CALIBRATION)
    return Calibration(
        margin=measured.margin if config.margin is None else config.margin,
        band=measured.band if config.band is None else config.band,
        min_similarity=(
            measured.min_similarity if config.min_similarity is None else config.min_similarity
        ),
    )


class Relevance:
    """Builds the :class:`Gate` of a query and finds each hit's keyword evidence."""

    def __init__(
        self,
        config: ContextConfig,
        embedder: Embedder | None,
        keyword_metadata: Sequence[str] = (),
    ) -> None:
        self.config = config
        self.embedder = embedder
        self.keyword_metadata = tuple(keyword_metadata)

    def gate(
        self, text: str, vector: Vectors | None, candidates: Sequence[dict[str, float]]
    ) -> Gate:
        """The gate for ``text``; ``vector`` is its embedding (None: not embedded) and
        ``candidates`` the hits' channel scores."""
        embedder = self.embedder
        settings = calibration(embedder.name if embedder is not None else None, self.config)
        if embedder is None or vector is None or not reads(embedder.name, text):
            return Gate(None, None, None, settings)
        sims = [s["vector"] for s in candidates if "vector" in s]
        best = max(sims) if sims else 0.0
        bank = background(embedder)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if bank.shape[1] != query.shape[0]:
            return Gate(None, None, None, settings)
        # An English query met only MiniLM vectors has no e5 half (``embed.bilingual``):
        # the bank's Chinese texts then score far below its English ones, which is where
        # its nearest always was (300 LoCoMo questions: the Chinese texts' best -0.18,
        # the English texts' worst 0.12), so ``behind`` is the full query's.
        behind = float(np.max(bank @ query))
        return Gate(best, behind, best - behind, settings)

    def select(self, recalled: Recalled, limit: int) -> list[Hit]:
        """The relevant ones among the first ``limit`` candidates, best first."""
        gate = self.gate(
            recalled.query.text, recalled.vector, [c.sources for c in recalled.candidates]
        )
        return [
            c.hit()
            for c in recalled.candidates[:limit]
            if gate.evidence(c.sources, self.matched(c, recalled.query.terms))[0]
        ]

    def matched(self, candidate: Scored, terms: Sequence[str]) -> bool:
        """Whether the keyword channel found ``candidate`` through a real word of its own."""
        return "keyword" in candidate.channels and self.keyword_match(candidate.entry, terms)

    def keyword_match(self, entry: MemoryEntry, terms: Sequence[str]) -> bool:
        """Whether ``entry``'s own text (title, description, content, and the indexed
        metadata) holds one of the query's ``terms`` that is a real word: in CJK text a
        word jieba finds, not one of the character bigrams indexed beside them (a shared
        bigram such as 么时 is no evidence that the entry is about the question)."""
        wanted = {index_form(t) for t in terms if _word(t)}
        if not wanted:
            return False
        parts: list[str] = [p for p in (entry.name, entry.description, entry.content) if p]
        for key in self.keyword_metadata:
            parts.extend(_strings(entry.metadata.get(key)))
        return any(
            index_form(tok) in wanted for part in parts for tok in tokenize(part, bigrams=False)
        )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []


__all__ = [
    "BACKGROUND",
    "ENGLISH_ONLY",
    "SHIPPED",
    "Relevance",
    "background",
    "fingerprint",
    "reads",
    "shipped",
]
