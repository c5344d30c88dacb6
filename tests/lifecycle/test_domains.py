"""Work and life kept apart (issue 16 item 6) and filters everywhere (item 9, in part):
the rule set that names a write's domain, domain-scoped recall, and the sensitivity and
decision-status filters of search, list and count."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault import DecisionStatus, Domain, Sensitivity, Vault, VaultConfig
from memvault.errors import ValidationError
from memvault.lifecycle.domains import (
    LIFE_WORDS,
    LIFE_ZH,
    WORK_WORDS,
    WORK_ZH,
    _pattern,
    classify,
    marks,
)
from tests.cli_process import run_cli
from tests.gateway_server import live_gateway


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The client meeting moved to Thursday; the deadline stays", Domain.WORK),
        ("Mia's birthday dinner with the family is on Saturday", Domain.LIFE),
        ("下周一和客户开会，讨论上线排期", Domain.WORK),
        ("周末带孩子去爬山，顺便给妈妈过生日", Domain.LIFE),
        ("Alice prefers tea", None),  # no mark: unclassified
        ("the project party with friends", None),  # one mark each: a tie
        ("a category of concatenated strings", None),  # "cat" only as a whole word
        ("Work trip: the conference, then a weekend with my sister", Domain.LIFE),
    ],
)
def test_the_rule_set(text: str, expected: Domain | None) -> None:
    assert classify(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        "The CLIENT Meeting; on-call ON-CALL, Sprint-Review",
        "ΣMEETING Meeting΄ and a meetings",
        "the ſprint deadline and the ſtandup",  # long s: a case twin of "s"
        "one \u212aPI review",  # Kelvin sign: a case twin of "k"
        "\u0130nterview İNTERVIEW interview",  # dotted capital I lowers to two characters
        "Mom's Birthday, DAD and the dog_walk, Dog.",
    ],
)
def test_words_are_found_as_a_case_insensitive_regex_finds_them(text: str) -> None:
    # The words are matched in the lower-cased text (faster) except where lower()
    # would not map one character to one: the same words either way.
    found = marks(text)
    for domain, words in ((Domain.WORK, WORK_WORDS), (Domain.LIFE, LIFE_WORDS)):
        expected = {m.group(1).lower() for m in _pattern(tuple(words)).finditer(text)}
        assert found[domain] == expected


def test_a_write_without_a_domain_is_classified_and_an_explicit_one_kept(vault: Vault) -> None:
    work = vault.add("Prepare the quarterly budget for the client", user_id="alice")
    life = vault.add("Book the dentist for the kids", user_id="alice")
    plain = vault.add("Alice prefers tea", user_id="alice")
    named = vault.add("Book the dentist for the kids", user_id="alice", domain="work")
    assert (work.domain, life.domain, plain.domain, named.domain) == (
        Domain.WORK,
        Domain.LIFE,
        None,
        Domain.WORK,
    )
    # An update of the text leaves the domain alone; naming one changes it.
    changed = vault.update(plain.id, user_id="alice", content="Alice's client meeting")
    assert changed.domain is None
    assert vault.update(plain.id, user_id="alice", domain="life").domain is Domain.LIFE


def test_classification_can_be_turned_off(tmp_path: Path, config: VaultConfig) -> None:
    cfg = config.model_copy(
        update={"domains": config.domains.model_copy(update={"classify": False})}
    )
    with Vault(tmp_path / "v.db", config=cfg) as vault:
        assert vault.add("the client meeting", user_id="alice").domain is None


_counter = itertools.count()
_MARKED = [*WORK_WORDS[:12], *LIFE_WORDS[:12], *WORK_ZH[:6], *LIFE_ZH[:6]]
_NEUTRAL = ["notes", "tuesday", "plan", "list", "blue", "idea", "计划", "记录"]
_word = st.sampled_from(_MARKED + _NEUTRAL)
_entry = st.tuples(
    st.lists(_word, min_size=1, max_size=6).map(" ".join),
    st.sampled_from([None, "work", "life"]),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    entries=st.lists(_entry, min_size=1, max_size=8), query=st.lists(_word, min_size=1, max_size=4)
)
def test_work_recall_never_returns_life_memories(
    vault: Vault, entries: list[tuple[str, str | None]], query: list[str]
) -> None:
    user = f"u{next(_counter)}"  # a fresh user per example: nothing carries over
    records = [{"content": text, "domain": domain} for text, domain in entries]
    stored = {e.id: e.domain for e in vault.add_many(records, user_id=user)}
    text = " ".join(query)
    for hit in vault.search(text, user_id=user, domain="work", limit=20):
        assert stored[hit.entry.id] is Domain.WORK
    for entry in vault.list(user_id=user, domain="work", limit=100):
        assert entry.domain is Domain.WORK
    # The prompt block of a work-scoped recall holds no life memory either.
    block = vault.context(text, user_id=user, domain="work", limit=20)
    work_texts = {e.content for e in vault.list(user_id=user, domain="work", limit=100)}
    for entry in vault.list(user_id=user, domain="life", limit=100):
        if entry.content not in work_texts:  # a work memory may say the same words
            assert f"\n{entry.content}\n" not in block
    assert vault.count(user_id=user, domain="life") == sum(
        d is Domain.LIFE for d in stored.values()
    )
    # Unscoped recall still finds both sides.
    every = {h.entry.id for h in vault.search(text, user_id=user, limit=20)}
    assert every <= set(stored)


def test_sensitivity_and_status_filters(vault: Vault) -> None:
    card = vault.add("my card is 4111 1111 1111 1111", user_id="alice")
    plain = vault.add("my favourite card game is bridge", user_id="alice")
    decided = vault.add("we use Postgres for the card service", user_id="alice")
    vault.update(decided.id, user_id="alice", status="adopted")
    assert card.sensitivity is not Sensitivity.NORMAL
    found = {h.entry.id for h in vault.search("card", user_id="alice", sensitivity="normal")}
    assert found == {plain.id, decided.id}
    assert [e.id for e in vault.list(user_id="alice", status="adopted")] == [decided.id]
    assert vault.count(user_id="alice", status=DecisionStatus.REJECTED) == 0
    assert vault.count(user_id="alice", sensitivity=card.sensitivity) == 1
    with pytest.raises(ValidationError) as err:
        vault.search("card", user_id="alice", status="maybe")
    assert err.value.context["field"] == "status"


def test_http_and_cli_filters(config: VaultConfig, tmp_path: Path) -> None:
    with live_gateway(config) as live:
        alice = live.client(live.alice)
        work = alice.post("/v1/memories", json={"content": "the client meeting notes"}).json()
        alice.post("/v1/memories", json={"content": "notes from the family dinner"})
        assert work["domain"] == "work"
        found = alice.post("/v1/memories/search", json={"query": "notes", "domain": "work"})
        assert [r["entry"]["id"] for r in found.json()["results"]] == [work["id"]]
        listed = alice.get("/v1/memories", params={"sensitivity": "normal", "domain": "life"})
        assert listed.json()["total"] == 1
        bad = alice.get("/v1/memories", params={"status": "maybe"})
        assert bad.status_code == 422
    home = tmp_path / "cli"
    run_cli(home, "add", "the client meeting notes", "--user", "alice")
    run_cli(home, "add", "notes from the family dinner", "--user", "alice")
    out = run_cli(home, "search", "notes", "--user", "alice", "--domain", "life", "--json")
    assert out.returncode == 0, out.stderr
    assert [h["entry"]["content"] for h in json.loads(out.stdout)] == [
        "notes from the family dinner"
    ]
    wrong = run_cli(home, "list", "--user", "alice", "--tier", "frozen")
    assert wrong.returncode == 2 and "--tier" in wrong.stderr
