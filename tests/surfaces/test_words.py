"""Each surface names things in its own words (issue 20 §5): a CLI error names the flag
(``--user``), never the library's parameter (``user_id=``); an HTTP error names the JSON
field; the library speaks of its parameters. The same mistake, three surfaces."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from memvault import ValidationError, Vault, cli, load_config
from memvault.server.app import create_app
from tests.gateway_server import serving


def _cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str]:
    code = cli.main(["--home", str(home), *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "said", "python_name"),
    [
        (
            ("add", "x", "--user", "bad user"),
            "error: --user 'bad user' is not a valid id",
            "user_id",
        ),
        (
            ("add", "x", "--user", "alice", "--agent", "x y"),
            "error: --agent 'x y' is not a valid id",
            "agent_id",
        ),
        (
            ("add", "x", "--user", "alice", "--class", "bogus"),
            "error: --class 'bogus' is not valid: use one of semantic,",
            "mem_class",
        ),
        (
            ("search", "x", "--user", "alice", "--as-of", "yesterday"),
            "error: --as-of 'yesterday' is not an ISO 8601 time",
            "as_of",
        ),
        (
            ("list", "--user", "alice", "--limit", "0"),
            "error: --limit must be an integer",
            " limit must",
        ),
        (("add", "", "--user", "alice"), "error: CONTENT is empty", "content"),
    ],
)
def test_cli_errors_name_the_flag_not_the_parameter(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: tuple[str, ...],
    said: str,
    python_name: str,
) -> None:
    code, err = _cli(capsys, tmp_path / "home", *args)
    assert code == 2
    assert err.startswith(said), err
    assert python_name not in err, err


def test_an_empty_update_says_which_flags_change_something(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    assert cli.main(["--home", str(home), "add", "Alice lives in Oslo", "--user", "alice"]) == 0
    entry_id = capsys.readouterr().out.split()[1]
    code, err = _cli(capsys, home, "update", entry_id, "--user", "alice")
    assert code == 2
    assert err.strip() == (
        "error: nothing to update: add at least one of --content, --name, --description, "
        "--kind, --metadata"
    )


def test_the_library_and_http_say_the_same_remedy_in_their_words(tmp_path: Path) -> None:
    config = load_config(environ={}, home=tmp_path / "home", embedding={"provider": "none"})
    with Vault(config=config) as vault:
        entry = vault.add("Alice lives in Oslo", user_id="alice")
        with pytest.raises(ValidationError) as caught:
            vault.update(entry.id, user_id="alice")
        assert caught.value.remedy == "update.fields"
        assert str(caught.value) == (
            "nothing to update: pass at least one field such as content or name"
        )
        with serving(create_app(vault)) as url:
            answer = httpx.patch(f"{url}/v1/memories/{entry.id}", json={"user_id": "alice"})
        assert answer.status_code == 422
        assert answer.json()["error"]["message"] == (
            "nothing to update: send at least one field to change, such as content or name"
        )


def test_a_relative_data_directory_does_not_garble_http_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data directory is cut out of answers; a relative one (``--home h``) is a word
    that must not be cut out of every other word ("wit(data directory)" for "with")."""
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={}, home=Path("h"), embedding={"provider": "none"})
    with Vault(config=config) as vault, serving(create_app(vault)) as url:
        answer = httpx.post(
            f"{url}/v1/memories", json={"content": "x", "user_id": "bad user"}, timeout=30
        )
    assert answer.status_code == 422
    message = answer.json()["error"]["message"]
    assert message.startswith("user_id 'bad user' is not a valid id: use 1-128 characters from")
    assert "starting with a letter" in message and "(data directory)" not in message


def test_an_absolute_data_directory_is_still_never_named(tmp_path: Path) -> None:
    from memvault.server.errors import public_message

    home = str(tmp_path / "home")
    shown = public_message(f"cannot read {home}/keys.json (the home is {home})", (home, "h"))
    assert shown == "cannot read keys.json (the home is (data directory))"
