"""Starting a model's load early (``embed.warm``): the model of the text's language loads,
the other does not, and the vault's own embedder then shares the loaded model. Each case
runs in a fresh interpreter, where no model has loaded yet."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from memvault import load_config
from memvault.embed.warm import warm_up

PROBE = textwrap.dedent(
    """
    import json, sys
    from memvault import load_config
    from memvault.embed import local, multilingual
    from memvault.embed.warm import warm_up

    text, query, provider = sys.argv[1], sys.argv[2] == "query", sys.argv[3]
    # The defaults, whatever the environment of the test run says.
    cfg = load_config(environ={}).embedding.model_copy(update={"provider": provider})
    thread = warm_up(cfg, text, query=query)
    if thread is not None:
        thread.join()
    loaded = {"minilm": bool(local._shared), "e5": multilingual._shared is not None}
    same = None
    if loaded["minilm"]:
        same = local.LocalEmbedder().load() is next(iter(local._shared.values()))
    print(json.dumps({"thread": thread is not None, "loaded": loaded, "same": same}))
    """
)


def probe(text: str, *, query: bool, provider: str = "auto") -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, text, "query" if query else "stored", provider],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_an_english_query_loads_minilm_only_and_the_vault_shares_it() -> None:
    out = probe("when is the billing deploy", query=True)
    assert out == {"thread": True, "loaded": {"minilm": True, "e5": False}, "same": True}


def test_a_chinese_query_loads_e5_only() -> None:
    out = probe("部署时间改到什么时候了", query=True)
    assert out["loaded"] == {"minilm": False, "e5": True}


def test_a_stored_text_follows_the_stored_route() -> None:
    # Swahili: the query route keeps MiniLM (no function-word list knows it), the
    # stored route sends it to e5 by MiniLM's vocabulary (embed.bilingual.route).
    text = "Mkutano wa timu utafanyika kesho asubuhi ofisini"
    assert probe(text, query=False)["loaded"] == {"minilm": False, "e5": True}
    assert probe(text, query=True)["loaded"] == {"minilm": True, "e5": False}


@pytest.mark.parametrize("provider", ["none", "hashing", "openai"])
def test_no_thread_without_a_local_model(provider: str) -> None:
    cfg = load_config(environ={}).embedding.model_copy(update={"provider": provider})
    assert warm_up(cfg, "anything", query=True) is None
