"""Ingest and hybrid query latency at scale, on SQLite, PostgreSQL or MySQL / MariaDB.

``--n`` entries go into one store: one hot user holds ``--hot`` of them (a tenth by
default) and the rest are spread over ``--users`` other users, so a query for the hot
user runs among many other users' rows, as on a shared server. Entries are synthetic
but varied sentences (see ``store_bench.py``). Up to ``--embed-upto`` entries get real
all-MiniLM-L6-v2 vectors of their own text; beyond that, to keep the run short on 2
cores, each further entry's vector is a real vector of an earlier entry plus Gaussian
noise, re-normalised. That changes nothing about the work a query does (vector search
over the user's vectors, keyword search, fusion), which is what is measured here;
quality is measured by ``locomo.py``.

Reported: ingest throughput (``add_many`` in batches of 1,000 plus the vectors; the
embedding time is apart), the hot user's query p50/p95/p99 (query embedding included)
with the default configuration (fused, then the learned reranker), with
``retrieval.rerank = false`` and keyword only (no embedder), each query in turn on all
three, the peak RSS of this process (the database server's memory is not in it) and
the database size on disk.

``--store postgres`` / ``--store mysql`` start a throw-away server on 127.0.0.1 the way
the tests do (``tests/servers``: data in a temporary directory, removed at the end;
their settings favour speed over durability: PostgreSQL with ``fsync=off``, MariaDB
with ``innodb_flush_log_at_trx_commit=2`` and a 64 MB buffer pool), or use the empty
database ``--url`` names. On PostgreSQL the load is followed by ``VACUUM (ANALYZE)``,
what autovacuum does by itself shortly after it, before the queries run.

``--ingest-only`` measures the write path alone: ``add_many`` with the embedder off (no
vectors, no queries), and reports entries/s of wall time and the CPU seconds spent per
1,000 entries by this process and, for a throw-away server, by the server's processes,
so a run on a loaded machine still says what a write costs on each side.

    .venv/bin/python bench/scale.py --store sqlite|postgres|mysql [--n 10000] [--url URL]
    .venv/bin/python bench/scale.py --store mysql --n 5000 --ingest-only
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))  # tests/servers, for throw-away servers
from memvault import Vault, load_config
from memvault.embed.local import LocalEmbedder
from memvault.stores.values import VectorItem
from store_bench import COMMON, make_vocab, peak_rss_mb, percentile, sentence, zipf_pick

HOT = "hot"
BATCH = 1000


def _server_url(kind: str) -> tuple[str, Callable[[], None]]:
    """A fresh database on a throw-away server, and how to stop that server."""
    if kind == "postgres":
        from tests.servers import postgres

        return postgres.fresh_database(), postgres.stop_server
    from tests.servers import mariadb

    server = mariadb.local_server()
    return mariadb.fresh_database(server.url()), server.remove


def _size_on_disk(kind: str, target: str) -> int:
    """Bytes the database takes: the SQLite files, or what the server reports."""
    if kind == "sqlite":
        base = Path(target)
        return sum(p.stat().st_size for p in (base, *base.parent.glob(base.name + "-*")))
    if kind == "postgres":
        import psycopg

        from memvault.stores.postgres.connection import conninfo_of

        with psycopg.connect(conninfo_of(target)) as conn:
            row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
            assert row is not None
            return int(row[0])
    import pymysql

    from memvault.stores.mysql import parse_url

    address = parse_url(target)
    conn = pymysql.connect(
        host=address.host,
        port=address.port,
        user=address.user,
        password=address.password,
        unix_socket=address.unix_socket,
        database=address.database,
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW TABLES")
            for (table,) in cur.fetchall():
                cur.execute(f"ANALYZE TABLE `{table}`")  # InnoDB's sizes are estimates
                cur.fetchall()
            cur.execute(
                "SELECT COALESCE(SUM(data_length + index_length), 0) "
                "FROM information_schema.tables WHERE table_schema = DATABASE()"
            )
            return int(cur.fetchone()[0])
    finally:
        conn.close()


def _settle(kind: str, target: str) -> None:
    """After the load, what PostgreSQL's autovacuum does by itself within a minute or so
    of it (it vacuums and analyzes insert-only tables too): without the statistics the
    planner takes the hot user for a small one. Not part of the ingest time."""
    if kind != "postgres":
        return
    import psycopg

    from memvault.stores.postgres.connection import conninfo_of

    with psycopg.connect(conninfo_of(target), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")


def _plan(n: int, hot: int, users: int) -> list[tuple[str, int]]:
    """(user, batch size) for every batch: the hot user's, then the others', interleaved."""
    others = n - hot
    per_user = [others // users + (1 if i < others % users else 0) for i in range(users)]
    batches: list[tuple[str, int]] = []
    for i, count in enumerate(per_user):
        for start in range(0, count, BATCH):
            batches.append((f"user{i:05d}", min(BATCH, count - start)))
    hot_batches = [(HOT, min(BATCH, hot - s)) for s in range(0, hot, BATCH)]
    # Spread the hot user's batches through the run, as a busy user's writes would be.
    step = max(1, len(batches) // max(1, len(hot_batches)))
    for k, item in enumerate(hot_batches):
        batches.insert(min(len(batches), k * (step + 1)), item)
    return batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", choices=("sqlite", "postgres", "mysql"), default="sqlite")
    parser.add_argument("--url", help="an empty database to use instead of a throw-away one")
    parser.add_argument("--n", type=int, default=10_000, help="entries in all")
    parser.add_argument("--hot", type=int, help="the hot user's entries (default n/10)")
    parser.add_argument("--users", type=int, default=200, help="users besides the hot one")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embed-upto", type=int, default=10_000)
    parser.add_argument(
        "--ingest-only", action="store_true", help="add_many alone, embedder off, no queries"
    )
    args = parser.parse_args()
    hot = args.n // 10 if args.hot is None else args.hot
    if not 0 < hot <= args.n or args.users < 1 or args.queries < 1:
        parser.error("need 0 < --hot <= --n, --users >= 1 and --queries >= 1")
    if args.url and args.store == "sqlite":
        parser.error("--url is for --store postgres or mysql (sqlite uses a temporary file)")

    load_before = os.getloadavg()[0]
    rng = random.Random(11)
    nprng = np.random.default_rng(11)
    vocab = make_vocab(rng)
    embedder = LocalEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        stop: Callable[[], None] = lambda: None  # noqa: E731
        if args.store == "sqlite":
            target = str(Path(tmp) / "scale.db")
        elif args.url:
            target = args.url
        else:
            target, stop = _server_url(args.store)
        try:
            if args.ingest_only:
                _ingest_only(args, hot, target, Path(tmp), rng, vocab, load_before)
                return
            rows = _run(args, hot, target, Path(tmp), rng, nprng, vocab, embedder)
            size = _size_on_disk(args.store, target)
        finally:
            stop()
    ingest_s, embed_s, embedded, times, plain_times, keyword_times = rows
    print(
        f"{args.store}: {args.n:,} entries, hot user {hot:,}, {args.users} other users; "
        f"hybrid search for the hot user, limit 10, {args.queries} queries"
    )
    print(
        f"(real embeddings for the first {embedded:,} entries, "
        f"{embed_s:.0f} s, not in the ingest rate; 2 cores shared with other work: "
        f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)\n"
    )
    print(
        "| store | entries | ingest (entries/s) | query p50 / p95 / p99 (ms) "
        "| rerank = false: p50 / p95 / p99 | keyword only: p50 / p95 / p99 "
        "| peak RSS (MB) | on disk (MB) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {args.store} | {args.n:,} | {args.n / ingest_s:,.0f} "
        f"| {_spread(times)} | {_spread(plain_times)} | {_spread(keyword_times)} "
        f"| {peak_rss_mb():.0f} | {size / 2**20:.1f} |"
    )


def _ingest_only(
    args: argparse.Namespace,
    hot: int,
    target: str,
    home: Path,
    rng: random.Random,
    vocab: list[str],
    load_before: float,
) -> None:
    """``add_many`` of the same texts as a full run, embedder off; prints one table row."""
    writer = Vault(target, config=load_config(environ={}, home=home), embedder=None)
    wall = cpu = 0.0
    server = None if args.url else _server_pid(args.store)
    server_cpu = -_tree_cpu(server)
    try:
        for user, size in _plan(args.n, hot, args.users):
            texts = [sentence(rng, vocab) for _ in range(size)]
            t0, c0 = time.perf_counter(), time.process_time()
            writer.add_many([{"content": t} for t in texts], user_id=user)
            wall += time.perf_counter() - t0
            cpu += time.process_time() - c0
        server_cpu += _tree_cpu(server)
    finally:
        writer.close()
    print(f"{args.store}: {args.n:,} entries, hot user {hot:,}, {args.users} other users")
    print(
        "| store | entries | load (start → end) | ingest (entries/s) "
        "| CPU s / 1k entries: this process | the server |"
    )
    print("|---|---:|---|---:|---:|---:|")
    print(
        f"| {args.store} | {args.n:,} | {load_before:.1f} → {os.getloadavg()[0]:.1f} "
        f"| {args.n / wall:,.0f} | {1000 * cpu / args.n:.2f} "
        f"| {'-' if server is None else f'{1000 * server_cpu / args.n:.2f}'} |"
    )


def _server_pid(kind: str) -> int | None:
    """The process id of the throw-away server (PostgreSQL's postmaster), if any."""
    if kind == "postgres":
        from tests.servers import postgres

        running = postgres.running_server()
        pidfile = None if running is None else running.data / "postmaster.pid"
        return None if pidfile is None else int(pidfile.read_text().split()[0])
    if kind == "mysql":
        from tests.servers import mariadb

        process = mariadb.local_server().process
        return None if process is None else process.pid
    return None


def _tree_cpu(root: int | None) -> float:
    """CPU seconds of ``root``, its live descendants and its reaped children (Linux /proc)."""
    if root is None:
        return 0.0
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    reaped = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        pid = int(stat.parent.name)
        parent[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])
        if pid == root:
            reaped = int(fields[13]) + int(fields[14])
    tree = {root}
    grew = True
    while grew:
        more = {pid for pid, ppid in parent.items() if ppid in tree} - tree
        tree |= more
        grew = bool(more)
    return (sum(ticks.get(pid, 0) for pid in tree) + reaped) / os.sysconf("SC_CLK_TCK")


def _spread(times: list[float]) -> str:
    """p50 / p95 / p99 of ``times`` (ms)."""
    return " / ".join(
        f"{v:.1f}"
        for v in (statistics.median(times), percentile(times, 0.95), percentile(times, 0.99))
    )


def _run(
    args: argparse.Namespace,
    hot: int,
    target: str,
    home: Path,
    rng: random.Random,
    nprng: np.random.Generator,
    vocab: list[str],
    embedder: LocalEmbedder,
) -> tuple[float, float, int, list[float], list[float], list[float]]:
    config = load_config(environ={}, home=home)
    plain = load_config(environ={}, home=home, retrieval={"rerank": False})
    writer = Vault(target, config=config, embedder=None)
    real: list[np.ndarray] = []
    ingest_s = embed_s = 0.0
    try:
        for user, size in _plan(args.n, hot, args.users):
            texts = [sentence(rng, vocab) for _ in range(size)]
            if len(real) < args.embed_upto:
                t0 = time.perf_counter()
                vectors = embedder.embed(texts)
                embed_s += time.perf_counter() - t0
                real.extend(vectors)
            else:
                base = np.stack([real[rng.randrange(len(real))] for _ in texts])
                noisy = base + nprng.normal(0, 0.02, base.shape).astype(np.float32)
                vectors = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
            t0 = time.perf_counter()
            entries = writer.add_many([{"content": t} for t in texts], user_id=user)
            writer.store.put_vectors(
                user,
                embedder.name,
                [VectorItem(e.id, e.updated_at, v) for e, v in zip(entries, vectors, strict=True)],
            )
            ingest_s += time.perf_counter() - t0
    finally:
        writer.close()
    _settle(args.store, target)
    vault = Vault(target, config=config, embedder=embedder)
    fused = Vault(target, config=plain, embedder=embedder)
    keyword = Vault(target, config=config, embedder=None)  # the keyword channel (and graph)
    try:
        queries = [
            " ".join(
                zipf_pick(rng, vocab) if rng.random() < 0.6 else rng.choice(COMMON)
                for _ in range(rng.randint(2, 6))
            )
            for _ in range(args.queries)
        ]
        for q in queries[:10]:  # load the vector cache and warm up
            vault.search(q, user_id=HOT, limit=10)
            fused.search(q, user_id=HOT, limit=10)
            keyword.search(q, user_id=HOT, limit=10)
        times: list[float] = []
        plain_times: list[float] = []
        keyword_times: list[float] = []
        for q in queries:
            for v, into in ((vault, times), (fused, plain_times), (keyword, keyword_times)):
                t0 = time.perf_counter()
                v.search(q, user_id=HOT, limit=10)
                into.append((time.perf_counter() - t0) * 1000)
    finally:
        vault.close()
        fused.close()
        keyword.close()
    return ingest_s, embed_s, len(real), times, plain_times, keyword_times


if __name__ == "__main__":
    main()
