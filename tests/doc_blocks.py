"""Finding and running the code blocks of Markdown pages (README.md and docs/*.md).

Shared by tests/docs/test_readme.py and tests/docs/test_blocks.py. The rules, which the
pages' authors write for:

Which blocks run
    Only fences tagged ```python and ```console. Fences tagged ``bash``, ``sh``,
    ``text``, ``json``, ``yaml`` ... are shown to the reader and never run (use them for
    commands that do not return, such as ``memvault serve``, or that need an outside
    service).

Where they run
    Each block runs alone, in a fresh temporary directory that is its working directory,
    with its own empty ``MEMVAULT_HOME`` (``<tmp>/home``), the venv's ``bin`` first on
    ``PATH`` (so ``memvault`` and ``python`` are this checkout's), ``PYTHONPATH`` set to
    this checkout's ``src``, and no ``MEMVAULT_*`` or ``OPENAI_*`` variable inherited.
    ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` point at a loopback chat server speaking
    the OpenAI wire protocol (tests/fakes/openai_chat.py), which answers every request
    with the text "Noted." (no tool calls); a block that builds an OpenAI client from
    the environment talks to it, unchanged. ``COLUMNS`` is 120.

Python blocks
    Run as a script by this interpreter; the block passes when it exits with 0. Unlike
    console blocks, they run with the venv's ``bin`` taken *off* ``PATH``: a reader runs
    them with the venv's ``python`` without activating it, so a block that starts
    memvault starts ``sys.executable -m memvault``, never a bare ``memvault``. A block
    directly followed (blank lines only between) by a ```` ```text output ```` fence must
    print that text: its stdout is compared as a console command's output is (below).

Blocks that need a service: marks
    Words after the language in the fence's info string ask the runner for a service,
    started for that block alone and stopped after it (an unknown word fails the block):

    ``server``  (```` ```console server ````) a ``memvault serve`` of the block's home on
        a free 127.0.0.1 port, with two keys made beforehand: ``$MEMVAULT_KEY`` is a
        user key of ``alice``, ``$MEMVAULT_ADMIN_KEY`` an admin key; ``$MEMVAULT_URL``
        is the server's address. The address the pages write, ``127.0.0.1:8765`` or
        ``localhost:8765``, is replaced by the real one in the block's text, and the
        real one by ``127.0.0.1:8765`` in what it prints.
    ``llm``  the ``MEMVAULT_LLM_*`` variables point memvault's own LLM calls at the
        loopback chat server (model ``fake-chat``), as ``OPENAI_*`` do for clients.

Console blocks
    A line starting with ``$ `` is a command; a command line ending in ``\\`` goes on
    with the next line. Every other line, up to the next command, is the output the
    command must print (stdout and stderr together, in order). The commands of one block
    run one after the other in one ``bash`` (same home, same shell variables; stdin
    empty), so ``ID=$(...)`` in one command is seen by the next. A command that exits
    non-zero fails the block: to show an error, write ``... || echo "exit $?"`` and list
    the ``exit 2`` line among the output.

    Output is compared line by line after these normalisations, applied to both sides:
    trailing spaces are dropped and so are blank lines at the start and end of a
    command's output; every 32-digit hex id becomes ``<id>``; every ISO 8601 timestamp
    (``2026-12-02T02:43:46.207118+00:00``, with or without fraction and offset) becomes
    ``<time>``; an API key (``mv_<id>_<secret>``) becomes ``<key>`` and a key's
    12-digit hex id ``<key-id>``, since a new key's secret is shown once and never the
    same twice. An expected line that is exactly ``...`` matches any number of actual
    lines (none included). A command followed by no output lines must print nothing.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.fakes.openai_chat import FakeChatServer, Reply
from tests.waiting import until

ROOT = Path(__file__).parents[1]
SRC = ROOT / "src"

_FENCE = re.compile(
    r"^```(python|console)((?:[ \t]+[a-z]+)*)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE
)
_OUTPUT = re.compile(r"\n(?:[ \t]*\n)*```text[ \t]+output[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKS = frozenset({"server", "llm"})
_KEY = re.compile(r"\bmv_[0-9a-f]{12}_[A-Za-z0-9_-]+")
_KEY_ID = re.compile(r"\b[0-9a-f]{12}\b")
_ID = re.compile(r"\b[0-9a-f]{32}\b")
_PAGE_ADDRESS = re.compile(r"\b(?:127\.0\.0\.1|localhost):8765\b")
_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?")
_MARK = "@@memvault-doc-block"


@dataclass(frozen=True)
class Block:
    """One runnable fence: the page, the line of its opening fence, its language, its
    text, the services its info string asks for (see "marks" above) and, for a Python
    block, the output the page shows for it (None: only its exit status counts)."""

    page: Path
    line: int
    lang: str
    code: str
    marks: tuple[str, ...] = ()
    output: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page.name}:{self.line}"


def blocks(page: Path, lang: str | None = None) -> list[Block]:
    """The runnable blocks of ``page`` in order (only ``lang``'s when given)."""
    text = page.read_text(encoding="utf-8")
    found = []
    for m in _FENCE.finditer(text):
        shown = _OUTPUT.match(text, m.end()) if m.group(1) == "python" else None
        found.append(
            Block(
                page,
                text.count("\n", 0, m.start()) + 1,
                m.group(1),
                m.group(3),
                tuple(m.group(2).split()),
                shown.group(1) if shown else None,
            )
        )
    return [b for b in found if lang is None or b.lang == lang]


def block_env(tmp_path: Path) -> dict[str, str]:
    """The environment a block runs in (see the module docstring)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMVAULT_", "OPENAI_")) and k != "PYTHONPATH"
    }
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MEMVAULT_HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = str(SRC)
    env["COLUMNS"] = "120"
    return env


Runner = Callable[[dict[str, str]], "subprocess.CompletedProcess[str]"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(url: str) -> bool:
    try:
        return httpx.get(url + "/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def _served(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """A ``memvault serve`` of the block's home, with a user and an admin key made first."""
    from memvault.server.keys import KeyStore

    keys = KeyStore.in_home(Path(env["MEMVAULT_HOME"]))
    _, user_key = keys.create(user_id="alice", label="doc block")
    _, admin_key = keys.create(user_id=None, label="doc block admin")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = Path(env["MEMVAULT_HOME"]).parent / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "memvault", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # 120 s is a start-up cap, not an assertion on speed
        until(lambda: server.poll() is not None or _ready(url), timeout=120)
        if server.poll() is not None:
            raise RuntimeError(f"memvault serve exited:\n{log.read_text()[-2000:]}")
        if not _ready(url):
            raise RuntimeError(f"memvault serve never got ready:\n{log.read_text()[-2000:]}")
        yield {
            **env,
            "MEMVAULT_URL": url,
            "MEMVAULT_KEY": user_key,
            "MEMVAULT_ADMIN_KEY": admin_key,
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _run_with_services(
    env: dict[str, str], marks: tuple[str, ...], run: Runner
) -> subprocess.CompletedProcess[str]:
    """Run ``run`` with the loopback chat server and the services ``marks`` ask for."""
    unknown = set(marks) - MARKS
    if unknown:
        raise ValueError(f"unknown block mark(s) {sorted(unknown)}: use {sorted(MARKS)}")
    with FakeChatServer(respond=lambda _body: Reply.text("Noted.")) as chat, ExitStack() as stack:
        env = {**env, "OPENAI_BASE_URL": chat.base_url, "OPENAI_API_KEY": "test"}
        if "llm" in marks:
            env.update(
                MEMVAULT_LLM_BASE_URL=chat.base_url,
                MEMVAULT_LLM_MODEL="fake-chat",
                MEMVAULT_LLM_API_KEY="test",
            )
        if "server" in marks:
            env = stack.enter_context(_served(env))
        return run(env)


def served_address(text: str, env: dict[str, str]) -> str:
    """``text`` with the pages' server address replaced by the running server's."""
    return _PAGE_ADDRESS.sub(env["MEMVAULT_URL"].removeprefix("http://"), text)


def python_env(tmp_path: Path) -> dict[str, str]:
    """A Python block's environment: a console block's without the venv's ``bin`` on
    ``PATH`` (the module docstring says why)."""
    env = block_env(tmp_path)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != venv_bin)
    return env


def run_python(
    code: str, tmp_path: Path, marks: tuple[str, ...] = (), timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run a Python block as a script; the caller checks ``returncode`` (and the output,
    with ``output_problems``)."""
    script = tmp_path / "block.py"

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        script.write_text(served_address(code, env) if "server" in marks else code, "utf-8")
        return subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return _run_with_services(python_env(tmp_path), marks, run)


def output_problems(block: Block, done: subprocess.CompletedProcess[str]) -> list[str]:
    """What is wrong with a Python block's run: its exit status, then its output against
    the ```text output fence the page shows after it (empty: it passed)."""
    if done.returncode != 0:
        return [f"{block.id} exited with {done.returncode}:\n{done.stderr[-3000:]}"]
    if block.output is None:
        return []
    want, have = normalise(block.output.splitlines()), normalise(done.stdout.splitlines())
    if matches(want, have):
        return []
    return [
        f"{block.id} printed other output\n  expected:\n"
        + "\n".join(want)
        + "\n  got:\n"
        + "\n".join(have)
    ]


@dataclass(frozen=True)
class Command:
    """One ``$ `` command of a console block and the output the page shows for it."""

    line: int  # within the block, from 1
    text: str
    expected: list[str]


def commands(code: str) -> list[Command]:
    """The commands of a console block, each with its expected output lines."""
    found: list[Command] = []
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if found:
                found[-1].expected.append(lines[i])
            elif lines[i].strip():
                raise ValueError(f"console block line {i + 1}: output before any `$ ` command")
            i += 1
            continue
        start, parts = i, [lines[i][2:]]
        while parts[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            parts.append(lines[i])
        found.append(Command(start + 1, "\n".join(parts), []))
        i += 1
    return found


def normalise(lines: list[str]) -> list[str]:
    """Trailing spaces, edge blank lines, ids, keys and timestamps evened out (module docstring)."""
    out = [
        _TIME.sub("<time>", _ID.sub("<id>", _KEY_ID.sub("<key-id>", _KEY.sub("<key>", line))))
        for line in (line.rstrip() for line in lines)
    ]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected``, where a ``...`` line stands for any lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and matches(rest, actual[1:])


def run_console(code: str, tmp_path: Path, marks: tuple[str, ...] = ()) -> list[str]:
    """Run a console block; the problems found, one message each (empty: it passed)."""
    cmds = commands(code)
    if not cmds:
        return ["a console block without any `$ ` command"]
    served: list[str] = []  # the server's real address, when the block has one

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        script = []
        for n, cmd in enumerate(cmds):
            text = served_address(cmd.text, env) if "server" in marks else cmd.text
            script.append(f"echo '{_MARK} {n}'")
            script.append(f"{{\n{text}\n}} 2>&1")
            script.append(f'echo "{_MARK}-status {n} $?"')
        (tmp_path / "block.sh").write_text("\n".join(script) + "\n", encoding="utf-8")
        if "server" in marks:
            served.append(env["MEMVAULT_URL"].removeprefix("http://"))
        return subprocess.run(
            ["bash", "--noprofile", "--norc", str(tmp_path / "block.sh")],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )

    done = _run_with_services(block_env(tmp_path), marks, run)
    stdout = done.stdout.replace(served[0], "127.0.0.1:8765") if served else done.stdout
    outputs: dict[int, list[str]] = {}
    statuses: dict[int, int] = {}
    current: int | None = None
    for line in stdout.splitlines():
        if _MARK + "-status " in line:  # output without a final newline runs into it
            last, line = line.split(_MARK + "-status ")
            if last and current is not None:
                outputs[current].append(last)
            n, status = line.split()
            statuses[int(n)] = int(status)
            current = None
        elif line.startswith(_MARK + " "):
            current = int(line.split()[1])
            outputs[current] = []
        elif current is not None:
            outputs[current].append(line)
    problems = []
    for n, cmd in enumerate(cmds):
        got = outputs.get(n)
        if got is None or n not in statuses:
            problems.append(f"$ {cmd.text}\n  never finished (stderr: {done.stderr[-2000:]})")
            continue
        if statuses[n] != 0:
            shown = "\n".join(got[-20:])
            problems.append(f"$ {cmd.text}\n  exited with {statuses[n]}:\n{shown}")
            continue
        want, have = normalise(cmd.expected), normalise(got)
        if not matches(want, have):
            problems.append(
                f"$ {cmd.text}\n  expected:\n" + "\n".join(want) + "\n  got:\n" + "\n".join(have)
            )
    return problems
