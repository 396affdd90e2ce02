"""icm's modality ablations (``build --variants``, docs/variants.md): the album's whole history
with one modality taken away.

- ``transcript_only``: the spoken lines as text; no video, no stills, no audio.
- ``captions_only``: one observation per clip, the text of its caption row as the release's
  captions table gives it to a memory system (the scene, the time, visual details, sounds and the
  lines said); no video, no stills, no audio. Its facts are the spoken ones the caption quotes word
  for word: a caption's description of a scene may say more, but nothing links it to facts.
- ``no_audio``: the video without its sound: each shot with its clip muted (a copy with the video
  stream only, ``media/clips_muted/``) and its still; no spoken lines, no audio files.

Nothing here renders: a muted clip is the release's clip with its audio stream left out (ffmpeg
stream copy, bit-exact muxing, so the same clip gives the same bytes).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from mnemoforge.schemas.observations import Channel, Expression, Observation

ABLATIONS = {
    "transcript_only": "the spoken lines as text: no video, no stills, no audio",
    "captions_only": "each clip's caption (scene, time, visual details, sounds, lines said) as text: "
    "no video, no stills, no audio",
    "no_audio": "the video without its sound (each shot's clip muted, its still): no spoken lines, no audio",
}
CLIPS, MUTED = "media/clips/", "media/clips_muted/"


def caption_text(row: Mapping) -> str:
    """A clip's caption row as one text (only fields a memory system may read)."""
    t = row.get("time") or {}
    when = " ".join(str(t[k]) for k in ("day_of_week", "date", "time_of_day") if t.get(k))
    parts = [f"[{when}]" if when else "", str(row.get("caption") or "")]
    for label, key in (("Seen", "visual_details"), ("Objects", "objects"), ("Heard", "audio_events")):
        if row.get(key):
            parts.append(f"{label}: {'; '.join(map(str, row[key]))}.")
    if row.get("speech"):
        parts.append("Said: " + " / ".join(f'"{s}"' for s in row["speech"]))
    return " ".join(p for p in parts if p)


def muted(path: str) -> str:
    """Where a clip's muted copy lies in the release (other media: as they are)."""
    return MUTED + path[len(CLIPS) :] if path.startswith(CLIPS) else path


def ablate(name: str, obs: Observation, captions: Mapping[str, dict]) -> Observation | None:
    """``obs`` as ablation ``name`` leaves it (None: left out). ``captions_only`` folds a clip's
    observations into one, ``<clip>_caption``, at the clip's first observation (``variants.ablated``
    merges their facts)."""
    if name == "transcript_only":
        return obs.model_copy(update={"media": []}) if obs.kind == "speech" else None
    if name == "no_audio":
        if obs.kind == "speech":
            return None
        media = [muted(m) for m in obs.media if not m.endswith(".wav")]
        return obs.model_copy(update={"media": media})
    if name == "captions_only":
        row = captions.get(obs.episode)
        if row is None:
            return None
        said = set(row.get("speech") or [])
        facts = [
            Expression(fact=e.fact, channel=Channel.caption)
            for e in obs.expresses
            if e.channel == Channel.speech and obs.content in said
        ]
        return obs.model_copy(
            update={"id": f"{obs.episode}_caption", "kind": "caption", "content": caption_text(row),
                    "media": [], "expresses": facts}
        )  # fmt: skip
    raise KeyError(f"family 'icm' has no ablation {name!r}")


def _mute(src: Path, dst: Path) -> None:
    from mnemoforge.backends.video.probe import ffmpeg_exe
    from mnemoforge.store import atomic

    dst.parent.mkdir(parents=True, exist_ok=True)
    with atomic.atomic_path(dst) as tmp:
        subprocess.run(
            [ffmpeg_exe(), "-nostdin", "-loglevel", "error", "-y", "-i", str(src.absolute()),
             "-map", "0:v", "-c:v", "copy", "-an", "-map_metadata", "-1", "-fflags", "+bitexact",
             "-flags:v", "+bitexact", "-f", "mp4", str(Path(tmp).absolute())],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip


def write_media(name: str, root: Path, paths: list[str]) -> None:
    """Write the media ablation ``name``'s observations name that the release lacks (muted clips)."""
    for p in sorted(set(paths)):
        if p.startswith(MUTED) and not (root / p).is_file():
            _mute(root / (CLIPS + p[len(MUTED) :]), root / p)


def check_media(name: str, root: Path, paths: list[str]) -> list[str]:
    """``verify``: each muted clip exists, has no audio, and is as long as the clip it mutes."""
    from mnemoforge.backends.video.probe import probe

    problems = []
    for p in sorted(set(paths)):
        if not p.startswith(MUTED):
            continue
        if not (root / p).is_file():
            problems.append(f"{p}: missing (ablation {name!r} lists it)")
            continue
        got, src = probe(root / p), probe(root / (CLIPS + p[len(MUTED) :]))
        if got.has_audio or not got.has_video or abs(got.duration_s - src.duration_s) > 0.1:
            problems.append(f"{p}: not its clip muted (audio {got.has_audio}, {got.duration_s:.2f} s)")
    return problems
