"""The panel's Entities screen in a real browser: alice's entity graph drawn as an SVG,
a node selected by click or keyboard showing its memories, zoom and pan changing the
viewBox, focusing on a node, finding one by name; bob and an admin acting for nobody
with memories see none of alice's graph."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.gateway_server import Live
from tests.panel_kit import act_as, browser, page, shot, sign_in  # noqa: F401 (pytest fixtures)
from tests.panel_kit import open_screen as _open

STORY = (
    "Caroline joined Project Helios in Berlin.",
    "Melanie visited Caroline in Berlin.",
    "Project Helios uses ClickHouse.",
)


def _tell(live: Live) -> list[str]:
    ids = [live.vault.add(text, user_id="alice").id for text in STORY]
    live.vault.add("Bob's Project Zeus.", user_id="bob")
    return ids


def _node(page: Page, name: str) -> Locator:
    return page.locator(f'#graph-canvas .node[aria-label^="{name} ("]')


def _box(page: Page) -> list[float]:
    raw = page.locator("#graph-canvas").get_attribute("viewBox")
    assert raw is not None
    return [float(v) for v in raw.split()]


def _spot(node: Locator) -> tuple[float, float]:
    """Where a node is drawn (its translate())."""
    moved = node.get_attribute("transform") or ""
    x, y = moved.removeprefix("translate(").removesuffix(")").split()
    return float(x), float(y)


def _open_graph(page: Page) -> None:
    _open(page, "Entities")


def test_the_graph_is_drawn_and_a_node_opens_its_memories(page: Page, live: Live) -> None:
    _tell(live)
    sign_in(page, live, live.alice)
    expect(page.locator("#who-label")).to_have_text("signed in as alice")
    _open_graph(page)
    circles = page.locator("#graph-canvas circle")
    expect(circles).to_have_count(5)
    expect(page.locator("#graph-summary")).to_have_text("5 entities, 6 relations")
    expect(page.locator("#graph-canvas line.edge")).to_have_count(6)
    titles = page.locator("#graph-canvas line.edge title").all_text_contents()
    assert "Berlin and Caroline: named together in 2 memories" in titles
    expect(page.locator("#graph-canvas text")).to_have_count(5)
    assert sorted(page.locator("#graph-canvas .node text").all_text_contents()) == [
        "Berlin",
        "Caroline",
        "ClickHouse",
        "Melanie",
        "Project Helios",
    ]
    # Bigger circles for entities more memories name.
    berlin = float(_node(page, "Berlin").locator("circle").get_attribute("r") or 0)
    melanie = float(_node(page, "Melanie").locator("circle").get_attribute("r") or 0)
    assert berlin > melanie > 0

    _node(page, "Melanie").click()
    detail = page.locator("#graph-detail")
    expect(detail.locator("h3")).to_have_text("Melanie")
    expect(detail.locator(".entries .content")).to_have_text([STORY[1]])
    expect(_node(page, "Melanie")).to_have_class("node kind-person selected")
    expect(page.locator("#graph-canvas line.edge.linked")).to_have_count(2)
    expect(detail.locator(".relations li")).to_have_count(2)

    # A relation's neighbour selects that node.
    detail.get_by_role("button", name="Berlin").click()
    expect(detail.locator("h3")).to_have_text("Berlin")
    expect(detail.locator(".entries .content")).to_have_count(2)
    expect(_node(page, "Melanie")).not_to_have_class("node kind-person selected")

    # Keyboard: a focused node is selected with Enter.
    _node(page, "ClickHouse").focus()
    page.keyboard.press("Enter")
    expect(detail.locator("h3")).to_have_text("ClickHouse")
    expect(detail.locator(".entries .content")).to_have_text([STORY[2]])
    expect(detail).to_contain_text("tool · named in 1 memory")
    page.get_by_role("button", name="Fit").click()
    shot(page, "entities.png")


def test_zoom_and_pan_change_the_view_box(page: Page, live: Live) -> None:
    _tell(live)
    sign_in(page, live, live.alice)
    _open_graph(page)
    expect(page.locator("#graph-canvas circle")).to_have_count(5)
    fitted = _box(page)

    page.get_by_role("button", name="Zoom in").click()
    closer = _box(page)
    assert closer[2] < fitted[2] and closer[3] < fitted[3]
    page.get_by_role("button", name="Zoom out").click()
    page.get_by_role("button", name="Zoom out").click()
    farther = _box(page)
    assert farther[2] > fitted[2]
    page.get_by_role("button", name="Fit").click()
    assert _box(page) == fitted

    # The wheel zooms around the pointer.
    canvas = page.locator("#graph-canvas")
    area = canvas.bounding_box()
    assert area is not None
    page.mouse.move(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
    page.mouse.wheel(0, -300)
    expect(canvas).not_to_have_attribute("viewBox", " ".join(f"{v:.1f}" for v in fitted))
    assert _box(page)[2] < fitted[2]
    page.get_by_role("button", name="Fit").click()

    # Dragging the background pans: the view moves against the drag, its size stays.
    start = (area["x"] + 12, area["y"] + 12)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 120, start[1] + 60, steps=6)
    page.mouse.up()
    panned = _box(page)
    assert panned[0] < fitted[0] and panned[1] < fitted[1]
    assert panned[2:] == fitted[2:]
    # A drag is not a click: nothing got selected.
    expect(page.locator("#graph-canvas .node.selected")).to_have_count(0)

    # A click on the background lets go of the selected node.
    page.get_by_role("button", name="Fit").click()
    _node(page, "Melanie").click()
    expect(page.locator("#graph-canvas .node.selected")).to_have_count(1)
    page.mouse.click(*start)
    expect(page.locator("#graph-canvas .node.selected")).to_have_count(0)
    expect(page.locator("#graph-detail")).to_have_text(
        "Select a node to see its names, relations and memories."
    )

    # Panned far away, a node reached with the keyboard is brought back into view.
    for _ in range(3):
        page.mouse.move(area["x"] + 5, area["y"] + 5)
        page.mouse.down()
        page.mouse.move(area["x"] + area["width"] - 5, area["y"] + area["height"] - 5, steps=4)
        page.mouse.up()
    expect(page.locator("#graph-canvas .node.selected")).to_have_count(0)
    caroline = _node(page, "Caroline")
    x, y = _spot(caroline)
    left, top, width, height = _box(page)
    assert not (left <= x <= left + width and top <= y <= top + height)
    caroline.focus()
    left, top, width, height = _box(page)
    assert left <= x <= left + width and top <= y <= top + height


def test_focus_and_find_redraw_around_a_node(page: Page, live: Live) -> None:
    ids = _tell(live)
    sign_in(page, live, live.alice)
    _open_graph(page)
    expect(page.locator("#graph-canvas circle")).to_have_count(5)

    page.get_by_label("Find an entity").fill("click")
    page.get_by_role("button", name="Find").click()
    detail = page.locator("#graph-detail")
    expect(detail.locator("h3")).to_have_text("ClickHouse")
    detail.get_by_role("button", name="Focus").click()
    # Two steps from ClickHouse: Project Helios, then Caroline and Berlin; not Melanie.
    expect(page.locator("#graph-canvas circle")).to_have_count(4)
    expect(_node(page, "Melanie")).to_have_count(0)
    expect(page.locator("#graph-summary")).to_contain_text("Around “ClickHouse”")
    expect(page.locator("#graph-canvas .node.center")).to_have_count(1)
    expect(_node(page, "ClickHouse")).to_have_class("node kind-tool center selected")

    # Finding a name that is not drawn redraws the graph around it.
    page.get_by_label("Find an entity").fill("melanie")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#graph-summary")).to_contain_text("Around “Melanie”")
    expect(detail.locator(".entries .content")).to_have_text([STORY[1]])
    page.get_by_role("button", name="All entities").click()
    expect(page.locator("#graph-canvas circle")).to_have_count(5)
    expect(page.locator("#graph-summary")).to_have_text("5 entities, 6 relations")

    # Focusing on an entity gone meanwhile says so and keeps the graph drawn.
    _node(page, "Melanie").click()
    expect(detail.locator(".entries .content")).to_have_text([STORY[1]])
    live.vault.delete(ids[1], user_id="alice")
    detail.get_by_role("button", name="Focus").click()
    expect(page.locator("#notice")).to_contain_text("no entity named 'Melanie'")
    expect(page.locator("#graph-canvas circle")).to_have_count(5)
    expect(page.locator("#graph-summary")).to_have_text("5 entities, 6 relations")
    expect(page.get_by_role("button", name="All entities")).to_be_hidden()


def test_bob_and_an_admin_see_only_the_graph_of_whom_they_act_for(page: Page, live: Live) -> None:
    _tell(live)
    sign_in(page, live, live.bob)
    expect(page.locator("#who-label")).to_have_text("signed in as bob")
    _open_graph(page)
    expect(page.locator("#graph-canvas circle")).to_have_count(2)
    assert sorted(page.locator("#graph-canvas .node text").all_text_contents()) == [
        "Bob",
        "Project Zeus",
    ]
    page.get_by_label("Find an entity").fill("Caroline")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#notice")).to_contain_text("No entity is named like “Caroline”")
    expect(page.locator("#screen-graph")).not_to_contain_text("Caroline joined")
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, live, live.admin)
    act_as(page, "alice")
    _open_graph(page)
    expect(page.locator("#graph-canvas circle")).to_have_count(5)
    _node(page, "Caroline").click()
    expect(page.locator("#graph-detail .entries .content")).to_have_count(2)

    # Acting for someone with no memories: the empty state, nothing of alice's left.
    act_as(page, "carol")
    _open_graph(page)
    expect(page.locator("#graph-empty")).to_be_visible()
    expect(page.locator("#graph-canvas circle")).to_have_count(0)
    expect(page.locator("#graph-canvas")).to_be_hidden()
    expect(page.locator(".graph-legend")).to_be_hidden()
    expect(page.locator("#graph-detail")).not_to_contain_text("Caroline")
    expect(page.locator("#graph-summary")).to_have_text("0 entities, 0 relations")
