"""Live progress of long stages: a process-wide event bus, and a rich display that listens to it.

Stages report counts where the work happens (render, gates, freeze, evaluation), without knowing
who is watching::

    tick = progress.counter("gates", total=len(gates) * len(items))
    for item in tick.each(items, detail=gate.name):
        ...

``BuildDisplay`` (used by the command line) turns these events, and the stage start/finish
callbacks of ``pipeline.build`` and the Prefect flow, into ``rich.progress`` bars with counts,
elapsed time and a time estimate. Events are delivered in the process that emits them: under
Prefect's thread runner that is the command's own process, so per-item counts show; under
process or Dask runners the flow still reports each stage and each finished render shard.
Nothing listens by default, so the bus costs a lock and a list lookup per event.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

STAGE_TITLES = {
    "plan": "plan the world",
    "episodes": "episodes",
    "render": "render media",
    "questions": "questions",
    "gates": "quality gates",
    "freeze": "freeze release",
    "evaluate": "evaluate",
    "export": "export",
    "verify": "verify release",
}


@dataclass(frozen=True)
class Event:
    """``kind`` is ``start`` (a stage begins), ``advance`` (``done`` of ``total`` finished) or
    ``end`` (finished; ``state`` says how: ``ran``, ``cached``, ``failed``)."""

    stage: str
    kind: str
    done: int | None = None
    total: int | None = None
    detail: str | None = None
    state: str | None = None


Listener = Callable[[Event], None]
_LISTENERS: list[Listener] = []
_LOCK = threading.Lock()


def emit(event: Event) -> None:
    """Deliver ``event`` to every listener in this process; a listener's error never stops work."""
    with _LOCK:
        listeners = list(_LISTENERS)
    for fn in listeners:
        try:
            fn(event)
        except Exception:  # noqa: BLE001 - display problems must not fail a build
            pass


@contextmanager
def listening(listener: Listener) -> Iterator[Listener]:
    """Receive every event emitted in this process while the block runs."""
    with _LOCK:
        _LISTENERS.append(listener)
    try:
        yield listener
    finally:
        with _LOCK:
            _LISTENERS.remove(listener)


def start(stage: str, total: int | None = None, detail: str | None = None) -> None:
    emit(Event(stage, "start", 0, total, detail))


def advance(stage: str, done: int, total: int | None, detail: str | None = None) -> None:
    emit(Event(stage, "advance", done, total, detail))


def end(stage: str, state: str = "ran") -> None:
    emit(Event(stage, "end", state=state))


class Counter:
    """Counts finished units of one stage and reports each one (thread-safe)."""

    def __init__(self, stage: str, total: int | None) -> None:
        self.stage, self.total, self.done = stage, total, 0
        self._lock = threading.Lock()
        advance(stage, 0, total)

    def step(self, n: int = 1, detail: str | None = None) -> None:
        with self._lock:
            self.done += n
            done = self.done
        advance(self.stage, done, self.total, detail)

    def each(self, items: Iterable[T], detail: str | None = None) -> Iterator[T]:
        """Yield ``items``, counting each one once the caller is done with it."""
        for item in items:
            yield item
            self.step(1, detail)


def counter(stage: str, total: int | None) -> Counter:
    return Counter(stage, total)


def track(items: Iterable[T], stage: str, total: int | None = None, detail: str | None = None) -> Iterator[T]:
    """``for x in track(xs, "evaluate"): ...`` reports ``evaluate`` as ``k/len(xs)``."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    return counter(stage, total).each(items, detail)


def parse_count(event: str) -> tuple[int, int] | None:
    """``"3/10"``, ``"3/10 clips"`` -> ``(3, 10)`` (the pipeline's text progress callback)."""
    head = event.split(" ", 1)[0]
    done, sep, total = head.partition("/")
    if sep and done.isdigit() and total.isdigit():
        return int(done), int(total)
    return None


@dataclass
class StageTiming:
    stage: str
    state: str = "running"
    started: float = 0.0
    seconds: float = 0.0
    done: int | None = None
    total: int | None = None


class BuildDisplay:
    """``rich.progress`` bars for a build (one per stage), fed by the bus and stage callbacks.

    Use as a context manager; ``callback`` is what ``pipeline.build`` and ``build_flow`` take as
    ``progress``. With ``enabled=False`` nothing is drawn but timings are still recorded.
    """

    def __init__(self, console: object | None = None, enabled: bool = True) -> None:
        self.console, self.enabled = console, enabled
        self.timings: dict[str, StageTiming] = {}
        self._tasks: dict[str, int] = {}
        self._lock = threading.Lock()
        self._progress = None
        self._listen = None

    def __enter__(self) -> BuildDisplay:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                SpinnerColumn(finished_text="[green]✓[/]"),
                TextColumn("[bold]{task.description:<16}"),
                BarColumn(bar_width=30),
                MofNCompleteColumn(),
                TextColumn("elapsed"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[detail]}", style="dim"),
                console=self.console,  # type: ignore[arg-type]
                transient=False,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._progress.start()
        self._listen = listening(self.on_event)
        self._listen.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._listen is not None
        self._listen.__exit__(*exc)
        failed = exc[0] is not None
        with self._lock:
            for t in self.timings.values():
                if t.state == "running":
                    self._finish(t, "failed" if failed else "ran")
        if self._progress is not None:
            self._progress.stop()

    # -- inputs ------------------------------------------------------------------------------

    def callback(self, stage: str, event: str) -> None:
        """The pipeline's ``progress(stage, event)``: ``start``, ``ran``/``cached`` (or Prefect's
        ``Completed``/``Cached``), or a count such as ``3/10`` / ``2/4 shards``."""
        low = event.lower()
        if low == "start":
            self.on_event(Event(stage, "start"))
        elif low in ("ran", "completed", "cached", "failed", "crashed"):
            state = {"completed": "ran", "crashed": "failed"}.get(low, low)
            self.on_event(Event(stage, "end", state=state))
        elif (count := parse_count(event)) is not None:
            unit = event.split(" ", 1)[1] if " " in event else None
            self.on_event(Event(stage, "advance", count[0], count[1], unit))

    def on_event(self, ev: Event) -> None:
        with self._lock:
            t = self.timings.get(ev.stage)
            if ev.kind == "start" or t is None or t.state != "running":
                if ev.kind == "end" and t is not None and t.state != "running":
                    return  # a late duplicate
                t = self._begin(ev.stage)
            if ev.kind == "advance":
                t.done, t.total = ev.done, ev.total if ev.total is not None else t.total
                self._update(t, ev.detail)
            elif ev.kind == "end":
                self._finish(t, ev.state or "ran")

    # -- drawing -----------------------------------------------------------------------------

    def _begin(self, stage: str) -> StageTiming:
        t = StageTiming(stage, started=time.perf_counter())
        self.timings[stage] = t
        if self._progress is not None:
            title = STAGE_TITLES.get(stage, stage)
            if stage in self._tasks:
                self._progress.reset(self._tasks[stage], total=None, description=title, detail="")
            else:
                self._tasks[stage] = self._progress.add_task(title, total=None, detail="")
        return t

    def _update(self, t: StageTiming, detail: str | None) -> None:
        if self._progress is not None:
            fields = {"detail": detail} if detail else {}
            self._progress.update(self._tasks[t.stage], completed=t.done or 0, total=t.total, **fields)

    def _finish(self, t: StageTiming, state: str) -> None:
        t.state, t.seconds = state, time.perf_counter() - t.started
        if self._progress is not None:
            task = self._tasks[t.stage]
            total = t.total if t.total else 1
            done = total if state in ("ran", "cached") else (t.done or 0)
            self._progress.update(task, total=total, completed=done, detail=state)
            self._progress.stop_task(task)
