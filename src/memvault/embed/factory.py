"""Choosing the embedder from configuration."""

from __future__ import annotations

from ..config import EmbeddingConfig
from ..errors import ConfigError
from . import local
from .base import Embedder
from .hashing import HashingEmbedder


def make_embedder(cfg: EmbeddingConfig) -> Embedder | None:
    """The configured embedder, or None for keyword-only retrieval."""
    provider = cfg.provider
    if provider == "auto":
        provider = "local" if local.available() else "none"
    if provider == "none":
        return None
    if provider == "local":
        return local.LocalEmbedder(batch_size=cfg.batch_size, quantize=cfg.quantize)
    if provider == "hashing":
        return HashingEmbedder()
    if not cfg.base_url:
        raise ConfigError(
            "embedding provider 'openai' needs embedding.base_url "
            "(MEMVAULT_EMBEDDING_BASE_URL), e.g. http://127.0.0.1:8000/v1"
        )
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(
        base_url=cfg.base_url,
        model=cfg.model,
        dim=cfg.dim,
        api_key=cfg.api_key,
        batch_size=cfg.batch_size,
    )


__all__ = ["make_embedder"]
