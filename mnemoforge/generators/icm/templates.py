"""The icm family's question templates (ICM-Bench's three categories), by id.

Each template names its category, the program that computes its answer and its wording; where a
template takes its evidence from every supporting clip it says ``"all"``.
"""

from __future__ import annotations

from mnemoforge.generators.questions.common import Template

FAMILY = "icm"
RECALL, RETRIEVAL, PROFILE = "identity_recall", "cross_episode_retrieval", "profile_inference"


def _t(tid: str, category: str, prog: str, text: str, evidence: str = "first") -> Template:
    return Template(tid, category, prog, text, evidence)


T = {
    t.id: t
    for t in [
        _t(
            "recall.companions.v1",
            RECALL,
            "event_companions",
            "Who joined {person} when {subj} {verb} at {place} in {month}?",
        ),
        _t(
            "recall.object.v1",
            RECALL,
            "object_brought",
            "What did {person} bring along when {subj} {verb} in {month}?",
        ),
        _t(
            "recall.place.v1",
            RECALL,
            "meeting_place",
            "Where did {person} and {other} go when they {verb} in {month}?",
        ),
        _t(
            "recall.companions.day.v1",
            RECALL,
            "event_companions",
            "Who joined {person} when {subj} {verb} at {place} on {day}?",
        ),
        _t(
            "recall.object.day.v1",
            RECALL,
            "object_brought",
            "What did {person} bring along when {subj} {verb} on {day}?",
        ),
        _t(
            "recall.place.day.v1",
            RECALL,
            "meeting_place",
            "Where did {person} and {other} go when they {verb} on {day}?",
        ),
        _t(
            "recall.animal.v1",
            RECALL,
            "animal_along",
            "Which {species} came along when {person} {verb} at {place} in {month}?",
        ),
        _t(
            "recall.part.v1",
            RECALL,
            "part_shown",
            "What was {part} when {person} {verb} on {day}?",
        ),
        _t(
            "recall.part.count.v1",
            RECALL,
            "part_shown",
            "How many {part} were there when {person} {verb} on {day}?",
        ),
        _t(
            "recall.part.map.v1",
            RECALL,
            "part_shown",
            "Where was {marker} marked on {part} when {person} {verb} on {day}?",
        ),
        _t(
            "recall.promise.v1",
            RECALL,
            "promised_item",
            "On {day}, what did {person} promise to bring to the next {noun}?",
        ),
        _t(
            "recall.plan.v1",
            RECALL,
            "planned_place",
            "On {day}, where did {person} say {subj} would go next for the {noun}?",
        ),
        _t(
            "retrieval.count.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} take part when people {verb} between {from} and {to}?",
        ),
        _t(
            "retrieval.count.month.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} take part when people {verb} in {from}?",
        ),
        _t(
            "retrieval.together.v1",
            RETRIEVAL,
            "count_together",
            "How many times were {person} and {other} both there when people {verb} between {from} and {to}?",
        ),
        _t(
            "retrieval.companion.v1",
            RETRIEVAL,
            "frequent_companion",
            "Across the album, who most often joined {person} when {subj} {verb}?",
        ),
        _t(
            "retrieval.binding.v1",
            RETRIEVAL,
            "who_brought",
            "What is the name of the person who brought the {object} when people {verb} in {month}?",
        ),
        _t(
            "retrieval.binding.day.v1",
            RETRIEVAL,
            "who_brought",
            "What is the name of the person who brought the {object} when people {verb} on {day}?",
        ),
        _t(
            "retrieval.brought.count.v1",
            RETRIEVAL,
            "count_brought",
            "How many times did {person} bring the {object} when people {verb} between {from} and {to}?",
        ),
        _t(
            "retrieval.count.place.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} {verb:base} at {place} between {from} and {to}?",
        ),
        _t(
            "retrieval.promise.v1",
            RETRIEVAL,
            "promise_companions",
            "Who came along to the next {noun} after {person} promised on {day} to bring the {object}?",
        ),
        _t(
            "retrieval.plan.v1",
            RETRIEVAL,
            "plan_companions",
            "Who joined {person} at {place} for the {noun} {subj} had planned on {day}?",
        ),
        _t(
            "profile.choice.v1",
            PROFILE,
            "usual_choice",
            "Judging from the whole album, what {key} does {person} usually go for?",
            "all",
        ),
        _t(
            "profile.choice.window.v1",
            PROFILE,
            "usual_choice",
            "Between {from} and {to}, what {key} did {person} usually go for?",
            "all",
        ),
        _t(
            "profile.change.v1",
            PROFILE,
            "choice_change",
            "How did the {key} that {person} usually goes for change in {month}?",
            "all",
        ),
        _t(
            "profile.habit.v1",
            PROFILE,
            "habit_of",
            "What habit do people keep mentioning about {person}?",
            "all",
        ),
        _t("profile.relation.v1", PROFILE, "relation_to", "How is {other} related to {person}?", "all"),
        _t(
            "profile.companion.v1",
            PROFILE,
            "frequent_companion",
            "Judging from the whole album, who most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.companion.window.v1",
            PROFILE,
            "frequent_companion",
            "Between {from} and {to}, who most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.companion.besides.v1",
            PROFILE,
            "frequent_companion",
            "Over the whole album, who apart from {other} most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.companion.besides.window.v1",
            PROFILE,
            "frequent_companion",
            "Between {from} and {to}, who apart from {other} most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.closest.besides.v1",
            PROFILE,
            "closest_companion",
            "Judging from the whole album, who apart from {other} was with {person} most often?",
            "all",
        ),
        _t(
            "profile.closest.besides.window.v1",
            PROFILE,
            "closest_companion",
            "Between {from} and {to}, who apart from {other} was with {person} most often?",
            "all",
        ),
        _t(
            "profile.weekday.v1",
            PROFILE,
            "usual_weekday",
            "Judging from the whole album, on which day of the week did {person} most often {verb:base}?",
            "all",
        ),
        _t(
            "profile.weekday.window.v1",
            PROFILE,
            "usual_weekday",
            "Between {from} and {to}, on which day of the week did {person} most often {verb:base}?",
            "all",
        ),
        _t(
            "profile.place.v1",
            PROFILE,
            "usual_place",
            "Judging from the whole album, where did {person} usually go when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.place.window.v1",
            PROFILE,
            "usual_place",
            "Between {from} and {to}, where did {person} usually go when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.shared.v1",
            PROFILE,
            "shared_activity",
            "Over the whole album, what did {person} and {other} most often do together?",
            "all",
        ),
        _t(
            "profile.shared.window.v1",
            PROFILE,
            "shared_activity",
            "Between {from} and {to}, what did {person} and {other} most often do together?",
            "all",
        ),
        _t(
            "profile.activity.window.v1",
            PROFILE,
            "usual_activity",
            "Between {from} and {to}, what did {person} do most often?",
            "all",
        ),
        _t(
            "profile.closest.window.v1",
            PROFILE,
            "closest_companion",
            "Between {from} and {to}, who was with {person} most often?",
            "all",
        ),
        _t(
            "profile.companion_change.v1",
            PROFILE,
            "companion_change",
            "How did the person who most often joined {person} when {subj} {verb} change in {month}?",
            "all",
        ),
        _t(
            "profile.closest_change.v1",
            PROFILE,
            "closest_change",
            "How did the person who was with {person} most often change in {month}?",
            "all",
        ),
        _t(
            "profile.place_change.v1",
            PROFILE,
            "place_change",
            "How did the place {person} usually went to when {subj} {verb} change in {month}?",
            "all",
        ),
        _t(
            "profile.activity_change.v1",
            PROFILE,
            "activity_change",
            "How did what {person} did most often change in {month}?",
            "all",
        ),
        _t(
            "profile.count.v1",
            PROFILE,
            "count_events",
            "Over the whole album, how many times did {person} take part when people {verb}?",
            "all",
        ),
        _t(
            "profile.pair_weekday.v1",
            PROFILE,
            "pair_weekday",
            "Judging from the whole album, on which weekday were {person} and {other} most often together?",
            "all",
        ),
        _t(
            "profile.pair_weekday.window.v1",
            PROFILE,
            "pair_weekday",
            "Between {from} and {to}, on which weekday were {person} and {other} most often together?",
            "all",
        ),
        _t(
            "profile.weekday_activity.v1",
            PROFILE,
            "weekday_activity",
            "Judging from the whole album, what did {person} do most often on {weekday}s?",
            "all",
        ),
        _t(
            "profile.weekday_activity.window.v1",
            PROFILE,
            "weekday_activity",
            "Between {from} and {to}, what did {person} do most often on {weekday}s?",
            "all",
        ),
        _t(
            "profile.weekday_change.v1",
            PROFILE,
            "weekday_change",
            "How did the day of the week when {person} most often {verb} change in {month}?",
            "all",
        ),
    ]
}

RESERVE = frozenset(t for t in T if t.split(".")[1] in ("pair_weekday", "weekday_activity", "weekday_change"))
"""Reserve profile templates (``weekday_programs``): planned only once the other profile
candidates are used up, so they fill an ICM-Bench-scale album's profile quota without changing
what a smaller album, whose other programs suffice, asks."""
