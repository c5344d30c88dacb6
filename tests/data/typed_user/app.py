"""A user's script: what an application written against memvault's public API does."""

from __future__ import annotations

import asyncio
from pathlib import Path

import memvault
from memvault import (
    BuiltinFileProvider,
    DecisionStatus,
    Explanation,
    Hit,
    Kind,
    MemoryEntry,
    MemoryManager,
    MemvaultError,
    NotFoundError,
    Vault,
    VaultConfig,
    VaultProvider,
    load_config,
)
from memvault.client import AsyncClient, Client, MemoryEntries, RetryPolicy


def remember_things(path: Path) -> list[str]:
    config: VaultConfig = load_config(environ={}, home=path, embedding={"provider": "none"})
    with Vault(config=config) as v:
        entry: MemoryEntry = v.add("Alice writes Go", user_id="alice", kind=Kind.PROJECT)
        v.add_many([{"content": "Prefers tea"}], user_id="alice")
        hits: list[Hit] = v.search("go", user_id="alice", limit=3)
        block: str = v.context("what does she write?", user_id="alice", max_tokens=200)
        why: Explanation = v.explain("go", user_id="alice")
        print(why.format(rows=3), block, [h.score for h in hits])
        changed = v.update(entry.id, user_id="alice", importance=0.9)
        records = list(v.export(user_id="alice"))
        v.import_(records, user_id="bob")
        try:
            v.get("0" * 32, user_id="alice")
        except NotFoundError as exc:
            print(exc.message, exc.context)
        d = v.add("Use Postgres", user_id="alice", status=DecisionStatus.PROPOSED)
        v.decide(d.id, DecisionStatus.ADOPTED, user_id="alice")
        print(memvault.__version__, changed.updated_at.isoformat())
        return [e.id for e in v.list(user_id="alice", limit=10)]


def talk_to_the_server(url: str, key: str) -> int:
    retry = RetryPolicy(attempts=2, backoff=0.1)
    with Client(url, api_key=key, retry=retry) as c:
        e: MemoryEntry = c.add("Alice writes Go", kind="project")
        found: list[Hit] = c.search("go", limit=3)
        edited: MemoryEntries = c.add_memory_entry("user", "likes tea")
        print(found, edited.usage.percent, c.context("go"), c.explain("go").hits)
        try:
            c.delete(e.id)
        except MemvaultError as exc:
            print(exc)
        return c.count()


async def talk_async(url: str) -> list[MemoryEntry]:
    async with AsyncClient(url, user_id="alice") as c:
        await c.add("hello")
        return await c.list(limit=5)


def agent_manager(v: Vault, builtin: BuiltinFileProvider) -> str:
    with MemoryManager(builtin) as manager:
        manager.add_provider(VaultProvider(v))
        manager.initialize_all(user_id="alice", base_dir="home")
        return manager.prefetch_all("what does alice write?") + manager.system_prompt_blocks()


if __name__ == "__main__":
    print(remember_things(Path("home")))
    print(asyncio.run(talk_async("http://127.0.0.1:8765")))
