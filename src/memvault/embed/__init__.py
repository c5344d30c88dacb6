"""Embedders: the local ONNX model (default when installed), a multilingual local model,
OpenAI-compatible APIs, hashing."""

from .base import Embedder, ModelIdentity, QueryEmbedder, Vectors, embed_queries, normalize
from .hashing import HashingEmbedder

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "ModelIdentity",
    "QueryEmbedder",
    "Vectors",
    "embed_queries",
    "normalize",
]
