"""Presets and the budget allocator: the shipped presets load and validate, and the
allocator keeps its contract on any preset, window and sizes (property-tested)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.errors import ConfigError, ValidationError
from memvault.render import count_tokens
from memvault.workspace.allocator import CUT_MARK, Allocation, allocate, fit_text, measure
from memvault.workspace.presets import (
    COMPONENTS,
    PRESET_NAMES,
    Preset,
    get_preset,
    load_presets,
    shipped_presets,
)

# -- the shipped presets --------------------------------------------------------------


def test_shipped_presets_are_task_daily_blank() -> None:
    presets = shipped_presets()
    assert tuple(presets) == PRESET_NAMES == ("task", "daily", "blank")
    task, daily, blank = presets["task"], presets["daily"], presets["blank"]
    assert task.budget_profile.name == "task-default"
    assert daily.budget_profile.name == "daily-default"
    assert [c.component for c in task.ordered()] == [
        "state_card",
        "memories",
        "task_board",
        "snapshot",
    ]
    assert not daily.includes("task_board")  # daily mode has no task board (seed 004)
    assert blank.priority_allocation == () and blank.budget_profile.budget(128_000) == 0
    for preset in presets.values():
        for line in preset.priority_allocation:
            assert line.max_tokens is None or line.max_tokens >= line.min_tokens


def test_budget_is_the_profile_cap_within_the_window_share() -> None:
    profile = get_preset("task").budget_profile
    assert profile.budget(200_000) == 6000  # the absolute cap
    assert profile.budget(8000) == 1200  # 15 % of a small window
    assert profile.budget(1) == 0


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(ValidationError, match="task, daily, blank"):
        get_preset("coding")


def _preset(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "budget_profile": {"name": "p", "max_tokens": 1000, "window_share": 0.5},
        "priority_allocation": [
            {"component": "memories", "priority": 1, "min_tokens": 100},
            {"component": "snapshot", "priority": 2, "min_tokens": 50, "max_tokens": 400},
        ],
    }
    body.update(overrides)
    return body


def _write(tmp_path: Path, presets: dict[str, Any]) -> Path:
    path = tmp_path / "presets.json"
    path.write_text(json.dumps(presets), encoding="utf-8")
    return path


def test_a_preset_file_of_ones_own_loads(tmp_path: Path) -> None:
    loaded = load_presets(_write(tmp_path, {"mine": _preset(top_k=3)}))
    assert loaded["mine"].name == "mine" and loaded["mine"].top_k == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {
                "priority_allocation": [
                    {"component": "memories", "priority": 1, "min_tokens": 1},
                    {"component": "snapshot", "priority": 1, "min_tokens": 1},
                ]
            },
            "share a priority",
        ),
        (
            {
                "priority_allocation": [
                    {"component": "memories", "priority": 1, "min_tokens": 1},
                    {"component": "memories", "priority": 2, "min_tokens": 1},
                ]
            },
            "listed twice",
        ),
        (
            {
                "priority_allocation": [
                    {"component": "memories", "priority": 1, "min_tokens": 500, "max_tokens": 9}
                ]
            },
            "below min_tokens",
        ),
        ({"priority_allocation": [{"component": "weather", "priority": 1, "min_tokens": 1}]}, ""),
        ({"budget_profile": {"name": "p", "max_tokens": 10, "window_share": 1.5}}, ""),
        ({"budget_profile": {"name": "p", "max_tokens": -1, "window_share": 0.5}}, ""),
        ({"surprise": True}, ""),
    ],
)
def test_invalid_presets_name_the_file_and_preset(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = _write(tmp_path, {"mine": _preset(**change)})
    with pytest.raises(ConfigError, match="preset 'mine' is invalid") as caught:
        load_presets(path)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_unreadable_preset_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_presets(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read"):
        load_presets(bad)
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(ConfigError, match="JSON object of presets"):
        load_presets(bad)


# -- the allocator, by example -------------------------------------------------------


def test_minimums_first_then_the_rest_by_priority() -> None:
    task = get_preset("task")  # budget 1200 in an 8000-token window
    report = allocate(
        task,
        window=8000,
        wanted={"state_card": 500, "memories": 3000, "snapshot": 900, "task_board": 100},
    )
    got = {g.component: g.granted for g in report.grants}
    # minimums: card 256, memories 400, board 100 (wants less than its 128), snapshot 200;
    # the remaining 244 go to the card first (it wants 244 more), nothing is left after.
    assert got == {"state_card": 500, "memories": 400, "task_board": 100, "snapshot": 200}
    assert report.budget == report.used == 1200 and report.minimums_fit
    memories = report.grant("memories")
    assert memories is not None
    assert (memories.asked, memories.cut, memories.reason) == (2400, 2600, "budget")


def test_a_small_window_cannot_hold_the_minimums() -> None:
    report = allocate(
        get_preset("task"),
        window=2000,  # budget 300
        wanted={"state_card": 500, "memories": 3000, "snapshot": 900},
    )
    assert not report.minimums_fit
    assert [(g.component, g.granted, g.reason) for g in report.grants] == [
        ("state_card", 256, "budget"),
        ("memories", 44, "below_minimum"),
        ("task_board", 0, None),
        ("snapshot", 0, "below_minimum"),
    ]


def test_components_the_preset_leaves_out_are_reported_cut() -> None:
    report = allocate(get_preset("daily"), window=100_000, wanted={"task_board": 300})
    board = report.grant("task_board")
    assert board is not None and board.granted == 0 and board.reason == "not_in_preset"
    blank = allocate(get_preset("blank"), window=100_000, wanted={"memories": 50})
    assert blank.budget == 0 and blank.used == 0 and blank.grants[0].reason == "not_in_preset"


@pytest.mark.parametrize("window", [0, -5, 1.5, True, "8000", 10**9])
def test_bad_windows_are_refused(window: Any) -> None:
    with pytest.raises(ValidationError, match="context window"):
        allocate(get_preset("task"), window=window, wanted={})


@pytest.mark.parametrize(
    "wanted", [{"weather": 1}, {"memories": -1}, {"memories": 1.0}, {"memories": True}, [1]]
)
def test_bad_sizes_are_refused(wanted: Any) -> None:
    with pytest.raises(ValidationError):
        allocate(get_preset("task"), window=8000, wanted=wanted)


def test_fit_text_keeps_whole_lines_and_says_it_cut() -> None:
    text = "\n".join(f"line number {i} of the card" for i in range(40))
    assert fit_text(text, 10_000) == text
    cut = fit_text(text, 40)
    assert cut.endswith(CUT_MARK) and count_tokens(cut) <= 40
    assert text.startswith(cut.removesuffix(CUT_MARK).rstrip("\n"))
    assert fit_text(text, 3) == ""
    assert measure({"snapshot": text})["snapshot"] == count_tokens(text)


# -- the allocator's contract, on any input -------------------------------------------


@st.composite
def presets(draw: st.DrawFn) -> Preset:
    names = draw(st.lists(st.sampled_from(COMPONENTS), unique=True, max_size=len(COMPONENTS)))
    priorities = draw(
        st.lists(st.integers(1, 50), unique=True, min_size=len(names), max_size=len(names))
    )
    lines = []
    for name, priority in zip(names, priorities, strict=True):
        low = draw(st.integers(0, 3000))
        high = draw(st.none() | st.integers(max(low, 1), 6000))
        lines.append(
            {"component": name, "priority": priority, "min_tokens": low, "max_tokens": high}
        )
    profile = {
        "name": "drawn",
        "max_tokens": draw(st.integers(0, 20_000)),
        "window_share": draw(st.floats(0.01, 1.0)),
    }
    return Preset.model_validate(
        {"name": "drawn", "budget_profile": profile, "priority_allocation": lines}
    )


wanted_sizes = st.dictionaries(st.sampled_from(COMPONENTS), st.integers(0, 8000))
windows = st.integers(1, 200_000)


def _asked(preset: Preset, wanted: dict[str, int]) -> list[int]:
    return [
        min(wanted.get(c.component, 0), c.max_tokens if c.max_tokens is not None else 10**9)
        for c in preset.ordered()
    ]


def _floors(preset: Preset, asked: list[int]) -> list[int]:
    return [min(a, c.min_tokens) for a, c in zip(asked, preset.ordered(), strict=True)]


def _granted(preset: Preset, report: Allocation) -> list[int]:
    return [report.granted(c.component) for c in preset.ordered()]


@settings(max_examples=300)
@given(presets(), windows, wanted_sizes)
def test_never_over_the_budget_or_the_window(
    preset: Preset, window: int, wanted: dict[str, int]
) -> None:
    report = allocate(preset, window=window, wanted=wanted)
    assert report.budget == preset.budget_profile.budget(window) <= window
    assert 0 <= report.used <= report.budget
    for g in report.grants:
        assert 0 <= g.granted <= g.asked <= g.wanted
        assert g.wanted == wanted.get(g.component, 0)


@settings(max_examples=300)
@given(presets(), windows, wanted_sizes)
def test_minimums_are_honoured_when_they_fit(
    preset: Preset, window: int, wanted: dict[str, int]
) -> None:
    report = allocate(preset, window=window, wanted=wanted)
    floors = _floors(preset, _asked(preset, wanted))
    assert report.minimums_fit == (sum(floors) <= report.budget)
    if report.minimums_fit:
        assert all(g >= f for g, f in zip(_granted(preset, report), floors, strict=True))
        assert not any(g.reason == "below_minimum" for g in report.grants)


@settings(max_examples=300)
@given(presets(), windows, wanted_sizes)
def test_a_higher_priority_is_never_starved_for_a_lower_one(
    preset: Preset, window: int, wanted: dict[str, int]
) -> None:
    report = allocate(preset, window=window, wanted=wanted)
    order = preset.ordered()
    asked = _asked(preset, wanted)
    granted = _granted(preset, report)
    floors = _floors(preset, asked)
    for hi in range(len(order)):
        for lo in range(hi + 1, len(order)):
            if granted[hi] < floors[hi]:  # not even its minimum: nothing below it gets any
                assert granted[lo] == 0
            if granted[hi] < asked[hi]:  # short of what it asked: nothing below gets extra
                assert granted[lo] <= floors[lo]


@settings(max_examples=300)
@given(presets(), windows, wanted_sizes)
def test_give_back_conserves_tokens(preset: Preset, window: int, wanted: dict[str, int]) -> None:
    report = allocate(preset, window=window, wanted=wanted)
    asked = _asked(preset, wanted)
    assert report.used + report.unused == report.budget
    assert report.used == min(report.budget, sum(asked))  # nothing unused while one wants more
    if report.unused > 0:
        assert _granted(preset, report) == asked


@settings(max_examples=200)
@given(presets(), windows, wanted_sizes, st.randoms(use_true_random=False))
def test_deterministic_whatever_the_order_of_the_inputs(
    preset: Preset, window: int, wanted: dict[str, int], rng: random.Random
) -> None:
    report = allocate(preset, window=window, wanted=wanted)
    assert allocate(preset, window=window, wanted=dict(wanted)) == report
    lines = list(preset.priority_allocation)
    rng.shuffle(lines)
    shuffled = preset.model_copy(update={"priority_allocation": tuple(lines)})
    items = list(wanted.items())
    rng.shuffle(items)
    assert allocate(shuffled, window=window, wanted=dict(items)) == report


@settings(max_examples=200)
@given(presets(), windows, wanted_sizes)
def test_a_bigger_window_never_gives_a_component_less(
    preset: Preset, window: int, wanted: dict[str, int]
) -> None:
    small = allocate(preset, window=window, wanted=wanted)
    large = allocate(preset, window=window * 2, wanted=wanted)
    for c in preset.ordered():
        assert large.granted(c.component) >= small.granted(c.component)
