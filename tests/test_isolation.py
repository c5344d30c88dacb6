"""No call made as one user ever returns, changes or deletes another user's entries.

A Hypothesis state machine drives a vault on a real SQLite file, and one on a fresh
PostgreSQL database (``tests/servers/postgres.py``), keyword and vector channels both
on, with random adds, searches, lists and attacks (get/update/delete with other
users' ids, including ids two users share), and checks every user's export against a
model of what that user alone did after every step.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from memvault import NotFoundError, Store, Vault, load_config
from memvault.stores import open_store

from .servers.postgres import postgres_database

USERS = ("alice", "bob", "carol", "dave")
AGENTS = (None, "planner", "coder")
# Every user writes from the same vocabulary (plus a word of their own), so searches
# always have candidate matches in other users' entries.
WORDS = ("zebra", "apple", "kafka", "deploy", "friday", "数据仓库", "服务", "tea", "berlin")
OWN_WORD = {u: f"secret{u}" for u in USERS}

users = st.sampled_from(USERS)
agents = st.sampled_from(AGENTS)
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)


Model = dict[str, dict[str, tuple[str | None, str]]]  # user -> id -> (agent_id, content)


class IsolationMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="memvault-isolation-"))
        # The hashing embedder, run synchronously, puts the vector channel under test too.
        config = load_config(
            environ={}, home=self.dir, embedding={"provider": "hashing", "background": False}
        )
        self.vault = Vault(config=config, store=self.open_store())
        self.model: Model = {u: {} for u in USERS}

    def open_store(self) -> Store:
        return open_store(self.dir / "vault.db")

    def teardown(self) -> None:
        self.vault.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------

    def all_ids(self) -> list[str]:
        return sorted({i for entries in self.model.values() for i in entries})

    def visible(self, user: str, agent: str | None, *, owner: bool) -> set[str]:
        return {
            i
            for i, (entry_agent, _) in self.model[user].items()
            if (owner and agent is None) or entry_agent is None or entry_agent == agent
        }

    # -- writes ---------------------------------------------------------------------

    @initialize(data=st.data())
    def seed(self, data: st.DataObject) -> None:
        for user in USERS:
            for _ in range(data.draw(st.integers(1, 3))):
                self.add(user=user, agent=data.draw(agents), text=data.draw(texts))

    @rule(user=users, agent=agents, text=texts)
    def add(self, user: str, agent: str | None, text: str) -> None:
        content = f"{text} {OWN_WORD[user]}"
        e = self.vault.add(content, user_id=user, agent_id=agent)
        assert (e.user_id, e.agent_id, e.content) == (user, agent, content)
        self.model[user][e.id] = (agent, content)

    @rule(data=st.data(), user=users, agent=agents, text=texts)
    def add_with_another_users_id(
        self, data: st.DataObject, user: str, agent: str | None, text: str
    ) -> None:
        """Ids are unique per user: reusing someone else's id makes a separate entry."""
        taken = [i for u in USERS if u != user for i in self.model[u] if i not in self.model[user]]
        if not taken:
            return
        entry_id = data.draw(st.sampled_from(taken))
        content = f"{text} {OWN_WORD[user]}"
        self.vault.add(content, user_id=user, agent_id=agent, id=entry_id)
        self.model[user][entry_id] = (agent, content)

    @rule(data=st.data(), user=users, agent=agents, text=texts)
    def update(self, data: st.DataObject, user: str, agent: str | None, text: str) -> None:
        ids = self.all_ids()
        if not ids:
            return
        entry_id = data.draw(st.sampled_from(ids))
        content = f"{text} {OWN_WORD[user]} changed"
        if entry_id in self.visible(user, agent, owner=True):
            e = self.vault.update(entry_id, user_id=user, agent_id=agent, content=content)
            assert (e.user_id, e.id) == (user, entry_id)
            self.model[user][entry_id] = (self.model[user][entry_id][0], content)
        else:
            with pytest.raises(NotFoundError):
                self.vault.update(entry_id, user_id=user, agent_id=agent, content=content)

    @rule(data=st.data(), user=users, agent=agents)
    def delete(self, data: st.DataObject, user: str, agent: str | None) -> None:
        ids = self.all_ids()
        if not ids:
            return
        entry_id = data.draw(st.sampled_from(ids))
        if entry_id in self.visible(user, agent, owner=True):
            self.vault.delete(entry_id, user_id=user, agent_id=agent)
            del self.model[user][entry_id]
        else:
            with pytest.raises(NotFoundError):
                self.vault.delete(entry_id, user_id=user, agent_id=agent)

    @rule(data=st.data(), user=users, agent=agents)
    def delete_many(self, data: st.DataObject, user: str, agent: str | None) -> None:
        ids = self.all_ids()
        chosen = data.draw(st.lists(st.sampled_from(ids), max_size=5)) if ids else []
        deleted = self.vault.delete_many(chosen, user_id=user, agent_id=agent)
        expected = set(chosen) & self.visible(user, agent, owner=True)
        assert sorted(deleted) == sorted(expected)
        for i in expected:
            del self.model[user][i]

    # -- reads ----------------------------------------------------------------------

    @rule(data=st.data(), user=users, agent=agents)
    def get(self, data: st.DataObject, user: str, agent: str | None) -> None:
        ids = self.all_ids()
        if not ids:
            return
        entry_id = data.draw(st.sampled_from(ids))
        if entry_id in self.visible(user, agent, owner=True):
            e = self.vault.get(entry_id, user_id=user, agent_id=agent)
            assert (e.user_id, e.agent_id, e.content) == (user, *self.model[user][entry_id])
        else:
            with pytest.raises(NotFoundError):
                self.vault.get(entry_id, user_id=user, agent_id=agent)

    @rule(
        user=users,
        agent=agents,
        words=st.lists(st.sampled_from(WORDS + tuple(OWN_WORD.values())), min_size=1, max_size=5),
    )
    def search(self, user: str, agent: str | None, words: list[str]) -> None:
        hits = self.vault.search(" ".join(words), user_id=user, agent_id=agent, limit=50)
        allowed = self.visible(user, agent, owner=False)
        for h in hits:
            assert h.entry.user_id == user
            assert h.entry.id in allowed
            assert h.entry.content == self.model[user][h.entry.id][1]
        if OWN_WORD[user] in words:
            # Every entry of the user carries their own word, so all visible ones match.
            assert {h.entry.id for h in hits} == allowed

    @rule(user=users, agent=agents)
    def list_and_count(self, user: str, agent: str | None) -> None:
        listed = self.vault.list(user_id=user, agent_id=agent, limit=1000)
        expected = self.visible(user, agent, owner=True)
        assert {e.id for e in listed} == expected
        assert {e.user_id for e in listed} <= {user}
        assert self.vault.count(user_id=user, agent_id=agent) == len(expected)

    # -- the property ---------------------------------------------------------------

    @invariant()
    def every_users_entries_are_exactly_their_own(self) -> None:
        for user in USERS:
            exported = {
                d["id"]: (d["agent_id"], d["content"], d["user_id"])
                for d in self.vault.export(user_id=user)
            }
            expected = {i: (a, c, user) for i, (a, c) in self.model[user].items()}
            assert exported == expected, user


IsolationMachine.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestIsolation = IsolationMachine.TestCase


class PostgresIsolationMachine(IsolationMachine):
    """The same machine on PostgreSQL: each example on a database of its own."""

    def open_store(self) -> Store:
        return open_store(postgres_database())


PostgresIsolationMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestIsolationOnPostgres = pytest.mark.postgres(PostgresIsolationMachine.TestCase)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_another_users_words_do_not_change_my_search_results(tmp_path: Path, backend: str) -> None:
    """Which of my entries a query finds must not depend on what other users stored."""
    config = load_config(
        environ={},
        home=tmp_path,
        keyword={"common_term_cutoff": 2},
        embedding={"provider": "none"},
    )
    location = tmp_path / "vault.db" if backend == "sqlite" else postgres_database()
    with Vault(config=config, store=open_store(location)) as vault:
        mine = vault.add("zebra crossing", user_id="alice")
        for i in range(3):
            vault.add(f"zebra number {i}", user_id="bob")
        before = [h.entry.id for h in vault.search("zebra mango", user_id="alice")]
        assert before == [mine.id]

        vault.add("mango season", user_id="bob")  # a word alice never used
        after = [h.entry.id for h in vault.search("zebra mango", user_id="alice")]

    assert after == before
