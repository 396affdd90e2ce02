"""The ffmpeg command line that builds a whole clip in one ``filter_complex``:

* video: each still is scaled once to cover the frame, then looped (``static``); a pan scales
  it once by the move ratio, loops it and ``crop``s a frame-sized window that slides in even
  whole-pixel steps (no per-frame resampling, and exact translations x264 encodes cheaply;
  see :func:`~mnemoforge.backends.video.specs.pan_geometry`); a zoom feeds it to ``zoompan``,
  which shrinks or grows the window around the centre of a supersampled copy, one resampled
  frame per output frame. The per-shot segments are joined with ``concat``.
* audio: a quiet ambient bed per shot (seeded ``anoisesrc``, or silence), concatenated to
  the exact clip length, with every speech cue ``adelay``-ed to its place and ``amix``-ed
  on top (no normalisation, so the bed stays quiet and the speech keeps its level).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from mnemoforge.backends.video.probe import ffmpeg_exe
from mnemoforge.backends.video.specs import EncodeSettings, ShotSpec, pan_geometry, shot_frames

__all__ = ["build_clip_command"]

# anoisesrc colour and peak amplitude per ambient bed: room ~ -54 dBFS pink, outdoor ~ -40 dBFS brown.
_AMBIENT_NOISE: dict[str, tuple[str, float]] = {"room": ("pink", 0.01), "outdoor": ("brown", 0.05)}
_SWS = "bicubic+accurate_rnd+full_chroma_int+bitexact"  # swscale: bit-exact C paths, not CPU-specific SIMD


def _video_chain(
    idx: int, shot: ShotSpec, n: int, width: int, height: int, fps: int, st: EncodeSettings
) -> str:
    """Filter chain turning input ``idx`` (a still) into ``n`` frames labelled ``[v{idx}]``."""
    src, out = f"[{idx}:v]", f"[v{idx}]"
    retime = f"setpts=N/{fps}/TB"
    if shot.video is not None:  # a generated clip: re-timed to the release rate, cut or held to n frames
        return (
            f"{src}fps={fps},scale={width}:{height}:force_original_aspect_ratio=increase:flags={_SWS},"
            f"crop={width}:{height},format=yuv420p,tpad=stop_mode=clone:stop={n},trim=end_frame={n},"
            f"{retime}{out}"
        )
    if shot.camera == "static":
        return (
            f"{src}scale={width}:{height}:force_original_aspect_ratio=increase:flags={_SWS},"
            f"crop={width}:{height},format=yuv420p,loop=loop={n - 1}:size=1:start=0,{retime}{out}"
        )
    last = max(n - 1, 1)
    m = st.move
    if shot.camera in ("pan_left", "pan_right"):  # see pan_offsets: the same offsets, frame by frame
        sw, sh, top, travel = pan_geometry(width, height, m)
        frac = f"n/{last}" if shot.camera == "pan_right" else f"(1-n/{last})"
        return (
            f"{src}scale={sw}:{sh}:force_original_aspect_ratio=increase:flags={_SWS},crop={sw}:{sh},"
            f"format=rgb24,crop={sw}:{height}:0:{top}:exact=1,format=yuv420p,"
            f"loop=loop={n - 1}:size=1:start=0,{retime},"
            f"crop={width}:{height}:x='2*floor({travel // 2}*{frac}+0.5)':y=0{out}"
        )
    k = max(1, st.supersample_max_width // width)
    sw, sh = width * k, height * k
    grow = f"{m - 1.0:.6f}*on/{last}"
    z = f"1+{grow}" if shot.camera == "zoom_in" else f"{m:.6f}-{grow}"
    return (
        f"{src}scale={sw}:{sh}:force_original_aspect_ratio=increase:flags={_SWS},crop={sw}:{sh},"
        f"format=yuv444p,zoompan=z='{z}':x='(iw-iw/zoom)/2':y='(ih-ih/zoom)/2':d={n}:s={width}x{height}"
        f":fps={fps},{retime},format=yuv420p{out}"
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
    raw_stills: Mapping[int, Path] | None = None,
) -> list[str]:
    """The ffmpeg argument list :func:`encode_clip` runs (writing to ``out`` as MP4).

    ``raw_stills`` maps a shot's index to a file holding its still's pixels as raw RGB (the shot's
    ``pixels``, written out by :func:`encode_clip`); ffmpeg reads those as they are instead of
    decoding the PNG, the same frame either way.
    """
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
    raw = raw_stills or {}
    for i, shot in enumerate(shots):  # one still image per input; no '%d' sequence patterns in file names
        if shot.video is not None:
            inputs += ["-an", "-i", _url(shot.video)]
        elif i in raw and shot.pixels is not None:
            size = f"{shot.pixels.width}x{shot.pixels.height}"
            inputs += ["-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", size, "-i", _url(raw[i])]
        else:
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
        "-aac_coder",
        st.aac_coder,
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
