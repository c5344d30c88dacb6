"""The panel's Archive and Decisions screens and the memory history, in a real browser
(Debian's chromium via Playwright) against a real authenticated server on loopback: tiers
seeded by maintenance with an injected time, decisions by the engine's own writes."""

from __future__ import annotations

from datetime import timedelta

from playwright.sync_api import Page, Route, expect

from memvault import DecisionStatus, MemClass, Tier
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

DAY = timedelta(days=1)
PG = "Use PostgreSQL for the main database"
MYSQL = "Use MySQL for the main database"


def _aged(live: Live, text: str, days: int, user: str = "alice") -> str:
    """A short-term memory, and maintenance run ``days`` after it was written."""
    entry = live.vault.add(text, user_id=user, mem_class=MemClass.SHORT_TERM)
    live.vault.maintain(now=entry.created_at + days * DAY, user_id=user)
    return entry.id


def test_archive_lists_by_tier_and_restores(page: Page, live: Live) -> None:
    old = _aged(live, "Packing list for the 2024 ski trip", 400)  # active -> archive at once
    cold = _aged(live, "Lunch with Mia on Friday", 8)
    _aged(live, "Bob's dentist appointment", 8, user="bob")
    live.vault.add("Alice writes Go services", user_id="alice")
    assert live.vault.get(old, user_id="alice").tier is Tier.ARCHIVE

    sign_in(page, live, live.alice)
    open_screen(page, "Archive")
    items = page.locator("#archive-list li.entry")
    expect(items).to_have_count(1)  # bob's cold memory is not alice's
    expect(page.locator("#archive-summary")).to_have_text("1 memory in cold")
    row = page.locator(f'#archive-list li.entry[data-id="{cold}"]')
    expect(row.locator(".content")).to_have_text("Lunch with Mia on Friday")
    expect(row.locator(".badge")).to_have_text("cold")

    page.locator("#archive-tier").select_option("archive")
    expect(items).to_have_count(1)
    expect(page.locator(f'#archive-list li.entry[data-id="{old}"] .badge')).to_have_text("archive")
    shot(page, "archive.png")

    page.locator("#archive-tier").select_option("cold")
    row.get_by_role("button", name="Restore").click()
    expect(page.locator("#notice")).to_contain_text("Restored to the active tier")
    expect(page.locator("#archive-list .empty")).to_have_text("No memory is in the cold tier.")
    assert live.vault.get(cold, user_id="alice").tier is Tier.ACTIVE

    # The restore is a change like any other: the memories screen shows it and undoes it.
    open_screen(page, "Memories")
    restored = page.locator(f'#memories-list li.entry[data-id="{cold}"]')
    restored.get_by_role("button", name="History").click()
    expect(restored.locator(".history .changes").first).to_have_text("tier: cold → active")
    restored.get_by_role("button", name="Undo last change").click()
    expect(page.locator("#notice")).to_contain_text("Last change undone")
    assert live.vault.get(cold, user_id="alice").tier is Tier.COLD

    # An admin acting as alice restores the archived one.
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, live, live.admin)
    act_as(page, "alice")
    open_screen(page, "Archive")
    page.locator("#archive-tier").select_option("archive")
    page.locator(f'#archive-list li.entry[data-id="{old}"]').get_by_role(
        "button", name="Restore"
    ).click()
    expect(page.locator("#notice")).to_contain_text("Restored to the active tier")
    expect(page.locator("#archive-list .empty")).to_be_visible()
    assert live.vault.get(old, user_id="alice").tier is Tier.ACTIVE
    assert live.vault.get(cold, user_id="alice").tier is Tier.COLD


def test_decisions_show_state_moves_and_conflicts(page: Page, live: Live) -> None:
    pg = live.vault.add(PG, user_id="alice", kind="project", name="Main database", status="adopted")
    mysql = live.vault.add(MYSQL, user_id="alice", kind="project", status="proposed")
    assert mysql.metadata["conflicts_with"] == [pg.id]
    live.vault.add("Release every second Tuesday", user_id="alice", status="rejected")
    live.vault.add("Use MySQL for the main database too", user_id="bob", status="adopted")
    live.vault.add("Alice writes Go services", user_id="alice")  # not a decision

    sign_in(page, live, live.alice)
    open_screen(page, "Decisions")
    items = page.locator("#decisions-list li.entry")
    expect(items).to_have_count(3)
    expect(page.locator("#decisions-summary")).to_have_text(
        "3 decisions: 1 proposed · 1 adopted · 1 rejected"
    )
    row = page.locator(f'#decisions-list li.entry[data-id="{mysql.id}"]')
    expect(row.locator(".badge.state")).to_have_text("proposed")
    expect(row.locator(".moves li")).to_have_count(1)
    expect(row.locator(".moves li")).to_contain_text("written as proposed")
    conflict = row.locator("li.conflict")
    expect(conflict).to_contain_text(f"conflicts with adopted decision {pg.id}")
    conflict.get_by_role("button", name=pg.id).click()
    preview = conflict.locator(".conflict-preview")
    expect(preview.locator(".content")).to_have_text(PG)
    expect(preview.locator(".badge")).to_have_text("adopted")
    shot(page, "decisions.png")

    # A legal move, with its reason, is kept in the list of moves.
    row.get_by_label("Move to").select_option("pending")
    row.get_by_label("Reason").fill("benchmarks first")
    row.get_by_role("button", name="Move").click()
    expect(page.locator("#notice")).to_contain_text("Moved to pending")
    expect(row.locator(".badge.state")).to_have_text("pending")
    expect(row.locator(".moves li").last).to_contain_text("proposed → pending")
    expect(row.locator(".moves li").last).to_contain_text("benchmarks first")
    assert live.vault.get(mysql.id, user_id="alice").status is DecisionStatus.PENDING
    assert live.vault.decision_history(mysql.id, user_id="alice")[-1].reason == "benchmarks first"

    # The adopted side names the conflict too; adopting over it supersedes it.
    page.locator("#decisions-state").select_option("adopted")
    expect(items).to_have_count(1)
    adopted = page.locator(f'#decisions-list li.entry[data-id="{pg.id}"]')
    expect(adopted.locator("li.conflict")).to_contain_text(
        f"decision {mysql.id} conflicts with this one"
    )
    page.locator("#decisions-state").select_option("")
    expect(items).to_have_count(3)
    row.get_by_label("Move to").select_option("adopted")
    row.get_by_role("button", name="Move").click()
    expect(page.locator("#notice")).to_contain_text("Moved to adopted")
    superseded = page.locator(f'#decisions-list li.entry[data-id="{pg.id}"]')
    expect(superseded.locator(".badge.state")).to_have_text("superseded")
    expect(superseded.locator(".moves li").last).to_contain_text("adopted → superseded")
    assert live.vault.get(pg.id, user_id="alice").status is DecisionStatus.SUPERSEDED

    # Only the legal moves are offered: a rejected decision may be proposed again, or voided.
    rejected = items.filter(has_text="Release every second Tuesday")
    expect(rejected.locator(".moves li")).to_contain_text(["written as rejected"])
    expect(rejected.locator(".conflicts")).to_have_count(0)
    expect(rejected).not_to_contain_text("null")
    expect(rejected.get_by_label("Move to").locator("option")).to_have_text(
        ["choose a state", "proposed", "invalid"]
    )


def test_history_and_undo_from_the_memories_screen(page: Page, live: Live) -> None:
    entry = live.vault.add("Alice writes Go services", user_id="alice")
    sign_in(page, live, live.alice)
    open_screen(page, "Memories")
    row = page.locator(f'#memories-list li.entry[data-id="{entry.id}"]')
    row.get_by_role("button", name="History").click()
    expect(row.locator(".history li.version")).to_have_count(1)
    expect(row.locator(".history")).to_contain_text("Nothing to undo")
    expect(row.get_by_role("button", name="Undo last change")).to_be_hidden()
    row.get_by_role("button", name="Close").click()
    expect(row.locator(".history")).to_have_count(0)

    row.get_by_role("button", name="Edit").click()
    row.get_by_label("Edit content").fill("Alice writes Go and Rust services")
    row.get_by_role("button", name="Save").click()
    expect(row.locator(".content")).to_have_text("Alice writes Go and Rust services")

    row.get_by_role("button", name="History").click()
    versions = row.locator(".history li.version")
    expect(versions).to_have_count(2)
    expect(versions.first).to_contain_text("changed")
    expect(versions.first.locator(".changes")).to_have_text(
        "content: Alice writes Go services → Alice writes Go and Rust services"
    )
    expect(versions.first).to_contain_text("current")
    shot(page, "history.png")

    row.get_by_role("button", name="Undo last change").click()
    expect(page.locator("#notice")).to_contain_text("Last change undone")
    expect(row.locator(".content")).to_have_text("Alice writes Go services")
    assert live.vault.get(entry.id, user_id="alice").content == "Alice writes Go services"
    row.get_by_role("button", name="History").click()
    expect(row.locator(".history li.version")).to_have_count(3)
    expect(row.locator(".history li.version").first).to_contain_text("undone")

    # An admin acting as alice sees the same history, and a decision's moves.
    decision = live.vault.add(PG, user_id="alice", status="pending")
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, live, live.admin)
    act_as(page, "alice")
    open_screen(page, "Memories")
    row.get_by_role("button", name="History").click()
    expect(row.locator(".history li.version")).to_have_count(3)
    open_screen(page, "Decisions")
    pending = page.locator(f'#decisions-list li.entry[data-id="{decision.id}"]')
    pending.get_by_label("Move to").select_option("adopted")
    pending.get_by_role("button", name="Move").click()
    expect(pending.locator(".badge.state")).to_have_text("adopted")
    assert live.vault.get(decision.id, user_id="alice").status is DecisionStatus.ADOPTED


def test_a_late_answer_for_the_tier_left_does_not_replace_the_list(page: Page, live: Live) -> None:
    # The screen loads the cold tier when it opens; choosing "archive" loads that. When the
    # cold answer comes back last (a slow server), it must not overwrite the archive list
    # (it did, so a "Restore" the person aimed at an archived memory was not there).
    old = _aged(live, "Packing list for the 2024 ski trip", 400)
    cold = _aged(live, "Lunch with Mia on Friday", 8)
    held: list[Route] = []

    def hold_the_cold_tier(route: Route) -> None:
        if "tier=cold" in route.request.url and not held:
            held.append(route)  # answered below, after the archive tier's answer
        else:
            route.continue_()

    page.route("**/v1/memories?*", hold_the_cold_tier)
    sign_in(page, live, live.alice)
    open_screen(page, "Archive")
    page.locator("#archive-tier").select_option("archive")
    expect(page.locator(f'#archive-list li.entry[data-id="{old}"]')).to_be_visible()
    release(page, held)
    expect(page.locator(f'#archive-list li.entry[data-id="{cold}"]')).to_have_count(0)
    expect(page.locator(f'#archive-list li.entry[data-id="{old}"]')).to_be_visible()
    expect(page.locator("#archive-summary")).to_have_text("1 memory in archive")
