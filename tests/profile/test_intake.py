"""Learning from raw conversation, the intake (issue 17 items 3 and 4): the message
filter of seed 001 §3.2 on every accepted shape (real LangChain messages included), and
the debounce queue of §3.3 with a hand-fired timer, so nothing sleeps."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memvault
from memvault.errors import ValidationError
from memvault.profile import DebounceQueue, Pending, filter_messages
from memvault.profile.debounce import daemon_timer

UPLOAD = "<uploaded_files>\n/mnt/data/report.pdf\n</uploaded_files>\n"


def test_the_seed_example_in_the_langchain_dict_shape() -> None:
    messages = [
        {"type": "human", "content": UPLOAD + "帮我看代码"},
        {"type": "ai", "content": "我来分析", "tool_calls": [{"name": "read_file", "args": {}}]},
        {"type": "tool", "content": "文件内容..."},
        {"type": "ai", "content": "这段代码的问题..."},
    ]
    kept = filter_messages(messages)
    assert [(m.role, m.content, m.index) for m in kept] == [
        ("user", "帮我看代码", 0),
        ("assistant", "这段代码的问题...", 3),
    ]


def test_openai_dicts_content_parts_and_dropped_roles() -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "I moved to Lisbon"},
                {"type": "image_url", "image_url": {"url": "x"}},
            ],
        },
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "content": "weather: sunny", "tool_call_id": "c1"},
        {"role": "assistant", "content": "Nice — Lisbon is sunny today.", "tool_calls": []},
        {"role": "user", "content": UPLOAD},  # only an upload: nothing to learn
        {"role": "developer", "content": "be brief"},
        {"role": "assistant", "content": "   "},
    ]
    kept = filter_messages(messages)
    assert [(m.role, m.content) for m in kept] == [
        ("user", "I moved to Lisbon"),
        ("assistant", "Nice — Lisbon is sunny today."),
    ]


def test_langchain_message_objects_and_messages_to_dict() -> None:
    messages_module = pytest.importorskip("langchain_core.messages")
    objects = [
        messages_module.SystemMessage("sys"),
        messages_module.HumanMessage(UPLOAD + "Call me Jo", id="h1"),
        messages_module.AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c"}]),
        messages_module.ToolMessage("result", tool_call_id="c"),
        messages_module.AIMessage("Hello Jo!", id="a1"),
    ]
    kept = filter_messages(objects)
    assert [(m.role, m.content, m.index, m.message_id) for m in kept] == [
        ("user", "Call me Jo", 1, "h1"),
        ("assistant", "Hello Jo!", 4, "a1"),
    ]
    as_dicts = messages_module.messages_to_dict(objects)
    assert [(m.role, m.content) for m in filter_messages(as_dicts)] == [
        (m.role, m.content) for m in kept
    ]


@pytest.mark.parametrize(
    ("messages", "says"),
    [
        ("hello", "list of chat messages"),
        ([{"content": "no role"}], r"messages\[0\] names no role"),
        (
            [{"role": "user", "content": "ok"}, {"role": "wizard", "content": "x"}],
            "unknown role 'wizard'",
        ),
        ([{"role": "user", "content": 42}], "content of type int"),
    ],
)
def test_bad_messages_are_clear_errors(messages: object, says: str) -> None:
    with pytest.raises(ValidationError, match=says) as err:
        filter_messages(messages)  # type: ignore[arg-type]
    assert err.value.context["field"] == "messages"


@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "tool", "system"]),
                "content": st.text(max_size=40),
                "tool_calls": st.sampled_from([[], [{"id": "c"}]]),
            }
        ),
        max_size=12,
    )
)
def test_kept_messages_are_exactly_the_rule(messages: list[dict[str, object]]) -> None:
    kept = filter_messages(messages)
    expected = [
        i
        for i, m in enumerate(messages)
        if (m["role"] == "user" and str(m["content"]).strip())
        or (m["role"] == "assistant" and not m["tool_calls"] and str(m["content"]).strip())
    ]
    assert [m.index for m in kept] == expected
    assert all(m.content == m.content.strip() and m.content for m in kept)


# -- the debounce queue ------------------------------------------------------------------


class HandTimer:
    """A timer that fires only when the test says so, recording every (re)start."""

    def __init__(self) -> None:
        self.armed: list[tuple[float, Callable[[], None], list[bool]]] = []

    def __call__(self, delay: float, fn: Callable[[], None]) -> HandTimer.Handle:
        cancelled = [False]
        self.armed.append((delay, fn, cancelled))
        return HandTimer.Handle(cancelled)

    class Handle:
        def __init__(self, cancelled: list[bool]) -> None:
            self.cancelled = cancelled

        def cancel(self) -> None:
            self.cancelled[0] = True

    def live(self) -> list[Callable[[], None]]:
        return [fn for _, fn, cancelled in self.armed if not cancelled[0]]

    def fire(self) -> None:
        (fn,) = self.live()  # exactly one timer runs at any time
        fn()


def test_one_extraction_per_quiet_period_with_the_latest_of_each_thread() -> None:
    timer = HandTimer()
    batches: list[list[Pending]] = []
    queue = DebounceQueue(batches.append, delay_s=30, schedule=timer, drain_at_exit=False)
    queue.add("t1", ["hi"], user_id="alice")
    queue.add("t1", ["hi", "I moved"], user_id="alice")  # the same thread: replaced
    queue.add("t2", ["other"], user_id="alice")
    queue.add("t1", ["hi"], user_id="bob")  # another user's thread of the same name
    assert len(timer.armed) == 4 and len(timer.live()) == 1  # restarted on every add
    assert all(delay == 30 for delay, _, _ in timer.armed)
    assert batches == [] and queue.pending() == 3
    timer.fire()
    assert len(batches) == 1
    assert [(p.user_id, p.thread_id, p.messages) for p in batches[0]] == [
        ("alice", "t1", ("hi", "I moved")),
        ("alice", "t2", ("other",)),
        ("bob", "t1", ("hi",)),
    ]
    assert queue.pending() == 0 and timer.live() == []
    queue.close()


def test_flush_and_close_drain_everything_and_close_refuses_more() -> None:
    timer = HandTimer()
    batches: list[list[Pending]] = []
    queue = DebounceQueue(batches.append, schedule=timer, drain_at_exit=False)
    assert queue.flush() == 0 and batches == []
    queue.add("t1", ["a"], user_id="alice", agent_id="coder")
    assert queue.flush() == 1 and batches[0][0].agent_id == "coder"
    queue.add("t2", ["b"], user_id="alice")
    queue.close()
    assert [p.thread_id for p in batches[1]] == ["t2"]
    with pytest.raises(ValidationError, match="closed"):
        queue.add("t3", ["c"], user_id="alice")
    queue.close()  # idempotent


def test_a_failed_batch_is_queued_again_and_a_newer_version_wins() -> None:
    timer = HandTimer()
    seen: list[list[tuple[str, tuple[object, ...], int]]] = []
    fail = [True]

    def process(batch: list[Pending]) -> None:
        seen.append([(p.thread_id, p.messages, p.attempts) for p in batch])
        if fail[0]:
            fail[0] = False
            queue.add("t2", ["newer"], user_id="alice")  # arrives while the batch fails
            raise RuntimeError("the LLM is down")

    queue = DebounceQueue(process, schedule=timer, drain_at_exit=False)
    queue.add("t1", ["one"], user_id="alice")
    queue.add("t2", ["older"], user_id="alice")
    timer.fire()
    assert queue.pending() == 2 and len(timer.live()) == 1
    timer.fire()
    assert seen[1] == [("t2", ("newer",), 0), ("t1", ("one",), 1)]
    assert queue.pending() == 0


def test_a_batch_that_keeps_failing_is_dropped_after_max_attempts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    timer = HandTimer()
    calls: list[int] = []

    def process(batch: list[Pending]) -> None:
        calls.append(len(batch))
        raise RuntimeError("still down")

    queue = DebounceQueue(process, schedule=timer, max_attempts=2, drain_at_exit=False)
    queue.add("t1", ["x"], user_id="alice")
    timer.fire()
    timer.fire()
    assert calls == [1, 1] and queue.pending() == 0 and timer.live() == []
    assert "dropped the conversation t1 of user alice after 2 failed attempts" in caplog.text


def test_concurrent_adds_from_many_threads_lose_nothing() -> None:
    timer = HandTimer()
    batches: list[list[Pending]] = []
    queue = DebounceQueue(batches.append, schedule=timer, drain_at_exit=False)

    def writer(n: int) -> None:
        for i in range(50):
            queue.add(f"t{n}", [i], user_id="alice")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(timer.live()) == 1
    timer.fire()
    assert sorted((p.thread_id, p.messages) for p in batches[0]) == [
        (f"t{n}", (49,)) for n in range(8)
    ]


def test_the_default_timer_is_a_daemon_and_really_fires() -> None:
    fired = threading.Event()
    handle = daemon_timer(0.01, fired.set)
    assert isinstance(handle, threading.Timer) and handle.daemon
    assert fired.wait(10)
    queue = DebounceQueue(lambda batch: None, delay_s=0, drain_at_exit=False)
    queue.add("t1", ["x"], user_id="alice")
    for _ in range(1000):
        if queue.pending() == 0:
            break
        threading.Event().wait(0.01)
    assert queue.pending() == 0
    queue.close()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"delay_s": -1}, "delay_s"),
        ({"delay_s": True}, "delay_s"),
        ({"max_attempts": 0}, "max_attempts"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        DebounceQueue(lambda batch: None, drain_at_exit=False, **kwargs)  # type: ignore[arg-type]
    assert err.value.context["field"] == field


@pytest.mark.parametrize(
    ("args", "field"),
    [(("", ["x"]), "thread_id"), (("t", "text"), "messages")],
)
def test_bad_adds_are_refused(args: tuple[object, object], field: str) -> None:
    queue = DebounceQueue(lambda batch: None, schedule=HandTimer(), drain_at_exit=False)
    with pytest.raises(ValidationError) as err:
        queue.add(*args, user_id="alice")  # type: ignore[arg-type]
    assert err.value.context["field"] == field
    with pytest.raises(ValidationError):
        queue.add("t", ["x"], user_id="")


def test_what_is_queued_at_interpreter_exit_is_processed(tmp_path: Path) -> None:
    out = tmp_path / "processed.txt"
    script = (
        "from memvault.profile import DebounceQueue\n"
        f"out = open({str(out)!r}, 'w')\n"
        "def process(batch):\n"
        "    out.write(','.join(p.thread_id for p in batch)); out.flush()\n"
        "queue = DebounceQueue(process, delay_s=3600)\n"
        "queue.add('t1', ['hi'], user_id='alice')\n"
        "queue.add('t2', ['hi'], user_id='alice')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(memvault.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=120, check=False)
    assert done.returncode == 0
    assert out.read_text() == "t1,t2"  # the hour-long timer did not hold the exit, nothing lost
