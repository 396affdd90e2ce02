"""Speech for the render: each distinct (voice, text) is synthesized once per run.

An album says the same line in the same voice many times (840 clips: 2,366 lines, 1,072 distinct
takes). With the offline engine a take depends only on its voice and text (see
``backends/speech/espeak.py``), so the first render of a take is kept in a content-addressed folder
of the run (``cache/speech/<key>.wav``) and later lines with the same key get the same file
(a hard link, or a copy where links are not possible): the same bytes as synthesizing it again,
without the synthesis. Render workers share the folder; two workers racing on one take both write
the same bytes, atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from mnemoforge.backends.registry import SpeechBackends
from mnemoforge.hashing import canonical_json, sha256_bytes
from mnemoforge.schemas.theme import VoiceSpec
from mnemoforge.store import atomic


def take_key(voice: VoiceSpec, text: str) -> str:
    """What a take depends on: the whole voice spec (engine included) and the text."""
    return sha256_bytes(canonical_json({"voice": voice.model_dump(mode="json"), "text": text}).encode())


def speech_cache(run_root: Path) -> Path:
    return run_root / "cache" / "speech"


def _place(src: Path, dest: Path) -> None:
    """``dest`` becomes the same bytes as ``src``, atomically (hard link, else a copy)."""
    with atomic.atomic_path(dest) as tmp:
        tmp.unlink()  # atomic_path made it; the link takes its name
        try:
            os.link(src, tmp)
        except OSError:  # a file system without hard links
            tmp.write_bytes(src.read_bytes())


def speak(speech: SpeechBackends, voice: VoiceSpec, text: str, wav: Path, cache: Path) -> None:
    """Write the take of ``text`` in ``voice`` to ``wav``: reused from ``cache`` when already made.
    Only engines whose takes depend on (voice, text) alone (``deterministic_takes``) reuse: for the
    others, which take a line got would depend on which worker spoke first."""
    backend = speech[voice.engine]
    if not getattr(backend, "deterministic_takes", False):
        backend.synthesize(text, voice, wav)
        return
    kept = cache / f"{take_key(voice, text)}.wav"
    if kept.exists():
        _place(kept, wav)
        return
    backend.synthesize(text, voice, wav)
    if not kept.exists():
        _place(wav, kept)
