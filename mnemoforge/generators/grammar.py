"""Moved to :mod:`mnemoforge.english.words` (this path is kept for imports elsewhere)."""

from mnemoforge.english.words import *  # noqa: F403
