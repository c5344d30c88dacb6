"""HTTP load: concurrent clients mixing adds and searches against a real gateway.

Starts ``memvault serve`` as a separate process on 127.0.0.1 (so clients and server
do not share a GIL), preloads ``--entries`` memories for one user, then runs
``--clients`` threads for ``--duration`` seconds, each sending adds and searches
with that user's API key. Prints throughput, latency percentiles and errors.

Target: zero errors and search p95 <= 100 ms at 10k entries (keyword-only, the default).

    python bench/http_load.py                      # 8 clients, 30 s, 10k entries
    python bench/http_load.py --duration 5 --entries 1000
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from memvault import Vault, load_config
from memvault.server.keys import KeyStore

WORDS = (
    "alice bob carol project deadline coffee tea lisbon berlin python rust go deploy "
    "friday meeting budget garden tomatoes cello violin marathon kafka postgres sqlite "
    "review design roadmap holiday flight hotel birthday gift allergy peanuts doctor"
).split()


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    parser.add_argument("--entries", type=int, default=10_000, help="memories preloaded")
    parser.add_argument("--search-share", type=float, default=0.5, help="share of searches")
    parser.add_argument("--embedder", default="none", help="none | hashing | local | ...")
    parser.add_argument("--workers", type=int, default=1, help="server processes")
    parser.add_argument("--model", default=None, help="embedding.model (a local model's name)")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="memvault-load-"))
    embedding = {"provider": args.embedder, "model": args.model}
    config = load_config(environ={}, home=home, embedding=embedding)
    rng = random.Random(7)
    started = time.perf_counter()
    with Vault(config=config) as vault:
        vault.import_(({"content": sentence(rng)} for _ in range(args.entries)), user_id="bench")
        vault.flush()
    print(f"preloaded {args.entries} entries in {time.perf_counter() - started:.1f}s")
    key = KeyStore.in_home(home).create(user_id="bench", label="http_load")[1]

    port = free_port()
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": args.embedder,
        **({"MEMVAULT_EMBEDDING_MODEL": args.model} if args.model else {}),
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memvault.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            str(args.workers),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                print("the server did not start", file=sys.stderr)
                return 1
            time.sleep(0.1)

        latencies: dict[str, list[float]] = {"add": [], "search": []}
        errors: dict[str, int] = {"add": 0, "search": 0}
        lock = threading.Lock()
        stop_at = time.monotonic() + args.duration

        def client(seed: int) -> None:
            local = random.Random(seed)
            mine: dict[str, list[float]] = {"add": [], "search": []}
            failed = {"add": 0, "search": 0}
            headers = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
                while time.monotonic() < stop_at:
                    op = "search" if local.random() < args.search_share else "add"
                    t0 = time.perf_counter()
                    try:
                        if op == "add":
                            r = http.post("/v1/memories", json={"content": sentence(local)})
                            ok = r.status_code == 201
                        else:
                            query = {"query": sentence(local, 3), "limit": 10}
                            r = http.post("/v1/memories/search", json=query)
                            ok = r.status_code == 200
                    except httpx.HTTPError:
                        ok = False
                    mine[op].append((time.perf_counter() - t0) * 1000)
                    failed[op] += 0 if ok else 1
            with lock:
                for name in mine:
                    latencies[name].extend(mine[name])
                    errors[name] += failed[name]

        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(
        f"\n{args.clients} clients, {elapsed:.1f}s, {args.entries} preloaded entries, "
        f"embedder {args.embedder}{f' ({args.model})' if args.model else ''}, "
        f"{args.workers} server worker(s)\n"
    )
    print("| op     | requests | req/s  | p50 ms | p95 ms | p99 ms | errors |")
    print("|--------|---------:|-------:|-------:|-------:|-------:|-------:|")
    for name in ("add", "search"):
        values = latencies[name]
        print(
            f"| {name:<6} | {len(values):>8} | {len(values) / elapsed:>6.1f} "
            f"| {statistics.median(values) if values else float('nan'):>6.1f} "
            f"| {percentile(values, 0.95):>6.1f} | {percentile(values, 0.99):>6.1f} "
            f"| {errors[name]:>6} |"
        )
    total = sum(len(v) for v in latencies.values())
    print(f"\ntotal {total} requests, {total / elapsed:.1f} req/s, {sum(errors.values())} errors")
    search_p95 = percentile(latencies["search"], 0.95)
    met = sum(errors.values()) == 0 and search_p95 <= 100
    print(f"target (0 errors, search p95 <= 100 ms): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
