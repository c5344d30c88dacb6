"""Read-your-writes: the first search right after a bulk load, and idle search latency.

Through the public API with the real local model and default settings: a vault gets
``--entries`` memories (with ``add`` one by one, or one ``add_many``) and is searched at
once, with no ``flush()``, by a paraphrase of the last memory added (no word in common).
The table shows how long that first search took and whether the vector channel found the
memory. Then, with every vector written, ``--queries`` searches on the idle vault give
p50 / p95. The machine's load average is printed too: the 2 cores here are shared.

    .venv/bin/python bench/read_your_writes.py [--entries 1000] [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from memvault import Vault, load_config

TARGET = "Miso, Alice's cat, sleeps on the radiator all winter"
QUESTION = "what pet does she have?"
TOPICS = [
    "the quarterly report", "the build pipeline", "the staging database", "the design review",
    "the billing service", "the onboarding guide", "the release notes", "the load balancer",
]  # fmt: skip
VERBS = ["was updated", "needs a second look", "moved to Thursday", "is blocked on review"]


def notes(n: int, rng: random.Random) -> list[str]:
    return [f"Note {i}: {rng.choice(TOPICS)} {rng.choice(VERBS)}" for i in range(n)]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def first_search(vault: Vault, user: str) -> tuple[float, bool]:
    start = time.perf_counter()
    why = vault.explain(QUESTION, user_id=user, limit=5)
    took = time.perf_counter() - start
    found = any(c.entry.content == TARGET and "vector" in c.channels for c in why.candidates)
    return took, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(5)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(environ={}, home=Path(tmp))
        vault = Vault(Path(tmp) / "ryw.db", config=config)
        vault.search("load the model", user_id="warm")
        for way in ("add", "add_many"):
            user = f"user-{way}"
            texts = [*notes(args.entries - 1, rng), TARGET]
            start = time.perf_counter()
            if way == "add":
                for text in texts:
                    vault.add(text, user_id=user)
            else:
                vault.add_many([{"content": t} for t in texts], user_id=user)
            loaded = time.perf_counter() - start
            took, found = first_search(vault, user)
            rows.append((way, loaded, took, found))
        vault.flush()
        questions = [f"what happened to {rng.choice(TOPICS)}?" for _ in range(args.queries)]
        timings = []
        for question in questions:
            start = time.perf_counter()
            vault.search(question, user_id="user-add_many", limit=10)
            timings.append((time.perf_counter() - start) * 1000)
        vault.close()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"read-your-writes, {args.entries} entries, default settings (load average {load})")
    print()
    print("| loaded with | load time (s) | first search (ms) | found by meaning |")
    print("|---|---|---|---|")
    for way, loaded, took, found in rows:
        print(f"| `{way}` | {loaded:.2f} | {took * 1000:.0f} | {'yes' if found else 'no'} |")
    print()
    print(f"idle search, limit 10, {args.queries} queries over {args.entries} entries:")
    print(
        f"p50 {statistics.median(timings):.1f} ms, p95 {percentile(timings, 95):.1f} ms, "
        f"max {max(timings):.1f} ms"
    )


if __name__ == "__main__":
    main()
