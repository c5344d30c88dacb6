"""How each preset shares a session's block out as the model's window shrinks.

A vault gets 40 memories of one workspace through ``Vault.add``; a state card, a task board
and a USER/MEMORY snapshot of realistic size are plain texts. For every preset and window
the block is built by ``session_block`` (the session's preset set through the session
settings) and the table shows the budget, each component's grant of what it wanted, the
block's size and whether the minimums fit. Nothing is timed.

    PYTHONPATH=src .venv/bin/python bench/session_budget.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memvault import Vault, load_config
from memvault.agent.config import MemoryConfigStore
from memvault.agent.session_block import LAYOUT, session_block
from memvault.render import count_tokens
from memvault.workspace.presets import PRESET_NAMES

WINDOWS = (2_000, 4_000, 8_000, 32_000, 128_000)
CARD = "\n".join(
    [
        "Goal: move the billing export from XML to CSV without breaking the nightly job",
        "Progress: CSV writer done; column mapping reviewed with finance",
        "Decisions: keep ISO dates; amounts in cents; one file per account",
        "Open questions: do refunds go in the same file?",
        "Next step: write the tests for the refund rows",
    ]
    * 6
)
BOARD = "\n".join(f"[{s}] task {i}: billing export step {i}" for i, s in enumerate(["todo"] * 40))
SNAPSHOT = "\n".join(
    f"§ Alice note {i}: prefers short answers, writes Go services, works on billing"
    for i in range(30)
)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        config = load_config(environ={}, home=home, embedding={"provider": "none"})
        with Vault(home / "bench.db", config=config) as vault:
            for i in range(40):
                vault.add(
                    f"billing export fact {i}: the job writes one CSV file per account "
                    f"and runs nightly at {i % 24}:00",
                    user_id="alice",
                    session_id=f"s{i % 4}",
                    workspace_id="billing",
                )
            settings = MemoryConfigStore(home)
            print(
                "| preset | window | budget | "
                + " | ".join(LAYOUT)
                + " | block tokens | minimums fit |"
            )
            print("|---|---:|---:|" + "---:|" * len(LAYOUT) + "---:|---|")
            for name in PRESET_NAMES:
                settings.set_session_overrides("alice", "s0", {"injection.preset": name})
                for window in WINDOWS:
                    block = session_block(
                        vault,
                        settings,
                        "how does the billing export work?",
                        user_id="alice",
                        session_id="s0",
                        workspace_id="billing",
                        window=window,
                        snapshot=SNAPSHOT,
                        components={"state_card": CARD, "task_board": BOARD},
                    )
                    report = block.allocation
                    cells = []
                    for part in LAYOUT:
                        grant = report.grant(part)
                        if grant is None or grant.reason == "not_in_preset":
                            cells.append("—")
                        else:
                            cells.append(f"{grant.granted}/{grant.wanted}")
                    print(
                        f"| {name} | {window} | {report.budget} | "
                        + " | ".join(cells)
                        + f" | {count_tokens(block.text)} | {report.minimums_fit} |"
                    )


if __name__ == "__main__":
    main()
