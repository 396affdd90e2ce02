"""Pillow pieces the report figures share: the title block, text pills and a labelled heatmap grid."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents import BAR_COLOR
from mnemoforge.backends.image.documents_base import (
    FAINT,
    INK,
    MUTED,
    RULE,
    WHITE,
    Color,
    draw_lines,
    draw_text,
    fit_text,
    line_height,
    mix,
    text_width,
    wrap_text,
)

PAPER: Color = (250, 250, 248)
NOTE_FILL: Color = (255, 244, 214)
NOTE_EDGE: Color = (222, 170, 60)


def _title(img: Image.Image, title: str, subtitle: str = "") -> int:
    """Draw a bold title and a muted subtitle at the top left; return the y below them."""
    draw = ImageDraw.Draw(img)
    y = draw_lines(draw, 24, 18, wrap_text(title, 20, img.width - 48, bold=True), 20, INK, bold=True)
    if subtitle:
        y = draw_lines(draw, 24, y + 4, wrap_text(subtitle, 13, img.width - 48), 13, MUTED)
    return y + 10


Label = list[tuple[str, int, Color, bool]]
Box = tuple[float, float, float, float]


def _pill_box(centre: tuple[float, float], lines: Label) -> Box:
    """Where :func:`_pill` would draw ``lines`` centred on ``centre``."""
    w = (max(text_width(t, size, bold) for t, size, _, bold in lines) + 14) / 2
    h = (sum(line_height(size) for _, size, _, _ in lines) + 6) / 2
    return round(centre[0] - w), round(centre[1] - h), round(centre[0] + w), round(centre[1] + h)


def _pill(draw: ImageDraw.ImageDraw, box: Box, lines: Label) -> None:
    """Centred lines of text on a rounded white label: (text, size, colour, bold) each."""
    draw.rounded_rectangle(box, radius=min(9, (box[3] - box[1]) // 2), fill=WHITE, outline=RULE)
    y = box[1] + 3
    for text, size, colour, bold in lines:
        draw_text(draw, ((box[0] + box[2]) / 2, y), text, size, colour, bold, "ma")
        y += line_height(size)


def _overlaps(box: Box, taken: list[Box], pad: int = 3) -> bool:
    x0, y0, x1, y1 = box
    return any(x0 < o[2] + pad and o[0] < x1 + pad and y0 < o[3] + pad and o[1] < y1 + pad for o in taken)


def heatmap(
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    values: Sequence[Sequence[float]],
    *,
    subtitle: str = "",
    note: str = "",
    row_title: str = "",
    col_title: str = "",
    cell_w: int = 72,
) -> Image.Image:
    """A labelled grid of counts shaded by value; ``note`` is drawn as a highlighted banner."""
    cell_h = 40
    label_w = min(300, max([100, *(text_width(r, 13, True) + 24 for r in rows)]))
    col_lines = [wrap_text(c, 12, cell_w - 8) for c in cols] or [[""]]
    head_h = max(len(ls) for ls in col_lines) * line_height(12) + 12 + (22 if col_title else 0)
    width = max(420, 24 + label_w + cell_w * max(1, len(cols)) + 40)
    probe = Image.new("RGB", (width, 10), WHITE)
    y = _title(probe, title, subtitle)
    note_lines = wrap_text(note, 13, width - 80) if note else []
    note_h = len(note_lines) * line_height(13) + 24 if note else 0
    grid_top = y + (note_h + 12 if note else 0) + head_h
    height = grid_top + cell_h * max(1, len(rows)) + 40
    img = Image.new("RGB", (width, height), WHITE)
    y = _title(img, title, subtitle)
    draw = ImageDraw.Draw(img)
    if note:
        draw.rounded_rectangle((24, y, width - 24, y + note_h), radius=8, fill=NOTE_FILL, outline=NOTE_EDGE)
        draw_lines(draw, 40, y + 12, note_lines, 13, INK)
        y += note_h + 12
    x0 = 24 + label_w
    if col_title:
        draw_text(draw, (x0 + cell_w * len(cols) / 2, y), col_title, 12, MUTED, True, "ma")
        y += 22
    for j, lines in enumerate(col_lines[: len(cols)]):
        ly = grid_top - 8 - len(lines) * line_height(12)
        for line in lines:
            draw_text(draw, (x0 + j * cell_w + cell_w / 2, ly), line, 12, INK, anchor="ma")
            ly += line_height(12)
    if row_title:
        draw_text(draw, (24, grid_top - 8), row_title, 12, MUTED, True, "ld")
    most = max([v for row in values for v in row], default=0) or 1
    for i, r in enumerate(rows):
        ry = grid_top + i * cell_h
        draw_text(draw, (24, ry + cell_h / 2), fit_text(r, 13, label_w - 12, True), 13, INK, True, "lm")
        for j in range(len(cols)):
            v = float(values[i][j])
            fill = mix((240, 244, 249), BAR_COLOR, v / most) if v else (247, 247, 247)
            box = (x0 + j * cell_w + 1, ry + 1, x0 + (j + 1) * cell_w - 2, ry + cell_h - 2)
            draw.rectangle(box, fill=fill)
            ink = WHITE if v / most > 0.55 else (INK if v else FAINT)
            text = f"{v:g}" if v else "0"
            draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, 13, ink, bool(v), "mm")
    return img
