"""An answerer backed by any chat model behind a text backend (OpenAI-compatible, Gemini).

The prompt comes from ``assets/prompts`` and its hash is part of the answerer's ``cache_id``,
so a changed prompt invalidates exactly the cached verdicts that used it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mnemoforge.backends.text.protocol import ChatRequest, ImagePart, TextBackend, user
from mnemoforge.hashing import content_hash
from mnemoforge.validators.answerers.protocol import LETTERS, Answer, Context, letter_index
from mnemoforge.validators.prompts import load_prompt


class ChatAnswerer:
    """Asks a chat model with a prompt template; images in the context are sent as image parts."""

    def __init__(
        self,
        backend: TextBackend,
        *,
        mcq_prompt: str = "answer_mcq",
        open_prompt: str = "answer_open",
        prompts_dir: Path | None = None,
        max_images: int = 8,
        name: str = "chat",
    ) -> None:
        self.backend = backend
        self.mcq = load_prompt(mcq_prompt, prompts_dir)
        self.open = load_prompt(open_prompt, prompts_dir)
        self.max_images = max_images
        self.id = f"{name}:{backend.id}"

    def cache_id_for(self, mcq: bool) -> str:
        """Identity for verdict caching: only the prompt this kind of item is asked with counts."""
        return content_hash(self.id, (self.mcq if mcq else self.open).sha256)

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        memory = "\n".join(f"[{i.observation_id}] {i.full_text()}".strip() for i in context.items) or "(none)"
        if options:
            listed = "\n".join(f"{LETTERS[k]}. {o}" for k, o in enumerate(options))
            text = self.mcq.render(context=memory, question=question, options=listed)
        else:
            text = self.open.render(context=memory, question=question)
        images = [ImagePart(p) for i in context.items for p in i.image_paths][: self.max_images]
        result = self.backend.chat(ChatRequest(messages=[user(text, *images)], max_tokens=32))
        raw = result.text if result.ok else str(result.raw)
        if not result.ok:
            return Answer.failed(
                self.id,
                result.error or "model call failed",
                raw,
                # a request that could not even be built (attempts 0: say, a missing image) is a
                # failed answer, deterministic like a wrong one; a call that failed is undecided
                call_failure=failure_kind(result.status, result.error) if result.attempts else None,
                attempts=result.attempts,
            )
        if not options:
            line = result.text.strip().splitlines()[0].strip() if result.text.strip() else ""
            return (
                Answer(line, None, raw, True, None, self.id)
                if line
                else Answer.failed(self.id, "empty reply", raw)
            )
        m = re.search(r"\b([A-J])\b", result.text.strip().upper())
        idx = letter_index(m.group(1) if m else None, len(options))
        if idx is None:
            return Answer.failed(self.id, "malformed reply: no option letter", raw)
        return Answer.mcq(self.id, options, idx, raw)


def failure_kind(status: int | None, error: str | None) -> str:
    """A short, stable name for why a model call failed (recorded in undecided verdicts)."""
    if status is not None and status != 200:
        return f"http_{status}"
    text = (error or "").lower()
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if status == 200:
        return "bad_reply"
    return "transport"


def make_chat_answerer(prompts_dir: Path | None = None, **config: Any) -> ChatAnswerer:
    """``{"provider": "openai", "model": ..., "base_url": ..., "api_key_env": ..., "mcq_prompt": ...}``."""
    from mnemoforge.backends.text.registry import make_text_backend

    prompts = {k: config.pop(k) for k in ("mcq_prompt", "open_prompt", "max_images", "name") if k in config}
    return ChatAnswerer(make_text_backend(config), prompts_dir=prompts_dir, **prompts)
