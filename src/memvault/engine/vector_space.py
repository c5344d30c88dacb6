"""Which embedding model a vault searches with: recorded in the store, never guessed.

Why: vectors of two models are not comparable, and the model used to be chosen only by
the configuration of the process that opened the vault. A shell or a server started
without the same setting silently searched with another model (or by keyword only)
while every stored vector waited for a re-embedding. So a vault records its model in
its store (``embedding.model``, beside the data, so every process and every backend
sees it) the first time a process with an embedder opens it, and from then on:

* a process whose embedder is the recorded one works as before;
* a process that did not choose a model (``embedding.model`` unset: the default) gets
  the recorded one, if it is a local model this install has — an existing vault keeps
  its model when the default changes;
* a process that chose another model, or that cannot load the recorded one, gets an
  :class:`~memvault.errors.EmbeddingModelMismatchError` naming both, and how to move
  the vault: ``memvault reindex --model X`` (:func:`switch`), which embeds every entry
  with the new model and then records it.

A process configured for keyword search only (``embedding.provider = "none"``) opens any
vault: it asked for no model, and its writes are embedded by the next process that has
one. A vault made before the record existed is read from its vectors: the model its
stored vectors are of becomes its record.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Protocol

from ..config import EmbeddingConfig
from ..embed.base import Embedder
from ..embed.factory import LOCAL_MODELS, make_embedder
from ..embed.worker import EmbeddingWorker
from ..errors import EmbeddingModelMismatchError
from ..retrieval.vector import VectorIndex
from ..stores.protocols import Store, VaultSettings, VectorStore
from .derived import embed_text

log = logging.getLogger(__name__)

#: The setting that names a vault's vector space (an embedder's ``name``).
MODEL_KEY = "embedding.model"


class SpaceStore(VaultSettings, VectorStore, Protocol):
    """What :func:`settle` reads and writes: the vault's settings and its vectors."""


def chose_model(config: EmbeddingConfig) -> bool:
    """Whether the configuration names its model (rather than taking the default)."""
    return config.model is not None or config.provider in ("openai", "hashing")


def short_name(key: str) -> str:
    """A vector space's model as ``embedding.model`` takes it (``name/variant/...`` -> name)."""
    return key.split("/", 1)[0]


def local_embedder(key: str, config: EmbeddingConfig) -> Embedder | None:
    """The local embedder whose vectors are named ``key``, if this install has it."""
    name = short_name(key)
    if name not in LOCAL_MODELS or not LOCAL_MODELS[name]():
        return None
    made = make_embedder(config.model_copy(update={"provider": "local", "model": name}))
    return made if made is not None and made.name == key else None


def recorded(store: SpaceStore) -> str | None:
    """The vault's model: its record, or for a vault made before the record, the model
    of its stored vectors (recorded now)."""
    found = store.get_setting(MODEL_KEY)
    if found is not None:
        return found
    models = store.stored_vector_models()
    if not models:
        return None
    # A vault switched lazily before the record existed may hold several; the one with
    # the most vectors is the one it was searched with most.
    return store.put_setting(MODEL_KEY, models[0], replace=False)


def settle(
    store: SpaceStore,
    embedder: Embedder | None,
    *,
    chosen: bool,
    config: EmbeddingConfig,
    keyword_only: bool = False,
    make: Callable[[str, EmbeddingConfig], Embedder | None] = local_embedder,
) -> Embedder | None:
    """The embedder this process searches the vault with, recording the model of a vault
    that has none; raises :class:`EmbeddingModelMismatchError` (see the module docstring).

    ``chosen`` says the caller named its embedder (an embedder passed in, or a model in
    the configuration); ``keyword_only`` that it asked for none (``embedder=None`` passed
    in, or ``embedding.provider = "none"``): such a process opens any vault."""
    if embedder is None and (keyword_only or config.provider == "none"):
        return None  # keyword search only, by choice: it reads no vector of any model
    have = recorded(store)
    if have is None:
        if embedder is not None:
            have = store.put_setting(MODEL_KEY, embedder.name, replace=False)
        else:
            return None  # no model here and none recorded: nothing to mix up
    if embedder is not None and embedder.name == have:
        return embedder
    if not chosen:
        kept = make(have, config)
        if kept is not None:
            log.info("memvault: this vault searches with %s, its recorded model", have)
            return kept
    raise mismatch(have, embedder)


def mismatch(have: str, embedder: Embedder | None) -> EmbeddingModelMismatchError:
    want = "no embedding model" if embedder is None else short_name(embedder.name)
    move = "" if embedder is None else f"memvault reindex --model {want} to move it to {want}, or "
    return EmbeddingModelMismatchError(
        f"this vault's memories are embedded with {short_name(have)} ({have}), and this "
        f"process is configured for {want}: run {move}set embedding.model = "
        f"{short_name(have)} (MEMVAULT_EMBEDDING_MODEL) to keep the vault's model"
        + ("" if embedder is not None else " and install memvault[local]"),
        recorded=have,
        configured=None if embedder is None else embedder.name,
    )


def switch(
    store: Store,
    embedder: Embedder,
    config: EmbeddingConfig,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Move the vault to ``embedder``'s model: embed every entry that has no vector of it
    (on this thread; each new vector replaces the entry's old one), then record it.
    Returns how many entries were embedded. Interrupted, it leaves the vault on its old
    model with part of the entries embedded by the new one: the next run finishes it."""
    index = VectorIndex(store, embedder.name)
    text_of = partial(embed_text, metadata_prefix=config.metadata_prefix)
    worker = EmbeddingWorker(
        store, embedder, index, text_of, batch_size=config.batch_size, backfill=False
    )
    try:
        done = worker.reindex(None, progress)
    finally:
        worker.close(drain=True)
    store.put_setting(MODEL_KEY, embedder.name, replace=True)
    return done


__all__ = [
    "MODEL_KEY",
    "SpaceStore",
    "chose_model",
    "local_embedder",
    "mismatch",
    "recorded",
    "settle",
    "short_name",
    "switch",
]
