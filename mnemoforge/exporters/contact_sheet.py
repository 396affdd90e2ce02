"""A contact sheet of a theme's cast: face anchor, name, role, voice and every outfit."""

from __future__ import annotations

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents_base import font, sanitize
from mnemoforge.backends.image.protocol import ImageBackend, PersonPlacement, SceneRequest
from mnemoforge.rng import derive_seed
from mnemoforge.schemas.theme import Theme

PORTRAIT = 160
THUMB = (128, 96)
PAD = 12


def contact_sheet(theme: Theme, backend: ImageBackend) -> Image.Image:
    """One row per person: the canonical portrait, identity text, and a close shot per outfit."""
    n_outfits = max(len(p.appearance.outfits()) for p in theme.cast)
    text_w = 230
    width = PAD + PORTRAIT + PAD + text_w + n_outfits * (THUMB[0] + PAD)
    row_h = PORTRAIT + PAD
    sheet = Image.new("RGB", (width, PAD + 34 + row_h * len(theme.cast)), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((PAD, PAD), sanitize(f"{theme.title}: cast"), fill="#111111", font=font(20))
    place = theme.places[0]
    for i, person in enumerate(theme.cast):
        y = PAD + 34 + i * row_h
        sheet.paste(backend.portrait(person.appearance, PORTRAIT).convert("RGB"), (PAD, y))
        v = person.voice
        lines = [
            (person.name, 17, "#111111"),
            (f"{person.role}, {person.age}", 13, "#333333"),
            (f"id: {person.id}", 12, "#555555"),
            (f"voice: {v.engine} {v.voice}{'+' + v.variant if v.variant else ''}", 12, "#555555"),
            (f"pitch {v.pitch}, rate {v.rate}", 12, "#555555"),
        ]
        ty = y + 6
        for text, size, colour in lines:
            draw.text((PAD * 2 + PORTRAIT, ty), sanitize(text), fill=colour, font=font(size, sanitize(text)))
            ty += size + 8
        for j, outfit in enumerate(person.appearance.outfits()):
            req = SceneRequest(
                width=THUMB[0],
                height=THUMB[1],
                place_name=place.name,
                place_kind=place.kind,
                indoor=True,
                palette=tuple(place.palette),
                people=(PersonPlacement(person.appearance, outfit.id),),
                composition="medium",
                seed=derive_seed(theme.seed, "contact", person.id, outfit.id),
            )
            x = PAD * 2 + PORTRAIT + text_w + j * (THUMB[0] + PAD)
            sheet.paste(backend.scene(req).convert("RGB"), (x, y))
            draw.text((x, y + THUMB[1] + 2), sanitize(outfit.label), fill="#333333", font=font(11))
    return sheet
