"""Layered memory config: defaults < config.yaml < global overrides < per-user overrides."""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.agent.config import (
    GLOBAL_OVERRIDES_FILE,
    LEAF_FIELDS,
    USER_WRITABLE_FIELDS,
    MemoryConfig,
    MemoryConfigStore,
)
from memvault.config import expand_env
from memvault.errors import ConfigError, MemvaultError, ValidationError

ENV = {"HINDSIGHT_API_KEY": "hs-secret-key-0123456789", "HS_HOST": "hindsight.internal"}

CONFIG_YAML = """\
server:
  port: 8001          # another application's section, ignored
memory:
  provider: hindsight
  builtin:
    memory_char_limit: 3000
  hindsight:
    api_url: http://${HS_HOST}:8765
    api_key: $HINDSIGHT_API_KEY
    recall_budget: high
    memory_mode: tools
  injection:
    max_tokens: 1500
"""


def write_yaml(tmp_path: Path, text: str = CONFIG_YAML) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> MemoryConfigStore:
    base = tmp_path / "data"
    return MemoryConfigStore(base, yaml_path=write_yaml(tmp_path), environ=ENV)


def user_file(store: MemoryConfigStore, user_id: str) -> Path:
    return store.base_dir / "users" / user_id / "memory_config.json"


# --- layering and sources -------------------------------------------------------------


def test_defaults_only(tmp_path: Path) -> None:
    effective = MemoryConfigStore(tmp_path, environ={}).get_effective_memory_config("alice")
    assert effective.config == MemoryConfig()
    assert effective.config.hindsight.recall_budget == "mid"
    assert effective.config.builtin.memory_char_limit == 2200
    assert effective.config.hindsight.api_key is None
    assert set(effective.sources) == set(LEAF_FIELDS)
    assert set(effective.sources.values()) == {"default"}


def test_yaml_overrides_defaults_and_reports_yaml(store: MemoryConfigStore) -> None:
    effective = store.get_effective_memory_config("alice")
    assert effective.config.builtin.memory_char_limit == 3000
    assert effective.config.hindsight.recall_budget == "high"
    assert effective.config.injection.max_tokens == 1500
    assert effective.sources["builtin.memory_char_limit"] == "yaml"
    assert effective.sources["hindsight.recall_budget"] == "yaml"
    # set in YAML to its default value: still reported as coming from the YAML
    assert effective.sources["provider"] == "yaml"
    assert effective.sources["builtin.user_char_limit"] == "default"
    assert effective.config.builtin.user_char_limit == 1375


def test_global_overrides_win_over_yaml(store: MemoryConfigStore) -> None:
    store.set_global_override("hindsight.recall_budget", "low")
    effective = store.get_effective_memory_config("alice")
    assert effective.config.hindsight.recall_budget == "low"
    assert effective.sources["hindsight.recall_budget"] == "global"
    assert effective.sources["injection.max_tokens"] == "yaml"
    on_disk = json.loads((store.base_dir / GLOBAL_OVERRIDES_FILE).read_text())
    assert on_disk == {"hindsight": {"recall_budget": "low"}}


def test_user_overrides_win_over_global_for_that_user_only(store: MemoryConfigStore) -> None:
    store.set_global_override("hindsight.recall_budget", "low")
    store.set_global_override("injection.enabled", False)
    returned = store.set_user_override("alice", "hindsight.recall_budget", "mid")

    alice = store.get_effective_memory_config("alice")
    assert returned == alice
    assert alice.config.hindsight.recall_budget == "mid"
    assert alice.sources["hindsight.recall_budget"] == "user"
    assert alice.config.injection.enabled is False
    assert alice.sources["injection.enabled"] == "global"

    bob = store.get_effective_memory_config("bob")
    assert bob.config.hindsight.recall_budget == "low"
    assert bob.sources["hindsight.recall_budget"] == "global"
    assert json.loads(user_file(store, "alice").read_text()) == {
        "hindsight": {"recall_budget": "mid"}
    }


def test_every_layer_reported_per_field(store: MemoryConfigStore) -> None:
    store.set_global_override("injection.include_builtin", False)
    store.set_user_override("alice", "injection.include_hindsight", False)
    sources = store.get_effective_memory_config("alice").sources
    assert sources["security.scan_content"] == "default"
    assert sources["hindsight.memory_mode"] == "yaml"
    assert sources["injection.include_builtin"] == "global"
    assert sources["injection.include_hindsight"] == "user"


def test_to_dict_has_value_source_and_writability(store: MemoryConfigStore) -> None:
    store.set_user_override("alice", "injection.enabled", False)
    data = store.get_effective_memory_config("alice").to_dict()
    assert list(data) == list(LEAF_FIELDS)
    assert data["injection.enabled"] == {"value": False, "source": "user", "user_writable": True}
    assert data["hindsight.api_url"] == {
        "value": "http://hindsight.internal:8765",
        "source": "yaml",
        "user_writable": False,
    }
    json.dumps(data)  # ready for the HTTP gateway as is


def test_user_file_in_seed_format_is_read(store: MemoryConfigStore) -> None:
    path = user_file(store, "alice")
    path.parent.mkdir(parents=True)
    path.write_text('{"injection": {"enabled": false}, "hindsight": {"memory_mode": "hybrid"}}')
    effective = store.get_effective_memory_config("alice")
    assert effective.config.injection.enabled is False
    assert effective.config.hindsight.memory_mode == "hybrid"
    assert effective.sources["hindsight.memory_mode"] == "user"


# --- clearing -------------------------------------------------------------------------


def test_clear_user_override_falls_back_to_next_layer(store: MemoryConfigStore) -> None:
    store.set_global_override("hindsight.recall_budget", "low")
    store.set_user_override("alice", "hindsight.recall_budget", "mid")
    store.set_user_override("alice", "injection.max_tokens", 500)

    effective = store.clear_user_override("alice", "hindsight.recall_budget")
    assert effective.config.hindsight.recall_budget == "low"
    assert effective.sources["hindsight.recall_budget"] == "global"
    assert effective.sources["injection.max_tokens"] == "user"
    assert store.user_overrides("alice") == {"injection.max_tokens": 500}

    store.clear_global_override("hindsight.recall_budget")
    effective = store.get_effective_memory_config("alice")
    assert effective.config.hindsight.recall_budget == "high"
    assert effective.sources["hindsight.recall_budget"] == "yaml"


def test_clearing_an_unset_override_is_a_no_op(store: MemoryConfigStore) -> None:
    effective = store.clear_user_override("nobody", "injection.enabled")
    assert effective.sources["injection.enabled"] == "default"
    assert not user_file(store, "nobody").parent.exists()
    store.clear_global_override("injection.enabled")
    assert not (store.base_dir / GLOBAL_OVERRIDES_FILE).exists()


# --- whitelist ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    ["hindsight.api_key", "security.scan_content", "builtin.memory_char_limit", "provider"],
)
def test_non_writable_field_rejected_file_unchanged(store: MemoryConfigStore, field: str) -> None:
    store.set_user_override("alice", "injection.enabled", False)
    before = user_file(store, "alice").read_bytes()
    with pytest.raises(ValidationError) as excinfo:
        store.set_user_override("alice", field, "x")
    message = str(excinfo.value)
    assert field in message and "config.yaml" in message
    assert all(allowed in message for allowed in USER_WRITABLE_FIELDS)
    assert user_file(store, "alice").read_bytes() == before
    with pytest.raises(ValidationError):
        store.set_global_override(field, "x")
    assert not (store.base_dir / GLOBAL_OVERRIDES_FILE).exists()


def test_unknown_and_admin_fields_rejected(store: MemoryConfigStore) -> None:
    with pytest.raises(ValidationError, match="unknown setting"):
        store.set_user_override("alice", "hindsight.budget", "high")
    # the seed's extraction tuning keys exist, but only config.yaml sets them
    with pytest.raises(ValidationError, match=r"cannot be overridden at run time"):
        store.set_user_override("alice", "background_extraction.debounce_seconds", 5)
    with pytest.raises(ValidationError):
        store.clear_user_override("alice", "hindsight.api_url")
    assert not user_file(store, "alice").exists()


def test_non_writable_key_on_disk_is_an_error_not_dropped(store: MemoryConfigStore) -> None:
    path = user_file(store, "alice")
    path.parent.mkdir(parents=True)
    path.write_text('{"injection": {"enabled": false}, "hindsight": {"api_url": "http://evil"}}')
    with pytest.raises(ConfigError) as excinfo:
        store.get_effective_memory_config("alice")
    message = str(excinfo.value)
    assert str(path) in message and "hindsight.api_url" in message and "remove it" in message
    # a write to that file refuses too, rather than rewriting it without the bad key
    with pytest.raises(ConfigError):
        store.set_user_override("alice", "injection.max_tokens", 10)
    assert "evil" in path.read_text()


def test_non_writable_key_in_global_file_is_an_error(store: MemoryConfigStore) -> None:
    path = store.base_dir / GLOBAL_OVERRIDES_FILE
    path.parent.mkdir(parents=True)
    path.write_text('{"security": {"scan_content": false}}')
    with pytest.raises(ConfigError, match=r"security\.scan_content"):
        store.get_effective_memory_config("bob")


def test_admin_background_extraction_keys_in_a_user_file_are_an_error(
    store: MemoryConfigStore,
) -> None:
    path = user_file(store, "alice")
    path.parent.mkdir(parents=True)
    path.write_text('{"background_extraction": {"enabled": true, "model_name": "gpt"}}')
    with pytest.raises(ConfigError, match=r"background_extraction.model_name.*be overridden"):
        store.get_effective_memory_config("alice")


def test_background_extraction_is_a_user_switch_off_by_default(store: MemoryConfigStore) -> None:
    assert store.get_effective_memory_config("alice").config.background_extraction.enabled is False
    store.set_user_override("alice", "background_extraction.enabled", True)
    effective = store.get_effective_memory_config("alice")
    assert effective.config.background_extraction.enabled is True
    assert effective.sources["background_extraction.enabled"] == "user"
    assert store.get_effective_memory_config("bob").config.background_extraction.enabled is False


def test_dotted_keys_in_json_rejected(store: MemoryConfigStore) -> None:
    path = user_file(store, "alice")
    path.parent.mkdir(parents=True)
    path.write_text('{"injection.enabled": false}')
    with pytest.raises(ConfigError, match="nest settings"):
        store.get_effective_memory_config("alice")


# --- value validation -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("injection.max_tokens", "lots"),
        ("injection.max_tokens", "3000"),  # a JSON API sends numbers as numbers
        ("injection.max_tokens", 0),
        ("injection.max_tokens", True),
        ("injection.enabled", "yes"),
        ("injection.enabled", 1),
        ("hindsight.memory_mode", "verbose"),
        ("hindsight.recall_budget", None),
        ("hindsight.bank_mission", ["a", "list"]),
        ("hindsight.bank_mission", "x" * 5000),
    ],
)
def test_invalid_value_rejected_nothing_written(
    store: MemoryConfigStore, field: str, value: Any
) -> None:
    with pytest.raises(ValidationError) as excinfo:
        store.set_user_override("alice", field, value)
    assert field in str(excinfo.value)
    assert excinfo.value.context["field"] == field
    with pytest.raises(ValidationError):
        store.set_global_override(field, value)
    assert not user_file(store, "alice").exists()
    assert not (store.base_dir / GLOBAL_OVERRIDES_FILE).exists()


def test_invalid_value_on_disk_names_file_and_field(store: MemoryConfigStore) -> None:
    path = user_file(store, "alice")
    path.parent.mkdir(parents=True)
    path.write_text('{"injection": {"max_tokens": "many"}}')
    with pytest.raises(ConfigError) as excinfo:
        store.get_effective_memory_config("alice")
    assert str(path) in str(excinfo.value) and "injection.max_tokens" in str(excinfo.value)


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ('{"injection": {"enabled": false', "not valid JSON"),
        ('["injection"]', "JSON object"),
        ('{"injection": true}', "must be a mapping"),
    ],
)
def test_malformed_json_names_file(store: MemoryConfigStore, text: str, fix: str) -> None:
    path = store.base_dir / GLOBAL_OVERRIDES_FILE
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ConfigError) as excinfo:
        store.get_effective_memory_config("alice")
    assert str(path) in str(excinfo.value) and fix in str(excinfo.value)


def test_blank_overrides_file_is_empty(store: MemoryConfigStore) -> None:
    path = store.base_dir / GLOBAL_OVERRIDES_FILE
    path.parent.mkdir(parents=True)
    path.write_text("\n")
    assert store.get_effective_memory_config("alice").sources["injection.enabled"] == "default"


@pytest.mark.parametrize(
    ("yaml_text", "fix"),
    [
        ("memory:\n  enabled: [unclosed\n", "not valid YAML"),
        ("- just\n- a list\n", "YAML mapping"),
        ("memory: 3\n", "mapping of settings"),
        ("memory:\n  hindsight:\n    budget: high\n", "unknown setting 'hindsight.budget'"),
        ("memory:\n  injection:\n    max_tokens: lots\n", "injection.max_tokens"),
        ("memory:\n  hindsight:\n    api_url: localhost\n", "http://"),
        ("memory:\n  hindsight:\n    bank_id_template: shared-bank\n", "{user_id}"),
        ("memory:\n  background_extraction:\n    debounce_seconds: -5\n", "debounce_seconds"),
        ("memory:\n  security:\n    streaming_scrubber: maybe\n", "streaming_scrubber"),
    ],
)
def test_malformed_yaml_names_file(tmp_path: Path, yaml_text: str, fix: str) -> None:
    path = write_yaml(tmp_path, yaml_text)
    with pytest.raises(ConfigError) as excinfo:
        MemoryConfigStore(tmp_path, yaml_path=path, environ={})
    assert str(path) in str(excinfo.value) and fix in str(excinfo.value)


def test_missing_yaml_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        MemoryConfigStore(tmp_path, yaml_path=tmp_path / "nope.yaml")


def test_yaml_without_memory_section_gives_defaults(tmp_path: Path) -> None:
    path = write_yaml(tmp_path, "server:\n  port: 1\nmemory:\n  hindsight:\n")
    effective = MemoryConfigStore(tmp_path, yaml_path=path).get_effective_memory_config("a")
    assert set(effective.sources.values()) == {"default"}


# --- environment references -----------------------------------------------------------


def test_env_references_expanded_in_yaml(store: MemoryConfigStore) -> None:
    hindsight = store.get_effective_memory_config("alice").config.hindsight
    assert hindsight.api_key is not None
    assert hindsight.api_key.get_secret_value() == ENV["HINDSIGHT_API_KEY"]
    assert hindsight.api_url == "http://hindsight.internal:8765"


def test_unset_env_variable_is_a_clear_error(tmp_path: Path) -> None:
    path = write_yaml(tmp_path)
    with pytest.raises(ConfigError) as excinfo:
        MemoryConfigStore(tmp_path, yaml_path=path, environ={"HS_HOST": "h"})
    message = str(excinfo.value)
    assert "HINDSIGHT_API_KEY" in message and "not set" in message
    assert "hindsight.api_key" in message and str(path) in message


def test_empty_api_key_variable_means_no_key(tmp_path: Path) -> None:
    path = write_yaml(tmp_path)
    store = MemoryConfigStore(tmp_path, yaml_path=path, environ={**ENV, "HINDSIGHT_API_KEY": ""})
    assert store.get_effective_memory_config("a").config.hindsight.api_key is None


def test_env_not_expanded_in_user_overrides(store: MemoryConfigStore) -> None:
    # a user must not be able to read a server secret back through their own settings
    store.set_user_override("alice", "hindsight.bank_mission", "$HINDSIGHT_API_KEY")
    mission = store.get_effective_memory_config("alice").config.hindsight.bank_mission
    assert mission == "$HINDSIGHT_API_KEY"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$A", "1"),
        ("${A}", "1"),
        ("x-${A}-$B_2/y", "x-1-two/y"),
        ("$$A costs $5 and $", "$A costs $5 and $"),
        ("no references", "no references"),
    ],
)
def test_expand_env(text: str, expected: str) -> None:
    assert expand_env(text, {"A": "1", "B_2": "two"}) == expected


@pytest.mark.parametrize("text", ["$MISSING", "${MISSING}", "pre-${MISSING}-post"])
def test_expand_env_unset_variable(text: str) -> None:
    with pytest.raises(ConfigError, match=r"MISSING.*not set"):
        expand_env(text, {})


def test_expand_env_malformed_reference() -> None:
    with pytest.raises(ConfigError, match="malformed"):
        expand_env("${A", {"A": "1"})


# --- user ids, secrets ----------------------------------------------------------------


@pytest.mark.parametrize("user_id", ["../x", "..", "a/b", "", "/etc", ".hidden", "a..b"])
def test_bad_user_ids_rejected(store: MemoryConfigStore, user_id: str) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        store.set_user_override(user_id, "injection.enabled", False)
    with pytest.raises(ValidationError, match="user_id"):
        store.get_effective_memory_config(user_id)
    with pytest.raises(ValidationError, match="user_id"):
        store.clear_user_override(user_id, "injection.enabled")
    assert not store.base_dir.exists() or not any(store.base_dir.rglob("*.json"))


def test_secret_masked_in_to_dict(store: MemoryConfigStore) -> None:
    effective = store.get_effective_memory_config("alice")
    data = effective.to_dict()
    secret = ENV["HINDSIGHT_API_KEY"]
    assert data["hindsight.api_key"]["value"] == "***" + secret[-4:]
    assert secret not in json.dumps(data)
    assert secret not in repr(effective)


def test_short_secret_fully_masked(tmp_path: Path) -> None:
    path = write_yaml(tmp_path, "memory:\n  hindsight:\n    api_key: abc123\n")
    data = MemoryConfigStore(tmp_path, yaml_path=path).get_effective_memory_config("a").to_dict()
    assert data["hindsight.api_key"]["value"] == "***"


def test_unset_secret_is_none(tmp_path: Path) -> None:
    data = MemoryConfigStore(tmp_path).get_effective_memory_config("a").to_dict()
    assert data["hindsight.api_key"]["value"] is None


def test_errors_are_memvault_errors(store: MemoryConfigStore) -> None:
    with pytest.raises(MemvaultError):
        store.set_user_override("alice", "provider", "builtin")


# --- persistence ----------------------------------------------------------------------


def test_concurrent_writers_keep_every_key(store: MemoryConfigStore) -> None:
    values: dict[str, Any] = {
        "injection.enabled": False,
        "injection.max_tokens": 777,
        "injection.include_builtin": False,
        "injection.include_hindsight": False,
        "hindsight.memory_mode": "hybrid",
        "hindsight.recall_budget": "low",
        "hindsight.bank_mission": "be brief",
    }
    barrier = threading.Barrier(len(values) * 2)
    errors: list[BaseException] = []

    def write(field: str, value: Any, scope: str) -> None:
        try:
            barrier.wait()
            for _ in range(5):
                if scope == "user":
                    store.set_user_override("alice", field, value)
                else:
                    store.set_global_override(field, value)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(field, value, scope))
        for field, value in values.items()
        for scope in ("user", "global")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.user_overrides("alice") == values
    assert store.global_overrides() == values
    assert not list(store.base_dir.rglob("*.tmp"))


def _write_in_process(base: str, field: str, value: Any) -> None:
    MemoryConfigStore(Path(base)).set_user_override("alice", field, value)


def test_concurrent_processes_keep_every_key(tmp_path: Path) -> None:
    values = {
        "injection.max_tokens": 9,
        "hindsight.recall_budget": "low",
        "injection.enabled": False,
    }
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_write_in_process, args=(str(tmp_path), field, value))
        for field, value in values.items()
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert MemoryConfigStore(tmp_path).user_overrides("alice") == values


@settings(max_examples=40, deadline=None)
@given(
    max_tokens=st.integers(min_value=1, max_value=10**9),
    mission=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200),
    mode=st.sampled_from(["context", "tools", "hybrid"]),
)
def test_overrides_round_trip(max_tokens: int, mission: str, mode: str) -> None:
    with tempfile.TemporaryDirectory() as base:
        store = MemoryConfigStore(Path(base))
        store.set_user_override("u1", "injection.max_tokens", max_tokens)
        store.set_user_override("u1", "hindsight.bank_mission", mission)
        store.set_global_override("hindsight.memory_mode", mode)
        reopened = MemoryConfigStore(Path(base)).get_effective_memory_config("u1").config
        assert reopened.injection.max_tokens == max_tokens
        assert reopened.hindsight.bank_mission == mission
        assert reopened.hindsight.memory_mode == mode
