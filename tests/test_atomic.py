"""The one atomic-write helper: old or new file, never half; modes; writers take turns."""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading
from pathlib import Path

import pytest

from memvault import atomic
from memvault.security.secretbox import load_or_create_key


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_crash_between_write_and_replace_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "notes.json"
    atomic.atomic_write(target, "old")

    def crash(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        atomic.atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_error_inside_a_streamed_write_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic.replacing(target) as handle:
        handle.write("half of the new")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.jsonl"]


def test_a_temp_file_left_by_a_killed_writer_is_removed_by_the_next_write(
    tmp_path: Path,
) -> None:
    target = tmp_path / "USER.md"
    stale = tmp_path / ".USER.md.abc123.tmp"
    stale.write_text("half")
    atomic.atomic_write(target, "whole")
    assert not stale.exists()
    assert target.read_text() == "whole"


def test_the_mode_is_applied_whatever_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "keys.json"
    old_umask = os.umask(0)
    try:
        atomic.atomic_write(target, "{}", mode=0o600)
        assert mode_of(target) == 0o600
        atomic.atomic_write(target, "{}", mode=0o640)
        assert mode_of(target) == 0o640
    finally:
        os.umask(old_umask)


def test_without_a_mode_a_new_file_is_private_and_a_replaced_one_keeps_its_mode(
    tmp_path: Path,
) -> None:
    target = tmp_path / "MEMORY.md"
    atomic.atomic_write(target, "one")
    assert mode_of(target) == atomic.PRIVATE_MODE
    target.chmod(0o644)
    atomic.atomic_write(target, "two")
    assert mode_of(target) == 0o644
    with atomic.replacing(target) as handle:
        handle.write("three")
    assert mode_of(target) == 0o644 and target.read_text() == "three"


def test_bytes_and_text_are_both_written_exactly(tmp_path: Path) -> None:
    target = tmp_path / "data"
    atomic.atomic_write(target, b"\x00\xffraw")
    assert target.read_bytes() == b"\x00\xffraw"
    atomic.atomic_write(target, "数据\r\n")
    assert target.read_bytes() == "数据\r\n".encode()


def _increment(path: str, times: int) -> None:
    target = Path(path)
    for _ in range(times):
        with atomic.file_lock(target):
            value = int(target.read_text()) if target.exists() else 0
            atomic.replace_file(target, str(value + 1))


def test_concurrent_writers_serialise(tmp_path: Path) -> None:
    """Read-modify-write under the lock from threads and processes loses no increment."""
    target = tmp_path / "counter"
    threads = [threading.Thread(target=_increment, args=(str(target), 20)) for _ in range(3)]
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_increment, args=(str(target), 20)) for _ in range(2)]
    for worker in [*threads, *processes]:
        worker.start()
    for worker in [*threads, *processes]:
        worker.join(timeout=60)
    assert all(p.exitcode == 0 for p in processes)
    assert int(target.read_text()) == 5 * 20


def test_a_held_lock_times_out(tmp_path: Path) -> None:
    target = tmp_path / "config.json"
    with atomic.file_lock(target), pytest.raises(atomic.LockTimeout):
        atomic.atomic_write(target, "x", timeout=0.05)
    assert atomic.lock_path(target) == tmp_path / "config.json.lock"


def test_the_vault_key_is_created_once_private_and_whole(tmp_path: Path) -> None:
    path = tmp_path / "data" / "vault.key"
    keys: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: keys.append(load_or_create_key(path))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1
    assert path.read_bytes() == keys[0]
    assert mode_of(path) == 0o600
