"""The theme schema as documentation: every field's type, default, limits and description.

One walk over the pydantic models feeds the generated reference page of the docs site
(``docs/hooks/generate.py``) and the comments of the starter theme, so neither can drift from
the schema the loader enforces.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined


@dataclass(frozen=True)
class FieldDoc:
    """One field of one model, as a reader of the reference sees it."""

    name: str
    type: str
    default: str
    limits: str
    description: str
    required: bool


@dataclass(frozen=True)
class ModelDoc:
    """One model (a YAML mapping in a theme) and the dotted paths it appears at."""

    model: type[BaseModel]
    paths: tuple[str, ...]
    doc: str
    fields: tuple[FieldDoc, ...]

    @property
    def anchor(self) -> str:
        return self.model.__name__.lower()


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in get_args(annotation) for m in _models_in(a)]


def type_text(annotation: Any) -> str:
    """A short, readable form of a field's type (``list of Outfit``, ``'a' | 'b'``)."""
    origin = get_origin(annotation)
    if annotation is type(None):
        return "null"
    if origin is Literal:
        return " | ".join(repr(a) for a in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in get_args(annotation))
    if origin is typing.Annotated:
        return type_text(get_args(annotation)[0])
    if origin in (list, tuple, set, frozenset):
        args = [a for a in get_args(annotation) if a is not Ellipsis]
        inner = ", ".join(dict.fromkeys(type_text(a) for a in args)) or "any"
        return f"list of {inner}"
    if origin is dict:
        k, v = (get_args(annotation) + (Any, Any))[:2]
        return f"mapping {type_text(k)} → {type_text(v)}"
    if annotation is Any:
        return "any"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
        return {"str": "text", "int": "integer", "float": "number", "bool": "true/false"}.get(
            annotation.__name__, annotation.__name__
        )
    return str(annotation).replace("typing.", "")


def _limits(info: FieldInfo) -> str:
    words = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥", "max_length": "length ≤"}
    out: list[str] = []
    for meta in info.metadata:
        for attr, word in words.items():
            value = getattr(meta, attr, None)
            if value is not None:
                out.append(f"{word} {value}")
        pattern = getattr(meta, "pattern", None)
        if pattern:
            out.append(f"pattern `{pattern}`")
    return ", ".join(out)


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    if info.default_factory is not None:
        try:
            value = info.default_factory()  # type: ignore[call-arg]
        except TypeError:
            return "(computed)"
    else:
        value = info.default
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, BaseModel):
        return "(defaults below)"
    if value in ([], {}, ()):
        return "empty"
    if value is None:
        return "none"
    return f"`{value!r}`" if not isinstance(value, str) else f"`{value}`"


def field_docs(model: type[BaseModel]) -> tuple[FieldDoc, ...]:
    """The fields of ``model`` by their YAML key (alias where one is set)."""
    out = []
    for name, info in model.model_fields.items():
        out.append(
            FieldDoc(
                name=info.alias or name,
                type=type_text(info.annotation),
                default=_default(info),
                limits=_limits(info),
                description=" ".join((info.description or "").split()),
                required=info.is_required(),
            )
        )
    return tuple(out)


def walk(root: type[BaseModel], root_path: str = "") -> list[ModelDoc]:
    """Every model reachable from ``root``, root first, in the order a reader meets them."""
    order: list[type[BaseModel]] = []
    paths: dict[type[BaseModel], list[str]] = {}
    todo: list[tuple[type[BaseModel], str]] = [(root, root_path)]
    while todo:
        model, path = todo.pop(0)
        if model in paths:
            if path not in paths[model]:
                paths[model].append(path)
            continue
        order.append(model)
        paths[model] = [path]
        for name, info in model.model_fields.items():
            key = info.alias or name
            for sub in _models_in(info.annotation):
                many = get_origin(info.annotation) in (list, tuple) or "list of" in type_text(info.annotation)
                todo.append((sub, f"{path}.{key}[]" if many else f"{path}.{key}" if path else key))
    return [
        ModelDoc(
            model=m,
            paths=tuple(p.lstrip(".") or "(theme)" for p in paths[m]),
            doc=" ".join((m.__doc__ or "").split()),
            fields=field_docs(m),
        )
        for m in order
    ]


def markdown(root: type[BaseModel], title: str) -> str:
    """The reference page: one section per model with a table of its fields."""
    lines = [f"# {title}", "", "Generated from the schema the loader enforces (`mnemoforge/schemas/`).", ""]
    for doc in walk(root):
        lines += [f"## {doc.model.__name__}", ""]
        lines.append("At: " + ", ".join(f"`{p}`" for p in doc.paths))
        lines.append("")
        if doc.doc and not doc.doc.startswith(("Usage docs", "!!! abstract")):
            lines += [doc.doc, ""]
        lines += ["| field | type | default | limits | meaning |", "|---|---|---|---|---|"]
        for f in doc.fields:
            cells = [f"`{f.name}`", f.type, f.default, f.limits, f.description]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)
