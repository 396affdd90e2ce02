"""ffmpeg video backend: per-shot stills + speech WAVs -> one H.264/AAC MP4 clip.

One ffmpeg process per clip builds the whole clip in a single ``filter_complex`` (see
:mod:`mnemoforge.backends.video.clip_command`).

The encode is single-threaded with bit-exact flags and no metadata, so the same inputs
give byte-identical files; parallelism belongs across clips (see :func:`encode_clips`).
Files are written to a temporary name in the target directory and moved into place.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mnemoforge.backends.video.clip_command import _output_args, _url, build_clip_command
from mnemoforge.backends.video.mp4_header import mp4_info
from mnemoforge.backends.video.probe import MediaInfo, ffmpeg_exe, probe
from mnemoforge.backends.video.specs import ClipJob, EncodeSettings, ShotSpec, shot_frames
from mnemoforge.store.atomic import mkstemp_beside

__all__ = ["VideoEncodeError", "encode_baseline", "encode_clip", "encode_clips"]

_STDERR_TAIL = 2000


class VideoEncodeError(RuntimeError):
    """ffmpeg could not produce the clip; ``stderr_tail`` holds the end of its log."""

    def __init__(self, message: str, stderr_tail: str = "", returncode: int | None = None) -> None:
        self.stderr_tail = stderr_tail
        self.returncode = returncode
        super().__init__(
            f"{message}\n--- ffmpeg stderr (tail) ---\n{stderr_tail}" if stderr_tail else message
        )


def _run_atomic(
    cmd_for: Callable[[Path], list[str]],
    out: Path,
    timeout_s: float | None,
    read_back: Callable[[Path], MediaInfo] | None = None,
) -> MediaInfo:
    """Run ``cmd_for(tmp_path)`` writing a temp file next to ``out``; move it into place on success;
    ``read_back(out)`` (default :func:`probe`) says what it holds."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = mkstemp_beside(out, ".part")
    os.close(fd)
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
    return (read_back or probe)(out)


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
    """Encode ``shots`` into one H.264/AAC MP4 at ``out`` (atomic, byte-deterministic); read the result
    back from its MP4 header (:func:`~mnemoforge.backends.video.mp4_header.mp4_info`: what ``probe``
    reports, without starting another ffmpeg).

    ``seed`` drives the ambient noise. A shot's ``pixels`` (when given) go to a temporary raw file
    beside ``out`` that ffmpeg reads instead of the PNG (no PNG decode; the same bytes out).

    Raises :class:`VideoEncodeError` (with ffmpeg's stderr tail) when an input is missing or ffmpeg
    fails; nothing is left at ``out``'s temporary names in that case, and an existing ``out`` is
    left untouched.
    """
    shots, out = tuple(shots), Path(out)
    _check_inputs([s.video or s.still for s in shots] + [c.wav for s in shots for c in s.audio], out)
    raw: dict[int, Path] = {}
    try:
        for i, s in enumerate(shots):  # pixels in memory: handed over raw, not decoded from the PNG
            if s.pixels is not None and s.video is None:
                fd, raw[i] = mkstemp_beside(out, f".{i}.rgb")
                with os.fdopen(fd, "wb") as f:
                    f.write(s.pixels.rgb)
        return _run_atomic(
            lambda tmp: build_clip_command(
                shots, tmp, width, height, fps, seed=seed, settings=settings, raw_stills=raw
            ),
            out,
            timeout_s,
            mp4_info,
        )
    finally:
        for p in raw.values():
            p.unlink(missing_ok=True)


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
