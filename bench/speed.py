"""Write and search speed of the default configuration, on a mix with long messages.

Why: the default embedder runs two models, and long assistant answers (2-8 kB, code)
cost a model far more than chat lines. This measures, through the public API, on one
process and the machine as it is (its load average is printed; run it idle for the
figures in the README):

* ``add_many`` throughput: messages stored per second, keyword-searchable when it
  returns (the vectors follow in the background);
* the background embedder's throughput (messages embedded per second until ``flush``
  returns) beside the model's own batch throughput on the same texts measured alone
  (``embed`` in batches of 64): the share says what the engine's bookkeeping costs;
* hybrid search latency (p50 / p95, query embedding included, every query new) at
  ``--entries`` entries of one user, and the same queries again (the query cache),
  in wall time and in the process's CPU time (comparable on a loaded machine); once
  on the mix, once on the same sources without any text the default model sends to
  e5 (no Chinese, and not the one Italian answer: an English-only user, whose query
  is embedded by MiniLM alone);
* where ingest time goes: ``--profile`` prints cProfile's top functions of ``add_many``;
  on Linux, the calling thread's wall time split into running, waiting for a core (the
  model's threads and other processes hold them) and blocked (the GIL, locks), from
  ``/proc/self/task/<id>/schedstat``.

Texts: LoCoMo turns and ``bench/data/zh.json`` turns (short), and LongMemEval
assistant answers of 2-8 kB (long, many with code), ``--long`` share of the entries.
Vectors of the stored texts can be kept across runs (``--cache``), so the 10,000-entry
search figure does not need ten thousand model calls each time; the throughput
figures always call the model.

    PYTHONPATH=src .venv/bin/python bench/speed.py [--entries 10000] [--long 0.3]
        [--throughput 600] [--cache /tmp/mv-cache] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import lzma
import os
import pstats
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import CachedEmbedder
from memvault import Vault, load_config
from memvault.embed.bilingual import BilingualEmbedder, route
from shapes import LOCOMO

HERE = Path(__file__).resolve().parent
LME = LOCOMO.parents[1] / "longmemeval" / "longmemeval_s_dev.jsonl.xz"


def texts(
    entries: int, long_share: float, seed: int = 7, *, chinese: bool = True
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    short: list[tuple[str, str]] = []
    for conv in json.loads(LOCOMO.read_text(encoding="utf-8")):
        for key, turns in conv["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                short += [(t["speaker"], t["text"]) for t in turns]
    if chinese:
        for user in json.loads((HERE / "data" / "zh.json").read_text(encoding="utf-8"))["users"]:
            short += [(t["speaker"], t["content"]) for t in user["turns"]]
    long: list[str] = []
    with lzma.open(LME, "rt", encoding="utf-8") as f:
        for line in f:
            for session in json.loads(line)["haystack_sessions"]:
                for turn in session:
                    if turn["role"] == "assistant" and 2000 <= len(turn["content"]) <= 8000:
                        long.append(turn["content"])
    long = list(dict.fromkeys(long))
    if not chinese:  # an English-only user: no text the default model sends to e5
        short = [(who, t) for who, t in short if route(t) == "minilm"]
        long = [t for t in long if route(t) == "minilm"]
    rng.shuffle(short)
    rng.shuffle(long)
    n_long = min(len(long), round(entries * long_share))
    picked = [("assistant", t) for t in long[:n_long]]
    picked += [short[i % len(short)] for i in range(entries - n_long)]
    rng.shuffle(picked)
    return [
        {"content": text, "session_id": f"s{i // 20}", "metadata": {"speaker": speaker}}
        for i, (speaker, text) in enumerate(picked)
    ]


def thread_times() -> tuple[float, float] | None:
    """(seconds on a core, seconds runnable but waiting for one) of the calling thread
    so far, from Linux's scheduler statistics; None elsewhere."""
    try:
        path = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")
        ran, waited, _ = path.read_text().split()
    except (OSError, ValueError):
        return None
    return int(ran) / 1e9, int(waited) / 1e9


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _search_rows(
    vault: Vault, records: list[dict[str, Any]], name: str, n_queries: int
) -> list[tuple[str, int, list[float], list[float]]]:
    """New and repeated queries' wall and CPU milliseconds over ``records``, stored."""
    for start in range(0, len(records), 500):
        vault.add_many(records[start : start + 500], user_id="u")
    rng = random.Random(3)
    queries = [
        " ".join(rng.sample(r["content"].split(), min(6, len(r["content"].split()))))
        if " " in r["content"]
        else r["content"][:12]
        for r in rng.sample(records, n_queries)
    ]
    queries = [q for q in dict.fromkeys(queries) if q.strip()]
    rows = []
    for kind in ("new queries", "the same queries again (query cache)"):
        times, cpu = [], []
        for q in queries:
            t0, c0 = time.perf_counter(), time.process_time()
            vault.search(q, user_id="u", limit=10)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        rows.append((f"{name}: {kind}", len(queries), times, cpu))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--long", type=float, default=0.3, help="share of 2-8 kB answers")
    parser.add_argument("--throughput", type=int, default=600, help="messages for throughput")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"load average at start {load:.2f} on {os.cpu_count()} cores")
    records = texts(args.entries, args.long)
    model = BilingualEmbedder()
    model.embed(["warm up", "预热"])
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        # 1. The model alone, then the engine (store + background embedder), same texts.
        sample = records[: args.throughput]
        t0 = time.perf_counter()
        for start in range(0, len(sample), 64):
            model.embed([r["content"] for r in sample[start : start + 64]])
        alone = len(sample) / (time.perf_counter() - t0)
        config = load_config(environ={}, home=home)
        profile = cProfile.Profile() if args.profile else None
        with Vault(home / "t.db", config=config, embedder=BilingualEmbedder()) as vault:
            # The first write of a process loads the Chinese dictionaries (jieba, its
            # part-of-speech tables): a one-time cost, printed apart from throughput.
            t0 = time.perf_counter()
            vault.add_many([{"content": "张三下周去北京出差 with Ann"}], user_id="warm-up")
            first = time.perf_counter() - t0
            assert vault.flush(timeout=600)
            t0 = time.perf_counter()
            sched0 = thread_times()
            if profile is not None:
                profile.enable()
            for start in range(0, len(sample), 200):
                vault.add_many(sample[start : start + 200], user_id="u")
            if profile is not None:
                profile.disable()
            stored = time.perf_counter() - t0
            sched1 = thread_times()
            assert vault.flush(timeout=3600)
            embedded = time.perf_counter() - t0
        print(f"\n| measure ({len(sample)} messages, {args.long:.0%} long) | value |")
        print("|---|---|")
        print(
            f"| add_many, stored and keyword-searchable | {len(sample) / stored:.0f} messages/s |"
        )
        if sched0 is not None and sched1 is not None:
            ran, waited = sched1[0] - sched0[0], sched1[1] - sched0[1]
            print(
                f"| add_many's thread: running / waiting for a core / blocked (GIL, locks) "
                f"| {ran:.2f} / {waited:.2f} / {max(0.0, stored - ran - waited):.2f} s |"
            )
        print(f"| the process's first write (dictionaries load) | {first * 1000:.0f} ms |")
        print(f"| background embedder, until flush | {len(sample) / embedded:.1f} messages/s |")
        print(f"| the model alone, batches of 64 | {alone:.1f} messages/s |")
        share = len(sample) / embedded / alone
        print(f"| embedder share of the model's own rate | {share:.0%} |")
        if profile is not None:
            print("\nadd_many profile (cumulative, top 25):\n")
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)

        # 2. Search at --entries entries (vectors of stored texts may come from a cache):
        # the mix above, then the same without Chinese (an English-only user's searches
        # need no e5: see embed.bilingual).
        cached = BilingualEmbedder()
        cached.minilm = CachedEmbedder(
            cached.minilm, None if args.cache is None else args.cache / "minilm.pkl"
        )  # type: ignore[assignment]
        cached.e5 = CachedEmbedder(cached.e5, None if args.cache is None else args.cache / "e5.pkl")  # type: ignore[assignment]
        config = load_config(environ={}, home=home, embedding={"background": False})
        english = texts(args.entries, args.long, chinese=False)
        rows: list[tuple[str, int, list[float], list[float]]] = []
        for name, mix in (("the mix", records), ("English only", english)):
            with Vault(home / f"s-{len(rows)}.db", config=config, embedder=cached) as vault:
                rows += _search_rows(vault, mix, name, args.queries)
            for emb in (cached.minilm, cached.e5):
                emb.save()  # type: ignore[union-attr]
        head = f"hybrid search at {len(records)} entries"
        # CPU time (the process's, every thread's) stays comparable on a loaded machine,
        # where wall time mostly measures the other processes.
        print(f"\n| {head} | queries | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms |")
        print("|---|---|---|---|---|---|")
        for name, n, times, cpu in rows:
            print(
                f"| {name} | {n} | {statistics.median(times):.1f} | {pct(times, 0.95):.1f} "
                f"| {statistics.median(cpu):.1f} | {pct(cpu, 0.95):.1f} |"
            )
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
