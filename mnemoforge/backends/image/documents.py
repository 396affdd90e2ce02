"""Render documents and app UI as images: the pixel home of facts in screenshots and office files.

Benchmark families that hide facts in chat screenshots, calendars, profile cards, tables,
charts and memos build them with these pure functions. Each takes frozen inputs and returns
a new RGB ``PIL.Image.Image``; rendering is deterministic (no clock, no global randomness),
so the same input always yields identical pixels. Text uses Pillow's bundled scalable font
(``ImageFont.load_default(size=N)``) through one cached getter, :func:`font`; characters it
cannot draw are transliterated to ASCII (``'Café' -> 'Cafe'``, ``'€' -> 'EUR'``) so no fact is
rendered as an empty box.

The implementation is split by kind into ``documents_*`` sibling modules; import from here.
"""

from __future__ import annotations

from .documents_base import font, sanitize
from .documents_calendar import CalendarEntry, render_calendar_screenshot
from .documents_charts import BAR_COLOR, render_bar_chart, render_line_chart
from .documents_chat import (
    CHAT_BACKGROUND,
    INCOMING_BUBBLE,
    OUTGOING_BUBBLE,
    ChatMessage,
    render_chat_screenshot,
)
from .documents_office import render_document_page, render_profile_card, render_table

__all__ = [
    "BAR_COLOR",
    "CHAT_BACKGROUND",
    "INCOMING_BUBBLE",
    "OUTGOING_BUBBLE",
    "CalendarEntry",
    "ChatMessage",
    "font",
    "render_bar_chart",
    "render_calendar_screenshot",
    "render_chat_screenshot",
    "render_document_page",
    "render_line_chart",
    "render_profile_card",
    "render_table",
    "sanitize",
]
