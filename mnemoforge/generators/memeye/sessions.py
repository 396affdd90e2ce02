"""Multi-session user–assistant dialogues in which the user shares pictures of recurring scenes.

One observation per round (``s03_r02``): the user's turn, with a picture when a scene is shared,
and the assistant's reply. The text only names the scene and chats around it; it never states a
visual value (no gist, region item, instance, colour, count or label), so every visual fact
reaches the agent through the picture alone: X1/X2 facts in the ``scene`` channel, X3/X4 facts in
the ``pixel`` channel. ``check_text_clean`` enforces this at build time.
"""

from __future__ import annotations

import datetime as dt
import re

from mnemoforge.generators.memeye.vocab import GRANULARITY, VOCAB
from mnemoforge.generators.memeye.world import sessions_of, spec_of, state_at
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

SHARE = {
    "room": (
        "Here is {s} as of today. The renovation keeps going.",
        "Sharing another picture of {s}. Tell me what you think.",
        "Quick photo of {s} after this weekend's work.",
        "This is {s} now, have a look.",
    ),
    "board": (
        "Tonight's table at {s}. Good game so far!",
        "Snapshot of the table at {s} before we packed up.",
        "Here's how things looked at {s} this evening.",
    ),
    "dashboard": (
        "Screenshot of {s} this morning.",
        "Here's {s} after today's walk.",
        "Sharing {s} again, curious what you make of it.",
    ),
    "street": (
        "Photo taken at {s} on my way in.",
        "Here's {s} today, checking my route.",
        "Snapped {s} while walking past.",
    ),
    "shelf": (
        "Took a picture of the shelf at {s} today.",
        "Here's {s} again, the shelf I keep an eye on.",
        "Quick snap of {s} while running errands.",
    ),
}
# image-free rounds: small talk and questions about a scene of the scenario (named, so a search
# by scene name finds more than the pictures), never stating a visual value
CHAT = {
    "room": (
        ("The supplier delivers on Thursday.", "Good, that gives you the weekend to prepare."),
        ("Do you think {s} gets enough light in the evening?", "Warm bulbs and a mirror usually help."),
        (
            "Should I redo the skirting in {s} myself or hire someone?",
            "If it is a small job, do it yourself.",
        ),
        (
            "My neighbour offered to help with {s} on Saturday.",
            "Nice, two people make the heavy lifting easy.",
        ),
        (
            "How long should paint dry before we move furniture back?",
            "Give it at least a day, two to be safe.",
        ),
    ),
    "board": (
        ("Our group meets again next week.", "Great, keep me posted on how it goes."),
        ("Nadia wants to try a new opening at {s} next time.", "A fresh opening keeps the games lively."),
        ("Is it rude to take a long think at {s}?", "Not at all, as long as you agree on a clock."),
        (
            "We keep a running tally for {s} in a notebook.",
            "A notebook works; a photo now and then helps too.",
        ),
        ("Any food ideas for game night?", "Popcorn and grapes: no greasy fingers on the cards."),
    ),
    "dashboard": (
        ("My doctor suggested tracking things for a month.", "A month is a good window to see a trend."),
        ("Why does {s} sometimes lag a day behind?", "Syncing can wait for a charger or Wi-Fi."),
        ("Should I check {s} every day or once a week?", "Weekly is enough; daily numbers are noisy."),
        ("I walked to the market instead of driving today.", "Nice, small walks add up over a week."),
        ("Trying to get to bed earlier this week.", "A fixed wind-down time makes it easier."),
    ),
    "street": (
        ("The new cafe near {s} opened today.", "Worth a visit on your way back."),
        ("Is {s} a good place to meet people?", "It's easy to find, so it works as a meeting point."),
        ("I'm trying a different way to work this week.", "Let me know which route feels quicker."),
        ("Roadworks again near {s}.", "They usually post the end date on the barrier."),
        ("Do you remember why I started walking this way?", "You wanted a quieter route with more daylight."),
    ),
    "shelf": (
        ("I'm comparing brands for a blog post.", "Photos over a few weeks will show how the range shifts."),
        ("Is {s} cheaper than the supermarket?", "Often for staples; compare per kilo to be sure."),
        ("The staff at {s} restock on Mondays.", "Then early in the week is the best time to visit."),
        ("Remind me to bring my own bags next time.", "Noted, I'll remind you before your next trip."),
        ("Does {s} open on Sundays?", "Many small shops do in the afternoon; worth checking."),
    ),
}
REPLY_IMAGE = (
    "Thanks, I've saved this picture of {s} for later.",
    "Got it. I'll keep this image of {s} in mind.",
    "Nice, noted. Ask me about {s} any time.",
)
MINUTES_PER_ROUND = 4
IGNORED = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}


def value_words(world: World) -> set[str]:
    """Words of every visual value in the World (what the text must never say)."""
    words: set[str] = set()
    for f in world.facts:
        if f.value and f.kind in ("attribute", "state"):
            words |= {w for w in re.findall(r"[a-z0-9]+", f.value.lower()) if w not in IGNORED and len(w) > 2}
    return words


def check_text_clean(world: World, texts: dict[str, str]) -> None:
    """Raise if a text (scene names, dialogue) contains a word of a visual value."""
    words = value_words(world)
    for where, text in texts.items():
        found = sorted(w for w in words if re.search(rf"\b{re.escape(w)}\b", text.lower()))
        if found:
            raise ValueError(f"{where}: text {text!r} contains visual value words {found}")


def image_path(scenario: str, round_id: str) -> str:
    return f"media/images/{scenario}/{round_id}.png"


def plan_sessions(theme: Theme, world: World) -> list[Observation]:
    """Every round of every session, in time order (``order`` = global round index)."""
    spec = spec_of(theme)
    kinds = {sc.id: sc.kind for sc in spec.scenarios}
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
    out: list[Observation] = []
    for sess in sessions_of(world):
        kind = kinds[sess.scenario]
        rng = derive_rng(world.seed, "memeye", "dialogue", sess.id)
        rounds: list[tuple[str | None, str, str]] = []
        for scene in sess.scenes:
            s = names[scene]
            rounds.append((scene, rng.choice(SHARE[kind]).format(s=s), rng.choice(REPLY_IMAGE).format(s=s)))
        talk = rng.sample(CHAT[kind], min(len(CHAT[kind]), chat_rounds[sess.scenario]))
        for k, (said, reply) in enumerate(talk):
            s = rng.choice(scene_names[sess.scenario])
            rounds.insert(1 + 2 * k, (None, said.format(s=s), reply.format(s=s)))
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
                    kind=VOCAB[kind].image_kind if scene is not None else "chat",
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
    """The scene an image round shows (the subject of the facts it expresses)."""
    subjects = {world.fact(e.fact).subject for e in o.expresses}
    return next(iter(subjects)) if len(subjects) == 1 else None
