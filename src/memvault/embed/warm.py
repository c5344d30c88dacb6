"""Starting a local model's load early, beside the imports of a short-lived process.

Why: a CLI command that searches or writes pays, one after the other, for importing the
engine (about half a second) and for loading the model it embeds with (a quarter to a
third of a second: the file's checksum, the onnxruntime session). The load runs mostly
in native code that releases the GIL, so on a machine with two cores it can run while
the engine imports. :func:`warm_up` starts it on a thread of its own; the embedder the
vault makes later shares the loaded model (each local model is loaded once per process)
and waits for a load still running instead of starting a second one.

The guess is the configured embedder's: a vault that recorded another model (see
``engine.vector_space``) loads its own when it needs it, and the early load was only
wasted work. The thread is not a daemon, so a process that ends first waits for the load
instead of leaving native code running while the interpreter finalises.
"""

from __future__ import annotations

import threading

from ..config import EmbeddingConfig


def warm_up(cfg: EmbeddingConfig, text: str, *, query: bool) -> threading.Thread | None:
    """Start loading, on a thread, the local model that will embed ``text`` (a query,
    or a text to store when ``query`` is false); None when the configuration names no
    local model. Errors are left to the real load, which reports them."""
    if cfg.provider not in ("auto", "local"):
        return None
    thread = threading.Thread(
        target=_load, args=(cfg, text, query), name="memvault-warm-up", daemon=False
    )
    thread.start()
    return thread


def _load(cfg: EmbeddingConfig, text: str, query: bool) -> None:
    from . import bilingual
    from .factory import make_embedder
    from .local import LocalEmbedder
    from .multilingual import MultilingualEmbedder

    try:
        embedder = make_embedder(cfg)
        if isinstance(embedder, bilingual.BilingualEmbedder):
            way = bilingual.query_route(text) if query else bilingual.route(text)
            (embedder.minilm if way == "minilm" else embedder.e5).load()
        elif isinstance(embedder, LocalEmbedder | MultilingualEmbedder):
            embedder.load()
    except Exception:  # the vault's own load raises it again, with its remedy
        return


__all__ = ["warm_up"]
