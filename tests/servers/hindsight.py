"""The real Hindsight API server for the tests, on 127.0.0.1, offline.

``make hindsight`` (a prerequisite of ``make test``) installs the server into a venv of
its own, ``.venv-hindsight/`` in the checkout, at the version pinned by the
``hindsight`` extra of pyproject.toml. This module runs that venv's ``hindsight-api``
as a subprocess with everything it needs on loopback:

- its database: a throw-away PostgreSQL 18 + pgvector (``tests/servers/postgres.py``)
  reached over TCP; the Unix-socket form of the DSN does not work with Hindsight;
- its LLM: Hindsight's own ``mock`` provider, which is deterministic (each sentence
  of a retained text becomes a fact; reflect answers with canned text);
- its embeddings: the ``openai`` provider pointed at a hashing ``/v1/embeddings``
  server in a thread of this process (``tests/fakes/openai_embeddings.py``), so
  texts sharing words get close vectors and nothing is downloaded;
- its reranker: ``rrf`` (rank fusion, no model);
- bank stats computed on every request (the server caches them for 60 s by default).

``hindsight_server()`` is a context manager yielding a ``HindsightServer`` (its
``base_url``, and ``stop()``/``start()`` to take it away mid-test and bring it back
on the same port with the same data). Whatever happens, nothing is left running: the
server runs in its own process group, which is killed on close, at interpreter exit,
and (through the kernel's parent-death signal) when the test process dies.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

from tests.fakes.openai_embeddings import FakeEmbeddingServer
from tests.servers import postgres
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-hindsight"
EXECUTABLE = VENV / "bin" / "hindsight-api"
# The dimension Hindsight uses for its default local model; it detects the dimension
# of an OpenAI-compatible endpoint with a test request at start-up, so any works.
EMBEDDING_DIM = 384
EMBEDDING_MODEL = "memvault-test-hash"
EMBEDDING_KEY = "hindsight-test-key"
START_TIMEOUT = 180.0  # seconds: the first start also runs its schema migrations
STOP_TIMEOUT = 20.0


class HindsightUnavailable(RuntimeError):
    """The server venv is missing or the server did not come up (the message says why)."""


def pinned_version() -> str:
    """The Hindsight version pyproject.toml pins (``hindsight-client==X``)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'"hindsight-client==([0-9][0-9A-Za-z.]*)"', text)
    if match is None:
        raise HindsightUnavailable("pyproject.toml pins no hindsight-client==X in its extras")
    return match.group(1)


def installed() -> bool:
    """Whether ``make hindsight`` has installed the pinned server into ``VENV``."""
    stamp = VENV / f".installed-{pinned_version()}"
    return stamp.is_file() and EXECUTABLE.is_file()


def missing_message() -> str:
    return (
        f"the Hindsight server {pinned_version()} is not installed in {VENV}: "
        "run `make hindsight` (make test does it) and run pytest again"
    )


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL when the thread that started it ends."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class HindsightServer:
    """One Hindsight API process with its database and embeddings endpoint.

    Built stopped; ``start()`` launches it and waits for ``/health``; ``close()`` ends
    everything and deletes the data. ``log`` is the file its output goes to.
    """

    def __init__(
        self, directory: Path | None = None, environment: Mapping[str, str] | None = None
    ) -> None:
        """``environment``: more ``HINDSIGHT_API_*`` settings, over the ones chosen here."""
        if not installed():
            raise HindsightUnavailable(missing_message())
        self._own_directory = directory is None
        self.directory = directory or Path(tempfile.mkdtemp(prefix="memvault-hindsight-"))
        self.log = self.directory / "hindsight.log"
        self.port = postgres._free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.start_seconds: float | None = None  # how long the last start() took
        self.stop_seconds: float | None = None  # how long the last stop() took
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._database: postgres.PostgresServer | None = None
        self._embeddings: FakeEmbeddingServer | None = None
        self._closed = False
        self._extra = dict(environment or {})
        atexit.register(self.close)

    def _environment(self, database_url: str, embeddings_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
        env.update(
            {
                "HINDSIGHT_API_HOST": "127.0.0.1",
                "HINDSIGHT_API_PORT": str(self.port),
                "HINDSIGHT_API_DATABASE_URL": database_url,
                "HINDSIGHT_API_LLM_PROVIDER": "mock",
                "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "openai",
                "HINDSIGHT_API_EMBEDDINGS_OPENAI_BASE_URL": embeddings_url,
                "HINDSIGHT_API_EMBEDDINGS_OPENAI_API_KEY": EMBEDDING_KEY,
                "HINDSIGHT_API_EMBEDDINGS_OPENAI_MODEL": EMBEDDING_MODEL,
                "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
                # A fixed identity: tasks a stopped server left are its own after start().
                "HINDSIGHT_API_WORKER_ID": f"memvault-tests-{os.getpid()}",
                "HINDSIGHT_API_LOG_LEVEL": "info",
                # Bank stats are cached for 60 s by default; tests read them right after
                # a write, so they are computed on every request here.
                "HINDSIGHT_API_BANK_STATS_CACHE_TTL_SECONDS": "0",
            }
        )
        # Its calls to the embeddings endpoint stay on loopback even behind a proxy.
        loopback = "127.0.0.1,localhost"
        for name in ("NO_PROXY", "no_proxy"):
            env[name] = f"{env[name]},{loopback}" if env.get(name) else loopback
        env.update(self._extra)
        return env

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Launch the server (again) on ``port``; returns once ``/health`` answers 200."""
        with self._lock:
            if self._closed:
                raise HindsightUnavailable("this HindsightServer was closed; start a new one")
            if self.running:
                return
            if self._database is None:
                self._database = postgres.start_server()
                self._database.create_database("hindsight")
            if self._embeddings is None:
                self._embeddings = FakeEmbeddingServer(
                    dim=EMBEDDING_DIM, api_key=EMBEDDING_KEY
                ).start()
            env = self._environment(self._database.url("hindsight"), self._embeddings.base_url)
            began = time.monotonic()
            with self.log.open("ab") as out:
                out.write(f"\n--- start at {time.strftime('%H:%M:%S')} ---\n".encode())
                out.flush()
                self._process = subprocess.Popen(
                    [str(EXECUTABLE)],
                    env=env,
                    cwd=self.directory,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group, killed as one
                    # The parent-death signal follows the thread that forks, so only the
                    # main thread (which lives as long as the process) asks for it.
                    preexec_fn=_die_with_parent if _on_main_thread() else None,
                )
            try:
                self._wait_healthy(began)
            except BaseException:
                self._terminate()
                raise
            self.start_seconds = time.monotonic() - began

    def _wait_healthy(self, began: float) -> None:
        process = self._process
        assert process is not None

        def healthy() -> bool:
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{self.base_url}/health", timeout=2.0).status_code == 200
            return False

        left = START_TIMEOUT - (time.monotonic() - began)
        up = until(lambda: process.poll() is not None or healthy(), timeout=left)
        code = process.poll()
        if code is not None:
            raise HindsightUnavailable(
                f"the Hindsight server exited with code {code} while starting; "
                f"its log ({self.log}) ends with:\n{self.log_tail()}"
            )
        if not up:
            raise HindsightUnavailable(
                f"the Hindsight server did not answer /health within {START_TIMEOUT:.0f} s; "
                f"its log ({self.log}) ends with:\n{self.log_tail()}"
            )

    def stop(self) -> None:
        """Stop the server process; the database and embeddings stay for ``start()``."""
        with self._lock:
            began = time.monotonic()
            self._terminate()
            self.stop_seconds = time.monotonic() - began

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(STOP_TIMEOUT)
        # Anything it started that outlived it (same group) goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    def close(self) -> None:
        """Stop everything and delete the data and log (once; later calls do nothing)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._terminate()
            if self._embeddings is not None:
                self._embeddings.stop()
                self._embeddings = None
            if self._database is not None:
                self._database.destroy()
                self._database = None
            if self._own_directory:
                shutil.rmtree(self.directory, ignore_errors=True)
        atexit.unregister(self.close)

    def log_tail(self, lines: int = 60) -> str:
        """The last ``lines`` lines of the server's log (for failure messages)."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


@contextlib.contextmanager
def hindsight_server(environment: Mapping[str, str] | None = None) -> Iterator[HindsightServer]:
    """A started ``HindsightServer``, closed (processes and data gone) on the way out."""
    server = HindsightServer(environment=environment)
    try:
        server.start()
        yield server
    finally:
        server.close()


def bank_texts(base_url: str, bank_id: str) -> list[str]:
    """The texts of every memory unit in one bank, read over HTTP (fake or real server).

    The real server turns one retained text into several units (a fact per sentence,
    observations), so callers check containment, not equality. A missing bank reads
    as empty.
    """
    texts: list[str] = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        offset = 0
        while True:
            answer = client.get(
                f"/v1/default/banks/{bank_id}/memories/list",
                params={"limit": 100, "offset": offset},
            )
            if answer.status_code == 404:
                return texts
            answer.raise_for_status()
            items = answer.json()["items"]
            texts.extend(str(item["text"]) for item in items)
            if len(items) < 100:
                return texts
            offset += 100


def bank_exists(base_url: str, bank_id: str) -> bool:
    """Whether the server knows the bank (its stats answer 200)."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        return client.get(f"/v1/default/banks/{bank_id}/stats").status_code == 200


def bank_missions(base_url: str, bank_id: str) -> tuple[str | None, str | None]:
    """The bank's reflect and retain missions, from its configuration."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        answer = client.get(f"/v1/default/banks/{bank_id}/config")
        answer.raise_for_status()
        config = answer.json()["config"]
        return config.get("reflect_mission"), config.get("retain_mission")


def drop_banks(base_url: str, *bank_ids: str) -> None:
    """Delete banks (a missing one is fine), so a test on a shared server starts clean."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for bank_id in bank_ids:
            answer = client.delete(f"/v1/default/banks/{bank_id}")
            if answer.status_code != 404:
                answer.raise_for_status()
