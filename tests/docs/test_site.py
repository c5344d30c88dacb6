"""The documentation site builds offline and strictly (``make docs`` does the same).

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a page missing
from the nav. It takes a few seconds, so it runs with the suite. The built pages must not
load anything from the network: no web fonts, no script or stylesheet from a CDN.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.doc_blocks import ROOT

_REMOTE = re.compile(r"<(?:script|link|img)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)


def test_the_site_builds_strictly_and_loads_nothing_remote(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={"PATH": str(Path(sys.executable).parent), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    pages = sorted(site.glob("*.html"))
    names = {p.name for p in pages}
    assert {"index.html", "quickstart.html", "cli.html", "CONFIG.html"} <= names
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert not _REMOTE.findall(html), f"{page.name} loads something from the network"
        assert "fonts.googleapis" not in html, page.name
    assert (site / "search" / "search_index.js").is_file()  # the offline plugin's index


def test_every_page_in_docs_is_in_the_nav() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = {next(iter(item.values())) for item in config["nav"]}
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages == listed
    assert config["theme"]["font"] is False
    assert "offline" in config["plugins"]
