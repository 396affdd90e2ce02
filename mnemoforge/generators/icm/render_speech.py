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

import inspect
import os
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

from mnemoforge.backends.registry import SpeechBackends
from mnemoforge.hashing import canonical_json, sha256_bytes, source_hash
from mnemoforge.schemas.theme import VoiceSpec
from mnemoforge.store import atomic
from mnemoforge.store.code_deps import reachable_sources


@cache
def engine_fingerprint(backend_type: type) -> str:
    """The engine's code (its module and the generation code it imports) and the versions of the
    distributions it names (``take_distributions``): a take kept by a run made before an edit or an
    upgrade is not reused after it, so a resumed render gives the bytes a fresh one would."""
    module = sys.modules[backend_type.__module__]
    files = [Path(str(inspect.getsourcefile(module))), *reachable_sources(module)]
    versions = {}
    for dist in getattr(backend_type, "take_distributions", ()):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return sha256_bytes(canonical_json({"code": source_hash(*files), "versions": versions}).encode())


def take_key(voice: VoiceSpec, text: str, engine: str = "") -> str:
    """What a take depends on: the whole voice spec (engine included), the text and the engine's
    fingerprint (:func:`engine_fingerprint`)."""
    doc = {"voice": voice.model_dump(mode="json"), "text": text, "engine": engine}
    return sha256_bytes(canonical_json(doc).encode())


def speech_cache(run_root: Path) -> Path:
    return run_root / "cache" / "speech"


def _place(src: Path, dest: Path) -> None:
    """``dest`` becomes the same bytes as ``src``, atomically: a hard link renamed into place (the
    bytes are ``src``'s, already on disk: no second flush), else an atomic copy."""
    tmp = atomic.tmp_path_for(dest)
    try:
        tmp.unlink()  # the link takes the temp file's unique name
        os.link(src, tmp)
        os.replace(tmp, dest)
    except OSError:  # a file system without hard links
        atomic.write_bytes(dest, src.read_bytes())
    finally:
        tmp.unlink(missing_ok=True)


def speak(speech: SpeechBackends, voice: VoiceSpec, text: str, wav: Path, cache: Path) -> None:
    """Write the take of ``text`` in ``voice`` to ``wav``: reused from ``cache`` when already made.
    Only engines whose takes depend on (voice, text) alone (``deterministic_takes``) reuse: for the
    others, which take a line got would depend on which worker spoke first."""
    backend = speech[voice.engine]
    if not getattr(backend, "deterministic_takes", False):
        backend.synthesize(text, voice, wav)
        return
    kept = cache / f"{take_key(voice, text, engine_fingerprint(type(backend)))}.wav"
    if kept.exists():
        _place(kept, wav)
        return
    backend.synthesize(text, voice, wav)
    if not kept.exists():
        _place(wav, kept)
