"""Read what an MP4 we just encoded holds from its ``moov`` header, in Python (no ffmpeg process).

:func:`~mnemoforge.backends.video.probe.probe` starts an ``ffmpeg -i`` per file (about 20 ms of
CPU, mostly ffmpeg's start-up); the render reads back every clip it encodes, so it uses
:func:`mp4_info` instead: the same figures (``tests/test_mp4_header.py`` compares them on encoded
clips), falling back to ``probe`` for anything it does not recognise.

The duration is the movie header's, to the nearest hundredth of a second as ffmpeg prints it (and
so as ``probe`` reports it); the frame rate is the video track's time scale over its first sample delta.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

from mnemoforge.backends.video.probe import MediaInfo, probe

__all__ = ["mp4_info"]


def _boxes(b: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, box end) of the boxes in ``b[start:end]``."""
    off = start
    while off + 8 <= end:
        size, kind = struct.unpack_from(">I4s", b, off)
        head = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", b, off + 8)
            head = 16
        elif size == 0:
            size = end - off
        if size < head or off + size > end:
            raise ValueError(f"bad box {kind!r} at {off}")
        yield kind, off + head, off + size
        off += size


def _child(b: bytes, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    return next(((s, e) for k, s, e in _boxes(b, start, end) if k == kind), None)


def _moov(path: Path) -> bytes:
    """The ``moov`` box (read from the front: the encoder writes it there with ``+faststart``)."""
    with open(path, "rb") as f:
        data = f.read(1 << 16)
        off = 0
        while off + 8 <= len(data):
            size, kind = struct.unpack_from(">I4s", data, off)
            if size == 1:
                (size,) = struct.unpack_from(">Q", data, off + 8)
            if kind == b"moov":
                if off + size > len(data):
                    f.seek(off)
                    return f.read(size)
                return data[off : off + size]
            if size < 8:
                break
            off += size
            if off + 8 > len(data):  # the next box header lies beyond what was read
                f.seek(off)
                data, off = f.read(1 << 16), 0
                if not data:
                    break
    raise ValueError("no moov box")


def _header_info(path: Path) -> MediaInfo:
    moov = _moov(path)
    end = len(moov)
    mvhd = _child(moov, 8, end, b"mvhd")
    if mvhd is None:
        raise ValueError("no mvhd")
    s = mvhd[0]
    if moov[s] == 1:
        timescale, duration = struct.unpack_from(">IQ", moov, s + 20)
    else:
        timescale, duration = struct.unpack_from(">II", moov, s + 12)
    has_video = has_audio = False
    width = height = 0
    fps = 0.0
    for kind, ts, te in _boxes(moov, 8, end):
        if kind != b"trak":
            continue
        mdia = _child(moov, ts, te, b"mdia")
        hdlr = mdia and _child(moov, mdia[0], mdia[1], b"hdlr")
        if not mdia or not hdlr:
            raise ValueError("track without mdia/hdlr")
        handler = moov[hdlr[0] + 8 : hdlr[0] + 12]
        if handler == b"soun":
            has_audio = True
        elif handler == b"vide" and not has_video:
            has_video = True
            tkhd = _child(moov, ts, te, b"tkhd")
            mdhd = _child(moov, mdia[0], mdia[1], b"mdhd")
            minf = _child(moov, mdia[0], mdia[1], b"minf")
            stbl = minf and _child(moov, minf[0], minf[1], b"stbl")
            stts = stbl and _child(moov, stbl[0], stbl[1], b"stts")
            if not (tkhd and mdhd and stts):
                raise ValueError("video track without tkhd/mdhd/stts")
            w16, h16 = struct.unpack_from(">II", moov, tkhd[1] - 8)  # 16.16 fixed point, at the end
            width, height = w16 >> 16, h16 >> 16
            v = moov[mdhd[0]]
            (track_scale,) = struct.unpack_from(">I", moov, mdhd[0] + (20 if v == 1 else 12))
            entries, _count, delta = struct.unpack_from(">III", moov, stts[0] + 4)
            if entries < 1 or delta == 0:
                raise ValueError("empty stts")
            fps = track_scale / delta
    if not timescale or not has_video:
        raise ValueError("not a video we know")
    # as ffmpeg: the duration in microseconds (rounded), printed to the nearest hundredth
    micros = (duration * 1_000_000 + timescale // 2) // timescale
    centis = (micros + 5_000) // 10_000
    return MediaInfo(
        path=path,
        duration_s=centis / 100,
        has_video=True,
        has_audio=has_audio,
        width=width,
        height=height,
        fps=round(fps, 2),
        bytes=path.stat().st_size,
    )


def mp4_info(path: Path) -> MediaInfo:
    """:class:`MediaInfo` of an MP4 from its header; ``probe`` where the header is not one we know."""
    path = Path(path)
    try:
        return _header_info(path)
    except (ValueError, struct.error, OSError):
        return probe(path)
