"""Offline speech through libespeak-ng (the copy shipped by the ``espeakng-loader`` package).

The library is driven via ctypes in ``AUDIO_OUTPUT_SYNCHRONOUS`` mode with a synth callback
that collects the samples.

Determinism: libespeak-ng's wave generator keeps hidden static state between utterances
(pitch-flutter phase, gain control, glottal cycle counter) that no API call resets, so the
same text spoken twice in a row differs slightly. Each utterance therefore runs in a freshly
loaded instance: a private copy of the shared library (made once per process) is
``dlopen``-ed, initialised, used and ``dlclose``-d, with the noise generator seeded to 0.
That costs a few milliseconds and makes the output depend only on (text, voice). The private
copy also keeps our state apart from any other user of the library in the process.

Thread safety: all library access happens under one process-wide lock; a forked child
process gets a fresh lock and its own private copy.

``VoiceSpec.semitones`` shifts pitch *and* formants by resampling (as a smaller or larger
vocal tract would); the espeak rate is pre-scaled so the speaking tempo stays near ``rate``.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from mnemoforge.backends.speech.protocol import SpeechResult, resample_speed, write_wav_atomic
from mnemoforge.schemas.theme import VoiceSpec

# speak_lib.h constants
AUDIO_OUTPUT_SYNCHRONOUS = 2
ESPEAK_INITIALIZE_DONT_EXIT = 0x8000
POS_CHARACTER = 1
ESPEAK_CHARS_UTF8 = 1
ESPEAK_ENDPAUSE = 0x1000
EE_OK = 0
ESPEAK_RATE, ESPEAK_VOLUME, ESPEAK_PITCH, ESPEAK_RANGE, ESPEAK_WORDGAP = 1, 2, 3, 4, 7

MIN_RATE, MAX_RATE = 80, 450

_SYNTH_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p
)


class EspeakError(RuntimeError):
    """libespeak-ng could not be loaded or refused a request."""


def _loader_paths() -> tuple[str, str]:
    try:
        import espeakng_loader
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise EspeakError("the 'espeakng-loader' package is required for EspeakBackend") from exc
    return espeakng_loader.get_library_path(), espeakng_loader.get_data_path()


@lru_cache(maxsize=1)
def espeak_data_path() -> Path:
    """Folder of the espeak-ng data (voices, dictionaries) shipped by ``espeakng-loader``."""
    return Path(_loader_paths()[1])


@lru_cache(maxsize=1)
def available_variants() -> tuple[str, ...]:
    """Names usable as ``VoiceSpec.variant`` (files in ``espeak-ng-data/voices/!v``)."""
    vdir = espeak_data_path() / "voices" / "!v"
    return tuple(sorted(p.name for p in vdir.iterdir() if p.is_file()))


@lru_cache(maxsize=1)
def available_languages() -> tuple[str, ...]:
    """Lower-cased names usable as ``VoiceSpec.voice`` (files in ``espeak-ng-data/lang``)."""
    ldir = espeak_data_path() / "lang"
    return tuple(sorted({p.name.lower() for p in ldir.rglob("*") if p.is_file()}))


def _bind(lib: ctypes.CDLL) -> None:
    """Declare the C signatures used here."""
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_SetSynthCallback.restype = None
    lib.espeak_SetSynthCallback.argtypes = [_SYNTH_CALLBACK]
    lib.espeak_SetVoiceByName.restype = ctypes.c_int
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetParameter.restype = ctypes.c_int
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_Synth.restype = ctypes.c_int
    lib.espeak_Synth.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_uint,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    lib.espeak_Synchronize.restype = ctypes.c_int
    lib.espeak_Terminate.restype = ctypes.c_int


TMP_PREFIX = "mnemoforge-espeak-"  # + owner pid + "-": the folder of a dead owner is swept


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def sweep_stale_tmpdirs(root: str | None = None) -> list[str]:
    """Remove ``mnemoforge-espeak-<pid>-*`` folders whose owner process is gone (killed builds);
    folders of live processes and old-style names without a pid are left alone."""
    root = root or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(TMP_PREFIX):
            continue
        pid = name[len(TMP_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            removed.append(name)
    return removed


class _Engine:
    """Loads a private copy of libespeak-ng afresh for every utterance (hold ``_LOCK``)."""

    def __init__(self) -> None:
        self._src, data = _loader_paths()
        sweep_stale_tmpdirs()  # what killed processes left (atexit never ran there)
        owner = os.getpid()
        self._tmpdir = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{owner}-")
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(self._tmpdir, True))
        self._lib_path = os.path.join(self._tmpdir, "libespeak-ng-mnemoforge.so")
        shutil.copyfile(self._src, self._lib_path)
        self._data = data.encode()
        self._chunks: list[np.ndarray] = []
        self._callback = _SYNTH_CALLBACK(self._on_samples)  # must outlive every C call
        self.sample_rate = 0
        self.synth("a", "en-us", 165, 50, 50)  # probe: load once, learn the sample rate

    def _on_samples(self, wav: ctypes.POINTER(ctypes.c_short), n: int, _events: int) -> int:
        if wav and n > 0:
            self._chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).copy())
        return 0  # 0 = continue

    def _open(self) -> ctypes.CDLL:
        mode = getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 0)
        if not os.path.exists(self._lib_path):  # e.g. a temp-dir cleaner removed it
            os.makedirs(self._tmpdir, exist_ok=True)
            shutil.copyfile(self._src, self._lib_path)
        try:
            lib = ctypes.CDLL(self._lib_path, mode=mode)
        except OSError as exc:
            raise EspeakError(f"cannot load libespeak-ng: {exc}") from exc
        _bind(lib)
        return lib

    @staticmethod
    def _close(lib: ctypes.CDLL) -> None:
        try:
            from _ctypes import dlclose  # CPython on POSIX
        except ImportError:  # pragma: no cover - non-POSIX: instance stays loaded (less determinism)
            return
        dlclose(lib._handle)

    def synth(self, text: str, voice_name: str, rate: int, pitch: int, pitch_range: int) -> np.ndarray:
        """Speak ``text`` in a fresh library instance; int16 samples at ``self.sample_rate``."""
        lib = self._open()
        try:
            sr = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, self._data, ESPEAK_INITIALIZE_DONT_EXIT)
            if sr <= 0:
                raise EspeakError(f"espeak_Initialize failed ({sr})")
            self.sample_rate = int(sr)
            try:
                lib.espeak_SetSynthCallback(self._callback)
                self._speak(lib, text, voice_name, rate, pitch, pitch_range)
                chunks, self._chunks = self._chunks, []
            finally:
                self._chunks = []
                lib.espeak_Terminate()
        finally:
            self._close(lib)
        if not chunks:
            return np.zeros(0, dtype=np.int16)
        return np.concatenate(chunks).astype(np.int16, copy=False)

    @staticmethod
    def _speak(lib: ctypes.CDLL, text: str, voice_name: str, rate: int, pitch: int, rng: int) -> None:
        def check(code: int, what: str) -> None:
            if code != EE_OK:
                raise EspeakError(f"{what} failed with espeak error {code}")

        check(lib.espeak_SetVoiceByName(voice_name.encode()), f"set voice {voice_name!r}")
        check(lib.espeak_SetParameter(ESPEAK_RATE, rate, 0), "set rate")
        check(lib.espeak_SetParameter(ESPEAK_PITCH, pitch, 0), "set pitch")
        check(lib.espeak_SetParameter(ESPEAK_RANGE, rng, 0), "set range")
        check(lib.espeak_SetParameter(ESPEAK_VOLUME, 100, 0), "set volume")
        check(lib.espeak_SetParameter(ESPEAK_WORDGAP, 0, 0), "set word gap")
        seed = getattr(lib, "espeak_ng_SetRandSeed", None)
        if seed is not None:
            seed.restype = None
            seed.argtypes = [ctypes.c_long]
            seed(0)
        buf = ctypes.create_string_buffer(text.encode("utf-8"))
        flags = ESPEAK_CHARS_UTF8 | ESPEAK_ENDPAUSE
        check(lib.espeak_Synth(buf, len(buf), 0, POS_CHARACTER, 0, flags, None, None), "espeak_Synth")
        lib.espeak_Synchronize()


_LOCK = threading.Lock()
_ENGINE: _Engine | None = None


def _reset_after_fork() -> None:
    """A forked child gets a fresh lock and its own engine (never one held mid-call)."""
    global _LOCK, _ENGINE
    _LOCK = threading.Lock()
    _ENGINE = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _engine() -> _Engine:
    """The shared engine, created on first use; caller must hold ``_LOCK``."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = _Engine()
    return _ENGINE


def espeak_voice_name(voice: VoiceSpec) -> str:
    """espeak voice identifier, e.g. ``en-us+f3`` for voice ``en-us`` and variant ``f3``."""
    return f"{voice.voice}+{voice.variant}" if voice.variant else voice.voice


def semitone_factor(semitones: float) -> float:
    """Frequency ratio of a shift by ``semitones``."""
    return float(2.0 ** (semitones / 12.0))


class EspeakBackend:
    """Thread-safe, deterministic ``SpeechBackend`` over libespeak-ng (the offline default)."""

    engine_name = "espeak"
    deterministic_takes = True  # a take depends on (text, voice) only: renders may reuse it
    take_distributions = ("espeakng-loader",)  # the library and voice data a take comes from

    @property
    def sample_rate(self) -> int:
        """Output sample rate in Hz (that of libespeak-ng, normally 22050)."""
        with _LOCK:
            return _engine().sample_rate

    def render(self, text: str, voice: VoiceSpec) -> tuple[np.ndarray, int]:
        """Synthesize to memory: (int16 mono samples, sample_rate); no file written."""
        if not text.strip():
            raise ValueError("cannot synthesize empty text")
        if voice.variant and voice.variant not in available_variants():
            raise ValueError(f"unknown espeak variant {voice.variant!r}; see available_variants()")
        factor = semitone_factor(voice.semitones)
        # Resampling by `factor` speeds speech up by `factor`; pre-scale the rate to compensate.
        rate = int(round(min(MAX_RATE, max(MIN_RATE, voice.rate / factor))))
        with _LOCK:
            eng = _engine()
            samples = eng.synth(text, espeak_voice_name(voice), rate, voice.pitch, voice.pitch_range)
            sr = eng.sample_rate
        if abs(factor - 1.0) > 1e-9 and samples.size:
            shifted = resample_speed(samples.astype(np.float64), factor)
            samples = np.clip(np.round(shifted), -32768, 32767).astype(np.int16)
        return samples, sr

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        """Speak ``text`` in ``voice`` into ``out_wav`` (mono int16 WAV, written atomically)."""
        if voice.engine != "espeak":
            raise ValueError(f"EspeakBackend got a voice for engine {voice.engine!r}")
        samples, sr = self.render(text, voice)
        if samples.size == 0:
            raise EspeakError(f"espeak produced no audio for {text!r}")
        path = write_wav_atomic(Path(out_wav), samples, sr)
        return SpeechResult(path=path, duration_s=samples.size / sr, sample_rate=sr, samples=samples)
