"""The theme schema as documentation: every field's type, default, limits and description.

One walk over the pydantic models feeds the generated reference page of the docs site
(``docs/hooks/generate.py``) and the comments of the starter theme, so neither can drift from
the schema the loader enforces.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

import yaml
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
    if value in ([], {}, (), ""):
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
                type=" | ".join(map(repr, c)) if (c := _enum(info)) else type_text(info.annotation),
                default=_default(info),
                limits=_limits(info),
                description=" ".join((info.description or "").split()),
                required=info.is_required(),
            )
        )
    return tuple(out)


_CONTAINERS = (list, tuple, set, frozenset)


def _enum(info: FieldInfo) -> list[Any]:
    """The choices a registry-checked field lists in its JSON schema (``WithJsonSchema`` enum: a
    theme's ``family`` and ``render.image``, the built-ins; a plugin may register more)."""
    for m in info.metadata:
        schema = getattr(m, "json_schema", None) if type(m).__name__ == "WithJsonSchema" else None
        if isinstance(schema, dict) and "enum" in schema:
            return list(schema["enum"])
    return []


def _literals(annotation: Any) -> list[Any]:
    """The values a field may take where its type is a choice (``Literal``, also inside a list)."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    if get_origin(annotation) in (*_CONTAINERS, typing.Union, types.UnionType, typing.Annotated):
        return [v for a in get_args(annotation) for v in _literals(a)]
    return []


def field_comment(info: FieldInfo) -> str:
    """A field's description as a YAML comment says it: the description, then the choices of a
    ``Literal`` type (``outline of the drawn face: oval | round | square | heart | long``)."""
    text = " ".join((info.description or "").split())
    values = [str(v) for v in dict.fromkeys(_enum(info) or _literals(info.annotation)) if v is not None]
    named = set(re.findall(r"[\w-]+", text))
    if text and len(values) > 1 and not set(values) <= named:
        text = f"{text}: {' | '.join(values)}"
    return text


def resolve(root: type[BaseModel], keys: Sequence[str]) -> FieldInfo | None:
    """The field a YAML key path names (``["cast", "appearance", "face_shape"]``; list items are
    walked through), or None where a key is no field of the schema."""
    model: type[BaseModel] | None = root
    info: FieldInfo | None = None
    for key in keys:
        if model is None:
            return None
        info = next((f for n, f in model.model_fields.items() if (f.alias or n) == key), None)
        if info is None:
            return None
        subs = _models_in(info.annotation)
        model = subs[0] if len(subs) == 1 else None
    return info


_TYPE_TAGS = frozenset(
    {"str", "int", "float", "bool", "none", "list", "dict", "tuple", "set", "constrained-str"}
)


def _is_union(annotation: Any) -> bool:
    args = [a for a in get_args(annotation) if a is not type(None)]
    return get_origin(annotation) in (typing.Union, types.UnionType) and len(args) > 1


def error_path(root: type[BaseModel], loc: Sequence[int | str]) -> str:
    """The field path a pydantic error location names, without the tags pydantic adds for the
    member of a union it tried (``lines.list[str].0`` is ``lines.0``; ``prices.dict[str,any]`` is
    ``prices``), so an error always names a path of keys and list indexes."""
    model: type[BaseModel] | None = root
    union = False
    arms: set[str] = set()  # the names of a union's model members (pydantic tags an error with one)
    out: list[str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(str(part))
            continue
        if union and (part in _TYPE_TAGS or part in arms or not re.fullmatch(r"[A-Za-z0-9_-]+", part)):
            continue  # the union member pydantic tried, not a key of the theme
        fields = {(f.alias or n): f for n, f in model.model_fields.items()} if model else {}
        out.append(part)
        info = fields.get(part)
        if info is None:  # a mapping's key, or an unknown field
            model, union = None, False
            continue
        subs = _models_in(info.annotation)
        union = _is_union(info.annotation)
        arms = {m.__name__ for m in subs} if union else set()
        model = subs[0] if len(subs) == 1 else None
    return ".".join(out)


def walk(root: type[BaseModel], root_path: str = "", root_name: str = "(theme)") -> list[ModelDoc]:
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
            paths=tuple(p.lstrip(".") or root_name for p in paths[m]),
            doc=" ".join((m.__doc__ or "").split()),
            fields=field_docs(m),
        )
        for m in order
    ]


def _flow(value: Any, width: int = 48) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6, sort_keys=False)
    text = text.strip().removesuffix("...").strip()
    return text if len(text) <= width else text[: width - 1] + "…"


def examples(root: type[BaseModel], documents: Iterable[Any]) -> dict[tuple[type[BaseModel], str], str]:
    """The first value each field takes in ``documents`` (themes or packs as loaded from YAML), as
    short YAML flow text: the example column of the reference page."""
    out: dict[tuple[type[BaseModel], str], str] = {}

    def visit(model: type[BaseModel], data: Any) -> None:
        if not isinstance(data, dict):
            return
        fields = {(f.alias or n): f for n, f in model.model_fields.items()}
        for key, value in data.items():
            info = fields.get(key)
            if info is None:
                continue
            subs = _models_in(info.annotation)
            sub = subs[0] if len(subs) == 1 else None
            if sub is not None and isinstance(value, dict):
                visit(sub, value)
            elif sub is not None and isinstance(value, list) and value and isinstance(value[0], dict):
                for item in value:
                    visit(sub, item)
            else:
                out.setdefault((model, key), _flow(value))

    for document in documents:
        visit(root, document)
    return out


def markdown(
    root: type[BaseModel],
    title: str,
    root_name: str = "(theme)",
    example: dict[tuple[type[BaseModel], str], str] | None = None,
) -> str:
    """The reference page: one section per model with a table of its fields (and an example value
    of each from ``example``, see :func:`examples`)."""
    example = example or {}
    lines = [f"# {title}", "", "Generated from the schema the loader enforces (`mnemoforge/schemas/`).", ""]
    for doc in walk(root, root_name=root_name):
        lines += [f"## {doc.model.__name__}", ""]
        lines.append("At: " + ", ".join(f"`{p}`" for p in doc.paths))
        lines.append("")
        if doc.doc and not doc.doc.startswith(("Usage docs", "!!! abstract")):
            lines += [doc.doc, ""]
        lines += ["| field | type | default | limits | example | meaning |", "|---|---|---|---|---|---|"]
        for f in doc.fields:
            shown = example.get((doc.model, f.name))
            cells = [f"`{f.name}`", f.type, f.default, f.limits, f"`{shown}`" if shown else "", f.description]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)
