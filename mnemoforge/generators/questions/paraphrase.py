"""Model paraphrases of generated questions, validated to still ask the same thing.

The model only rewrites wording. A paraphrase is kept when every entity mention of the original
(people's names, places, objects, months and years, numbers) is still there, the answer is not
newly revealed, and it is still a question; otherwise the original stays. Either way the raw
model I/O is recorded in the item's lineage.
"""

from __future__ import annotations

import re

from mnemoforge.backends.text.protocol import ChatRequest, TextBackend, user
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators.prompts import Prompt


def mentions(text: str, world: World) -> set[str]:
    """Entity strings of the World (and dates, numbers) that occur in ``text``."""
    names = [p.name for p in world.people] + [p.name for p in world.places] + [o.name for o in world.objects]
    low = text.lower()
    found = {n.lower() for n in names if re.search(rf"\b{re.escape(n.lower())}\b", low)}
    found |= set(
        re.findall(
            r"\b(?:january|february|march|april|may|june|july|august|september|october|"
            r"november|december)\b|\b\d+\b",
            low,
        )
    )
    return found


def check_paraphrase(original: Question, text: str, world: World) -> str:
    """Empty when ``text`` asks the same thing as ``original``; else the reason it does not."""
    text = text.strip()
    if not text or not text.endswith("?") or len(text) > 3 * len(original.question) + 40:
        return "not a single question"
    lost = mentions(original.question, world) - mentions(text, world)
    if lost:
        return f"dropped {sorted(lost)}"
    answer = original.answer.lower()
    if answer not in original.question.lower() and re.search(rf"\b{re.escape(answer)}\b", text.lower()):
        return "reveals the answer"
    return ""


def paraphrase(
    questions: list[Question], world: World, backend: TextBackend, prompt: Prompt
) -> list[Question]:
    out = []
    for q in questions:
        result = backend.chat(ChatRequest(messages=[user(prompt.render(question=q.question))], max_tokens=96))
        text = result.text.strip().splitlines()[0].strip() if result.ok and result.text.strip() else ""
        reason = (result.error or "model call failed") if not result.ok else check_paraphrase(q, text, world)
        record = {
            "backend": backend.id,
            "prompt": prompt.name,
            "prompt_sha256": prompt.sha256,
            "input": q.question,
            "output": result.text if result.ok else str(result.raw),
            "kept": not reason,
            "reason": reason or "same entities, still a question",
        }
        lineage = q.lineage.model_copy(update={"text_model": record})
        update = {"lineage": lineage} | ({"question": text} if not reason else {})
        out.append(q.model_copy(update=update))
    return out
