"""The review page served by ``review_server``: ``assets/review/`` (an HTML file, its script and its
style; no external assets, no build step)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "review"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


@cache
def asset(name: str) -> tuple[bytes, str]:
    """``(bytes, content type)`` of one file of the page (``index.html``, ``review.js``, ``review.css``)."""
    path = ASSETS / name
    if path.parent != ASSETS or path.suffix not in TYPES:
        raise FileNotFoundError(name)
    return path.read_bytes(), TYPES[path.suffix]
