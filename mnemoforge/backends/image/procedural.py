"""Offline procedural image backend (Pillow): cartoon portraits and composed scenes.

Deterministic by construction: geometry comes from the appearance spec, and all scene
randomness (decor, extras, weather) is drawn from ``random.Random(req.seed)``.
"""

from __future__ import annotations

import io
import itertools
import random
from dataclasses import dataclass

from PIL import Image, ImageDraw

from mnemoforge.backends.image.animal_figure import draw_animal
from mnemoforge.backends.image.colors import BLACK, RGB, mix, rgb
from mnemoforge.backends.image.figures import FigureGeom, draw_person, draw_silhouette, figure_units
from mnemoforge.backends.image.fonts import font, renderable
from mnemoforge.backends.image.landscapes import KINDS as PLACE_KINDS
from mnemoforge.backends.image.landscapes import draw_place
from mnemoforge.backends.image.protocol import Box, SceneLayout, SceneRequest
from mnemoforge.backends.image.scene_parts import draw_parts, part_boxes, sign_gap
from mnemoforge.backends.image.scene_props import draw_prop, prop_shape
from mnemoforge.backends.image.scenery import (
    apply_light,
    indoor_room,
    outdoor_view,
    precipitation,
    room_layout,
    sign_board,
    sign_size,
    weather_kind,
)
from mnemoforge.schemas.theme import AppearanceSpec

PORTRAIT_BG = (222, 227, 234)
PORTRAIT_TOP = 0.17  # face top, as a fraction of the portrait size
PORTRAIT_UNIT = 0.4  # head unit, as a fraction of the portrait size
# composition -> (horizon fraction, head unit as fraction of height, face top of a standard person)
FRAMING = {"wide": (0.6, 0.085, None), "medium": (0.74, 0.2, 0.24), "close": (0.92, 0.42, 0.14)}
ZOOM = {"wide": 1.0, "medium": 1.5, "close": 2.2}


def png_bytes(img: Image.Image) -> bytes:
    """Encode ``img`` as PNG with no metadata (stable bytes for hashing)."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _clip(b: tuple[float, float, float, float], W: int, H: int) -> Box | None:
    x0, y0, x1, y1 = max(0, int(b[0])), max(0, int(b[1])), min(W, int(b[2])), min(H, int(b[3]))
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _tag_h(label: str | None, s: float) -> float:
    """Height of the label tag ``draw_prop`` puts under a prop of size ``s`` (0 without a label)."""
    return 0.0 if not label else max(9, round(s * 0.3)) * 1.5 + 4


def _half_w(label: str | None, s: float) -> float:
    """Half the width a prop of size ``s`` takes, its label tag included (to keep it in frame)."""
    half = 0.7 * s + 2  # draw_prop boxes end one pixel past the shape
    if label:
        size = max(9, round(s * 0.3))
        half = max(half, font(size, renderable(label)).getlength(renderable(label)) / 2 + size * 0.6 + 3)
    return half


@dataclass(frozen=True)
class _Slot:
    index: int
    cx: float
    top: float
    u: float


class ProceduralImageBackend:
    """Offline image backend drawing flat cartoon people and places with Pillow.

    ``supersample`` applies to portraits only (scenes are drawn at target resolution for speed).
    """

    name = "procedural"

    def __init__(self, supersample: int = 2) -> None:
        self.supersample = max(1, int(supersample))

    # -- portraits ---------------------------------------------------------------------------
    def portrait(self, appearance: AppearanceSpec, size: int = 256) -> Image.Image:
        """Head-and-shoulders face anchor in the signature outfit on a plain background."""
        return self.portrait_with_layout(appearance, size)[0]

    def portrait_with_layout(
        self, appearance: AppearanceSpec, size: int = 256
    ) -> tuple[Image.Image, FigureGeom]:
        """Like :meth:`portrait`, also returning where the face and torso are (output pixels, clipped)."""
        ss = self.supersample
        big = size * ss
        img = Image.new("RGB", (big, big), PORTRAIT_BG)
        g = draw_person(
            img, appearance, appearance.signature_outfit, big / 2, PORTRAIT_TOP * big, PORTRAIT_UNIT * big
        )
        if ss > 1:
            img = img.resize((size, size), Image.Resampling.LANCZOS)

        def sc(b: Box) -> Box:
            c = _clip((b[0] / ss, b[1] / ss, -(-b[2] // ss), -(-b[3] // ss)), size, size)
            assert c is not None
            return c

        hand = (g.hand[0] // ss, g.hand[1] // ss)
        return img, FigureGeom(box=sc(g.box), face=sc(g.face), torso=sc(g.torso), hand=hand)

    # -- scenes ------------------------------------------------------------------------------
    def scene(self, req: SceneRequest) -> Image.Image:
        """Compose one RGB still for ``req``."""
        return self.scene_with_layout(req)[0]

    def scene_with_layout(self, req: SceneRequest) -> tuple[Image.Image, SceneLayout]:
        """Compose one still and report the boxes of people, faces, torsos, props and the sign."""
        rng = random.Random(req.seed)
        W, H = req.width, req.height
        comp = req.composition
        horizon_f, _, _ = FRAMING[comp]
        horizon = round(horizon_f * H)
        z = ZOOM[comp]
        pal = [rgb(c) for c in req.palette]
        wx = weather_kind(req.weather)
        img = Image.new("RGB", (W, H))
        d = ImageDraw.Draw(img)
        if req.place_kind in PLACE_KINDS:
            draw_place(d, W, H, horizon, req.place_kind, req.place_name, pal, z, req.time_of_day, wx, rng,
                       snow=req.snow, props=req.decor)  # fmt: skip
        elif req.indoor:
            layout = room_layout(req.place_name)
            indoor_room(d, W, H, horizon, req.place_kind, pal, z, req.time_of_day, wx, rng, layout)
        else:
            outdoor_view(d, W, H, horizon, req.place_kind, pal, z, req.time_of_day, wx, rng)
            if wx == "fog":
                img = Image.blend(img, Image.new("RGB", (W, H), (225, 228, 232)), 0.35)
                d = ImageDraw.Draw(img)

        safe = req.safe or (0, 0, W, H)
        slots = self._slots(req, rng, safe)
        sign_box = self._sign(d, req, slots, pal, rng, safe) if req.sign else None
        extras = self._extras(img, req, slots, horizon, rng)

        n = len(req.people)
        people: list[Box | None] = [None] * n
        faces: list[Box | None] = [None] * n
        torsos: list[Box | None] = [None] * n
        prop_boxes: list[Box | None] = [None] * len(req.props)
        hands: dict[int, tuple[tuple[int, int], float]] = {}
        holders = {p.holder_index for p in req.props if p.holder_index is not None}
        # animals first, behind the people, and kept clear of every face (issue 30)
        faces_ahead = self._face_boxes(req, slots, holders) if req.animals else []
        animal_boxes = self._animals(d, req, slots, faces_ahead) if req.animals else ()
        for slot in slots:
            pp = req.people[slot.index]
            a = pp.appearance
            g = draw_person(
                img,
                a,
                a.outfit(pp.outfit_id),
                slot.cx,
                slot.top,
                slot.u,
                holding=slot.index in holders,
                label=pp.label,
            )
            people[slot.index], faces[slot.index] = _clip(g.box, W, H), _clip(g.face, W, H)
            torsos[slot.index] = _clip(g.torso, W, H)
            hands[slot.index] = (g.hand, slot.u)
        self._free_props(d, req, slots, prop_boxes, rng, safe)
        for k, prop in enumerate(req.props):  # held props last so no one covers them
            if prop.holder_index in hands:
                (hx, hy), u = hands[prop.holder_index]
                s = min(0.8 * u, 0.3 * H)
                # hands below the frame (close shots) hold the prop up into view
                base = min(hy + 0.45 * s, safe[3] - 2 - _tag_h(prop.label, s))
                hw = _half_w(prop.label, s)
                px = max(safe[0] + hw, min(hx + 0.2 * s, safe[2] - hw))
                b = draw_prop(d, prop.name, rgb(prop.color), px, base, s, prop.label, prop.shape)
                prop_boxes[k] = _clip(b, W, H)
        if not req.indoor and wx in ("rain", "snow"):
            precipitation(d, (0, 0, W, H), wx, rng)
        img = apply_light(img, req.time_of_day, req.indoor)
        parts: tuple[dict, ...] = ()
        if req.parts:  # declared objects (a board, a shelf, a map): top corners, above every face,
            # in their own inks (after the light) so the written value, the pin, the colour read true
            boxes = part_boxes(req.parts, W, H, safe, [f for f in faces if f is not None])
            parts = draw_parts(ImageDraw.Draw(img), req.parts, boxes)
        layout = SceneLayout(
            people=tuple(people),
            faces=tuple(faces),
            torsos=tuple(torsos),
            props=tuple(prop_boxes),
            sign=sign_box,
            extras=tuple(extras),
            sign_text=req.sign if sign_box else None,
            prop_shapes=tuple(prop.shape or prop_shape(prop.name) for prop in req.props),
            animals=animal_boxes,
            parts=parts,
        )
        return img, layout

    def _slots(self, req: SceneRequest, rng: random.Random, safe: Box) -> list[_Slot]:
        """Left-to-right positions and sizes of everyone in ``req.people``, inside ``safe``."""
        H = req.height
        x0, W = safe[0], safe[2] - safe[0]  # lay out across the safe width
        comp = req.composition
        idx = list(range(len(req.people)))
        n = len(idx)
        if n == 0:
            return []
        _, unit_f, top_f = FRAMING[comp]
        width_per = {"wide": 2.7, "medium": 2.6, "close": 2.4}[comp]
        u = min(unit_f * H, W / (n * width_per))
        gap = min(W / n, (3.3 if comp == "wide" else 2.9) * u)
        span = gap * (n - 1)
        slack = max(0.0, (W - span - 2.4 * u) / 2)
        centre = x0 + W / 2 + rng.uniform(-0.5, 0.5) * min(slack, 0.12 * W)
        out = []
        for j, i in enumerate(idx):
            a = req.people[i].appearance
            cx = centre + (j - (n - 1) / 2) * gap + (rng.uniform(-0.06, 0.06) * gap if n > 1 else 0.0)
            if top_f is None:  # wide: feet on a ground line
                top = 0.93 * H - figure_units(a) * u
            elif comp == "medium":  # a standard person's face top at top_f, others by (half) their height
                top = max(0.06 * H, top_f * H + 0.5 * (6.6 - figure_units(a)) * u)
            else:  # close: framed on the face whatever the height
                top = top_f * H
            out.append(_Slot(i, cx, top, u))
        return out

    def _face_boxes(self, req: SceneRequest, slots: list[_Slot], holders: set[int]) -> list[Box]:
        """Where each person's face will land: a dry run of the figures on a 1x1 scratch image
        (the geometry depends on the appearance and the slot only)."""
        scratch = Image.new("RGB", (1, 1))
        out = []
        for slot in slots:
            pp = req.people[slot.index]
            a = pp.appearance
            g = draw_person(scratch, a, a.outfit(pp.outfit_id), slot.cx, slot.top, slot.u,
                            holding=slot.index in holders, label=pp.label)  # fmt: skip
            out.append(g.face)
        return out

    def _animals(
        self, d: ImageDraw.ImageDraw, req: SceneRequest, slots: list[_Slot], faces: list[Box]
    ) -> tuple[Box | None, ...]:
        """Each animal beside its person, drawn before (behind) the people and standing on the
        ground (the bottom of medium and close shots); an animal that would reach a face is drawn
        smaller until its box clears every face box, so no face is ever hidden."""
        W, H = req.width, req.height
        at = {s.index: s for s in slots}
        scratch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
        out: list[Box | None] = []
        for k, a in enumerate(req.animals):
            slot = at.get(a.beside) if a.beside is not None else None
            u = slot.u if slot else FRAMING[req.composition][1] * H
            wide = req.composition == "wide"
            side = 1 if k % 2 == 0 else -1
            cx = (slot.cx if slot else W / 2) + side * (1.5 if wide else 0.9) * u
            cx = max(0.12 * W, min(cx, 0.88 * W))
            base = 0.95 * H if wide else H - 2
            au = u if wide else 0.55 * u
            for _ in range(12):  # shrink until clear of the faces (a dry run on a scratch image)
                box = draw_animal(scratch, a, cx, base, au)
                hit = [f for f in faces if _overlap(box, f)]
                if not hit:
                    break
                room = base - max(f[3] for f in hit) - 2  # the height left under the lowest face hit
                au *= max(0.3, min(0.9, room / max(1.0, base - box[1])))
            out.append(_clip(draw_animal(d, a, cx, base, au), W, H))
        return tuple(out)

    def _sign(
        self,
        d: ImageDraw.ImageDraw,
        req: SceneRequest,
        slots: list[_Slot],
        pal: list[RGB],
        rng: random.Random,
        safe: Box,
    ) -> Box:
        """Place the sign inside ``safe`` where heads cover it least; return its box."""
        H = req.height
        x0, W = safe[0], safe[2] - safe[0]
        text = req.sign or ""
        size = sign_size(text, W, H, 0.42 if req.composition != "wide" else 0.7)
        if req.parts:  # the top corners hold declared parts: the sign keeps to the stretch between
            gap = sign_gap(req.parts, safe)
            size = min(size, sign_size(text, W, H, 0.7 * (gap[1] - gap[0]) / max(1, W)))
        tw = min(W * 0.95, font(size, renderable(text)).getlength(renderable(text)))
        half = tw / 2 + size * 0.6
        cy = max(size * 1.1, 0.1 * H, safe[1] + size * 1.1)
        heads = [(s.cx - 1.3 * s.u, s.cx + 1.3 * s.u) for s in slots if s.top - 0.5 * s.u < cy + size]
        cands = [x0 + W / 2 + rng.uniform(-0.08, 0.08) * W, x0 + half + 3, x0 + W - half - 3]

        def covered(cx: float) -> float:
            return sum(max(0.0, min(cx + half, b) - max(cx - half, a)) for a, b in heads)

        cx = min(cands, key=covered) if not req.parts else sum(sign_gap(req.parts, safe)) / 2
        accent = pal[2] if len(pal) > 2 else (pal[0] if pal else (120, 70, 40))
        if not req.indoor and req.place_kind == "outdoor":
            for px in (cx - half * 0.6, cx + half * 0.6):
                foot = FRAMING[req.composition][0] * H
                d.line([(px, cy), (px, foot)], fill=(95, 65, 40), width=max(2, size // 5))
        return sign_board(d, cx, cy, text, size, mix(accent, BLACK, 0.2))

    def _extras(
        self, img: Image.Image, req: SceneRequest, slots: list[_Slot], horizon: int, rng: random.Random
    ) -> list[Box]:
        """Grey faceless figures standing further back than the main people."""
        W, H = req.width, req.height
        if req.composition == "wide":
            u = 0.6 * (slots[0].u if slots else FRAMING["wide"][1] * H)
            feet = horizon + (H - horizon) * 0.25
        else:  # further back: small figures standing near the back wall / horizon
            u = (0.075 if req.composition == "medium" else 0.085) * H
            feet = horizon + 0.02 * H
        boxes = []
        for _ in range(req.extras):
            cx = rng.uniform(0.04, 0.96) * W
            g = rng.randint(115, 160)
            b = draw_silhouette(img, cx, feet - 6.4 * u, u, (g, g, min(255, g + 12)))
            c = _clip(b, W, H)
            if c:
                boxes.append(c)
        return boxes

    def _free_props(
        self,
        d: ImageDraw.ImageDraw,
        req: SceneRequest,
        slots: list[_Slot],
        boxes: list[Box | None],
        rng: random.Random,
        safe: Box,
    ) -> None:
        """Props nobody holds: on the ground (wide) or on a table in front (medium/close), in ``safe``."""
        H = req.height
        sx0, W = safe[0], safe[2] - safe[0]
        free = [k for k, p in enumerate(req.props) if p.holder_index is None]
        if not free:
            return
        u = slots[0].u if slots else FRAMING[req.composition][1] * H
        if req.composition == "wide":
            s = min(0.9 * u, 0.2 * H)
            base = min(0.93 * H, safe[3] - 2) - max(_tag_h(p.label, s) for p in (req.props[k] for k in free))
            xs = [s2.cx for s2 in slots]
            ends = [xs[0] - 1.6 * u, xs[-1] + 1.6 * u] if xs else [sx0 + 0.2 * W, sx0 + 0.8 * W]
            gaps = sorted([(a + b) / 2 for a, b in itertools.pairwise(xs)] + ends)
            gaps = [min(max(x, sx0 + 0.06 * W), sx0 + 0.94 * W) for x in gaps] or [sx0 + W / 2]
        else:
            table_top = round(0.84 * H)
            wood = (122, 84, 52)
            d.rectangle([0, table_top, W, H], fill=wood)
            d.rectangle([0, table_top, W, table_top + max(1, H // 60)], fill=mix(wood, (255, 255, 255), 0.25))
            s = min(0.45 * u, 0.14 * H)
            base = min(
                table_top + max(2, H // 40), safe[3] - 2 - max(_tag_h(req.props[k].label, s) for k in free)
            )
            gaps = [sx0 + W * (j + 1) / (len(free) + 1) for j in range(len(free))]
        for j, k in enumerate(free):
            p = req.props[k]
            cx = gaps[j % len(gaps)] + (j // len(gaps)) * s * 1.2 + rng.uniform(-0.1, 0.1) * s
            hw = _half_w(p.label, s)
            cx = max(safe[0] + hw, min(cx, safe[2] - hw))
            boxes[k] = _clip(draw_prop(d, p.name, rgb(p.color), cx, base, s, p.label, p.shape), req.width, H)
