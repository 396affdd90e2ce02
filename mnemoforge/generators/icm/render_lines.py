"""A shot's lines of speech in the render: said (each take once), timed and fitted to the shot."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from mnemoforge.backends.speech.protocol import wav_duration
from mnemoforge.generators.icm.render_speech import speak, speech_cache
from mnemoforge.generators.icm.render_timing import LINE_GAP_S, LINE_START_S
from mnemoforge.generators.names import speech_text
from mnemoforge.schemas.episodes import Shot

if TYPE_CHECKING:
    from mnemoforge.generators.icm.render import RenderState

log = logging.getLogger("mnemoforge.render")


class SpeechFitError(RuntimeError):
    """A shot too short for its lines even with the tightest spacing (lines are never cut)."""


def place_lines(durations: list[float], shot_s: float) -> list[float]:
    """Start times of a shot's lines: the usual lead-in and gaps, tightened when the lines need
    the room; raises ``SpeechFitError`` rather than cut a line."""
    for lead, gap in ((LINE_START_S, LINE_GAP_S), (0.1, 0.1), (0.02, 0.03)):
        if lead + sum(durations) + gap * max(0, len(durations) - 1) <= shot_s:
            starts, at = [], lead
            for d in durations:
                starts.append(round(at, 3))
                at += d + gap
            return starts
    raise SpeechFitError(f"{sum(durations):.2f} s of speech does not fit a {shot_s} s shot")


MAX_SPEEDUP = 1.5  # a take said at most this much faster than its voice's rate to fit its shot


def speak_lines(st: RenderState, shot: Shot, wavs: list[Path], faster: float) -> list[float]:
    """Say each line of ``shot`` into its WAV (kept when already there) and return the durations.
    The voice reads the line's speech text (``names.speech_text``); ``faster`` > 1 raises its rate."""
    durs = []
    for line, wav in zip(shot.dialogue, wavs, strict=True):
        if not wav.exists():  # the same voice saying the same text reuses that take
            voice = st.voices.get(line.speaker) or st.world.person(line.speaker).voice
            if faster > 1:
                voice = voice.model_copy(update={"rate": min(400, round(voice.rate * faster))})
            said = st.said.get(line.text)
            if said is None:  # an album says many lines more than once: the names are replaced once
                said = st.said[line.text] = speech_text(line.text, st.world.people)
            speak(st.speech, voice, said, wav, speech_cache(st.run.root))
        durs.append(wav_duration(wav))
    return durs


def fit_lines(st: RenderState, shot: Shot, wavs: list[Path]) -> tuple[list[float], list[float]]:
    """Say ``shot``'s lines into ``wavs`` and place them in the shot: ``(durations, starts)``. Lines
    that take longer than the planner's estimate are said faster, just enough to fit (at most
    ``MAX_SPEEDUP``); ``SpeechFitError`` when even that does not fit."""
    durs = speak_lines(st, shot, wavs, 1.0)
    try:
        starts = place_lines(durs, float(shot.duration_s))
    except SpeechFitError:
        # takes longer than the planner's estimate: said faster, just enough to fit the shot
        need = sum(durs) + LINE_START_S + LINE_GAP_S * max(0, len(durs) - 1)
        factor = min(MAX_SPEEDUP, need / float(shot.duration_s) * 1.05)
        log.warning("%s: speech takes %.2f s for a %d s shot; said %.0f%% faster", shot.id, need,
                    shot.duration_s, (factor - 1) * 100)  # fmt: skip
        for wav in wavs:
            wav.unlink(missing_ok=True)
        durs = speak_lines(st, shot, wavs, factor)
        try:
            starts = place_lines(durs, float(shot.duration_s))
        except SpeechFitError as e:
            raise SpeechFitError(f"{shot.id}: {e} (lines {[ln.id for ln in shot.dialogue]})") from None
    return durs, starts
