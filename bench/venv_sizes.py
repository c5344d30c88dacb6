"""Disk size of a fresh venv for each way of installing memvault.

For every install (``memvault``, ``[server]``, ``[local]``, ``[server,local]``, what
``make serve`` installs (the Makefile's ``SERVE_EXTRAS``) and, with ``--all``,
``[multilingual]`` and what ``make test`` installs (``TEST_EXTRAS``)) a new venv is made
in a temporary directory, this checkout is installed into it with pip from a wheel built
once (what a user gets), and the venv is measured, timed and deleted. The table shows the
whole venv, its site-packages, the seconds pip took (network and cache included, so a
rough guide) and the largest installed distributions. It never touches the checkout's
own ``.venv``.

    python3 bench/venv_sizes.py [--all] [--python python3] [--only EXTRAS]
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALLS = ["", "server", "local", "server,local"]
MB = 1024 * 1024


def make_extras(name: str) -> str:
    """The value of a Makefile variable (``SERVE_EXTRAS``, ``TEST_EXTRAS``, ``VENV_DROP``):
    the Makefile is the one place that says what ``make serve`` and ``make test`` install."""
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition(":=")
        if sep and key.strip() == name:
            return value.strip()
    raise SystemExit(f"no {name} := ... line in the Makefile")


def tree_size(path: Path) -> int:
    """Bytes on disk of every file under ``path`` (hard links once, symlinks not followed)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for item in path.rglob("*"):
        if item.is_symlink() or not item.is_file():
            continue
        st = item.stat()
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        total += st.st_blocks * 512
    return total


def distribution_sizes(python: Path) -> dict[str, int]:
    """Bytes of each installed distribution's files (from its RECORD)."""
    code = (
        "import importlib.metadata as m, json, os\n"
        "out = {}\n"
        "for d in m.distributions():\n"
        "    n = 0\n"
        "    for f in d.files or []:\n"
        "        p = f.locate()\n"
        "        if os.path.isfile(p): n += os.stat(p).st_blocks * 512\n"
        "    out[d.metadata['Name']] = out.get(d.metadata['Name'], 0) + n\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    sizes: dict[str, int] = json.loads(done.stdout)
    return sizes


def build_wheel(python: str, tmp: Path) -> Path:
    """This checkout as a wheel (built once, installed into every venv)."""
    out = tmp / "wheel"
    subprocess.run(
        [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
    )
    return next(out.glob("memvault-*.whl"))


def measure(
    python: str, wheel: Path, extras: str, tmp: Path
) -> tuple[int, int, float, dict[str, int]]:
    """Bytes of the venv and of its site-packages, seconds to build it, each distribution."""
    venv = tmp / ("venv-" + (extras.replace(",", "-") or "base"))
    started = time.monotonic()
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    # What the Makefile takes out of a new venv before installing (VENV_DROP).
    subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "uninstall",
            "--quiet",
            "--yes",
            *make_extras("VENV_DROP").split(),
        ],
        check=True,
    )
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", target],
        check=True,
    )
    seconds = time.monotonic() - started
    site = next((venv / "lib").glob("python3*/site-packages"))
    sizes = tree_size(venv), tree_size(site), seconds, distribution_sizes(venv / "bin" / "python")
    shutil.rmtree(venv)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="interpreter for the venvs")
    parser.add_argument(
        "--all", action="store_true", help="also [multilingual] and what `make test` installs"
    )
    parser.add_argument(
        "--only", metavar="EXTRAS", help="measure this one install ('' for the bare package)"
    )
    args = parser.parse_args()
    serve = make_extras("SERVE_EXTRAS")
    installs = [*INSTALLS, serve]
    if args.all:
        installs += ["multilingual", "server,local,multilingual", make_extras("TEST_EXTRAS")]
    if args.only is not None:
        installs = [args.only]
    named = {serve: "make serve", make_extras("TEST_EXTRAS"): "make test"}

    rows = []
    with tempfile.TemporaryDirectory(prefix="memvault-venv-sizes-") as tmp:
        wheel = build_wheel(args.python, Path(tmp))
        for extras in installs:
            total, site, seconds, dists = measure(args.python, wheel, extras, Path(tmp))
            rows.append((extras, total, site, seconds, dists))
            print(f"measured {extras or 'memvault'}: {total / MB:.0f} MB", file=sys.stderr)

    base = rows[0][4] if rows[0][0] == "" else {}
    print(f"Fresh venvs, {datetime.date.today().isoformat()}, Python {sys.version.split()[0]}\n")
    print(
        "| install | venv (MB) | site-packages (MB) | pip (s) "
        "| largest additions over `memvault` (MB) |"
    )
    print("|---|---:|---:|---:|---|")
    for extras, total, site, seconds, dists in rows:
        name = f"`pip install 'memvault[{extras}]'`" if extras else "`pip install memvault`"
        if extras in named:
            name += f" (`{named[extras]}`)"
        pool = dists if not extras else {k: v for k, v in dists.items() if k not in base}
        top = sorted(pool.items(), key=lambda kv: -kv[1])[:6]
        largest = ", ".join(f"{k} {v / MB:.0f}" for k, v in top if v >= MB / 2)
        print(f"| {name} | {total / MB:.0f} | {site / MB:.0f} | {seconds:.0f} | {largest} |")


if __name__ == "__main__":
    main()
