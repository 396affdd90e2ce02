"""One world in several families (a theme's ``families:``; docs/cross-family.md).

A multi-family build runs the one stage loop (``pipeline.stage_loop``) once per family, each on
the theme's projection to that family (``family: F``, F's section, no other family's section; the
same cast, places, objects, calendar and seed), merges the families' Worlds into one
(``world_merge.merge_worlds``: one person in two places at once fails the build), makes the
``cross`` items over the merged World (``cross_items.py``) and freezes one release:

```
RELEASE/
  MANIFEST.json              every file below, with `families`
  data/world.json            the one World
  data/cross/questions.*     cross items (evaluator view); agent/cross/questions.* (agent view)
  gates/cross/               the cross items' verdicts, rejects and funnel
  families/<F>/              family F's release as a single-family build writes it, less its
                             data/world.json (MANIFEST.json, data/F/, agent/F/, media/, gates/, card)
  README.md                  the card: every family's configs (paths under families/F/) and cross
```

The families' items stay as their own builds make them; ``verify`` checks each family's release
against the one World (its exact gates re-derive every answer there) and the cross items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mnemoforge.exporters.multi_release import freeze_multi
from mnemoforge.exporters.release import with_variants
from mnemoforge.generators.coherence import check_world
from mnemoforge.generators.world_merge import fact_sources, merge_worlds
from mnemoforge.hashing import content_hash, sha256_bytes, short
from mnemoforge.implementation import code_version, release_version
from mnemoforge.schemas.theme import Theme
from mnemoforge.store import atomic
from mnemoforge.theme_projection import project_theme_bytes

if TYPE_CHECKING:
    from mnemoforge.pipeline import StageRunner


@dataclass
class MultiBuild:
    """A finished multi-family build: each family's run folder, the merged World, the release."""

    run_dirs: dict[str, Path]
    world_path: Path
    release_dir: Path
    ran: dict[str, dict[str, bool]]


def multi_root(outputs: Path, theme: Theme, theme_bytes: bytes, seed: int) -> Path:
    """The folder of a multi-family build's own files (projections, merged World, cross items)."""
    key = short(content_hash(sha256_bytes(theme_bytes), seed, code_version()), 10)
    return Path(outputs) / "multi" / f"{theme.name}-s{seed}-{key}"


def build_multi(
    theme_path: Path,
    *,
    seed: int | None = None,
    outputs: Path = Path("outputs"),
    workers: int = 2,
    progress: Callable[[str, str], None] | None = None,
    version: str | None = None,
    variants: Sequence[str] = (),
    runner: StageRunner | None = None,
) -> MultiBuild:
    """Build every family of a ``families:`` theme, merge their Worlds, make the cross items and
    freeze one release. ``variants``: length variants (``build --variants``; docs/variants.md)
    each family's release holds besides its full history (the cross items have none). ``runner``:
    how ``stage_loop`` runs a stage (default: in this process; the Prefect flow passes its task
    runner, ``flows/tasks.py``): the one stage loop, once per family, whatever the executor."""
    from mnemoforge import pipeline
    from mnemoforge.theme_checks import check_theme

    theme_path = Path(theme_path)
    theme = check_theme(theme_path, seed)
    if not theme.families:
        raise ValueError(f"{theme_path}: the theme lists no `families:` (build it with `mnemoforge build`)")
    seed = theme.seed if seed is None else seed
    theme_bytes = theme_path.read_bytes()
    check_variants(theme, variants)  # before any work: a name one family cannot build
    root = multi_root(outputs, theme, theme_bytes, seed)
    root.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(root / "theme.yaml", theme_bytes)
    ctxs: dict[str, pipeline.BuildContext] = {}
    ran: dict[str, dict[str, bool]] = {}
    for fam in theme.families:
        proj = root / "themes" / f"{fam}.yaml"
        data = project_theme_bytes(theme_bytes, fam)
        if not proj.is_file() or proj.read_bytes() != data:
            atomic.write_bytes(proj, data)
        ctx = pipeline.BuildContext(
            proj, Path(outputs), seed, workers, progress, theme_dir=theme_path.parent.resolve(),
            variants=tuple(variants),
        )  # fmt: skip
        with pipeline.run_lock(ctx):
            pipeline.prepare(ctx)
            ran[fam] = pipeline.stage_loop(ctx, runner or pipeline.run_one_stage, progress)
        ctxs[fam] = ctx
    worlds = {fam: pipeline.load_world(c.run) for fam, c in ctxs.items()}
    world = check_world(merge_worlds(worlds), theme)  # one person in two places: fails here
    world_path = atomic.write_json(root / "world.json", world)
    from mnemoforge.generators.cross_items import candidates, qualified
    from mnemoforge.validators.cross_gates import run_cross_gates

    sources = fact_sources(worlds)
    observations = {
        f"{fam}:{o.id}": qualified(fam, o)
        for fam, c in ctxs.items()
        for o in pipeline.load_observations(c.run)
    }
    cands = candidates(theme, world, sources, observations)
    cross = run_cross_gates(theme, world, sources, cands, observations, root / "cross" / "cache")
    atomic.write_jsonl(root / "cross" / "candidates.jsonl", cross.candidates)
    atomic.write_jsonl(root / "cross" / "verdicts.jsonl", cross.verdicts)
    atomic.write_json(root / "cross" / "funnel.json", cross.funnel)
    contents = {fam: with_variants(pipeline.run_contents(c)) for fam, c in ctxs.items()}
    version = release_version(version or theme.version)
    dest = pipeline.OutputsLayout(Path(outputs)).release(release_name(theme, seed, variants), version)
    freeze_multi(theme, theme_bytes, seed, world, contents, cross, sources, dest, version)
    return MultiBuild({f: c.run.root for f, c in ctxs.items()}, world_path, dest, ran)


def release_name(theme: Theme, seed: int, variants: Sequence[str] = ()) -> str:
    """The release folder's name, as a single-family build names it (``NAME`` or ``NAME-sSEED``,
    then ``-oracle-s-m-l`` with length variants)."""
    name = theme.name if seed == theme.seed else f"{theme.name}-s{seed}"
    return f"{name}-{'-'.join(variants)}" if variants else name


def check_variants(theme: Theme, names: Sequence[str]) -> None:
    """``--variants`` of a ``families:`` theme: length variants every listed family builds (sized by
    share: the theme's ``variants:`` or the defaults); a modality ablation is one family's, so it
    is refused here (``VariantError`` naming it)."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.theme_projection import project_theme
    from mnemoforge.variants import VariantError, resolve

    for fam in theme.families or []:
        family = get_family(fam)
        ablations = [n for n in names if n in family.ablations]
        if ablations:
            raise VariantError(
                "--variants", f"{ablations[0]!r} is a modality ablation of family {fam}; a theme with "
                "families: builds length variants only (oracle, s, m, l or the theme's variants:)",
            )  # fmt: skip
        resolve(project_theme(theme, fam), family, names)
