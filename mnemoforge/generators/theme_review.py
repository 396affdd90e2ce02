"""A dry run of a family's build stages in memory, for ``Family.check_theme``: what would stop a
build (problems) and what would make it short (warnings), without writing anything.

A problem is ``"field.path: what is wrong (what to write instead)"``; an exception a stage raises
becomes one problem line instead of a traceback. Warnings are the shortfall lines the stages log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from mnemoforge.hashing import content_hash


@dataclass
class Review:
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


_CACHE: dict[str, Review] = {}


def dry_run(key: object, stages: Callable[[Review], None], logger: str) -> Review:
    """Run ``stages`` (which append problems) collecting ``logger`` warnings; an exception is a
    problem line. Cached per ``key`` (the theme's content), so check and warnings share one run."""
    k = content_hash("theme-review", key)
    if k in _CACHE:
        return _CACHE[k]
    review = Review()
    handler = _Collect()
    log = logging.getLogger(logger)
    log.addHandler(handler)
    try:
        stages(review)
    except Exception as e:  # noqa: BLE001  (any failure of a stage is one problem line, never a traceback)
        msg = str(e) or type(e).__name__
        path, sep, _ = msg.partition(":")
        where = "" if sep and "." in path and " " not in path.strip() else "build: "
        review.problems.append(f"{where}{msg} ({type(e).__name__} in a dry run of the build)")
    finally:
        log.removeHandler(handler)
    review.warnings = list(dict.fromkeys(handler.lines))
    if len(_CACHE) > 32:
        _CACHE.clear()
    _CACHE[k] = review
    return review
