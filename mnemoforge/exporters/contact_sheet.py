"""Contact sheets: a theme's cast (face anchor, name, role, voice and every outfit), and a run's or
release's places, objects and animals as drawn across time (``world_sheet``)."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageDraw

from mnemoforge.backends.image.animal_figure import animal_anchor, placement
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
    sheet = Image.new("RGB", (width, PAD + 34 + row_h * (len(theme.cast) + len(theme.animals))), "white")
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
    for i, a in enumerate(theme.animals):  # cast animals: their anchor picture; no voice
        y = PAD + 34 + (len(theme.cast) + i) * row_h
        sheet.paste(animal_anchor(placement(a), PORTRAIT), (PAD, y))
        lines = [
            (a.name, 17, "#111111"),
            (f"{a.size} {a.species}, {a.markings}", 13, "#333333"),
            (f"id: {a.id}", 12, "#555555"),
            (f"with: {', '.join(a.companions)}", 12, "#555555"),
        ]
        ty = y + 6
        for text, size, colour in lines:
            draw.text((PAD * 2 + PORTRAIT, ty), sanitize(text), fill=colour, font=font(size, sanitize(text)))
            ty += size + 8
    return sheet


WORLD_THUMB = (160, 90)
PER_ROW = 6
LABEL_W = 190
CROP = 72


def _spread(items: list, k: int) -> list:
    """``k`` items spread evenly over ``items`` (first and last included)."""
    if len(items) <= k:
        return items
    return [items[round(i * (len(items) - 1) / (k - 1))] for i in range(k)]


def _drawn(root: Path, clip_id: str) -> dict:
    """A clip's render record (``media/drawn`` in a run, the annotations in a release)."""
    for folder in (root / "media" / "drawn", *root.glob("data/*/annotations/drawn")):
        path = folder / f"{clip_id}.json"
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    return {}


def _kind_of(o: dict) -> str:
    """An object's line under its name: ``object``, or the part that draws it ("label: board")."""
    part = next((k for k, v in (o.get("draws") or {}).items() if v), None)
    return f"{part}: {o['draws'][part].get('drawable', part)}" if part else "object"


def world_sheet(root: Path, world: dict, clips: list[dict]) -> Image.Image:
    """Every place, declared object and cast animal as drawn across time, from a run's or release's
    stills: a row per place (wide shots first, spread over the album, with date, light and weather)
    and a row per object and animal (its box cropped out of the shots it is in, with the date).
    A place or object never drawn says so."""
    shots = [s for c in clips if not c.get("calibration") for s in c["shots"]]
    shots.sort(key=lambda s: s["start"])
    boxes: dict[str, list[tuple[dict, list[int]]]] = {}
    for c in clips:
        rec = _drawn(root, c["id"]) if not c.get("calibration") else {}
        by_shot = {s["id"]: s for s in c["shots"]}
        for d in rec.get("shots", []):
            for thing in (*d.get("props", []), *d.get("animals", [])):
                if thing.get("box") and d["shot"] in by_shot:
                    boxes.setdefault(thing["id"], []).append((by_shot[d["shot"]], thing["box"]))
            for part in d.get("parts", []):  # an object drawn by a library part (a board, a shelf)
                if d["shot"] in by_shot:
                    boxes.setdefault(part["oid"], []).append((by_shot[d["shot"]], part["box"]))
    rows: list[tuple[str, str, list[tuple[Image.Image, str]]]] = []
    for p in world.get("places", []):
        here = [s for s in shots if s["place"] == p["id"]]
        here = sorted(here, key=lambda s: (s["composition"] != "wide", s["start"]))[: PER_ROW * 3]
        picked = _spread(sorted(here, key=lambda s: s["start"]), PER_ROW)
        sub = p["kind"] + (f", {p['altitude_m']} m" if p.get("altitude_m") is not None else "")
        cells = [(_still(root, s, None, WORLD_THUMB), _when(s)) for s in picked]
        rows.append((p["name"], sub, cells))
    things = [(o["id"], o["name"], _kind_of(o)) for o in world.get("objects", [])]
    things += [(e["id"], e["name"], e["attrs"].get("species", "animal")) for e in world.get("entities", [])
               if e["kind"] == "animal"]  # fmt: skip
    for tid, name, sub in things:
        seen = sorted(boxes.get(tid, []), key=lambda x: x[0]["start"])
        cells = [(_still(root, s, box, (CROP, CROP)), s["start"][:10]) for s, box in _spread(seen, PER_ROW)]
        rows.append((name, sub, cells))
    cell_w = max(WORLD_THUMB[0], CROP) + PAD
    row_h = WORLD_THUMB[1] + 40
    sheet = Image.new(
        "RGB", (PAD + LABEL_W + PER_ROW * cell_w, PAD + 34 + row_h * max(1, len(rows))), "white"
    )
    draw = ImageDraw.Draw(sheet)
    draw.text((PAD, PAD), sanitize("Places, objects and animals as drawn"), fill="#111111", font=font(20))
    for i, (name, sub, cells) in enumerate(rows):
        y = PAD + 34 + i * row_h
        draw.text((PAD, y + 4), sanitize(name), fill="#111111", font=font(15, sanitize(name)))
        draw.text((PAD, y + 26), sanitize(sub), fill="#555555", font=font(12))
        if not cells:
            draw.text((PAD + LABEL_W, y + 30), "never drawn", fill="#a03030", font=font(13))
        for j, (img, caption) in enumerate(cells):
            x = PAD + LABEL_W + j * cell_w
            sheet.paste(img, (x, y))
            for k, part in enumerate(caption.split("\n")):
                draw.text(
                    (x, y + img.height + 2 + 13 * k), sanitize(part)[:30], fill="#333333", font=font(11)
                )
    return sheet


def _when(shot: dict) -> str:
    return f"{shot['start'][:10]}\n{shot['time_of_day']}, {shot['weather']}"


def _still(root: Path, shot: dict, box: list[int] | None, size: tuple[int, int]) -> Image.Image:
    """The shot's still (cropped to ``box`` with a margin), fitted into ``size``; grey if missing."""
    path = root / "media" / "shots" / f"{shot['id']}.png"
    if not path.is_file():
        return Image.new("RGB", size, (200, 200, 200))
    with Image.open(path) as im:
        img = im.convert("RGB")
    if box is not None:
        m = max(4, (box[2] - box[0]) // 5)
        img = img.crop(
            (max(0, box[0] - m), max(0, box[1] - m), min(img.width, box[2] + m), min(img.height, box[3] + m))
        )
    img.thumbnail(size)
    out = Image.new("RGB", size, (245, 245, 245))
    out.paste(img, ((size[0] - img.width) // 2, (size[1] - img.height) // 2))
    return out
