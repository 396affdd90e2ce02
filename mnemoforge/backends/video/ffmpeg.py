"""ffmpeg video backend: per-shot stills + speech WAVs -> one H.264/AAC MP4 clip.

One ffmpeg process per clip builds the whole clip in a single ``filter_complex``:

* video: each still is scaled once to cover the frame, then either looped (``static``) or
  fed to ``zoompan`` which emits one frame per output frame from a supersampled copy of the
  still (``pan_*`` slides a fixed-size window across it, ``zoom_*`` shrinks or grows the
  window around the centre; the supersampling keeps the motion sub-pixel smooth). The
  per-shot segments are joined with ``concat``.
* audio: a quiet ambient bed per shot (seeded ``anoisesrc``, or silence), concatenated to
  the exact clip length, with every speech cue ``adelay``-ed to its place and ``amix``-ed
  on top (no normalisation, so the bed stays quiet and the speech keeps its level).

The encode is single-threaded with bit-exact flags and no metadata, so the same inputs
give byte-identical files; parallelism belongs across clips (see :func:`encode_clips`).
Files are written to a temporary name in the target directory and moved into place.
"""

from __future__ import annotations

import math
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from mnemoforge.backends.video.probe import MediaInfo, ffmpeg_exe, probe
from mnemoforge.store.atomic import TMP_PREFIX

__all__ = [
    "AMBIENTS",
    "CAMERAS",
    "Ambient",
    "AudioCue",
    "Camera",
    "ClipJob",
    "EncodeSettings",
    "ShotSpec",
    "VideoEncodeError",
    "build_clip_command",
    "encode_baseline",
    "encode_clip",
    "encode_clips",
    "shot_frames",
]

Camera = Literal["static", "pan_left", "pan_right", "zoom_in", "zoom_out"]
Ambient = Literal["none", "room", "outdoor"]
CAMERAS: tuple[str, ...] = get_args(Camera)
AMBIENTS: tuple[str, ...] = get_args(Ambient)

# anoisesrc colour and peak amplitude per ambient bed: room ~ -54 dBFS pink, outdoor ~ -40 dBFS brown.
_AMBIENT_NOISE: dict[str, tuple[str, float]] = {"room": ("pink", 0.01), "outdoor": ("brown", 0.05)}
_STDERR_TAIL = 2000
_SWS = "bicubic+accurate_rnd+full_chroma_int+bitexact"  # swscale: bit-exact C paths, not CPU-specific SIMD


class VideoEncodeError(RuntimeError):
    """ffmpeg could not produce the clip; ``stderr_tail`` holds the end of its log."""

    def __init__(self, message: str, stderr_tail: str = "", returncode: int | None = None) -> None:
        self.stderr_tail = stderr_tail
        self.returncode = returncode
        super().__init__(
            f"{message}\n--- ffmpeg stderr (tail) ---\n{stderr_tail}" if stderr_tail else message
        )


@dataclass(frozen=True)
class AudioCue:
    """A speech line: ``wav`` starts ``start_s`` seconds after the start of its shot."""

    wav: Path
    start_s: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.start_s) and self.start_s >= 0):
            raise ValueError(f"cue start_s must be a finite number >= 0, got {self.start_s!r}")


@dataclass(frozen=True)
class ShotSpec:
    """One shot of a clip: a still shown for ``duration_s`` with a camera move and speech cues."""

    still: Path
    duration_s: float
    camera: Camera = "static"
    audio: tuple[AudioCue, ...] = ()
    ambient: Ambient = "room"

    def __post_init__(self) -> None:
        object.__setattr__(self, "audio", tuple(self.audio))
        if not (math.isfinite(self.duration_s) and self.duration_s > 0):
            raise ValueError(f"shot duration_s must be > 0, got {self.duration_s!r}")
        if self.camera not in CAMERAS:
            raise ValueError(f"unknown camera {self.camera!r}; expected one of {CAMERAS}")
        if self.ambient not in AMBIENTS:
            raise ValueError(f"unknown ambient {self.ambient!r}; expected one of {AMBIENTS}")
        for cue in self.audio:
            if cue.start_s >= self.duration_s:
                raise ValueError(f"cue at {cue.start_s}s starts after the {self.duration_s}s shot ends")


@dataclass(frozen=True)
class EncodeSettings:
    """Encoder knobs shared by :func:`encode_clip` and :func:`encode_baseline`."""

    preset: str = "veryfast"
    crf: int = 23
    tune: str | None = "stillimage"
    sample_rate: int = 24000
    audio_bitrate: str = "64k"
    move: float = 1.25  # window ratio for camera moves: zoom 1 -> move, pans travel (1 - 1/move) of the width
    supersample_max_width: int = 640  # zoompan reads a copy of the still up to this wide (sub-pixel motion)


@dataclass(frozen=True)
class ClipJob:
    """Arguments of one :func:`encode_clip` call, for :func:`encode_clips`."""

    shots: tuple[ShotSpec, ...]
    out: Path
    width: int
    height: int
    fps: int
    seed: int = 0
    settings: EncodeSettings = field(default_factory=EncodeSettings)


def shot_frames(durations: Sequence[float], fps: int) -> list[int]:
    """Frames per shot: shot boundaries are the planned cumulative times rounded to the frame grid.

    So the clip length is the planned total to within half a frame, however many shots
    there are (every shot gets at least one frame).
    """
    counts: list[int] = []
    done, planned = 0, 0.0
    for d in durations:
        planned += d
        n = max(1, round(planned * fps) - done)
        counts.append(n)
        done += n
    return counts


def _video_chain(
    idx: int, shot: ShotSpec, n: int, width: int, height: int, fps: int, st: EncodeSettings
) -> str:
    """Filter chain turning input ``idx`` (a still) into ``n`` frames labelled ``[v{idx}]``."""
    src, out = f"[{idx}:v]", f"[v{idx}]"
    retime = f"setpts=N/{fps}/TB"
    if shot.camera == "static":
        return (
            f"{src}scale={width}:{height}:force_original_aspect_ratio=increase:flags={_SWS},"
            f"crop={width}:{height},format=yuv420p,loop=loop={n - 1}:size=1:start=0,{retime}{out}"
        )
    k = max(1, st.supersample_max_width // width)
    sw, sh = width * k, height * k
    last = max(n - 1, 1)
    m = st.move
    if shot.camera in ("zoom_in", "zoom_out"):
        grow = f"{m - 1.0:.6f}*on/{last}"
        z = f"1+{grow}" if shot.camera == "zoom_in" else f"{m:.6f}-{grow}"
        x = "(iw-iw/zoom)/2"
    else:
        z = f"{m:.6f}"
        frac = f"on/{last}" if shot.camera == "pan_right" else f"(1-on/{last})"
        x = f"(iw-iw/zoom)*{frac}"
    return (
        f"{src}scale={sw}:{sh}:force_original_aspect_ratio=increase:flags={_SWS},crop={sw}:{sh},"
        f"format=yuv444p,zoompan=z='{z}':x='{x}':y='(ih-ih/zoom)/2':d={n}:s={width}x{height}:fps={fps},"
        f"{retime},format=yuv420p{out}"
    )


def _bed_chain(idx: int, shot: ShotSpec, samples: int, sample_rate: int, seed: int) -> str:
    """Ambient bed of exactly ``samples`` samples for shot ``idx``, labelled ``[b{idx}]``."""
    if shot.ambient == "none":
        src = f"anullsrc=r={sample_rate}:cl=mono"
    else:
        colour, amp = _AMBIENT_NOISE[shot.ambient]
        noise_seed = (seed * 1_000_003 + idx * 7919 + 1) % (2**31 - 1)
        src = f"anoisesrc=r={sample_rate}:c={colour}:a={amp}:seed={noise_seed}"
    return f"{src},atrim=end_sample={samples},aformat=sample_fmts=fltp:channel_layouts=mono[b{idx}]"


def build_clip_command(
    shots: Sequence[ShotSpec],
    out: Path,
    width: int,
    height: int,
    fps: int,
    *,
    seed: int = 0,
    settings: EncodeSettings | None = None,
) -> list[str]:
    """The ffmpeg argument list :func:`encode_clip` runs (writing to ``out`` as MP4)."""
    st = settings or EncodeSettings()
    if not shots:
        raise ValueError("a clip needs at least one shot")
    if width <= 0 or height <= 0 or width % 2 or height % 2:
        raise ValueError(f"width and height must be positive and even (yuv420p), got {width}x{height}")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    sr = st.sample_rate
    inputs: list[str] = []
    graph: list[str] = []
    for shot in shots:  # one still image per input; no '%d' sequence patterns in file names
        inputs += ["-f", "image2", "-pattern_type", "none", "-i", _url(shot.still)]
    cue_labels: list[str] = []
    t0_frames = 0
    concat_in = ""
    for i, (shot, n) in enumerate(zip(shots, shot_frames([s.duration_s for s in shots], fps), strict=True)):
        graph.append(_video_chain(i, shot, n, width, height, fps, st))
        start = t0_frames * sr // fps
        end = (t0_frames + n) * sr // fps
        graph.append(_bed_chain(i, shot, end - start, sr, seed))
        concat_in += f"[v{i}][b{i}]"
        for cue in shot.audio:
            in_idx = inputs.count("-i")
            inputs += ["-i", _url(cue.wav)]
            delay = start + round(cue.start_s * sr)
            label = f"[c{len(cue_labels)}]"
            graph.append(
                f"[{in_idx}:a]aresample={sr},aformat=sample_fmts=fltp:channel_layouts=mono,"
                f"adelay=delays={delay}S:all=1{label}"
            )
            cue_labels.append(label)
        t0_frames += n
    graph.append(f"{concat_in}concat=n={len(shots)}:v=1:a=1[v][bed]")
    if cue_labels:
        graph.append(
            f"[bed]{''.join(cue_labels)}amix=inputs={len(cue_labels) + 1}:duration=first:"
            f"dropout_transition=0:normalize=0[a]"
        )
    else:
        graph.append("[bed]anull[a]")
    return [
        ffmpeg_exe(),
        "-nostdin",
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-filter_complex_threads",
        "1",
        "-sws_flags",
        _SWS,
        *inputs,
        "-filter_complex",
        ";".join(graph),
        "-map",
        "[v]",
        "-map",
        "[a]",
        *_output_args(st, fps),
        "-f",
        "mp4",
        _url(out),
    ]


def _url(path: Path) -> str:
    """``path`` as an ffmpeg URL that no ':' , leading '-' or protocol name can misread."""
    return "file:" + str(Path(path).absolute())


def _output_args(st: EncodeSettings, fps: int) -> list[str]:
    tune = ["-tune", st.tune] if st.tune else []
    return [
        "-c:v",
        "libx264",
        "-preset",
        st.preset,
        *tune,
        "-crf",
        str(st.crf),
        "-pix_fmt",
        "yuv420p",
        "-r",
        str(fps),
        "-threads",
        "1",
        "-c:a",
        "aac",
        "-b:a",
        st.audio_bitrate,
        "-ar",
        str(st.sample_rate),
        "-ac",
        "1",
        "-fflags",
        "+bitexact",
        "-flags:v",
        "+bitexact",
        "-flags:a",
        "+bitexact",
        "-map_metadata",
        "-1",
        "-map_chapters",
        "-1",
        "-movflags",
        "+faststart",
    ]


def _run_atomic(cmd_for: Callable[[Path], list[str]], out: Path, timeout_s: float | None) -> MediaInfo:
    """Run ``cmd_for(tmp_path)`` writing a temp file next to ``out``; move it into place on success."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{out.name}.", suffix=".part", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        cmd = cmd_for(tmp)
        try:
            proc = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            tail = (exc.stderr or b"").decode("utf-8", "replace")[-_STDERR_TAIL:]
            raise VideoEncodeError(f"ffmpeg timed out after {timeout_s}s writing {out}", tail) from exc
        if proc.returncode != 0 or tmp.stat().st_size == 0:
            tail = proc.stderr.decode("utf-8", "replace")[-_STDERR_TAIL:]
            raise VideoEncodeError(
                f"ffmpeg failed (exit {proc.returncode}) writing {out}", tail, proc.returncode
            )
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return probe(out)


def _check_inputs(paths: Sequence[Path], out: Path) -> None:
    missing = [str(p) for p in paths if not Path(p).is_file()]
    if missing:
        raise VideoEncodeError(f"cannot encode {out}: missing input file(s): {', '.join(missing)}")


def encode_clip(
    shots: Sequence[ShotSpec],
    out: Path,
    width: int,
    height: int,
    fps: int,
    *,
    seed: int = 0,
    settings: EncodeSettings | None = None,
    timeout_s: float | None = None,
) -> MediaInfo:
    """Encode ``shots`` into one H.264/AAC MP4 at ``out`` (atomic, byte-deterministic); probe the result.

    ``seed`` drives the ambient noise. Raises :class:`VideoEncodeError` (with ffmpeg's
    stderr tail) when an input is missing or ffmpeg fails; nothing is left at ``out``'s
    temporary name in that case, and an existing ``out`` is left untouched.
    """
    shots = tuple(shots)
    _check_inputs([s.still for s in shots] + [c.wav for s in shots for c in s.audio], Path(out))
    return _run_atomic(
        lambda tmp: build_clip_command(shots, tmp, width, height, fps, seed=seed, settings=settings),
        Path(out),
        timeout_s,
    )


def encode_clips(jobs: Sequence[ClipJob], *, workers: int | None = None) -> list[MediaInfo]:
    """Encode many clips in parallel, one ffmpeg process per clip, ``workers`` at a time.

    ``workers`` defaults to the number of CPUs. Results are in the order of ``jobs``. On the
    first failure (in job order) the jobs not yet started are cancelled, the running ones
    finish, and the error is raised.
    """
    n = workers or os.cpu_count() or 1

    def one(job: ClipJob) -> MediaInfo:
        return encode_clip(
            job.shots, job.out, job.width, job.height, job.fps, seed=job.seed, settings=job.settings
        )

    # threads suffice: each one only waits on its own ffmpeg process, which does the work
    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(one, job) for job in jobs]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _concat_line(path: Path) -> str:
    return "file '" + str(Path(path).resolve()).replace("'", "'\\''") + "'\n"


def encode_baseline(
    stills: Sequence[Path],
    wavs: Sequence[Path],
    out: Path,
    *,
    durations: Sequence[float],
    width: int,
    height: int,
    fps: int,
    settings: EncodeSettings | None = None,
) -> MediaInfo:
    """Reference encode of the same stills and speech with the simplest ffmpeg command.

    Stills are shown for ``durations`` (concat demuxer, no camera move), the WAVs are played
    back to back (concat demuxer) and padded with silence to the total length; the encoder
    settings match :func:`encode_clip`. Used to measure what the render stage costs on top
    of raw encoding. WAVs must share one format.
    """
    st = settings or EncodeSettings()
    stills, wavs, durations = list(stills), list(wavs), [float(d) for d in durations]
    if not stills or len(durations) != len(stills):
        raise ValueError("need one duration per still and at least one still")
    _check_inputs([*stills, *wavs], Path(out))
    counts = shot_frames(durations, fps)
    total = sum(counts) / fps
    with tempfile.TemporaryDirectory(prefix="mf-baseline-") as td:
        vlist = Path(td) / "video.ffconcat"
        vlist.write_text(
            "ffconcat version 1.0\n"
            + "".join(
                _concat_line(s) + f"duration {n / fps:.6f}\n" for s, n in zip(stills, counts, strict=True)
            )
            + _concat_line(stills[-1])
            + f"duration {1 / fps:.6f}\n"
        )
        if wavs:
            alist = Path(td) / "audio.ffconcat"
            alist.write_text("ffconcat version 1.0\n" + "".join(_concat_line(w) for w in wavs))
            audio_in = ["-f", "concat", "-safe", "0", "-i", _url(alist)]
        else:
            audio_in = ["-f", "lavfi", "-i", f"anullsrc=r={st.sample_rate}:cl=mono"]

        def cmd(tmp: Path) -> list[str]:
            return [
                ffmpeg_exe(),
                "-nostdin",
                "-hide_banner",
                "-loglevel",
                "error",
                "-y",
                "-f",
                "concat",
                "-safe",
                "0",
                "-i",
                _url(vlist),
                *audio_in,
                "-map",
                "0:v",
                "-map",
                "1:a",
                "-vf",
                f"scale={width}:{height},fps={fps}",
                "-af",
                "apad",
                "-t",
                f"{total:.6f}",
                *_output_args(st, fps),
                "-f",
                "mp4",
                _url(tmp),
            ]

        return _run_atomic(cmd, Path(out), None)
