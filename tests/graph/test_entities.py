"""The entity graph (issue 16 item 8): extraction on write, names deduplicated, the
graph channel in recall, scope and isolation, and the surfaces (Python, HTTP, CLI).

Store-level behaviour on every backend is in ``tests/stores/conformance/test_graph.py``;
here vaults run on the ``vault`` fixture's backends (SQLite file, memory)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault import NotFoundError, ValidationError, Vault, VaultConfig
from memvault.config import LLMConfig
from memvault.graph import extract_rules, parse_extraction
from memvault.names import candidate_keys, name_key, named_here
from tests.cli_process import run_cli
from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.gateway_server import Live


def found(text: str, **kw: object) -> dict[str, str]:
    return {m.name: m.type for m in extract_rules(text, **kw).mentions}  # type: ignore[arg-type]


# -- names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        "ClickHouse",
        "clickhouse",
        "ＣｌｉｃｋＨｏｕｓｅ",
        "  ClickHouse's ",
        "CLICKHOUSE",
        "“ClickHouse”",
    ],
)
def test_every_spelling_has_one_key(spelling: str) -> None:
    assert name_key(spelling) == "clickhouse"


def test_keys_collapse_whitespace_and_keep_cjk() -> None:
    assert name_key("New \t  York") == "new york"
    assert name_key("北京") == "北京"
    assert name_key("...") == ""


def test_candidate_keys_stay_inside_clauses() -> None:
    keys = candidate_keys("I met Ada Lovelace. London, then 北京大学")
    assert {"ada lovelace", "london", "北京", "北京大学"} <= set(keys)
    assert "lovelace london" not in keys  # a sentence end between them


def test_short_everyday_keys_count_only_when_capitalised() -> None:
    assert not named_here("go", "where did she go yesterday")
    assert named_here("go", "she writes Go services")
    assert named_here("caroline", "what did caroline paint")


# -- extraction ---------------------------------------------------------------------------


def test_english_capitalised_phrases_with_cues_for_types() -> None:
    got = found("Yesterday I met Dr. Smith at Bank of America in New York. We use Kubernetes.")
    assert got == {
        "Smith": "person",
        "Bank of America": "organisation",
        "New York": "unknown",
        "Kubernetes": "tool",
    }


def test_sentence_openers_are_not_entities_but_names_are() -> None:
    got = found("Honestly that was great. Thanks! Caroline loved it.")
    assert got == {"Caroline": "person"}  # "loved": something a person does
    assert "Monday" not in found("On Monday we met Priya.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Instructions and labels open sentences without naming anything (issue 33).
        ("Prefer short answers.", {}),
        ("Decision: use PostgreSQL for billing.", {"PostgreSQL": "tool"}),
        ("Use PostgreSQL for the billing service.", {"PostgreSQL": "tool"}),
        ("Note: the deploy window is Tuesday.", {}),
        ("Avoid jargon when talking to Sam.", {"Sam": "person"}),
        ("User: the zebra plan\nAssistant: sure", {}),
        ("Always answer in English.", {"English": "unknown"}),  # a language, not a place
    ],
)
def test_instructions_and_labels_are_not_entities(text: str, expected: dict[str, str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Alice moved to Lisbon last year and works at Google.",
            {"Alice": "person", "Lisbon": "place", "Google": "organisation"},
        ),
        (
            "My sister Emma visited Paris with her friend Tom.",
            {"Emma": "person", "Paris": "place", "Tom": "person"},
        ),
        ("The Zeus project ships on Friday.", {"Zeus": "project"}),
        ("Remember to call Bob on Monday.", {"Bob": "person"}),
        (
            "Bob's wife Linda joined Microsoft.",
            {"Bob": "person", "Linda": "person", "Microsoft": "organisation"},
        ),
        ("Jon Snow lives in Winterfell.", {"Jon Snow": "person", "Winterfell": "place"}),
    ],
)
def test_the_words_around_a_name_type_it(text: str, expected: dict[str, str]) -> None:
    assert found(text) == expected


def test_chinese_names_are_checked_against_their_form() -> None:
    got = found("王小明在北京的清华大学读书，喜欢喝乌龙茶")
    assert got["王小明"] == "person" and got["北京"] == "place"
    assert got["清华大学"] == "organisation"
    assert got.get("乌龙茶", "unknown") == "unknown"  # a tea, whatever jieba's tag says
    got = found("张伟下周去上海出差，见阿里巴巴的李娜。")
    assert got == {"张伟": "person", "上海": "place", "阿里巴巴": "organisation", "李娜": "person"}
    assert found("项目代号：星河，用 PostgreSQL 存储") == {"PostgreSQL": "tool", "星河": "project"}


def test_the_users_own_names_are_found_lower_cased() -> None:
    text = "then we asked melanie about the pottery class"
    assert found(text) == {}
    known = {"melanie": "e1", "pottery": "e2"}
    got = found(text, known=lambda keys: {k: known[k] for k in keys if k in known})
    assert set(got) == {"melanie", "pottery"}


def test_chinese_by_jieba_part_of_speech_tags() -> None:
    got = found("张三在北京的清华大学工作，他和李四一起做数据仓库项目。")
    assert got["张三"] == "person" and got["李四"] == "person"
    assert got["北京"] == "place"
    assert got["清华大学"] == "organisation"


def test_entities_of_one_entry_are_related() -> None:
    e = extract_rules("Alice and Bob moved to Lisbon.", people=["Alice"])
    assert [m.key for m in e.mentions] == ["alice", "bob", "lisbon"]
    assert {(r.source, r.target) for r in e.relations} == {
        ("alice", "bob"),
        ("alice", "lisbon"),
        ("bob", "lisbon"),
    }


def test_the_llm_answer_is_read_tolerantly() -> None:
    reply = (
        "Sure! Here it is:\n```json\n"
        '{"entities": [{"name": "Ada", "type": "Person"}, {"name": "Acme", "type": "company"},'
        ' "Zeus"], "relations": [{"from": "Ada", "to": "Acme", "relationType": "works at"},'
        ' {"source": "Ada", "target": "Nobody", "type": "x"}]}\n```'
    )
    e = parse_extraction(reply)
    assert [(m.name, m.type) for m in e.mentions] == [
        ("Ada", "person"),
        ("Acme", "organisation"),
        ("Zeus", "unknown"),
    ]
    assert [(r.source, r.target, r.type) for r in e.relations] == [("ada", "acme", "works_at")]
    assert parse_extraction("no json here") is None
    assert parse_extraction('{"entities": "nope"}') is None


# -- the vault ----------------------------------------------------------------------------


def test_writes_link_updates_relink_deletes_unlink(vault: Vault) -> None:
    a = vault.add("Alice joined Acme Corp in Berlin.", user_id="alice")
    vault.add("Acme Corp ships on Fridays.", user_id="alice")
    got = {e.name: (e.type, e.entries) for e in vault.entities(user_id="alice")}
    assert got == {
        "Acme Corp": ("organisation", 2),
        "Alice": ("person", 1),  # "joined": something a person does
        "Berlin": ("unknown", 1),
    }
    vault.update(a.id, user_id="alice", content="Alice left for Madrid.")
    got = {e.name: e.entries for e in vault.entities(user_id="alice")}
    assert got == {"Acme Corp": 1, "Alice": 1, "Madrid": 1}
    vault.delete(a.id, user_id="alice")
    assert [e.name for e in vault.entities(user_id="alice")] == ["Acme Corp"]
    with pytest.raises(NotFoundError):
        vault.entity("Madrid", user_id="alice")


def test_import_and_add_many_link_too(vault: Vault) -> None:
    vault.add_many([{"content": "Priya uses Terraform."}], user_id="alice")
    exported = list(vault.export(user_id="alice"))
    vault.import_(exported, user_id="bob")
    assert {e.name for e in vault.entities(user_id="bob")} == {"Priya", "Terraform"}


def test_entity_detail_aliases_and_merge(vault: Vault) -> None:
    a = vault.add("Caroline moved to NYC with Melanie.", user_id="alice")
    b = vault.add("Later Caroline visited New York again.", user_id="alice")
    detail = vault.entity("caroline", user_id="alice")
    assert detail.entity.name == "Caroline" and set(detail.entry_ids) == {a.id, b.id}
    assert {r.target for r in detail.relations} >= {"NYC", "Melanie"}
    assert {"NYC", "Melanie", "New York"} <= set(detail.to_dict()["neighbours"])
    merged = vault.merge_entities("NYC", "new york", user_id="alice")
    assert merged.entries == 2 and set(merged.aliases) == {"nyc", "new york"}
    aliased = vault.add_alias("Caroline", "Caro", user_id="alice")
    assert "caro" in aliased.aliases
    assert vault.entity("CARO", user_id="alice").entity.id == detail.entity.id
    with pytest.raises(ValidationError):
        vault.entity("   ", user_id="alice")


def test_agent_scope_and_user_isolation(vault: Vault) -> None:
    vault.add("Zeus is the shared project.", user_id="alice")
    vault.add("Hermes is helper's secret project.", user_id="alice", agent_id="helper")
    vault.add("Apollo belongs to Bob.", user_id="bob")
    assert {e.name for e in vault.entities(user_id="alice")} == {"Zeus", "Hermes"}
    assert {e.name for e in vault.entities(user_id="alice", agent_id="helper")} == {
        "Zeus",
        "Hermes",
    }
    assert {e.name for e in vault.entities(user_id="alice", agent_id="other")} == {"Zeus"}
    for user, name in (("alice", "Apollo"), ("bob", "Zeus")):
        with pytest.raises(NotFoundError) as caught:
            vault.entity(name, user_id=user)
        with pytest.raises(NotFoundError) as missing:
            vault.entity("Nobody At All", user_id=user)
        assert str(caught.value).replace(name, "X") == str(missing.value).replace(
            "Nobody At All", "X"
        )
    with pytest.raises(NotFoundError):
        vault.entity("Hermes", user_id="alice", agent_id="other")
    vault.erase_user(user_id="alice")
    assert vault.entities(user_id="alice") == []


def test_the_graph_channel_finds_linked_entries_and_one_hop_out(vault: Vault) -> None:
    direct = vault.add("Caroline started working on Project Helios.", user_id="alice")
    hop = vault.add("Project Helios ships its beta in spring.", user_id="alice")
    vault.add("The weather was nice all week.", user_id="alice")
    why = vault.explain("What is Caroline up to?", user_id="alice", limit=5)
    graph = {c.entry.id: c.channels["graph"] for c in why.candidates if "graph" in c.channels}
    assert list(graph) == [direct.id, hop.id]
    assert graph[direct.id].score > graph[hop.id].score > 0
    assert "graph" in why.channels
    hits = vault.search("What is Caroline up to?", user_id="alice")
    assert hits[0].entry.id == direct.id and "graph" in hits[0].sources
    assert hop.id in [h.entry.id for h in hits]  # no word in common with the query
    assert "graph" in why.format()


def test_the_graph_channel_honours_the_filter_and_scope(vault: Vault) -> None:
    vault.add("Caroline paints.", user_id="alice", kind="user")
    proj = vault.add("Caroline leads Project Helios.", user_id="alice", kind="project")
    vault.add("Caroline's diary.", user_id="alice", agent_id="diary")
    hits = vault.search("Caroline", user_id="alice", kind="project")
    assert [h.entry.id for h in hits] == [proj.id]
    seen = vault.explain("Caroline", user_id="alice", limit=10)
    assert all(c.entry.agent_id is None for c in seen.candidates)
    assert vault.search("caroline", user_id="bob") == []


def test_the_channel_can_be_turned_off(tmp_path: Path, config: VaultConfig) -> None:
    cfg = config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"graph_channel": False})}
    )
    with Vault(tmp_path / "off.db", config=cfg, embedder=None) as v:
        v.add("Caroline started working on Project Helios.", user_id="alice")
        assert "graph" not in v.explain("caroline", user_id="alice").channels
        assert [e.name for e in v.entities(user_id="alice")]  # extraction still runs


def test_with_an_llm_its_entities_and_relations_are_used(
    tmp_path: Path, config: VaultConfig
) -> None:
    answer = json.dumps(
        {
            "entities": [
                {"name": "Ada", "type": "person"},
                {"name": "the analytical engine", "type": "project"},
            ],
            "relations": [{"source": "Ada", "target": "the analytical engine", "type": "works_on"}],
        }
    )
    with FakeChatServer([Reply.text(answer), Reply.text("not json at all")]) as llm:
        cfg = config.model_copy(
            update={
                "llm": LLMConfig(base_url=llm.base_url, api_key="test", model="tiny"),
                "graph": config.graph.model_copy(update={"llm": True}),
            }
        )
        with Vault(tmp_path / "llm.db", config=cfg, embedder=None) as v:
            v.add("ada spent the winter on the analytical engine", user_id="alice")
            detail = v.entity("the analytical engine", user_id="alice")
            assert detail.entity.type == "project"
            assert [(r.source, r.type) for r in detail.relations] == [("Ada", "works_on")]
            # An unreadable answer: the rules alone, and the write goes through.
            v.add("Then Grace joined.", user_id="alice")
            assert v.entity("grace", user_id="alice").entity.name == "Grace"
        sent = llm.requests[0]["messages"]
        assert sent[0]["role"] == "system" and "ada spent the winter" in sent[1]["content"]
        assert len(llm.requests) == 2


def test_an_llm_configured_for_other_things_is_not_asked_by_default(
    tmp_path: Path, config: VaultConfig
) -> None:
    with FakeChatServer([]) as llm:
        cfg = config.model_copy(
            update={"llm": LLMConfig(base_url=llm.base_url, api_key="test", model="tiny")}
        )
        with Vault(tmp_path / "quiet.db", config=cfg, embedder=None) as v:
            v.add("Caroline paints.", user_id="alice")
            assert v.entity("Caroline", user_id="alice").entity.name == "Caroline"
        assert llm.requests == []


# -- HTTP and CLI -------------------------------------------------------------------------


def test_entities_over_http_and_404_across_users(live: Live) -> None:
    with live.client(live.alice) as alice, live.client(live.bob) as bob:
        r = alice.post("/v1/memories", json={"content": "Caroline joined Project Helios."})
        entry_id = r.json()["id"]
        bob.post("/v1/memories", json={"content": "Bob's Project Zeus."})
        listed = alice.get("/v1/entities").json()
        assert {i["name"] for i in listed["items"]} == {"Caroline", "Project Helios"}
        assert (
            alice.get("/v1/entities", params={"prefix": "proj"}).json()["items"][0]["name"]
            == "Project Helios"
        )
        one = alice.get("/v1/entities/caroline")
        assert one.status_code == 200, one.text
        body = one.json()
        assert body["entry_ids"] == [entry_id] and body["neighbours"] == ["Project Helios"]
        theirs = bob.get("/v1/entities/caroline")
        nobody = bob.get("/v1/entities/nobody-at-all")
        assert theirs.status_code == nobody.status_code == 404
        assert bob.get("/v1/entities", params={"user_id": "alice"}).status_code == 404
        assert {i["name"] for i in bob.get("/v1/entities").json()["items"]} == {
            "Bob",
            "Project Zeus",
        }


def test_entities_on_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert (
        run_cli(home, "add", "--user", "alice", "Caroline joined Project Helios.").returncode == 0
    )
    listed = run_cli(home, "entities", "list", "--user", "alice", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {e["name"] for e in json.loads(listed.stdout)} == {"Caroline", "Project Helios"}
    shown = run_cli(home, "entities", "show", "CAROLINE", "--user", "alice")
    assert shown.returncode == 0 and "Project Helios" in shown.stdout
    missing = run_cli(home, "entities", "show", "Caroline", "--user", "bob")
    assert missing.returncode == 2 and "no entity named" in missing.stderr


def test_migrate_store_copies_the_graph(tmp_path: Path, config: VaultConfig) -> None:
    from memvault.engine.migrate import migrate_store
    from memvault.stores import open_store

    with Vault(tmp_path / "src.db", config=config, embedder=None) as v:
        v.add("Caroline moved to NYC with Melanie.", user_id="alice")
        v.add("Caroline loves New York.", user_id="alice")
        v.merge_entities("NYC", "New York", user_id="alice")
        v.add_alias("Caroline", "Caro", user_id="alice")
        before = [(e.name, e.type, e.entries, e.aliases) for e in v.entities(user_id="alice")]
    source, target = open_store(str(tmp_path / "src.db")), open_store("memory://")
    try:
        migrate_store(source, target)
        with Vault(store=target, config=config, embedder=None) as moved:
            after = [
                (e.name, e.type, e.entries, e.aliases) for e in moved.entities(user_id="alice")
            ]
            assert after == before
            rel = moved.entity("caro", user_id="alice").relations
            assert {r.target for r in rel} == {"NYC", "Melanie"}
    finally:
        source.close()


def test_a_lower_case_query_word_names_only_typed_or_longer_entities(vault: Vault) -> None:
    vault.add("Research takes time.", user_id="alice")  # "Research": an unknown-typed name
    tool = vault.add("We deploy with Kubernetes.", user_id="alice")  # a tool
    place = vault.add("They moved to New Zealand.", user_id="alice")
    for query, expected in (
        ("research", []),
        ("Research", ["research"]),
        ("kubernetes", [tool.id]),
        ("new zealand", [place.id]),
    ):
        why = vault.explain(query, user_id="alice", limit=5)
        got = [c.entry.id for c in why.candidates if "graph" in c.channels]
        if expected == ["research"]:
            assert len(got) == 1 and got[0] not in (tool.id, place.id)
        else:
            assert got == expected, query
