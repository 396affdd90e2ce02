"""``mnemoforge theme draft``: a text model writes a theme from a few lines of description.

The model gets the description and the family's starter theme as an example of the schema
(``assets/prompts/theme_draft.txt``). Its reply is checked exactly as ``mnemoforge theme check``
checks a file (``theme_checks.check_theme``: schema, registry names, paths, and the family's
``check_theme``); on a problem the problems go back to the model
(``assets/prompts/theme_draft_fix.txt``) and it tries again, at most ``attempts`` times in all.
The result passes ``theme check`` or ``DraftError`` lists what was still wrong.

A reply cut at the length limit (OpenAI ``finish_reason: length``, Gemini ``MAX_TOKENS``) is not a
draft with schema errors: the model is asked to continue where it stopped
(``assets/prompts/theme_draft_continue.txt``), up to ``continuations`` times, and the parts are
joined; one still cut after that is reported as truncation (raise ``--max-tokens``).
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mnemoforge import yaml_io
from mnemoforge.backends.text.protocol import ChatMessage, ChatRequest, TextBackend, truncated
from mnemoforge.registry import DEFAULT_FAMILY
from mnemoforge.theme_io import ThemeError
from mnemoforge.theme_starter import starter_theme
from mnemoforge.validators.prompts import load_prompt

_FENCE = re.compile(r"```(?:ya?ml)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_OPEN_FENCE = re.compile(r"```(?:ya?ml)?[ \t]*\n(.*)", re.DOTALL | re.IGNORECASE)
_LEADING_FENCE = re.compile(r"\A\s*```(?:ya?ml)?[ \t]*\n", re.IGNORECASE)


class DraftError(RuntimeError):
    """The model did not produce a valid theme within the attempts; ``problems`` are the last ones."""

    def __init__(self, message: str, problems: list[str], attempts: list[DraftAttempt]) -> None:
        super().__init__(message)
        self.problems = problems
        self.attempts = attempts


@dataclass
class DraftAttempt:
    """One model reply and what the theme check said about it (``problems`` empty: it passed)."""

    reply: str
    problems: list[str]
    usage: dict[str, int] = field(default_factory=dict)
    continuations: int = 0
    """How many times the model was asked to continue a reply cut at the length limit."""


@dataclass
class Draft:
    """A theme that passed the check: its YAML text, name and the attempts it took."""

    text: str
    name: str
    attempts: list[DraftAttempt]


def extract_yaml(reply: str) -> str:
    """The YAML inside the reply's first fenced block (or after an opening fence never closed),
    else the whole reply."""
    m = _FENCE.search(reply) or _OPEN_FENCE.search(reply)
    return (m.group(1) if m else reply).strip() + "\n"


class _Truncated(RuntimeError):
    """A reply still cut at the length limit after every continuation."""


def _answer(
    backend: TextBackend,
    messages: list[ChatMessage],
    *,
    temperature: float,
    max_tokens: int,
    seed: int,
    continuations: int,
) -> tuple[str, dict[str, int], int]:
    """One whole answer: ``(text, usage summed over the calls, continuations asked)``, continuing a
    reply cut at the length limit. Raises ``DraftError`` for a failed call and ``_Truncated`` when
    the answer is still cut after ``continuations`` continuations."""
    more = load_prompt("theme_draft_continue").render()
    convo, parts, usage = list(messages), [], Counter[str]()
    for n in range(continuations + 1):
        req = ChatRequest(tuple(convo), temperature=temperature, max_tokens=max_tokens, seed=seed)
        res = backend.chat(req)
        usage.update(res.usage)
        cut = truncated(res)
        if not res.ok and not (cut and n > 0):
            why = (
                f"the answer was cut at the length limit (max_tokens={max_tokens}) before any text"
                if cut
                else str(res.error)
            )
            raise DraftError(f"the model call failed: {why}", [f"model: {why}"], [])
        text = res.text if n == 0 else _LEADING_FENCE.sub("", res.text or "")
        parts.append(text)
        if not cut:
            return "".join(parts), dict(usage), n
        convo += [ChatMessage("assistant", res.text or ""), ChatMessage("user", more)]
    raise _Truncated("".join(parts))


def check_draft(text: str, family: str, folder: Path | None = None) -> list[str]:
    """Problems of a drafted theme, one line each naming the field (empty: it passes ``theme check``)."""
    from mnemoforge.theme_checks import check_theme

    try:
        data = yaml_io.safe_load(text)
    except yaml.YAMLError as exc:
        return [f"yaml: not valid YAML ({' '.join(str(exc).split())})"]
    if not isinstance(data, dict):
        return [f"yaml: the theme must be a mapping of fields, got {type(data).__name__}"]
    problems = []
    if data.get("family", DEFAULT_FAMILY) != family:
        problems.append(f"family: must be {family!r}, got {data.get('family', DEFAULT_FAMILY)!r}")
    with tempfile.TemporaryDirectory(prefix="mnemoforge-draft-", dir=folder) as tmp:
        path = Path(tmp) / "draft.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            check_theme(path)
        except ThemeError as exc:
            problems += [f"{f}: {m}" for f, m in exc.problems]
    return problems


def draft_theme(
    description: str,
    family: str,
    backend: TextBackend,
    *,
    attempts: int = 3,
    max_tokens: int = 8192,
    temperature: float = 0.2,
    seed: int = 0,
    folder: Path | None = None,
    continuations: int = 3,
) -> Draft:
    """Ask ``backend`` for a theme of ``family`` until one passes the check, ``attempts`` times at most
    (each answer cut at the length limit is continued up to ``continuations`` times)."""
    from mnemoforge.generators.families import family_names, get_family

    if family not in (known := family_names()):
        raise ValueError(f"--family must be one of {', '.join(known)}, got {family!r}")
    if attempts < 1:
        raise ValueError("--attempts must be >= 1")
    if not description.strip():
        raise ValueError("DESCRIPTION is empty: say in a few lines what the theme is about")
    ask = load_prompt("theme_draft").render(
        family=family,
        family_doc=get_family(family).description or family,
        description=description.strip(),
        example=starter_theme("example", family).strip(),
    )
    messages = [ChatMessage("user", ask)]
    tried: list[DraftAttempt] = []
    fix = load_prompt("theme_draft_fix")
    for _ in range(attempts):
        try:
            reply, usage, asked = _answer(
                backend,
                messages,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
                continuations=continuations,
            )
        except DraftError as e:  # retries were the backend's; a failed call is not sent back
            tried.append(DraftAttempt("", e.problems))
            raise DraftError(str(e), e.problems, tried) from None
        except _Truncated as e:
            why = (
                f"model: the answer was still cut at the length limit (max_tokens={max_tokens}) after "
                f"{continuations} continuation{'s' if continuations != 1 else ''}"
            )
            tried.append(DraftAttempt(str(e), [why], continuations=continuations))
            raise DraftError(f"{why.removeprefix('model: ')}; raise --max-tokens", [why], tried) from None
        text = extract_yaml(reply)
        problems = check_draft(text, family, folder)
        tried.append(DraftAttempt(reply, problems, usage, asked))
        if not problems:
            return Draft(text, str(yaml_io.safe_load(text)["name"]), tried)
        messages += [
            ChatMessage("assistant", reply),
            ChatMessage("user", fix.render(errors="\n".join(f"- {p}" for p in problems))),
        ]
    last = tried[-1].problems
    raise DraftError(
        f"no valid theme after {attempts} attempt{'s' if attempts != 1 else ''}; the last draft still has "
        f"{len(last)} problem{'s' if len(last) != 1 else ''}:\n" + "\n".join(f"  - {p}" for p in last),
        last,
        tried,
    )


def header(description: str, backend_id: str, attempts: int) -> str:
    """The comment block a drafted theme file starts with (what wrote it, from what)."""
    lines = " ".join(description.split())
    return (
        f"# Drafted by `mnemoforge theme draft` with {backend_id} in {attempts} attempt"
        f"{'s' if attempts != 1 else ''}; passes `mnemoforge theme check`. Review it before building.\n"
        f"# Description: {lines}\n"
    )
