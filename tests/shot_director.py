"""A scripted "director" for the ``text.plan_shots`` tests: it reads the clips a shot-plan prompt lists
(as a model would) and answers with shot lists that differ from the procedural plan: the establishing
shot, then close-ups of the speakers. Helpers to spoil a plan in one named way."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.llm_servers import Recorded

CLIP = re.compile(r"^- clip (c\d+): .*$", re.M)
PEOPLE = re.compile(r"^  participants: (.*)$", re.M)
OBJECTS = re.compile(r"^  objects brought: (.*)$", re.M)
SHOTS = re.compile(r"^  shots: (\d+) to (\d+)$", re.M)
LINE = re.compile(r"^  - (l\d+)( \[shot 0\])? (\w+), ([\d.]+) s: ", re.M)
DURATIONS = re.compile(r"duration is seconds, one of ([\d, ]+)")
LEAD, GAP, TAIL = 0.3, 0.25, 0.3
FRAMINGS = ("medium", "close")  # speakers' shots alternate: medium with a second person, close alone
CAMERAS = ("static", "zoom_in", "pan_right", "zoom_out")  # by shot index: the moves first


def clips_in(prompt: str) -> dict[str, dict[str, Any]]:
    """The clips a shot-plan prompt lists: participants, objects with who brought them, shot range, lines."""
    out: dict[str, dict[str, Any]] = {}
    starts = [m.start() for m in CLIP.finditer(prompt)] + [len(prompt)]
    for m, end in zip(CLIP.finditer(prompt), starts[1:], strict=True):
        block = prompt[m.start() : end]
        people = [p.split(" (")[0] for p in PEOPLE.search(block).group(1).split(", ")]  # type: ignore[union-attr]
        objs = OBJECTS.search(block).group(1)  # type: ignore[union-attr]
        objects = {} if objs == "none" else dict(re.findall(r"(\w+) \(brought by (\w+)\)", objs))
        lo, hi = (int(x) for x in SHOTS.search(block).groups())  # type: ignore[union-attr]
        lines = [(k, bool(first), who, float(s)) for k, first, who, s in LINE.findall(block)]
        out[m.group(1)] = {"people": people, "objects": objects, "shots": (lo, hi), "lines": lines}
    return out


def durations_in(prompt: str) -> list[int]:
    return [int(x) for x in DURATIONS.search(prompt).group(1).replace(" ", "").split(",") if x]  # type: ignore[union-attr]


def _need(secs: list[float]) -> float:
    return LEAD + sum(secs) + GAP * max(0, len(secs) - 1) + TAIL if secs else 0.0


def direct(clip: dict[str, Any], durations: list[int]) -> list[dict[str, Any]]:
    """A valid shot list: a wide establishing pan over everyone with every object, then shots of
    the speakers (medium with a second person, or close alone), each line in the first shot that
    can hold it."""
    longest = max(durations)
    first = {"framing": "wide", "camera": "pan_left", "visible": list(clip["people"]),
             "props": list(clip["objects"]), "lines": []}  # fmt: skip
    shots = [first]
    secs: list[list[float]] = [[]]
    lines = sorted(clip["lines"], key=lambda x: not x[1])  # the place's line first, into shot 0
    for key, in_first, who, s in lines:
        spot = 0 if in_first else None
        for i, shot in enumerate(shots[1:], 1):
            if spot is None and who in shot["visible"] and _need([*secs[i], s]) <= longest:
                spot = i
        if spot is None and len(shots) < clip["shots"][1]:
            k = len(shots)
            framing = FRAMINGS[k % len(FRAMINGS)]
            others = [p for p in clip["people"] if p != who][:1] if framing == "medium" else []
            seen = [who, *others]
            props = [o for o, owner in clip["objects"].items() if owner in seen]  # with who brought it
            shots.append({"framing": framing, "camera": CAMERAS[k % len(CAMERAS)], "visible": seen,
                          "props": props, "lines": []})  # fmt: skip
            secs.append([])
            spot = len(shots) - 1
        if spot is None:  # no room for another shot: the establishing shot shows everyone
            spot = 0
        shots[spot]["lines"].append(key)
        secs[spot].append(s)
    for shot, s in zip(shots, secs, strict=True):
        need = _need(s)
        fitting = [d for d in sorted(durations) if d >= need]
        shot["duration"] = fitting[0] if fitting else 8
    return shots


def turns(rec: Recorded) -> list[dict[str, str]]:
    """The conversation of an OpenAI (``messages``) or Gemini (``contents``) request, as role/content."""
    if "messages" in rec.json:
        return rec.json["messages"]
    return [{"role": c["role"], "content": c["parts"][0]["text"]} for c in rec.json["contents"]]


def answer(rec: Recorded, spoil: Any = None) -> str:
    """The director's reply to a request: a plan for each clip the last message asks about.

    ``spoil(clip_id, shots) -> shots`` alters a plan (to make it invalid on purpose)."""
    messages = turns(rec)
    listed = clips_in(messages[0]["content"])
    durations = durations_in(messages[0]["content"])
    asked = re.findall(r"^- clip (c\d+):", messages[-1]["content"], re.M)
    plans = []
    for cid in dict.fromkeys(asked):
        shots = direct(listed[cid], durations)
        plans.append({"clip": cid, "shots": spoil(cid, shots, len(messages)) if spoil else shots})
    return "Here is the shot plan.\n```json\n" + json.dumps({"clips": plans}) + "\n```"
