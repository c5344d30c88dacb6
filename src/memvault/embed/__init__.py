"""Embedders: the local model (default when installed), OpenAI-compatible APIs, hashing."""

from .base import Embedder, Vectors, normalize
from .hashing import HashingEmbedder

__all__ = ["Embedder", "HashingEmbedder", "Vectors", "normalize"]
