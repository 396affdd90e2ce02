"""The price table that turns a model call's usage into an estimated cost (``assets/prices.yaml``).

Prices are data, never code: the shipped table is ``assets/prices.yaml``; a theme's ``prices:``
(a mapping, or a path to a YAML file) and a ``--prices FILE`` are laid over it, entry by entry.
A model is priced by its entry in ``models`` (exact name first, then the longest matching
glob such as ``gemini-2.5-flash*``), else by ``default``. An entry's fields, all optional:

- ``input_per_mtok`` / ``output_per_mtok``: per million prompt / completion tokens;
- ``per_call``: per request;
- ``per_image``: per generated image;
- ``per_video_second`` / ``per_speech_second``: per second of generated video / speech
  (``media_seconds`` of an operation named ``video`` or ``speech``; other media use
  ``per_media_second``);
- ``per_video_audio_second``: per second of generated video with the model's own audio
  (operation ``video_audio``; ``per_video_second`` when absent).

``estimates`` holds the assumptions ``build --preflight`` turns a plan into usage with
(``ESTIMATE_FIELDS``: characters per token, tokens an input image costs, the context a chat
gate sends, the reply tokens of one planned event and of one planned shot).
"""

from __future__ import annotations

import fnmatch
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mnemoforge import yaml_io

DEFAULT_PRICES = Path(__file__).resolve().parents[2] / "assets" / "prices.yaml"
FIELDS = (
    "input_per_mtok",
    "output_per_mtok",
    "per_call",
    "per_image",
    "per_video_second",
    "per_video_audio_second",
    "per_speech_second",
    "per_media_second",
)

ESTIMATE_FIELDS = {
    "chars_per_token": 4.0,
    "image_input_tokens": 258.0,
    "gate_context_tokens": 600.0,
    "plan_tokens_per_event": 60.0,
    "plan_tokens_per_shot": 40.0,
}


class PriceError(ValueError):
    """A price file or mapping that is not a valid price table (names the file and field)."""


def _entry(where: str, value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise PriceError(f"{where}: expected a mapping of prices, got {type(value).__name__}")
    out: dict[str, float] = {}
    for k, v in value.items():
        if k not in FIELDS:
            raise PriceError(f"{where}.{k}: unknown price field; expected one of {', '.join(FIELDS)}")
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise PriceError(f"{where}.{k}: expected a number >= 0, got {v!r}")
        out[k] = float(v)
    return out


@dataclass(frozen=True)
class PriceTable:
    """Prices per model (and a default) in one currency."""

    currency: str = "USD"
    models: dict[str, dict[str, float]] = field(default_factory=dict)
    default: dict[str, float] = field(default_factory=dict)
    estimates: dict[str, float] = field(default_factory=lambda: dict(ESTIMATE_FIELDS))
    explicit_estimates: frozenset[str] = frozenset()

    @classmethod
    def from_mapping(cls, data: Any, where: str = "prices") -> PriceTable:
        if not isinstance(data, dict):
            raise PriceError(f"{where}: expected a mapping with `models:`, got {type(data).__name__}")
        bad = set(data) - {"currency", "models", "default", "estimates", "version"}
        if bad:
            raise PriceError(
                f"{where}.{sorted(bad)[0]}: unknown key; expected currency, models, default, estimates"
            )
        est = data.get("estimates") or {}
        if not isinstance(est, dict):
            raise PriceError(f"{where}.estimates: expected a mapping")
        for k, v in est.items():
            if k not in ESTIMATE_FIELDS:
                raise PriceError(
                    f"{where}.estimates.{k}: unknown; expected one of {', '.join(ESTIMATE_FIELDS)}"
                )
            if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
                raise PriceError(f"{where}.estimates.{k}: expected a number > 0, got {v!r}")
        models = data.get("models") or {}
        if not isinstance(models, dict):
            raise PriceError(f"{where}.models: expected a mapping of model name to prices")
        return cls(
            currency=str(data.get("currency", "USD")),
            models={str(m): _entry(f"{where}.models.{m}", v) for m, v in models.items()},
            default=_entry(f"{where}.default", data.get("default") or {}),
            estimates={**ESTIMATE_FIELDS, **{k: float(v) for k, v in est.items()}},
            explicit_estimates=frozenset(est),
        )

    @classmethod
    def load(cls, path: Path) -> PriceTable:
        from mnemoforge.bounded_io import BoundedReadError, read_capped

        path = Path(path)
        try:  # a regular file of at most 1 MB: a path to /dev/zero is refused, never read
            data = yaml_io.safe_load(read_capped(path, 1 << 20, "price table").decode("utf-8"))
        except BoundedReadError as exc:
            raise PriceError(str(exc)) from None
        except UnicodeDecodeError:
            raise PriceError(f"{path}: the price table is not UTF-8 text") from None
        except yaml.YAMLError as exc:
            raise PriceError(f"{path}: not valid YAML ({exc})") from None
        return cls.from_mapping(data, str(path))

    def over(self, other: PriceTable | None) -> PriceTable:
        """This table laid over ``other`` (this one's entries win, field by field)."""
        if other is None:
            return self
        models = {m: dict(v) for m, v in other.models.items()}
        for m, v in self.models.items():
            models[m] = {**models.get(m, {}), **v}
        est = {**other.estimates, **{k: self.estimates[k] for k in self.explicit_estimates}}
        return PriceTable(
            self.currency,
            models,
            {**other.default, **self.default},
            est,
            other.explicit_estimates | self.explicit_estimates,
        )

    def entry(self, model: str) -> tuple[dict[str, float], bool]:
        """The prices of ``model`` and whether the table names it (else the default applies)."""
        if model in self.models:
            return self.models[model], True
        globs = [p for p in self.models if any(c in p for c in "*?[") and fnmatch.fnmatchcase(model, p)]
        if globs:
            return self.models[max(globs, key=len)], True
        return self.default, False

    def cost(
        self,
        model: str,
        operation: str = "chat",
        *,
        tokens_in: int = 0,
        tokens_out: int = 0,
        images: int = 0,
        media_seconds: float = 0.0,
        calls: int = 1,
    ) -> float:
        """Estimated cost of ``calls`` calls with this usage (0 for what the table does not price)."""
        p, _ = self.entry(model)
        media = {
            "video": "per_video_second",
            "video_audio": "per_video_audio_second",
            "speech": "per_speech_second",
        }.get(operation, "per_media_second")
        other = "per_video_second" if operation == "video_audio" else "per_media_second"
        fallback = p.get(other, 0.0)
        total = (
            tokens_in / 1e6 * p.get("input_per_mtok", 0.0)
            + tokens_out / 1e6 * p.get("output_per_mtok", 0.0)
            + calls * p.get("per_call", 0.0)
            + images * p.get("per_image", 0.0)
            + media_seconds * p.get(media, fallback)
        )
        return round(total, 9)


@functools.cache
def default_prices() -> PriceTable:
    """The shipped ``assets/prices.yaml``."""
    return PriceTable.load(DEFAULT_PRICES)


def resolve_prices(
    theme_prices: Any = None, prices_file: Path | None = None, base: Path | None = None
) -> PriceTable:
    """Shipped table, then the theme's ``prices:`` (mapping or path, relative to ``base``), then a file."""
    table = default_prices()
    if isinstance(theme_prices, str):
        p = Path(theme_prices)
        table = PriceTable.load(p if p.is_absolute() or base is None else base / p).over(table)
    elif theme_prices is not None:
        table = PriceTable.from_mapping(theme_prices, "prices").over(table)
    if prices_file is not None:
        table = PriceTable.load(prices_file).over(table)
    return table
