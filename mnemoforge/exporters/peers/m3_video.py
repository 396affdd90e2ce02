"""The M3-Bench album video: clips joined on a 30-second grid, and the 30-second segments M3-Agent
reads (``data/clips/<subset>/<video>/<n>.mp4``).

M3-Agent cuts every video into 30 s segments (``ffmpeg -ss 30i -t 30``) and asks each question
after segment ``before_clip = floor(t / 30) - 1``. So that a question can be asked right after
any clip without the segment holding the clip's end also holding the next clip's start, each
clip is followed by a still gap (black, silent: the time between two events) up to the next
multiple of 30 s. The video is encoded once with a keyframe at every multiple of 30 s, and the
segments are cut from it by stream copy, so they are exactly 30 s each.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from mnemoforge.backends.video.probe import ffmpeg_exe, probe
from mnemoforge.exporters.peers.common import ExportError
from mnemoforge.store.atomic import atomic_path, file_mode

SEGMENT_S = 30


def grid_duration(seconds: float) -> int:
    """A clip's length on the 30 s grid: its duration rounded up to a multiple of 30 (min 30)."""
    return max(1, -(-int(round(seconds)) // SEGMENT_S)) * SEGMENT_S


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace")[-2000:]
        raise ExportError(f"m3bench: ffmpeg could not {what}: {tail}")


_BITEXACT = ["-fflags", "+bitexact", "-map_metadata", "-1", "-map_chapters", "-1"]


def encode_album(
    clips: list[Path],
    slots: list[int],
    out: Path,
    *,
    width: int,
    height: int,
    fps: int,
    sample_rate: int = 24000,
) -> Path:
    """Join ``clips`` into ``out``, clip ``i`` padded with black and silence to ``slots[i]`` seconds,
    with a keyframe at every multiple of 30 s (libx264 + AAC mono)."""
    cmd = [ffmpeg_exe(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
    chains, pads = [], []
    silent = 0
    for path in clips:
        cmd += ["-i", "file:" + str(Path(path).absolute())]
    for i, (path, slot) in enumerate(zip(clips, slots, strict=True)):
        v = (
            f"[{i}:v]scale={width}:{height},setsar=1,fps={fps},format=yuv420p,"
            f"tpad=stop_mode=add:stop_duration={slot},trim=duration={slot},setpts=PTS-STARTPTS[v{i}]"
        )
        if probe(path).has_audio:
            src = f"[{i}:a]"
        else:  # a silent clip: a silent track of its slot's length
            src = f"[{len(clips) + silent}:a]"
            silent += 1
            pads += ["-f", "lavfi", "-t", str(slot), "-i", f"anullsrc=r={sample_rate}:cl=mono"]
        a = (
            f"{src}aresample={sample_rate},aformat=channel_layouts=mono,apad,"
            f"atrim=duration={slot},asetpts=PTS-STARTPTS[a{i}]"
        )
        chains += [v, a]
    joined = "".join(f"[v{i}][a{i}]" for i in range(len(clips))) + f"concat=n={len(clips)}:v=1:a=1[v][a]"
    cmd += pads + ["-filter_complex", ";".join([*chains, joined]), "-map", "[v]", "-map", "[a]"]
    cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p", "-threads", "1"]
    gop = SEGMENT_S * fps  # a keyframe exactly every 30 s and nowhere else
    cmd += ["-x264-params", f"keyint={gop}:min-keyint={gop}:scenecut=0", "-flags:v", "+bitexact"]
    cmd += ["-c:a", "aac", "-b:a", "64k", "-ar", str(sample_rate), "-ac", "1", "-flags:a", "+bitexact"]
    cmd += [*_BITEXACT, "-movflags", "+faststart"]
    with atomic_path(out) as tmp:
        _run([*cmd, "-f", "mp4", str(tmp)], f"join the clips into {out}")
        os.chmod(tmp, file_mode())
    return out


def cut_segments(video: Path, folder: Path, count: int) -> list[Path]:
    """Cut ``video`` into ``count`` 30 s segments ``folder/0.mp4 .. folder/<count-1>.mp4`` (stream
    copy at the 30 s keyframes; each file replaced atomically, 0644)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tmp-m3-", dir=folder) as td:
        cmd = [ffmpeg_exe(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
        cmd += ["-i", "file:" + str(Path(video).absolute()), "-map", "0", "-c", "copy"]
        cmd += ["-f", "segment", "-segment_time", str(SEGMENT_S), "-segment_time_delta", "0.05"]
        cmd += ["-reset_timestamps", "1"]
        cmd += ["-segment_format", "mp4", *_BITEXACT, str(Path(td) / "%d.mp4")]
        _run(cmd, f"cut {video} into {SEGMENT_S} s segments")
        made = sorted(Path(td).glob("*.mp4"), key=lambda p: int(p.stem))
        if len(made) != count:
            raise ExportError(f"m3bench: expected {count} segments of {video}, ffmpeg cut {len(made)}")
        out = []
        for p in made:
            os.chmod(p, file_mode())
            os.replace(p, folder / p.name)
            out.append(folder / p.name)
    return out
