"""A script that never calls close() exits with code 0, and no vector is lost.

Each script runs in a fresh interpreter with the real local model and ends by falling
off its end while memvault threads may still be embedding: the background embedder, the
manager's prefetch thread that missed its timeout, a search on the script's own daemon
thread. Before ``embed.guard`` such a thread was ended inside torch during interpreter
finalisation and the process aborted ("terminate called without an active exception",
exit code 134). The next open back-fills every vector the exit left unwritten.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memvault import Vault, load_config
from memvault.embed.bilingual import BilingualEmbedder

README = Path(__file__).parents[2] / "docs" / "integrations.md"  # moved from the README
SRC = Path(__file__).parents[2] / "src"


def readme_agent_snippet() -> str:
    """The docs' manager + vault provider example (docs/integrations.md), as pasted."""
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text("utf-8"), re.S | re.M)
    (snippet,) = [b for b in blocks if "manager.sync_all(" in b and "langchain" not in b]
    assert "close()" not in snippet  # it falls off its end with the vault open
    return snippet


PLAIN = """
from memvault import Vault

v = Vault("memory.db")
v.search("billing", user_id="alice")  # the model is loaded and ready
for i in range(200):
    v.add(f"note {i} about billing and deploys", user_id="alice")
print(len(v.search("payments", user_id="alice")))
for i in range(200, 300):
    v.add(f"note {i} about invoices", user_id="alice")
"""

# The manager leaves a provider's prefetch running on its thread when it misses the
# timeout; the script ends while those threads are still embedding their query.
PREFETCH_TIMEOUT = """
from memvault import Vault
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.manager import MemoryManager
from memvault.agent.providers.vault import VaultProvider

vault = Vault("memory.db")
manager = MemoryManager(BuiltinFileProvider(), prefetch_timeout=0.001)
manager.add_provider(VaultProvider(vault))
manager.initialize_all(user_id="alice", agent_id="coder", thread_id="t1", base_dir="data")
for i in range(20):
    vault.add(f"note {i}: billing moves to Stripe in quarter {i % 4 + 1}", user_id="alice")
question = " ".join(["what did we decide about billing and the payment provider?"] * 20)
for _ in range(3):
    manager.prefetch_all(question)
"""

# A script's own daemon thread searching while the main thread ends.
DAEMON_SEARCH = """
import threading
from memvault import Vault

v = Vault("memory.db")
v.add("Alice writes Go services", user_id="alice")
v.search("warm up", user_id="alice")

def recall() -> None:
    while True:
        v.search("which language does she write her services in?", user_id="alice")

threading.Thread(target=recall, daemon=True).start()
for i in range(100):
    v.add(f"note {i}: Alice reviewed the deploy checklist", user_id="alice")
"""

SCRIPTS = {
    "plain-vault": PLAIN,
    "readme-agent": readme_agent_snippet(),
    "prefetch-timeout": PREFETCH_TIMEOUT,
    "daemon-search": DAEMON_SEARCH,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_script_that_never_closes_exits_cleanly_and_loses_no_vector(
    name: str, tmp_path: Path
) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPTS[name], encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMVAULT_", "OPENAI_")) and k != "PYTHONPATH"
    }
    env.update(PYTHONPATH=str(SRC), MEMVAULT_HOME=str(tmp_path / "home"), MEMVAULT_EMBEDDER="local")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "terminate called" not in done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-3000:]

    # Nothing was lost: the next open back-fills what the exit left without a vector.
    model = BilingualEmbedder()  # the default the script ran with
    config = load_config(environ={}, home=tmp_path / "home")
    with Vault(tmp_path / "memory.db", config=config, embedder=model) as vault:
        entries = vault.count(user_id="alice")
        assert entries > 0
        assert vault.flush(timeout=600)
        stored = vault.store.load_vectors("alice", model.name)
        assert len(stored.ids) == entries
        assert sorted(stored.ids) == sorted(e.id for e in vault.list(user_id="alice", limit=1000))
