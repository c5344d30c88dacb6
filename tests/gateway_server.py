"""A real gateway on 127.0.0.1 for the API tests: uvicorn in a thread, auth on, with
an admin key and keys for the users alice and bob."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from memvault import ExternalMemory, Vault, VaultConfig
from memvault.server.app import create_app
from memvault.server.keys import KeyStore
from memvault.server.state import ServerSettings

# One TLS context for every test client: httpx builds a new one (reading and parsing the
# CA bundle, ~30-150 ms) for each client it opens, and these clients speak plain HTTP to
# loopback. ``httpx.get`` opens a client per call, so loops over routes use one client.
TLS = httpx.create_ssl_context()


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it has started serving (or has stopped trying)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.settled = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.settled.set()

    def run_then_settle(self) -> None:
        try:
            self.run()
        finally:
            self.settled.set()


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run ``app`` on an ephemeral loopback port; yields its base URL."""
    server = _Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run_then_settle, daemon=True)
    thread.start()
    if not server.settled.wait(timeout=30) or not server.started:
        raise RuntimeError("server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass
class Live:
    url: str
    vault: Vault
    keys: KeyStore
    home: Path
    admin: str
    alice: str
    bob: str

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, verify=TLS)

    def snapshot(self) -> str:
        """A digest of everything a request could change: entries, files, keys."""
        digest = hashlib.sha256()
        for user in ("alice", "bob"):
            for record in self.vault.export(user_id=user):
                digest.update(json.dumps(record, sort_keys=True).encode())
        for path in sorted(self.home.rglob("*")):
            if path.is_file() and not path.name.endswith((".lock", ".db", "-wal", "-shm")):
                digest.update(str(path).encode() + path.read_bytes())
        return digest.hexdigest()


@contextmanager
def live_gateway(
    config: VaultConfig,
    settings: ServerSettings | None = None,
    external: ExternalMemory | None = None,
) -> Iterator[Live]:
    keys = KeyStore.in_home(config.home)
    admin = keys.ensure_admin()
    assert admin is not None
    alice = keys.create(user_id="alice", label="alice")[1]
    bob = keys.create(user_id="bob", label="bob")[1]
    with (
        Vault(config=config) as vault,
        serving(create_app(vault, keys=keys, settings=settings, external=external)) as url,
    ):
        yield Live(url, vault, keys, config.home, admin, alice, bob)


@dataclass
class Served:
    url: str
    vault: Vault


@contextmanager
def open_gateway(config: VaultConfig) -> Iterator[Served]:
    """A gateway without keys (every caller is a local admin) on a vault of ``config``."""
    with Vault(config=config) as vault, serving(create_app(vault)) as url:
        yield Served(url, vault)
