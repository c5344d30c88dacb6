"""The panel as a new user meets it (issue 33, item 6), in Debian's Chromium at 1400×900
against a real authenticated gateway on loopback: a short navigation with the rest under
"More", no words of a provider the user never chose, the list of memories on the first
screen, the admin's landing on the users, a sign-in link whose key never reaches the
server, and the Playground that shows what the agent gets for a query."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.gateway_server import Live
from tests.panel_kit import (  # noqa: F401 (pytest fixtures)
    SCREENSHOTS,
    VIEWPORT,
    browser,
    open_screen,
    page,
    shot,
    sign_in,
)

MAX_NAV = 7
PROVIDER_WORDS = re.compile(r"hindsight|deerflow|\bbanks?\b", re.IGNORECASE)


def _bar_entries(page: Page) -> list[str]:
    """The navigation's top-level entries a person sees: its links and the "More" menu."""
    expect(page.locator("#nav")).to_be_visible()
    return page.evaluate(
        """() => [...document.querySelectorAll('#nav > a, #nav > details')]
             .filter((node) => node.offsetParent !== null)
             .map((node) => node.tagName === 'A' ? node.textContent
                                                 : node.querySelector('summary').textContent)"""
    )


def _menu(page: Page) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#nav-more .menu a')]
             .filter((a) => !a.hidden).map((a) => a.textContent)"""
    )


def test_a_user_sees_at_most_seven_entries_and_the_rest_under_more(page: Page, live: Live) -> None:
    sign_in(page, live, live.alice)
    expect(page.locator("#who-label")).to_have_text("signed in as alice")
    bar = _bar_entries(page)
    assert len(bar) <= MAX_NAV, bar
    assert bar[-1] == "More" and "Playground" in bar and "Memories" in bar
    menu = _menu(page)
    assert {"Archive", "Decisions", "Config", "Status", "Audit"} <= set(menu), menu
    # The agent's prompt files were never used: no second memory system in the menu.
    assert "Prompt files" not in menu and not any("USER.md" in m for m in bar + menu)
    open_screen(page, "Audit")  # a screen of the menu opens from it
    expect(page.locator("#nav-more summary")).to_have_class(re.compile(r"\bactive\b"))


def test_the_prompt_files_show_once_the_setup_uses_them(page: Page, live: Live) -> None:
    with live.client(live.alice) as alice:
        alice.post(
            "/api/memory/v2/entries", json={"target": "user", "content": "Alice likes tea"}
        ).raise_for_status()
    sign_in(page, live, live.alice)
    expect(page.locator("#who-label")).to_have_text("signed in as alice")
    assert "Prompt files" in _menu(page)
    open_screen(page, "Prompt files")
    # It says what the files are, so they do not read as a second memory system.
    expect(page.locator("#screen-files > .hint")).to_contain_text("Not your memories")


def test_the_first_prompt_file_entry_puts_the_screen_in_the_menu(page: Page, live: Live) -> None:
    sign_in(page, live, live.bob)
    expect(page.locator("#who-label")).to_have_text("signed in as bob")
    assert "Prompt files" not in _menu(page)
    page.goto(f"{live.url}/panel#files")  # the address still opens it
    user_md = page.locator("#file-user")
    user_md.get_by_label("New USER.md entry").fill("Bob keeps bees")
    user_md.get_by_role("button", name="Add to USER.md").click()
    expect(page.locator("#notice")).to_have_text("Added to USER.md.")
    expect(page.locator('#nav-more .menu a[data-screen="files"]:not([hidden])')).to_have_count(1)
    assert "Prompt files" in _menu(page)


def test_an_admin_lands_on_the_users_with_a_short_navigation(page: Page, live: Live) -> None:
    live.vault.add("Bob keeps bees", user_id="bob")
    sign_in(page, live, live.admin)
    expect(page.locator(".screen:not([hidden]) h2")).to_have_text("Users")
    expect(page.locator("#users-table tbody tr[data-user=bob] td").first).to_have_text("1")
    expect(page.locator("#notice")).to_be_hidden()
    bar = _bar_entries(page)
    assert len(bar) <= MAX_NAV, bar
    assert {"Keys", "Users"} <= set(bar)
    assert {"Maintenance", "Agents"} <= set(_menu(page))


def test_config_and_status_say_no_provider_words_the_user_never_chose(
    page: Page, live: Live
) -> None:
    sign_in(page, live, live.alice)
    open_screen(page, "Config")
    expect(page.locator('tr[data-field="injection.max_tokens"]')).to_be_visible()
    text = page.locator("#screen-config").inner_text()
    assert not PROVIDER_WORDS.search(text), PROVIDER_WORDS.findall(text)
    open_screen(page, "Status")
    expect(page.locator("#status")).to_contain_text("Search provider")
    expect(page.locator("#status")).to_contain_text("memvault, this server (connected)")
    text = page.locator("#status").inner_text()
    assert not PROVIDER_WORDS.search(text), PROVIDER_WORDS.findall(text)
    assert "USER.md" not in text


def test_the_memories_list_fills_the_first_screen(page: Page, live: Live) -> None:
    for n in range(12):
        live.vault.add(f"Alice's note number {n}: something worth keeping", user_id="alice")
    sign_in(page, live, live.alice)
    open_screen(page, "Memories")
    expect(page.locator("#memories-list li.entry")).to_have_count(12)
    above = page.evaluate(
        """(height) => [...document.querySelectorAll('#memories-list li.entry')]
             .filter((li) => li.getBoundingClientRect().bottom <= height).length""",
        VIEWPORT["height"],
    )
    page.locator("#notice").evaluate("box => { box.hidden = true; }")
    page.screenshot(path=str(SCREENSHOTS / "memories.png"))  # the first screen, as seen
    assert above >= 8, f"{above} memories above the fold at 1400×900"
    # The forms are one click away, and the folded filters say how many are in force.
    page.locator("#filter-toggle").click()
    page.locator("#filter-kind").select_option("project")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#filter-toggle")).to_have_text("Filters (1)")


def test_a_sign_in_link_keeps_the_key_in_the_fragment_and_drops_it(
    browser: Browser, live: Live
) -> None:
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    sent: list[str] = []
    tab.on("request", lambda r: sent.append(f"{r.url} {r.headers.get('referer', '')}"))
    try:
        tab.goto(f"{live.url}/panel#key={live.alice}")
        expect(tab.locator("#who-label")).to_have_text("signed in as alice")
        assert live.alice not in tab.url and "key=" not in tab.url, tab.url
        assert not any(live.alice in line for line in sent), sent
        tab.reload()  # the session keeps the key, as a typed one
        expect(tab.locator("#who-label")).to_have_text("signed in as alice")
        # A link with a dead key says so and leaves the form to paste a live one.
        tab.goto(f"{live.url}/panel#key=mv_not_a_key")
        expect(tab.locator("#notice")).to_contain_text("unknown or revoked")
        expect(tab.get_by_role("heading", name="Sign in")).to_be_visible()
        assert "mv_not_a_key" not in tab.url
    finally:
        context.close()


def test_the_playground_shows_the_block_the_gate_the_budget_and_why(page: Page, live: Live) -> None:
    live.vault.add("The team uses PostgreSQL for the billing service", user_id="alice")
    live.vault.add("Alice climbs on Sundays", user_id="alice")
    live.vault.add("The billing service deploys on Tuesdays", user_id="alice")
    live.vault.add("The billing page shows <b>totals</b> & taxes", user_id="alice")
    sign_in(page, live, live.alice)
    open_screen(page, "Playground")
    page.get_by_label("Query", exact=True).fill("which database does billing use?")
    page.get_by_role("button", name="Show what the agent gets").click()
    expect(page.locator("#pg-decision")).to_contain_text("The agent gets 3 memories")
    # The exact block, fence included, as Vault.context returns it.
    with live.client(live.alice) as alice:
        block = alice.post(
            "/v1/memories/context", json={"query": "which database does billing use?"}
        ).json()
    assert block["context"].startswith("<memory-context>")
    expect(page.locator("#pg-block")).to_have_text(block["context"])
    expect(page.locator("#pg-budget-line")).to_have_text(
        f"Budget: {block['tokens']} of {block['max_tokens']} tokens used"
    )
    expect(page.locator("#pg-gate")).to_contain_text("keywords only")
    rows = page.locator("#pg-hits tbody tr")
    kept = rows.filter(has_text="PostgreSQL")
    expect(kept.locator("td.use")).to_have_text("in the block")
    expect(kept.locator("td.why")).to_contain_text("found by keyword #")
    expect(kept.locator("td.why")).to_contain_text("a word of its own text matches")
    expect(rows.filter(has_text="climbs")).to_have_count(0)  # no channel found it
    # Escaped in the block (&lt;b&gt;), still recognised as in it.
    expect(rows.filter(has_text="<b>totals</b>").locator("td.use")).to_have_text("in the block")
    # Channels compared: each says what it found; ranking by one re-sorts the table.
    expect(page.locator('#pg-channels li[data-channel="keyword"]')).to_contain_text(
        "found 3 memories, 3 of them in the block"
    )
    page.get_by_label("Rank by").select_option("keyword")
    expect(rows.first.locator("td").nth(2)).to_contain_text("#1")
    shot(page, "playground.png")

    # A budget too small for any memory: the gate lets them in, the packing leaves them out.
    page.get_by_label("Budget", exact=True).fill("40")
    page.get_by_role("button", name="Show what the agent gets").click()
    expect(page.locator("#pg-decision")).to_contain_text("the agent gets no memory block")
    expect(kept.locator("td.use")).to_have_text("left out: over the budget")

    page.get_by_label("Budget", exact=True).fill("")
    page.get_by_label("Query", exact=True).fill("tell me a joke about cats")
    page.get_by_role("button", name="Show what the agent gets").click()
    expect(page.locator("#pg-decision")).to_have_text(
        "Nothing relevant: the agent gets no memory block for this query."
    )
    expect(page.locator("#pg-block")).to_contain_text("nothing is added")


def test_a_chinese_memory_renders_as_glyphs_in_a_screenshot(page: Page, live: Live) -> None:
    """Two different Chinese characters drawn apart must differ: with no CJK font both are
    the same missing-glyph box (tofu). ``make test`` installs fonts-noto-cjk."""
    live.vault.add("王小明在北京的清华大学读书，喜欢喝乌龙茶", user_id="alice")
    live.vault.add("项目代号：星河，用 PostgreSQL 存储", user_id="alice")
    sign_in(page, live, live.alice)
    open_screen(page, "Memories")
    expect(page.locator("#memories-list li.entry")).to_have_count(2)
    shot(page, "memories-chinese.png")
    pictures = []
    for char in ("王", "茶"):
        probe = page.evaluate(
            """(c) => { const s = document.createElement('span'); s.id = 'probe';
                 s.textContent = c; s.style.cssText = 'font-size:48px;display:inline-block;' +
                 'width:60px;height:60px;background:#fff;color:#000';
                 document.querySelector('#memories-list').prepend(s); return c; }""",
            char,
        )
        assert probe == char
        pictures.append(page.locator("#probe").screenshot())
        page.locator("#probe").evaluate("s => s.remove()")
    assert pictures[0] != pictures[1], "Chinese renders as tofu: install fonts-noto-cjk"


def test_every_picture_of_the_docs_is_taken_by_a_test_at_1400_wide() -> None:
    """docs/screenshots.md shows only pictures the panel tests take, at the panel tests'
    width (a PNG's width is bytes 16-20 of its header)."""
    root = Path(__file__).resolve().parents[3]
    page_text = (root / "docs" / "screenshots.md").read_text(encoding="utf-8")
    pictures = re.findall(r"\]\(screenshots/([\w.-]+\.png)\)", page_text)
    assert "playground.png" in pictures and "memories-chinese.png" in pictures
    tests = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("*.py"))
    for name in pictures:
        assert f'"{name}"' in tests, f"no panel test takes {name}"
        head = (root / "docs" / "screenshots" / name).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n", name
        assert int.from_bytes(head[16:20], "big") == VIEWPORT["width"], name
