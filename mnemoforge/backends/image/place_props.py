"""Background props a place may declare (``PlaceSpec.props``): a desk, a shelf, a stove, a tree,
a hut, a windsock ... each drawn standing on the ground line behind the people, in the place's
accent colour where it has one, capped with snow when snow lies (``backends/image/landscapes.py``
draws the place and calls :func:`decor` for each prop).
"""

from __future__ import annotations

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, mix

SNOW: RGB = (244, 246, 251)

DECOR = (
    "desk",
    "shelf",
    "table",
    "bench",
    "bed",
    "counter",
    "screen",
    "map",
    "radio",
    "stove",
    "tree",
    "rock",
    "fence",
    "hut",
    "lamp",
    "windsock",
    "car",
    "boat",
    "flag",
)
"""Background props a place may declare (``PlaceSpec.props``), drawn behind the people."""


def decor(
    draw: ImageDraw.ImageDraw, kind: str, cx: float, base: float, s: float, accent: RGB, snow: bool
) -> None:
    """One background prop (:data:`DECOR`) standing on ``base``, about ``s`` pixels tall."""
    wood, metal, dark = (126, 88, 56), (150, 154, 160), (50, 52, 58)
    cap = SNOW if snow else None
    if kind in ("desk", "table", "counter", "bench"):
        w = s * (1.6 if kind == "counter" else 1.2)
        top = base - s * (0.55 if kind != "bench" else 0.35)
        fill = accent if kind == "counter" else wood
        draw.rectangle([cx - w / 2, top, cx + w / 2, top + s * 0.08], fill=fill)
        if kind == "counter":
            draw.rectangle([cx - w / 2, top, cx + w / 2, base], fill=fill)
        else:
            for lx in (cx - w / 2 + 2, cx + w / 2 - 4):
                draw.rectangle([lx, top, lx + 2, base], fill=mix(wood, BLACK, 0.3))
        if kind == "desk":
            draw.rectangle([cx - s * 0.2, top - s * 0.35, cx + s * 0.2, top - s * 0.05], fill=dark)
    elif kind == "shelf":
        draw.rectangle([cx - s * 0.45, base - s * 1.3, cx + s * 0.45, base], outline=wood, width=3)
        for k in range(1, 4):
            y = base - s * 1.3 * k / 4
            draw.line([(cx - s * 0.45, y), (cx + s * 0.45, y)], fill=wood, width=2)
            for b in range(4):
                bx = cx - s * 0.4 + b * s * 0.2
                draw.rectangle(
                    [bx, y - s * 0.22, bx + s * 0.12, y - 1],
                    fill=((160, 60, 50), (60, 90, 150), accent)[b % 3],
                )
    elif kind == "bed":
        draw.rectangle([cx - s * 0.8, base - s * 0.35, cx + s * 0.8, base], fill=wood)
        draw.rectangle(
            [cx - s * 0.75, base - s * 0.45, cx + s * 0.75, base - s * 0.3], fill=mix(accent, WHITE, 0.6)
        )
    elif kind in ("screen", "map"):
        w, h = s * 0.9, s * 0.6
        top = base - s * 1.2
        draw.rectangle(
            [cx - w / 2, top, cx + w / 2, top + h], fill=dark if kind == "screen" else (236, 228, 196)
        )
        if kind == "map":
            draw.line(
                [(cx - w * 0.4, top + h * 0.7), (cx, top + h * 0.3), (cx + w * 0.4, top + h * 0.6)],
                fill=(70, 120, 80),
                width=2,
            )
        else:
            draw.rectangle([cx - w * 0.4, top + h * 0.15, cx + w * 0.4, top + h * 0.85], fill=(70, 150, 200))
    elif kind == "radio":
        draw.rectangle([cx - s * 0.35, base - s * 0.5, cx + s * 0.35, base - s * 0.15], fill=dark)
        draw.line([(cx + s * 0.25, base - s * 0.5), (cx + s * 0.4, base - s * 0.95)], fill=metal, width=2)
        draw.ellipse([cx - s * 0.25, base - s * 0.42, cx - s * 0.05, base - s * 0.22], fill=metal)
    elif kind == "stove":
        draw.rectangle([cx - s * 0.35, base - s * 0.6, cx + s * 0.35, base], fill=dark)
        draw.rectangle([cx - s * 0.06, base - s * 1.4, cx + s * 0.06, base - s * 0.6], fill=dark)
    elif kind == "tree":
        draw.rectangle([cx - s * 0.06, base - s * 0.6, cx + s * 0.06, base], fill=(95, 65, 40))
        draw.polygon(
            [(cx - s * 0.4, base - s * 0.4), (cx, base - s * 1.5), (cx + s * 0.4, base - s * 0.4)],
            fill=(40, 96, 56),
        )
        if cap:
            draw.polygon(
                [(cx - s * 0.15, base - s * 1.1), (cx, base - s * 1.5), (cx + s * 0.15, base - s * 1.1)],
                fill=cap,
            )
    elif kind == "rock":
        draw.ellipse([cx - s * 0.5, base - s * 0.45, cx + s * 0.5, base + s * 0.05], fill=(120, 118, 112))
        if cap:
            draw.chord([cx - s * 0.45, base - s * 0.45, cx + s * 0.45, base - s * 0.1], 180, 360, fill=cap)
    elif kind == "fence":
        for k in range(5):
            x = cx - s + k * s * 0.5
            draw.rectangle([x, base - s * 0.5, x + 3, base], fill=wood)
        draw.line([(cx - s, base - s * 0.35), (cx + s + 3, base - s * 0.35)], fill=wood, width=3)
    elif kind == "hut":
        draw.rectangle([cx - s * 0.7, base - s * 0.7, cx + s * 0.7, base], fill=wood)
        draw.polygon(
            [(cx - s * 0.85, base - s * 0.7), (cx, base - s * 1.3), (cx + s * 0.85, base - s * 0.7)],
            fill=cap or accent,
        )
        draw.rectangle([cx - s * 0.12, base - s * 0.45, cx + s * 0.12, base], fill=dark)
    elif kind == "lamp":
        draw.rectangle([cx - 2, base - s * 1.4, cx + 1, base], fill=dark)
        draw.ellipse([cx - s * 0.1, base - s * 1.5, cx + s * 0.1, base - s * 1.32], fill=(250, 226, 140))
    elif kind == "windsock":
        draw.rectangle([cx - 2, base - s * 1.4, cx + 1, base], fill=metal)
        for k in range(4):
            draw.rectangle(
                [cx + k * s * 0.14, base - s * 1.4, cx + (k + 1) * s * 0.14, base - s * 1.25],
                fill=(240, 120, 30) if k % 2 == 0 else WHITE,
            )
    elif kind in ("car", "boat"):
        body = accent
        if kind == "car":
            draw.rounded_rectangle(
                [cx - s * 0.7, base - s * 0.4, cx + s * 0.7, base - s * 0.1], radius=4, fill=body
            )
            draw.rectangle(
                [cx - s * 0.35, base - s * 0.6, cx + s * 0.3, base - s * 0.4], fill=mix(body, WHITE, 0.4)
            )
            for wx_ in (cx - s * 0.45, cx + s * 0.45):
                draw.ellipse([wx_ - s * 0.12, base - s * 0.22, wx_ + s * 0.12, base + s * 0.02], fill=dark)
        else:
            draw.polygon(
                [
                    (cx - s * 0.8, base - s * 0.3),
                    (cx + s * 0.8, base - s * 0.3),
                    (cx + s * 0.5, base),
                    (cx - s * 0.5, base),
                ],
                fill=body,
            )
            draw.line([(cx, base - s * 0.3), (cx, base - s * 1.2)], fill=wood, width=2)
    elif kind == "flag":
        draw.rectangle([cx - 1, base - s * 1.5, cx + 1, base], fill=metal)
        draw.rectangle([cx + 1, base - s * 1.5, cx + s * 0.5, base - s * 1.2], fill=accent)
