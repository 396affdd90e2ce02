"""The build settings of a theme: which backends render (``render:``), which answerers sit on
which gate's panel (``gates:``) and optional model-backed text (``text:``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema, model_serializer, model_validator

from mnemoforge import registry
from mnemoforge.schemas.limits import MAX_NAME, MAX_PATH, MAX_SETTINGS, Name
from mnemoforge.schemas.render_api import RENDER_API_FIELDS, ImageApiSpec, SpeechApiSpec, VideoApiSpec
from mnemoforge.schemas.strict import Strict


def registered(group: str, what: str) -> Any:
    """The type of a theme field naming a backend: any name some installed package registers in
    ``group`` (the built-ins, or a plugin's); the JSON schema lists the built-ins."""

    def check(name: str) -> str:
        known = registry.names(group)
        if name not in known:
            raise ValueError(f"unknown {what} {name!r}; registered: {', '.join(known)}")
        return name

    return Annotated[
        str, AfterValidator(check), WithJsonSchema({"enum": list(registry.BUILTIN[group]), "type": "string"})
    ]


class RenderSpec(Strict):
    """Which backends render media. Defaults run offline; the others are opt-in extras."""

    # any registered image / video backend (``mnemoforge.image_backends`` / ``video_backends``)
    image: registered(registry.IMAGE_BACKENDS_GROUP, "image backend") = Field(  # type: ignore[valid-type]
        default="procedural", description="image backend (procedural: offline drawings)"
    )
    image_model: str | None = Field(
        default=None, max_length=MAX_PATH, description="diffusers: local folder (theme-relative) or hub id"
    )
    image_steps: int = Field(default=20, ge=1, le=200, description="diffusers: inference steps per image")
    allow_network: bool = Field(
        default=False, description="diffusers: may download the model (else local files only)"
    )
    image_api: ImageApiSpec | None = Field(default=None, description="gemini / openai image settings")
    video: registered(registry.VIDEO_BACKENDS_GROUP, "video backend") = Field(  # type: ignore[valid-type]
        default="ffmpeg", description="ffmpeg: camera moves over the still; veo: Veo image-to-video per shot"
    )
    video_api: VideoApiSpec | None = Field(default=None, description="veo settings")
    speech: Literal["voices", "gemini"] = Field(
        default="voices", description="voices: each person's voice engine; gemini: Gemini TTS for all"
    )
    speech_api: SpeechApiSpec | None = Field(default=None, description="gemini TTS settings")

    @model_serializer(mode="wrap")
    def _drop_api_defaults(self, handler: Any) -> dict[str, Any]:
        out = handler(self)
        for name in RENDER_API_FIELDS:
            if name in out and getattr(self, name) == type(self).model_fields[name].default:
                del out[name]
        return out


PROMPT_NAME = r"^[A-Za-z0-9_-]+$"
"""A prompt is named, never pathed: ``NAME.txt`` in ``gates.prompts_dir`` or ``assets/prompts``."""

OPTION_SOLVER_NAMES = (
    "longest",
    "shortest",
    "question_overlap",
    "centroid",
    "edit_centroid",
    "odd_one_out",
    "most_specific_number",
)
"""The option-only shortcut solvers of ``validators/answerers/option_solvers.py``."""
OPTION_SOLVER_MEMBERS = [f"solver_{n}" for n in OPTION_SOLVER_NAMES]
"""The same as built-in panel members."""

MINILM_MEMBERS = ["solver_centroid_minilm", "text_retrieval_minilm"]
"""MiniLM shortcut solvers (extra ``ml``; without it they abstain and their ids say so). The
default ``text_only_clue`` panel does not seat ``text_retrieval_minilm``: on the evidence's own
text a name line would always match its name; the gate runs MiniLM over the whole text history
instead (``validators/text_retrieval.py``)."""

DEFAULT_PANELS = {
    "option_only": ["lexical", "option_prior", *OPTION_SOLVER_MEMBERS, "solver_centroid_minilm"],
    "text_only_clue": ["lexical"],
    "minimal_caption": ["lexical"],
    "oracle": ["symbolic"],
    "modality_necessity": ["symbolic"],
}


# answerers that need no config: a panel may name them without declaring them under ``answerers``
BUILTIN_ANSWERERS = frozenset(
    {"symbolic", "lexical", "option_prior", *OPTION_SOLVER_MEMBERS, *MINILM_MEMBERS}
)


class GateSpec(Strict):
    """Which answerers sit on which gate's panel, and the panel rule.

    ``answerers`` maps a panel member's name to its config; ``kind`` picks the implementation
    (default: the name): symbolic, lexical, embedding, local, or chat (a text backend such as
    an OpenAI-compatible server or Gemini, with a prompt from ``assets/prompts``).
    """

    answerers: dict[Name, dict[str, Any]] = Field(
        default_factory=lambda: {"symbolic": {}, "lexical": {}},
        max_length=MAX_SETTINGS,
        description="panel member name -> config; kind: symbolic, lexical, embedding, local or chat",
    )
    panels: dict[Name, Annotated[list[Name], Field(max_length=MAX_SETTINGS)]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_PANELS.items()},
        max_length=MAX_SETTINGS,
        description="gate -> member names; gates: option_only, text_only_clue, minimal_caption, oracle, "
        "modality_necessity",
    )
    rule: Literal["any", "all", "majority"] = Field(
        default="any",
        description="members that must answer right for the panel to: any, all, majority (more than half)",
    )
    max_answer_share: float = Field(
        default=0.5, gt=0, le=1, description="answer_balance: most a category's items may share one answer"
    )
    prompts_dir: str | None = Field(
        default=None,
        max_length=MAX_PATH,
        description="folder of prompt files, theme-relative (default: assets/prompts)",
    )

    @model_validator(mode="after")
    def _panel_members_exist(self) -> GateSpec:
        for gate, members in self.panels.items():
            if gate not in DEFAULT_PANELS:
                raise ValueError(f"panels.{gate}: unknown gate; panel gates are {sorted(DEFAULT_PANELS)}")
            for i, m in enumerate(members):
                if m not in self.answerers and m not in BUILTIN_ANSWERERS:
                    raise ValueError(f"panels.{gate}.{i}: {m!r} is not in answerers {sorted(self.answerers)}")
        return self

    def resolved_answerers(self) -> dict[str, dict[str, Any]]:
        """``answerers`` plus the config-free built-ins (symbolic, lexical, option_prior) that a
        panel names without declaring them."""
        used = {m for members in self.panels.values() for m in members}
        extra = {m: {} for m in sorted(used & BUILTIN_ANSWERERS) if m not in self.answerers}
        return {**self.answerers, **extra}


TEXT_PLAN_FIELDS = (
    "plan",
    "plan_batch",
    "plan_prompt",
    "plan_shots",
    "plan_shots_batch",
    "plan_shots_prompt",
    "plan_shots_attempts",
)


def drop_defaults(model: BaseModel, out: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """``out`` (a dump of ``model``) without the named fields left at their defaults."""
    for name in names:
        if name in out and getattr(model, name) == type(model).model_fields[name].default:
            del out[name]
    return out


class TextSpec(Strict):
    """Optional model-backed text generation (network or local server, opt-in).

    ``backend`` is a text backend config, e.g. ``{provider: openai, model: ..., base_url: ...,
    api_key_env: OPENAI_API_KEY}``; with ``paraphrase_questions`` each question is rewritten by
    the model and kept only if it still names the same people, places, objects and dates.
    """

    backend: dict[str, Any] | None = Field(
        default=None,
        max_length=MAX_SETTINGS,
        description="text backend: {provider: openai|gemini, model, base_url, api_key_env, ...}",
    )
    paraphrase_questions: bool = Field(
        default=False,
        description="reword each question (kept only if it names the same things, not the answer)",
    )
    prompt: str = Field(
        default="paraphrase",
        pattern=PROMPT_NAME,
        max_length=MAX_NAME,
        description="prompt name of the paraphraser (assets/prompts)",
    )
    plan: bool = Field(default=False, description="icm: the model proposes event outlines (validated)")
    plan_batch: int = Field(default=12, ge=1, le=100, description="event outlines asked for per call")
    plan_prompt: str = Field(
        default="plan_events",
        pattern=PROMPT_NAME,
        max_length=MAX_NAME,
        description="prompt name of the event planner",
    )
    plan_shots: bool = Field(default=False, description="icm: a model proposes clips' shot lists")
    plan_shots_batch: int = Field(default=4, ge=1, le=50, description="clips asked for per call")
    plan_shots_prompt: str = Field(
        default="plan_shots",
        pattern=PROMPT_NAME,
        max_length=MAX_NAME,
        description="prompt name of the shot planner",
    )
    plan_shots_attempts: int = Field(
        default=3, ge=1, le=10, description="calls per batch: proposal and repairs"
    )

    @model_serializer(mode="wrap")
    def _drop_plan_defaults(self, handler: Any) -> dict[str, Any]:
        """Opt-in settings left at their defaults are not dumped: an offline release's
        ``config.resolved.json`` stays as it was before they existed."""
        return drop_defaults(self, handler(self), TEXT_PLAN_FIELDS)

    @model_validator(mode="after")
    def _needs_backend(self) -> TextSpec:
        if self.paraphrase_questions and not self.backend:
            raise ValueError("backend: required when paraphrase_questions is true")
        if self.plan and not self.backend:
            raise ValueError("backend: required when plan is true")
        if self.plan_shots and not self.backend:
            raise ValueError("backend: required when plan_shots is true")
        return self
