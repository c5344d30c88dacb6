"""What every panel test module shares: the real Chromium (Debian's, never downloaded),
a real authenticated gateway on loopback, a tab that fails the test if the panel fetches
anything from elsewhere, sign-in and screenshots.

A module pulls the fixtures in by name::

    from tests.panel_kit import browser, page  # noqa: F401 (pytest fixtures)

Screenshots go to a temporary folder unless ``MEMVAULT_SCREENSHOTS`` names one; the
committed images are refreshed with ``MEMVAULT_SCREENSHOTS=docs/screenshots``, so an
ordinary test run never dirties the work tree.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from .gateway_server import Live

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# The size the screenshots are taken at, and "the first screen" of the fold checks.
VIEWPORT = {"width": 1400, "height": 900}
SCREENSHOTS = Path(
    os.environ.get("MEMVAULT_SCREENSHOTS") or tempfile.mkdtemp(prefix="memvault-shots-")
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`make test` does: "
            "apt-get install chromium); the panel tests never download a browser"
        )
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, live: Live) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    outside: list[str] = []
    errors: list[str] = []
    tab.on(
        "request",
        lambda r: None if r.url.startswith((live.url, "data:", "blob:")) else outside.append(r.url),
    )
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert outside == [], f"the panel fetched something outside the server: {outside}"
    assert errors == [], f"the panel threw: {errors}"


def sign_in(page: Page, live: Live, key: str) -> None:
    page.goto(f"{live.url}/panel")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()


def act_as(page: Page, user: str) -> None:
    """As an admin, act for ``user`` and wait until the panel does: the navigation is
    drawn anew for the user, so a link looked up before then may move into "More"."""
    page.locator("#act-as-user").fill(user)
    page.locator("#act-as").get_by_role("button", name="Act as").click()
    expect(page.locator("#who-label")).to_have_text(f"admin, acting as {user}")


def open_screen(page: Page, label: str, heading: str | None = None) -> None:
    """Click the navigation link ``label`` (opening "More" when it is in that menu) and
    wait for the screen's heading."""
    expect(page.locator("#nav")).to_be_visible()  # signed in
    link = page.locator("#nav").get_by_role("link", name=label, exact=True)
    if not link.is_visible() and page.locator("#nav-more").evaluate("m => !m.open"):
        page.locator("#nav-more summary").click()
    link.click()
    expect(page.locator(".screen:not([hidden]) h2")).to_have_text(heading or label)


def unfold(page: Page, form: str) -> None:
    """Show the Memories screen's ``add`` or ``filter`` form (folded away by default)."""
    if page.locator(f"#{form}-form").is_hidden():
        page.locator(f"#{form}-toggle").click()
    expect(page.locator(f"#{form}-form")).to_be_visible()


def shot(page: Page, name: str) -> None:
    """Save the whole page as ``name`` (a .png) with the notice hidden."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#notice").evaluate("box => { box.hidden = true; }")
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def release(page: Page, held: list[Route]) -> None:
    """Answer the request a test held back (``page.route``) and wait until the page's
    handler of that answer has run, so a late answer's effect can be checked."""
    assert held, "the request to hold was not seen"
    late = held[0].request
    with page.expect_event("requestfinished", lambda request: request == late):
        held[0].continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # its handler has run
