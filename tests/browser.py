"""Debian's Chromium for the headless-browser tests (the report, the review page).

The flags keep it off the network: without the background-networking ones, Chromium's connections
are refused by a closed network many at a time, and it looks up Google's hosts at every start.
"""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
