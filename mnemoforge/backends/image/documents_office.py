"""Office-style renders: profile cards, spreadsheet tables and document pages."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw

from .documents_base import (
    INK,
    MUTED,
    RULE,
    WHITE,
    Color,
    aa_shape,
    block_height,
    draw_lines,
    draw_text,
    line_height,
    mix,
    paste_circle_avatar,
    rgb,
    sanitize,
    text_width,
    wrap_text,
)

SHEET_GREEN: Color = (33, 115, 70)
GRID: Color = (212, 212, 212)
_NUMERIC = re.compile(r"^[-+(]?[$\u20ac\u00a3]?\s?[\d][\d,]*(\.\d+)?\s?(%|[kKmM]|[A-Z]{3})?\)?$")
_KEY = re.compile(r"^([A-Z][A-Za-z0-9 ./&-]{0,30}:)\s")


# ---------------------------------------------------------------------------- profile card


def render_profile_card(
    name: str,
    fields: Mapping[str, str],
    accent: str = "#3b6ea5",
    avatar: Image.Image | None = None,
    *,
    subtitle: str | None = None,
    width: int = 420,
) -> Image.Image:
    """Render a contact/profile card: accent banner, round avatar, name, label/value rows."""
    color = rgb(accent)
    margin, pad = 16, 20
    card_w = width - 2 * margin
    label_w = min(max((text_width(k, 13) for k in fields), default=0), card_w * 2 // 5)
    value_w = card_w - 2 * pad - label_w - 16
    rows = [(wrap_text(k, 13, label_w), wrap_text(v, 15, value_w)) for k, v in fields.items()]
    row_hs = [max(block_height(len(k), 13, 1.2), block_height(len(v), 15, 1.2)) + 16 for k, v in rows]
    name_lines = wrap_text(name, 22, card_w - 2 * pad, bold=True)
    sub_lines = wrap_text(subtitle, 14, card_w - 2 * pad) if subtitle else []
    banner_h, diam = 92, 92
    head_h = banner_h + diam // 2 + 12
    head_h += block_height(len(name_lines), 22, 1.15) + block_height(len(sub_lines), 14)
    card_h = head_h + 14 + sum(row_hs) + 10
    img = Image.new("RGB", (width, card_h + 2 * margin), (236, 239, 243))
    box = (margin, margin, margin + card_w, margin + card_h)
    aa_shape(img, (box[0] - 1, box[1], box[2] + 1, box[3] + 3), (214, 218, 224), radius=14)
    aa_shape(img, box, WHITE, radius=14)
    aa_shape(img, (box[0], box[1], box[2], box[1] + banner_h + 14), color, radius=14)
    draw = ImageDraw.Draw(img)
    draw.rectangle((box[0], box[1] + banner_h, box[2], box[1] + banner_h + 14), fill=WHITE)
    cx, cy = width // 2, margin + banner_h
    aa_shape(
        img,
        (cx - diam // 2 - 4, cy - diam // 2 - 4, cx + diam // 2 + 4, cy + diam // 2 + 4),
        WHITE,
        ellipse=True,
    )
    paste_circle_avatar(img, (cx, cy), diam, name, avatar)
    y = cy + diam // 2 + 12
    for line in name_lines:
        draw_text(draw, (cx, y), line, 22, INK, bold=True, anchor="ma")
        y += round(line_height(22) * 1.15)
    for line in sub_lines:
        draw_text(draw, (cx, y), line, 14, MUTED, anchor="ma")
        y += line_height(14)
    y += 14
    x0 = margin + pad
    for (klines, vlines), rh in zip(rows, row_hs, strict=True):
        draw.line([(x0, y), (margin + card_w - pad, y)], fill=RULE)
        draw_lines(draw, x0, y + 9, klines, 13, mix(color, MUTED, 0.5), spacing=1.2)
        draw_lines(draw, x0 + label_w + 16, y + 8, vlines, 15, INK, spacing=1.2)
        y += rh
    return img


# ---------------------------------------------------------------------------- spreadsheet


def _col_letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def render_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    max_col_width: int = 360,
) -> Image.Image:
    """Render a spreadsheet view: title bar, A/B/C and row-number gutters, header row, grid lines.

    Column widths follow the widest cell (bold header included); cells wider than
    ``max_col_width`` wrap. Numeric-looking cells are right-aligned as a spreadsheet would.
    """
    size, pad_x, pad_y = 13, 8, 5
    ncol = max([len(columns), *(len(r) for r in rows)], default=0)
    header = [*map(str, columns), *[""] * (ncol - len(columns))]
    body = [[*map(str, r), *[""] * (ncol - len(r))] for r in rows]
    widths = []
    for c in range(ncol):
        natural = max([text_width(header[c], size, True), *(text_width(r[c], size) for r in body)])
        widths.append(max(56, min(max_col_width, natural + 2 * pad_x)))
    grid = [header, *body]
    wrapped = [
        [wrap_text(cell, size, widths[c] - 2 * pad_x, bold=(ri == 0)) for c, cell in enumerate(row)]
        for ri, row in enumerate(grid)
    ]
    row_hs = [
        max(22, block_height(max((len(c) for c in row), default=1), size, 1.15) + 2 * pad_y)
        for row in wrapped
    ]
    gutter = max(36, text_width(str(len(grid)), 11) + 16)
    title_h, letters_h, tabs_h = 38, 22, 28
    table_w = gutter + sum(widths) + 1
    width = max(table_w, min(360, text_width(title, 15, True) + 60))
    top = title_h + letters_h
    height = top + sum(row_hs) + 1 + tabs_h
    img = Image.new("RGB", (width, height), WHITE)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, title_h), fill=SHEET_GREEN)
    draw.rectangle((12, 11, 28, 27), outline=WHITE, width=2)
    draw.line([(12, 19), (28, 19)], fill=WHITE, width=1)
    draw.line([(20, 11), (20, 27)], fill=WHITE, width=1)
    draw_text(draw, (38, title_h // 2), title, 15, WHITE, bold=True, anchor="lm")
    head_fill, gutter_fill = (226, 239, 218), (243, 243, 243)
    draw.rectangle((0, title_h, width, top), fill=gutter_fill)
    draw.rectangle((0, top, gutter, top + sum(row_hs)), fill=gutter_fill)
    xs = [gutter]
    for w in widths:
        xs.append(xs[-1] + w)
    for c in range(ncol):
        draw_text(
            draw, ((xs[c] + xs[c + 1]) // 2, title_h + letters_h // 2), _col_letter(c), 11, MUTED, anchor="mm"
        )
    y = top
    for ri, (row, rh) in enumerate(zip(wrapped, row_hs, strict=True)):
        if ri == 0:
            draw.rectangle((gutter, y, xs[-1], y + rh), fill=head_fill)
        draw_text(draw, (gutter // 2, y + rh // 2), str(ri + 1), 11, MUTED, anchor="mm")
        for c, lines in enumerate(row):
            numeric = ri > 0 and bool(_NUMERIC.match(sanitize(grid[ri][c]).strip()))
            ly = y + pad_y
            for line in lines:
                if numeric:
                    draw_text(draw, (xs[c + 1] - pad_x, ly), line, size, INK, anchor="ra")
                else:
                    draw_text(draw, (xs[c] + pad_x, ly), line, size, INK, bold=(ri == 0))
                ly += round(line_height(size) * 1.15)
        y += rh
        draw.line([(0, y), (xs[-1], y)], fill=GRID)
    draw.line([(0, top), (xs[-1], top)], fill=GRID)
    for x in [0, *xs]:
        draw.line([(x, title_h), (x, y)], fill=GRID)
    draw.line([(gutter, top + row_hs[0]), (xs[-1], top + row_hs[0])], fill=mix(SHEET_GREEN, WHITE, 0.3))
    # Sheet tabs strip.
    draw.rectangle((0, y + 1, width, height), fill=gutter_fill)
    draw.rectangle((gutter, y + 1, gutter + 72, height - 4), fill=WHITE)
    draw.line([(gutter, height - 5), (gutter + 72, height - 5)], fill=SHEET_GREEN, width=2)
    draw_text(draw, (gutter + 36, y + tabs_h // 2), "Sheet1", 12, SHEET_GREEN, bold=True, anchor="mm")
    return img


# ---------------------------------------------------------------------------- document page


def render_document_page(
    title: str,
    blocks: Sequence[str],
    footer: str | None = None,
    *,
    width: int = 794,
) -> Image.Image:
    """Render a document page (memo, letter, notice) of wrapped blocks.

    Block conventions: ``'# text'`` is a heading, lines starting ``'- '`` are bullets,
    lines like ``'To: Finance team'`` get a bold key; anything else is a paragraph.
    The page is at least A4-proportioned and grows with its content.
    """
    margin = max(40, width // 11)
    text_w = width - 2 * margin
    body, spacing = 15, 1.45
    step = round(line_height(body) * spacing)
    ops: list[tuple[str, list[str], int]] = []  # (kind, lines, height)
    title_lines = wrap_text(title, 26, text_w, bold=True)
    for block in blocks:
        if block.startswith("# "):
            lines = wrap_text(block[2:], 18, text_w, bold=True)
            ops.append(("h", lines, 10 + block_height(len(lines), 18, 1.3) + 4))
            continue
        for raw in block.split("\n"):
            if raw.lstrip().startswith(("- ", "* ", "\u2022 ")):
                lines = wrap_text(raw.lstrip()[2:], body, text_w - 22)
                ops.append(("b", lines, len(lines) * step + 4))
            else:
                lines = wrap_text(raw, body, text_w)
                ops.append(("p", lines, len(lines) * step))
        ops.append(("gap", [], 12))
    footer_lines = wrap_text(footer, 12, text_w) if footer else []
    footer_h = 24 + block_height(len(footer_lines), 12, 1.3) if footer else 0
    content_h = margin + block_height(len(title_lines), 26, 1.2) + 26 + sum(h for _, _, h in ops)
    height = max(round(width * 1.4142), content_h + footer_h + margin)
    img = Image.new("RGB", (width, height), WHITE)
    draw = ImageDraw.Draw(img)
    y = draw_lines(draw, margin, margin, title_lines, 26, INK, spacing=1.2, bold=True)
    draw.rectangle((margin, y + 6, width - margin, y + 7), fill=INK)
    y += 26
    for kind, lines, h in ops:
        if kind == "h":
            draw_lines(draw, margin, y + 10, lines, 18, INK, spacing=1.3, bold=True)
        elif kind == "b":
            cy = y + line_height(body) // 2 + 1
            aa_shape(img, (margin + 6, cy - 3, margin + 12, cy + 3), INK, ellipse=True)
            draw_lines(draw, margin + 22, y, lines, body, INK, spacing=spacing)
        elif kind == "p":
            draw_lines(draw, margin, y, lines, body, INK, spacing=spacing)
            key = _KEY.match(lines[0]) if lines else None
            if key:  # double-strike the key so "To:" / "Date:" read as bold labels
                draw_text(draw, (margin + 1, y), key.group(1), body, INK)
        y += h
    if footer_lines:
        fy = height - margin // 2 - block_height(len(footer_lines), 12, 1.3)
        draw.line([(margin, fy - 10), (width - margin, fy - 10)], fill=RULE)
        draw_lines(draw, margin, fy, footer_lines, 12, MUTED, spacing=1.3)
    return img
