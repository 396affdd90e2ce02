"""Contract for text (chat) backends: messages with text and image parts in, a ``ChatResult`` out.

A backend never raises for a bad reply and never returns ``None``: transport failures, HTTP
errors and malformed bodies all come back as ``ChatResult(ok=False, error=..., raw=...)`` so
a gate can mark the item and keep going. Secrets never appear in ``id``, ``error`` or ``raw``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]
Raw = dict[str, Any] | list[Any] | str

_MAGIC = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}


@dataclass(frozen=True)
class TextPart:
    """A run of text inside a multi-part message."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """A local image file (PNG by default; JPEG/GIF/WebP are recognised by their magic bytes)."""

    path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    def read(self) -> tuple[bytes, str]:
        """The file's bytes and MIME type."""
        data = self.path.read_bytes()
        return data, image_mime(data)

    def b64(self) -> tuple[str, str]:
        """The file as base64 text and its MIME type."""
        data, mime = self.read()
        return base64.b64encode(data).decode("ascii"), mime

    def data_url(self) -> str:
        """A ``data:`` URL, as OpenAI's ``image_url`` content part expects."""
        b64, mime = self.b64()
        return f"data:{mime};base64,{b64}"


Part = TextPart | ImagePart


def image_mime(data: bytes) -> str:
    """MIME type sniffed from the first bytes; raises ``ValueError`` for anything not an image."""
    for magic, mime in _MAGIC.items():
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise ValueError("image part is not a PNG, JPEG, GIF or WebP file")


@dataclass(frozen=True)
class ChatMessage:
    """One turn. ``content`` is plain text or a sequence of parts (``str`` items become ``TextPart``)."""

    role: Role
    content: str | Sequence[Part | str]

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant"):
            raise ValueError(f"unknown role {self.role!r}")
        if not isinstance(self.content, str):
            parts = tuple(TextPart(p) if isinstance(p, str) else p for p in self.content)
            for p in parts:
                if not isinstance(p, TextPart | ImagePart):
                    raise TypeError(f"unsupported content part {type(p).__name__}")
            object.__setattr__(self, "content", parts)

    @property
    def parts(self) -> tuple[Part, ...]:
        """The content as parts, whatever form it was given in."""
        if isinstance(self.content, str):
            return (TextPart(self.content),)
        return tuple(p for p in self.content if not isinstance(p, str))

    def text(self) -> str:
        """The text parts joined by newlines (images dropped)."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class ChatRequest:
    """A chat call. ``model=None`` means the backend's own model."""

    messages: tuple[ChatMessage, ...]
    model: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    seed: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        if not self.messages:
            raise ValueError("a chat request needs at least one message")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be >= 1")

    def key(self) -> str:
        """A stable digest of the request (images by content hash), used to derive retry jitter."""
        h = hashlib.blake2b(digest_size=12)
        h.update(json.dumps([self.model, self.temperature, self.max_tokens, self.seed]).encode())
        for m in self.messages:
            h.update(m.role.encode())
            for p in m.parts:
                h.update(p.text.encode() if isinstance(p, TextPart) else p.path.read_bytes())
                h.update(b"\x1f")
        return h.hexdigest()


def user(*content: str | Part) -> ChatMessage:
    """Shorthand for a user message: ``user("what is shown?", ImagePart(png))``."""
    if len(content) == 1 and isinstance(content[0], str):
        return ChatMessage("user", content[0])
    return ChatMessage("user", tuple(content))  # type: ignore[arg-type]


def request(messages: Iterable[ChatMessage] | str, **kw: Any) -> ChatRequest:
    """A ``ChatRequest`` from messages or from one user prompt string."""
    msgs: Sequence[ChatMessage] = (user(messages),) if isinstance(messages, str) else tuple(messages)
    return ChatRequest(tuple(msgs), **kw)


@dataclass(frozen=True)
class ChatResult:
    """What a call produced. ``raw`` is the last reply body (parsed JSON, or the text when it is not JSON).

    ``usage`` uses OpenAI's names (``prompt_tokens``, ``completion_tokens``, ``total_tokens``) for
    every provider. ``model`` is the model the request was sent for.
    """

    text: str
    raw: Raw
    ok: bool
    error: str | None = None
    attempts: int = 1
    usage: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    status: int | None = None


@runtime_checkable
class TextBackend(Protocol):
    """A chat model. ``id`` names provider, model and endpoint, never a secret."""

    @property
    def id(self) -> str:
        """``provider:model@base_url``."""
        ...

    def chat(self, request: ChatRequest) -> ChatResult:
        """Send ``request``; always returns a result (``ok=False`` with ``error`` on any failure)."""
        ...


TRUNCATED = frozenset({"length", "max_tokens"})
"""Finish reasons that mean the reply was cut at the length limit (OpenAI ``length``, Gemini
``MAX_TOKENS``; compared in lower case)."""


def finish_reason(raw: Raw) -> str | None:
    """The first choice's finish reason in a raw reply body (OpenAI ``choices[0].finish_reason`` or
    Gemini ``candidates[0].finishReason``), else ``None``."""
    if not isinstance(raw, dict):
        return None
    for list_key, field_key in (("choices", "finish_reason"), ("candidates", "finishReason")):
        items = raw.get(list_key)
        if isinstance(items, list) and items and isinstance(items[0], dict):
            why = items[0].get(field_key)
            return str(why) if why is not None else None
    return None


def truncated(result: ChatResult) -> bool:
    """Whether the reply stopped at the length limit (whatever text it holds is incomplete)."""
    why = finish_reason(result.raw)
    return why is not None and why.lower() in TRUNCATED


def redact(value: Any, secrets: Iterable[str | None]) -> Any:
    """``value`` with every secret replaced by ``***`` (strings, and strings nested in dicts/lists)."""
    keys = [s for s in secrets if s]
    if not keys:
        return value
    if isinstance(value, str):
        for s in keys:
            value = value.replace(s, "***")
        return value
    if isinstance(value, dict):
        return {redact(k, keys): redact(v, keys) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact(v, keys) for v in value)
    return value


def parse_body(text: str) -> tuple[Raw, str | None]:
    """``(json, None)`` for a JSON object body, else ``(text, reason)``."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return text, "reply body is not JSON"
    if not isinstance(data, dict):
        return text, f"reply body is JSON {type(data).__name__}, expected an object"
    return data, None
