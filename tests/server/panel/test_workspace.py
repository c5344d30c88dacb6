"""The panel's Workspace screen in a real browser (Debian's chromium via Playwright) against
a real authenticated gateway on loopback: a conversation's state card edited and its
revision listed, the task board with tasks added, moved by button and by drag and drop,
reassigned within the workspace (and refused outside it, with the server's message),
deleted with two clicks; another user's card stays out of sight."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, Route, expect

from tests.gateway_server import Live
from tests.panel_kit import (  # noqa: F401 (fixtures)
    act_as,
    browser,
    open_screen,
    page,
    release,
    shot,
    sign_in,
)


def _column(page: Page, status: str) -> Locator:
    return page.locator(f'#ws-board .ws-column[data-status="{status}"]')


def _task(page: Page, title: str) -> Locator:
    return page.locator("#ws-board li.ws-task").filter(has_text=title)


def test_edit_a_card_and_see_its_revision(page: Page, live: Live) -> None:
    live.vault.upsert_card(
        user_id="alice", session_id="chat-1", goal="Ship the parser", workspace_id="compiler"
    )
    sign_in(page, live, live.alice)
    open_screen(page, "Workspace")
    chip = page.locator('#ws-sessions button[data-session="chat-1"]')
    expect(chip).to_contain_text("in compiler")
    chip.click()

    form = page.locator("#ws-card-form")
    expect(form.get_by_label("Goal")).to_have_value("Ship the parser")
    expect(form).to_contain_text("Revision 1")
    form.get_by_label("Decisions (one a line)").fill("PEG grammar\nno backtracking")
    form.get_by_label("Next step").fill("write the lexer")
    form.get_by_role("button", name="Add field").click()
    form.get_by_label("Field name").fill("branch")
    form.get_by_label("Field value").fill("parser-2")
    form.get_by_role("button", name="Save card").click()
    expect(page.locator("#notice")).to_contain_text("revision 2")

    newest = page.locator("#ws-revisions li.ws-revision").first
    expect(newest).to_contain_text("Revision 2")
    expect(newest).to_contain_text("decisions: + “PEG grammar”, + “no backtracking”")
    expect(newest).to_contain_text("fields.branch: (empty) → “parser-2”")
    expect(page.locator("#ws-revisions li.ws-revision")).to_have_count(2)
    card = live.vault.workspace.card(user_id="alice", session_id="chat-1")
    assert card.revision == 2
    assert card.content.decisions == ("PEG grammar", "no backtracking")
    assert dict(card.content.fields) == {"branch": "parser-2"}
    assert card.actor is not None and card.actor.startswith("http:")
    # The card's workspace opened its board alongside.
    expect(page.locator("#ws-board-title")).to_have_text("Task board of workspace compiler")

    # Removing the field and saving again records its removal.
    page.locator("#ws-card-form").get_by_role("button", name="Remove field").click()
    page.locator("#ws-card-form").get_by_role("button", name="Save card").click()
    expect(page.locator("#ws-revisions li.ws-revision").first).to_contain_text(
        "fields.branch: “parser-2” → (empty)"
    )
    assert live.vault.workspace.card(user_id="alice", session_id="chat-1").content.fields == {}

    delete = page.locator("#ws-card-form").get_by_role("button", name="Delete card")
    delete.click()
    page.get_by_role("button", name="Click again to delete the card").click()
    expect(page.locator("#notice")).to_contain_text("Deleted the card of chat-1")
    expect(page.locator("#ws-card-form")).to_contain_text("No card yet")
    assert live.vault.card_revisions(user_id="alice", session_id="chat-1") == []


def test_the_task_board(page: Page, live: Live) -> None:
    live.vault.upsert_card(user_id="alice", session_id="chat-1", goal="g", workspace_id="compiler")
    live.vault.add_task(user_id="alice", workspace_id="garden", session_id="chat-9", title="Tulips")
    sign_in(page, live, live.alice)
    open_screen(page, "Workspace")
    page.locator("#ws-workspace").fill("compiler")
    page.get_by_role("button", name="Show board").click()
    expect(page.locator("#ws-board-title")).to_have_text("Task board of workspace compiler")

    for title, notes in (("Write the lexer", ""), ("Write the parser", "PEG, no backtracking")):
        page.locator("#ws-task-title").fill(title)
        page.locator("#ws-task-session").fill("chat-1")
        page.locator("#ws-task-notes").fill(notes)
        page.get_by_role("button", name="Add task").click()
        expect(page.locator("#notice")).to_have_text(f"Added “{title}” to To do.")
    expect(_column(page, "todo").locator("li.ws-task")).to_have_count(2)
    lexer = _task(page, "Write the lexer")
    expect(lexer).to_contain_text("Conversation chat-1")
    expect(lexer.locator(".ws-notes")).to_have_count(0)
    expect(lexer).not_to_contain_text("null")
    expect(_task(page, "Write the parser").locator(".ws-notes")).to_have_text(
        "PEG, no backtracking"
    )

    lexer.get_by_role("button", name="Move to Doing").click()
    expect(page.locator("#notice")).to_have_text("Moved “Write the lexer” to Doing.")
    expect(_column(page, "doing").locator("li.ws-task")).to_have_count(1)
    expect(_column(page, "doing")).to_contain_text("Write the lexer")
    tasks = {t.title: t for t in live.vault.tasks(user_id="alice", workspace_id="compiler")}
    assert tasks["Write the lexer"].status.value == "doing"

    _task(page, "Write the parser").drag_to(_column(page, "blocked"))
    expect(page.locator("#notice")).to_have_text("Moved “Write the parser” to Blocked.")
    expect(_column(page, "blocked").locator("li.ws-task")).to_have_count(1)
    expect(_column(page, "blocked")).to_contain_text("Write the parser")
    expect(_column(page, "todo").locator("li.ws-task")).to_have_count(0)
    parser = live.vault.workspace.task(user_id="alice", task_id=tasks["Write the parser"].id)
    assert parser.status.value == "blocked"

    # Reassign within the workspace: a new conversation joins it.
    lexer = _task(page, "Write the lexer")
    lexer.get_by_role("button", name="Reassign").click()
    lexer.get_by_label("New conversation").fill("chat-2")
    lexer.get_by_role("button", name="Save").click()
    expect(page.locator("#notice")).to_contain_text("now belongs to conversation chat-2")
    expect(_task(page, "Write the lexer")).to_contain_text("Conversation chat-2")
    lexer_id = tasks["Write the lexer"].id
    assert live.vault.workspace.task(user_id="alice", task_id=lexer_id).session_id == "chat-2"

    # A conversation of another workspace is refused: the server says why.
    lexer = _task(page, "Write the lexer")
    lexer.get_by_role("button", name="Reassign").click()
    lexer.get_by_label("New conversation").fill("chat-9")
    lexer.get_by_role("button", name="Save").click()
    notice = page.locator("#notice")
    expect(notice).to_contain_text("belongs to workspace 'garden', not 'compiler'")
    expect(notice).to_have_class("notice error")
    assert live.vault.workspace.task(user_id="alice", task_id=lexer_id).session_id == "chat-2"

    # A task's conversation opens its card.
    _task(page, "Write the parser").get_by_role("button", name="chat-1").click()
    expect(page.locator("#ws-card-form")).to_contain_text("State card of chat-1")
    expect(page.locator("#ws-card-form").get_by_label("Goal")).to_have_value("g")
    shot(page, "workspace.png")

    parser_card = _task(page, "Write the parser")
    parser_card.get_by_role("button", name="Delete").click()
    parser_card.get_by_role("button", name="Click again to delete").click()
    expect(page.locator("#notice")).to_contain_text("Deleted the task “Write the parser”")
    expect(page.locator("#ws-board li.ws-task")).to_have_count(1)
    assert [t.title for t in live.vault.tasks(user_id="alice", workspace_id="compiler")] == [
        "Write the lexer"
    ]


def test_bob_cannot_see_alices_card(page: Page, live: Live) -> None:
    live.vault.upsert_card(
        user_id="alice", session_id="chat-1", goal="Alice's secret plan", workspace_id="w1"
    )
    live.vault.add_task(user_id="alice", workspace_id="w1", session_id="chat-1", title="Hers")
    sign_in(page, live, live.bob)
    open_screen(page, "Workspace")
    expect(page.locator("#ws-sessions")).to_contain_text("None yet")
    page.locator("#ws-session").fill("chat-1")
    page.get_by_role("button", name="Open card").click()
    form = page.locator("#ws-card-form")
    expect(form).to_contain_text("No card yet")
    expect(form.get_by_label("Goal")).to_have_value("")
    page.locator("#ws-workspace").fill("w1")
    page.get_by_role("button", name="Show board").click()
    expect(page.locator("#ws-board .ws-column .empty")).to_have_count(4)
    expect(page.locator("#screen-workspace")).not_to_contain_text("secret plan")
    expect(page.locator("#screen-workspace")).not_to_contain_text("Hers")


def test_an_admin_acting_for_alice_edits_her_card(page: Page, live: Live) -> None:
    live.vault.upsert_card(user_id="alice", session_id="chat-1", goal="g", workspace_id="w1")
    sign_in(page, live, live.admin)
    act_as(page, "alice")
    open_screen(page, "Workspace")
    page.locator('#ws-sessions button[data-session="chat-1"]').click()
    page.locator("#ws-card-form").get_by_label("Goal").fill("Ship it")
    page.locator("#ws-card-form").get_by_role("button", name="Save card").click()
    expect(page.locator("#notice")).to_contain_text("revision 2")
    page.locator("#ws-task-title").fill("Admin's task")
    page.get_by_role("button", name="Add task").click()
    expect(_column(page, "todo")).to_contain_text("Admin's task")
    assert live.vault.workspace.card(user_id="alice", session_id="chat-1").content.goal == "Ship it"
    assert [t.title for t in live.vault.tasks(user_id="alice")] == ["Admin's task"]


def test_a_late_answer_for_the_user_acted_for_before_draws_nothing(page: Page, live: Live) -> None:
    # An admin acting for bob opens Workspace, then acts for alice before bob's
    # conversations have arrived. The late answer drew bob's conversations into alice's
    # screen: the panel now drops any answer asked for someone it no longer acts for.
    live.vault.workspace.upsert_card(user_id="bob", session_id="bobs-plan", goal="his plan")
    live.vault.workspace.upsert_card(user_id="alice", session_id="alices-chat", goal="hers")
    held: list[Route] = []

    def hold_bobs_cards(route: Route) -> None:
        if not held and "user_id=bob" in route.request.url:
            held.append(route)  # answered below, once the panel acts for alice
        else:
            route.continue_()

    page.route("**/v1/cards?*", hold_bobs_cards)
    sign_in(page, live, live.admin)
    act_as(page, "bob")
    with page.expect_request(lambda r: "/v1/cards?" in r.url and "user_id=bob" in r.url):
        open_screen(page, "Workspace")
    act_as(page, "alice")
    expect(page.locator('#ws-sessions button[data-session="alices-chat"]')).to_be_visible()
    release(page, held)
    expect(page.locator('#ws-sessions button[data-session="alices-chat"]')).to_be_visible()
    expect(page.locator("#screen-workspace")).not_to_contain_text("bobs-plan")
