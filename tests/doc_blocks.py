"""Finding and running the code blocks of Markdown pages (README.md and docs/*.md).

Shared by tests/test_readme.py and tests/test_docs_blocks.py. The rules, which the
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
    Run as a script by this interpreter; the block passes when it exits with 0.

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
    ``<time>``. An expected line that is exactly ``...`` matches any number of actual
    lines (none included). A command followed by no output lines must print nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.openai_chat import FakeChatServer, Reply

ROOT = Path(__file__).parents[1]
SRC = ROOT / "src"

_FENCE = re.compile(r"^```(python|console)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_ID = re.compile(r"\b[0-9a-f]{32}\b")
_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?")
_MARK = "@@memvault-doc-block"


@dataclass(frozen=True)
class Block:
    """One runnable fence: the page, the line of its opening fence, its language, its text."""

    page: Path
    line: int
    lang: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page.name}:{self.line}"


def blocks(page: Path, lang: str | None = None) -> list[Block]:
    """The runnable blocks of ``page`` in order (only ``lang``'s when given)."""
    text = page.read_text(encoding="utf-8")
    found = [
        Block(page, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
        for m in _FENCE.finditer(text)
    ]
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


def _with_chat(env: dict[str, str], run: Runner) -> subprocess.CompletedProcess[str]:
    with FakeChatServer(respond=lambda _body: Reply.text("Noted.")) as chat:
        return run({**env, "OPENAI_BASE_URL": chat.base_url, "OPENAI_API_KEY": "test"})


def run_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a Python block as a script; the caller checks ``returncode``."""
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    return _with_chat(block_env(tmp_path), run)


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
    """Trailing spaces, edge blank lines, ids and timestamps evened out (module docstring)."""
    out = [_TIME.sub("<time>", _ID.sub("<id>", line.rstrip())) for line in lines]
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


def run_console(code: str, tmp_path: Path) -> list[str]:
    """Run a console block; the problems found, one message each (empty: it passed)."""
    cmds = commands(code)
    if not cmds:
        return ["a console block without any `$ ` command"]
    script = []
    for n, cmd in enumerate(cmds):
        script.append(f"echo '{_MARK} {n}'")
        script.append(f"{{\n{cmd.text}\n}} 2>&1")
        script.append(f'echo "{_MARK}-status {n} $?"')
    (tmp_path / "block.sh").write_text("\n".join(script) + "\n", encoding="utf-8")

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "--noprofile", "--norc", str(tmp_path / "block.sh")],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )

    done = _with_chat(block_env(tmp_path), run)
    outputs: dict[int, list[str]] = {}
    statuses: dict[int, int] = {}
    current: int | None = None
    for line in done.stdout.splitlines():
        if line.startswith(_MARK + "-status "):
            n, status = line.split()[1:]
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
