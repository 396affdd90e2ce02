"""Text prompts for image models, written from the same requests the procedural renderer draws.

Everything in a prompt comes from the theme (appearance, outfits, places, props, sign text);
the sentences here are only the generic frame. ``fit_frame`` crops and resizes a model's image
to the exact frame the album asks for.
"""

from __future__ import annotations

import io

from PIL import Image

from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.schemas.theme import AppearanceSpec, Outfit

SHOT_WORDS = {"wide": "wide shot", "medium": "medium shot", "close": "close-up"}


def _words(s: str) -> str:
    return s.replace("_", " ")


def person_text(a: AppearanceSpec, outfit: Outfit | None = None) -> str:
    """One person's look: face, hair, eyes, build, accessories and the outfit worn."""
    o = outfit or a.signature_outfit
    bits = [
        f"{_words(a.face_shape)} face, skin tone {a.skin_tone}",
        f"{_words(a.hair_style)} hair coloured {a.hair_color}",
        f"eyes {a.eye_color}",
        f"{_words(a.build)} build",
    ]
    if a.facial_hair != "none":
        bits.append(_words(a.facial_hair))
    if a.accessories:
        bits.append("wearing " + ", ".join(_words(x) for x in a.accessories))
    if a.headwear_color:
        bits.append(f"headwear coloured {a.headwear_color}")
    pattern = "" if o.pattern == "plain" else f"{_words(o.pattern)} "
    bits.append(
        f"dressed in a {pattern}{_words(o.top_style)} coloured {o.top_color} ({o.label}) "
        f"with {o.bottom_color} trousers"
    )
    return "; ".join(bits)


def portrait_prompt(a: AppearanceSpec) -> str:
    """The canonical face anchor: the reference every later shot of this person must match."""
    return (
        "A photorealistic head-and-shoulders portrait, facing the camera, neutral expression, "
        f"even light, plain light-grey background. The person: {person_text(a)}."
    )


PromptPart = tuple[str, str]
"""``(kind, sentence)``: kinds are ``setting``, ``palette``, ``sign``, ``person``, ``prop``, ``extras``
and ``empty`` (a model's safety filter may refuse some; see ``backends/video/fallback.py``)."""


def scene_prompt_parts(req: SceneRequest) -> list[PromptPart]:
    """The sentences of ``scene_prompt``, each with the kind of thing it describes."""
    where = "indoors" if req.indoor else "outdoors"
    parts: list[PromptPart] = [
        (
            "setting",
            f"A photorealistic {SHOT_WORDS[req.composition]} video still at {req.place_name} "
            f"({_words(req.place_kind)}, {where}), {req.time_of_day}, weather {_words(req.weather)}.",
        )
    ]
    if req.palette:
        parts.append(("palette", "Colour palette: " + ", ".join(req.palette) + "."))
    if req.sign:
        parts.append(("sign", f'A clearly readable sign says "{req.sign}".'))
    for i, p in enumerate(req.people):
        who = f"Person {i + 1} (left to right)"
        focus = " — the focus of the shot" if req.focus_index == i else ""
        parts.append(
            (
                "person",
                f"{who}{focus}: {person_text(p.appearance, p.appearance.outfit(p.outfit_id))}; "
                f"their face exactly matches reference image {i + 1}.",
            )
        )
    for pr in req.props:
        held = f", held by person {pr.holder_index + 1}" if pr.holder_index is not None else ""
        label = f' labelled "{pr.label}"' if pr.label else ""
        what = f"A {pr.color} {_words(pr.shape or pr.name)} ({pr.name}){label}{held}, clearly visible."
        parts.append(("prop", what))
    if req.extras:
        parts.append(("extras", f"{req.extras} anonymous people in the background, faces not visible."))
    if not req.people:
        parts.append(("empty", "No people in the foreground."))
    return parts


def scene_prompt(req: SceneRequest) -> str:
    """One shot still; reference image ``k`` (when given) is the face of person ``k``."""
    return " ".join(text for _, text in scene_prompt_parts(req))


def aspect_ratio(width: int, height: int) -> str:
    """The nearest aspect ratio image and video models accept."""
    options = {"16:9": 16 / 9, "4:3": 4 / 3, "1:1": 1.0, "3:4": 3 / 4, "9:16": 9 / 16}
    r = width / height
    return min(options, key=lambda k: abs(options[k] - r))


def fit_frame(data: bytes, width: int, height: int) -> Image.Image:
    """Decode a model's image and cover-crop it to exactly ``width`` x ``height`` RGB."""
    img = Image.open(io.BytesIO(data))
    img.load()
    img = img.convert("RGB")
    scale = max(width / img.width, height / img.height)
    w, h = max(width, round(img.width * scale)), max(height, round(img.height * scale))
    img = img.resize((w, h), Image.Resampling.LANCZOS)
    left, top = (w - width) // 2, (h - height) // 2
    return img.crop((left, top, left + width, top + height))
