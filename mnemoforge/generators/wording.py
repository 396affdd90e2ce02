"""Moved to :mod:`mnemoforge.english.check` (this path is kept for imports elsewhere)."""

from mnemoforge.english.check import *  # noqa: F403
