"""Size limits of a theme, each with its reason.

A theme is input from anyone: every size and count it can set is bounded, so a typo (an extra
three zeros) or a hostile file ends as one clear error in ``theme check`` instead of a hang, a
multi-gigabyte build or a crash deep inside a stage. The limits are far above what the shipped
themes use (the largest has 9 people, 14 places and a year of time) and are stated in the schema
field by field; docs/reliability.md lists them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

MAX_THEME_BYTES = 256 << 10
"""A theme file is read whole, parsed and hashed into every cache key; the shipped ones are under
16 KB, and 256 KB of YAML parses in well under a second."""

MAX_YAML_NODES = 200_000
"""YAML aliases can expand a few hundred bytes into billions of nodes (an alias bomb); no theme
needs more than a few thousand values."""

MAX_YAML_DEPTH = 32
"""Nesting a theme can have (the schema's deepest field is 7 levels down)."""

MAX_RAW_TEXT = 65_536
"""Any string anywhere in the file, before the schema reads it (settings passed through to a
backend included)."""

MAX_RAW_ITEMS = 10_000
"""Entries of any list or mapping anywhere in the file, before the schema reads it."""

MAX_NAME = 80
"""Names, titles, labels, nouns, roles and ids: they are quoted in question text and options,
drawn on signs and labels a few dozen pixels tall, and spoken in a line of dialogue."""

MAX_TEXT = 400
"""Sentence-like text (a dialogue line template, a tool's description, a source's purpose):
one line of speech or one message."""

MAX_DESCRIPTION = 4_000
"""The theme's description, a paragraph of the dataset card."""

MAX_PATH = 1_024
"""A file or folder path (Linux's PATH_MAX is 4096; no theme path needs a quarter of it)."""

MAX_CAST = 100
"""People in a cast: each gets a face anchor, a voice and a calibration line, and option sets,
name matching and the relation graph grow with the cast."""

MAX_ALIASES = 8
"""Other names one person goes by; each is matched in every generated line and question."""

MAX_ITEMS = 200
"""Entries of a list of places, objects, activities, values, topics, habits, members: beyond a
few hundred a theme stops being a description and becomes a data set of its own."""

MAX_LINES = 500
"""Wordings of one line bank or phrase list."""

MAX_SETTINGS = 32
"""Entries of a settings list or mapping (answerers, panels, tools, arguments, attributes)."""

MAX_SPAN_DAYS = 3_660
"""The theme's stretch of time (ten years): the calendar (holidays, daylight, weekdays) and the
planners walk it day by day; the shipped themes span one to twelve months."""

MIN_YEAR, MAX_YEAR = 1900, 2199
"""Years the holiday and daylight tables cover."""

MAX_QUESTIONS = 5_000
"""Questions a theme may ask for in one category (and in total): every candidate is answered by
each gate's panel; 1.5x + 1 candidates are planned per kept item."""

MAX_ROUNDS = 20_000
"""smm: conversation rounds over the whole timeline (days x rounds_per_day): every round is
written, realised and indexed; the shipped theme has under 500."""

MAX_ROUNDS_PER_DAY = 48.0
"""smm: background rounds per day, one every half hour of a day."""

MAX_DAYS_GAP = 365
"""smm: days or rounds between a stale fact and its update (at most a year)."""

Name = Annotated[str, StringConstraints(max_length=MAX_NAME)]
"""A string bounded by :data:`MAX_NAME` (for list entries and mapping values)."""

Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
"""A string bounded by :data:`MAX_TEXT`."""

Line = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT)]
"""A wording that is spoken or written: not empty, bounded by :data:`MAX_TEXT`."""

Lines = Annotated[list[Text], Field(max_length=MAX_LINES)]
"""A list of wordings bounded by :data:`MAX_LINES` (for mapping values)."""

Names = Annotated[list[Name], Field(max_length=MAX_ITEMS)]
"""A list of names bounded by :data:`MAX_ITEMS` (for nested lists)."""
