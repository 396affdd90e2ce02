"""``check_theme`` of the source-distributed family: every check the build makes, run in memory.

The section's own checks (``SmmSpec.check``: references, bindings, fixed values, conflict routes),
the content pack, then a dry run of the plan and episodes stages (World, question planning,
evidence routing, scaffolds and the merged stream) and of the question stage's answer programs.
"""

from __future__ import annotations

from mnemoforge.generators.theme_review import Review, dry_run
from mnemoforge.schemas.theme import Theme


def review(theme: Theme) -> Review:
    def stages(r: Review) -> None:
        from mnemoforge.generators.coherence import observation_problems, world_problems
        from mnemoforge.generators.smm import questions, stream, world
        from mnemoforge.generators.smm.carriers import topic_problems
        from mnemoforge.generators.smm.filler import banks

        s = theme.smm
        if s is None:
            r.problems.append("smm: section required for family smm (add an `smm:` section)")
            return
        try:
            s.check(theme)
        except ValueError as e:
            r.problems.append(str(e))
            return
        banks(theme)  # the pack loads and validates
        r.problems += topic_problems(theme)
        if r.problems:
            return
        w = world.plan_world(theme, theme.seed)
        r.problems += [f"world: {p}" for p in world_problems(w, theme)]
        if r.problems:
            return
        st = stream.build_stream(theme, w)
        r.problems += [f"world: {p}" for p in observation_problems(w, st.observations)]
        from mnemoforge.generators.smm.render import draw

        seen: set[str] = set()
        for a in st.attachments:  # one picture of each kind is drawn (the renderers' own checks)
            kind = a["spec"].get("as", a["spec"]["kind"])
            if kind not in seen:
                seen.add(kind)
                draw(theme, a["spec"])
        questions.make_questions(theme, w, st.observations)

    return dry_run(theme.model_dump_json(), stages, "mnemoforge.smm")


def check_theme(theme: Theme) -> list[str]:
    """Problems that would stop the build, as ``"field.path: message"`` (empty: it builds)."""
    return review(theme).problems


def theme_warnings(theme: Theme) -> list[str]:
    """Shortfall lines the build would print (each saying what to add)."""
    return review(theme).warnings
