"""Choosing the embedder from configuration."""

from __future__ import annotations

from ..config import EmbeddingConfig
from ..errors import ConfigError
from . import local, multilingual
from .base import Embedder
from .hashing import HashingEmbedder

#: The local models by the names ``embedding.model`` accepts, and whether each is installed.
LOCAL_MODELS = {
    local.MODEL_NAME: local.available,
    "sentence-transformers/" + local.MODEL_NAME: local.available,
    multilingual.MODEL_NAME: multilingual.available,
    "intfloat/" + multilingual.MODEL_NAME: multilingual.available,
}
DEFAULT_API_MODEL = "text-embedding-3-small"


def local_model(model: str | None) -> str:
    """The canonical name of the local model ``embedding.model`` names (default MiniLM)."""
    if model is None:
        return local.MODEL_NAME
    if model not in LOCAL_MODELS:
        raise ConfigError(
            f"embedding.model {model!r} is not a local model: use {local.MODEL_NAME} "
            f"(English) or {multilingual.MODEL_NAME} (multilingual), or set "
            "embedding.provider = 'openai' for an API model",
            field="embedding.model",
        )
    return model.rsplit("/", 1)[-1]


def make_embedder(cfg: EmbeddingConfig) -> Embedder | None:
    """The configured embedder, or None for keyword-only retrieval."""
    provider = cfg.provider
    if provider == "auto":
        provider = "local" if LOCAL_MODELS[local_model(cfg.model)]() else "none"
    if provider == "none":
        return None
    if provider == "local":
        if local_model(cfg.model) == multilingual.MODEL_NAME:
            return multilingual.MultilingualEmbedder(threads=cfg.threads)
        return local.LocalEmbedder(threads=cfg.threads)
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
        model=cfg.model or DEFAULT_API_MODEL,
        dim=cfg.dim,
        api_key=cfg.api_key,
        batch_size=cfg.batch_size,
    )


__all__ = ["DEFAULT_API_MODEL", "LOCAL_MODELS", "local_model", "make_embedder"]
