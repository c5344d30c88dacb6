"""How long one ``memvault`` command takes from a cold start, as a user types it.

Every sample is a fresh ``python -m memvault.cli`` process (interpreter start, imports,
opening the database, the model if the command needs one, the work, exit), run 10
times per command; the table shows the median and the worst wall time, and the median
CPU time (user + system) of the process, which load from other processes on the
machine does not inflate. A vault of 200 memories (with vectors of the configured
model) is prepared first through the library, so searches run over real vectors.

    .venv/bin/python bench/cli_latency.py [--embedder local] [--model multilingual-e5-small]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memvault import Vault, load_config

TOPICS = ("Go services", "the billing pipeline", "Friday deploys", "the cat Miso", "coffee")


def run_once(env: dict[str, str], args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "memvault.cli", *args], capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"memvault {' '.join(args)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", default="local", help="embedding.provider")
    parser.add_argument("--model", default=None, help="embedding.model")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MEMVAULT_HOME": tmp, "MEMVAULT_EMBEDDER": args.embedder}
        if args.model:
            env["MEMVAULT_EMBEDDING_MODEL"] = args.model
        else:
            env.pop("MEMVAULT_EMBEDDING_MODEL", None)
        embedding = {"provider": args.embedder, "model": args.model}
        config = load_config(home=Path(tmp), embedding=embedding)
        with Vault(config=config) as vault:
            records = [
                {"content": f"Note {i} about {TOPICS[i % len(TOPICS)]}: item {i * 7} is done"}
                for i in range(200)
            ]
            first = vault.add_many(records, user_id="alice")[0]
            vault.flush()
            model = vault.embedder.name if vault.embedder else "none"
        commands = {
            "add": ["add", "--user", "alice", "Alice writes Go services and prefers short answers"],
            "search": ["search", "--user", "alice", "how should answers be written"],
            "search (Chinese)": ["search", "--user", "alice", "数据仓库用的是什么"],
            "list": ["list", "--user", "alice"],
            "get": ["get", first.id, "--user", "alice"],
            "export": ["export", "--user", "alice"],
        }
        print(f"memvault CLI, cold process per call, {args.runs} runs each; embedder {model}\n")
        print("| command | wall median (s) | wall max (s) | CPU median (s) |")
        print("|---|---:|---:|---:|")
        for name, argv in commands.items():
            samples = [run_once(env, argv) for _ in range(args.runs)]
            walls = [w for w, _ in samples]
            cpus = [c for _, c in samples]
            print(
                f"| `{name}` | {statistics.median(walls):.2f} | {max(walls):.2f} | "
                f"{statistics.median(cpus):.2f} |"
            )
        load = os.getloadavg()[0]
        print(f"\nload average during the run: {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
