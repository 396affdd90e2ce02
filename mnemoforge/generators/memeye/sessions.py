"""Multi-session user–assistant dialogues in which the user shares pictures of recurring scenes.

One observation per round (``s03_r02``): the user's turn, with a picture when a scene is shared,
and the assistant's reply. The text only names the scene and chats around it; it never states a
visual value (no gist, region item, instance, colour, count or label), so every visual fact
reaches the agent through the picture alone: X1/X2 facts in the ``scene`` channel, X3/X4 facts in
the ``pixel`` channel. ``check_text_clean`` enforces this at build time.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re

from mnemoforge.english.variety import Variety
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.memeye.chat import chat_banks
from mnemoforge.generators.memeye.vocab import GRANULARITY, VIEW, entity_vocab
from mnemoforge.generators.memeye.world import sessions_of, spec_of, state_at
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

MINUTES_PER_ROUND = 4
IGNORED = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}


def value_words(world: World) -> dict[str, str]:
    """Words of every visual value in the World (what the text must never say) -> the value and
    the declaration it comes from (``declared_at``)."""
    words: dict[str, str] = {}
    for f in world.facts:
        if f.value and f.kind in ("attribute", "state") and f.object != VIEW:
            for w in re.findall(r"[a-z0-9]+", f.value.lower()):
                if w not in IGNORED and len(w) > 2:
                    words.setdefault(w, f"{f.value!r}, {declared_at(world, f.subject, f.object)}")
    return words


def declared_at(world: World, subject: str, key: str) -> str:
    """Where a value of ``key`` of a scene or shared object is declared: the scenario's drawable
    (``memeye.scenarios.<i>.draws.<part>``) or its scene pack."""
    e = world.entity(subject)
    spec_scenarios = [
        x.attrs["scenario"] for x in world.entities if x.kind == "scene" and x.attrs.get("index") == "0"
    ]
    scenario = e.attrs.get("scenario", "")
    i = spec_scenarios.index(scenario) if scenario in spec_scenarios else -1
    part = {"gist": "board", "colour": "colour", "count": "count", "label": "label", "order": "table",
            "presence": "person", "marked": "map"}.get(key)  # fmt: skip
    draws = json.loads(e.attrs["draws"]) if e.attrs.get("draws") else {}
    where = f"memeye.scenarios.{i} ({scenario})" if i >= 0 else scenario
    if part and part in draws:
        return f"the {key} drawn by {where}.draws.{part}"
    return f"the {key} of {e.name!r} drawn by {where} from memeye.scene_packs"


def check_text_clean(world: World, texts: dict[str, str]) -> None:
    """Raise if a text (scene names, dialogue) contains a word of a visual value, naming the text's
    field and the declaration of the value it collides with."""
    words = value_words(world)
    for where, text in texts.items():
        found = sorted(w for w in words if re.search(rf"\b{re.escape(w)}\b", text.lower()))
        if found:
            said = "; ".join(f"{w!r} is in {words[w]}" for w in found)
            raise ValueError(f"{where}: text {text!r} says a value a picture shows: {said}")


def image_path(scenario: str, round_id: str) -> str:
    return f"media/images/{scenario}/{round_id}.png"


def plan_sessions(theme: Theme, world: World, lines_ok: LineFilter | None = None) -> list[Observation]:
    """Every round of every session, in time order (``order`` = global round index); with
    ``lines_ok``, a user line breaking a coherence rule is replaced by another of its bank (or the
    round left out), and counted."""
    spec = spec_of(theme)
    image_kind = {e.id: entity_vocab(e.attrs).image_kind for e in world.entities if e.kind == "scene"}
    chat_rounds = {sc.id: sc.chat_rounds for sc in spec.scenarios}
    scene_names = {sc.id: list(sc.scenes) for sc in spec.scenarios}
    names = {e.id: e.name for e in world.entities if e.kind == "scene"}
    check_text_clean(
        world,
        {
            f"memeye.scenarios.{i}.scenes.{j}": n
            for i, sc in enumerate(spec.scenarios)
            for j, n in enumerate(sc.scenes)
        },
    )
    user = world.protagonist
    bk = chat_banks(theme)
    out: list[Observation] = []
    # no line said more than album.max_line_repeats times: the least used wording is taken (a
    # picture's lines are always said; an image-free round whose lines are at the cap is left out)
    variety = Variety(theme.album.max_line_repeats)

    def said_of(bank: tuple[str, ...], s: str, rng: random.Random) -> str:
        options = [t.format(s=s) for t in bank]
        rng.shuffle(options)
        return str(variety.pick(options, force=True))

    for sess in sessions_of(world):
        share, chat = bk.share[sess.scenario], bk.chat[sess.scenario]
        rng = derive_rng(world.seed, "memeye", "dialogue", sess.id)
        rounds: list[tuple[str | None, str, str]] = []
        for scene in sess.scenes:
            s = names[scene]
            rounds.append((scene, said_of(share, s, rng), said_of(bk.image_replies, s, rng)))
        talk = rng.sample(chat, len(chat))
        k = 0
        for said, reply in talk:
            if k == chat_rounds[sess.scenario]:
                break
            s = rng.choice(scene_names[sess.scenario])
            pair = (said.format(s=s), reply.format(s=s))
            if lines_ok is not None and not lines_ok.ok(user, pair[0]):
                continue  # the user never says it (e.g. keeps another's object): counted, left out
            if not variety.fits(*pair):
                continue
            variety.count(*pair)
            rounds.insert(1 + 2 * k, (None, *pair))
            k += 1
        for r, (scene, said, reply) in enumerate(rounds):
            rid = f"{sess.id}_r{r + 1:02d}"
            content = f"User: {said}\n{spec.assistant}: {reply}"
            expresses: list[Expression] = []
            media: list[str] = []
            if scene is not None:
                for key, f in sorted(state_at(world, scene, sess.start).items()):
                    g = GRANULARITY[key]
                    ch = Channel.pixel if g in ("X3", "X4") else Channel.scene
                    expresses.append(Expression(fact=f.id, channel=ch, granularity=g))
                media = [image_path(sess.scenario, rid)]
            out.append(
                Observation(
                    id=rid,
                    source=sess.scenario,
                    episode=sess.id,
                    kind=image_kind[scene] if scene is not None else "chat",
                    timestamp=sess.start + dt.timedelta(minutes=MINUTES_PER_ROUND * r),
                    order=len(out),
                    content=content,
                    people=[user],
                    expresses=expresses,
                    media=media,
                )
            )
    check_text_clean(world, {o.id: o.content for o in out})
    return out


def scene_of(o: Observation, world: World) -> str | None:
    """The scene an image round shows (the scene among the subjects of the facts it expresses;
    the others are shared objects seen in it)."""
    scenes = {e.id for e in world.entities if e.kind == "scene"}
    subjects = {world.fact(e.fact).subject for e in o.expresses} & scenes
    return next(iter(subjects)) if len(subjects) == 1 else None
