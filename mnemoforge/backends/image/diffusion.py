"""Image backend running a Hugging Face diffusers text-to-image pipeline (the ``ml`` extra).

Identity is kept by two fixed things per person: a *reference prompt* built from the appearance
spec (the same words in every portrait and scene) and a *person seed*, a stable hash of the spec,
which seeds the initial noise of portraits and of close shots that frame one person. Everything
is deterministic on one device: the same request gives the same pixels.

torch and diffusers are imported lazily, so importing this module needs neither.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
from pathlib import Path
from typing import Any

from PIL import Image

from mnemoforge.backends.image.colors import (
    COLOURS,
    EYE_COLOURS,
    HAIR_COLOURS,
    colour_name,
    hair_colour_name,
    rgb,
)
from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.english.words import with_article
from mnemoforge.rng import derive_seed
from mnemoforge.schemas.theme import AppearanceSpec, Outfit

EXTRA_HINT = "pip install 'mnemoforge[ml]'"
ML_MODULES = ("torch", "diffusers", "transformers")
NEGATIVE_PROMPT = "blurry, deformed, disfigured, extra limbs, extra fingers, watermark, low quality"

HAIR_COLORS, EYE_COLORS, COLORS = HAIR_COLOURS, EYE_COLOURS, COLOURS  # the shared tables (colors.py)
color_name = colour_name  # one helper names a colour in prompts and captions alike
SKIN_TONES = (
    (218, "very fair"),
    (200, "fair"),
    (180, "light"),
    (155, "medium"),
    (125, "tan"),
    (90, "brown"),
    (55, "dark brown"),
    (0, "deep brown"),
)
TOPS = {
    "tshirt": "t-shirt",
    "shirt": "button-up shirt",
    "sweater": "sweater",
    "jacket": "jacket",
    "dress": "dress",
    "hoodie": "hoodie",
    "blazer": "blazer",
}
PATTERNS = {"plain": "plain", "stripes": "striped", "dots": "polka-dot", "check": "checked"}
ACCESSORIES = {
    "glasses": "glasses",
    "sunglasses": "sunglasses",
    "earrings": "earrings",
    "hat": "a hat",
    "cap": "a cap",
    "scarf": "a scarf",
    "headband": "a headband",
    "necklace": "a necklace",
}
FACIAL_HAIR = {"beard": "a beard", "moustache": "a moustache", "stubble": "stubble"}
BUILDS = {"slim": "slim build", "medium": "average build", "broad": "broad build"}
LIGHT = {
    "morning": "soft morning light",
    "afternoon": "bright afternoon light",
    "evening": "warm evening light",
    "night": "at night, artificial light",
}
FRAMING = {"wide": "wide shot", "medium": "medium shot", "close": "close-up shot"}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def skin_tone_name(color: str) -> str:
    """Words for a skin tone, from its luma (``very fair`` ... ``deep brown``)."""
    r, g, b = rgb(color)
    y = 0.299 * r + 0.587 * g + 0.114 * b
    return next(word for floor, word in SKIN_TONES if y >= floor)


def _hair(a: AppearanceSpec) -> str:
    c = hair_colour_name(a.hair_color)
    return {
        "bald": "a bald head",
        "buzz": f"buzz-cut {c} hair",
        "bun": f"{c} hair in a bun",
        "ponytail": f"{c} hair in a ponytail",
        "bob": f"a {c} bob haircut",
        "curly": f"curly {c} hair",
    }.get(a.hair_style, f"{a.hair_style} {c} hair")


def outfit_prompt(o: Outfit) -> str:
    """``'red tee': a plain red t-shirt and navy trousers`` (a dress has no trousers)."""
    top = f"{PATTERNS[o.pattern]} {colour_name(o.top_color)} {TOPS[o.top_style]}"
    bottom = "" if o.top_style == "dress" else f" and {colour_name(o.bottom_color)} trousers"
    return f"'{o.label}': a {top}{bottom}"


def appearance_prompt(appearance: AppearanceSpec, outfit_id: str) -> str:
    """Deterministic text description of one person wearing the outfit ``outfit_id``."""
    a = appearance
    parts = [
        f"a person with {with_article(a.face_shape)} face",
        f"{skin_tone_name(a.skin_tone)} skin",
        _hair(a),
        f"{colour_name(a.eye_color, EYE_COLOURS)} eyes",
    ]
    if a.facial_hair != "none":
        parts.append(FACIAL_HAIR[a.facial_hair])
    size = "tall, " if a.height > 1.05 else "short, " if a.height < 0.95 else ""
    parts.append(size + BUILDS[a.build])
    if a.accessories:
        parts.append("wearing " + " and ".join(ACCESSORIES[x] for x in a.accessories))
    parts.append("dressed in " + outfit_prompt(a.outfit(outfit_id)))
    return ", ".join(parts)


def reference_prompt(appearance: AppearanceSpec) -> str:
    """The portrait prompt of a person: head and shoulders in the signature outfit, plain background."""
    who = appearance_prompt(appearance, appearance.signature_outfit.id)
    return f"portrait photo, head and shoulders, facing the camera, plain light grey background, {who}"


def person_seed(appearance: AppearanceSpec, seed: int = 0) -> int:
    """A fixed seed per person: a stable hash of the whole appearance spec."""
    return derive_seed(seed, "diffusers-person", appearance.model_dump_json())


def scene_prompt(req: SceneRequest) -> str:
    """Place, light, weather, sign text, then the people from left to right with their prompts."""
    people = list(enumerate(req.people))
    if req.composition == "close" and req.focus_index is not None:
        people = [people[req.focus_index]]
    where = "indoors" if req.indoor else "outdoors"
    parts = [
        f"{FRAMING[req.composition]} photo of {req.place_name}, a {req.place_kind} {where}",
        LIGHT[req.time_of_day],
        f"{req.weather} weather",
    ]
    if req.palette:
        parts.append("colours " + " and ".join(dict.fromkeys(colour_name(c) for c in req.palette)))
    if req.sign:
        parts.append(f'a sign that reads "{req.sign}"')
    if people:
        n = len(people)
        parts.append("one person" if n == 1 else f"{n} people, from left to right")
    for k, (_, p) in enumerate(people):
        who = appearance_prompt(p.appearance, p.outfit_id)
        badge = f', with a name badge reading "{p.label}"' if p.label else ""
        parts.append(f"{ORDINALS[k] if len(people) > 1 else 'the person'}: {who}{badge}")
    for prop in req.props:
        label = f' labelled "{prop.label}"' if prop.label else ""
        held = "" if prop.holder_index is None else f" held by the {ORDINALS[prop.holder_index]} person"
        parts.append(f"a {colour_name(prop.color)} {prop.name}{label}{held}")
    if req.extras:
        parts.append(f"{req.extras} other people in the background")
    return "; ".join(parts)


def _require_ml() -> None:
    missing = [m for m in ML_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(f"the diffusers image backend needs {', '.join(missing)}: {EXTRA_HINT}")


def _looks_local(model: str | Path) -> bool:
    """A ``Path``, an existing path, or a string that can only be a path (hub ids are ``org/name``)."""
    if isinstance(model, Path):
        return True
    s = str(model)
    return Path(s).expanduser().exists() or s.startswith(("/", ".", "~")) or "\\" in s or s.count("/") > 1


class DiffusersImageBackend:
    """ImageBackend over a diffusers pipeline from a local folder, the Hub cache, or a given pipeline.

    ``model`` is loaded lazily with ``DiffusionPipeline.from_pretrained`` (``local_files_only``
    unless ``allow_network``). ``resolution`` is the side of the square the model generates at
    (default: its native size); outputs are resized to the requested size. ``seed`` is the base of
    every person seed.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        steps: int = 20,
        guidance: float = 5.0,
        device: str = "cpu",
        dtype: Any = None,
        pipeline: Any = None,
        allow_network: bool = False,
        resolution: int | None = None,
        seed: int = 0,
        negative_prompt: str | None = NEGATIVE_PROMPT,
    ) -> None:
        _require_ml()
        if pipeline is None and model is None:
            raise ValueError("give a model (local folder or hub id) or a pipeline")
        if pipeline is None and _looks_local(model) and not Path(str(model)).expanduser().is_dir():  # type: ignore[arg-type]
            raise FileNotFoundError(f"diffusers model folder not found: {Path(str(model)).expanduser()}")
        self.model, self.steps, self.guidance, self.device = model, steps, guidance, device
        self.dtype, self.allow_network, self.resolution, self.seed = dtype, allow_network, resolution, seed
        self.negative_prompt = negative_prompt
        self._pipe = None if pipeline is None else self._place(pipeline)
        self._portraits: dict[tuple[str, int], Image.Image] = {}

    @property
    def pipeline(self) -> Any:
        """The diffusers pipeline, loaded on first use."""
        if self._pipe is None:
            self._pipe = self._load()
        return self._pipe

    def _load(self) -> Any:
        from diffusers import DiffusionPipeline

        dtype = self._torch_dtype()
        src = str(Path(str(self.model)).expanduser()) if _looks_local(self.model) else str(self.model)  # type: ignore[arg-type]
        try:
            pipe = DiffusionPipeline.from_pretrained(
                src, torch_dtype=dtype, local_files_only=not self.allow_network
            )
        except OSError as e:
            how = "" if self.allow_network else " (offline: pass allow_network=True to download it)"
            raise OSError(f"cannot load diffusers model {src!r}{how}: {e}") from e
        pipe.set_progress_bar_config(disable=True)
        return self._place(pipe)

    def _place(self, pipe: Any) -> Any:
        """Move ``pipe`` to the backend's device (and dtype, when one was given)."""
        dtype = self._torch_dtype()
        return pipe.to(self.device) if dtype is None else pipe.to(self.device, dtype)

    def _torch_dtype(self) -> Any:
        """``dtype`` as a torch dtype (``"float16"`` -> ``torch.float16``), or ``None``."""
        if isinstance(self.dtype, str):
            import torch

            return getattr(torch, self.dtype)
        return self.dtype

    def _native(self) -> tuple[int, int]:
        """(native side, size step): the model's own resolution and the multiple sizes must be of."""
        pipe = self.pipeline
        vae = int(getattr(pipe, "vae_scale_factor", 8))
        unet = getattr(pipe, "unet", None)
        if unet is not None:
            native = int(unet.config.sample_size) * vae
            step = vae * 2 ** (len(unet.config.block_out_channels) - 1)
        else:
            native, step = int(getattr(pipe, "default_sample_size", 64)) * vae, vae * 2
        return self.resolution or native, max(8, step)

    def _gen_size(self, width: int, height: int) -> tuple[int, int]:
        """Generation size: the native area at the requested aspect ratio, in multiples of the step."""
        side, step = self._native()
        w = side * math.sqrt(width / height)
        h = side * math.sqrt(height / width)
        return max(step, round(w / step) * step), max(step, round(h / step) * step)

    def generate(self, prompt: str, seed: int, width: int, height: int) -> Image.Image:
        """One RGB image for ``prompt`` with noise from ``seed``, resized to ``width`` x ``height``."""
        import torch

        pipe = self.pipeline
        gw, gh = self._gen_size(width, height)
        generator = torch.Generator("cpu" if self.device.startswith("mps") else self.device)
        kwargs: dict[str, Any] = dict(
            prompt=prompt,
            num_inference_steps=self.steps,
            guidance_scale=self.guidance,
            generator=generator.manual_seed(seed % 2**63),
            width=gw,
            height=gh,
            output_type="pil",
        )
        if self.negative_prompt and "negative_prompt" in inspect.signature(pipe.__call__).parameters:
            kwargs["negative_prompt"] = self.negative_prompt
        with torch.inference_mode():
            img = pipe(**kwargs).images[0].convert("RGB")
        return img if img.size == (width, height) else img.resize((width, height), Image.Resampling.LANCZOS)

    def portrait(self, appearance: AppearanceSpec, size: int = 256) -> Image.Image:
        """Head-and-shoulders portrait from the reference prompt and the person seed (cached)."""
        key = (appearance.model_dump_json(), size)
        if key not in self._portraits:
            seed = person_seed(appearance, self.seed)
            self._portraits[key] = self.generate(reference_prompt(appearance), seed, size, size)
        return self._portraits[key].copy()

    def scene(self, req: SceneRequest) -> Image.Image:
        """A still of ``req``; a close shot of one person reuses that person's seed (their portrait noise)."""
        focus = req.focus_index if req.focus_index is not None else (0 if len(req.people) == 1 else None)
        if req.composition == "close" and focus is not None:
            seed = person_seed(req.people[focus].appearance, self.seed)
        else:
            people = (person_seed(p.appearance, self.seed) for p in req.people)
            seed = derive_seed(req.seed, "diffusers-scene", *people)
        return self.generate(scene_prompt(req), seed, req.width, req.height)
