"""The answerer and judge contracts: what an answerer sees, what it returns, how a reply is scored.

An answerer never returns ``None`` and never raises on a bad model reply: it returns an
``Answer`` with ``ok=False``, the ``error`` and the ``raw`` output, so gates can count it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import Protocol, runtime_checkable

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

LETTERS = "ABCDEFGHIJ"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


class MissingExtra(RuntimeError):
    """An optional dependency (a pyproject extra) is not installed; the message names the extra."""


@dataclass(frozen=True)
class ContextItem:
    """One observation as an answerer sees it: text, images, and what was said."""

    observation_id: str
    text: str
    image_paths: tuple[Path, ...] = ()
    transcript: str | None = None

    def full_text(self) -> str:
        """Text plus the transcript when the transcript adds something."""
        if self.transcript and self.transcript not in self.text:
            return f"{self.text} {self.transcript}".strip()
        return self.text


@dataclass(frozen=True)
class Context:
    """What an answerer may use. ``world``/``observations``/``question`` serve the symbolic answerer."""

    items: tuple[ContextItem, ...] = ()
    world: World | None = None
    observations: tuple[Observation, ...] = ()
    question: Question | None = None
    parent: Context | None = field(default=None, compare=False, repr=False)
    """For a context :meth:`without` some item, the context it was masked from (the symbolic
    answerer derives the masked facts from the parent's instead of gathering them again)."""

    @functools.cached_property
    def ids(self) -> tuple[str, ...]:
        """The items' observation ids (kept: asked per panel member and per mask)."""
        return tuple(i.observation_id for i in self.items)

    @functools.cached_property
    def observation_ids(self) -> tuple[str, ...]:
        """The observations' ids, in order (kept)."""
        return tuple(o.id for o in self.observations)

    def without(self, observation_id: str) -> Context:
        """The same context with one item (and its observation) removed."""
        items = [i != observation_id for i in self.ids]
        obs = [i != observation_id for i in self.observation_ids]
        out = Context(
            tuple(compress(self.items, items)),
            self.world,
            tuple(compress(self.observations, obs)),
            self.question,
            self,
        )
        out.__dict__["ids"] = tuple(compress(self.ids, items))  # the cached ids, already known
        out.__dict__["observation_ids"] = tuple(compress(self.observation_ids, obs))
        return out

    @classmethod
    def from_observations(
        cls,
        observations: Iterable[Observation],
        *,
        world: World | None = None,
        question: Question | None = None,
        media_root: Path | None = None,
        texts: Mapping[str, str] | None = None,
    ) -> Context:
        """Build a context from observations; ``texts`` overrides an item's text (e.g. a caption).

        Speech observations carry their content as the transcript; image media become
        ``image_paths`` (resolved against ``media_root`` when given).
        """
        obs = tuple(observations)
        items = []
        for o in obs:
            text = (texts or {}).get(o.id, o.content)
            images = image_paths(media_root, tuple(o.media))
            transcript = o.content if o.kind == "speech" and o.content else None
            items.append(ContextItem(o.id, text, images, transcript))
        return cls(tuple(items), world, obs, question)


@functools.lru_cache(maxsize=1 << 15)
def image_paths(media_root: Path | None, media: tuple[str, ...]) -> tuple[Path, ...]:
    """The image files among ``media``, resolved against ``media_root`` when given (kept per
    observation: the gates build a context of the same evidence for every item and gate)."""
    return tuple(
        (media_root / m) if media_root else Path(m) for m in media if m.lower().endswith(IMAGE_SUFFIXES)
    )


@dataclass(frozen=True)
class Answer:
    """One answerer's reply. ``choice`` is the option letter for MCQ, else None."""

    text: str
    choice: str | None
    raw: str
    ok: bool
    error: str | None
    answerer_id: str
    # set when no answer came back at all (the call failed, the answerer raised), as opposed to
    # a reply that was malformed or wrong: such an item is undecided, not answered wrongly
    call_failure: str | None = None
    attempts: int = 0

    @classmethod
    def failed(
        cls,
        answerer_id: str,
        error: str,
        raw: str = "",
        *,
        call_failure: str | None = None,
        attempts: int = 0,
    ) -> Answer:
        return cls("", None, raw, False, error, answerer_id, call_failure, attempts)

    @classmethod
    def mcq(cls, answerer_id: str, options: Sequence[str], index: int, raw: str) -> Answer:
        return cls(options[index], LETTERS[index], raw, True, None, answerer_id)


@runtime_checkable
class Answerer(Protocol):
    """Answers a question (optionally multiple choice) from a context."""

    id: str

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer: ...


@dataclass(frozen=True)
class JudgeScore:
    """A judge's score in [0, 1]; ``ok=False`` marks a malformed or failed judge reply."""

    score: float
    reason: str
    raw: str = ""
    ok: bool = True
    extra: dict[str, float] = field(default_factory=dict)


@runtime_checkable
class Judge(Protocol):
    """Scores a free-form response against a reference answer."""

    id: str

    def score(self, question: str, reference: str, response: str) -> JudgeScore: ...


def letter_index(letter: str | None, n_options: int) -> int | None:
    """Index of an option letter, or None when it is not one of the first ``n_options`` letters."""
    if letter is None or len(letter) != 1 or letter.upper() not in LETTERS[:n_options]:
        return None
    return LETTERS.index(letter.upper())
