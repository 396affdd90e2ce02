"""Checks of a theme beyond its schema, made before any work starts (``theme check`` and ``build``).

The schema (``schemas/theme.py``) checks each field and the references between them. Here:
every registry name the build would look up (answerer kinds, text providers and their settings,
the image backend and its model), every path that must exist (prompt folders and the prompts
named), and the family's own ``check_theme`` (generators/families.py) where it has one. Problems
come back as (field path, message), so ``theme check`` fails exactly where the build would.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from typing import Any

from mnemoforge.schemas.theme import MAX_SEED, Theme
from mnemoforge.theme_io import ThemeError, load_theme
from mnemoforge.theme_paths import path_problems

NO_CONFIG = {"symbolic", "option_prior"}
ANSWERER_SETTINGS = {"kind"}


def check_theme(path: Path | str, seed: int | None = None) -> Theme:
    """Load ``path`` and raise one ``ThemeError`` listing every problem the build would hit."""
    path = Path(path)
    theme = load_theme(path)
    problems = path_problems(theme, path.parent)  # first: the other checks read these paths
    if not problems:
        problems = theme_problems(theme) + price_problems(theme, path)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        problems.append(("--seed", f"must be between 0 and 2**63-1, got {seed}"))
    if problems:
        raise ThemeError(path, problems)
    return theme


def price_problems(theme: Theme, path: Path) -> list[tuple[str, str]]:
    """The theme's ``prices:`` must be a valid price table (``backends/prices.py``)."""
    from mnemoforge.backends.prices import PriceError, resolve_prices

    if theme.prices is None:
        return []
    try:
        resolve_prices(theme.prices, base=path.parent)
    except PriceError as e:
        return [("prices", str(e))]
    return []


def theme_problems(theme: Theme) -> list[tuple[str, str]]:
    out = option_problems(theme)
    out += prompt_problems(theme) + answerer_problems(theme) + text_problems(theme) + render_problems(theme)
    return out + family_problems(theme) + variant_problems(theme)


def variant_problems(theme: Theme) -> list[tuple[str, str]]:
    """A ``variants:`` section the family builds: it has length variants, sizes within its World."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.variants import theme_problems as problems

    return problems(theme, get_family(theme.family))


def option_problems(theme: Theme) -> list[tuple[str, str]]:
    """An optional setting the theme's family does not read is an error, never silently ignored."""
    from mnemoforge.family import THEME_OPTIONS
    from mnemoforge.generators.families import get_family

    fam = get_family(theme.family)
    render, fields = theme.render, type(theme.render).model_fields
    # a setting written out at its default changes nothing: only one that asks for more counts
    given = {f"render.{f}" for f in render.model_fields_set if getattr(render, f) != fields[f].default}
    given |= {f"text.{f}" for f in ("plan", "plan_shots") if getattr(theme.text, f)}
    return [
        (opt, f"family {theme.family} does not use this setting (it would be ignored); remove it")
        for opt in sorted(given & THEME_OPTIONS - fam.theme_options)
    ]


def _prompts_dir(theme: Theme) -> Path | None:
    return Path(theme.gates.prompts_dir).expanduser() if theme.gates.prompts_dir else None


def prompt_problems(theme: Theme) -> list[tuple[str, str]]:
    from mnemoforge.validators.prompts import load_prompt

    folder = _prompts_dir(theme)
    if folder is not None and not folder.is_dir():
        return [("gates.prompts_dir", f"no such folder: {folder} (relative to the theme's folder)")]
    wanted: list[tuple[str, str]] = []
    if theme.text.backend:
        wanted.append(("text.prompt", theme.text.prompt))
    for name, cfg in theme.gates.answerers.items():
        if cfg.get("kind", name) == "chat":
            for key, default in (("mcq_prompt", "answer_mcq"), ("open_prompt", "answer_open")):
                wanted.append((f"gates.answerers.{name}.{key}", str(cfg.get(key, default))))
    out = []
    for field, prompt in wanted:
        try:
            load_prompt(prompt, folder)
        except (FileNotFoundError, ValueError) as e:
            out.append((field, str(e)))
    return out


def answerer_problems(theme: Theme) -> list[tuple[str, str]]:
    from mnemoforge.validators.answerers.registry import ANSWERERS

    out = []
    for name, cfg in theme.gates.answerers.items():
        kind = cfg.get("kind", name)
        field = f"gates.answerers.{name}" + (".kind" if "kind" in cfg else "")
        if kind == "chat":
            own = ("kind", "mcq_prompt", "open_prompt", "max_images", "name")
            settings = {k: v for k, v in cfg.items() if k not in own}
            out += [(_join(f"gates.answerers.{name}", f), m) for f, m in _backend_problems(settings)]
        elif kind not in ANSWERERS:
            known = sorted({*ANSWERERS, "chat"})
            out.append((field, f"unknown answerer kind {kind!r}; known: {', '.join(known)}"))
        elif kind in NO_CONFIG and set(cfg) - ANSWERER_SETTINGS:
            extra = sorted(set(cfg) - ANSWERER_SETTINGS)
            out.append((f"gates.answerers.{name}", f"the {kind} answerer takes no settings, got {extra}"))
        elif kind == "lexical":
            from mnemoforge.validators.answerers.lexical import LexicalAnswerer

            allowed = set(inspect.signature(LexicalAnswerer).parameters) | ANSWERER_SETTINGS
            for key in sorted(set(cfg) - allowed):
                out.append(
                    (f"gates.answerers.{name}.{key}", f"unknown setting; lexical takes {sorted(allowed)}")
                )
    return out


def _backend_problems(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(sub-field, message) for a text backend config, resolved as the build will resolve it."""
    from mnemoforge.backends.text.registry import make_text_backend, providers

    provider, known = spec.get("provider"), providers()
    if provider not in known:
        return [("provider", f"unknown text provider {provider!r}; known: {', '.join(known)}")]
    try:
        make_text_backend(spec)  # builds a client object only: no request is sent
    except (ValueError, TypeError) as e:
        return [("", str(e))]  # a setting the backend refuses (unknown key, missing API key)
    return []


def text_problems(theme: Theme) -> list[tuple[str, str]]:
    if not theme.text.backend:
        return []
    out = [(_join("text.backend", f), m) for f, m in _backend_problems(theme.text.backend)]
    if theme.text.plan:
        from mnemoforge.validators.prompts import load_prompt

        try:
            load_prompt(theme.text.plan_prompt, _prompts_dir(theme))
        except FileNotFoundError as e:
            out.append(("text.plan_prompt", str(e)))
    if theme.text.plan_shots:
        from mnemoforge.validators.prompts import load_prompt

        for field, name in (("text.plan_shots_prompt", theme.text.plan_shots_prompt),
                            ("text.plan_shots", "plan_shots_fix")):  # fmt: skip
            try:
                load_prompt(name, _prompts_dir(theme))
            except FileNotFoundError as e:
                out.append((field, str(e)))
    return out


def _join(base: str, sub: str) -> str:
    return f"{base}.{sub}" if sub else base


def render_problems(theme: Theme) -> list[tuple[str, str]]:
    r = theme.render
    if r.image != "diffusers" or not r.image_model:
        from mnemoforge.backends.media_checks import media_api_problems

        return media_api_problems(theme)
    from mnemoforge.backends.image.diffusion import ML_MODULES, _looks_local

    missing = [m for m in ML_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        return [("render.image", f"diffusers needs {', '.join(missing)}: pip install 'mnemoforge[ml]'")]
    model = r.image_model
    if _looks_local(model):
        folder = Path(model).expanduser()
        if not folder.is_dir():
            return [("render.image_model", f"no such model folder: {folder}")]
        if not (folder / "model_index.json").is_file():
            return [("render.image_model", f"{folder} is not a diffusers model folder (no model_index.json)")]
        return []
    if not r.allow_network and not _in_hub_cache(model):
        return [
            (
                "render.image_model",
                f"{model!r} is not a local folder and not in the Hugging Face cache; "
                "download it first or set render.allow_network: true",
            )
        ]
    return []


def _in_hub_cache(repo_id: str) -> bool:
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return (Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}").is_dir()


def family_problems(theme: Theme) -> list[tuple[str, str]]:
    """The family's own ``check_theme`` (issues 12 and 13); with ``families:``, every listed
    family's on the theme's projection to it (``theme_projection.project_theme``), each problem
    naming its family and ``families.I``."""
    from mnemoforge.generators.families import get_family

    if theme.families:
        from mnemoforge.theme_projection import project_theme

        out = []
        for n, spec in (theme.variants or {}).items():  # one section for families of other units
            if spec.size is not None:
                why = ("a theme with families: sizes its length variants by share (each family "
                       "counts its own unit: clips, sessions); give share: instead")  # fmt: skip
                out.append((f"variants.{n}.size", why))
        for i, name in enumerate(theme.families):
            proj = project_theme(theme, name)
            for field, msg in family_problems(proj) + option_problems(proj) + variant_problems(proj):
                out.append((field, f"{msg} (family {name}, families.{i})"))
        return out

    fam = get_family(theme.family)
    out = []
    for p in fam.check_theme(theme):
        field, sep, msg = str(p).partition(": ")
        out.append((field, msg) if sep and " " not in field else ("<family>", str(p)))
    return out
