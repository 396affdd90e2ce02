"""``theme check``: spoken lines that could never fit a shot, named before any build.

A shot lasts at most ``max(album.SPEECH_DURATIONS)`` seconds, and one line alone must fit it (the
renderer never cuts a line). The album planner skips a wording that does not fit
(``Dialogue(fits=...)``); here a line whose *shortest* wording does not fit for *any* voice
that may say it is refused, naming the field it comes from: a calibration line (a person's
name), a habit, a preference value. Estimates are made on the text the voice is given
(``names.speech_text``: names spoken, other scripts transliterated).
"""

from __future__ import annotations

from mnemoforge.english import fill
from mnemoforge.generators.icm.album import SPEECH_DURATIONS, TAIL_S
from mnemoforge.generators.icm.dialogue import estimate_seconds, generic_lines, says_frequency_twice
from mnemoforge.generators.icm.render_timing import LINE_START_S
from mnemoforge.generators.names import REGISTERS, form, speech_text
from mnemoforge.schemas.icm_rules import template_slots
from mnemoforge.schemas.theme import Theme

SHOT_MAX_S = max(SPEECH_DURATIONS)


def _need(theme: Theme, text: str, rate: int) -> float:
    return LINE_START_S + estimate_seconds(speech_text(text, theme.cast), rate) + TAIL_S


def _shortest(theme: Theme, templates: list[str], slots: dict[str, str]) -> str | None:
    texts = [
        fill(t, {k: slots[k] for k in template_slots(t)})
        for t in templates
        if template_slots(t) <= set(slots) and not says_frequency_twice(t, slots)
    ]
    return min(texts, key=len) if texts else None


def speech_fit_problems(theme: Theme) -> list[str]:
    """``"field: message"`` for each line no wording and no voice can say within a shot."""
    out = []
    base = generic_lines()[0].merged(theme.album.dialogue)
    banks = [base.merged(a.bank()) for a in theme.activities] or [base]
    fastest = max(p.voice.rate for p in theme.cast)
    for i, p in enumerate(theme.cast):
        text = f"Hi, I'm {p.name}."
        need = _need(theme, text, p.voice.rate)
        if need > SHOT_MAX_S:
            out.append(
                f"cast.{i}.name: the calibration line {text!r} takes ~{need:.1f} s to say at voice.rate "
                f"{p.voice.rate}; a shot holds {SHOT_MAX_S} s: shorten the name or raise voice.rate"
            )
        # the longest form another person may use for this name (the estimate must hold for all)
        name = max((form(p, r) for r in REGISTERS if r != "full"), key=len)
        rate = max((q.voice.rate for q in theme.cast if q.id != p.id), default=fastest)
        for j, habit in enumerate(p.habits):
            said = [_shortest(theme, list(b.habit), {"name": name, "habit": habit}) for b in banks]
            said = [s for s in said if s]
            if not said:
                continue
            text = min(said, key=len)
            need = _need(theme, text, rate)
            if need > SHOT_MAX_S:
                out.append(
                    f"cast.{i}.habits.{j}: even its shortest wording {text!r} takes ~{need:.1f} s to say "
                    f"(voice.rate {rate}); a shot holds {SHOT_MAX_S} s: shorten the habit"
                )
        for key, value in sorted(p.preferences.items()):
            need = _need(theme, value, p.voice.rate)
            if need > SHOT_MAX_S:
                out.append(
                    f"cast.{i}.preferences.{key}: {value!r} alone takes ~{need:.1f} s to say; a shot holds "
                    f"{SHOT_MAX_S} s: shorten it"
                )
    return out
