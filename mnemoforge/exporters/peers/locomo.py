"""LoCoMo export: the album as two-person conversations, laid out as ``data/locomo10.json``.

Layout (paths relative to the export folder)::

    locomo.json             a JSON list of samples, one per interlocutor of the protagonist
    media/shots/<shot>.png  the shot stills the image turns point at (``img_url``)
    mnemoforge_export.json  question ids, cutoffs, the category mapping, the items left out

Checked against snap-research/LoCoMo at commit 3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376
(``data/locomo10.json``, ``task_eval/evaluate_qa.py``, ``gpt_utils.py``, ``evaluation.py``) and
mem0ai/mem0 ``evaluation/src/memzero/add.py`` at b3ede5b7c0ac0e847b03786a603c107ac943b3ee (the
last commit before mem0 moved its evaluation out).

Samples. LoCoMo's conversations are between exactly two people, and mem0's harness rejects any
turn whose speaker is neither ``speaker_a`` nor ``speaker_b``. So each person of the World who
attended an event (other than the protagonist) gets a sample: ``speaker_a`` = the protagonist,
``speaker_b`` = that person, one session per event that person attended (in time order,
numbered from 1; an event with several people is a session of each of their samples; the
calibration clip 0 is left out). ``sample_id`` is ``<release>-<person id>``.

Turns of a session (the clip's observations in the shared walk order, each shot then its lines;
``dia_id`` = ``D{session}:{turn}``):

* a shot is an *image turn* ``{speaker, img_url, blip_caption, query, dia_id, text}`` (LoCoMo's
  key order): ``img_url`` is the still's absolute URL under the export's base URL (default: the
  export folder as a ``file://`` URL), ``blip_caption`` the clip caption plus the shot's framing
  (agent view, name-free), ``query`` the caption's event and place words. Shots are shared by
  the two speakers in turn, starting with the interlocutor when they say nothing in the
  session (so both speakers appear whenever the session has two shots or a line);
* a line spoken by one of the two is a text turn ``{speaker, dia_id, text}`` with their name;
  a line spoken by a third person is relayed by whoever shared the shot it falls in:
  ``<Name> said, "<line>"``. Compromise: turns carry the speaker labels ICM's speakerless
  transcripts withhold (text needs them), so voice identification is not tested here.

Sample fields besides ``conversation``, rendered from the World by :mod:`.locomo_world` (they
are LoCoMo's annotations, which its RAG modes embed): ``event_summary`` (``events_session_N``:
per speaker what they did at the event, ``[]`` when they were not there, and ``date``),
``observation`` (``session_N_observation``: per speaker ``[sentence, dia_id]`` for each fact a
turn they made expresses) and ``session_summary`` (``session_N_summary``).

Questions (``qa``: ``question``, ``answer``, ``evidence`` = dia ids, ``category``; key order as
LoCoMo writes it). A release item goes to the sample of the first of its target people (then
any interlocutor) that holds every evidence event, when the item is about one event (any
sample holding it keeps the answer) or about that interlocutor (their sample holds every event
they attended); other items (e.g. the protagonist's habits across the whole album) cannot be
answered inside one two-person conversation and are listed under ``excluded`` in the sidecar
with the reason. Questions that name someone only by appearance ("the short-haired man wearing
glasses") are rephrased by name here (a text-only harness sees no faces); the sidecar keeps the
original as ``rephrased_from``.

Categories (:data:`CATEGORY_MAP`, written into the sidecar as ``categories``); LoCoMo's numbers
are 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial:

* ``identity_recall`` -> 4, ``cross_episode_retrieval`` -> 1, ``profile_inference`` -> 3;
* 2 (temporal) and 5 (adversarial) are made by this export from the World per sample (the
  release has no such items): "When did X and Y attend the <event> at <place>?" with the event
  date, and "What did Y bring to the <event> ...?" where Y brought nothing but X did. Category
  5 follows LoCoMo's code at the pinned commit: ``answer`` and ``adversarial_answer`` hold the
  trap (its generation offers "(a) Not mentioned in the conversation (b) <answer>"), and its
  scorer counts a reply correct when it says "not mentioned" / "no information available"; the
  sidecar records that expected reply. These items are not gated like release items.

Cutoffs: LoCoMo has none; the sidecar keeps, per item, ``cutoff_session`` (the last session of
its sample at or before the item's cutoff; ``null`` = full timeline).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mnemoforge.exporters.peers.common import (
    MARKER,
    ExportError,
    PeerItem,
    ReleaseData,
    clip_units,
    effective_cutoff,
    load_json,
    load_release,
    place_file,
    require,
    unit_index,
    write_ordered_json,
)
from mnemoforge.exporters.peers.locomo_world import (
    NOT_MENTIONED,
    SessionEvent,
    adversarial_items,
    fact_sentence,
    person_events,
    rephrase_by_name,
    session_summary,
    summary_date,
    temporal_items,
)
from mnemoforge.schemas.episodes import Clip, Shot

FORMAT = "locomo"
FILE = "locomo.json"
IMAGE_TEXT = "Here is a photo."
CATEGORY_MAP: dict[str, int] = {"identity_recall": 4, "cross_episode_retrieval": 1, "profile_inference": 3}
CATEGORY_FROM_LOCOMO: dict[int, str] = {v: k for k, v in CATEGORY_MAP.items()}
CATEGORIES: dict[str, dict[str, str]] = {
    "1": {"locomo": "multi-hop", "from": "cross_episode_retrieval"},
    "2": {"locomo": "temporal", "from": "made by the export: World event dates"},
    "3": {"locomo": "open-domain", "from": "profile_inference"},
    "4": {"locomo": "single-hop", "from": "identity_recall"},
    "5": {
        "locomo": "adversarial",
        "from": "made by the export: World 'brought' facts",
        "expected": NOT_MENTIONED,
    },
}


def locomo_datetime(t: dt.datetime) -> str:
    """LoCoMo's session time style: ``1:56 pm on 8 May, 2023``."""
    hour = t.hour % 12 or 12
    return f"{hour}:{t.minute:02d} {'am' if t.hour < 12 else 'pm'} on {summary_date(t)}"


class _Sample:
    """One LoCoMo sample being built: the protagonist and one interlocutor."""

    def __init__(self, rel: ReleaseData, other: str, clips: list[Clip], base_url: str) -> None:
        self.rel, self.other, self.clips, self.base_url = rel, other, clips, base_url
        self.a = rel.world.protagonist
        self.facts = {f.id: f for f in rel.world.facts}
        self.sample_id = f"{rel.name}-{other}"
        self.dia: dict[str, str] = {}  # observation id -> dia_id
        self.sessions: list[SessionEvent] = []
        self.conversation: dict[str, object] = {
            "speaker_a": rel.name_of(self.a),
            "speaker_b": rel.name_of(other),
        }
        self.event_summary: dict[str, dict] = {}
        self.observation: dict[str, dict] = {}
        self.session_summary: dict[str, str] = {}
        for n, clip in enumerate(clips, start=1):
            self._session(n, clip)

    def _session(self, n: int, clip: Clip) -> None:
        rel, world = self.rel, self.rel.world
        try:
            event = world.event(str(clip.event))
        except KeyError:
            raise ExportError(
                f"{FORMAT}: clip {clip.id}: event {clip.event!r} is not in data/world.json"
            ) from None
        pair = (self.a, self.other)
        speakers = {u.line.speaker for u in clip_units(clip) if u.line is not None}
        order = [self.other, self.a] if self.other not in speakers else [self.a, self.other]
        turns: list[dict] = []
        notes: dict[str, list[list[str]]] = {rel.name_of(p): [] for p in pair}
        image_of: dict[str, str] = {}
        sharer, shots = self.a, 0
        for t, unit in enumerate(clip_units(clip), start=1):
            dia = f"D{n}:{t}"
            self.dia[unit.obs_id] = dia
            if unit.kind == "shot":
                sharer, shots = order[shots % 2], shots + 1
                turns.append(self._image_turn(clip, unit.shot, sharer, dia))
                for p in unit.shot.visible:
                    image_of.setdefault(p, dia)
                speaker = sharer
            else:
                assert unit.line is not None
                said = rel.text(unit.obs_id)
                speaker = unit.line.speaker if unit.line.speaker in pair else sharer
                if speaker != unit.line.speaker:
                    said = f'{rel.name_of(unit.line.speaker)} said, "{said}"'
                turns.append({"speaker": rel.name_of(speaker), "dia_id": dia, "text": said})
            obs = rel.observations.get(unit.obs_id)
            for fid in dict.fromkeys(e.fact for e in (obs.expresses if obs else [])):
                fact = self.facts.get(fid)
                sentence = fact_sentence(world, fact) if fact else None
                mine = notes[rel.name_of(speaker)]
                if sentence and all(s != sentence for s, _ in mine):
                    mine.append([sentence, dia])
        first = next((t["dia_id"] for t in turns if "img_url" in t), f"D{n}:1")
        self.sessions.append(SessionEvent(n, event, first, image_of))
        self.conversation[f"session_{n}_date_time"] = locomo_datetime(clip.start)
        self.conversation[f"session_{n}"] = turns
        self.event_summary[f"events_session_{n}"] = {
            **{rel.name_of(p): person_events(world, event, p) for p in pair},
            "date": summary_date(clip.start),
        }
        self.observation[f"session_{n}_observation"] = notes
        self.session_summary[f"session_{n}_summary"] = session_summary(world, event, *pair, clip.start)

    def _image_turn(self, clip: Clip, shot: Shot, sharer: str, dia: str) -> dict:
        cap = self.rel.captions.get(clip.id, {})
        query = " ".join(str(w) for w in [cap.get("event", ""), *cap.get("places", [])[:1]] if w)
        return {
            "speaker": self.rel.name_of(sharer),
            "img_url": [f"{self.base_url}/{self.rel.still(shot.id)}"],
            "blip_caption": self.rel.caption(clip, shot),
            "query": query or clip.occasion,
            "dia_id": dia,
            "text": IMAGE_TEXT,
        }

    def cutoff_session(self, cutoff: int | None) -> int | None:
        if cutoff is None:
            return None
        done = [n for n, c in enumerate(self.clips, start=1) if c.index <= cutoff]
        return max(done, default=0)


def _samples(rel: ReleaseData, base_url: str) -> list[_Sample]:
    a = rel.world.protagonist
    events = {e.id: e for e in rel.world.events}
    for c in rel.clips:
        if c.event and c.event not in events:
            raise ExportError(f"{FORMAT}: clip {c.id}: event {c.event!r} is not in data/world.json")
    out = []
    for person in rel.world.people:
        if person.id == a:
            continue
        clips = [
            c
            for c in rel.clips
            if not c.calibration and c.event and person.id in events[c.event].participants
        ]
        if clips:
            out.append(_Sample(rel, person.id, clips, base_url))
    return out


def _place_item(rel: ReleaseData, q, samples: list[_Sample]) -> tuple[_Sample | None, str]:  # type: ignore[no-untyped-def]
    """The sample an item goes to, or None and why it goes to none."""
    where = unit_index(rel.clips)
    events = set()
    for oid in q.evidence:
        if oid not in where or where[oid][0].calibration:
            return None, f"evidence {oid} is not in an event clip"
        events.add(where[oid][0].index)
    targets = [p for p in q.target_people if p != rel.world.protagonist]
    by_person = {s.other: s for s in samples}
    ranked = list(dict.fromkeys([*targets, *by_person]))
    for p in ranked:
        s = by_person.get(p)
        if s is None or not events <= {c.index for c in s.clips}:
            continue
        if len(events) == 1 or p in targets:
            return s, ""
    if len(events) == 1:
        return None, "no interlocutor of the protagonist attended the evidence event"
    return None, "evidence spans events no single interlocutor attended, or the item is about the protagonist"


def export_locomo(
    rel: ReleaseData, out: Path, base_url: str | None = None
) -> tuple[list[Path], list[dict], dict]:
    """Write ``locomo.json`` and the shot stills; returns (files, sidecar items, sidecar extras)."""
    base = (base_url or Path(out).resolve().as_uri()).rstrip("/")
    samples = _samples(rel, base)
    if not samples:
        raise ExportError(f"{FORMAT}: {rel.root}: no event has anyone but the protagonist; nothing to pair")
    files: list[Path] = []
    for clip in rel.clips:
        if not clip.calibration:
            for shot in clip.shots:
                still = rel.still(shot.id)
                files.append(place_file(rel.root / still, out / still))
    qa: dict[str, list[dict]] = {s.sample_id: [] for s in samples}
    items: list[dict] = []
    excluded = []
    for q in rel.questions:
        sample, why = _place_item(rel, q, samples)
        if sample is None:
            excluded.append({"id": q.id, "category": q.category, "reason": why})
            continue
        text = rephrase_by_name(rel.world, q.question)
        row = {
            "question": text,
            "answer": q.answer,
            "evidence": [sample.dia[o] for o in q.evidence],
            "category": require(CATEGORY_MAP, q.category, FORMAT),
        }
        meta = {"sample_id": sample.sample_id, "qa_index": len(qa[sample.sample_id]), "id": q.id}
        meta["cutoff_session"] = sample.cutoff_session(q.cutoff)
        if text != q.question:
            meta["rephrased_from"] = q.question
        qa[sample.sample_id].append(row)
        items.append(meta)
    data = []
    for s in samples:
        made = temporal_items(rel.world, s.a, s.other, s.sessions)
        made += adversarial_items(rel.world, (s.a, s.other), s.sessions)
        for row in made:
            origin = "temporal" if row["category"] == 2 else "adversarial"
            meta = {"sample_id": s.sample_id, "qa_index": len(qa[s.sample_id]), "id": None, "origin": origin}
            if origin == "adversarial":
                meta["expected"] = NOT_MENTIONED
            qa[s.sample_id].append(row)
            items.append(meta)
        data.append(
            {
                "qa": qa[s.sample_id],
                "conversation": s.conversation,
                "event_summary": s.event_summary,
                "observation": s.observation,
                "session_summary": s.session_summary,
                "sample_id": s.sample_id,
            }
        )
    files.append(write_ordered_json(out / FILE, data))
    extra: dict = {"categories": CATEGORIES, "base_url": base, "excluded": excluded}
    notes = []
    if excluded:
        notes.append(
            f"{len(excluded)} of {len(rel.questions)} items left out: LoCoMo conversations are between "
            "two people and these items need events no single interlocutor attended (see 'excluded')"
        )
    lone = [s.sample_id for s in samples if len({t["speaker"] for t in s.conversation["session_1"]}) < 2]  # type: ignore[union-attr]
    if lone:
        extra["one_speaker_first_session"] = lone
        notes.append(
            f"in {', '.join(lone)} the first session has one speaker (a one-shot clip where neither "
            "speaks); LoCoMo's evaluate_qa.py names both speakers from session 1"
        )
    if notes:
        extra["warning"] = "; ".join(notes)
    return files, items, extra


def read_locomo(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read a LoCoMo export back into mnemoforge terms (release items only; dia_ids -> observation
    ids; a rephrased question reads back as the release's wording)."""
    rel = load_release(release_dir)
    meta = load_json(Path(export_dir) / MARKER)
    link = {(m["sample_id"], m["qa_index"]): m for m in meta["items"]}  # type: ignore[index]
    by_id = {q.id: q for q in rel.questions}
    out = []
    for sample in load_json(Path(export_dir) / FILE):  # type: ignore[union-attr]
        back = _dia_back(rel, sample)
        for i, qa in enumerate(sample["qa"]):
            m = link[(sample["sample_id"], i)]
            if m["id"] is None:
                continue
            cutoff = by_id[m["id"]].cutoff
            out.append(
                PeerItem(
                    id=m["id"],
                    question=m.get("rephrased_from", qa["question"]),
                    answer=str(qa["answer"]),
                    category=CATEGORY_FROM_LOCOMO.get(qa["category"]),
                    evidence=tuple(back[d] for d in qa["evidence"]),
                    cutoff=effective_cutoff(cutoff, rel.last_index),
                )
            )
    return out


def _dia_back(rel: ReleaseData, sample: dict) -> dict[str, str]:
    """dia_id -> observation id for one sample: its sessions are its interlocutor's events."""
    other = str(sample["sample_id"]).removeprefix(f"{rel.name}-")
    events = {e.id: e for e in rel.world.events}
    clips = [c for c in rel.clips if not c.calibration and c.event and other in events[c.event].participants]
    return {
        f"D{n}:{t}": u.obs_id
        for n, clip in enumerate(clips, start=1)
        for t, u in enumerate(clip_units(clip), start=1)
    }
