"""Report figures drawn with Pillow (a per-person timeline, a cast graph, heatmaps); deterministic.

Bar charts come from :mod:`mnemoforge.backends.image.documents`; the title block, text pills and
the generic heatmap grid from :mod:`mnemoforge.exporters.report_drawing`; this module adds the rest.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents import BAR_COLOR
from mnemoforge.backends.image.documents_base import (
    FAINT,
    INK,
    MUTED,
    RULE,
    WHITE,
    Color,
    aa_shape,
    draw_text,
    fit_text,
    mix,
    palette,
    paste_circle_avatar,
    text_width,
)
from mnemoforge.dates import month_abbr
from mnemoforge.exporters.report_drawing import (
    PAPER,
    Box,
    Label,
    _overlaps,
    _pill,
    _pill_box,
    _title,
    heatmap,
)

CALIBRATION: Color = (150, 150, 150)


@dataclass(frozen=True)
class PersonRow:
    """One cast member as the figures need them: id, display text and an optional face image."""

    id: str
    name: str
    role: str
    face: Image.Image | None = None


@dataclass(frozen=True)
class ClipMark:
    """One clip on the timeline: when, who is seen, who speaks, and whether it calibrates."""

    when: dt.datetime
    seen: frozenset[str]
    speakers: frozenset[str]
    calibration: bool = False


def _day(d: dt.date) -> str:
    """``"03 Mar 2025"`` in English whatever the locale."""
    return f"{d.day:02d} {month_abbr(d)} {d.year}"


def _next_month(d: dt.date) -> dt.date:
    """The first day of the month after ``d``'s."""
    return dt.date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def timeline_figure(
    people: Sequence[PersonRow],
    clips: Sequence[ClipMark],
    start: dt.date,
    end: dt.date,
    *,
    width: int = 1240,
    unit: tuple[str, str] = ("clip", "clips"),
    lane: str = "person",
    speech: bool = True,
) -> Image.Image:
    """One row per person (or other ``lane``) with a mark for every clip (``unit``: singular,
    plural) they appear in; months along the x axis.

    With ``speech`` a filled mark means the person is seen and speaks, a ring means seen but
    silent, and the calibration clip is grey; without it every mark is filled (present). The top
    row carries every clip as a tick.
    """
    first = min([start, *(c.when.date() for c in clips)])
    latest = max([dt.datetime.combine(start, dt.time()), *(c.when for c in clips)])
    fits = end.day == 1 and end > first and latest < dt.datetime.combine(end, dt.time())
    stop = end if fits else _next_month(max(end, latest.date()))
    last = max(end, latest.date())
    months = [dt.date(first.year, first.month, 1)]
    while _next_month(months[-1]) < stop:
        months.append(_next_month(months[-1]))
    t0 = dt.datetime.combine(months[0], dt.time())
    t1 = dt.datetime.combine(stop, dt.time())
    left, right, row_h, top_row = 220, width - 28, 52, 40
    one, many = unit
    subtitle = f"{len(clips)} {many} from {_day(first)} to {_day(last)}; "
    subtitle += f"one row per {lane}, one mark per {one}."
    title = "Who appears when" if lane == "person" else f"Which {lane} is active when"
    plot_top = _title(Image.new("RGB", (width, 10)), title, subtitle) + 26
    plot_bottom = plot_top + top_row + row_h * len(people)
    img = Image.new("RGB", (width, plot_bottom + 78), PAPER)
    _title(img, title, subtitle)
    draw = ImageDraw.Draw(img)
    span = (t1 - t0).total_seconds()

    def x_of(when: dt.datetime) -> int:
        return round(left + (when - t0).total_seconds() / span * (right - left))

    for i in range(len(people)):
        y0 = plot_top + top_row + i * row_h
        draw.rectangle((16, y0, width - 16, y0 + row_h - 1), fill=WHITE if i % 2 == 0 else (243, 244, 246))
    for k, m in enumerate(months):
        x = x_of(dt.datetime.combine(m, dt.time()))
        draw.line([(x, plot_top - 4), (x, plot_bottom)], fill=RULE)
        label = month_abbr(m) if k and m.month != 1 else f"{month_abbr(m)} {m.year}"
        nxt = min(x_of(dt.datetime.combine(_next_month(m), dt.time())), right)
        draw_text(draw, ((x + nxt) / 2, plot_top - 22), label, 11, FAINT, anchor="ma")
        if len(months) > 3:
            draw_text(draw, ((x + nxt) / 2, plot_bottom + 8), label, 12, MUTED, anchor="ma")
            continue
        for day in (1, 8, 15, 22):  # a short album: weekly ticks with dates
            dx = x_of(dt.datetime(m.year, m.month, day))
            if dx < right - 20:
                draw.line(
                    [(dx, plot_top + top_row), (dx, plot_bottom)], fill=RULE if day == 1 else (236, 237, 240)
                )
                draw_text(draw, (dx, plot_bottom + 8), f"{day} {month_abbr(m)}", 12, MUTED, anchor="ma")
    draw.line([(right, plot_top - 4), (right, plot_bottom)], fill=RULE)
    ty = plot_top + top_row // 2
    draw_text(
        draw, (28, ty), fit_text(f"all {many}", 13, left - 40, bold=True), 13, INK, bold=True, anchor="lm"
    )
    for c in clips:
        x = x_of(c.when)
        draw.line([(x, ty - 9), (x, ty + 9)], fill=CALIBRATION if c.calibration else INK, width=2)
    for i, p in enumerate(people):
        colour = palette(i)
        cy = plot_top + top_row + i * row_h + row_h // 2
        paste_circle_avatar(img, (46, cy), 38, p.name, p.face)
        mine = [c for c in clips if p.id in c.seen or p.id in c.speakers]
        spoke = sum(1 for c in mine if p.id in c.speakers)
        draw_text(draw, (74, cy - 9), fit_text(p.name, 14, left - 84, bold=True), 14, INK, True, "lm")
        note = f"{len(mine)} {many}, speaks in {spoke}" if speech else f"{len(mine)} {many}"
        draw_text(draw, (74, cy + 10), fit_text(note, 11, left - 84), 11, MUTED, anchor="lm")
        for c in mine:
            x = x_of(c.when)
            aa_shape(
                img, (x - 7, cy - 7, x + 8, cy + 8), CALIBRATION if c.calibration else colour, ellipse=True
            )
            if p.id not in c.speakers:
                aa_shape(img, (x - 4, cy - 4, x + 5, cy + 5), WHITE, ellipse=True)
    ly = plot_bottom + 40
    x = 28
    legend = [
        ("seen and speaks", palette(0), 1),
        ("seen, silent", palette(0), 0),
        ("calibration clip", CALIBRATION, 1),
    ]
    for text, fill, solid in legend if speech else [(f"active in the {one}", palette(0), 1)]:
        aa_shape(img, (x, ly - 7, x + 15, ly + 8), fill, ellipse=True)
        if not solid:
            aa_shape(img, (x + 3, ly - 4, x + 12, ly + 5), WHITE, ellipse=True)
        draw_text(draw, (x + 22, ly), text, 12, INK, anchor="lm")
        x += 22 + text_width(text, 12) + 30
    return img


def relation_graph(
    people: Sequence[PersonRow],
    relations: Mapping[tuple[str, str], str],
    together: Mapping[tuple[str, str], int],
    *,
    centre: str | None = None,
    unit: str = "clips",
    width: int = 1140,
    height: int = 640,
) -> Image.Image:
    """The cast as a graph: an edge per pair seen together (width = shared ``unit``), relations named.

    ``relations`` and ``together`` are keyed by sorted id pairs. ``centre`` (the protagonist)
    sits in the middle; everyone else is spaced evenly on an ellipse.
    """
    img = Image.new("RGB", (width, height), PAPER)
    why = f"Edge width grows with the {unit} two people share; coloured edges are stated relations."
    top = _title(img, f"Cast graph: relations and shared {unit}", why)
    cx, cy = width // 2, top + (height - top) // 2 - 30
    rx, ry = width // 2 - 140, (height - top) // 2 - 70
    ring = [p for p in people if p.id != centre] if centre else list(people)
    pos: dict[str, tuple[int, int]] = {}
    for k, p in enumerate(ring):
        a = -math.pi / 2 + math.pi / max(1, len(ring)) + 2 * math.pi * k / max(1, len(ring))
        if len(ring) == 2:  # two around a centre: above it, not in line with it
            a = -math.pi * (5 - 4 * k) / 6
        pos[p.id] = (round(cx + rx * math.cos(a)), round(cy + ry * math.sin(a)))
    if centre and any(p.id == centre for p in people):
        pos[centre] = (cx, cy)
    most = max(together.values(), default=1) or 1
    pairs = sorted(set(together) | set(relations), key=lambda k: (k in relations, k))  # relations on top
    pairs = [k for k in pairs if k[0] in pos and k[1] in pos]
    scale = 3
    layer = Image.new("RGBA", (img.width * scale, img.height * scale), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    for a, b in pairs:
        n = together.get((a, b), 0)
        related = (a, b) in relations
        colour = (*BAR_COLOR, 255) if related else (*mix(FAINT, PAPER, 0.45), 255)
        w = round(((2 + 8 * n / most) if related else (1 + 6 * n / most)) * scale)
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ld.line([(xa * scale, ya * scale), (xb * scale, yb * scale)], fill=colour, width=w)
    layer = layer.resize(img.size, Image.Resampling.LANCZOS)
    base = img.convert("RGBA")
    base.alpha_composite(layer)
    img.paste(base.convert("RGB"))
    draw = ImageDraw.Draw(img)
    taken: list[Box] = [(x - 50, y - 50, x + 50, y + 90) for x, y in pos.values()]  # faces and names
    for a, b in sorted(pairs, key=lambda k: (k not in relations, k)):  # relations get first pick
        (xa, ya), (xb, yb) = pos[a], pos[b]
        length = math.dist((xa, ya), (xb, yb)) or 1
        dy = (yb - ya) / length
        # the free stretch of the edge: past each face and, going down, past the name under it
        t0, t1 = (50 + 45 * max(0.0, dy)) / length, 1 - (50 + 45 * max(0.0, -dy)) / length
        n = together.get((a, b), 0)
        lines: Label = [(str(n), 11, MUTED, False)] if n else []
        if (a, b) in relations:
            lines = [(relations[(a, b)], 13, INK, True), (f"{n} {unit} together", 11, MUTED, False)]
        for f in (0.5, 0.3, 0.7, 0.15, 0.85) if lines else ():
            t = t0 + (t1 - t0) * f
            box = _pill_box((xa + (xb - xa) * t, ya + (yb - ya) * t), lines)
            if not _overlaps(box, taken) or f == 0.85 and (a, b) in relations:
                _pill(draw, box, lines)
                taken.append(box)
                break
    for i, p in enumerate(people):
        if p.id not in pos:
            continue
        x, y = pos[p.id]
        aa_shape(img, (x - 47, y - 47, x + 48, y + 48), palette(i), ellipse=True)
        paste_circle_avatar(img, (x, y), 86, p.name, p.face)
        draw_text(draw, (x, y + 54), p.name, 15, INK, True, "ma", halo=PAPER)
        draw_text(draw, (x, y + 74), fit_text(p.role, 12, 180), 12, MUTED, anchor="ma", halo=PAPER)
    return img


# ----------------------------------------------------------------------- from records to figures

CATEGORY_NAMES = {
    "identity_recall": "Identity Recall",
    "cross_episode_retrieval": "Cross-Episode Identity Retrieval",
    "profile_inference": "Long-Term Identity Profile Inference",
}


# MemEye's axes: how fine a visual detail is (X) and how the evidence is spread over rounds (Y)
X_NAMES = {"X1": "scene", "X2": "region", "X3": "instance", "X4": "pixel"}
Y_NAMES = {"Y1": "one round", "Y2": "several rounds", "Y3": "updated state"}


def category_name(cat: str) -> str:
    """A readable name for a category id (a MemEye cell ``X4_Y3`` reads "X4 x Y3 (pixel, updated state)")."""
    x, _, y = cat.partition("_")
    if x in X_NAMES and y in Y_NAMES:
        return f"{x} x {y} ({X_NAMES[x]}, {Y_NAMES[y]})"
    return CATEGORY_NAMES.get(cat, cat.replace("_", " ").capitalize())


def clip_marks(clips: Sequence[Mapping[str, Any]]) -> list[ClipMark]:
    """Timeline marks from clip records: who is visible in any shot, who speaks any line."""
    marks = []
    for c in clips:
        seen = {p for s in c["shots"] for p in s.get("visible", [])}
        speakers = {line["speaker"] for s in c["shots"] for line in s.get("dialogue", [])}
        when = dt.datetime.fromisoformat(c["start"])
        marks.append(ClipMark(when, frozenset(seen), frozenset(speakers), bool(c.get("calibration"))))
    return marks


def _present(clip: Mapping[str, Any]) -> list[str]:
    return sorted({p for s in clip["shots"] for p in s.get("visible", [])})


def co_occurrence(clips: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], int]:
    """Clips shared per sorted pair of people (the calibration clip excluded)."""
    pairs: Counter[tuple[str, str]] = Counter()
    for c in clips:
        present = [] if c.get("calibration") else _present(c)
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                pairs[(a, b)] += 1
    return dict(pairs)


def presence_heatmap(
    title: str,
    rows: Sequence[tuple[str, str]],
    people: Sequence[PersonRow],
    clips: Sequence[Mapping[str, Any]],
    key: Callable[[Mapping[str, Any]], set[str]],
    subtitle: str = "",
) -> Image.Image:
    """Clips per (row, person): ``key(clip)`` gives a clip's row ids (places, activities); rows
    given as (id, label), those never seen dropped; the calibration clip excluded."""
    n: Counter[tuple[str, str]] = Counter()
    for c in clips:
        for r in key(c) if not c.get("calibration") else ():
            n.update((r, p) for p in _present(c))
    used = [(rid, label) for rid, label in rows if any(n[(rid, p.id)] for p in people)] or [("", "-")]
    grid = [[n[(rid, p.id)] for p in people] for rid, _ in used]
    rows_txt, cols = [label for _, label in used], [p.name for p in people]
    return heatmap(title, rows_txt, cols, grid, subtitle=subtitle, cell_w=58)


def xy_label(q: Mapping[str, Any]) -> tuple[str, str] | None:
    """A question's (X, Y) taxonomy labels, where its family carries them (``x``/``y`` fields)."""
    for holder in (q, q.get("taxonomy") or {}, q.get("labels") or {}):
        x, y = holder.get("x") or holder.get("x_label"), holder.get("y") or holder.get("y_label")
        if x and y:
            return str(x), str(y)
    return None


def taxonomy_heatmap(
    questions: Sequence[Mapping[str, Any]],
    key: str = "evidence_clips",
    unit: tuple[str, str] = ("clip", "clips"),
) -> Image.Image:
    """X x Y counts when every question carries the labels; else category x distinct evidence
    ``unit`` (read from each question's ``key`` list), noted."""
    labels = [xy_label(q) for q in questions]
    if questions and all(labels):
        n = Counter(labels)
        xs = sorted({xy[0] for xy in labels if xy})
        ys = sorted({xy[1] for xy in labels if xy}, reverse=True)
        grid = [[n[(x, y)] for x in xs] for y in ys]
        return heatmap("Questions per X x Y cell", ys, xs, grid, row_title="Y", col_title="X")
    n = Counter((q["category"], len(set(q.get(key) or []))) for q in questions)
    cats = sorted({c for c, _ in n}) or ["(no questions)"]
    ks = range(min((k for _, k in n), default=0), max((k for _, k in n), default=0) + 1)
    grid = [[n[(c, k)] for k in ks] for c in cats]
    cols = [f"{k} {unit[k != 1]}" for k in ks]
    note = "No X/Y labels in this release: its questions carry no X/Y taxonomy, so this grid shows each "
    note += f"category against the number of distinct evidence {unit[1]} instead."
    title, rows = f"Questions by category x evidence {unit[1]}", [category_name(c) for c in cats]
    return heatmap(
        title, rows, cols, grid, note=note, row_title="category", col_title=f"distinct evidence {unit[1]}"
    )
