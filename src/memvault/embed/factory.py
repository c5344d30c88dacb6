"""Choosing the embedder from configuration."""

from __future__ import annotations

from ..config import EmbeddingConfig
from ..errors import ConfigError
from . import bilingual, local, multilingual
from .base import Embedder
from .hashing import HashingEmbedder

#: The local models by the names ``embedding.model`` accepts, and whether each is installed.
LOCAL_MODELS = {
    bilingual.MODEL_NAME: lambda: local.available() and multilingual.available(),
    local.MODEL_NAME: local.available,
    "sentence-transformers/" + local.MODEL_NAME: local.available,
    multilingual.MODEL_NAME: multilingual.available,
    "intfloat/" + multilingual.MODEL_NAME: multilingual.available,
}
DEFAULT_API_MODEL = "text-embedding-3-small"


def default_local_model() -> str:
    """The local model used when ``embedding.model`` is not set: the bilingual pair when
    both models are installed (the ``local`` extra brings both), else the one that is."""
    if local.available() and multilingual.available():
        return bilingual.MODEL_NAME
    if multilingual.available() and not local.available():
        return multilingual.MODEL_NAME
    return local.MODEL_NAME


def local_model(model: str | None) -> str:
    """The canonical name of the local model ``embedding.model`` names (default:
    :func:`default_local_model`)."""
    if model is None:
        return default_local_model()
    if model not in LOCAL_MODELS:
        raise ConfigError(
            f"embedding.model {model!r} is not a local model: use {bilingual.MODEL_NAME} "
            f"(the default: English by {local.MODEL_NAME}, other languages by "
            f"{multilingual.MODEL_NAME}), {local.MODEL_NAME} or {multilingual.MODEL_NAME}, "
            "or set embedding.provider = 'openai' for an API model",
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
        chosen = local_model(cfg.model)
        if chosen == bilingual.MODEL_NAME:
            return bilingual.BilingualEmbedder(threads=cfg.threads)
        if chosen == multilingual.MODEL_NAME:
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


__all__ = [
    "DEFAULT_API_MODEL",
    "LOCAL_MODELS",
    "default_local_model",
    "local_model",
    "make_embedder",
]
