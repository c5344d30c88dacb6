"""What the wheel ships: the typing marker, the licence and notice, and the third-party
files the notice names (with their own licence beside them).

The wheel is built from a copy of the sources (so no build artefacts land in the
checkout) with the venv's own setuptools, offline (``--no-build-isolation``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE", "NOTICE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(src),
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("memvault-*.whl")
    return zipfile.ZipFile(built)


@pytest.mark.slow
def test_the_wheel_is_typed_and_licensed(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "memvault/py.typed" in names
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert {f"{info}/licenses/LICENSE", f"{info}/licenses/NOTICE"} <= names
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert "Apache License" in wheel.read(f"{info}/licenses/LICENSE").decode()


@pytest.mark.slow
def test_every_file_the_notice_names_is_shipped(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    shipped = [line.strip() for line in notice.splitlines() if line.startswith("src/memvault/")]
    assert shipped, "NOTICE names no shipped file"
    for path in shipped:
        assert path.removeprefix("src/") in names, path
    model_dir = "memvault/embed/models/all-MiniLM-L6-v2"
    assert {f"{model_dir}/LICENSE", f"{model_dir}/NOTICE"} <= names


def test_the_notice_names_every_file_that_is_not_ours() -> None:
    """A data file added to the package must be named in NOTICE (or be the panel's own
    static files, the typing marker, or data written for memvault like the presets)."""
    notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    package = ROOT / "src" / "memvault"
    ours = {"py.typed", "LICENSE", "NOTICE"}
    written_here = {"src/memvault/workspace/presets.json"}  # memvault's own data, as code
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if path.is_dir() or path.suffix == ".py" or "__pycache__" in rel:
            continue
        static = rel.startswith("src/memvault/server/static/")
        if path.name in ours or rel in written_here or static:
            continue
        assert rel in notice, f"{rel} ships in the package: name it in NOTICE"


@pytest.mark.slow
def test_the_wheel_ships_every_panel_file(wheel: zipfile.ZipFile) -> None:
    """The panel is ES modules in sub-folders: a missing one breaks every screen after it."""
    names = set(wheel.namelist())
    static = ROOT / "src/memvault/server/static"
    files = [p for p in static.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert any(p.parent.name == "screens" for p in files)
    missing = [str(p.relative_to(ROOT / "src")) for p in files]
    missing = [name for name in missing if name not in names]
    assert missing == [], f"not in the wheel: {missing}"
