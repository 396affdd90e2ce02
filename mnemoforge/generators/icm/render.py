"""Render a run's media: face anchors, shot stills, speech, transcripts and MP4 clips.

Clips render in parallel worker processes (:mod:`~mnemoforge.generators.icm.render_pool`). Every
file is written atomically and skipped when it already exists, so a killed render resumes item
by item.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mnemoforge import faults
from mnemoforge.backends.image.animal_figure import AnimalPlacement, animal_anchor, placement
from mnemoforge.backends.image.png_fast import rgb_png_bytes, still_png_bytes
from mnemoforge.backends.image.procedural import png_bytes
from mnemoforge.backends.image.protocol import ImageBackend, PersonPlacement, PropPlacement, SceneRequest
from mnemoforge.backends.image.scene_prompt import scene_prompt_parts
from mnemoforge.backends.registry import SpeechBackends, image_backend, person_voices, video_backend
from mnemoforge.backends.video import AudioCue, MediaInfo, RawFrame, ShotSpec, encode_clip
from mnemoforge.backends.video import fallback as video_fallback
from mnemoforge.backends.video.mp4_header import mp4_info
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm.place_look import snow_on_ground
from mnemoforge.generators.icm.render_audit import (
    RenderAuditError,
    audit,
    audit_path,
    camera_safe,
    drawn_record,
)
from mnemoforge.generators.icm.render_lines import SpeechFitError as SpeechFitError
from mnemoforge.generators.icm.render_lines import fit_lines
from mnemoforge.generators.icm.render_lines import place_lines as place_lines
from mnemoforge.generators.icm.render_parts import part_placement
from mnemoforge.generators.icm.render_takes import drop_stale_takes, shot_seed
from mnemoforge.generators.icm.render_voice import stratified_sample as stratified_sample
from mnemoforge.generators.icm.render_voice import voice_check as voice_check
from mnemoforge.hashing import canonical_json, content_hash, sha256_file, short
from mnemoforge.rng import derive_seed
from mnemoforge.schemas.episodes import Clip, Shot
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme, VoiceSpec
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.store.retakes import load_retakes

if TYPE_CHECKING:
    from mnemoforge.backends.video.veo import VeoBackend


def scene_request(theme: Theme, world: World, shot: Shot, take: int = 0) -> SceneRequest:
    place = world.place(shot.place)
    shapes = {o.id: o.shape for o in theme.objects}
    people = tuple(PersonPlacement(world.person(p).appearance, shot.outfits[p]) for p in shot.visible)
    props = tuple(
        PropPlacement(
            world.object(o).name,
            world.value_at(o, "colour", shot.start) or world.object(o).color,  # the colour timeline
            world.object(o).label,
            shot.visible.index(shot.holders[o]) if shot.holders.get(o) in shot.visible else None,
            shapes.get(o),
        )
        for o in shot.props
    )
    focus = shot.visible.index(shot.focus[0]) if shot.focus else None
    return SceneRequest(
        width=theme.album.width,
        height=theme.album.height,
        place_name=place.name,
        place_kind=place.kind,
        indoor=place.indoor,
        palette=tuple(place.palette),
        sign=place.sign if shot.composition == "wide" else None,
        time_of_day=shot.time_of_day,
        weather=shot.weather,
        people=people,
        extras=shot.extras,
        props=props,
        composition=shot.composition,
        focus_index=focus,
        seed=shot_seed(world, "scene", shot.id, take),
        safe=camera_safe(shot.camera, theme.album.width, theme.album.height),
        snow=snow_on_ground(place, shot.season, shot.weather, theme.album.snow_line_m),
        decor=tuple(place.props),
        animals=animal_placements(theme, shot),
        parts=tuple(part_placement(world, o, shot.start) for o in shot.parts),  # values: World.value_at
    )


def animal_placements(theme: Theme, shot: Shot) -> tuple[AnimalPlacement, ...]:
    """The shot's animals, each beside its first companion in frame."""
    specs = {a.id: a for a in theme.animals}
    out = []
    for aid in shot.animals:
        spec = specs[aid]
        beside = next((shot.visible.index(p) for p in spec.companions if p in shot.visible), None)
        out.append(placement(spec, beside))
    return tuple(out)


@dataclass
class RenderState:
    """What rendering a clip needs; built once per worker process (or per shard)."""

    theme: Theme
    world: World
    run: RunLayout
    images: ImageBackend
    speech: SpeechBackends
    voices: dict[str, VoiceSpec] = field(default_factory=dict)
    video: VeoBackend | None = None
    takes: dict[str, int] = field(default_factory=dict)
    """Shot id -> its re-render take (``review/retakes.json``; absent: the first)."""
    said: dict[str, str] = field(default_factory=dict)
    """Line text -> what the voice is given to say (``names.speech_text``), worked out once."""

    @classmethod
    def create(cls, theme: Theme, world: World, run: RunLayout) -> RenderState:
        if theme.render.image == "diffusers":
            import torch  # model backends: one thread per worker, the pool gives the parallelism

            torch.set_num_threads(1)
        voices = person_voices(theme.render, [(p.id, p.voice) for p in world.people])
        return cls(theme, world, run, image_backend(theme.render), SpeechBackends(theme.render), voices,
                   video_backend(theme.render), load_retakes(run.root))  # fmt: skip


def _still(st: RenderState, shot: Shot, still: Path) -> tuple[dict, RawFrame | None]:
    """Draw (or reuse) one shot still; return what was drawn, and its pixels when this call wrote
    the PNG (the encoder reads those instead of decoding the file again)."""
    req = scene_request(st.theme, st.world, shot, st.takes.get(shot.id, 0))
    with_layout = getattr(st.images, "scene_with_layout", None)
    layout, img = None, None
    if with_layout is not None:
        img, layout = with_layout(req)
        if still.exists():
            img = None  # a still written before (a resumed render): the encoder reads the file
    elif not still.exists():
        img = st.images.scene(req)
    pixels = None
    if img is not None and img.mode == "RGB":  # one copy of the pixels for the PNG and the encoder
        pixels = RawFrame(img.width, img.height, img.tobytes())
        atomic.write_bytes(still, rgb_png_bytes(pixels.rgb, pixels.width, pixels.height))
    elif img is not None:
        atomic.write_bytes(still, still_png_bytes(img))
    record = drawn_record(
        shot.id, shot.composition, shot.camera, req, layout, list(shot.visible), list(shot.props),
        list(shot.animals),
    )  # fmt: skip
    return record, pixels


def render_clip(st: RenderState, clip: Clip) -> list[dict]:
    """Stills, speech, transcripts and the MP4 of one clip (each skipped if already written),
    plus the clip's render record (``media/drawn/<clip>.json``: what each shot drew and where
    each line of speech plays) that the render audit reads."""
    todo = prepare_clip(st, clip)
    return todo.finish(todo.encode())


def render_clips(st: RenderState, clips: Iterable[Clip]) -> Iterator[list[dict]]:
    """:func:`render_clip` of each clip in turn, pipelined: the next clip is drawn and voiced while
    ffmpeg encodes this one (in a thread that only waits on it), so a worker keeps a core busy
    while its encoder writes. The files are those of :func:`render_clip`, one clip's rows a yield."""
    with ThreadPoolExecutor(1, thread_name_prefix="mf-encode") as encoder:
        pending: tuple[PreparedClip, Future[MediaInfo]] | None = None
        for clip in clips:
            todo = prepare_clip(st, clip)
            running = encoder.submit(todo.encode)  # starts when the previous clip's encode ends
            if pending is not None:
                yield pending[0].finish(pending[1].result())
            pending = (todo, running)
        if pending is not None:
            yield pending[0].finish(pending[1].result())


@dataclass
class PreparedClip:
    """A clip whose stills, speech, transcripts and render record are written; its MP4 is next."""

    run: RunLayout
    rows: list[dict]
    out: Path
    encode: Callable[[], MediaInfo]
    """Encode the MP4 (or read back the one already there)."""

    def finish(self, info: MediaInfo) -> list[dict]:
        """The clip's media rows, the MP4's last."""
        mp4 = _row(self.run, self.out, "clip", duration_s=round(info.duration_s, 3),
                   has_video=info.has_video, has_audio=info.has_audio)  # fmt: skip
        faults.checkpoint("render:clip")
        return [*self.rows, mp4]


def prepare_clip(st: RenderState, clip: Clip) -> PreparedClip:
    """Everything of :func:`render_clip` but the MP4, and how to encode it."""
    theme, world, run = st.theme, st.world, st.run
    rows: list[dict] = []
    specs, transcript, t0 = [], [], 0.0
    record_path = run.media / "drawn" / f"{clip.id}.json"
    drawn_shots, timing = [], []
    drop_stale_takes(st.run.media, st.takes, clip, record_path)
    for shot in clip.shots:
        still = run.media / "shots" / f"{shot.id}.png"
        record, pixels = _still(st, shot, still)
        drawn_shots.append(record)
        rows.append(_row(run, still, "shot_still"))
        wavs = [run.media / "speech" / f"{line.id}.wav" for line in shot.dialogue]
        durs, starts = fit_lines(st, shot, wavs)
        cues = []
        for line, wav, dur, start in zip(shot.dialogue, wavs, durs, starts, strict=True):
            cues.append(AudioCue(wav, start))
            end = start + dur
            transcript.append(
                {
                    "line": line.id,
                    "shot": shot.id,
                    "start_s": round(t0 + start, 3),
                    "end_s": round(t0 + end, 3),
                    "speaker": line.speaker,
                    "speaker_name": world.person(line.speaker).name,
                    "text": line.text,
                }
            )
            timing.append({"line": line.id, "shot": shot.id, "start_s": round(t0 + start, 3),
                           "end_s": round(t0 + end, 3), "duration_s": round(dur, 3),
                           "shot_end_s": round(t0 + shot.duration_s, 3)})  # fmt: skip
            rows.append(_row(run, wav, "speech", duration_s=round(dur, 3), has_audio=True))
        ambient = (
            "none" if clip.calibration else ("outdoor" if not world.place(shot.place).indoor else "room")
        )
        video = None
        if st.video is not None:  # a generated clip of the shot, from its still (else the still moves)
            take = st.takes.get(shot.id, 0)
            parts = scene_prompt_parts(scene_request(theme, world, shot, take))
            seed = shot_seed(world, "video", shot.id, take)
            a = theme.album
            got = video_fallback.shot_video(
                st.video, shot.id, still, run.media / "veo" / f"{shot.id}.mp4", float(shot.duration_s),
                parts, shot.camera, seed, a.width, a.height,
            )  # fmt: skip
            video = got.clip
            drawn_shots[-1]["video"] = got.record["path"]
            if got.redo_clip:  # the API answers now: the album clip is encoded again with this shot
                (run.media / "clips" / f"{clip.id}.mp4").unlink(missing_ok=True)
        if st.takes.get(shot.id):
            drawn_shots[-1]["take"] = st.takes[shot.id]
        specs.append(
            ShotSpec(still, float(shot.duration_s), shot.camera, tuple(cues), ambient, video, pixels)
        )
        t0 += shot.duration_s
    atomic.write_text(
        record_path, canonical_json({"clip": clip.id, "shots": drawn_shots, "lines": timing}) + "\n"
    )
    labelled = {"clip": clip.id, "lines": transcript}
    speakerless = {
        "clip": clip.id,
        "lines": [{k: v for k, v in t.items() if k not in ("speaker", "speaker_name")} for t in transcript],
    }
    for name, doc in (("labelled", labelled), ("speakerless", speakerless)):
        p = run.media / "transcripts" / f"{clip.id}.{name}.json"
        atomic.write_text(p, canonical_json(doc, indent=1) + "\n")
        rows.append(_row(run, p, f"transcript_{name}"))
    out = run.media / "clips" / f"{clip.id}.mp4"
    a, seed = theme.album, derive_seed(world.seed, clip.id)

    def encode() -> MediaInfo:
        if out.exists():
            return mp4_info(out)
        return encode_clip(specs, out, a.width, a.height, a.fps, seed=seed)

    return PreparedClip(run, rows, out, encode)


def _row(run: RunLayout, path: Path, kind: str, **extra: object) -> dict:
    return {
        "path": path.relative_to(run.root).as_posix(),
        "kind": kind,
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
        **extra,
    }


def anchor_name(world: World, pid: str, kind: str = "face") -> str:
    """The file stem of a person's face anchor (``kind`` animal: a cast animal's picture): an opaque
    id, so the agent-visible media name no one (whose it is is an evaluator key: :data:`ANCHOR_MAP`)."""
    return f"{kind}_{short(content_hash(world.seed, f'{kind}_anchor', pid))}"


ANCHOR_MAP = "anchors.json"
"""Person (or cast animal) id -> anchor path, under ``media/`` in a run; a release keeps it with the evaluator
annotations (media kind ``anchor_map``)."""


def render_anchors(run: RunLayout, theme: Theme, world: World) -> list[dict]:
    """Canonical face-anchor image per person (the reference every shot must match), under an
    opaque name, and the map of whose face each is."""
    backend = image_backend(theme.render)
    rows, owners = [], {}
    for p in world.people:
        path = run.media / "anchors" / f"{anchor_name(world, p.id)}.png"
        if not path.exists():
            atomic.write_bytes(path, png_bytes(backend.portrait(p.appearance)))
        rows.append(_row(run, path, "face_anchor"))
        owners[p.id] = path.relative_to(run.root).as_posix()
    for a in theme.animals:  # a drawn animal, not a face (the audit's face rules skip it)
        path = run.media / "anchors" / f"{anchor_name(world, a.id, 'animal')}.png"
        if not path.exists():
            atomic.write_bytes(path, png_bytes(animal_anchor(placement(a))))
        rows.append(_row(run, path, "animal_anchor"))
        owners[a.id] = path.relative_to(run.root).as_posix()
    atomic.write_json(run.media / ANCHOR_MAP, dict(sorted(owners.items())))
    return [*rows, _row(run, run.media / ANCHOR_MAP, "anchor_map")]


def finish_render(
    run: RunLayout,
    theme: Theme,
    world: World,
    clips: list[Clip],
    rows: list[dict],
    workers: int = 1,
    pool: ProcessPoolExecutor | None = None,
) -> list[Path]:
    """The render audit (raises ``RenderAuditError`` on a mismatch), anchors, the sorted media
    index and the voice check (its features over ``workers`` processes); returns the stage outputs."""
    report = render_audit(run, theme, world, clips)
    atomic.write_json(audit_path(run.media), report)
    if report["mismatches"]:
        raise RenderAuditError(report["problems"])
    # what was drawn travels with the release (ground truth, like the labelled transcripts)
    drawn = [run.media / "drawn" / f"{c.id}.json" for c in clips]
    rows = (
        rows
        + [_row(run, p, "render_record") for p in drawn]
        + [_row(run, audit_path(run.media), "render_audit")]
    )
    if theme.render.video != "ffmpeg":  # generated clips: which shots took which path of the chain
        logs = [run.media / "veo" / f"{s.id}.json" for c in clips for s in c.shots]
        records = [json.loads(p.read_text()) for p in logs if p.is_file()]
        paths = run.media / "video_paths.json"
        atomic.write_json(paths, video_fallback.summary(records))
        rows.append(_row(run, paths, "video_paths"))
    rows = render_anchors(run, theme, world) + rows
    rows.sort(key=lambda r: r["path"])
    atomic.write_jsonl(run.media_index, rows)
    atomic.write_json(run.voice_check, voice_check(run, clips, world.seed, workers=workers, pool=pool))
    return [run.media_index, run.voice_check, audit_path(run.media)]


def render_audit(run: RunLayout, theme: Theme, world: World, clips: list[Clip]) -> dict:
    """Audit every clip's render record against the shot observations."""
    obs = [Observation.model_validate(r) for r in read_jsonl(run.observations)]
    records = {}
    for c in clips:
        p = run.media / "drawn" / f"{c.id}.json"
        records[c.id] = json.loads(p.read_text()) if p.exists() else {"shots": [], "lines": []}
    return audit(theme, world, obs, records, run.media / "shots")
