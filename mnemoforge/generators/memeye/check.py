"""``check_theme`` of the visual-centric family: every check the build makes, run in memory.

The section's own checks, the **visual-word rule** (no text the agent reads names a value a
picture of the scenario can show: scene names, the assistant's name, the pack's chat lines),
reported per word with a suggested rewording, then a dry run of the plan, episodes and question
stages (World, sessions, captions, candidate questions) and one drawn picture per scenario.
"""

from __future__ import annotations

from mnemoforge.generators.questions.common import EvidenceIndex
from mnemoforge.generators.theme_review import Review, dry_run
from mnemoforge.schemas.theme import Theme


def visual_word_problems(theme: Theme) -> list[str]:
    from mnemoforge.generators.memeye.visual_words import visual_word_problems as words
    from mnemoforge.generators.memeye.vocab import base_vocab, vocab_for
    from mnemoforge.schemas.packs import load_pack

    spec = theme.memeye
    assert spec is not None
    out: list[str] = []
    kinds = sorted({sc.kind for sc in spec.scenarios})
    extra = spec.visual_words
    base = {k: base_vocab(k, spec.pack, spec.scene_packs) for k in kinds}
    scen = [vocab_for(sc, spec.pack, None, spec.scene_packs) for sc in spec.scenarios]
    for i, v in enumerate(scen):
        out += [f"memeye.assistant: {m}" for m in words(v, spec.assistant, f"memeye.scenarios.{i}", extra)]
    for i, (sc, v) in enumerate(zip(spec.scenarios, scen, strict=True)):
        for j, name in enumerate(sc.scenes):
            out += [
                f"memeye.scenarios.{i}.scenes.{j}: {m}"
                for m in words(v, name, f"memeye.scenarios.{i}", extra)
            ]
    pack = load_pack(spec.pack).memeye if spec.pack else None
    if pack is not None:
        # the theme's field is memeye.pack; the message names the pack file and its own field
        where = f"memeye.pack: assets/packs/{spec.pack}.yaml, memeye"
        for k, kp in sorted(pack.kinds.items()):
            if k not in kinds:
                continue
            lines = [(f"kinds.{k}.share.{n}", x) for n, x in enumerate(kp.share)]
            lines += [(f"kinds.{k}.chat.{n}", f"{a} {b}") for n, (a, b) in enumerate(kp.chat)]
            for path, text in lines:
                out += [f"{where}.{path}: {m}" for m in words(base[k], text.replace("{s}", ""), "", extra)]
        for n, x in enumerate(pack.image_replies):
            for k in kinds:
                out += [
                    f"{where}.image_replies.{n}: {m}" for m in words(base[k], x.replace("{s}", ""), "", extra)
                ]
    return list(dict.fromkeys(out))


# what a theme declares in a scenario's ``draws`` for items of a granularity (short: the message
# is one line of at most 300 characters)
DRAW_FOR = {"X1": "`board`", "X2": "`person`", "X3": "`table`", "X4": "`colour`, `count` or `label`"}


def _cells(cells: list[str]) -> str:
    """Cells written short, per granularity: ``X1_Y1..Y3, X2_Y1/Y3``."""
    by_x: dict[str, list[str]] = {}
    for c in cells:
        x, y = c.split("_")
        by_x.setdefault(x, []).append(y)
    return ", ".join(f"{x}_Y1..Y3" if len(ys) == 3 else f"{x}_{'/'.join(ys)}" for x, ys in by_x.items())


def no_item_problem(theme: Theme, by_cell: dict[str, list]) -> str:
    """The one error of a theme whose declarations support no planned item: the field to change,
    the planned cells that get nothing, and what to declare (a theme supporting some cells builds,
    with one shortfall line per other cell)."""
    from mnemoforge.backends.image.visual_catalog import pack_names

    spec = theme.memeye
    assert spec is not None
    planned = [c for c, n in spec.cell_targets().items() if n > 0]
    supported = [c for c, got in by_cell.items() if got]
    declared = any(
        getattr(sc.draws, part) is not None
        for sc in spec.scenarios
        for part in ("board", "colour", "count", "label", "table", "person")
    )
    xs = sorted({c.split("_")[0] for c in planned} - {c.split("_")[0] for c in supported})
    draw = "; ".join(f"{x}: {DRAW_FOR[x]}" for x in xs) or "a drawable without a `changes` entry"
    cells = "all 12 cells" if len(planned) == 12 else _cells(planned)
    if supported:
        field = "memeye.targets" if spec.targets else "memeye.per_cell"
        return (
            f"{field}: no item can be built: nothing drawn supports the planned cells ({cells}) and the "
            f"cells the drawables support ({_cells(supported)}) are planned at 0: give those a target, "
            f"or declare `draws` in a scenario ({draw})"
        )
    if declared or spec.scene_packs:
        what = "the scenarios' `draws`" if declared else "the named scene packs"
        field, why = "memeye.scenarios", f"{what} support none of the planned cells ({cells})"
    else:
        field = "memeye.scene_packs"
        why = "no scenario declares `draws` and no scene pack is named, so no planned cell "
        why += f"({cells}) gets an item"
    return (
        f"{field}: no item can be built: {why}; declare `draws` in a scenario ({draw}) "
        f"or name a scene pack ([{', '.join(pack_names())}])"
    )


def review(theme: Theme) -> Review:
    def stages(r: Review) -> None:
        from mnemoforge.generators.coherence import observation_problems, world_problems
        from mnemoforge.generators.memeye import captions, questions, render, sessions, world

        spec = theme.memeye
        if spec is None:
            r.problems.append("memeye: section required for family memeye (add a `memeye:` section)")
            return
        try:
            spec.check(theme)
        except ValueError as e:
            r.problems.append(str(e))
            return
        r.problems += visual_word_problems(theme)
        if r.problems:
            return
        w = world.plan_world(theme, theme.seed)
        r.problems += [f"world: {p}" for p in world_problems(w, theme)]
        if r.problems:
            return
        obs = sessions.plan_sessions(theme, w)
        r.problems += [f"world: {p}" for p in observation_problems(w, obs)]
        captions.dense_captions(w, obs)
        from mnemoforge.backends.image.visual_scene import render_scene

        seen: set[str] = set()
        for o in obs:  # one picture of each scenario is drawn (its declared drawables included)
            if o.media and o.source not in seen:
                seen.add(o.source)
                render_scene(render.scene_state(w, o, spec.image_width, spec.image_height))
        if not questions.generate(w, obs, spec.cell_targets(), theme.gates.max_answer_share):
            r.problems.append(no_item_problem(theme, questions.cell_candidates(w, EvidenceIndex(obs))))

    return dry_run(theme.model_dump_json(), stages, "mnemoforge.memeye")


def check_theme(theme: Theme) -> list[str]:
    """Problems that would stop the build, as ``"field.path: message"`` (empty: it builds)."""
    return review(theme).problems


def theme_warnings(theme: Theme) -> list[str]:
    """Shortfall lines the build would print (each saying what to add)."""
    return review(theme).warnings
