"""How long memvault takes from a cold start: importing the HTTP client, and one
``memvault`` command as a user types it.

Every sample is a fresh process (interpreter start, imports, opening the database, the
model if the command needs one, the work, exit), run ``--runs`` times (5 by default);
the table shows the median and the worst wall time, and the median CPU time (user +
system) of the process, which load from other processes on the machine inflates far
less than wall time; each row gives the load average (1 min) when it finished, as other
processes on the machine inflate every wall time. The first rows are
``python -c "import memvault"`` and ``python -c "import memvault.client"``, with how many
modules (memvault's own, and all) each import loads. The commands run as
``python -m memvault.cli`` (what the ``memvault`` script runs) against a vault of 200
memories in a temporary ``MEMVAULT_HOME``, prepared first through the library, so
searches run over real vectors of the chosen embedder.

    .venv/bin/python bench/cli_latency.py [--runs 5] [--embedder none|local] [--model NAME]
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


def count_modules(module: str) -> str:
    """A ``python -c`` script: import ``module``, print how many modules that took
    (memvault's, and all of them)."""
    return (
        f"import sys, {module}; "
        "ours = [m for m in sys.modules if m == 'memvault' or m.startswith('memvault.')]; "
        "print(len(ours), len(sys.modules))"
    )


def run_once(env: dict[str, str], argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def prepare(home: Path, embedder: str, model: str | None) -> tuple[str, str]:
    """200 memories for ``alice`` in ``home``: (one of their ids, the embedder's name)."""
    config = load_config(home=home, embedding={"provider": embedder, "model": model})
    with Vault(config=config) as vault:
        records = [
            {"content": f"Note {i} about {TOPICS[i % len(TOPICS)]}: item {i * 7} is done"}
            for i in range(200)
        ]
        first = vault.add_many(records, user_id="alice")[0]
        vault.flush()
        return first.id, vault.embedder.name if vault.embedder else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", default="local", help="embedding.provider (none: keyword)")
    parser.add_argument("--model", default=None, help="embedding.model")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MEMVAULT_HOME": tmp, "MEMVAULT_EMBEDDER": args.embedder}
        if args.model:
            env["MEMVAULT_EMBEDDING_MODEL"] = args.model
        else:
            env.pop("MEMVAULT_EMBEDDING_MODEL", None)
        first, model = prepare(Path(tmp), args.embedder, args.model)
        cli = [sys.executable, "-m", "memvault.cli"]
        commands = {
            "python -c 'import memvault'": [sys.executable, "-c", count_modules("memvault")],
            "python -c 'import memvault.client'": [
                sys.executable,
                "-c",
                count_modules("memvault.client"),
            ],
            "memvault --help": [*cli, "--help"],
            "memvault list": [*cli, "list", "--user", "alice"],
            "memvault search": [*cli, "search", "--user", "alice", "how should answers be written"],
            "memvault search (Chinese)": [*cli, "search", "--user", "alice", "数据仓库用的是什么"],
            "memvault context": [*cli, "context", "--user", "alice", "what is done for coffee"],
            "memvault get": [*cli, "get", first, "--user", "alice"],
            "memvault add": [*cli, "add", "--user", "alice", "Alice prefers short answers"],
            "memvault add (Chinese)": [*cli, "add", "--user", "alice", "爱丽丝喜欢简短的回答"],
            "memvault export": [*cli, "export", "--user", "alice"],
        }
        print(f"memvault cold start, a fresh process per call, {args.runs} runs each; ", end="")
        print(f"embedder {model}\n")
        print("| command | wall median (s) | wall max (s) | CPU median (s) | load (1 min) |")
        print("|---|---:|---:|---:|---:|")
        loads: list[float] = []
        counted: dict[str, list[str]] = {}
        for name, argv in commands.items():
            samples = [run_once(env, argv) for _ in range(args.runs)]
            loads.append(os.getloadavg()[0])
            walls = [w for w, _, _ in samples]
            cpus = [c for _, c, _ in samples]
            if argv[1] == "-c":
                counted[name.split("'")[1]] = samples[0][2].split()
            print(
                f"| `{name}` | {statistics.median(walls):.2f} | {max(walls):.2f} | "
                f"{statistics.median(cpus):.2f} | {loads[-1]:.1f} |"
            )
        print()
        for what, (ours, everything) in counted.items():
            print(f"`{what}` loads {ours} memvault modules, {everything} in all")
        print(
            f"load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f} "
            f"on {os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
