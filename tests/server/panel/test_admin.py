"""The panel's Maintenance, Agents, Users and Account screens in a real browser against
a real authenticated gateway: what each button does is checked in the vault or through
the API, never only on the page."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from playwright.sync_api import Locator, Page, Route, expect

from tests.gateway_server import Live
from tests.panel_kit import act_as as _act_as
from tests.panel_kit import (  # noqa: F401 (fixtures)
    browser,
    open_screen,
    page,
    release,
    shot,
    sign_in,
)

CARD = "4111 1111 1111 1111"


def _idle_entry(live: Live, user: str, entry_id: str, days: float) -> None:
    """An entry last touched ``days`` ago, as an import (which keeps times) makes it."""
    at = (datetime.now(UTC) - timedelta(days=days)).isoformat()
    live.vault.import_(
        [
            {
                "id": entry_id,
                "user_id": user,
                "content": f"{user}'s lunch order from last month",
                "mem_class": "short_term",
                "created_at": at,
                "updated_at": at,
            }
        ],
        user_id=user,
    )


def _download(page: Page, click: Callable[[], None]) -> list[dict[str, object]]:
    with page.expect_download() as info:
        click()
    path = info.value.path()
    assert info.value.suggested_filename.endswith(".jsonl")
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# -- Maintenance ---------------------------------------------------------------------------


def test_maintenance_dry_run_writes_nothing_and_run_moves_what_it_listed(
    page: Page, live: Live
) -> None:
    _idle_entry(live, "alice", "old-lunch", days=10)
    live.vault.add("bob's fresh note", user_id="bob", mem_class="short_term")
    sign_in(page, live, live.admin)
    _act_as(page, "alice")
    open_screen(page, "Maintenance")
    run_now = page.get_by_role("button", name="Run now")
    expect(run_now).to_be_disabled()  # only after a dry run

    page.get_by_role("button", name="Dry run").click()
    move = page.locator("#maint-moves tr[data-entry='old-lunch']")
    expect(move).to_contain_text("alice")
    expect(move).to_contain_text("active → cold")
    expect(move).to_contain_text("short_term entry idle 10")
    expect(page.locator("#maint-counts")).to_contain_text("active → cold")
    expect(page.locator("#maint-summary")).to_contain_text("1 would move")
    expect(page.locator("#maint-moves tbody tr")).to_have_count(1)
    assert live.vault.get("old-lunch", user_id="alice").tier.value == "active"
    expect(run_now).to_be_enabled()
    shot(page, "maintenance.png")

    run_now.click()
    expect(page.locator("#notice")).to_contain_text("Maintenance done: 1 entry moved")
    expect(page.locator("#maint-summary")).to_contain_text("1 moved")
    expect(move).to_contain_text("active → cold")
    assert live.vault.get("old-lunch", user_id="alice").tier.value == "cold"
    expect(run_now).to_be_disabled()

    # Only the acting user: nothing of alice's is left to move.
    page.get_by_role("button", name="Dry run").click()
    expect(run_now).to_be_enabled()
    page.locator("#maint-scope").select_option("alice")
    expect(run_now).to_be_disabled()  # that dry run covered every user, not this scope
    page.get_by_role("button", name="Dry run").click()
    expect(page.locator("#maint-summary")).to_contain_text("over user alice")
    expect(page.locator("#maint-report")).to_contain_text("No entry is due to move.")


# -- Agents --------------------------------------------------------------------------------


def test_the_menu_opened_while_the_users_features_load_stays_open(page: Page, live: Live) -> None:
    # Acting for a user draws the navigation again when that user's features arrive;
    # it used to close "More" then, so a person (or a test) who had just opened it
    # found the menu shut and the screen's link gone (the CI's timeout on Agents).
    held: list[Route] = []

    def hold_the_features(route: Route) -> None:
        if not held:
            held.append(route)  # answered below, after the menu was opened
        else:
            route.continue_()

    sign_in(page, live, live.admin)
    expect(page.locator(".screen:not([hidden]) h2")).to_have_text("Users")
    page.route("**/api/memory/v2/status?*", hold_the_features)  # with ?user_id=
    page.locator("#act-as-user").fill("alice")
    page.locator("#act-as").get_by_role("button", name="Act as").click()
    expect(page.locator("#who-label")).to_have_text("admin, acting as alice")
    agents = page.locator("#nav-more").get_by_role("link", name="Agents", exact=True)
    page.locator("#nav-more summary").click()
    expect(agents).to_be_visible()
    release(page, held)
    expect(agents).to_be_visible()  # still open
    agents.click()
    expect(page.locator(".screen:not([hidden]) h2")).to_have_text("Agents")


def test_the_agents_list_arriving_late_keeps_what_was_typed(page: Page, live: Live) -> None:
    # The screen refills its form with the defaults when the agents list arrives. When the
    # person has typed before that (a slow server), the late answer wiped the agent id and
    # the save did nothing at all (the browser refused the empty required box, silently).
    held: list[Route] = []

    def hold_the_list(route: Route) -> None:
        if route.request.method == "GET" and not held:
            held.append(route)  # answered below, after the person typed
        else:
            route.continue_()

    page.route("**/v1/agents", hold_the_list)
    sign_in(page, live, live.admin)
    open_screen(page, "Agents")
    expect(page.get_by_label("Prefetch count")).to_have_value("5")  # usable before the list
    page.get_by_label("Agent id").fill("writer")
    page.get_by_label("Prefetch count").fill("3")
    release(page, held)
    expect(page.locator("#agents-table")).to_contain_text("No agent has settings")
    expect(page.get_by_label("Agent id")).to_have_value("writer")
    expect(page.get_by_label("Prefetch count")).to_have_value("3")
    page.get_by_role("button", name="Save agent").click()
    expect(page.locator("#notice")).to_have_text("Saved the settings of agent writer.")
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents/writer").json()["prefetch_limit"] == 3


def test_agent_settings_persist_and_the_layers_show_who_wins(
    page: Page, live: Live, tmp_path: Path
) -> None:
    with live.client(live.alice) as alice:
        patched = alice.patch("/api/memory/v2/config", json={"injection.max_tokens": 900})
        assert patched.status_code == 200, patched.text
        body = {"session_id": "s1", "settings": {"injection.preset": "task"}}
        assert alice.post("/v1/config/session/set", json=body).status_code == 200
    sign_in(page, live, live.admin)
    _act_as(page, "alice")
    open_screen(page, "Agents")
    expect(page.locator("#agents-table")).to_contain_text("No agent has settings")
    expect(page.locator("#agents-defaults")).to_contain_text("prefetch 5")

    page.get_by_label("Agent id").fill("writer")
    page.get_by_label("Prefetch count").fill("3")
    page.get_by_label("Memory on").uncheck()
    page.get_by_role("button", name="Save agent").click()
    expect(page.locator("#notice")).to_have_text("Saved the settings of agent writer.")
    row = page.locator("#agents-table tr[data-agent='writer']")
    # The prefetch count's own cell: the whole row also holds the store's path, whose
    # temporary directory may contain any digit (it once held a "6" before the save did).
    row_prefetch = row.locator("td").nth(2)
    expect(row_prefetch).to_have_text("3")
    expect(row).to_contain_text("off")
    expect(row).to_contain_text("default store")
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents/writer").json() == {
            "agent_id": "writer",
            "enabled": False,
            "store": None,
            "prefetch_limit": 3,
            "own_settings": True,
        }

    page.locator("#layers-agent").fill("writer")
    page.get_by_label("Session id").fill("s1")
    page.get_by_role("button", name="Show layers").click()
    title = "Layers for alice with agent writer in session s1"
    expect(page.locator("#layers-title")).to_have_text(title)

    def setting(name: str) -> Locator:
        return page.locator(f"#layers-table tr[data-setting='{name}']")

    prefetch = setting("prefetch_limit")
    expect(prefetch.locator("td.wins")).to_have_text("3")  # the agent's layer
    expect(prefetch.locator(".source")).to_have_text("agent")
    tokens = setting("injection.max_tokens")
    expect(tokens.locator("td.wins")).to_have_text("900")
    expect(tokens.locator(".source")).to_have_text("user")
    preset = setting("injection.preset")
    expect(preset.locator("td.wins")).to_have_text("task")
    expect(preset.locator(".source")).to_have_text("session")
    expect(preset.locator("td.value")).to_have_text("task")
    expect(setting("injection.scope").locator(".source")).to_have_text("default")
    shot(page, "agents.png")

    # Without the session the user's value is what the agent gets.
    page.get_by_label("Session id").fill("")
    page.get_by_role("button", name="Show layers").click()
    expect(preset.locator(".source")).to_have_text("default")
    expect(preset.locator("td.value")).to_have_text("daily")

    row.get_by_role("button", name="Edit").click()
    expect(page.get_by_label("Agent id")).to_have_value("writer")
    page.get_by_label("Prefetch count").fill("4")
    page.get_by_role("button", name="Save agent").click()
    expect(row_prefetch).to_have_text("4")
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents/writer").json()["prefetch_limit"] == 4

    # Its own store: a relative path is refused with the server's reason, an absolute
    # one is kept, and a later edit that leaves the store alone does not send it again.
    row.get_by_role("button", name="Edit").click()
    page.locator("#agent-store-kind").select_option("own")
    page.get_by_label("Store URL or absolute SQLite path").fill("writer.db")
    page.get_by_role("button", name="Save agent").click()
    expect(page.locator("#notice")).to_contain_text("absolute SQLite path")
    own = str(tmp_path / "writer.db")
    page.get_by_label("Store URL or absolute SQLite path").fill(own)
    page.get_by_role("button", name="Save agent").click()
    expect(row).to_contain_text(own)
    page.get_by_label("Prefetch count").fill("6")
    page.get_by_role("button", name="Save agent").click()
    expect(row_prefetch).to_have_text("6")
    with live.client(live.admin) as admin:
        saved = admin.get("/v1/agents/writer").json()
        assert (saved["store"], saved["prefetch_limit"]) == (own, 6)

    reset = row.get_by_role("button", name="Reset")
    reset.click()
    expect(row.get_by_role("button", name="Reset to the defaults?")).to_be_visible()
    with live.client(live.admin) as admin:  # armed, not yet done
        assert admin.get("/v1/agents/writer").json()["own_settings"] is True
    row.get_by_role("button", name="Reset to the defaults?").click()
    expect(page.locator("#notice")).to_contain_text("uses the defaults again")
    expect(row).to_have_count(0)
    with live.client(live.admin) as admin:
        assert admin.get("/v1/agents/writer").json()["own_settings"] is False


# -- Users ---------------------------------------------------------------------------------


def test_users_list_acts_as_exports_and_erases(page: Page, live: Live) -> None:
    live.vault.add("Alice likes green tea", user_id="alice")
    live.vault.add("Alice rides a bike to work", user_id="alice")
    live.vault.add("Bob keeps bees", user_id="bob")
    sign_in(page, live, live.admin)
    open_screen(page, "Users")
    expect(page.locator("#users-summary")).to_have_text("2 users")
    alice_row = page.locator("#users-table tr[data-user='alice']")
    bob_row = page.locator("#users-table tr[data-user='bob']")
    expect(alice_row.locator("td").first).to_have_text("2")
    expect(bob_row.locator("td").first).to_have_text("1")
    shot(page, "users.png")

    bob_row.get_by_role("button", name="Act as").click()
    expect(page.locator("#who-label")).to_have_text("admin, acting as bob")
    expect(page.locator(".screen:not([hidden]) h2")).to_have_text("Memories")
    expect(page.locator("#memories-list li.entry")).to_have_count(1)
    expect(page.locator("#memories-list")).to_contain_text("Bob keeps bees")

    open_screen(page, "Users")
    alice_row.get_by_role("button", name="Act as").click()
    expect(page.locator("#who-label")).to_have_text("admin, acting as alice")
    expect(page.locator("#memories-list li.entry")).to_have_count(2)
    expect(page.locator("#memories-list")).not_to_contain_text("Bob keeps bees")

    open_screen(page, "Users")
    records = _download(page, alice_row.get_by_role("button", name="Export").click)
    assert sorted(str(r["content"]) for r in records) == [
        "Alice likes green tea",
        "Alice rides a bike to work",
    ]
    assert {r["user_id"] for r in records} == {"alice"}

    _act_as(page, "bob")
    open_screen(page, "Users")
    bob_row.get_by_role("button", name="Erase").click()
    armed = bob_row.get_by_role("button", name="Erase bob for good?")
    expect(armed).to_be_visible()
    assert live.vault.count(user_id="bob") == 1  # the first click only arms it
    armed.click()
    expect(page.locator("#notice")).to_contain_text("Erased bob: 1 memory")
    expect(bob_row).to_have_count(0)
    expect(page.locator("#users-summary")).to_have_text("1 user")
    assert live.vault.count(user_id="bob") == 0
    assert live.vault.count(user_id="alice") == 2
    open_screen(page, "Memories")
    expect(page.locator("#memories-list")).to_contain_text("No memories yet")


# -- Account -------------------------------------------------------------------------------


def test_account_export_imports_back_and_a_bad_file_changes_nothing(
    page: Page, live: Live, tmp_path: Path
) -> None:
    with live.client(live.alice) as alice:
        for text in ("Alice writes Go", "Alice's team meets on Mondays"):
            assert alice.post("/v1/memories", json={"content": text}).status_code == 201
    sign_in(page, live, live.alice)
    open_screen(page, "Account")
    records = _download(page, page.get_by_role("button", name="Download my memories").click)
    expect(page.locator("#notice")).to_contain_text("Downloaded your export: 2 memories")
    contents = sorted(str(r["content"]) for r in records)
    assert contents == ["Alice writes Go", "Alice's team meets on Mondays"]
    export = tmp_path / "alice.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    # The same ids again, with "stop": the server's error, and nothing added.
    page.locator("#account-file").set_input_files(export)
    page.get_by_role("button", name="Import file").click()
    expect(page.locator("#notice")).to_contain_text("HTTP 409")
    result = page.locator("#account-import-result")
    expect(result).to_have_text("Nothing was imported from alice.jsonl.")
    assert live.vault.count(user_id="alice") == 2

    # One good line and one broken: all or nothing.
    bad = tmp_path / "bad.jsonl"
    good = {**records[0], "id": "fresh-one", "content": "a line that would be fine"}
    bad.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    page.locator("#account-file").set_input_files(bad)
    page.get_by_role("button", name="Import file").click()
    expect(page.locator("#notice")).to_contain_text("HTTP 422")
    expect(result).to_contain_text("Nothing was imported")
    assert live.vault.count(user_id="alice") == 2
    ids_before = {e.id for e in live.vault.list(user_id="alice")}

    # Erase what was exported, then import the download: it all comes back.
    for record in records:
        live.vault.delete(str(record["id"]), user_id="alice")
    assert live.vault.count(user_id="alice") == 0
    page.locator("#account-file").set_input_files(export)
    page.get_by_role("button", name="Import file").click()
    expect(result).to_have_text("Imported 2 memories from alice.jsonl.")
    assert {e.id for e in live.vault.list(user_id="alice")} == ids_before
    shot(page, "account.png")


def test_account_export_and_import_count_state_cards_and_tasks(
    page: Page, live: Live, tmp_path: Path
) -> None:
    live.vault.add("Alice writes Go", user_id="alice")
    live.vault.upsert_card(user_id="alice", session_id="chat-1", goal="ship the parser")
    task = live.vault.add_task(
        user_id="alice", workspace_id="compiler", session_id="chat-1", title="Write the lexer"
    )
    sign_in(page, live, live.alice)
    open_screen(page, "Account")
    records = _download(page, page.get_by_role("button", name="Download my memories").click)
    expect(page.locator("#notice")).to_contain_text(
        "Downloaded your export: 1 memory, 1 state card and 1 task"
    )
    assert sorted(str(r.get("record", "memory")) for r in records) == ["card", "memory", "task"]
    export = tmp_path / "alice.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    live.vault.erase_user(user_id="alice")
    page.locator("#account-file").set_input_files(export)
    page.get_by_role("button", name="Import file").click()
    expect(page.locator("#account-import-result")).to_have_text(
        "Imported 1 memory, 1 state card and 1 task from alice.jsonl."
    )
    assert (
        live.vault.workspace.card(user_id="alice", session_id="chat-1").content.goal
        == "ship the parser"
    )
    assert live.vault.workspace.task(user_id="alice", task_id=task.id).title == "Write the lexer"


def test_account_reveal_secret_set_change_and_then_a_reveal(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    open_screen(page, "Account")

    def save(new: str, again: str | None = None, current: str = "") -> None:
        page.get_by_label("New secret", exact=True).fill(new)
        page.get_by_label("New secret again").fill(again if again is not None else new)
        page.get_by_label("Current secret").fill(current)
        page.get_by_role("button", name="Save secret").click()

    save("open sesame", again="open sesam")
    notice = page.locator("#notice")
    expect(notice).to_have_text("The two new secrets differ: type the same one in both.")
    save("open sesame")
    expect(page.locator("#notice")).to_have_text("Reveal secret saved.")
    save("second secret")  # already set: the current one is needed
    expect(page.locator("#notice")).to_contain_text("type it in Current secret")
    save("second secret", current="not it at all")
    expect(page.locator("#notice")).to_contain_text("Current secret is wrong")
    save("second secret", current="open sesame")
    expect(page.locator("#notice")).to_have_text("Reveal secret saved.")

    with live.client(live.alice) as alice:
        made = alice.post("/v1/memories", json={"content": f"my card is {CARD}"})
        assert made.status_code == 201
    open_screen(page, "Memories")
    item = page.locator("li.entry", has_text="[bank_card#1]")
    item.get_by_role("button", name="Reveal (protected)").click()
    item.get_by_label("Reveal secret").fill("second secret")
    item.get_by_role("button", name="Show original").click()
    expect(item).to_contain_text(f"my card is {CARD}")


def test_an_admin_acting_as_a_user_resets_their_secret_and_exports_theirs(
    page: Page, live: Live
) -> None:
    with live.client(live.bob) as bob:
        assert bob.put("/v1/sensitive/secret", json={"secret": "bob's old one"}).status_code == 204
        assert bob.post("/v1/memories", json={"content": "Bob keeps bees"}).status_code == 201
    live.vault.add("Alice likes green tea", user_id="alice")
    sign_in(page, live, live.admin)
    _act_as(page, "bob")
    open_screen(page, "Account")
    expect(page.locator("#account-secret-hint")).to_contain_text("resets bob's secret")
    records = _download(page, page.get_by_role("button", name="Download my memories").click)
    assert [r["content"] for r in records] == ["Bob keeps bees"]
    page.get_by_label("New secret", exact=True).fill("set by the admin")
    page.get_by_label("New secret again").fill("set by the admin")
    page.get_by_role("button", name="Save secret").click()
    expect(page.locator("#notice")).to_have_text("Reveal secret saved.")
    with live.client(live.bob) as bob:
        changed = bob.put(
            "/v1/sensitive/secret",
            json={"secret": "bob's own again", "current_secret": "set by the admin"},
        )
        assert changed.status_code == 204, changed.text


# -- who sees what -------------------------------------------------------------------------


def test_a_user_key_sees_no_admin_screens(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    expect(page.locator("#who-label")).to_have_text("signed in as alice")
    nav = page.locator("#nav")
    for label in ("Maintenance", "Agents", "Users"):
        expect(nav.get_by_role("link", name=label, exact=True)).to_be_hidden()
    expect(nav.get_by_role("link", name="Account", exact=True)).to_be_visible()
    for screen in ("maintenance", "agents", "users"):
        page.goto(f"{live.url}/panel#{screen}")  # typed by hand: the first screen instead
        expect(page.locator(".screen:not([hidden]) h2")).to_have_text("Overview")
    with live.client(live.alice) as alice:
        assert alice.get("/v1/users").status_code == 403
