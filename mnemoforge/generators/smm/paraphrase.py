"""Optional model rewrites of evidence turns, validated to still express their facts.

With ``smm.paraphrase_turns: true`` and a ``text.backend``, every chat message that states a
fact is sent to the model for a natural rewording. A rewrite is kept only when it still contains
every surface value the fact needs (the value, the entity's name, the person's name unless the
sender is that person), mentions no other value of the same attribute (a stale or competing
value would change what the turn expresses), adds no negation or hedge ("isn't … anymore",
"not sure", "maybe", a question mark) and is one short line; otherwise the procedural turn stays.
Every call's raw input and output is recorded (``episodes/smm_turns.jsonl``).
"""

from __future__ import annotations

import re
from typing import Any

from mnemoforge.backends.text.protocol import ChatRequest, TextBackend, user
from mnemoforge.generators.smm.scaffold import Draft, Lookup
from mnemoforge.generators.smm.world import CODE
from mnemoforge.hashing import sha256_bytes
from mnemoforge.schemas.observations import Channel
from mnemoforge.schemas.world import Fact

PROMPT_VERSION = "smm-turn-1"
PROMPT = (
    "Rewrite this workplace chat message so it sounds natural and casual. Keep every name, number, "
    "date and value exactly as written, add no new facts, and reply with the rewritten message only.\n\n"
    "Message: {text}"
)


def required(lk: Lookup, f: Fact, sender: str | None) -> list[str]:
    """Surface strings a turn must contain to still express ``f``."""
    if f.kind == "member":
        need = [lk.name(f.object)]
    elif f.kind == "chose":
        need = [f.value or ""]
    elif f.object == CODE:
        need = [lk.name(f.subject), f.value or ""]
    else:  # an entity's value is stated under its record code
        need = [lk.refer(f.subject), lk.name(f.value or "")]
    if f.kind in ("member", "chose") and sender != f.subject:
        need.append(lk.name(f.subject))
    return [x for x in need if x]


def rivals(lk: Lookup, f: Fact) -> list[str]:
    """Other values of the same attribute (or choice key), which a rewrite must not mention."""
    if f.kind not in ("attribute", "chose"):
        return []
    same = [
        g.value or ""
        for g in lk.world.facts
        if g.kind == f.kind and g.subject == f.subject and g.object == f.object and g.value != f.value
    ]
    return [lk.name(v) for v in same if v]


HEDGES = (
    "not",
    "n't",
    "no longer",
    "anymore",
    "never",
    "maybe",
    "might",
    "perhaps",
    "probably",
    "possibly",
    "not sure",
    "unsure",
    "i think",
    "i guess",
    "unconfirmed",
    "rumour",
    "rumor",
    "apparently",
    "supposedly",
    "or was it",
    "?",
)


def hedges(text: str) -> set[str]:
    """Negation and hedge markers in ``text`` (whole words; ``n't`` and ``?`` anywhere)."""
    low = text.lower().replace("’", "'")
    found = {h for h in HEDGES if h in ("n't", "?") and h in low}
    found |= {h for h in HEDGES if h not in ("n't", "?") and re.search(rf"\b{re.escape(h)}\b", low)}
    return found


def check_turn(text: str, original: str, need: list[str], avoid: list[str]) -> str:
    """Empty when ``text`` still expresses the fact; else why not."""
    low = text.lower()
    if not text or "\n" in text or len(text) > 3 * len(original) + 40:
        return "not a single short line"
    added = hedges(text) - hedges(original)
    if added:
        return f"negates or hedges the fact {sorted(added)}"
    missing = [x for x in need if x.lower() not in low]
    if missing:
        return f"dropped {missing}"
    extra = [x for x in avoid if x.lower() in low]
    if extra:
        return f"mentions other values {extra}"
    return ""


def paraphrase_turns(lk: Lookup, drafts: list[Draft], backend: TextBackend) -> list[dict[str, Any]]:
    """Rewrite the fact-stating text turns of ``drafts`` in place; returns one record per call."""
    records = []
    speakers = {p.id for p in lk.world.people}
    for d in drafts:
        facts = [e.fact for e in d.expresses if e.channel == Channel.text]
        if not facts or not d.block:
            continue
        prefix, sep, text = d.content.partition(": ")
        if not sep:
            prefix, text = "", d.content
        sender = d.people[0] if d.people and d.people[0] in speakers else None
        f = lk.world.fact(facts[0])
        said = [lk.world.fact(x) for x in facts]  # a choice pair states two values in one turn
        need = [x for g in said for x in required(lk, g, sender)]
        own = {lk.name(g.value or "") for g in said}
        avoid = [x for g in said for x in rivals(lk, g) if x not in own]
        result = backend.chat(ChatRequest(messages=[user(PROMPT.format(text=text))], max_tokens=96))
        out = result.text.strip().strip('"') if result.ok else ""
        reason = (
            (result.error or "model call failed") if not result.ok else check_turn(out, text, need, avoid)
        )
        if not reason:
            d.content = f"{prefix}{sep}{out}"
        records.append(
            {
                "block": d.block,
                "fact": f.id,
                "backend": backend.id,
                "prompt": PROMPT_VERSION,
                "prompt_sha256": sha256_bytes(PROMPT.encode()),
                "input": text,
                "output": result.text if result.ok else str(result.raw),
                "kept": not reason,
                "reason": reason or "still expresses the fact",
            }
        )
    return records
