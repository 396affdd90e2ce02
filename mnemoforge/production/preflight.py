"""``mnemoforge build --preflight``: what a build would ask of each backend and cost, before paying.

The estimate comes from the plan, in memory: the World and (icm) the album are planned exactly as
the build plans them, and nothing is rendered or written. Per stage and backend it counts model
calls, tokens (prompt characters / ``chars_per_token``; reply tokens at the call's limit, an upper
bound), images, seconds of video and of speech, and prices them with the run's price table
(``assets/prices.yaml`` under the theme's ``prices:`` and ``--prices FILE``). Calls before the
gates are counted for every candidate (an upper bound: gates drop some before later panels).
Offline backends appear with their counts and cost 0.

An album also gets one line per cost driver (video minutes, shots, images, speech seconds) beside
the published benchmark's figures scaled to its clip count (``production/drivers.py``), and, when
it runs long, what the album knobs (``album.shot_length``, ``album.shot_durations``) would plan.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mnemoforge.backends.prices import PriceTable, resolve_prices
from mnemoforge.family import PreflightAlbum, ShotAsks
from mnemoforge.production.drivers import Driver, add_drivers
from mnemoforge.schemas.theme import Theme
from mnemoforge.validators.prompts import load_prompt

# render backends that run on this machine (no model bill); everything else is a model API
LOCAL_RENDER = {"procedural", "diffusers", "voices", "espeak", "ffmpeg", "piper", "coqui"}


@dataclass
class Row:
    """One (stage, backend, model, operation) line of the estimate."""

    stage: str
    backend: str
    model: str
    operation: str
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    images: int = 0
    video_seconds: float = 0.0
    speech_seconds: float = 0.0
    cost: float = 0.0
    priced: bool = True
    note: str = ""


@dataclass
class Preflight:
    theme: str
    family: str
    seed: int
    currency: str
    rows: list[Row]
    plan: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    drivers: list[Driver] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    def totals(self) -> dict[str, float]:
        """Sums over the rows; ``calls`` counts model calls only (not the work of local backends)."""
        keys = ("tokens_in", "tokens_out", "images", "video_seconds", "speech_seconds", "cost")
        out = {k: round(sum(getattr(r, k) for r in self.rows), 9) for k in keys}
        return {"calls": sum(r.calls for r in self.rows if r.backend not in LOCAL_RENDER), **out}

    def as_dict(self) -> dict[str, Any]:
        return {
            "theme": self.theme,
            "family": self.family,
            "seed": self.seed,
            "currency": self.currency,
            "plan": self.plan,
            "rows": [asdict(r) for r in self.rows],
            "totals": self.totals(),
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
            "drivers": [d.as_dict() for d in self.drivers],
            "hints": self.hints,
        }


def _text_model(spec: dict[str, Any] | None) -> tuple[str, str]:
    spec = spec or {}
    return str(spec.get("provider", "openai")), str(spec.get("model", "?"))


def _tokens(chars: float, prices: PriceTable) -> int:
    return math.ceil(chars / prices.estimates["chars_per_token"])


def render_backends(theme: Theme) -> dict[str, tuple[str, str]]:
    """``medium -> (backend, model)`` as the theme's ``render:`` section selects them."""
    from mnemoforge.backends.registry import media_models

    return media_models(theme.render)


def _video_seconds(theme: Theme, durations: list[float]) -> float:
    """Seconds of generated video the shots ask for (a model clip covers its shot with one of the
    lengths it offers; the ffmpeg camera moves are the shot itself)."""
    if theme.render.video != "veo":
        return float(sum(durations))
    from mnemoforge.backends.video.veo import veo_duration
    from mnemoforge.schemas.render_api import VideoApiSpec

    allowed = (theme.render.video_api or VideoApiSpec()).durations
    return float(sum(veo_duration(d, allowed) for d in durations))


def _album_rows(
    theme: Theme, planned: PreflightAlbum, prices: PriceTable, plan: dict[str, Any]
) -> tuple[list[Row], dict]:
    """A family with video clips (``Family.preflight_album``): text, stills, video and speech rows."""
    world, clips, line_seconds = planned.world, planned.clips, planned.line_seconds
    shots = [s for c in clips for s in c.shots]
    lines = [(s, ln) for s in shots for ln in s.dialogue]
    plan.update(
        events=len(world.events),
        clips=len(clips),
        shots=len(shots),
        lines=len(lines),
        video_seconds=float(sum(s.duration_s for s in shots)),
    )
    rows: list[Row] = []
    if theme.text.plan:
        rows.append(plan_row(theme, len(world.events), prices))
    if planned.shot_asks is not None:
        rows.append(shots_row(theme, planned.shot_asks, prices))
    if theme.album.dialogue_model:
        prov, model = _text_model(theme.text.backend)
        ask = load_prompt("dialogue").template
        story = [ln for c in clips if not c.calibration for s in c.shots for ln in s.dialogue]
        rows.append(
            Row(
                "episodes",
                prov,
                model,
                "chat",
                calls=len(story),
                tokens_in=sum(_tokens(len(ask) + 2 * len(ln.text) + 60, prices) for ln in story),
                tokens_out=80 * len(story),
                note="album.dialogue_model: one call per story line",
            )
        )
    back = render_backends(theme)
    speech_s = sum(line_seconds(world, ln.speaker, ln.text) for _, ln in lines)
    faces = len(world.people)
    image_b, image_m = back["image"]
    rows.append(
        Row(
            "render",
            image_b,
            image_m,
            "image",
            calls=len(shots) + faces,
            images=len(shots) + faces,
            note=f"{len(shots)} shot stills + {faces} face anchors",
        )
    )
    video_b, video_m = back["video"]
    vspec = theme.render.video_api
    audio = theme.render.video == "veo" and bool(vspec and vspec.generate_audio)
    rows.append(
        Row(
            "render",
            video_b,
            video_m,
            "video_audio" if audio else "video",
            calls=len(shots),
            video_seconds=_video_seconds(theme, [s.duration_s for s in shots]),
            note=f"{len(shots)} shots of {sorted({s.duration_s for s in shots})} s"
            + ("; generateAudio on (the album dubs its own speech: paid for and unused)" if audio else ""),
        )
    )
    speech_b, speech_m = back["speech"]
    rows.append(
        Row(
            "render",
            speech_b,
            speech_m,
            "speech",
            calls=len(lines),
            tokens_in=sum(_tokens(len(ln.text), prices) for _, ln in lines),
            speech_seconds=round(speech_s, 1),
            note=f"{len(lines)} spoken lines",
        )
    )
    album = {
        "clips": len(clips),
        "minutes": plan["video_seconds"] / 60,
        "shots": len(shots),
        "images": len(shots) + faces,
        "people": faces,
        "speech_s": speech_s,
        "lines": len(lines),
        "alternatives": dict(planned.alternatives),
    }
    return rows, album


def plan_row(theme: Theme, events: int, prices: PriceTable) -> Row:
    """The ``text.plan`` calls: one per batch of ``text.plan_batch`` event outlines."""
    prov, model = _text_model(theme.text.backend)
    batch = theme.text.plan_batch
    calls = math.ceil(events / batch)
    ask = load_prompt(theme.text.plan_prompt).template
    context = sum(len(p.name) + 40 for p in theme.cast) + sum(len(p.name) + 30 for p in theme.places)
    context += sum(len(a.verb) + 80 for a in theme.activities) + 60 * batch
    per_event = prices.estimates["plan_tokens_per_event"]
    return Row(
        "plan",
        prov,
        model,
        "chat",
        calls=calls,
        tokens_in=calls * _tokens(len(ask) + context, prices),
        tokens_out=math.ceil(events * per_event),
        note=f"text.plan: {events} event outlines in batches of {batch}",
    )


def shots_row(theme: Theme, asks: ShotAsks, prices: PriceTable) -> Row:
    """The ``text.plan_shots`` calls: one per batch of clips (the prompts exactly as the build writes
    them, ``Family.preflight_album``), replies at about ``plan_tokens_per_shot`` a shot; repairs,
    if any, come on top."""
    prov, model = _text_model(theme.text.backend)
    size = theme.text.plan_shots_batch
    per_shot = prices.estimates["plan_tokens_per_shot"]
    return Row(
        "episodes",
        prov,
        model,
        "chat",
        calls=len(asks.prompts),
        tokens_in=sum(_tokens(len(a), prices) for a in asks.prompts),
        tokens_out=math.ceil(asks.shots * per_shot),
        note=f"text.plan_shots: {asks.clips} clips in batches of {size} "
        f"(up to {theme.text.plan_shots_attempts} calls a batch with repairs)",
    )


def candidates(theme: Theme) -> int:
    """Candidates the questions stage asks for, as the family says (``Family.preflight_candidates``:
    an over-generating family asks for more than the theme keeps)."""
    from mnemoforge.generators.families import get_family

    return get_family(theme.family).preflight_candidates(theme)


def _other_rows(theme: Theme, world: Any, plan: dict[str, Any]) -> tuple[list[Row], int]:
    """Families without clips: the images their renderers draw and the candidates their questions
    stage makes, as the family estimates them (``Family.preflight_media``)."""
    from mnemoforge.generators.families import get_family

    images, n, what = get_family(theme.family).preflight_media(theme, world)
    plan.update(images=images, candidates=n)
    row = Row(
        "render",
        "procedural",
        "procedural",
        "image",
        calls=images,
        images=images,
        note=f"{what}, drawn by the family's renderer",
    )
    return [row], n


def _question_rows(theme: Theme, prices: PriceTable, n: int) -> list[Row]:
    rows: list[Row] = []
    if theme.text.paraphrase_questions:
        prov, model = _text_model(theme.text.backend)
        ask = load_prompt(theme.text.prompt).template
        rows.append(
            Row(
                "questions",
                prov,
                model,
                "chat",
                calls=n,
                tokens_in=n * _tokens(len(ask) + 120, prices),
                tokens_out=96 * n,
                note="text.paraphrase_questions: one call per candidate",
            )
        )
    answerers = theme.gates.resolved_answerers()
    for gate, members in theme.gates.panels.items():
        for m in members:
            cfg = answerers.get(m, {})
            if cfg.get("kind", m) != "chat":
                continue
            prov, model = _text_model(cfg.get("backend") or cfg)
            context = 0 if gate == "option_only" else prices.estimates["gate_context_tokens"]
            images = prices.estimates["image_input_tokens"] if gate == "modality_necessity" else 0
            per = _tokens(450, prices) + context + images
            rows.append(
                Row(
                    "gates",
                    prov,
                    model,
                    "chat",
                    calls=n,
                    tokens_in=math.ceil(n * per),
                    tokens_out=32 * n,
                    note=f"{gate} panel member {m!r}: one call per candidate (upper bound)",
                )
            )
    return rows


def _price(rows: list[Row], prices: PriceTable) -> None:
    for r in rows:
        media = r.video_seconds if r.operation.startswith("video") else r.speech_seconds
        local = r.backend in LOCAL_RENDER
        r.priced = local or prices.entry(r.model)[1]
        r.cost = (
            0.0
            if local
            else prices.cost(
                r.model,
                r.operation,
                tokens_in=r.tokens_in,
                tokens_out=r.tokens_out,
                images=r.images,
                media_seconds=media,
                calls=r.calls,
            )
        )
        if local:
            r.note = f"{r.note}; local backend, no model bill".lstrip("; ")


def preflight(theme_path: Path, seed: int | None = None, prices_file: Path | None = None) -> Preflight:
    """Estimate a build of ``theme_path`` (checked as ``build`` checks it); writes nothing."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError, load_theme

    t0 = time.perf_counter()
    warnings: list[str] = []
    try:
        theme = check_theme(theme_path, seed)
    except ThemeError as e:  # a key not set yet does not stop an estimate (the build would stop)
        keyless = [(f, m) for f, m in e.problems if "API key" in m]
        if len(keyless) < len(e.problems):
            raise ThemeError(Path(theme_path), [p for p in e.problems if p not in keyless]) from None
        warnings = [f"{f}: {m} (the build needs it)" for f, m in keyless]
        theme = load_theme(theme_path)
    seed = theme.seed if seed is None else seed
    prices = resolve_prices(theme.prices, prices_file, base=Path(theme_path).parent)
    plan: dict[str, Any] = {}
    album: dict[str, Any] | None = None
    family = get_family(theme.family)
    planned = family.preflight_album(theme, seed)
    if planned is not None:
        rows, album = _album_rows(theme, planned, prices, plan)
        n = family.preflight_candidates(theme)
    else:
        world = family.plan(theme, seed)
        plan.update(people=len(world.people), facts=len(world.facts))
        rows, n = _other_rows(theme, world, plan)
    rows += _question_rows(theme, prices, n)
    _price(rows, prices)
    pf = Preflight(
        theme.name, theme.family, seed, prices.currency, rows, plan, time.perf_counter() - t0, warnings
    )
    if album is not None:
        add_drivers(pf, album)
    return pf
