"""Dialogue for the album: wordings drawn from line banks with typed slots (filled through the
English layer, ``mnemoforge/english``), a cap on how often one line text recurs in a release, and
a speech-length estimate used to size shots.

A wording is skipped when its speech cannot fit the longest shot (``fits``), and when it says how
often something happens while a slot value says so too ("Every week {name} {habit}." with "digs a
snow pit every morning")."""

from __future__ import annotations

import random
import string
from collections import Counter
from collections.abc import Callable
from functools import cache

from mnemoforge import yaml_io
from mnemoforge.english import fill, has_frequency
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.names import speech_text
from mnemoforge.schemas.icm_rules import LineBank, template_slots
from mnemoforge.schemas.theme import ActivitySpec, Theme
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import ASSETS

LINE_BANKS_FILE = ASSETS / "lexicon" / "line_banks.yaml"

# espeak-ng measured on the shipped voices: seconds ~ lead + k * chars * 10 / rate (words/min),
# with margin (a 58-character line at rate 125 speaks in 5.9 s; the estimate says 6.4 s)
EST_LEAD_S = 0.8
EST_PER_CHAR = 12.0


def estimate_seconds(text: str, rate: int) -> float:
    """A conservative estimate of how long ``text`` takes to say at ``rate`` words per minute."""
    return EST_LEAD_S + EST_PER_CHAR * len(text) / rate


def line_seconds(world: World, speaker: str, text: str) -> float:
    """The estimate for ``text`` as the speaker's voice is given it (names in their spoken forms,
    other scripts transliterated: ``names.speech_text``)."""
    return estimate_seconds(speech_text(text, world.people), world.person(speaker).voice.rate)


def says_frequency_twice(template: str, slots: dict[str, str]) -> bool:
    """The wording says how often (outside its slots) and a slot value it uses says so too."""
    need = template_slots(template)
    own = "".join(lit for lit, *_ in string.Formatter().parse(template))
    return has_frequency(own) and any(has_frequency(slots[k]) for k in need if k in slots)


@cache
def generic_lines() -> tuple[LineBank, tuple[str, ...]]:
    """The generic wordings used where a theme gives none (``assets/lexicon/line_banks.yaml``):
    a line bank, and the fallback wordings of a choice key with none of its own."""
    data = yaml_io.safe_load(LINE_BANKS_FILE.read_text(encoding="utf-8"))
    choice = tuple(data.pop("choice"))
    return LineBank.model_validate(data), choice


class Dialogue:
    """Picks line wordings for one album, counting every text it hands out."""

    def __init__(
        self,
        theme: Theme,
        lines_ok: LineFilter | None = None,
        fits: Callable[[str, str], bool] | None = None,
    ) -> None:
        self.lines_ok = lines_ok  # coherence rules of a line and its speaker (counted rejections)
        self.fits = fits  # (speaker, text): whether the speaker can say the text in the longest shot
        self.max_repeats = theme.album.max_line_repeats
        self.density = theme.album.talk_density  # scales how often habits and relations are mentioned
        self.used: Counter[str] = Counter()
        self.mentioned: Counter[str] = Counter()  # habit / relation facts stated so far
        base = generic_lines()[0].merged(theme.album.dialogue)
        self.banks = {a.id: base.merged(a.bank()) for a in theme.activities}

    def bank(self, act: ActivitySpec) -> LineBank:
        return self.banks[act.id]

    def templates(self, act: ActivitySpec, function: str, key: str | None = None) -> list[str]:
        bank = self.banks[act.id]
        if function == "choice":
            return list(bank.choice.get(key or "", [])) or list(generic_lines()[1])
        return list(getattr(bank, function))

    def pick(
        self,
        act: ActivitySpec,
        function: str,
        slots: dict[str, str],
        rng: random.Random,
        *,
        key: str | None = None,
        required: bool = False,
        speaker: str | None = None,
        self_intro: bool = False,
    ) -> tuple[str, str] | None:
        """A (template, text) whose slots are all filled and whose text is under the repeat cap.

        A template needing a slot not in ``slots`` (no object brought, nobody else there) is
        skipped, never filled with a stand-in; so is one saying how often twice, and one the album's
        ``fits`` refuses for ``speaker`` (too long to say in the longest shot). ``required`` lines (they carry
        facts) fall back to the least-used wording when every one is at the cap; others are
        dropped (``None``). With a ``speaker`` and the album's line filter, a wording breaking a
        coherence rule is never picked (``self_intro``: the slot ``name`` is the speaker's own, as
        in small talk).
        """
        options = []
        for tpl in self.templates(act, function, key):
            need = template_slots(tpl)
            if need <= set(slots) and not says_frequency_twice(tpl, slots):
                options.append((tpl, fill(tpl, {k: slots[k] for k in need})))
        if self.fits is not None and speaker is not None:
            options = [o for o in options if self.fits(speaker, o[1])]
        if self.lines_ok is not None and speaker is not None:  # never a line naming its own speaker...
            options = [o for o in options if self.lines_ok.ok(speaker, o[1], self_intro=self_intro)]
        if not options:
            return None
        rng.shuffle(options)
        fresh = [o for o in options if self.used[o[1]] < self.max_repeats]
        if fresh:
            choice = min(fresh, key=lambda o: self.used[o[1]])
        elif required:
            choice = min(options, key=lambda o: self.used[o[1]])
        else:
            return None
        self.used[choice[1]] += 1
        return choice
