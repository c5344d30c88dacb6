"""The panel's Memories screen (folded long content, names and metadata, choices from the
server's enums, bulk delete, sort and dates, a clean slate on "Act as") and the Keys
screen (the copy button, an explicit user-or-admin choice), in Debian's Chromium against
a real authenticated server on loopback."""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.sync_api import Page, Route, expect

from memvault import Domain, Kind, MemClass, Tier
from memvault.model import EntryOrder
from tests.gateway_server import Live
from tests.panel_kit import act_as as _act_as
from tests.panel_kit import (  # noqa: F401 (fixtures)
    browser,
    open_screen,
    page,
    release,
    shot,
    unfold,
)
from tests.panel_kit import sign_in as _panel_sign_in

ITEMS = "#memories-list li.entry"


def _add(client: httpx.Client, content: str, **extra: Any) -> str:
    r = client.post("/v1/memories", json={"content": content, **extra})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _contents(live: Live, key: str, **params: Any) -> list[str]:
    with live.client(key) as client:
        r = client.get("/v1/memories", params={"limit": 100, **params})
    assert r.status_code == 200, r.text
    return [e["content"] for e in r.json()["items"]]


def _values(page: Page, select: str) -> list[str]:
    return list(page.locator(f"{select} option").evaluate_all("os => os.map(o => o.value)"))


def sign_in(page: Page, live: Live, key: str) -> None:
    """Sign in and open the Memories screen (Overview is the first screen)."""
    _panel_sign_in(page, live, key)
    open_screen(page, "Memories")


def _signed_in_as_alice(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    expect(page.locator("#who-label")).to_have_text("signed in as alice")


# -- 1. long content folds


def test_long_content_is_folded_behind_show_more(page: Page, live: Live) -> None:
    with live.client(live.alice) as alice:
        _add(alice, "short and sweet")
        _add(alice, "long " + "word " * 200 + "THE END")
        _add(alice, "\n".join(f"line {n}" for n in range(1, 9)))
    _signed_in_as_alice(page, live)
    items = page.locator(ITEMS)
    expect(items).to_have_count(3)
    short = items.filter(has_text="short and sweet")
    expect(short.get_by_role("button", name="Show more")).to_have_count(0)

    for marker in ("THE END", "line 8"):
        item = items.filter(has_text=marker)
        content = item.locator(".content")
        toggle = item.locator("button.fold")
        expect(toggle).to_have_text("Show more")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(toggle).to_have_attribute("aria-controls", content.get_attribute("id") or "?")
        expect(content).to_have_class("content folded")
        assert content.evaluate("c => c.scrollHeight > c.clientHeight"), marker
        toggle.click()
        expect(toggle).to_have_text("Show less")
        expect(toggle).to_have_attribute("aria-expanded", "true")
        expect(content).to_have_class("content")
        assert content.evaluate("c => c.scrollHeight <= c.clientHeight"), marker
        toggle.click()
        expect(toggle).to_have_text("Show more")
        expect(content).to_have_class("content folded")


# -- 2. names and metadata


def test_names_descriptions_and_metadata_are_shown_as_text(page: Page, live: Live) -> None:
    with live.client(live.alice) as alice:
        _add(
            alice,
            "Deploys go out on Tuesdays",
            name="Deploy <b>day</b>",
            description="when releases happen",
            metadata={"team": "platform", "ticket": 42, "tags": ["ops", "release"]},
        )
        _add(alice, "Many fields", metadata={f"field{n}": f"value {n}" for n in range(6)})
    _signed_in_as_alice(page, live)
    deploy = page.locator(ITEMS, has_text="Deploys go out")
    expect(deploy.locator(".name")).to_have_text("Deploy <b>day</b>")
    expect(page.locator("#memories-list b")).to_have_count(0)
    expect(deploy.locator(".description")).to_have_text("when releases happen")
    expect(deploy.get_by_label("Select “Deploy <b>day</b>”")).to_be_visible()
    pairs = deploy.locator("details.metadata")
    expect(pairs.locator("summary")).to_have_text("Metadata (3 fields)")
    expect(pairs.locator("dt")).to_have_text(["tags", "team", "ticket"])  # as stored: sorted
    expect(pairs.locator("dd")).to_have_text(['["ops","release"]', "platform", "42"])
    expect(pairs.locator("dd").first).to_be_visible()  # a few fields: open

    many = page.locator(ITEMS, has_text="Many fields").locator("details.metadata")
    expect(many.locator("summary")).to_have_text("Metadata (6 fields)")
    expect(many.locator("dd").first).to_be_hidden()  # many fields: folded until asked
    many.locator("summary").click()
    expect(many.locator("dd")).to_have_text([f"value {n}" for n in range(6)])
    expect(page.locator(ITEMS, has_text="Many fields").locator(".name")).to_have_count(0)


# -- 3. choices from the server's enums


def test_kind_class_tier_domain_and_sort_choices_match_the_enums(page: Page, live: Live) -> None:
    _signed_in_as_alice(page, live)
    expect(page.locator("#memories-list")).to_contain_text("No memories yet")
    kinds = [k.value for k in Kind]
    classes = [c.value for c in MemClass]
    domains = [d.value for d in Domain]
    assert _values(page, "#add-kind") == kinds
    assert _values(page, "#add-class") == classes
    assert _values(page, "#add-domain") == ["", *domains]
    assert _values(page, "#filter-kind") == ["", *kinds]
    assert _values(page, "#filter-class") == ["", *classes]
    assert _values(page, "#filter-tier") == ["", *[t.value for t in Tier]]
    assert _values(page, "#filter-domain") == ["", *domains]
    # The orders have words of their own in the page, so they are checked here.
    assert _values(page, "#filter-sort") == [o.value for o in EntryOrder]
    expect(page.locator("#add-kind")).to_have_value("user")
    expect(page.locator("#add-class")).to_have_value("semantic")
    expect(page.locator("#filter-class option[value=short_term]")).to_have_text("short term")

    page.locator("#add-content").fill("The launch checklist lives in the wiki")
    page.get_by_label("Name").fill("Launch checklist")
    page.locator("#add-kind").select_option("reference")
    page.locator("#add-class").select_option("process")
    page.locator("#add-domain").select_option("work")
    page.locator("#add-form").get_by_role("button", name="Add").click()
    expect(page.locator("#notice")).to_contain_text("Added memory")
    # The choices stay for the next memory, as the agent field does.
    expect(page.locator("#add-kind")).to_have_value("reference")
    page.locator("#add-content").fill("Alice keeps bees")
    page.locator("#add-kind").select_option("user")
    page.locator("#add-class").select_option(label="semantic")
    page.locator("#add-domain").select_option(label="(none)")
    page.locator("#add-form").get_by_role("button", name="Add").click()
    expect(page.locator(ITEMS)).to_have_count(2)
    with live.client(live.alice) as alice:
        entries = {e["content"]: e for e in alice.get("/v1/memories").json()["items"]}
    launch = entries["The launch checklist lives in the wiki"]
    assert (launch["name"], launch["kind"], launch["mem_class"], launch["domain"]) == (
        "Launch checklist",
        "reference",
        "process",
        "work",
    )
    bees = entries["Alice keeps bees"]
    assert (bees["kind"], bees["mem_class"], bees["domain"], bees["name"]) == (
        "user",
        "semantic",
        None,
        "",
    )

    unfold(page, "filter")
    page.locator("#filter-kind").select_option("reference")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(ITEMS)).to_have_count(1)
    expect(page.locator(ITEMS)).to_contain_text("launch checklist")
    page.locator("#filter-kind").select_option("")
    page.locator("#filter-class").select_option("semantic")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(ITEMS)).to_have_count(1)
    expect(page.locator(ITEMS)).to_contain_text("Alice keeps bees")
    page.locator("#filter-tier").select_option("cold")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#memories-list")).to_contain_text("No memory matches these filters")
    page.get_by_role("button", name="Reset").click()
    expect(page.locator(ITEMS)).to_have_count(2)
    expect(page.locator("#filter-tier")).to_have_value("")


# -- 4. "Act as" starts from a clean slate


def test_switching_the_acting_user_clears_search_and_filters(page: Page, live: Live) -> None:
    with live.client(live.bob) as bob:
        _add(bob, "Bob keeps bees", kind="project")
        _add(bob, "Bob likes tea")
    with live.client(live.alice) as alice:
        _add(alice, "Alice likes coffee")
    sign_in(page, live, live.admin)
    _act_as(page, "bob")
    expect(page.locator(ITEMS)).to_have_count(2)
    unfold(page, "filter")
    page.locator("#filter-kind").select_option("project")
    page.locator("#filter-sort").select_option("oldest")
    page.locator("#filter-from").fill("2020-01-01")
    page.locator("#filter-agent").fill("helper")
    page.locator("#filter-held").check()
    page.locator("#search-query").fill("bees")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("#memories-summary")).to_contain_text("for “bees”")
    page.locator(ITEMS).first.get_by_role("checkbox").check()

    _act_as(page, "alice")
    expect(page.locator("#search-query")).to_have_value("")
    for select, default in (
        ("#filter-kind", ""),
        ("#filter-class", ""),
        ("#filter-tier", ""),
        ("#filter-domain", ""),
        ("#filter-sort", "newest"),
    ):
        expect(page.locator(select)).to_have_value(default)
    for field in ("#filter-from", "#filter-to", "#filter-agent"):
        expect(page.locator(field)).to_have_value("")
    expect(page.locator("#filter-held")).not_to_be_checked()
    expect(page.locator("#memories-summary")).to_have_text("1 memory")
    expect(page.locator(f"{ITEMS} .content")).to_have_text(["Alice likes coffee"])
    expect(page.locator("#delete-selected")).to_have_text("Delete selected (0)")
    expect(page.locator("#delete-selected")).to_be_disabled()


# -- 5. bulk select and delete


def test_select_memories_and_delete_them_in_one_go(page: Page, live: Live) -> None:
    with live.client(live.alice) as alice:
        for n in range(3):
            _add(alice, f"alice note {n}")
        _add(
            alice,
            "Release notes: " + "every change since the last tag, one line each. " * 12,
            name="Release notes",
            metadata={"repo": "memvault", "since": "v0.9"},
        )
        _add(alice, "the helper's own note", agent_id="helper")
    with live.client(live.bob) as bob:
        _add(bob, "bob's note")
    _signed_in_as_alice(page, live)
    items = page.locator(ITEMS)
    expect(items).to_have_count(5)
    delete = page.locator("#delete-selected")
    expect(delete).to_be_disabled()
    items.filter(has_text="alice note 1").get_by_role("checkbox").check()
    items.filter(has_text="helper's own").get_by_role("checkbox").check()
    expect(delete).to_have_text("Delete selected (2)")
    select_all = page.get_by_label("Select all on this page")
    assert select_all.evaluate("box => box.indeterminate")
    delete.click()
    expect(delete).to_have_text("Confirm delete of 2 memories")
    expect(delete).to_have_class("danger armed")
    shot(page, "memories-bulk.png")
    # Changing the selection disarms the button: the count it confirms is the one shown.
    items.filter(has_text="alice note 2").get_by_role("checkbox").check()
    expect(delete).to_have_text("Delete selected (3)")
    items.filter(has_text="alice note 2").get_by_role("checkbox").uncheck()
    delete.click()
    delete.click()
    expect(page.locator("#notice")).to_have_text("Deleted 2 memories.")
    expect(items).to_have_count(3)
    left = _contents(live, live.alice)
    assert [c[:14] for c in left] == ["Release notes:", "alice note 2", "alice note 0"]
    assert _contents(live, live.bob) == ["bob's note"]

    select_all.check()
    expect(delete).to_have_text("Delete selected (3)")
    items.first.get_by_role("checkbox").uncheck()
    assert select_all.evaluate("box => box.indeterminate")
    items.first.get_by_role("checkbox").check()
    expect(select_all).to_be_checked()
    delete.click()
    delete.click()
    expect(page.locator("#notice")).to_have_text("Deleted 3 memories.")
    expect(page.locator("#memories-list")).to_contain_text("No memories yet")
    expect(page.locator("#memories-bulk")).to_be_hidden()
    assert _contents(live, live.alice) == []
    assert _contents(live, live.bob) == ["bob's note"]


def test_bulk_delete_pages_back_and_reports_ids_already_gone(page: Page, live: Live) -> None:
    with live.client(live.bob) as bob:
        ids = [_add(bob, f"bob note {n:02d}") for n in range(22)]
    sign_in(page, live, live.admin)
    _act_as(page, "bob")
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#page-label")).to_have_text("21–22 of 22")
    page.get_by_label("Select all on this page").check()
    # One of the two goes meanwhile (another tab): the answer says so.
    with live.client(live.bob) as bob:
        assert bob.delete(f"/v1/memories/{ids[0]}").status_code == 204
    page.locator("#delete-selected").click()
    page.locator("#delete-selected").click()
    expect(page.locator("#notice")).to_have_text("Deleted 1 memory; 1 was already gone.")
    expect(page.locator("#page-label")).to_have_text("1–20 of 20")
    assert len(_contents(live, live.bob)) == 20


# -- 6. sort and created dates


def _dated(live: Live, content: str, created: str, updated: str | None = None) -> None:
    record = {"content": content, "created_at": created, "updated_at": updated or created}
    live.vault.import_([json.dumps(record)], user_id="alice")


def test_sort_and_created_date_range(page: Page, live: Live) -> None:
    _dated(
        live,
        "written 1 May, edited in June",
        "2026-05-01T10:00:00+00:00",
        "2026-06-01T00:00:00+00:00",
    )
    _dated(live, "written 2 May", "2026-05-02T23:30:00+00:00")
    _dated(live, "written 3 May", "2026-05-03T00:00:00+00:00")
    _signed_in_as_alice(page, live)
    contents = page.locator(f"{ITEMS} .content")
    expect(contents).to_have_text(
        ["written 3 May", "written 2 May", "written 1 May, edited in June"]
    )
    unfold(page, "filter")
    page.get_by_label("Sort").select_option(label="Oldest first")
    page.get_by_role("button", name="Apply").click()
    expect(contents).to_have_text(
        ["written 1 May, edited in June", "written 2 May", "written 3 May"]
    )
    page.get_by_label("Sort").select_option(label="Recently updated")
    page.get_by_role("button", name="Apply").click()
    expect(contents.first).to_have_text("written 1 May, edited in June")
    expect(page.locator(ITEMS).first).to_contain_text("created 2026-05-01 10:00:00 UTC")

    # "Created to" includes its whole day; "Created from" starts at its midnight.
    page.get_by_label("Sort").select_option("newest")
    page.get_by_label("Created from").fill("2026-05-02")
    page.get_by_label("Created to").fill("2026-05-02")
    page.get_by_role("button", name="Apply").click()
    expect(contents).to_have_text(["written 2 May"])
    expect(page.locator("#memories-summary")).to_have_text("1 memory")
    page.get_by_label("Created to").fill("")
    page.get_by_role("button", name="Apply").click()
    expect(contents).to_have_text(["written 3 May", "written 2 May"])

    page.get_by_label("Created from").fill("2026-05-03")
    page.get_by_label("Created to").fill("2026-05-01")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#notice")).to_contain_text("“Created from” is after “Created to”")
    expect(contents).to_have_text(["written 3 May", "written 2 May"])  # the list as it was
    # Dates bound the list only: a search still runs, ranked by relevance.
    page.locator("#search-query").fill("written May")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("#memories-summary")).to_have_text("3 results for “written May”")
    page.get_by_role("button", name="Clear").click()
    expect(page.locator("#notice")).to_contain_text("“Created from” is after “Created to”")
    page.get_by_role("button", name="Reset").click()
    expect(contents).to_have_count(3)
    expect(page.get_by_label("Created from")).to_have_value("")


# -- 6b. a late answer does not draw over a newer one


def test_a_late_list_answer_does_not_replace_the_search_results(page: Page, live: Live) -> None:
    # Opening the screen loads the list; a search loads its results. When the list's
    # answer comes back last (a slow server), it must not overwrite the results (it did:
    # the search box said "bees" while the screen listed every memory).
    with live.client(live.alice) as alice:
        bees = _add(alice, "Alice keeps bees")
        go = _add(alice, "Alice writes Go services")
    held: list[Route] = []

    def hold_the_first_list(route: Route) -> None:
        if not held:
            held.append(route)  # answered below, after the search's answer
        else:
            route.continue_()

    page.route("**/v1/memories?*", hold_the_first_list)
    sign_in(page, live, live.alice)
    page.locator("#search-query").fill("bees")
    page.locator("#search-form").get_by_role("button", name="Search").click()
    expect(page.locator("#memories-summary")).to_have_text("1 result for “bees”")
    release(page, held)
    expect(page.locator(f'{ITEMS}[data-id="{go}"]')).to_have_count(0)
    expect(page.locator(f'{ITEMS}[data-id="{bees}"]')).to_be_visible()
    expect(page.locator("#memories-summary")).to_have_text("1 result for “bees”")


def test_a_late_answer_for_the_previous_user_draws_nothing_after_sign_out(
    page: Page, live: Live
) -> None:
    # Signing out (or acting for another user) resets the screen; a list still on its
    # way for the previous user drew into it afterwards, and the next person to sign
    # in on that browser saw it until their own list arrived.
    with live.client(live.bob) as bob:
        _add(bob, "Bob keeps bees")
    held: list[Route] = []

    def hold_bobs_list(route: Route) -> None:
        if not held and "user_id=bob" in route.request.url:
            held.append(route)  # answered below, after the sign-out
        else:
            route.continue_()

    page.route("**/v1/memories?*", hold_bobs_list)
    sign_in(page, live, live.admin)
    _act_as(page, "bob")
    expect(page.locator("#memories-list")).to_contain_text("Loading")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    release(page, held)
    expect(page.locator(ITEMS)).to_have_count(0)
    assert "Bob keeps bees" not in (page.locator("#memories-list").text_content() or "")


# -- 7. keys: copy, and an explicit user or admin choice


def test_new_key_needs_a_user_or_the_admin_box_and_copies(page: Page, live: Live) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    sign_in(page, live, live.admin)
    page.locator("#nav").get_by_role("link", name="Keys").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    expect(page.locator("#keys-table tbody tr")).to_have_count(3)

    page.get_by_label("Label").fill("no user")
    page.get_by_role("button", name="Create key").click()
    expect(page.locator("#notice")).to_contain_text(
        "Enter the user the key is for, or tick “Admin key (acts for any user)”"
    )
    with live.client(live.admin) as admin:
        assert len(admin.get("/v1/keys").json()["keys"]) == 3  # nothing was created
    expect(page.locator("#key-new")).to_be_hidden()

    user = page.get_by_label("For user")
    user.fill("dora")
    admin_box = page.get_by_label("Admin key (acts for any user)")
    admin_box.check()
    expect(user).to_be_disabled()
    expect(user).to_have_value("")
    page.get_by_role("button", name="Create key").click()
    expect(page.locator("#notice")).to_contain_text("for an admin")
    expect(page.locator("#key-for")).to_contain_text("An admin key")
    expect(admin_box).not_to_be_checked()
    expect(user).to_be_enabled()
    admin_secret = page.locator("#key-secret").inner_text()
    with live.client(admin_secret) as new_admin:
        assert new_admin.get("/v1/keys").status_code == 200

    user.fill("carol")
    page.get_by_label("Label").fill("carol's laptop")
    page.get_by_role("button", name="Create key").click()
    expect(page.locator("#notice")).to_contain_text("for carol")
    expect(page.locator("#key-for")).to_have_text(
        "For carol: it reaches only that user's memories."
    )
    secret = page.locator("#key-secret").inner_text()
    assert secret != admin_secret
    copy = page.locator("#key-copy")
    expect(copy).to_have_text("Copy")
    copy.click()
    expect(copy).to_have_text("Copied")
    expect(page.locator("#notice")).to_contain_text("on the clipboard")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    expect(page.locator("#keys-table tr", has_text="carol's laptop")).to_contain_text("carol")
    shot(page, "keys-new.png")
    with live.client(secret) as carol:
        assert carol.get("/v1/memories").status_code == 200
        assert carol.get("/v1/keys").status_code == 403

    # Signing out forgets the secret on show.
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#key-secret")).to_have_text("")
