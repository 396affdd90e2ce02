"""``build --preflight --fit-length``: album knobs that bring an album to the reference's pace.

An album's length is its shots' durations, and those follow its speech: every line needs its time
on screen. The knobs, in the order they are tried (each step keeps the ones before):

1. ``album.shot_length: shortest``: each shot takes the shortest of ``shot_durations`` its speech
   fits (same album otherwise);
2. ``album.shots_per_clip: [lo, 2]``: at most two shots a clip (when the theme allows more);
3. ``album.talk_density: d``: choices, promises, plans, habits and relations come up less often,
   so there is less to say (and fewer items about them); ``d`` is the largest value, to two
   decimals, that reaches the pace (a bisection over a few plans).

Each try plans the World and the album exactly as the build would (nothing is rendered or written).
The goal is the reference's minutes for the theme's clip count, within ``TOLERANCE``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mnemoforge.schemas.theme import Theme

TOLERANCE = 1.05
STEPS = 5  # bisection steps over talk_density


@dataclass
class Try:
    knobs: dict[str, Any]
    minutes: float
    shots: int
    lines: int

    def text(self, ref_minutes: float) -> str:
        knobs = ", ".join(f"album.{k}: {v}" for k, v in self.knobs.items()) or "as written"
        return (f"{knobs} -> {self.minutes:.1f} min ({self.minutes / ref_minutes:.2f}x), {self.shots} shots, "
                f"{self.lines} lines")  # fmt: skip


@dataclass
class Fit:
    reference_minutes: float
    tries: list[Try] = field(default_factory=list)
    found: Try | None = None


def _with(theme: Theme, knobs: dict[str, Any]) -> Theme:
    album = theme.album.model_copy(update=knobs)
    return theme.model_copy(update={"album": album})


def measure(theme: Theme, seed: int) -> Try:
    """Plan the album of ``theme`` (World and shots, in memory) and measure it."""
    from mnemoforge.generators.icm import album
    from mnemoforge.generators.icm.world import plan_world

    world = plan_world(theme, seed, theme.album.clips - 1)
    clips, _ = album.plan_album(theme, world)
    shots = [s for c in clips for s in c.shots]
    return Try({}, sum(s.duration_s for s in shots) / 60, len(shots), sum(len(s.dialogue) for s in shots))


def fit_length(
    theme: Theme, seed: int, ref_minutes: float, plan: Callable[[Theme, int], Try] = measure
) -> Fit:
    """The first knob setting (in the order above) whose album is within ``TOLERANCE`` of
    ``ref_minutes``; every try is kept, so the caller can show the way there."""
    fit = Fit(ref_minutes)
    goal = ref_minutes * TOLERANCE

    def attempt(knobs: dict[str, Any]) -> Try:
        got = plan(_with(theme, knobs), seed)
        got.knobs = dict(knobs)
        fit.tries.append(got)
        return got

    knobs: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    if theme.album.shot_length != "shortest":
        steps.append({"shot_length": "shortest"})
    lo, hi = theme.album.shots_per_clip
    if hi > 2:
        steps.append({"shots_per_clip": [lo, max(lo, 2)]})
    for step in steps:
        knobs |= step
        if attempt(knobs).minutes <= goal:
            fit.found = fit.tries[-1]
            return fit
    low, high = 0.05, theme.album.talk_density  # high fails (tried above, or as written)
    best = None
    for _ in range(STEPS):
        mid = round((low + high) / 2, 2)
        got = attempt(knobs | {"talk_density": mid})
        if got.minutes <= goal:
            best, low = got, mid
        else:
            high = mid
    fit.found = best
    return fit


def length_alternatives(theme: Theme, world: Any, shots: list[Any]) -> dict[str, float]:
    """Minutes the same plan takes with ``album.shot_length: shortest``: each shot at the shortest
    duration that holds its speech (exact: the knob changes nothing else). The other knobs change
    the shots themselves, so only re-planning (``fit_length``) tells what they give."""
    from mnemoforge.generators.icm.album import SPEECH_DURATIONS, speech_need

    def shortest(allowed: list[int], need: float) -> int:
        fits = [x for x in sorted(allowed) if x >= need]
        return fits[0] if fits else ([x for x in SPEECH_DURATIONS if x >= need] or [max(SPEECH_DURATIONS)])[0]

    needs = [speech_need(world, [(ln.speaker, ln.text) for ln in s.dialogue]) for s in shots]
    out = {}
    if theme.album.shot_length != "shortest":
        out["album.shot_length: shortest"] = sum(shortest(theme.album.shot_durations, n) for n in needs) / 60
    return out


def fit_report(theme: Theme, seed: int, ref_minutes: float) -> dict[str, Any]:
    """``Family.fit_length`` for an album: what each try gave and the knobs that fit, if any."""
    got = fit_length(theme, seed, ref_minutes)
    lines = [f"tried {t.text(ref_minutes)}" for t in got.tries]
    if got.found is None:
        lines.append("no setting of these knobs reaches the reference's pace")
        return {"lines": lines, "knobs": None}
    knobs = ", ".join(f"{k}: {v}" for k, v in got.found.knobs.items())
    lines.append(f"set under `album:` {knobs} (album {got.found.minutes:.1f} min for {ref_minutes:g})")
    return {"lines": lines, "knobs": got.found.knobs, "minutes": round(got.found.minutes, 1)}
