"""Tests for the document/UI renderers: values measured in pixels, not just "it ran"."""

from __future__ import annotations

import datetime as dt
import string
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

from mnemoforge.backends.image.documents import (
    BAR_COLOR,
    CHAT_BACKGROUND,
    CalendarEntry,
    ChatMessage,
    font,
    render_bar_chart,
    render_calendar_screenshot,
    render_chat_screenshot,
    render_document_page,
    render_line_chart,
    render_profile_card,
    render_table,
    sanitize,
)
from mnemoforge.backends.image.documents_base import has_glyph, nice_ticks, palette, with_unit

MSGS = [
    ChatMessage("Maya", "Dinner moved to Friday 7:30pm, table for 6 under Patel.", "18:02"),
    ChatMessage("Tom", "Works for me", "18:04"),
    ChatMessage("Me", "My new address is 42 Elm Street, Apt 5B.", "18:10", outgoing=True),
]
ENTRIES = [
    CalendarEntry(dt.date(2024, 6, 3), "09:30", "10:00", "Dentist", "Smile Clinic"),
    CalendarEntry(dt.date(2024, 6, 14), "12:00", "13:00", "Lunch with Maya", None),
]


def arr(img: Image.Image) -> np.ndarray:
    return np.asarray(img, dtype=np.int16)


def diff_mask(a: Image.Image, b: Image.Image) -> np.ndarray:
    assert a.size == b.size
    return np.any(arr(a) != arr(b), axis=2)


def dark_pixels(img: Image.Image, box: tuple[int, int, int, int] | None = None, thresh: int = 110) -> int:
    """Count pixels darker than ``thresh`` (text ink) inside ``box``."""
    a = arr(img.crop(box) if box else img)
    return int(np.sum(a.max(axis=2) < thresh))


def light_fraction(img: Image.Image, box: tuple[int, int, int, int]) -> float:
    """Fraction of pixels in ``box`` that are light (paper, bubbles, cell backgrounds)."""
    a = arr(img.crop(box))
    return float(np.mean(a.mean(axis=2) > 200))


ALL_RENDERS: dict[str, Callable[[], Image.Image]] = {
    "chat": lambda: render_chat_screenshot("Dinner crew", MSGS),
    "calendar_month": lambda: render_calendar_screenshot("Jordan", (2024, 6), ENTRIES),
    "calendar_week": lambda: render_calendar_screenshot("Jordan", dt.date(2024, 6, 3), ENTRIES),
    "card": lambda: render_profile_card("Ana Ruiz", {"Phone": "555 0142", "City": "Porto"}),
    "table": lambda: render_table("Budget", ["Item", "Cost"], [["Rent", "$1,850"], ["Food", "$600"]]),
    "bar": lambda: render_bar_chart("Rain", ["Jan", "Feb"], [99.5, 87.0], "mm"),
    "line": lambda: render_line_chart("Steps", ["Mon", "Tue", "Wed"], {"A": [1, 3, 2], "B": [2, 2, 4]}),
    "page": lambda: render_document_page("MEMO", ["To: All staff", "Garage closed Monday."], "Ref 117"),
}


# ------------------------------------------------------------------------------------ common


@pytest.mark.parametrize("kind", sorted(ALL_RENDERS))
def test_renders_are_rgb_and_byte_identical(kind: str) -> None:
    first, second = ALL_RENDERS[kind](), ALL_RENDERS[kind]()
    assert first.mode == "RGB"
    assert first.width >= 120 and first.height >= 100
    assert first.tobytes() == second.tobytes()


def test_font_getter_is_cached_scalable() -> None:
    assert font(14) is font(14)
    assert font(28).getbbox("Hg")[3] > font(14).getbbox("Hg")[3]


def test_sanitize_keeps_what_a_font_covers_and_folds_the_rest() -> None:
    assert all(has_glyph(c) for c in string.printable if c not in "\r\x0b\x0c")
    # accented Latin, the euro sign and the dash are drawn in Noto Sans (font_cover), kept as written
    assert sanitize("Caf\u00e9 \u20ac5 \u2013 Z\u00fcrich") == "Caf\u00e9 \u20ac5 \u2013 Z\u00fcrich"
    assert sanitize("ok \U0001f44d") == "ok "
    # a script no shipped font covers (Ethiopic) is folded character by character, never boxes
    assert sanitize("\u1230\u120b\u121d \u20ac5") == "??? EUR 5"
    # an accented cell is drawn with its accents: not the ASCII spelling's pixels
    a = render_table("T", ["City"], [["Z\u00fcrich Caf\u00e9"]])
    b = render_table("T", ["City"], [["Zurich Cafe"]])
    assert a.tobytes() != b.tobytes()


def test_number_helpers() -> None:
    assert nice_ticks(0, 87) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(-3, 12) == [-5, 0, 5, 10, 15]
    assert with_unit(1234.5, "$") == "$1,234.5"
    assert with_unit(-3200, "$") == "-$3,200"
    assert with_unit(12, "%") == "12%"
    assert with_unit(3, "km") == "3 km"


# ------------------------------------------------------------------------------------ chat


def test_chat_height_grows_with_messages() -> None:
    heights = [render_chat_screenshot("Crew", MSGS[:n]).height for n in range(4)]
    assert heights == sorted(heights) and len(set(heights)) == 4


def test_chat_long_text_wraps_inside_bubble() -> None:
    short = render_chat_screenshot("Tom", [ChatMessage("Tom", "hi", "09:00")], height=500)
    long_msg = ChatMessage("Tom", "word " * 60, "09:00")
    empty = render_chat_screenshot("Tom", [], height=500)
    long_img = render_chat_screenshot("Tom", [long_msg], height=500)
    ys, xs = np.nonzero(diff_mask(long_img, empty))
    ys_s, _ = np.nonzero(diff_mask(short, empty))
    assert xs.max() < 0.8 * long_img.width  # bubble capped at ~75 % of the screen
    assert (ys.max() - ys.min()) > 4 * (ys_s.max() - ys_s.min())  # many wrapped lines
    assert render_chat_screenshot("Tom", [long_msg]).width == 360


@pytest.mark.parametrize("outgoing", [True, False])
def test_chat_bubble_side(outgoing: bool) -> None:
    msg = ChatMessage("Me" if outgoing else "Tom", "See you at 8", "20:15", outgoing=outgoing)
    empty = render_chat_screenshot("Tom", [], height=400)
    img = render_chat_screenshot("Tom", [msg], height=400)
    ys, xs = np.nonzero(diff_mask(img, empty))
    assert len(xs) > 200
    half = img.width / 2
    if outgoing:
        assert xs.min() >= half
    else:
        assert xs.max() < half
    # The message text is dark ink on a light bubble.
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    assert dark_pixels(img, box) > 30
    assert light_fraction(img, box) > 0.6


def test_chat_group_shows_sender_names_and_fixed_height_scrolls() -> None:
    incoming = [ChatMessage("Maya", "Hello", "10:00"), ChatMessage("Tom", "Hi", "10:01")]
    with_names = render_chat_screenshot("Crew", incoming)
    without = render_chat_screenshot("Crew", incoming, group=False)
    assert with_names.height > without.height
    many = [ChatMessage("Tom", f"message number {i}", f"10:{i:02d}") for i in range(40)]
    img = render_chat_screenshot("Tom", many, height=480)
    assert img.size == (360, 480)
    # Scrolled to the bottom: the newest bubble sits just above the input bar, so the
    # body's lowest content rows differ from the plain chat wallpaper.
    body = arr(img)[300:420, :, :]
    assert np.any(np.any(body != np.array(CHAT_BACKGROUND), axis=2))


# ------------------------------------------------------------------------------------ calendar


def test_calendar_month_entry_lands_in_its_weekday_column() -> None:
    base = render_calendar_screenshot("Jordan", (2024, 6), [])
    entry = CalendarEntry(dt.date(2024, 6, 13), "15:00", "16:00", "Budget review", "Room 4")  # a Thursday
    img = render_calendar_screenshot("Jordan", (2024, 6), [entry])
    if img.size == base.size:
        ys, xs = np.nonzero(diff_mask(img, base))
    else:  # the week row grew; compare the common upper part only
        h = min(img.height, base.height)
        ys, xs = np.nonzero(diff_mask(img.crop((0, 0, img.width, h)), base.crop((0, 0, base.width, h))))
    col = img.width / 7
    assert xs.min() >= 3 * col - 1 and xs.max() <= 4 * col + 1
    assert dark_pixels(img, (int(3 * col), int(ys.min()), int(4 * col), int(ys.max()) + 1), 140) > 50


def test_calendar_ignores_out_of_range_entries_and_grows() -> None:
    outside = CalendarEntry(dt.date(2024, 7, 2), "09:00", "10:00", "Elsewhere", None)
    month = render_calendar_screenshot("Jordan", (2024, 6), ENTRIES)
    assert month.tobytes() == render_calendar_screenshot("Jordan", (2024, 6), [*ENTRIES, outside]).tobytes()
    week = render_calendar_screenshot("Jordan", dt.date(2024, 6, 3), ENTRIES)
    week_plus = render_calendar_screenshot("Jordan", dt.date(2024, 6, 3), [*ENTRIES, outside])
    assert week.tobytes() == week_plus.tobytes()
    more = [*ENTRIES, CalendarEntry(dt.date(2024, 6, 3), "18:00", "19:00", "Yoga", "Studio 2")]
    assert render_calendar_screenshot("Jordan", dt.date(2024, 6, 3), more).height > week.height
    crowded = [CalendarEntry(dt.date(2024, 6, 5), f"{h}:00", f"{h}:30", f"Call {h}") for h in range(9, 17)]
    assert render_calendar_screenshot("Jordan", (2024, 6), crowded).height > month.height
    with pytest.raises(ValueError):
        render_calendar_screenshot("Jordan", (2024, 13), [])


# ------------------------------------------------------------------------------------ profile card


def test_profile_card_fields_avatar_and_name() -> None:
    small = render_profile_card("Ana Ruiz", {"Phone": "555 0142"})
    big = render_profile_card("Ana Ruiz", {"Phone": "555 0142", "City": "Porto", "Team": "Blue"})
    assert big.height > small.height and big.width == small.width
    red = Image.new("RGB", (50, 50), (230, 10, 10))
    with_avatar = render_profile_card("Ana Ruiz", {"Phone": "555 0142"}, avatar=red)
    a = arr(with_avatar)
    is_red = (a[:, :, 0] > 200) & (a[:, :, 1] < 40) & (a[:, :, 2] < 40)
    ys, xs = np.nonzero(is_red)
    assert len(xs) > 3000
    assert abs(xs.mean() - with_avatar.width / 2) < 3  # avatar centred
    # The name is dark text just below the avatar.
    name_box = (0, int(ys.max()) + 6, with_avatar.width, int(ys.max()) + 40)
    assert dark_pixels(with_avatar, name_box) > 80
    accent = render_profile_card("Ana Ruiz", {"Phone": "555 0142"}, accent="#00aa00")
    assert arr(accent)[40, accent.width // 4].tolist() == [0, 170, 0]  # banner in accent colour


# ------------------------------------------------------------------------------------ table


def test_table_width_grows_with_longer_cell_and_wraps_at_cap() -> None:
    cols = ["Item", "Notes"]
    short = render_table("Budget", cols, [["Rent", "ok"]])
    longer = render_table("Budget", cols, [["Rent", "paid on the first of the month"]])
    assert longer.width > short.width and longer.height == short.height
    huge = render_table("Budget", cols, [["Rent", "very long note " * 30]], max_col_width=300)
    assert huge.width <= short.width + 300 and huge.height > short.height
    taller = render_table("Budget", cols, [["Rent", "ok"], ["Food", "ok"]])
    assert taller.height > short.height


def test_table_cells_are_dark_text_on_white_grid() -> None:
    img = render_table("Budget", ["Item", "Cost"], [["Rent", "$1,850"]])
    a = arr(img)
    # Below the title bar the sheet is mostly light with dark text in the cells.
    assert light_fraction(img, (0, 40, img.width, img.height)) > 0.7
    assert dark_pixels(img, (0, 60, img.width, img.height - 28)) > 100
    # Grid lines: a full-height light-grey column line at the left edge of the sheet.
    assert np.all(np.abs(a[70:100, 0, :] - 212) <= 2)


# ------------------------------------------------------------------------------------ charts


def bar_runs(img: Image.Image) -> list[tuple[int, int, int]]:
    """Return (x_start, x_end, pixel_height) of each BAR_COLOR column run, left to right."""
    mask = np.all(arr(img) == np.array(BAR_COLOR), axis=2)
    cols = mask.sum(axis=0)
    runs: list[tuple[int, int, int]] = []
    x = 0
    while x < len(cols):
        if cols[x]:
            start = x
            while x < len(cols) and cols[x]:
                x += 1
            runs.append((start, x, int(cols[(start + x) // 2])))
        x += 1
    return runs


def test_bar_heights_match_values() -> None:
    values = [12.0, 87.0, 40.0, 99.5, 3.0]
    img = render_bar_chart("Rain", ["A", "B", "C", "D", "E"], values, "mm")
    runs = bar_runs(img)
    assert len(runs) == len(values)
    heights = [h for _, _, h in runs]
    assert int(np.argmax(heights)) == int(np.argmax(values))
    assert [int(i) for i in np.argsort(heights)] == [int(i) for i in np.argsort(values)]
    scale = heights[3] / values[3]
    for h, v in zip(heights, values, strict=True):
        assert abs(h - v * scale) <= 2
    # A value label (dark text) sits just above every bar.
    mask = np.all(arr(img) == np.array(BAR_COLOR), axis=2)
    for x0, x1, _ in runs:
        top = int(np.nonzero(mask[:, (x0 + x1) // 2])[0].min())
        assert dark_pixels(img, (x0 - 10, top - 20, x1 + 10, top)) > 15


def test_bar_chart_negative_values_and_width() -> None:
    img = render_bar_chart("Profit", ["Q1", "Q2", "Q3"], [10, -5, 20], "$")
    mask = np.all(arr(img) == np.array(BAR_COLOR), axis=2)
    runs = bar_runs(img)
    tops = [int(np.nonzero(mask[:, (a + b) // 2])[0].min()) for a, b, _ in runs]
    bottoms = [int(np.nonzero(mask[:, (a + b) // 2])[0].max()) for a, b, _ in runs]
    assert bottoms[0] == bottoms[2]  # positive bars share the zero baseline
    assert tops[1] > bottoms[0]  # the negative bar hangs below it
    assert abs((bottoms[1] - tops[1]) * 4 - (bottoms[2] - tops[2])) <= 6  # |-5| * 4 == 20
    wide = render_bar_chart("Many", [f"Item {i}" for i in range(20)], list(range(20)))
    assert wide.width > img.width
    with pytest.raises(ValueError):
        render_bar_chart("Bad", ["a", "b"], [1.0])


def test_line_chart_points_follow_values() -> None:
    series = {"Rising": [1.0, 2, 3, 4, 5], "Falling": [5.0, 4, 3, 2, 1]}
    img = render_line_chart("Up", ["1", "2", "3", "4", "5"], series)
    a = arr(img)
    legend_bottom = 80  # ignore the legend swatches at the top
    for k, rising in ((0, True), (1, False)):
        mask = np.all(a == np.array(palette(k)), axis=2)
        mask[:legend_bottom] = False
        ys, xs = np.nonzero(mask)
        assert len(xs) > 100
        x_top, x_bottom = xs[np.argmin(ys)], xs[np.argmax(ys)]
        if rising:
            assert x_top > img.width / 2 > x_bottom
        else:
            assert x_top < img.width / 2 < x_bottom
    with pytest.raises(ValueError):
        render_line_chart("Bad", ["a", "b"], {"s": [1.0]})


# ------------------------------------------------------------------------------------ page


def test_document_page_layout() -> None:
    img = render_document_page("MEMORANDUM", ["To: All staff", "The garage closes on Monday."], "Ref FAC-117")
    w, h = img.size
    assert w == 794 and h >= round(794 * 1.414)
    assert light_fraction(img, (0, 0, w, h)) > 0.95  # white paper
    assert dark_pixels(img, (0, 50, w, 110)) > 200  # title band
    assert dark_pixels(img, (0, 130, w, 200)) > 100  # first blocks
    assert dark_pixels(img, (0, h - 60, w, h), thresh=140) > 30  # footer near the bottom
    assert dark_pixels(img, (0, 300, w, h - 100)) == 0  # nothing else on a short memo
    long_page = render_document_page("REPORT", ["A fairly long paragraph of text. " * 20] * 12)
    assert long_page.height > h and long_page.width == w
