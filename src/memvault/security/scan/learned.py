"""The model screen: does a stored memory read like an instruction to the assistant?

The rules (:mod:`.engine`) catch the shapes they were written for, in the languages
they were written in. This screen reads meaning: a logistic regression over the
vector the default embedder already stores for every memory, trained by
``bench/train_screen.py`` on the tuning corpora (attacks and benign look-alikes in
twenty-odd languages) and on ordinary chat. Its weights ship in
``model_screen.json`` next to this module, with the model they belong to and the
reference scores of a few fixed texts (a test recomputes them, so a changed model
file cannot silently change the screen).

Where it acts: on the write path, when the background worker has embedded a new
memory (:class:`ModelHold`, one dot product on the vector it is about to store): a
flagged memory is held for review like a rule hold, and stays out of every prompt
until a person approves it. And on the recalled memories about to enter a prompt
block (``retrieval.recall``): one dot product per memory with a vector, and one
passage embedding for a memory written so recently that it has no vector yet (nor a
hold). An approved memory is never held nor left out. It never refuses a write: a
score is evidence, not proof.

It serves only the embedder it was trained for (:meth:`ModelScreen.for_embedder`);
with another embedder the rules alone screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from ...embed.base import Embedder
from ...model import MemoryEntry
from .model import Threat, Verdict

MODEL_PATTERN_ID = "model_screen"
_WEIGHTS = "model_screen.json"

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ScreenWeights:
    """The fitted probe: ``weights · vector + bias >= threshold`` flags a memory."""

    model: str
    weights: Vector
    bias: float
    threshold: float
    reference: tuple[tuple[str, float], ...]


@lru_cache(maxsize=1)
def shipped_weights() -> ScreenWeights:
    """The weights that ship with the package (read once)."""
    raw = json.loads(resources.files(__package__).joinpath(_WEIGHTS).read_text("utf-8"))
    return ScreenWeights(
        model=str(raw["model"]),
        weights=np.asarray(raw["weights"], dtype=np.float32),
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
        reference=tuple((str(t), float(s)) for t, s in raw["reference"]),
    )


class ModelScreen:
    """Scores memories by their stored vectors, or by embedding their text."""

    def __init__(self, embedder: Embedder, weights: ScreenWeights) -> None:
        self.embedder = embedder
        self.weights = weights

    @classmethod
    def for_embedder(cls, embedder: Embedder | None) -> ModelScreen | None:
        """The screen for ``embedder``, or None when the shipped weights are another
        model's (their vectors would mean nothing to it)."""
        if embedder is None:
            return None
        weights = shipped_weights()
        if embedder.name != weights.model:
            return None
        return cls(embedder, weights)

    @property
    def probe(self) -> Vector:
        """The weight vector: a store's dot product with it is the score less the bias."""
        return self.weights.weights

    def score_vectors(self, vectors: npt.NDArray[np.floating]) -> list[float]:
        """The score of each stored vector (rows)."""
        sims = np.asarray(vectors, dtype=np.float32) @ self.weights.weights
        return [float(s) + self.weights.bias for s in np.atleast_1d(sims)]

    def scores(self, texts: Sequence[str]) -> list[float]:
        """The score of each text, embedded as a stored memory would be."""
        if not texts:
            return []
        return self.score_vectors(self.embedder.embed(list(texts)))

    def flags(self, score: float) -> bool:
        return score >= self.weights.threshold

    def check(self, text: str) -> Threat | None:
        """A ``quarantine`` finding when ``text`` scores at or over the threshold."""
        if not text.strip():
            return None
        score = self.scores([text])[0]
        if not self.flags(score):
            return None
        return Threat(
            MODEL_PATTERN_ID,
            "semantic",
            f"reads like an instruction to the assistant (model screen {score:.2f})",
            Verdict.QUARANTINE,
        )


class ModelHold:
    """The write path's model screen, run by the embedding worker on each batch (its
    ``screen`` hook): a memory the screen flags, that no person approved and no rule
    holds already, goes to the review queue through ``hold(entry, reason)`` (the
    engine's ``ReviewService.hold``), with :data:`MODEL_PATTERN_ID` as its reason."""

    def __init__(self, screen: ModelScreen, hold: Callable[[MemoryEntry, str], object]) -> None:
        self.screen = screen
        self.hold = hold

    def __call__(self, entries: Sequence[MemoryEntry], vectors: npt.NDArray[np.floating]) -> None:
        scores = self.screen.score_vectors(vectors)
        for entry, score in zip(entries, scores, strict=True):
            if entry.approved_at is None and entry.quarantine is None and self.screen.flags(score):
                self.hold(entry, MODEL_PATTERN_ID)


__all__ = ["MODEL_PATTERN_ID", "ModelHold", "ModelScreen", "ScreenWeights", "shipped_weights"]
