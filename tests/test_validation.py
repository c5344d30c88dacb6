"""Bad input raises its specific error and leaves the vault exactly as it was."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault import (
    ConflictError,
    ImportFormatError,
    MemvaultError,
    NotFoundError,
    ValidationError,
    Vault,
    VaultConfig,
    load_config,
)

USERS = ("alice", "bob")
Snapshot = dict[str, tuple[int, list[dict[str, Any]]]]


def snapshot(vault: Vault) -> Snapshot:
    return {u: (vault.count(user_id=u), list(vault.export(user_id=u))) for u in USERS}


@pytest.fixture
def seeded(vault: Vault) -> Iterator[Vault]:
    """A vault with a few entries for two users; asserts on exit that nothing changed."""
    vault.add("Alice likes green tea", user_id="alice", id="a-1")
    vault.add("Alice's agent notes", user_id="alice", agent_id="a1", id="a-2")
    vault.add("Bob likes black coffee", user_id="bob", id="b-1")
    before = snapshot(vault)
    yield vault
    assert snapshot(vault) == before


def alice_add(**kwargs: Any) -> Callable[[Vault], object]:
    args = {"content": "valid content", "user_id": "alice", **kwargs}
    return lambda v: v.add(**args)


class Unserialisable:
    pass


BAD_ADDS = [
    pytest.param(alice_add(content=""), id="empty-content"),
    pytest.param(alice_add(content=" \t\n "), id="whitespace-content"),
    pytest.param(alice_add(content=None), id="content-none"),
    pytest.param(alice_add(content=b"bytes"), id="content-bytes"),
    pytest.param(alice_add(content="a\x00b"), id="content-nul"),
    pytest.param(alice_add(content="x" * (1 << 20)), id="content-1MiB"),
    pytest.param(alice_add(user_id="../x"), id="user-dotdot-slash"),
    pytest.param(alice_add(user_id="a/b"), id="user-slash"),
    pytest.param(alice_add(user_id="a..b"), id="user-double-dot"),
    pytest.param(alice_add(user_id=""), id="user-empty"),
    pytest.param(alice_add(user_id=None), id="user-none"),
    pytest.param(alice_add(user_id="x" * 129), id="user-too-long"),
    pytest.param(alice_add(agent_id="a b"), id="agent-space"),
    pytest.param(alice_add(metadata={"x": Unserialisable()}), id="metadata-object"),
    pytest.param(alice_add(metadata={"x": {1, 2}}), id="metadata-set"),
    pytest.param(alice_add(metadata={"x": float("nan")}), id="metadata-nan"),
    pytest.param(alice_add(metadata=["a", "b"]), id="metadata-list"),
    pytest.param(alice_add(metadata="tags"), id="metadata-str"),
    pytest.param(alice_add(kind="opinion"), id="unknown-kind"),
    pytest.param(alice_add(domain="hobby"), id="unknown-domain"),
    pytest.param(alice_add(importance=1.5), id="importance-1.5"),
    pytest.param(alice_add(importance=-0.1), id="importance-negative"),
    pytest.param(alice_add(importance=float("nan")), id="importance-nan"),
    pytest.param(alice_add(importance="high"), id="importance-str"),
    pytest.param(alice_add(importance=True), id="importance-bool"),
    pytest.param(alice_add(confidence=2), id="confidence-2"),
    pytest.param(alice_add(name="n" * 256), id="name-too-long"),
    pytest.param(alice_add(expires_at="next tuesday"), id="expires-not-iso"),
    pytest.param(alice_add(id="../etc/passwd"), id="malformed-id"),
]


@pytest.mark.parametrize("call", BAD_ADDS)
def test_bad_add_raises_validation_error_and_changes_nothing(
    seeded: Vault, call: Callable[[Vault], object]
) -> None:
    with pytest.raises(ValidationError) as info:
        call(seeded)
    assert info.value.message  # says what to send instead


def test_content_size_limit_is_in_utf8_bytes_and_configurable(
    config: VaultConfig, tmp_path: Path
) -> None:
    small = load_config(
        environ={}, home=config.home, embedding=config.embedding, max_content_bytes=100
    )
    with Vault(tmp_path / "small.db", config=small) as vault:
        vault.add("k" * 100, user_id="alice")
        before = snapshot(vault)
        for content in ("k" * 101, "数" * 34):  # 34 CJK characters are 102 bytes
            with pytest.raises(ValidationError, match="100"):
                vault.add(content, user_id="alice")
        e = vault.add("数" * 33, user_id="alice")  # 99 bytes
        with pytest.raises(ValidationError):
            vault.update(e.id, user_id="alice", content="k" * 101)
        assert vault.get(e.id, user_id="alice").content == "数" * 33
        assert vault.count(user_id="alice") == before["alice"][0] + 1


# -- update / get / delete ---------------------------------------------------------


BAD_MANAGEMENT = [
    pytest.param(lambda v: v.get("no-such-id", user_id="alice"), NotFoundError, id="get-unknown"),
    pytest.param(
        lambda v: v.update("no-such-id", user_id="alice", content="x"),
        NotFoundError,
        id="update-unknown",
    ),
    pytest.param(
        lambda v: v.delete("no-such-id", user_id="alice"), NotFoundError, id="delete-unknown"
    ),
    pytest.param(lambda v: v.get("b-1", user_id="alice"), NotFoundError, id="get-other-users"),
    pytest.param(
        lambda v: v.update("b-1", user_id="alice", content="x"),
        NotFoundError,
        id="update-other-users",
    ),
    pytest.param(
        lambda v: v.delete("b-1", user_id="alice"), NotFoundError, id="delete-other-users"
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="alice"), ValidationError, id="update-no-fields"
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="alice", content="  "),
        ValidationError,
        id="update-empty-content",
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="alice", name="ok", kind="opinion"),
        ValidationError,
        id="update-unknown-kind",
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="alice", importance=1.5),
        ValidationError,
        id="update-importance-1.5",
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="alice", metadata=[1]),
        ValidationError,
        id="update-metadata-list",
    ),
    pytest.param(
        lambda v: v.update("a-1", user_id="../x", content="x"),
        ValidationError,
        id="update-bad-user",
    ),
    pytest.param(lambda v: v.get("a/1", user_id="alice"), ValidationError, id="get-malformed-id"),
    pytest.param(lambda v: v.list(user_id="a..b"), ValidationError, id="list-bad-user"),
    pytest.param(
        lambda v: v.count(user_id="alice", tier="hot"), ValidationError, id="count-bad-tier"
    ),
    pytest.param(lambda v: list(v.export(user_id="a/b")), ValidationError, id="export-bad-user"),
]


@pytest.mark.parametrize(("call", "error"), BAD_MANAGEMENT)
def test_bad_management_call_raises_its_error_and_changes_nothing(
    seeded: Vault, call: Callable[[Vault], object], error: type[MemvaultError]
) -> None:
    with pytest.raises(error):
        call(seeded)


# -- import ------------------------------------------------------------------------


def good_line(content: str, **fields: Any) -> str:
    return json.dumps({"content": content, **fields})


BAD_IMPORTS = [
    pytest.param(
        [good_line("first"), '{"content": "second", ', good_line("third")], id="broken-json"
    ),
    pytest.param([good_line("first"), "[1, 2]"], id="not-an-object"),
    pytest.param([good_line("first"), good_line("second", colour="red")], id="unknown-field"),
    pytest.param([good_line("first"), good_line("second", kind="opinion")], id="unknown-kind"),
    pytest.param([good_line("first"), good_line("   ")], id="empty-content"),
    pytest.param([good_line("first"), good_line("second", importance=1.5)], id="importance"),
    pytest.param([good_line("first", id="dup"), good_line("second", id="dup")], id="repeated-id"),
    pytest.param([good_line("first"), good_line("x", created_at="yesterday")], id="bad-time"),
]


@pytest.mark.parametrize("lines", BAD_IMPORTS)
def test_malformed_import_raises_and_imports_nothing(seeded: Vault, lines: list[str]) -> None:
    with pytest.raises(ImportFormatError) as info:
        seeded.import_(lines, user_id="alice")
    assert info.value.context["line"] == 2
    assert "nothing was imported" in info.value.message


def test_import_of_an_existing_id_is_a_conflict_and_imports_nothing(seeded: Vault) -> None:
    lines = [good_line("brand new", id="new-1"), good_line("clash", id="a-1")]
    with pytest.raises(ConflictError, match="a-1"):
        seeded.import_(lines, user_id="alice")


def test_import_with_skip_adds_only_the_new_ids(vault: Vault) -> None:
    vault.add("Alice likes green tea", user_id="alice", id="a-1")
    original = vault.get("a-1", user_id="alice")
    lines = [good_line("brand new", id="new-1"), good_line("replacement", id="a-1")]

    imported = vault.import_(lines, user_id="alice", on_conflict="skip")

    assert [e.id for e in imported] == ["new-1"]
    assert vault.get("a-1", user_id="alice") == original
    assert vault.count(user_id="alice") == 2


def test_import_rejects_an_unknown_conflict_policy(seeded: Vault) -> None:
    with pytest.raises(ValidationError):
        seeded.import_([good_line("x")], user_id="alice", on_conflict="overwrite")  # type: ignore[arg-type]


# -- queries -----------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", " ", "\t\n", "\u3000"])
def test_empty_query_is_a_validation_error(seeded: Vault, query: str) -> None:
    with pytest.raises(ValidationError):
        seeded.search(query, user_id="alice")


def test_non_string_query_is_a_validation_error(seeded: Vault) -> None:
    with pytest.raises(ValidationError):
        seeded.search(None, user_id="alice")  # type: ignore[arg-type]


ODD_QUERIES = [
    "?!.,;:-",
    "🙂🚀🔥",
    '"AND OR NEAR(',
    "*",
    "col:",
    "^",
    "content:tea",
    "tea*",
    'tea" OR "coffee',
    "NOT tea",
    "(tea",
    "{head body} : tea",
    "a" * 10_000,
    "tea " * 2_500,
    "数" * 10_000,
    "x" * (70 * 1024),  # over max_query_bytes
    "\x00",
    "'; DROP TABLE memories; --",
]


@pytest.mark.parametrize("query", ODD_QUERIES, ids=range(len(ODD_QUERIES)))
def test_odd_queries_return_a_list_or_raise_validation_error(seeded: Vault, query: str) -> None:
    try:
        hits = seeded.search(query, user_id="alice")
    except ValidationError:
        return
    assert isinstance(hits, list)
    assert all(h.entry.user_id == "alice" and h.entry.agent_id is None for h in hits)


def test_search_rejects_bad_limits_and_filters(seeded: Vault) -> None:
    for kwargs in ({"limit": 0}, {"limit": 1001}, {"kind": "opinion"}, {"agent_id": "a/b"}):
        with pytest.raises(ValidationError):
            seeded.search("tea", user_id="alice", **kwargs)  # type: ignore[arg-type]


# Search does not write, so one seeded vault can serve every generated example.
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query=st.text())
def test_any_text_query_returns_hits_or_raises_validation_error(seeded: Vault, query: str) -> None:
    try:
        hits = seeded.search(query, user_id="alice")
    except ValidationError:
        assert not query.strip()
        return
    assert all(h.entry.user_id == "alice" for h in hits)


# -- known gaps: input that escapes validation -------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(alice_add(content="tea \ud800"), id="content"),
        pytest.param(alice_add(metadata={"tags": "\udc00"}), id="metadata"),
    ],
)
def test_lone_surrogates_are_a_validation_error(
    seeded: Vault, call: Callable[[Vault], object]
) -> None:
    with pytest.raises(ValidationError):
        call(seeded)


def test_lone_surrogate_in_name_is_a_validation_error(vault: Vault) -> None:
    with pytest.raises(ValidationError):
        vault.add("valid content", user_id="alice", name="\ud800")
    assert vault.count(user_id="alice") == 0


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:30:00-01:00"])
def test_times_out_of_range_in_utc_are_a_validation_error(seeded: Vault, when: str) -> None:
    with pytest.raises(ValidationError):
        seeded.add("valid content", user_id="alice", expires_at=when)


def test_a_time_before_year_1000_round_trips_or_is_rejected(seeded: Vault) -> None:
    record = {"content": "an old memory", "id": "old-1", "created_at": "0999-06-01T00:00:00+00:00"}
    try:
        seeded.import_([record], user_id="carol")
    except ValidationError:
        return
    exported = list(seeded.export(user_id="carol"))
    assert [(d["id"], d["created_at"]) for d in exported] == [
        ("old-1", "0999-06-01T00:00:00+00:00")
    ]


# -- shape and range limits (issue 11 §4) ------------------------------------------


def nested(levels: int, leaf: object = "x") -> dict[str, Any]:
    """``{"a": {"a": ... leaf}}`` with ``levels`` objects."""
    value: Any = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


BAD_METADATA = [
    pytest.param(nested(33), id="depth-33"),
    pytest.param(nested(300), id="depth-300"),
    pytest.param(nested(5000), id="depth-5000"),
    pytest.param({"a": json.loads("[" * 32 + "]" * 32)}, id="lists"),
    pytest.param({f"k{i}": i for i in range(1001)}, id="1001-keys"),
    pytest.param({"k" * 257: 1}, id="long-key"),
    pytest.param({"note": "x" * (64 * 1024 + 1)}, id="long-string"),
    pytest.param({1: "one"}, id="int-key"),
    pytest.param({"n": 10**5000}, id="huge-int"),
]


@pytest.mark.parametrize("metadata", BAD_METADATA)
def test_metadata_shape_is_capped_on_every_write_path(
    seeded: Vault, metadata: dict[str, Any]
) -> None:
    with pytest.raises(ValidationError) as info:
        seeded.add("valid content", user_id="alice", metadata=metadata)
    assert info.value.context["field"] == "metadata"
    assert "metadata" in info.value.message
    with pytest.raises(ValidationError):
        seeded.add_many([{"content": "ok", "metadata": metadata}], user_id="alice")
    with pytest.raises(ValidationError):
        seeded.update("a-1", user_id="alice", metadata=metadata)
    with pytest.raises(ImportFormatError):
        seeded.import_([{"content": "ok", "metadata": metadata}], user_id="alice")


def test_metadata_within_the_limits_is_stored(vault: Vault) -> None:
    fine = {**nested(32), **{f"k{i}": i for i in range(960)}, "note": "x" * 1000}
    entry = vault.add("valid content", user_id="alice", metadata=fine)
    assert vault.get(entry.id, user_id="alice").metadata == fine


def test_a_metadata_cycle_is_a_validation_error(seeded: Vault) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(ValidationError):
        seeded.add("valid content", user_id="alice", metadata=loop)


def test_an_import_line_nested_too_deep_for_the_parser_is_a_format_error(seeded: Vault) -> None:
    for line in ("[" * 100_000 + "]" * 100_000, '{"content": "x", "n": 1' + "0" * 5000 + "}"):
        with pytest.raises(ImportFormatError):
            seeded.import_([good_line("first"), line], user_id="alice")


BEYOND_SQLITE = 2**63
RANGE_CALLS = [
    pytest.param(lambda v: v.list(user_id="alice", offset=10**30), id="list-offset"),
    pytest.param(lambda v: v.list(user_id="alice", offset=BEYOND_SQLITE), id="list-offset-2**63"),
    pytest.param(lambda v: v.audit_log(user_id="alice", after=10**30), id="audit-after"),
    pytest.param(lambda v: v.audit_log(user_id="alice", after=-1), id="audit-after-negative"),
    pytest.param(lambda v: v.audit_log(user_id="alice", after=True), id="audit-after-bool"),
    pytest.param(
        lambda v: v.import_([{"content": "x", "access_count": BEYOND_SQLITE}], user_id="alice"),
        id="import-access-count",
    ),
    pytest.param(
        lambda v: v.add_many([{"content": "x", "access_count": 10**30}], user_id="alice"),
        id="add-many-access-count",
    ),
    pytest.param(lambda v: v.add("x", user_id="alice", importance=10**400), id="importance-huge"),
    pytest.param(lambda v: v.update("a-1", user_id="alice", importance=-(10**400)), id="upd-imp"),
    pytest.param(lambda v: v.add_many(5, user_id="alice"), id="add-many-not-iterable"),
    pytest.param(lambda v: v.import_(None, user_id="alice"), id="import-none"),
    pytest.param(lambda v: v.delete_many("a-1", user_id="alice"), id="delete-many-a-string"),
]


@pytest.mark.parametrize("call", RANGE_CALLS)
def test_out_of_range_numbers_are_a_validation_error(
    seeded: Vault, call: Callable[[Vault], object]
) -> None:
    with pytest.raises(ValidationError):
        call(seeded)


def test_the_largest_sqlite_integer_is_still_a_valid_offset(seeded: Vault) -> None:
    assert seeded.list(user_id="alice", offset=2**63 - 1) == []
    assert seeded.audit_log(user_id="alice", after=2**63 - 1) == []


# -- opening a database file ------------------------------------------------------------


def test_an_existing_zero_length_database_is_refused_not_recreated(
    config: VaultConfig, tmp_path: Path
) -> None:
    from memvault import StoreError

    path = tmp_path / "emptied.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError) as info:
        Vault(path, config=config)
    assert "empty" in info.value.message and "delete it" in info.value.message
    assert path.stat().st_size == 0  # left as found, for whoever restores it


def test_a_new_database_file_and_a_reopened_one_still_open(
    config: VaultConfig, tmp_path: Path
) -> None:
    path = tmp_path / "new" / "fresh.db"
    with Vault(path, config=config) as vault:
        vault.add("kept", user_id="alice")
    with Vault(path, config=config) as vault:
        assert vault.count(user_id="alice") == 1


def test_a_database_under_a_file_is_a_store_error(config: VaultConfig, tmp_path: Path) -> None:
    from memvault import StoreError

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError):
        Vault(blocker / "sub" / "memvault.db", config=config)


def test_a_token_whose_header_nests_deeply_is_stored_or_refused(vault: Vault) -> None:
    import base64

    header = base64.urlsafe_b64encode(b'{"a":' + b"[" * 3000).decode().rstrip("=")
    token = f"{header}.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstu"
    try:
        vault.add(f"the token is {token}", user_id="alice")
    except ValidationError:
        return
    assert vault.count(user_id="alice") == 1


def test_a_database_emptied_after_this_process_created_it_is_refused_too(
    config: VaultConfig, tmp_path: Path
) -> None:
    from memvault import StoreError

    path = tmp_path / "mine.db"
    Vault(path, config=config).close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").write_bytes(b"")
    with pytest.raises(StoreError):
        Vault(path, config=config)
