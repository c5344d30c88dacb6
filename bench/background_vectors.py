"""Writes ``src/memvault/retrieval/background.npz``: the relevance gate's background bank
embedded by the local models, shipped so that no ``context()`` call waits for it.

Run it after changing ``memvault.retrieval.relevance.BACKGROUND`` (the file carries a
fingerprint of the text; stale vectors are ignored and the bank is embedded at run time):

    .venv/bin/python bench/background_vectors.py
"""

from __future__ import annotations

import numpy as np

from memvault.embed import multilingual
from memvault.embed.base import Embedder
from memvault.embed.bilingual import BilingualEmbedder
from memvault.embed.local import LocalEmbedder
from memvault.retrieval.relevance import BACKGROUND, SHIPPED, fingerprint, shipped


def main() -> None:
    arrays: dict[str, np.ndarray] = {"fingerprint": np.array(fingerprint())}
    models: list[Embedder] = [LocalEmbedder()]
    if multilingual.available():
        # The default model's own bank too: without it every process's first context()
        # embedded the 120 texts with both models (about a second on a 2-core machine).
        models += [multilingual.MultilingualEmbedder(), BilingualEmbedder()]
    else:
        print("multilingual-e5-small is not installed (the 'multilingual' extra): skipped")
    for model in models:
        arrays[model.name] = model.embed(list(BACKGROUND)).astype(np.float16)
    np.savez_compressed(SHIPPED, **arrays)
    for name, vectors in arrays.items():
        if name != "fingerprint":
            back = shipped(name, vectors.shape[1])
            assert back is not None, name
            worst = float(np.abs(back - vectors.astype(np.float32)).max())
            print(f"{name}: {vectors.shape[0]} x {vectors.shape[1]}, float16 error {worst:.1e}")
    print(f"wrote {SHIPPED} ({SHIPPED.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
