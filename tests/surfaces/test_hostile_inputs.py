"""Hostile values at every public entry point: only memvault's own errors come out.

Hypothesis drives the library's public methods (``Vault``, the LangGraph store, the
memory tools) and the ``memvault`` command with huge and negative integers, booleans
where numbers go, NaN and infinity, lone surrogates, NUL bytes, very long strings,
deep nesting and wrong types. The library may only raise ``MemvaultError``
subclasses; the tools answer JSON; the CLI exits 0, or 2 with exactly one line of
error and no traceback (issue 11 §4).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout, suppress
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memvault import MemvaultError, Vault, cli
from memvault.agent.providers.builtin import BuiltinFileProvider
from memvault.agent.tools.vault import VaultTools

EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class Deep:
    """A nested value, built only when used: Hypothesis cannot print a deep one."""

    def __init__(self, levels: int, *, as_list: bool = False) -> None:
        self.levels = levels
        self.as_list = as_list

    def __repr__(self) -> str:
        return f"Deep({self.levels}, as_list={self.as_list})"

    def build(self) -> Any:
        value: Any = [] if self.as_list else 1
        for _ in range(self.levels):
            value = [value] if self.as_list else {"k": value}
        return value


def as_json(value: Any) -> str:
    """``value`` as JSON text, or JSON too deep for any parser when it cannot be dumped."""
    try:
        return json.dumps(built(value), default=repr)
    except (RecursionError, ValueError):
        return "[" * 5000


def built(value: Any) -> Any:
    """``value`` with every ``Deep`` in it (a shallow structure of ours) built."""
    if isinstance(value, Deep):
        return value.build()
    if isinstance(value, dict):
        return {k: built(v) for k, v in value.items()}
    if isinstance(value, list):
        return [built(v) for v in value]
    return value


class Opaque:
    """An object no layer knows how to store."""


HUGE_INTS = [2**63, 2**63 - 1, -(2**63) - 1, 10**30, 10**400, -1, 0, -(10**30)]
HOSTILE: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(HUGE_INTS),
    st.integers(),
    st.floats(),  # NaN and the infinities included
    st.text(max_size=20),
    st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3),  # lone surrogates
    st.sampled_from(["a\x00b", "\x00", "", "  ", "../../etc/passwd"]),
    st.integers(65_000, 300_000).map(lambda n: "x" * n),
    st.integers(30, 3000).map(Deep),
    st.integers(30, 3000).map(lambda n: Deep(n, as_list=True)),
    st.binary(max_size=8),
    st.sampled_from([Opaque(), (1, 2), {1, 2}, ["a", "b"], {"k": "v"}, 1.5j, float("nan")]),
    st.dictionaries(st.text(max_size=4), st.integers() | st.floats() | st.text(max_size=4)),
)


def maybe(valid: Any) -> st.SearchStrategy[Any]:
    """Mostly ``valid``, sometimes a hostile value in its place."""
    return st.one_of(st.just(valid), HOSTILE)


def record() -> st.SearchStrategy[Any]:
    fields = st.fixed_dictionaries(
        {"content": maybe("a remembered fact")},
        optional={
            "importance": HOSTILE,
            "confidence": HOSTILE,
            "access_count": HOSTILE,
            "created_at": HOSTILE,
            "expires_at": HOSTILE,
            "metadata": HOSTILE,
            "name": HOSTILE,
            "kind": HOSTILE,
            "id": HOSTILE,
        },
    )
    return st.one_of(fields, HOSTILE)


def line() -> st.SearchStrategy[Any]:
    """An import line: a record as JSON, raw hostile text, or a non-string."""
    return st.one_of(record().map(as_json), st.text(max_size=30), st.just("[" * 50_000), HOSTILE)


# method name -> strategy for its keyword arguments (the first one may be positional)
CALLS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "add": st.fixed_dictionaries(
        {"content": maybe("tea with lemon"), "user_id": maybe("alice")},
        optional={
            name: HOSTILE
            for name in (
                "agent_id",
                "kind",
                "name",
                "description",
                "metadata",
                "session_id",
                "workspace_id",
                "mem_class",
                "domain",
                "category",
                "confidence",
                "importance",
                "status",
                "expires_at",
                "source",
                "id",
            )
        },
    ),
    "add_many": st.fixed_dictionaries(
        {"records": st.one_of(st.lists(record(), max_size=3), HOSTILE), "user_id": maybe("alice")}
    ),
    "update": st.fixed_dictionaries(
        {"entry_id": maybe("known-1"), "user_id": maybe("alice")},
        optional={
            name: HOSTILE
            for name in (
                "content",
                "name",
                "description",
                "kind",
                "metadata",
                "domain",
                "category",
                "importance",
                "tier",
                "status",
                "expires_at",
            )
        },
    ),
    "get": st.fixed_dictionaries(
        {"entry_id": maybe("known-1"), "user_id": maybe("alice")}, optional={"agent_id": HOSTILE}
    ),
    "delete": st.fixed_dictionaries({"entry_id": HOSTILE, "user_id": maybe("alice")}),
    "delete_many": st.fixed_dictionaries({"entry_ids": HOSTILE, "user_id": maybe("alice")}),
    "list": st.fixed_dictionaries(
        {"user_id": maybe("alice")},
        optional={
            n: HOSTILE for n in ("agent_id", "kind", "tier", "session_id", "limit", "offset")
        },
    ),
    "count": st.fixed_dictionaries(
        {"user_id": maybe("alice")}, optional={n: HOSTILE for n in ("kind", "domain")}
    ),
    "search": st.fixed_dictionaries(
        {"query": maybe("tea"), "user_id": maybe("alice")},
        optional={n: HOSTILE for n in ("agent_id", "limit", "kind", "tier")},
    ),
    "context": st.fixed_dictionaries(
        {"query": maybe("tea"), "user_id": maybe("alice")},
        optional={n: HOSTILE for n in ("max_tokens", "limit")},
    ),
    "export": st.fixed_dictionaries({"user_id": HOSTILE}, optional={"agent_id": HOSTILE}),
    "import_": st.fixed_dictionaries(
        {"records": st.one_of(st.lists(line(), max_size=3), HOSTILE), "user_id": maybe("carol")},
        optional={"on_conflict": HOSTILE},
    ),
    "audit_log": st.fixed_dictionaries(
        {"user_id": maybe("alice")}, optional={n: HOSTILE for n in ("entry_id", "limit", "after")}
    ),
    "set_reveal_secret": st.fixed_dictionaries({"user_id": maybe("dave"), "secret": HOSTILE}),
    "authorize_reveal": st.fixed_dictionaries(
        {"entry_id": maybe("known-1"), "user_id": maybe("alice"), "secret": HOSTILE}
    ),
    "reveal": st.fixed_dictionaries({"entry_id": HOSTILE, "user_id": maybe("alice")}),
}
POSITIONAL = {"add": "content", "update": "entry_id", "get": "entry_id", "delete": "entry_id"}
POSITIONAL |= {"search": "query", "context": "query", "import_": "records"}
POSITIONAL |= {"add_many": "records", "delete_many": "entry_ids"}
POSITIONAL |= {"authorize_reveal": "entry_id", "reveal": "entry_id"}


@pytest.fixture
def known(vault: Vault) -> Vault:
    vault.add("Alice drinks green tea", user_id="alice", id="known-1")
    return vault


def invoke(vault: Vault, method: str, kwargs: dict[str, Any]) -> None:
    args = built(kwargs)
    first = POSITIONAL.get(method)
    positional = [args.pop(first)] if first else []
    result = getattr(vault, method)(*positional, **args)
    if method == "export":
        list(result)


@given(call=st.sampled_from(sorted(CALLS)).flatmap(lambda m: st.tuples(st.just(m), CALLS[m])))
@EXAMPLES
def test_vault_raises_only_memvault_errors(known: Vault, call: tuple[str, dict[str, Any]]) -> None:
    method, kwargs = call
    with suppress(MemvaultError):
        invoke(known, method, kwargs)
    # The user's data stays readable whatever was accepted.
    known.list(user_id="alice")
    known.search("tea", user_id="alice")
    list(known.export(user_id="alice"))


# -- integrations: the LangGraph store and the memory tools ---------------------------------


@given(value=st.one_of(HOSTILE, st.dictionaries(st.text(max_size=3), HOSTILE, max_size=3)))
@EXAMPLES
def test_langgraph_put_raises_only_memvault_errors(vault: Vault, value: Any) -> None:
    from memvault.integrations.langgraph import VaultStore

    store = VaultStore(vault)
    with suppress(MemvaultError):
        store.put(("alice", "notes"), "item", built(value))
    store.search(("alice",))


@given(
    name=st.sampled_from(["memory_save", "memory_recall"]),
    raw=st.one_of(
        HOSTILE.map(lambda v: as_json({"action": "create", "content": v})),
        st.dictionaries(
            st.sampled_from(["action", "content", "id", "type", "name", "query", "limit"]),
            HOSTILE,
        ),
        st.just("[" * 100_000),
        st.just('{"limit": 1' + "0" * 5000 + "}"),
        HOSTILE,
    ),
)
@EXAMPLES
def test_vault_tools_answer_json_for_any_arguments(vault: Vault, name: str, raw: Any) -> None:
    answer = VaultTools(vault, user_id="alice").call(name, built(raw))
    assert isinstance(json.loads(answer), dict)


@given(
    args=st.one_of(
        st.dictionaries(
            st.sampled_from(["action", "target", "content", "old_text"]), HOSTILE, max_size=4
        ),
        st.fixed_dictionaries(
            {"action": st.just("add"), "target": st.just("user"), "content": HOSTILE}
        ),
    )
)
@EXAMPLES
def test_the_memory_tool_answers_json_for_any_arguments(
    tmp_path: Path, args: dict[str, Any]
) -> None:
    provider = BuiltinFileProvider()
    provider.initialize(user_id="alice", agent_id=None, base_dir=str(tmp_path))
    answer = provider.handle_tool_call("memory", built(args))
    assert isinstance(json.loads(answer), dict)


# -- the command line -------------------------------------------------------------------------

CLI_VALUE = st.one_of(
    st.sampled_from([str(n) for n in HUGE_INTS]),
    st.sampled_from(["true", "nan", "inf", "-inf", "1e400", "", " ", "0x10", "1_000"]),
    st.text(max_size=10),
    st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2),
    st.sampled_from(["a\x00b", "../../x", "-", "--user"]),
    st.integers(65_000, 100_000).map(lambda n: "x" * n),
    st.integers(30, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(30, 100_000).map(lambda n: "[" * n),
    st.just('{"n": 1' + "0" * 5000 + "}"),
    st.sampled_from(['{"n": NaN}', '{"n": Infinity}', "[1]", '"text"', "null", '{"a": "\\ud800"}']),
)


def commands(value: Any) -> list[list[str]]:
    return [
        ["list", "--user", "alice", "--offset", value],
        ["list", "--user", "alice", "--limit", value],
        ["list", "--user", value],
        ["list", "--user", "alice", "--kind", value],
        ["add", "--user", "alice", "hello", "--metadata", value],
        ["add", "--user", "alice", value],
        ["add", "--user", "alice", "hello", "--name", value],
        ["search", "--user", "alice", value],
        ["search", "--user", "alice", "tea", "--limit", value],
        ["get", value, "--user", "alice"],
        ["update", "known-1", "--user", "alice", "--metadata", value],
        ["delete", value, "--user", "alice"],
        ["audit", "--user", "alice", "--limit", value],
        ["export", "--user", "alice", "-o", value],
    ]


@pytest.fixture
def cli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("MEMVAULT_HOME", str(home))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "none")
    monkeypatch.chdir(tmp_path)
    with Vault(home / "memvault.db") as vault:
        vault.add("Alice drinks green tea", user_id="alice", id="known-1")
    return home


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


@given(value=CLI_VALUE, which=st.integers(0, len(commands("x")) - 1))
@EXAMPLES
def test_cli_exits_2_with_one_line_for_any_value(cli_home: Path, value: str, which: int) -> None:
    argv = ["--home", str(cli_home), *commands(value)[which]]
    code, _out, err = run_main(argv)
    assert code in (0, 2), (argv[:6], code, err[-500:])
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err[-500:]
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--user", "alice", "--offset", str(10**30)],
        ["add", "--user", "alice", "x", "--metadata", '{"a":' * 400 + "1" + "}" * 400],
        ["audit", "--user", "alice", "--limit", str(2**64)],
    ],
)
def test_the_installed_command_prints_one_line(cli_home: Path, args: list[str]) -> None:
    package_root = str(Path(cli.__file__).parents[1])  # this checkout's memvault
    env = {
        **os.environ,
        "MEMVAULT_HOME": str(cli_home),
        "MEMVAULT_EMBEDDER": "none",
        "PYTHONPATH": package_root,
    }
    result = subprocess.run(
        [sys.executable, "-m", "memvault.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("stdin", "argv"),
    [
        ("closed", ["add", "--user", "alice", "-"]),
        ("not-utf8", ["add", "--user", "alice", "-"]),
        ("closed", ["import", "--user", "alice", "-"]),
        ("not-utf8", ["reveal", "known-1", "--user", "alice"]),
        ("closed", ["set-secret", "--user", "alice", "--current"]),
    ],
)
def test_an_unreadable_stdin_is_one_clear_line(
    cli_home: Path, monkeypatch: pytest.MonkeyPatch, stdin: str, argv: list[str]
) -> None:
    # A closed stdin (`memvault add - <&-`) or bytes that are not text used to end as
    # "unexpected OSError ... (a bug; please report it)", exit 1.
    if stdin == "closed":
        source = io.StringIO("")
        source.close()
        monkeypatch.setattr("sys.stdin", source)
    else:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe\xfa tea\n")))
    code, _out, err = run_main(["--home", str(cli_home), *argv])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot read "), err
    assert "from stdin" in lines[0] and "bug" not in lines[0]
