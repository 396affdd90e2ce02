"""Models under evaluation: a chat backend from a YAML spec, or a built-in offline model.

A model SPEC is one of:

* a YAML file holding the theme's ``text:`` block (``text: {backend: {provider: openai, model: ...,
  base_url: ...}}``), or just ``backend: {...}``, plus optional evaluation settings::

      name: qwen-7b                  # label in tables (default: the backend's model)
      context_tokens: 8192           # the model's context window; without it (and without
                                     # max_context_chars) the server is asked (llama.cpp /props,
                                     # /v1/models), else 60000 characters are assumed
      max_context_chars: 24000       # or: what full-context methods may put in one prompt
      vision: auto                   # attach images? true, false, or auto (default): ask the
                                     # model once with a one-pixel image; a model that refuses
                                     # it is evaluated text-only and never sent an image
      max_images: 16
      decoding: {temperature: 0.0, max_tokens: 64, seed: 0}
      prices: {prompt_per_1m: 0.15, completion_per_1m: 0.60, currency: USD}

* ``smollm2``: SmolLM2-135M-Instruct (GGUF, the ``llm`` extra), offline, text only
  (``smollm2:transformers`` or ``smollm2:llama_cpp`` picks the engine; default llama-cpp when
  importable);
* ``symbolic``: the exact solver as an upper bound. It ignores the prompt's wording and executes
  the item's program on the facts of the observations the method put in the prompt, so it shows
  what each method's context makes answerable. It reads the evaluator keys by design.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mnemoforge.evaluation.context import DEFAULT_CHARS, ContextSize, resolve_context
from mnemoforge.evaluation.keys import EvaluationError, read_yaml_mapping

BUILTINS = ("smollm2", "symbolic")
# a 1x1 white PNG: what the vision probe shows a model
PROBE_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c4944415478da63f8ffff3f0005fe02fea7d6a4810000000049454e44ae426082"
)
DEFAULT_DECODING = {"temperature": 0.0, "max_tokens": 64, "seed": 0}


@dataclass(frozen=True)
class EvalRequest:
    """One prompt: system and user text, images (release paths), and what it was built from."""

    item_id: str
    system: str
    text: str
    images: tuple[Path, ...] = ()
    observation_ids: tuple[str, ...] = ()
    rotation: int | None = None
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Reply:
    text: str
    ok: bool
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_s: float = 0.0


class EvalModel(Protocol):
    """What a method's prompt is sent to."""

    id: str
    name: str
    max_context_chars: int
    vision: bool
    max_images: int
    workers: int
    decoding: dict[str, Any]
    prices: dict[str, Any]

    def generate(self, request: EvalRequest) -> Reply: ...


class ChatModel:
    """A model behind a text backend (OpenAI-compatible servers, OpenAI, Gemini)."""

    def __init__(self, backend: Any, spec: dict[str, Any]) -> None:
        self.backend = backend
        self.id = backend.id
        self.name = str(spec.get("name") or getattr(backend, "model", backend.id))
        for key in ("max_context_chars", "context_tokens"):
            value = spec.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
                raise EvaluationError(f"{spec.get('_path', 'model spec')}: field '{key}': a positive integer")
        self.spec = spec
        self.max_context_chars = int(spec.get("max_context_chars") or DEFAULT_CHARS)  # until resolved
        self._context: ContextSize | None = None
        declared = spec.get("vision", "auto")
        if declared not in (True, False, "auto"):
            raise EvaluationError(f"{spec.get('_path', 'model spec')}: field 'vision': true, false or auto")
        self.declared_vision: bool | str = declared
        self.vision = declared is True  # until a probe says otherwise
        self.vision_note: str | None = None
        self._probe_lock = threading.Lock()
        self._probed: bool | None = None
        self.max_images = int(spec.get("max_images", 16))
        self.workers = int(spec.get("workers", getattr(backend.retrier, "max_concurrency", 4)))
        self.decoding = {**DEFAULT_DECODING, **(spec.get("decoding") or {})}
        self.prices = dict(spec.get("prices") or {})

    def context_size(self) -> ContextSize:
        """The declared context, or what the server reports (asked once), or unknown."""
        with self._probe_lock:
            if self._context is None:
                reply = int(self.decoding.get("max_tokens", 64))
                self._context = resolve_context(self.spec, self.backend, reply)
                self.max_context_chars = self._context.chars
        return self._context

    def supports_images(self) -> bool:
        """The declared ``vision``, or (``auto``) what one probe request with a one-pixel PNG
        says: a model that refuses it (an error status, no reply) is text-only for this run."""
        if self.declared_vision != "auto":
            return bool(self.declared_vision)
        with self._probe_lock:
            if self._probed is None:
                self._probed = self._probe()
                self.vision = self._probed
        return self._probed

    def _probe(self) -> bool:
        import tempfile

        from mnemoforge.backends.text.protocol import ChatMessage, ChatRequest, ImagePart, user

        with tempfile.TemporaryDirectory(prefix="mnemoforge-probe-") as tmp:
            png = Path(tmp) / "probe.png"
            png.write_bytes(PROBE_PNG)
            msg = user("What colour is this one-pixel image? Reply with one word.", ImagePart(png))
            res = self.backend.chat(
                ChatRequest(messages=(ChatMessage("system", "Answer briefly."), msg), max_tokens=8)
            )
        if res.ok:
            return True
        self.vision_note = (
            f"model {self.name}: an image request failed ({res.error}); evaluating it text-only, "
            "no images sent (set vision: true or false in its spec to skip this probe)"
        )
        return False

    def generate(self, request: EvalRequest) -> Reply:
        from mnemoforge.backends.text.protocol import ChatMessage, ChatRequest, ImagePart, user

        images = [ImagePart(p) for p in request.images] if self.vision else []
        messages = [ChatMessage("system", request.system), user(request.text, *images)]
        req = ChatRequest(
            messages=tuple(messages),
            temperature=float(self.decoding["temperature"]),
            max_tokens=int(self.decoding["max_tokens"]),
            seed=self.decoding.get("seed"),
        )
        t0 = time.perf_counter()
        res = self.backend.chat(req)
        return Reply(res.text, res.ok, res.error, dict(res.usage), time.perf_counter() - t0)


class SmolModel:
    """SmolLM2-135M through llama-cpp (or transformers); calls are serialised (one model per process)."""

    def __init__(self, engine: str = "auto", n_threads: int = 1) -> None:
        from mnemoforge.validators.answerers.local_model import gguf_path, missing_reason, resolve_backend

        try:
            self.engine = resolve_backend(engine)
        except ValueError as e:
            raise EvaluationError(f"model smollm2:{engine}: {e}") from None
        reason = missing_reason(self.engine)
        if reason:
            raise EvaluationError(f"model smollm2: {reason}")
        self.path, self.n_threads = gguf_path(), n_threads
        assert self.path is not None
        self.id = f"local:{self.path.stem}@{self.engine}"
        self.name = "smollm2"
        self.max_context_chars = 9000  # n_ctx 4096 tokens, with room for the reply
        self.vision, self.max_images, self.workers = False, 0, 1
        self.decoding = {"temperature": 0.0, "max_tokens": 16, "seed": 0, "top_k": 1}
        self.prices: dict[str, Any] = {}

    def context_size(self) -> ContextSize:
        return ContextSize(self.max_context_chars, 4096, "built-in")

    def generate(self, request: EvalRequest) -> Reply:
        from mnemoforge.validators.answerers.local_model import _LOCK, load_backend

        messages = [{"role": "system", "content": request.system}, {"role": "user", "content": request.text}]
        t0 = time.perf_counter()
        try:
            with _LOCK:  # shared with the gate panels' local answerer: one generation at a time
                model = load_backend(self.engine, self.path, self.n_threads)
                if self.engine == "llama_cpp":
                    out = model.llm.create_chat_completion(
                        messages=messages,
                        max_tokens=self.decoding["max_tokens"],
                        temperature=0.0,
                        top_k=1,
                        top_p=1.0,
                        seed=0,
                    )
                    text = out["choices"][0]["message"]["content"] or ""
                    usage = {k: int(v) for k, v in (out.get("usage") or {}).items() if isinstance(v, int)}
                else:
                    text, usage = model.chat(messages, self.decoding["max_tokens"]), {}
        except Exception as e:  # a model failure is an invalid reply, never a crash
            return Reply(
                "", False, f"generation failed: {type(e).__name__}: {e}", {}, time.perf_counter() - t0
            )
        return Reply(
            text, bool(text.strip()), None if text.strip() else "empty reply", usage, time.perf_counter() - t0
        )


class SymbolicModel:
    """The exact solver on the facts of the observations in the prompt (an upper bound)."""

    def __init__(self, release: Path, concentrated: bool = False, variant: str | None = None) -> None:
        from mnemoforge.evaluation.keys import load_keys, load_world, read_jsonl, release_family
        from mnemoforge.generators.cross_items import CROSS  # registers the cross program too
        from mnemoforge.schemas.observations import Observation
        from mnemoforge.schemas.questions import Question

        fam = release_family(release)
        data = Path(release) / "data" / fam
        if concentrated:
            data = data / "concentrated"
        self.world = load_world(release)
        self.questions = {r["id"]: Question.model_validate(r) for r in read_jsonl(data / "questions.jsonl")}
        self.observations = {
            r["id"]: Observation.model_validate(r) for r in read_jsonl(data / "observations.jsonl")
        }
        if fam == CROSS:  # a multi-family release's cross items: every family's observations
            from mnemoforge.evaluation.cross import cross_observations

            self.observations = cross_observations(release)
        ablated = data / "variants" / str(variant) / "observations.jsonl"
        if variant is not None and ablated.is_file():  # an ablation: the facts its rows still express
            self.observations = {r["id"]: Observation.model_validate(r) for r in read_jsonl(ablated)}
        self.keys = load_keys(release, concentrated)
        self.id = self.name = "symbolic"
        self.max_context_chars = 10**9
        self.vision, self.max_images, self.workers = True, 10**6, 1
        self.decoding: dict[str, Any] = {}
        self.prices: dict[str, Any] = {}
        from mnemoforge.generators.families import import_program_modules

        import_program_modules()  # every registered family's programs (a plugin's too)

    def generate(self, request: EvalRequest) -> Reply:
        from mnemoforge.generators.questions.programs import Unanswerable
        from mnemoforge.validators.answerers.judges import exact_match
        from mnemoforge.validators.answerers.protocol import LETTERS
        from mnemoforge.validators.solver import solve

        t0 = time.perf_counter()
        q = self.questions[request.item_id]
        evidence = [self.observations[i] for i in request.observation_ids if i in self.observations]
        try:
            text = solve(q, self.world, evidence)
        except Unanswerable:
            return Reply("unanswerable from this context", True, None, {}, time.perf_counter() - t0)
        except (KeyError, AssertionError) as e:
            return Reply("", False, f"program failed: {type(e).__name__}: {e}", {}, time.perf_counter() - t0)
        if request.choices:
            hits = [k for k, c in enumerate(request.choices) if exact_match(text, c)]
            text = LETTERS[hits[0]] if len(hits) == 1 else f"no single option matches {text!r}"
        return Reply(text, True, None, {}, time.perf_counter() - t0)


def read_spec(spec: str | Path) -> dict[str, Any]:
    """A model SPEC file as a dict with a ``backend`` block; a clear error naming file and field."""
    path = Path(spec)
    if not path.is_file():
        raise EvaluationError(f"--model {spec}: neither a built-in ({', '.join(BUILTINS)}) nor a YAML file")
    data = read_yaml_mapping(path, "a 'backend' (or 'text.backend') block")
    if "backend" not in data and isinstance(data.get("text"), dict):
        data["backend"] = data["text"].get("backend")
    if not isinstance(data.get("backend"), dict):
        raise EvaluationError(
            f"{path}: field 'backend' (or 'text.backend'): a text backend block is required"
        )
    for key in ("decoding", "prices"):
        if key in data and not isinstance(data[key], dict):
            raise EvaluationError(f"{path}: field '{key}' must be a mapping")
    data["_path"] = str(path)
    return data


def load_model(
    spec: str | Path,
    release: Path,
    *,
    workers: int | None = None,
    concentrated: bool = False,
    variant: str | None = None,
) -> EvalModel:
    """Build the model a SPEC names (``workers`` caps the backend's concurrent requests; ``variant``:
    the release variant it answers over, which the exact solver reads the facts of)."""
    if str(spec) == "smollm2" or str(spec).startswith("smollm2:"):
        return SmolModel(str(spec).partition(":")[2] or "auto")
    if str(spec) == "symbolic":
        return SymbolicModel(release, concentrated, variant)
    data = read_spec(spec)
    from mnemoforge.backends.text.registry import make_text_backend

    block = dict(data["backend"])
    if workers and "max_concurrency" not in block:
        block["max_concurrency"] = workers
    try:
        backend = make_text_backend(block)
    except (ValueError, ImportError) as e:
        raise EvaluationError(f"{data['_path']}: field 'backend': {e}") from None
    if workers:
        data.setdefault("workers", workers)
    return ChatModel(backend, data)
