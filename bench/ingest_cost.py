"""What ``add_many`` costs per message with no embedder: the write path's own Python.

Why: issue 29 item 5 asks for >= 500 messages/s stored and keyword-searchable at once;
the vectors follow in the background worker, so the figure is the write path alone
(validation, PII redaction, the threat scan, the domain rules, conversation context and
tokens, entity extraction and links, SQLite). This stores ``bench/speed.py``'s mix
(LoCoMo and ``bench/data/zh.json`` chat lines, ``--long`` share of 2-8 kB LongMemEval
answers) into a fresh SQLite vault with ``embedding.provider = none``, in batches of
``--batch``, and prints messages/s (wall) and CPU milliseconds per message, which the
machine's load inflates less. ``--profile`` adds cProfile's top functions.

    PYTHONPATH=src .venv/bin/python bench/ingest_cost.py [--messages 600] [--long 0.3]
        [--batch 200] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import tempfile
import time
from pathlib import Path

from memvault import Vault, load_config
from speed import texts


def run(
    records: list[dict[str, object]], batch: int, profile: cProfile.Profile | None
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of storing ``records`` into a fresh vault."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        config = load_config(environ={}, home=home, embedding={"provider": "none"})
        with Vault(home / "t.db", config=config) as vault:
            # The first write loads the Chinese dictionaries: a one-time cost, left out.
            vault.add_many([{"content": "张三下周去北京出差 with Ann"}], user_id="warm-up")
            wall, cpu = time.perf_counter(), time.process_time()
            if profile is not None:
                profile.enable()
            for start in range(0, len(records), batch):
                vault.add_many(records[start : start + batch], user_id="u")
            if profile is not None:
                profile.disable()
            return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=600)
    parser.add_argument("--long", type=float, default=0.3, help="share of 2-8 kB answers")
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is shown")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    records = texts(args.messages, args.long)
    load = os.getloadavg()[0]
    runs = [run(records, args.batch, None) for _ in range(args.repeat)]
    wall = min(w for w, _ in runs)
    cpu = min(c for _, c in runs)
    n = len(records)
    print(f"load average at start {load:.2f}, now {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    shape = f"{n} messages, {args.long:.0%} long, batches of {args.batch}"
    print(f"| measure ({shape}) | best of {args.repeat} |")
    print("|---|---|")
    print(f"| add_many, stored and keyword-searchable | {n / wall:.0f} messages/s |")
    print(f"| CPU per message | {cpu / n * 1000:.2f} ms ({n / cpu:.0f} messages per CPU second) |")
    if args.profile:
        profile = cProfile.Profile()
        run(records, args.batch, profile)
        stats = pstats.Stats(profile)
        print("\nadd_many profile (cumulative, top 30):\n")
        stats.sort_stats("cumulative").print_stats(30)
        print("\nadd_many profile (own time, top 20):\n")
        stats.sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
