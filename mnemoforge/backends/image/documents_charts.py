"""Bar and line charts drawn with Pillow primitives (no matplotlib).

Every bar and every point carries its value as a printed label, so the chart's facts are
readable from pixels alone. Bars are flat ``BAR_COLOR`` rectangles (no anti-aliasing), which
lets tests and validators measure bar heights exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .documents_base import (
    INK,
    MUTED,
    WHITE,
    Color,
    aa_shape,
    draw_lines,
    draw_text,
    line_height,
    mix,
    nice_ticks,
    palette,
    text_width,
    with_unit,
    wrap_text,
)

BAR_COLOR: Color = (59, 110, 165)
_AXIS: Color = (110, 110, 110)
_GRIDLINE: Color = (232, 234, 237)
_TICK = 12
_VALUE = 12
_XLABEL = 12


@dataclass(frozen=True)
class _Frame:
    """Plot rectangle and the value -> pixel mapping."""

    left: int
    top: int
    right: int
    bottom: int
    lo: float
    hi: float

    def y(self, v: float) -> int:
        return round(self.bottom - (v - self.lo) / (self.hi - self.lo) * (self.bottom - self.top))

    def slot(self, n: int, i: int) -> tuple[float, float]:
        w = (self.right - self.left) / n
        return self.left + i * w, w


def _check(labels: Sequence[str], values: Sequence[float], what: str) -> None:
    if not labels:
        raise ValueError(f"{what} needs at least one label")
    if len(labels) != len(values):
        raise ValueError(f"{what}: {len(labels)} labels but {len(values)} values")


def _draw_frame(
    img: Image.Image,
    title: str,
    header_h: int,
    labels: Sequence[str],
    lo: float,
    hi: float,
    unit: str,
    height: int,
) -> _Frame:
    """Draw title, gridlines, y ticks, axes and x labels; return the plot frame."""
    ticks = nice_ticks(lo, hi)
    tick_w = max(text_width(with_unit(t, unit), _TICK) for t in ticks)
    left = 20 + tick_w + 12
    draw = ImageDraw.Draw(img)
    n = len(labels)
    plot_w = img.width - left - 24
    label_lines = [wrap_text(lbl, _XLABEL, max(20, int(plot_w / n) - 8)) for lbl in labels]
    xlab_h = max(len(ls) for ls in label_lines) * line_height(_XLABEL) + 14
    frame = _Frame(left, header_h + 8, img.width - 24, height - 16 - xlab_h, ticks[0], ticks[-1])
    draw_lines(draw, 20, 16, wrap_text(title, 18, img.width - 40, bold=True), 18, INK, bold=True)
    for t in ticks:
        ty = frame.y(t)
        draw.line([(frame.left, ty), (frame.right, ty)], fill=_GRIDLINE)
        draw.line([(frame.left - 5, ty), (frame.left, ty)], fill=_AXIS)
        draw_text(draw, (frame.left - 9, ty), with_unit(t, unit), _TICK, MUTED, anchor="rm")
    draw.line([(frame.left, frame.top), (frame.left, frame.bottom)], fill=_AXIS)
    for i, lines in enumerate(label_lines):
        x0, w = frame.slot(n, i)
        cx = round(x0 + w / 2)
        draw.line([(cx, frame.bottom), (cx, frame.bottom + 5)], fill=_AXIS)
        ly = frame.bottom + 9
        for line in lines:
            draw_text(draw, (cx, ly), line, _XLABEL, INK, anchor="ma")
            ly += line_height(_XLABEL)
    return frame


def _auto_width(labels: Sequence[str], value_texts: Sequence[str], unit_ticks: int, minimum: int) -> int:
    longest_word = max((text_width(w, _XLABEL) for lbl in labels for w in lbl.split()), default=0)
    slot = max(64, max(text_width(v, _VALUE, True) for v in value_texts) + 14, min(longest_word, 140) + 10)
    return max(minimum, 20 + unit_ticks + 12 + slot * len(labels) + 24)


def _header_height(title: str, width: int) -> int:
    return 16 + len(wrap_text(title, 18, width - 40, bold=True)) * line_height(18) + 8


def render_bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    unit: str = "",
    *,
    width: int | None = None,
    height: int = 420,
) -> Image.Image:
    """Render a vertical bar chart with y ticks, gridlines, x labels and a value label per bar.

    ``unit`` formats labels: ``'$'`` prefixes, ``'%'`` hugs the number, others follow a space.
    The default width grows with the number of bars so labels never collide.
    """
    _check(labels, values, "bar chart")
    vals = [float(v) for v in values]
    texts = [with_unit(v, unit) for v in vals]
    lo, hi = min(0.0, *vals), max(0.0, *vals)
    if hi == lo:  # all zeros: keep a positive axis
        hi = 1.0
    tick_w = max(text_width(with_unit(t, unit), _TICK) for t in nice_ticks(lo, hi))
    w = width or _auto_width(labels, texts, tick_w, 560)
    img = Image.new("RGB", (w, height), WHITE)
    header = _header_height(title, w) + line_height(_VALUE) + 6
    frame = _draw_frame(img, title, header, labels, lo, hi, unit, height)
    draw = ImageDraw.Draw(img)
    zero = frame.y(0.0)
    for i, (v, text) in enumerate(zip(vals, texts, strict=True)):
        x0, sw = frame.slot(len(vals), i)
        bw = min(80.0, sw * 0.62)
        bx0, bx1 = round(x0 + (sw - bw) / 2), round(x0 + (sw + bw) / 2)
        top_y = frame.y(v)
        if top_y != zero:
            draw.rectangle((bx0, min(top_y, zero), bx1 - 1, max(top_y, zero) - 1), fill=BAR_COLOR)
        cx = (bx0 + bx1) / 2
        if v >= 0:
            draw_text(draw, (cx, top_y - 4), text, _VALUE, INK, bold=True, anchor="md")
        else:
            draw_text(draw, (cx, top_y + 4), text, _VALUE, INK, bold=True, anchor="ma")
    draw.line([(frame.left, zero), (frame.right, zero)], fill=_AXIS)
    return img


def _legend(img: Image.Image, names: Sequence[str], y: int) -> int:
    """Draw legend entries left to right, wrapping rows; return the y below the legend."""
    draw = ImageDraw.Draw(img)
    x, row_h = 20, line_height(13) + 6
    for i, name in enumerate(names):
        w = 26 + text_width(name, 13) + 18
        if x + w > img.width - 20 and x > 20:
            x, y = 20, y + row_h
        c = palette(i)
        cy = y + row_h // 2
        draw.line([(x, cy), (x + 20, cy)], fill=c, width=3)
        aa_shape(img, (x + 6, cy - 4, x + 14, cy + 4), c, ellipse=True)
        draw_text(draw, (x + 26, cy), name, 13, INK, anchor="lm")
        x += w
    return y + row_h


def render_line_chart(
    title: str,
    x_labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    unit: str = "",
    *,
    width: int | None = None,
    height: int = 440,
) -> Image.Image:
    """Render a multi-series line chart: legend, y ticks, x labels and a value label at every point.

    Labels of points that crowd each other at the same x are stacked (above, else below the
    point) so every value stays readable.
    """
    if not series:
        raise ValueError("line chart needs at least one series")
    for name, vals in series.items():
        _check(x_labels, vals, f"line chart series {name!r}")
    flat = [float(v) for vals in series.values() for v in vals]
    lo, hi = min(flat), max(flat)
    if lo >= 0 and lo <= 0.5 * hi:
        lo = 0.0
    texts = [with_unit(v, unit) for v in flat]
    tick_w = max(text_width(with_unit(t, unit), _TICK) for t in nice_ticks(lo, hi))
    w = width or _auto_width(x_labels, texts, tick_w, 600)
    img = Image.new("RGB", (w, height), WHITE)
    legend_bottom = _legend(img, list(series), _header_height(title, w) - 4)
    frame = _draw_frame(img, title, legend_bottom + line_height(11) + 4, x_labels, lo, hi, unit, height)
    n = len(x_labels)
    xs = [round(frame.slot(n, i)[0] + frame.slot(n, i)[1] / 2) for i in range(n)]
    # Lines on a supersampled layer for anti-aliasing.
    scale = 3
    layer = Image.new("RGBA", (w * scale, height * scale), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    pts_by_series = []
    for k, vals in enumerate(series.values()):
        pts = [(x, frame.y(float(v))) for x, v in zip(xs, vals, strict=True)]
        pts_by_series.append(pts)
        if len(pts) > 1:
            ld.line(
                [(x * scale, y * scale) for x, y in pts],
                fill=(*palette(k), 255),
                width=3 * scale,
                joint="curve",
            )
    layer = layer.resize((w, height), Image.Resampling.LANCZOS)
    base = img.convert("RGBA")
    base.alpha_composite(layer)
    img.paste(base.convert("RGB"))
    for k, pts in enumerate(pts_by_series):
        for x, y in pts:
            aa_shape(img, (x - 5, y - 5, x + 6, y + 6), WHITE, ellipse=True)
            aa_shape(img, (x - 4, y - 4, x + 5, y + 4 + 1), palette(k), ellipse=True)
    draw = ImageDraw.Draw(img)
    lh = line_height(11)
    for i in range(n):
        items = sorted((pts_by_series[k][i][1], k) for k in range(len(pts_by_series)))
        prev_bottom = -(10**6)
        for y, k in items:
            value = float(list(series.values())[k][i])
            top = y - 7 - lh if y - 7 - lh >= prev_bottom + 1 else max(y + 8, prev_bottom + 1)
            draw_text(
                draw,
                (xs[i], top),
                with_unit(value, unit),
                11,
                mix(palette(k), INK, 0.35),
                bold=True,
                anchor="ma",
                halo=WHITE,
            )
            prev_bottom = top + lh
    return img
