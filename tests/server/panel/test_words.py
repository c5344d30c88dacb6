"""The panel speaks of its own controls (issue 20 item 5): a server refusal names the label
of the form that sent it, not the HTTP field (``agent_id`` becomes “Agent”), with its code
and status kept; the panel's own notices name the buttons and boxes to use, as labelled on
screen; and no notice in the panel's JavaScript mentions an HTTP field name.

Debian's Chromium against a real authenticated gateway on loopback; the JavaScript check
reads the files the server ships."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

import memvault.server
from tests.gateway_server import Live
from tests.panel_kit import (  # noqa: F401 (fixtures)
    act_as,
    browser,
    open_screen,
    page,
    sign_in,
    unfold,
)

STATIC = Path(memvault.server.__file__).parent / "static"
NOT_AN_ID = "is not a valid id: use 1-128 characters"
# An HTTP field or parameter as the API spells it: user_id, dry_run, on_conflict=skip.
HTTP_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z_]+=[a-z]")


def _refused(page: Page, text: str, *, status: int = 422, code: str = "invalid_input") -> str:
    """The notice shows ``text`` (the start of the server's message in the form's words)
    with its code and status; returns the whole notice."""
    notice = page.locator("#notice")
    expect(notice).to_have_class("notice error")
    expect(notice).to_contain_text(text)
    expect(notice).to_contain_text(f"({code}, HTTP {status})")
    shown = notice.inner_text()
    assert shown.startswith(text), shown
    return shown


def _names_controls_on_screen(page: Page, text: str) -> None:
    """Every “quoted” name in ``text`` is a control of the page: a button, a labelled box,
    a list, or one of its choices."""
    names = re.findall(r"“([^”]+)”", text)
    assert names, text
    for name in names:
        control = (
            page.get_by_role("button", name=name, exact=True)
            .or_(page.get_by_label(name, exact=True))
            .or_(page.get_by_role("combobox", name=name, exact=True))
            .or_(page.get_by_role("option", name=name, exact=True))
        )
        expect(control.first).to_be_attached()


def _memories(page: Page, live: Live, key: str) -> None:
    sign_in(page, live, key)
    open_screen(page, "Memories")


# -- the server's refusals, in the words of the form that was sent ------------------------


def test_add_with_blank_content_names_the_content_box(page: Page, live: Live) -> None:
    _memories(page, live, live.alice)
    page.locator("#add-content").fill("   ")
    page.locator("#add-form").get_by_role("button", name="Add").click()
    shown = _refused(page, "“Content” is empty: send the text to remember")
    assert shown == "“Content” is empty: send the text to remember (invalid_input, HTTP 422)"
    assert live.vault.count(user_id="alice") == 0


def test_add_with_a_bad_agent_id_names_the_agent_box(page: Page, live: Live) -> None:
    _memories(page, live, live.alice)
    page.locator("#add-content").fill("tea with lemon")
    page.locator("#add-agent").fill("a b/c")
    page.locator("#add-form").get_by_role("button", name="Add").click()
    shown = _refused(page, f"“Agent” 'a b/c' {NOT_AN_ID}")
    assert "agent_id" not in shown
    assert live.vault.count(user_id="alice") == 0


def test_the_agent_filter_names_its_box_when_the_list_is_refused(page: Page, live: Live) -> None:
    live.vault.add("tea with lemon", user_id="alice")
    _memories(page, live, live.alice)
    unfold(page, "filter")
    page.locator("#filter-agent").fill("no such/agent")
    page.locator("#filter-form").get_by_role("button", name="Apply").click()
    assert "agent_id" not in _refused(page, f"“Agent” 'no such/agent' {NOT_AN_ID}")


def test_an_admin_acting_as_a_bad_user_id_is_told_about_the_user_id_box(
    page: Page, live: Live
) -> None:
    _memories(page, live, live.admin)
    page.get_by_label("User id").fill("no one!")
    page.locator("#act-as").get_by_role("button", name="Act as").click()
    assert "user_id" not in _refused(page, f"“User id” 'no one!' {NOT_AN_ID}")


def test_a_key_for_a_bad_user_id_names_the_for_user_box(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Keys", "API keys")
    page.get_by_label("For user").fill("dora the explorer")
    page.get_by_role("button", name="Create key").click()
    assert "user_id" not in _refused(page, f"“For user” 'dora the explorer' {NOT_AN_ID}")
    with live.client(live.admin) as admin:
        assert len(admin.get("/v1/keys").json()["keys"]) == 3  # nothing was created


def test_a_relative_agent_store_names_the_store_box(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Agents")
    page.get_by_label("Agent id").fill("writer")
    page.locator("#agent-store-kind").select_option("own")
    page.get_by_label("Store URL or absolute SQLite path").fill("writer.db")
    page.get_by_role("button", name="Save agent").click()
    _refused(
        page,
        "“Store URL or absolute SQLite path” 'writer.db' is a relative path: "
        "give an absolute SQLite path",
    )
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents").json()["agents"] == []


def test_the_layers_name_the_session_id_box(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    act_as(page, "alice")
    open_screen(page, "Agents")
    page.get_by_label("Session id").fill("chat one!")
    page.get_by_role("button", name="Show layers").click()
    assert "session_id" not in _refused(page, f"“Session id” 'chat one!' {NOT_AN_ID}")


def test_a_blank_task_names_the_task_box(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    open_screen(page, "Workspace")
    page.locator("#ws-workspace").fill("compiler")
    page.get_by_role("button", name="Show board").click()
    page.locator("#ws-task-title").fill("   ")
    page.locator("#ws-task-session").fill("chat-1")
    page.get_by_role("button", name="Add task").click()
    shown = _refused(page, "“Task” is empty: say what the task is")
    assert "title" not in shown
    assert live.vault.tasks(user_id="alice", workspace_id="compiler") == []


def test_a_long_goal_or_decision_names_its_box_on_the_card(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    open_screen(page, "Workspace")
    page.locator("#ws-session").fill("chat-1")
    page.get_by_role("button", name="Open card").click()
    form = page.locator("#ws-card-form")
    form.get_by_label("Goal").fill("g" * 1001)
    form.get_by_role("button", name="Save card").click()
    shown = _refused(page, "“Goal” is 1001 characters, over the limit of 1000: shorten it")
    assert "goal is" not in shown
    _names_controls_on_screen(page, shown)

    form.get_by_label("Goal").fill("ship the parser")
    form.get_by_label("Decisions (one a line)").fill("PEG grammar\n" + "d" * 1001)
    form.get_by_role("button", name="Save card").click()
    shown = _refused(page, "line 2 of “Decisions (one a line)” is 1001 characters")
    assert "decisions[1]" not in shown
    _names_controls_on_screen(page, shown)
    assert live.vault.workspace.card(user_id="alice", session_id="chat-1").revision == 0


def test_an_import_of_existing_ids_names_the_choice_that_skips_them(
    page: Page, live: Live, tmp_path: Path
) -> None:
    kept = live.vault.add("tea with lemon", user_id="alice")
    export = tmp_path / "alice.jsonl"
    export.write_text(json.dumps({"id": kept.id, "content": "tea with lemon"}) + "\n")
    sign_in(page, live, live.alice)
    open_screen(page, "Account")
    page.locator("#account-file").set_input_files(export)
    page.get_by_role("button", name="Import file").click()
    shown = _refused(page, "1 imported ids already exist", status=409, code="conflict")
    assert "on_conflict" not in shown
    assert (
        "choose “skip that memory, import the rest” in “When a memory's id already exists” "
        "to import only the new ids, then press “Import file” again" in shown
    )
    _names_controls_on_screen(page, shown)
    assert live.vault.count(user_id="alice") == 1


# -- the panel's own notices name the controls to use ---------------------------------------


def test_an_admin_without_a_user_is_told_the_box_and_the_button(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Overview")  # an admin lands on Users; a user's screen needs one
    notice = page.locator("#notice")
    expect(notice).to_have_text(
        "Enter the user id to act for in “User id” and press “Act as” (admin key)."
    )
    _names_controls_on_screen(page, notice.inner_text())


def test_a_key_without_a_user_names_the_box_the_tick_and_the_button(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Keys", "API keys")
    page.get_by_role("button", name="Create key").click()
    notice = page.locator("#notice")
    expect(notice).to_have_text(
        "“For user” is empty. Enter the user the key is for, or tick “Admin key (acts for "
        "any user)”, then press “Create key”."
    )
    _names_controls_on_screen(page, notice.inner_text())


def test_an_own_store_left_empty_names_the_box_and_the_other_choice(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Agents")
    page.get_by_label("Agent id").fill("writer")
    page.locator("#agent-store-kind").select_option("own")
    page.get_by_role("button", name="Save agent").click()
    notice = page.locator("#notice")
    expect(notice).to_have_text(
        "“Store URL or absolute SQLite path” is empty: type the agent's store there, or "
        "choose “Default store” in “Store”."
    )
    _names_controls_on_screen(page, notice.inner_text())
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents").json()["agents"] == []


def test_dates_out_of_order_name_both_dates_and_apply(page: Page, live: Live) -> None:
    _memories(page, live, live.alice)
    unfold(page, "filter")
    page.get_by_label("Created from").fill("2026-11-30")
    page.get_by_label("Created to").fill("2026-11-01")
    page.get_by_role("button", name="Apply").click()
    notice = page.locator("#notice")
    expect(notice).to_have_text(
        "“Created from” is after “Created to”: swap the dates, then press “Apply”."
    )
    _names_controls_on_screen(page, notice.inner_text())


def test_a_wrong_key_is_told_where_to_paste_another(page: Page, live: Live) -> None:
    sign_in(page, live, "mv_not_a_key")
    notice = page.locator("#notice")
    expect(notice).to_have_text(
        "the API key is unknown or revoked: paste a live key in “API key” and press "
        "“Sign in” (unauthorized, HTTP 401)"
    )
    _names_controls_on_screen(page, notice.inner_text())


def test_the_layers_without_a_user_say_how_to_act_as_one(page: Page, live: Live) -> None:
    sign_in(page, live, live.admin)
    open_screen(page, "Agents")
    empty = page.locator("#layers-table tbody td.empty")
    expect(empty).to_have_text(
        "Enter a user id in “User id” at the top and press “Act as” to see the layers of "
        "their settings."
    )
    _names_controls_on_screen(page, empty.inner_text())


# -- no notice in the panel's JavaScript speaks HTTP ------------------------------------------


def _call_texts(source: str, opening: str) -> list[str]:
    """The literal text of each ``opening…)`` call in ``source``: what its strings and
    template literals say, without the code in ``${…}``."""
    texts = []
    start = source.find(opening)
    while start != -1:
        i = start + len(opening)
        depth = 1  # parentheses, counted outside strings
        said: list[str] = []
        stack: list[str] = []  # open quotes and "${" inside templates
        while depth:
            c = source[i]
            top = stack[-1] if stack else None
            literal = "${" not in stack  # a string inside ${…} is code
            if top in ("'", '"', "`"):
                if c == "\\":
                    said.append(source[i + 1] if literal else "")
                    i += 1
                elif c == top:
                    stack.pop()
                elif top == "`" and source.startswith("${", i):
                    stack.append("${")
                    i += 1
                elif literal:
                    said.append(c)
            elif c in "'\"`":
                stack.append(c)
                said.append(" " if literal else "")
            elif top == "${" and c == "}":
                stack.pop()
            elif top is None and c == "(":
                depth += 1
            elif top is None and c == ")":
                depth -= 1
            i += 1
        texts.append("".join(said))
        start = source.find(opening, i)
    return texts


def _panel_messages() -> dict[str, list[str]]:
    found = {}
    for path in sorted(STATIC.rglob("*.js")):
        source = path.read_text(encoding="utf-8")
        texts = _call_texts(source, "notify(") + _call_texts(source, "new Error(")
        found[str(path.relative_to(STATIC))] = texts
    return found


def test_the_scanner_reads_literal_text_and_skips_code() -> None:
    source = 'notify(`Saved ${names.join(", ")} for ${state.user_id}.`, "ok"); x(1)'
    assert _call_texts(source, "notify(") == [" Saved  for . ok"]
    source = 'notify("send " + "user_id" + (a ? "x" : "y"));'
    (text,) = _call_texts(source, "notify(")
    assert HTTP_NAME.search(text)


def test_no_notice_of_the_panel_names_an_http_field() -> None:
    messages = _panel_messages()
    assert sum(len(texts) for texts in messages.values()) >= 40  # the scan found them
    speaking_http = {
        name: [t for t in texts if HTTP_NAME.search(t)] for name, texts in messages.items()
    }
    assert {name: texts for name, texts in speaking_http.items() if texts} == {}
