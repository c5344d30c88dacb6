"""HTTP load: concurrent clients mixing adds and searches against a real gateway.

Starts ``memvault serve --workers N`` as a separate process on 127.0.0.1 (so clients
and server do not share a GIL), preloads ``--entries`` memories for one user, then runs
``--clients`` threads for ``--duration`` seconds, each sending adds and searches with
that user's API key. Prints throughput, latency percentiles and errors per run, then
one table of every run.

``--store`` names the stores to run on, comma-separated: ``sqlite`` (a file in a
temporary directory), ``postgres`` and ``mysql`` (a throw-away server on 127.0.0.1
started the way the tests start theirs, ``tests/servers``: data in a temporary
directory, removed at the end; PostgreSQL with ``fsync=off``, MariaDB with
``innodb_flush_log_at_trx_commit=2``), or a store URL (an empty database of yours, for
one run). ``--workers`` takes a comma-separated list too; every (store, workers) pair
is one run on a fresh database preloaded the same way, one after the other, so the
runs share the machine's load of the same minutes.

Targets: zero errors and search p95 <= 100 ms at 10k entries (keyword-only, the
default); PostgreSQL with 4 workers >= 2x the requests/s of one SQLite process at equal
or lower search p95 (judged when both runs are in the invocation).

    python bench/http_load.py                      # SQLite, 1 process, 8 clients, 30 s, 10k
    python bench/http_load.py --store sqlite,postgres --workers 1,2,4
    python bench/http_load.py --store postgresql://user@127.0.0.1/empty --workers 4
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))  # tests/servers, for throw-away servers
from common import CachedEmbedder
from memvault import Vault, load_config
from memvault.embed.factory import make_embedder
from memvault.server.keys import KeyStore

WORDS = (
    "alice bob carol project deadline coffee tea lisbon berlin python rust go deploy "
    "friday meeting budget garden tomatoes cello violin marathon kafka postgres sqlite "
    "review design roadmap holiday flight hotel birthday gift allergy peanuts doctor"
).split()
KINDS = ("sqlite", "postgres", "mysql")


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


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def _descendants(root: int) -> list[int]:
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                continue
    return out


def tree_cpu(root: int | None) -> float:
    """CPU seconds of a process, its live descendants and its reaped children (Linux)."""
    if root is None or not Path("/proc/self/stat").exists():
        return float("nan")
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for n, pid in enumerate(_descendants(root)):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
        if n == 0:
            total += int(fields[13]) + int(fields[14])  # reaped children: cutime, cstime
    return total / ticks


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


@dataclass
class Result:
    """One run: what the clients measured."""

    store: str
    workers: int
    elapsed: float
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # seconds during the load, by party

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.latencies.values())

    @property
    def rate(self) -> float:
        return self.total / self.elapsed

    def p(self, op: str, q: float) -> float:
        return percentile(self.latencies[op], q)


class Stores:
    """Fresh databases of each kind, on servers started on first use and stopped at the end."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self._stops: list[Callable[[], None]] = []
        self._mysql: str | None = None
        self._n = 0

    def fresh(self, kind: str) -> str:
        self._n += 1
        if kind == "sqlite":
            return str(self.tmp / f"load{self._n}.db")
        if kind == "postgres":
            from tests.servers import postgres

            if postgres.running_server() is None:
                self._stops.append(postgres.stop_server)
            return postgres.fresh_database()
        if kind == "mysql":
            from tests.servers import mariadb

            if self._mysql is None:
                server = mariadb.local_server()
                self._stops.append(server.remove)
                self._mysql = server.url()
            return mariadb.fresh_database(self._mysql)
        return kind  # a URL the caller gave

    @staticmethod
    def server_pid(kind: str) -> int | None:
        """The database server's main process, when this script started it."""
        if kind == "postgres":
            from tests.servers import postgres

            server = postgres.running_server()
            if server is None:
                return None
            return int((server.data / "postmaster.pid").read_text().split()[0])
        if kind == "mysql":
            from tests.servers import mariadb

            started = mariadb._started
            return started.process.pid if started and started.process else None
        return None

    def stop(self) -> None:
        while self._stops:
            self._stops.pop()()


def preload(
    store: str, home: Path, args: argparse.Namespace, embedder: CachedEmbedder | None
) -> str:
    """Fill the store with the same entries every run; returns the bench user's key."""
    embedding = {"provider": args.embedder, "model": args.model, "background": False}
    store_setting = {"store_url": store} if "://" in store else {"db_path": Path(store)}
    config = load_config(environ={}, home=home, embedding=embedding, **store_setting)
    rng = random.Random(7)
    started = time.perf_counter()
    with Vault(config=config, embedder=embedder) as vault:
        vault.import_(({"content": sentence(rng)} for _ in range(args.entries)), user_id="bench")
        vault.flush()
    print(f"  preloaded {args.entries} entries in {time.perf_counter() - started:.1f}s")
    return KeyStore.in_home(home).create(user_id="bench", label="http_load")[1]


def run_once(
    kind: str, store: str, workers: int, args: argparse.Namespace, embedder: CachedEmbedder | None
) -> Result | None:
    home = Path(tempfile.mkdtemp(prefix="memvault-load-"))
    print(f"\n== {kind}, {workers} server worker(s) ({load()})")
    key = preload(store, home, args, embedder)
    port = free_port()
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_DB": store,
        "MEMVAULT_EMBEDDER": args.embedder,
        "PYTHONPATH": os.pathsep.join(sys.path),
        **({"MEMVAULT_EMBEDDING_MODEL": args.model} if args.model else {}),
    }
    log = home / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memvault.cli",
                "serve",
                "--port",
                str(port),
                "--workers",
                str(workers),
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        if not _wait_ready(base, server, workers):
            print(f"the server did not start:\n{log.read_text()[-2000:]}", file=sys.stderr)
            return None
        result = _load(kind, workers, base, key, args, server.pid, Stores.server_pid(kind))
    finally:
        server.terminate()
        server.wait(timeout=60)
    _print_run(result)
    return result


def _wait_ready(base: str, server: subprocess.Popen[bytes], workers: int) -> bool:
    """Ready when every worker answers: a run of ``workers`` fresh connections in a row
    gets 200 (a worker still loading its model would refuse the connection)."""
    deadline = time.monotonic() + 120
    good = 0
    while good < 3 * workers:
        try:
            good = good + 1 if httpx.get(f"{base}/readyz", timeout=5).status_code == 200 else 0
        except httpx.HTTPError:
            good = 0
        if time.monotonic() > deadline or server.poll() is not None:
            return False
        if not good:
            time.sleep(0.2)
    time.sleep(1.0)  # workers finish warming up their models after /readyz answers
    return True


def _load(
    kind: str,
    workers: int,
    base: str,
    key: str,
    args: argparse.Namespace,
    memvault_pid: int,
    database_pid: int | None,
) -> Result:
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
    before = {
        "clients": own_cpu(),
        "memvault": tree_cpu(memvault_pid),
        "database": tree_cpu(database_pid),
    }
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    after = {
        "clients": own_cpu(),
        "memvault": tree_cpu(memvault_pid),
        "database": tree_cpu(database_pid),
    }
    cpu = {name: after[name] - before[name] for name in before}
    return Result(kind, workers, elapsed, latencies, errors, cpu)


def _print_run(r: Result) -> None:
    print("| op     | requests | req/s  | p50 ms | p95 ms | p99 ms | errors |")
    print("|--------|---------:|-------:|-------:|-------:|-------:|-------:|")
    for name in ("add", "search"):
        values = r.latencies[name]
        print(
            f"| {name:<6} | {len(values):>8} | {len(values) / r.elapsed:>6.1f} "
            f"| {statistics.median(values) if values else float('nan'):>6.1f} "
            f"| {r.p(name, 0.95):>6.1f} | {r.p(name, 0.99):>6.1f} "
            f"| {r.errors[name]:>6} |"
        )
    print(
        f"total {r.total} requests in {r.elapsed:.1f}s, {r.rate:.1f} req/s, "
        f"{sum(r.errors.values())} errors ({load()})"
    )
    per = ", ".join(f"{name} {1000 * sec / max(r.total, 1):.1f}" for name, sec in r.cpu.items())
    busy = sum(v for v in r.cpu.values() if v == v)  # nan: not measured
    print(
        f"CPU ms per request: {per}; these used {busy / r.elapsed:.2f} of the "
        f"{os.cpu_count()} cores"
    )


def _summary(results: list[Result], args: argparse.Namespace) -> bool:
    model = f" ({args.model})" if args.model else ""
    print(
        f"\n{args.clients} clients, {args.duration:.0f}s per run, {args.entries} preloaded "
        f"entries, {args.search_share:.0%} searches, embedder {args.embedder}{model}; "
        f"{load()}\n"
    )
    print(
        "| store | server processes | req/s | add p50 / p95 (ms) "
        "| search p50 / p95 / p99 (ms) | errors "
        "| CPU ms per request: clients / memvault / database |"
    )
    print("|---|---:|---:|---|---|---:|---|")
    for r in results:
        cpu = " / ".join(f"{1000 * r.cpu[n] / max(r.total, 1):.1f}" for n in r.cpu)
        print(
            f"| {r.store} | {r.workers} | {r.rate:.1f} "
            f"| {r.p('add', 0.5):.1f} / {r.p('add', 0.95):.1f} "
            f"| {r.p('search', 0.5):.1f} / {r.p('search', 0.95):.1f} "
            f"/ {r.p('search', 0.99):.1f} | {sum(r.errors.values())} | {cpu} |"
        )
    met = True
    for r in results:
        ok = sum(r.errors.values()) == 0 and r.p("search", 0.95) <= 100
        met = met and ok
        print(
            f"target {r.store} x{r.workers} (0 errors, search p95 <= 100 ms): "
            f"{'met' if ok else 'NOT met'}"
        )
    base = next((r for r in results if r.store == "sqlite" and r.workers == 1), None)
    four = next((r for r in results if r.store == "postgres" and r.workers == 4), None)
    if base is not None and four is not None:
        ratio = four.rate / base.rate
        ok = ratio >= 2 and four.p("search", 0.95) <= base.p("search", 0.95)
        print(
            f"target postgres x4 >= 2x sqlite x1 at equal or lower search p95: "
            f"{ratio:.2f}x, search p95 {four.p('search', 0.95):.1f} vs "
            f"{base.p('search', 0.95):.1f} ms: {'met' if ok else 'NOT met'}"
        )
        met = met and ok
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load per run")
    parser.add_argument("--entries", type=int, default=10_000, help="memories preloaded")
    parser.add_argument("--search-share", type=float, default=0.5, help="share of searches")
    parser.add_argument("--embedder", default="none", help="none | hashing | local | ...")
    parser.add_argument(
        "--store", default="sqlite", help="sqlite, postgres, mysql or a URL; comma-separated"
    )
    parser.add_argument(
        "--workers", default="1", help="server processes; comma-separated for several runs"
    )
    parser.add_argument("--model", default=None, help="embedding.model (a local model's name)")
    args = parser.parse_args()
    stores = [s.strip() for s in args.store.split(",") if s.strip()]
    try:
        workers = [int(w) for w in args.workers.split(",")]
    except ValueError:
        parser.error("--workers takes whole numbers, comma-separated: 1,2,4")
    if not stores or any(s not in KINDS and "://" not in s for s in stores):
        parser.error(f"--store takes {', '.join(KINDS)} or a store URL, comma-separated")
    if any(w < 1 for w in workers) or args.clients < 1 or args.entries < 0:
        parser.error("need --workers >= 1, --clients >= 1 and --entries >= 0")
    if any("://" in s for s in stores) and len(workers) > 1:
        parser.error("a store URL is filled by one run: give one --workers value with it")

    inner = make_embedder(
        load_config(
            environ={}, embedding={"provider": args.embedder, "model": args.model}
        ).embedding
    )
    embedder = CachedEmbedder(inner, None) if inner is not None else None  # one embedding
    print(f"http_load: {load()}")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="memvault-load-") as tmp:
        databases = Stores(Path(tmp))
        try:
            for store in stores:
                kind = store if store in KINDS else store.split("://", 1)[0]
                for n in workers:
                    result = run_once(kind, databases.fresh(store), n, args, embedder)
                    if result is None:
                        return 1
                    results.append(result)
        finally:
            databases.stop()
    return 0 if _summary(results, args) else 1


if __name__ == "__main__":
    sys.exit(main())
