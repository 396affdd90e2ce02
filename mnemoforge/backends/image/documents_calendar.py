"""Calendar-app screenshots: a month grid or a one-week agenda list."""

from __future__ import annotations

import calendar
import datetime
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from mnemoforge.dates import MONTHS
from mnemoforge.dates import WEEKDAYS as WEEKDAY_NAMES

from .documents_base import (
    FAINT,
    INK,
    MUTED,
    RULE,
    WHITE,
    Color,
    block_height,
    draw_lines,
    draw_text,
    fit_text,
    mix,
    name_color,
    paste_circle_avatar,
    rgb,
    wrap_text,
)

# Locale-independent names (strftime would depend on the process locale).
WEEKDAYS = tuple(d[:3] for d in WEEKDAY_NAMES)

_APPBAR_H = 56
_ACCENT = "#1a73e8"


@dataclass(frozen=True)
class CalendarEntry:
    """One calendar event; ``start``/``end`` are display strings such as ``'09:30'``."""

    date: datetime.date
    start: str
    end: str
    title: str
    location: str | None = None


def _sorted(entries: Sequence[CalendarEntry]) -> list[CalendarEntry]:
    return sorted(entries, key=lambda e: (e.date, e.start, e.end, e.title))


def _draw_appbar(img: Image.Image, owner: str, width: int, color: Color) -> None:
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, _APPBAR_H), fill=color)
    cy = _APPBAR_H // 2
    for dy in (-6, 0, 6):
        draw.rectangle((16, cy + dy - 1, 34, cy + dy + 1), fill=WHITE)
    draw_text(draw, (48, cy), "Calendar", 18, WHITE, bold=True, anchor="lm")
    name = fit_text(owner, 14, max(40, width // 2 - 60))
    paste_circle_avatar(img, (width - 28, cy), 32, owner, None)
    draw_text(draw, (width - 52, cy), name, 14, WHITE, anchor="rm")


def _chip_lines(entry: CalendarEntry, inner: int) -> tuple[list[str], list[str], list[str]]:
    when = wrap_text(f"{entry.start}-{entry.end}", 11, inner)
    title = wrap_text(entry.title, 12, inner, bold=True)
    where = wrap_text(f"@ {entry.location}", 11, inner) if entry.location else []
    return when, title, where


def _chip_height(entry: CalendarEntry, inner: int) -> int:
    when, title, where = _chip_lines(entry, inner)
    return 6 + block_height(len(when), 11) + block_height(len(title), 12) + block_height(len(where), 11)


def _draw_chip(img: Image.Image, entry: CalendarEntry, x: int, y: int, w: int) -> int:
    draw = ImageDraw.Draw(img)
    inner = w - 10
    color = name_color(entry.title)
    h = _chip_height(entry, inner)
    draw.rounded_rectangle((x, y, x + w, y + h), radius=3, fill=mix(color, WHITE, 0.86))
    draw.rectangle((x, y, x + 2, y + h), fill=color)
    when, title, where = _chip_lines(entry, inner)
    ty = draw_lines(draw, x + 6, y + 3, when, 11, MUTED)
    ty = draw_lines(draw, x + 6, ty, title, 12, mix(color, INK, 0.6), bold=True)
    draw_lines(draw, x + 6, ty, where, 11, MUTED)
    return h


def _render_month(
    owner: str, year: int, month: int, entries: Sequence[CalendarEntry], width: int
) -> Image.Image:
    color = rgb(_ACCENT)
    xs = [round(i * (width - 1) / 7) for i in range(8)]
    cell_w = min(b - a for a, b in itertools.pairwise(xs))
    inner = cell_w - 8 - 10
    weeks = calendar.Calendar(firstweekday=0).monthdatescalendar(year, month)
    by_day: dict[datetime.date, list[CalendarEntry]] = {}
    for e in _sorted(entries):
        if (e.date.year, e.date.month) == (year, month):
            by_day.setdefault(e.date, []).append(e)
    row_heights = [
        max(88, 28 + max(sum(_chip_height(e, inner) + 4 for e in by_day.get(d, [])) for d in week))
        for week in weeks
    ]
    top = _APPBAR_H + 52 + 28
    img = Image.new("RGB", (width, top + sum(row_heights) + 1), WHITE)
    _draw_appbar(img, owner, width, color)
    draw = ImageDraw.Draw(img)
    my = _APPBAR_H + 26
    draw.line([(22, my - 7), (15, my), (22, my + 7)], fill=MUTED, width=2)
    draw.line([(34, my - 7), (41, my), (34, my + 7)], fill=MUTED, width=2)
    draw_text(draw, (56, my), f"{MONTHS[month - 1]} {year}", 22, INK, bold=True, anchor="lm")
    for i, name in enumerate(WEEKDAYS):
        draw_text(draw, ((xs[i] + xs[i + 1]) // 2, top - 14), name.upper(), 11, MUTED, anchor="mm")
    y = top
    draw.line([(0, y), (width, y)], fill=RULE)
    for week, rh in zip(weeks, row_heights, strict=True):
        for i, day in enumerate(week):
            x = xs[i] + 1
            inside = day.month == month
            if not inside:
                draw.rectangle((x, y + 1, xs[i + 1] - 1, y + rh - 1), fill=(248, 249, 250))
            draw_text(draw, (x + 6, y + 5), str(day.day), 13, INK if inside else FAINT, bold=inside)
            cy = y + 24
            for entry in by_day.get(day, []):
                cy += _draw_chip(img, entry, x + 4, cy, cell_w - 8) + 4
        y += rh
        draw.line([(0, y), (width, y)], fill=RULE)
    for x in xs:
        draw.line([(x, top), (x, y)], fill=RULE)
    return img


def _render_week(
    owner: str, start: datetime.date, entries: Sequence[CalendarEntry], width: int
) -> Image.Image:
    color = rgb(_ACCENT)
    days = [start + datetime.timedelta(days=i) for i in range(7)]
    by_day: dict[datetime.date, list[CalendarEntry]] = {d: [] for d in days}
    for e in _sorted(entries):
        if e.date in by_day:
            by_day[e.date].append(e)
    card_x, card_w = 76, width - 76 - 14
    inner = card_w - 22

    def card(e: CalendarEntry) -> tuple[list[str], list[str], int]:
        title = wrap_text(e.title, 15, inner, bold=True)
        rest = [f"{e.start} - {e.end}"] + (wrap_text(e.location, 13, inner) if e.location else [])
        return title, rest, 14 + block_height(len(title), 15) + block_height(len(rest), 13, 1.1)

    day_heights = [max(64, 12 + sum(card(e)[2] + 8 for e in by_day[d])) for d in days]
    top = _APPBAR_H + 56
    img = Image.new("RGB", (width, top + sum(day_heights) + 8), WHITE)
    _draw_appbar(img, owner, width, color)
    draw = ImageDraw.Draw(img)
    end = days[-1]
    if start.month == end.month:
        span = f"{start.day} - {end.day} {MONTHS[end.month - 1]} {end.year}"
    else:
        span = f"{start.day} {MONTHS[start.month - 1][:3]} - {end.day} {MONTHS[end.month - 1][:3]} {end.year}"
    draw_text(draw, (16, _APPBAR_H + 28), span, 19, INK, bold=True, anchor="lm")
    draw_text(draw, (width - 16, _APPBAR_H + 28), f"Week {start.isocalendar()[1]}", 13, MUTED, anchor="rm")
    y = top
    for d, dh in zip(days, day_heights, strict=True):
        draw.line([(0, y), (width, y)], fill=RULE)
        draw_text(draw, (38, y + 14), WEEKDAYS[d.weekday()].upper(), 11, MUTED, anchor="mm")
        draw_text(draw, (38, y + 34), str(d.day), 22, INK, anchor="mm")
        draw_text(draw, (38, y + 50), MONTHS[d.month - 1][:3], 10, FAINT, anchor="mm")
        cy = y + 8
        if not by_day[d]:
            draw_text(draw, (card_x + 4, y + 28), "No events", 13, FAINT, anchor="lm")
        for e in by_day[d]:
            title, rest, h = card(e)
            c = name_color(e.title)
            draw.rounded_rectangle((card_x, cy, card_x + card_w, cy + h), radius=6, fill=mix(c, WHITE, 0.86))
            draw.rounded_rectangle((card_x, cy, card_x + 5, cy + h), radius=2, fill=c)
            ty = draw_lines(draw, card_x + 14, cy + 7, title, 15, mix(c, INK, 0.6), bold=True)
            draw_lines(draw, card_x + 14, ty, rest, 13, MUTED, spacing=1.1)
            cy += h + 8
        y += dh
    return img


def render_calendar_screenshot(
    owner: str,
    month: tuple[int, int] | datetime.date,
    entries: Sequence[CalendarEntry],
    width: int | None = None,
) -> Image.Image:
    """Render a calendar app screen for ``owner``.

    ``month=(year, month)`` draws a month grid (default width 840) whose cells grow to fit
    every entry of that month; a ``datetime.date`` draws a 7-day agenda list starting on
    that day (default width 480). Entries outside the shown range are not drawn.
    """
    if isinstance(month, datetime.date):
        return _render_week(owner, month, entries, width or 480)
    year, mon = month
    if not 1 <= mon <= 12:
        raise ValueError(f"month must be 1..12, got {mon}")
    return _render_month(owner, year, mon, entries, width or 840)
