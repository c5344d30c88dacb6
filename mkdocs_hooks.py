"""MkDocs hooks for the offline site (``mkdocs.yml``: ``hooks``).

Material's ``offline`` plugin inlines the search index so that pages work from
``file://``, and adds a polyfill script from unpkg.com (iframe-worker) so that the search
worker runs from ``file://`` too. A page of this site must not reach the network, so the
remote script is dropped again: search then works whenever the site is served over HTTP
(``python -m http.server -d site``), every page and link works from the file system.
"""

from __future__ import annotations

from typing import Any


def on_config(config: Any) -> Any:
    """Runs after the plugins' ``on_config``: remove every polyfill that is not local."""
    polyfills = config.extra.get("polyfills", [])
    config.extra["polyfills"] = [p for p in polyfills if "://" not in str(p)]
    return config
