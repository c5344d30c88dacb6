"""Several writers on one USER.md, and writers killed mid-write, on real files.

Writers are separate Python processes (and, in one test, threads): each builds its
own ``BuiltinFileProvider``, so only the lock file and the atomic replace keep the
file whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from memvault.agent.files import find_drift, join_entries, parse_entries, split_entries
from memvault.agent.providers.builtin import BuiltinFileProvider

HERE = Path(__file__).parent
PYTHONPATH = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
PROCESSES = 4
PER_PROCESS = 20
BIG_LIMIT = 10_000_000

ADDER = textwrap.dedent(
    """
    import sys
    from memvault.agent.providers.builtin import BuiltinFileProvider

    base, writer, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    provider = BuiltinFileProvider(user_char_limit=1_000_000)
    provider.initialize(user_id="shared", agent_id=f"w{writer}", base_dir=base)
    sys.stdin.readline()  # start together
    for i in range(count):
        provider.add("user", f"writer {writer} entry {i}")
    """
)

# The file starts with BALLAST big entries (~2 MB in all) so that writing it takes
# a good share of each loop; the writer then adds small entries forever and, past
# KEEP of them, drops the oldest small one in the same all-or-nothing edit.
BALLAST = 60
KEEP = 40

# The writers: each adds small entries forever and, past KEEP of them, drops the
# oldest small one in the same all-or-nothing edit. They are forked, one per round,
# from a parent that opened the files once (``initialize`` scans the 2 MB of ballast
# for threats and personal data, ~2 s in a fresh interpreter): each writer is still
# a process of its own that reads whatever the last kill left (``entries`` and every
# ``edit`` read the file on disk, under the lock for an edit) and is SIGKILLed at a
# random moment while it writes.
WRITERS = textwrap.dedent(
    """
    import os
    import sys
    from memvault.agent.providers.builtin import BuiltinFileProvider
    from memvault.agent.files import Edit
    from test_builtin_concurrency import BALLAST, KEEP, expected_entry

    def endless(provider, first):
        count = len(provider.entries("user"))
        print("ready", os.getpid(), flush=True)
        i = first
        while True:
            edits = [Edit.add(expected_entry(i))]
            if count >= BALLAST + KEEP:
                edits.insert(0, Edit.remove_at(BALLAST))
            count = provider.edit("user", edits).usage.count
            i += 1

    provider = BuiltinFileProvider(user_char_limit=10_000_000)
    provider.initialize(user_id="shared", base_dir=sys.argv[1])
    for line in sys.stdin:  # the first entry number: fork one writer, report how it ended
        pid = os.fork()
        if pid == 0:
            try:
                endless(provider, int(line))
            finally:
                os._exit(1)
        print("exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
    """
)


class Lines:
    """Lines from a pipe, read with a deadline (``select`` on the raw descriptor)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def next(self, timeout: float) -> str | None:
        """The next line, or None if none is complete within ``timeout`` seconds."""
        while b"\n" not in self.buffer:
            readable, _, _ = select.select([self.fd], [], [], timeout)
            if not readable:
                return None
            chunk = os.read(self.fd, 4096)
            assert chunk, "the writers' parent died"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def expected_entry(i: int) -> str:
    """Entry ``i``: big for the ballast, small otherwise; its text follows from ``i``."""
    digest = hashlib.sha256(str(i).encode()).hexdigest()
    return f"entry {i}\n" + digest * (500 if i < BALLAST else 4)


def user_md(base: Path) -> Path:
    return base / "users" / "shared" / "USER.md"


def test_four_processes_add_concurrently(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ADDER, str(tmp_path), str(w), str(PER_PROCESS)],
            stdin=subprocess.PIPE,
            text=True,
        )
        for w in range(PROCESSES)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        assert proc.wait(timeout=120) == 0

    text = user_md(tmp_path).read_text(encoding="utf-8")
    assert find_drift(text, BIG_LIMIT) is None
    entries = split_entries(text)
    expected = {f"writer {w} entry {i}" for w in range(PROCESSES) for i in range(PER_PROCESS)}
    assert len(entries) == PROCESSES * PER_PROCESS
    assert set(entries) == expected
    for w in range(PROCESSES):  # each writer's entries keep their order
        mine = [e for e in entries if e.startswith(f"writer {w} ")]
        assert mine == [f"writer {w} entry {i}" for i in range(PER_PROCESS)]


def test_threads_with_separate_providers_add_concurrently(tmp_path: Path) -> None:
    providers = []
    for _ in range(2):
        provider = BuiltinFileProvider(user_char_limit=BIG_LIMIT)
        provider.initialize(user_id="shared", base_dir=str(tmp_path))
        providers.append(provider)
    start = threading.Barrier(6)

    def work(n: int) -> None:
        start.wait()
        for i in range(15):
            providers[n % 2].add("user", f"thread {n} entry {i}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = providers[0].entries("user")
    assert len(entries) == 90
    assert set(entries) == {f"thread {n} entry {i}" for n in range(6) for i in range(15)}


@pytest.mark.slow
def test_sigkill_mid_write_leaves_a_whole_file(tmp_path: Path) -> None:
    rng = random.Random(20260515)
    path = user_md(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(join_entries([expected_entry(i) for i in range(BALLAST)]), encoding="utf-8")
    seen_ids: set[int] = set()
    parent = subprocess.Popen(
        [sys.executable, "-c", WRITERS, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *PYTHONPATH])},
    )
    assert parent.stdin is not None and parent.stdout is not None
    lines = Lines(parent.stdout.fileno())
    writer = 0
    try:
        for round_ in range(20):
            parent.stdin.write(f"{(round_ + 1) * 1_000_000}\n".encode())
            parent.stdin.flush()
            ready = lines.next(timeout=60)
            assert ready is not None and ready.startswith("ready "), ready
            writer = int(ready.split()[1])
            # As waiting on the writer with a timeout did: a line now means it died on its own.
            assert lines.next(timeout=rng.uniform(0.02, 0.3)) is None, "the writer died on its own"
            os.kill(writer, signal.SIGKILL)
            assert lines.next(timeout=30) == f"exit {-signal.SIGKILL}", "the writer died on its own"
            writer = 0

            text = path.read_text(encoding="utf-8")
            assert find_drift(text, BIG_LIMIT) is None
            entries = split_entries(text)
            assert len(entries) == len(set(entries)) <= BALLAST + KEEP
            assert entries[:BALLAST] == [expected_entry(i) for i in range(BALLAST)]
            for entry in entries:
                number = int(entry.split("\n", 1)[0].removeprefix("entry "))
                assert entry == expected_entry(number), "an entry was written in part"
                seen_ids.add(number)
        parent.stdin.close()
        assert parent.wait(timeout=30) == 0
    finally:  # a failed round leaves no process behind
        if writer:
            with contextlib.suppress(ProcessLookupError):
                os.kill(writer, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
        parent.stdout.close()
    assert len(seen_ids) > BALLAST + 20  # the writers did make progress between kills

    # The lock is free again and the next write cleans any temp file a kill left.
    survivor = BuiltinFileProvider(user_char_limit=BIG_LIMIT, lock_timeout=5)
    survivor.initialize(user_id="shared", base_dir=str(tmp_path))
    survivor.add("user", "after the storm")
    assert parse_entries(path.read_text(encoding="utf-8"))[-1] == "after the storm"
    assert list(path.parent.glob("*.tmp")) == []
