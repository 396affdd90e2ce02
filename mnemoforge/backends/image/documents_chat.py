"""Phone chat-app screenshots (group chats and direct messages)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .documents_base import (
    FAINT,
    INK,
    WHITE,
    Color,
    aa_shape,
    block_height,
    draw_lines,
    draw_text,
    fit_text,
    line_height,
    mix,
    name_color,
    paste_circle_avatar,
    rgb,
    text_width,
    wrap_text,
)

CHAT_BACKGROUND: Color = (236, 229, 221)
INCOMING_BUBBLE: Color = (255, 255, 255)
OUTGOING_BUBBLE: Color = (220, 248, 198)

_STATUS_H = 24
_HEADER_H = 56
_INPUT_H = 56
_TEXT = 14
_NAME = 12
_TIME = 10
_PAD_X = 9
_PAD_Y = 6
_SIDE = 10
_TAIL = 7


@dataclass(frozen=True)
class ChatMessage:
    """One chat message as it appears in the app."""

    sender: str
    text: str
    time: str
    outgoing: bool = False


@dataclass(frozen=True)
class _Bubble:
    msg: ChatMessage
    lines: list[str]
    name: str | None
    width: int
    height: int
    time_inline: bool
    first_in_run: bool
    gap_before: int


def _layout(messages: Sequence[ChatMessage], width: int, group: bool) -> list[_Bubble]:
    max_text = int(width * 0.75) - 2 * _PAD_X
    bubbles: list[_Bubble] = []
    prev: ChatMessage | None = None
    for msg in messages:
        first = prev is None or prev.outgoing != msg.outgoing or prev.sender != msg.sender
        name = msg.sender if (group and first and not msg.outgoing) else None
        lines = wrap_text(msg.text, _TEXT, max_text)
        time_w = text_width(msg.time, _TIME)
        content = max(text_width(line, _TEXT) for line in lines)
        if name is not None:
            content = max(content, min(text_width(name, _NAME, True), max_text))
        inline = text_width(lines[-1], _TEXT) + 10 + time_w <= max_text
        if inline:
            content = max(content, text_width(lines[-1], _TEXT) + 10 + time_w)
        else:
            content = max(content, time_w)
        height = 2 * _PAD_Y + block_height(len(lines), _TEXT, 1.15)
        if name is not None:
            height += line_height(_NAME) + 2
        if not inline:
            height += line_height(_TIME)
        gap = 0 if prev is None else (10 if first else 3)
        bubbles.append(_Bubble(msg, lines, name, content + 2 * _PAD_X, height, inline, first, gap))
        prev = msg
    return bubbles


def _draw_bubble(img: Image.Image, b: _Bubble, y: int, width: int) -> None:
    fill = OUTGOING_BUBBLE if b.msg.outgoing else INCOMING_BUBBLE
    x0 = width - _SIDE - b.width if b.msg.outgoing else _SIDE
    x1 = x0 + b.width
    # A faint drop shadow, then the bubble, then the tail on the first bubble of a run.
    aa_shape(img, (x0, y + 1, x1, y + b.height + 1), mix(CHAT_BACKGROUND, INK, 0.12), radius=8)
    aa_shape(img, (x0, y, x1, y + b.height), fill, radius=8)
    draw = ImageDraw.Draw(img)
    if b.first_in_run:
        if b.msg.outgoing:
            draw.polygon([(x1 - 8, y), (x1 + _TAIL, y), (x1, y + 9)], fill=fill)
        else:
            draw.polygon([(x0 + 8, y), (x0 - _TAIL, y), (x0, y + 9)], fill=fill)
    ty = y + _PAD_Y
    if b.name is not None:
        name_fill = mix(name_color(b.name), INK, 0.15)
        draw_text(
            draw,
            (x0 + _PAD_X, ty),
            fit_text(b.name, _NAME, b.width - 2 * _PAD_X, True),
            _NAME,
            name_fill,
            bold=True,
        )
        ty += line_height(_NAME) + 2
    ty = draw_lines(draw, x0 + _PAD_X, ty, b.lines, _TEXT, INK, spacing=1.15)
    time_fill = (110, 120, 110) if b.msg.outgoing else (130, 130, 130)
    draw_text(draw, (x1 - _PAD_X, y + b.height - _PAD_Y + 1), b.msg.time, _TIME, time_fill, anchor="rd")


def _draw_status_bar(draw: ImageDraw.ImageDraw, width: int, color: Color, clock: str | None) -> None:
    draw.rectangle((0, 0, width, _STATUS_H), fill=color)
    if clock:
        draw_text(draw, (12, _STATUS_H // 2), clock, 12, WHITE, bold=True, anchor="lm")
    bx = width - 12 - 22
    draw.rounded_rectangle((bx, 8, bx + 20, 16), radius=2, outline=WHITE, width=1)
    draw.rectangle((bx + 2, 10, bx + 15, 14), fill=WHITE)
    draw.rectangle((bx + 21, 10, bx + 22, 14), fill=WHITE)
    for i in range(4):
        sx = bx - 26 + i * 5
        draw.rectangle((sx, 16 - 2 * (i + 1), sx + 3, 16), fill=WHITE)


def _draw_header(img: Image.Image, title: str, subtitle: str, width: int, color: Color) -> None:
    draw = ImageDraw.Draw(img)
    top = _STATUS_H
    draw.rectangle((0, top, width, top + _HEADER_H), fill=color)
    cy = top + _HEADER_H // 2
    draw.line([(20, cy - 7), (13, cy), (20, cy + 7)], fill=WHITE, width=2)
    paste_circle_avatar(img, (46, cy), 36, title, None)
    text_x = 72
    avail = width - text_x - 40
    if subtitle:
        draw_text(draw, (text_x, cy - 2), fit_text(title, 16, avail, True), 16, WHITE, bold=True, anchor="ls")
        sub = fit_text(subtitle, 12, avail)
        draw_text(draw, (text_x, cy + 4), sub, 12, mix(color, WHITE, 0.8), anchor="lt")
    else:
        draw_text(draw, (text_x, cy), fit_text(title, 16, avail, True), 16, WHITE, bold=True, anchor="lm")
    for i in range(3):  # overflow menu dots
        draw.ellipse((width - 18, cy - 8 + i * 7, width - 14, cy - 4 + i * 7), fill=WHITE)


def _draw_input_bar(img: Image.Image, top: int, width: int, color: Color) -> None:
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, top, width, top + _INPUT_H), fill=CHAT_BACKGROUND)
    cy = top + _INPUT_H // 2
    aa_shape(img, (8, cy - 20, width - 56, cy + 20), WHITE, radius=20)
    draw_text(draw, (26, cy), "Message", 15, FAINT, anchor="lm")
    aa_shape(img, (width - 48, cy - 20, width - 8, cy + 20), color, ellipse=True)
    cx = width - 28
    draw.polygon([(cx - 7, cy - 8), (cx + 9, cy), (cx - 7, cy + 8), (cx - 4, cy)], fill=WHITE)


def render_chat_screenshot(
    title: str,
    messages: Sequence[ChatMessage],
    width: int = 360,
    height: int | None = None,
    *,
    group: bool | None = None,
    accent: str = "#075e54",
    clock: str | None = None,
) -> Image.Image:
    """Render a phone chat screen: header, left/right bubbles, sender names, timestamps.

    ``group=None`` shows sender names when more than one person other than the owner
    writes. With ``height=None`` the image grows to fit every message; with a fixed
    height the view is scrolled to the bottom like a real app (latest messages shown).
    """
    if width < 200:
        raise ValueError("chat screenshots need width >= 200")
    color = rgb(accent)
    incoming = sorted({m.sender for m in messages if not m.outgoing})
    is_group = len(incoming) > 1 if group is None else group
    bubbles = _layout(messages, width, is_group)
    content_h = 12 + sum(b.gap_before + b.height for b in bubbles) + 12
    chrome_h = _STATUS_H + _HEADER_H + _INPUT_H
    body_h = content_h if height is None else max(0, height - chrome_h)
    body = Image.new("RGB", (width, max(content_h, body_h)), CHAT_BACKGROUND)
    y = 12
    for b in bubbles:
        y += b.gap_before
        _draw_bubble(body, b, y, width)
        y += b.height
    body = body.crop((0, body.height - body_h, width, body.height))

    img = Image.new("RGB", (width, chrome_h + body_h), CHAT_BACKGROUND)
    img.paste(body, (0, _STATUS_H + _HEADER_H))
    draw = ImageDraw.Draw(img)
    _draw_status_bar(draw, width, mix(color, INK, 0.25), clock)
    subtitle = ", ".join([*incoming, "You"]) if is_group else ""
    _draw_header(img, title, subtitle, width, color)
    _draw_input_bar(img, _STATUS_H + _HEADER_H + body_h, width, color)
    return img
