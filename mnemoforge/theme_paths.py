"""The paths a theme names: resolved against the theme's folder, checked to stay inside it.

Path fields: ``gates.prompts_dir`` (a folder), ``prices`` (a YAML file, when a string),
``cast[].voice.reference_wav`` (a clip, coqui voices) and ``render.image_model`` (a diffusers
model folder, when it is a path rather than a hub id). A relative path is relative to the
theme file's folder. ``load_theme`` hands every consumer absolute paths (:func:`resolved`), so
a build behaves the same from any current folder; the theme's bytes, and the release's
``config.resolved.json``, keep the paths as written.

``theme check`` and ``build`` (:func:`path_problems`) refuse a path that resolves (``..`` and
symbolic links followed) outside the theme's folder, the project's ``assets/`` and the folders
listed in ``MNEMOFORGE_ALLOWED_PATHS``, and a file that is not a regular file or is too large.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mnemoforge.bounded_io import ALLOWED_ENV, allowed_roots, inside
from mnemoforge.schemas.theme import Theme

MAX_PRICES_BYTES = 1 << 20  # a price table is a few dozen lines
MAX_REFERENCE_WAV_BYTES = 64 << 20  # a few minutes of speech at 16 bit / 48 kHz


def _local_model(model: str | None) -> bool:
    if not model:
        return False
    from mnemoforge.backends.image.diffusion import _looks_local

    return _looks_local(model)


def path_fields(theme: Theme) -> Iterator[tuple[str, str, str]]:
    """(field path, value as the theme holds it, kind: ``dir`` or ``file``) of every path field."""
    if theme.gates.prompts_dir:
        yield "gates.prompts_dir", theme.gates.prompts_dir, "dir"
    if isinstance(theme.prices, str):
        yield "prices", theme.prices, "file"
    for i, p in enumerate(theme.cast):
        if p.voice.reference_wav:
            yield f"cast.{i}.voice.reference_wav", p.voice.reference_wav, "file"
    if theme.render.image_model and _local_model(theme.render.image_model):
        yield "render.image_model", theme.render.image_model, "dir"


def absolute(value: str, base: Path) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else Path(base) / p


def resolved(theme: Theme, base: Path) -> Theme:
    """``theme`` with every path field absolute (relative ones taken from ``base``)."""
    fields = {f: str(absolute(v, base)) for f, v, _ in path_fields(theme)}
    if not fields:
        return theme
    update: dict[str, Any] = {}
    if "gates.prompts_dir" in fields:
        update["gates"] = theme.gates.model_copy(update={"prompts_dir": fields["gates.prompts_dir"]})
    if "prices" in fields:
        update["prices"] = fields["prices"]
    if "render.image_model" in fields:
        update["render"] = theme.render.model_copy(update={"image_model": fields["render.image_model"]})
    cast = list(theme.cast)
    for i, p in enumerate(cast):
        key = f"cast.{i}.voice.reference_wav"
        if key in fields:
            voice = p.voice.model_copy(update={"reference_wav": fields[key]})
            cast[i] = p.model_copy(update={"voice": voice})
    if cast != list(theme.cast):
        update["cast"] = cast
    return theme.model_copy(update=update)


def path_problems(theme: Theme, base: Path) -> list[tuple[str, str]]:
    """(field, message) for each path field outside the allowed folders, missing, or not what it
    must be (a folder; a regular file within its size cap)."""
    roots = allowed_roots([base])
    out = []
    for field, value, kind in path_fields(theme):
        path = absolute(value, base)
        if not inside(path, roots):
            where = f"{value!r} is {path.resolve()}, outside the theme's folder {Path(base).resolve()}"
            out.append((field, f"{where} (allowed: it, assets/ and the folders in {ALLOWED_ENV})"))
            continue
        problem = _kind_problem(path, kind, field)
        if problem:
            out.append((field, problem))
    return out


def _kind_problem(path: Path, kind: str, field: str) -> str | None:
    try:
        st = path.stat()
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    if kind == "dir":
        return None if stat.S_ISDIR(st.st_mode) else f"{path}: not a folder"
    if not stat.S_ISREG(st.st_mode):
        return f"{path}: not a regular file"
    cap = MAX_PRICES_BYTES if field == "prices" else MAX_REFERENCE_WAV_BYTES
    if st.st_size > cap:
        return f"{path}: {st.st_size} bytes, more than the {cap} this file may have"
    return None
