"""The render stage's voice check: can each line's speaker be told from the calibration speech?

Feature extraction (numpy FFTs) is the costly part; it runs in a process pool when the build has
workers, each with single-threaded BLAS (threaded BLAS on a busy 2-core machine spins and is
several times slower). Results are combined in input order, so the report does not depend on
the number of workers.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import random
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from mnemoforge.backends.speech.voicecheck import Mapper, voice_distinguishability
from mnemoforge.hashing import sha256_file
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.episodes import Clip
from mnemoforge.store.layout import RunLayout

VOICE_CHECK_MAX_LINES = 600
MIN_POOL_WAVS = 200  # fewer WAVs are analysed in-process (starting a pool costs more)


@contextlib.contextmanager
def single_thread_blas() -> Iterator[None]:
    """Limit BLAS/OpenMP pools to one thread meanwhile (no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(limits=1):
        yield


_LIMIT: list[object] = []


def limit_blas_in_worker() -> None:
    """Process-pool initializer: single-threaded BLAS for the life of the worker."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        return
    _LIMIT.append(threadpool_limits(limits=1))  # kept for the life of the worker


def voice_check(
    run: RunLayout,
    clips: list[Clip],
    seed: int = 0,
    max_lines: int = VOICE_CHECK_MAX_LINES,
    workers: int = 1,
    pool: ProcessPoolExecutor | None = None,
) -> dict:
    """Train on each person's calibration line(s), identify the speaker of other lines.

    ``pool`` (or, without one, ``workers`` > 1 fresh processes) extracts the features; the report
    is the same either way. Large albums test a seeded sample of at most ``max_lines`` lines,
    spread evenly over speakers (a binomial estimate from 600 lines has a standard error under 1
    point near 95 %).
    """
    train: dict[str, list[Path]] = {}
    by_speaker: dict[str, list[Path]] = {}
    for clip in clips:
        for shot in clip.shots:
            for line in shot.dialogue:
                wav = run.media / "speech" / f"{line.id}.wav"
                target = train if clip.calibration else by_speaker
                target.setdefault(line.speaker, []).append(wav)
    total = sum(len(v) for v in by_speaker.values())
    if not total:
        return {"accuracy": None, "n_test": 0, "reason": "no non-calibration lines"}
    test = stratified_sample(by_speaker, max_lines, derive_rng(seed, "voice-check"))
    n_wavs = len(test) + sum(len(v) for v in train.values())
    chunk = max(1, n_wavs // (max(1, workers) * 8))
    with single_thread_blas():
        if pool is not None:  # the render stage's own workers (already started)
            report = voice_distinguishability(
                train, test, once_per_take(lambda f, xs: pool.map(f, xs, chunksize=chunk))
            )
        elif workers > 1 and n_wavs >= MIN_POOL_WAVS and not mp.current_process().daemon:
            # (a daemonic process, e.g. a task runner's worker, may not start children)
            ctx = mp.get_context("spawn")
            with ProcessPoolExecutor(workers, mp_context=ctx, initializer=limit_blas_in_worker) as own:
                report = voice_distinguishability(
                    train, test, once_per_take(lambda f, xs: own.map(f, xs, chunksize=chunk))
                )
        else:
            report = voice_distinguishability(train, test, once_per_take(map))
    report = report.to_dict()
    report["n_lines"] = total
    report["sampled"] = len(test) < total
    return _relative_paths(report, run.root)


def once_per_take(map_fn: Mapper) -> Mapper:
    """``map_fn`` over the distinct files of its input only (by content), results in input order:
    lines that reuse one take (``render_speech``) are analysed once; features are a function of
    the bytes, so the report is the same."""

    def mapped(f: Callable[[Path], object], paths: Iterable[Path]) -> Iterator:
        paths = list(paths)
        keys = [sha256_file(p) for p in paths]
        first: dict[str, int] = {}  # content -> index in ``distinct``
        distinct: list[Path] = []
        for p, k in zip(paths, keys, strict=True):
            if k not in first:
                first[k] = len(distinct)
                distinct.append(p)
        got = list(map_fn(f, distinct))
        return iter([got[first[k]] for k in keys])

    return mapped


def stratified_sample(
    by_speaker: dict[str, list[Path]], k: int, rng: random.Random
) -> list[tuple[str, Path]]:
    """Up to ``k`` (speaker, line) pairs, an equal share per speaker where they have enough lines."""
    people = sorted(by_speaker)
    quota = {p: 0 for p in people}
    left = min(k, sum(len(v) for v in by_speaker.values()))
    while left:
        for p in people:
            if left and quota[p] < len(by_speaker[p]):
                quota[p] += 1
                left -= 1
    picked = []
    for p in people:
        lines = by_speaker[p]
        idx = sorted(rng.sample(range(len(lines)), quota[p])) if quota[p] < len(lines) else range(len(lines))
        picked += [(p, lines[i]) for i in idx]
    return picked


def _relative_paths(obj: object, root: Path) -> object:
    """Run-relative paths in reports, so releases do not depend on where the run folder lives."""
    prefix = str(root) + "/"
    if isinstance(obj, dict):
        return {k: _relative_paths(v, root) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_relative_paths(v, root) for v in obj]
    return obj[len(prefix) :] if isinstance(obj, str) and obj.startswith(prefix) else obj
