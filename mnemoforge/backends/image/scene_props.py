"""Props of procedural scenes: which simple shape a prop's name is drawn as, and drawing it.

A prop stands on a base line, about ``s`` pixels tall, with an optional label tag below it.
"""

from __future__ import annotations

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, Box, mix
from mnemoforge.backends.image.fonts import text_tag

PROP_SHAPES = (
    ("cup", ("cup", "mug", "coffee", "tea", "glass")),
    ("book", ("book", "notebook", "diary", "journal", "novel", "album", "folder", "map", "menu")),
    ("bag", ("bag", "backpack", "purse", "tote", "suitcase", "briefcase", "basket")),
    ("phone", ("phone", "tablet", "card", "ticket", "remote")),
    ("bottle", ("bottle", "flask", "thermos", "vase", "jar")),
    ("ball", ("ball", "balloon", "apple", "orange", "globe", "clock")),
    ("umbrella", ("umbrella", "parasol")),
    ("guitar", ("guitar", "violin", "ukulele")),
    ("camera", ("camera", "radio", "speaker")),
    ("plant", ("plant", "flower", "bouquet", "cactus")),
    ("tin", ("tin", "can", "caddy", "canister")),
    ("laptop", ("laptop", "computer")),
)


WHOLE_WORD_SHAPES = frozenset({"tin", "laptop"})  # short words: matched as whole words only


def prop_shape(name: str) -> str:
    """Which simple shape a prop named ``name`` is drawn as (default: ``box``).

    The head noun (the last word: a *button tin* is a tin) decides before any other word.
    """
    n = name.lower()
    head = n.split()[-1] if n.split() else n
    for text in (head, n):
        words_in = text.split()
        hit = next((shape for shape, words in PROP_SHAPES if any(w in words_in for w in words)), None)
        if hit:
            return hit
    loose = [(shape, words) for shape, words in PROP_SHAPES if shape not in WHOLE_WORD_SHAPES]
    return next((shape for shape, words in loose if any(w in n for w in words)), "box")


def draw_prop(
    draw: ImageDraw.ImageDraw,
    name: str,
    color: RGB,
    cx: float,
    base: float,
    s: float,
    label: str | None,
    shape: str | None = None,
) -> Box:
    """Draw a prop standing on ``base`` (its bottom), about ``s`` px tall; label on a tag below."""
    shape, dark = shape or prop_shape(name), mix(color, BLACK, 0.4)
    t, lw = base - s, max(1, round(s / 10))
    rr = draw.rounded_rectangle
    if shape == "tin":  # a lidded cylinder, no handle
        draw.rectangle([cx - s * 0.28, t + s * 0.22, cx + s * 0.28, base], fill=color)
        draw.ellipse([cx - s * 0.28, base - s * 0.1, cx + s * 0.28, base + s * 0.02], fill=dark)
        draw.rectangle([cx - s * 0.31, t + s * 0.12, cx + s * 0.31, t + s * 0.28], fill=dark)
        draw.line([(cx - s * 0.28, t + s * 0.6), (cx + s * 0.28, t + s * 0.6)], fill=dark, width=lw)
        box = [cx - s * 0.31, t + s * 0.12, cx + s * 0.31, base + s * 0.02]
    elif shape == "laptop":  # open lid over a flat base
        draw.polygon(
            [(cx - s * 0.4, base - s * 0.08), (cx - s * 0.3, t + s * 0.25), (cx + s * 0.3, t + s * 0.25),
             (cx + s * 0.4, base - s * 0.08)],
            fill=color, outline=dark,
        )  # fmt: skip
        draw.rectangle([cx - s * 0.24, t + s * 0.32, cx + s * 0.24, base - s * 0.16], fill=(40, 50, 70))
        draw.rectangle([cx - s * 0.5, base - s * 0.08, cx + s * 0.5, base], fill=dark)
        box = [cx - s * 0.5, t + s * 0.25, cx + s * 0.5, base]
    elif shape == "cup":
        draw.ellipse([cx + s * 0.15, t + s * 0.3, cx + s * 0.5, t + s * 0.7], outline=color, width=lw)
        draw.rectangle([cx - s * 0.3, t + s * 0.2, cx + s * 0.3, base], fill=color)
        box = [cx - s * 0.3, t + s * 0.2, cx + s * 0.5, base]
    elif shape == "book":
        draw.rectangle([cx - s * 0.35, t, cx + s * 0.35, base], fill=color)
        draw.rectangle([cx - s * 0.35, t, cx - s * 0.25, base], fill=dark)
        box = [cx - s * 0.35, t, cx + s * 0.35, base]
    elif shape == "bag":
        draw.arc([cx - s * 0.25, t, cx + s * 0.25, t + s * 0.6], 180, 360, fill=dark, width=lw)
        rr([cx - s * 0.45, t + s * 0.3, cx + s * 0.45, base], radius=max(1, s * 0.12), fill=color)
        box = [cx - s * 0.45, t, cx + s * 0.45, base]
    elif shape == "phone":
        rr([cx - s * 0.22, t + s * 0.25, cx + s * 0.22, base], radius=max(1, s * 0.06), fill=color)
        draw.rectangle([cx - s * 0.16, t + s * 0.33, cx + s * 0.16, base - s * 0.1], fill=(30, 35, 50))
        box = [cx - s * 0.22, t + s * 0.25, cx + s * 0.22, base]
    elif shape == "bottle":
        draw.rectangle([cx - s * 0.08, t, cx + s * 0.08, t + s * 0.35], fill=dark)
        rr([cx - s * 0.2, t + s * 0.3, cx + s * 0.2, base], radius=max(1, s * 0.08), fill=color)
        box = [cx - s * 0.2, t, cx + s * 0.2, base]
    elif shape == "ball":
        draw.ellipse([cx - s * 0.4, base - s * 0.8, cx + s * 0.4, base], fill=color, outline=dark)
        box = [cx - s * 0.4, base - s * 0.8, cx + s * 0.4, base]
    elif shape == "umbrella":
        draw.pieslice([cx - s * 0.7, t - s * 0.4, cx + s * 0.7, t + s * 0.6], 180, 360, fill=color)
        draw.line([(cx, t + s * 0.1), (cx, base)], fill=dark, width=max(1, round(s / 12)))
        box = [cx - s * 0.7, t - s * 0.4, cx + s * 0.7, base]
    elif shape == "guitar":
        draw.rectangle([cx - s * 0.05, t - s * 0.3, cx + s * 0.05, base - s * 0.5], fill=dark)
        draw.ellipse([cx - s * 0.3, base - s * 0.65, cx + s * 0.3, base], fill=color)
        box = [cx - s * 0.3, t - s * 0.3, cx + s * 0.3, base]
    elif shape == "camera":
        rr([cx - s * 0.45, t + s * 0.3, cx + s * 0.45, base], radius=max(1, s * 0.08), fill=color)
        r = s * 0.2
        draw.ellipse([cx - r, base - s * 0.35 - r, cx + r, base - s * 0.35 + r], fill=(30, 30, 40))
        box = [cx - s * 0.45, t + s * 0.3, cx + s * 0.45, base]
    elif shape == "plant":
        for dx, dy in ((-0.2, 0.15), (0.2, 0.15), (0, 0.0)):
            r = s * 0.22
            draw.ellipse([cx + dx * s - r, t + dy * s, cx + dx * s + r, t + dy * s + 2 * r], fill=color)
        draw.polygon(
            [
                (cx - s * 0.25, t + s * 0.55),
                (cx + s * 0.25, t + s * 0.55),
                (cx + s * 0.18, base),
                (cx - s * 0.18, base),
            ],
            fill=(160, 90, 60),
        )
        box = [cx - s * 0.45, t, cx + s * 0.45, base]
    else:
        draw.rectangle([cx - s * 0.4, t + s * 0.3, cx + s * 0.4, base], fill=color, outline=dark)
        box = [cx - s * 0.4, t + s * 0.3, cx + s * 0.4, base]
    out = (int(box[0]), int(box[1]), int(box[2]) + 1, int(box[3]) + 1)
    if label:
        size = max(9, round(s * 0.3))
        tag = text_tag(draw, cx, base + size * 0.5 + 3, label, size, border=dark)
        out = (min(out[0], tag[0]), out[1], max(out[2], tag[2]), tag[3])
    return out
