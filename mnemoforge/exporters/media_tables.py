"""Media tables for `datasets`: shot stills as an ``Image()`` column, speech and video as paths.

Stills are embedded as PNG bytes (small) with Hugging Face feature metadata in the Parquet
schema, so ``load_dataset(release, "icm_shots")`` yields PIL images offline. Speech and video
stay files in ``media/`` referenced by release-relative path (decoding them would need
torchcodec); load them with any audio/video reader.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mnemoforge.schemas.episodes import Clip
from mnemoforge.store import atomic

SHOT_FEATURES = {
    "id": {"dtype": "string", "_type": "Value"},
    "clip_id": {"dtype": "string", "_type": "Value"},
    "index": {"dtype": "int64", "_type": "Value"},
    "start": {"dtype": "string", "_type": "Value"},
    "place": {"dtype": "string", "_type": "Value"},
    "composition": {"dtype": "string", "_type": "Value"},
    "camera": {"dtype": "string", "_type": "Value"},
    "image": {"_type": "Image"},
}
SPEECH_FEATURES = {
    "id": {"dtype": "string", "_type": "Value"},
    "clip_id": {"dtype": "string", "_type": "Value"},
    "shot_id": {"dtype": "string", "_type": "Value"},
    "text": {"dtype": "string", "_type": "Value"},
    "audio_path": {"dtype": "string", "_type": "Value"},
}


def _write(table: pa.Table, features: dict, path: Path) -> Path:
    meta = {b"huggingface": json.dumps({"info": {"features": features}}, sort_keys=True).encode()}
    table = table.replace_schema_metadata(meta)
    with atomic.atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False, write_statistics=False)
    return path


def write_shots(clips: list[Clip], root: Path, out: Path) -> Path:
    """One row per shot with its still embedded (``root`` is the release folder)."""
    shots = [s for c in clips for s in c.shots]
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    cols = {
        "id": pa.array([s.id for s in shots], pa.string()),
        "clip_id": pa.array([s.clip_id for s in shots], pa.string()),
        "index": pa.array([s.index for s in shots], pa.int64()),
        "start": pa.array([s.start.isoformat() for s in shots], pa.string()),
        "place": pa.array([s.place for s in shots], pa.string()),
        "composition": pa.array([s.composition for s in shots], pa.string()),
        "camera": pa.array([s.camera for s in shots], pa.string()),
        "image": pa.array(
            [
                {"bytes": (root / f"media/shots/{s.id}.png").read_bytes(), "path": f"media/shots/{s.id}.png"}
                for s in shots
            ],
            image_type,
        ),
    }
    return _write(pa.table(cols), SHOT_FEATURES, out)


def write_speech(clips: list[Clip], out: Path) -> Path:
    """One row per spoken line; the words without a speaker label, the audio by path."""
    lines = [(c.id, s.id, ln) for c in clips for s in c.shots for ln in s.dialogue]
    cols = {
        "id": pa.array([ln.id for _, _, ln in lines], pa.string()),
        "clip_id": pa.array([c for c, _, _ in lines], pa.string()),
        "shot_id": pa.array([s for _, s, _ in lines], pa.string()),
        "text": pa.array([ln.text for _, _, ln in lines], pa.string()),
        "audio_path": pa.array([f"media/speech/{ln.id}.wav" for _, _, ln in lines], pa.string()),
    }
    return _write(pa.table(cols), SPEECH_FEATURES, out)
