"""Test doubles of the peers' own loaders: the same keys, read in the same order, failing the same
way. They are written from reading the peers' code, not copied from it:

* LoCoMo (snap-research/LoCoMo @ 3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376): ``task_eval/
  evaluate_qa.py`` -> ``gpt_utils.get_gpt_answers`` (speakers of session 1, the context walk,
  the category-2/5 question forms), ``prepare_for_rag`` (dialog mode), ``evaluation.
  eval_question_answering`` and ``evaluation_stats.analyze_aggr_acc`` (evidence -> turn lengths).
* mem0 (mem0ai/mem0 @ b3ede5b7c0ac0e847b03786a603c107ac943b3ee): ``evaluation/src/memzero/
  add.py`` ``MemoryADD.process_conversation`` (the speaker check).
* M3-Agent (ByteDance-Seed/m3-agent @ 0e3e41939bd8a0b66d756e7b7eb8d5fe9992da5c): ``m3_agent/
  memorization_intermediate_outputs.py`` / ``memorization_memory_graphs.py`` (``data.jsonl``
  lines, the clip glob, the per-clip save paths, the graph pickled to ``mem_path``, opened without
  creating its folder) and ``m3_agent/control.py`` (``configs/api_config.json`` read at import,
  annotation loading, results written to ``data/results/<name>.jsonl``, its folder not created).
* MemEye (ffzhai88/MemEye @ b902110fec88f71d12e3caf2d9343b16c871634c, as documented in
  ``mnemoforge/generators/memeye/peer_album.py``): ``benchmark/runner.py``'s MCQ loop, one question per
  rotation (a dict of letters and its ``answer``), ``contains_gt`` the last rotation's choice.
* lmms-eval (EvolvingLMMs-Lab/lmms-eval @ 75571cfe, 0.7.3): ``utils.load_yaml_config`` (the
  ``!function`` tag imports ``<module>.py`` beside the YAML; a relative ``data_files`` path of a
  local builder that exists beside the YAML is made absolute), ``api/task.py`` (``datasets.
  load_dataset(dataset_path, **dataset_kwargs)``, then ``process_docs`` on the split),
  ``utils.create_iterator`` (``--limit N``: the
  first N docs) and the per-metric aggregation over every doc's ``process_results``.
"""

from __future__ import annotations

import glob
import importlib.util
import itertools
import json
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

CONV_START = "Below is a conversation between two people: {} and {}."


def locomo_evaluate_qa(data_file: Path) -> dict[str, dict]:
    """What ``evaluate_qa.py`` reads of each sample, as it reads it; returns per sample the
    prompt head, the context built, the questions asked and the scored lines (a dummy prediction:
    "Not mentioned in the conversation")."""
    samples = json.load(open(data_file))  # noqa: SIM115 - as the peer does
    out = {}
    for data in samples:
        out_data = {"sample_id": data["sample_id"], "qa": data["qa"].copy()}
        conv = data["conversation"]
        speakers_names = list(set([d["speaker"] for d in conv["session_1"]]))
        start_prompt = CONV_START.format(speakers_names[0], speakers_names[1])
        questions = []
        for qa in data["qa"]:
            if qa["category"] == 2:
                suffix = " Use DATE of CONVERSATION to answer with an approximate date."
                questions.append(qa["question"] + suffix)
            elif qa["category"] == 5:
                questions.append(
                    qa["question"]
                    + " Select the correct answer: (a) {} (b) {}. ".format(
                        "Not mentioned in the conversation", qa["answer"]
                    )
                )
            else:
                questions.append(qa["question"])
        context = _locomo_context(conv)
        rag = _locomo_rag_dialogs(data)
        lines = [{**qa, "prediction": "Not mentioned in the conversation"} for qa in out_data["qa"]]
        scores = _locomo_score(lines)
        lengths = _locomo_lengths(conv)
        for qa in lines:
            evidence = [e.replace("(", "").replace(")", "") for e in qa["evidence"]]
            far = min(int(e.split(":")[0][1:]) for e in evidence if e != "")
            turn = min(int(e.split(":")[-1]) for e in evidence if e != "" and int(e.split(":")[0][1:]) == far)
            lengths["D" + str(far) + ":" + str(turn)]  # KeyError when evidence names no turn
        out[data["sample_id"]] = {
            "start": start_prompt,
            "context": context,
            "questions": questions,
            "rag": rag,
            "scores": scores,
        }
    return out


def _locomo_context(data: dict) -> str:
    query_conv = ""
    session_nums = [int(k.split("_")[-1]) for k in data.keys() if "session" in k and "date_time" not in k]
    for i in range(min(session_nums), max(session_nums) + 1):
        if f"session_{i}" in data:
            query_conv += "\n\n"
            for dialog in data[f"session_{i}"][::-1]:
                turn = dialog["speaker"] + ' said, "' + dialog["text"] + '"' + "\n"
                if "blip_caption" in dialog:
                    turn += f" and shared {dialog['blip_caption']}."
                query_conv = turn + "\n" + query_conv
            query_conv = "DATE: " + data[f"session_{i}_date_time"] + "\n" + "CONVERSATION:\n" + query_conv
    return query_conv


def _locomo_rag_dialogs(data: dict) -> list[tuple[str, str, str]]:
    conv = data["conversation"]
    out = []
    session_nums = [int(k.split("_")[-1]) for k in conv.keys() if "session" in k and "date_time" not in k]
    for i in range(min(session_nums), max(session_nums) + 1):
        date_time = conv[f"session_{i}_date_time"]
        for dialog in conv[f"session_{i}"]:
            text = dialog["speaker"] + ' said, "' + dialog["text"] + '"'
            if "blip_caption" in dialog:
                text += " and shared " + dialog["blip_caption"]
            out.append((dialog["dia_id"], date_time, text))
    return out


def _locomo_score(lines: list[dict]) -> list[float]:
    scores = []
    for line in lines:
        answer = line["answer"] if isinstance(line["prediction"], list) else str(line["answer"])
        if line["category"] == 3:
            answer = answer.split(";")[0].strip()
        output = line["prediction"]
        if line["category"] in [2, 3, 4]:
            scores.append(float(output.lower() == answer.lower()))
        elif line["category"] in [1]:
            scores.append(float(all(a.strip().lower() in output.lower() for a in answer.split(","))))
        elif line["category"] in [5]:
            low = output.lower()
            scores.append(1.0 if "no information available" in low or "not mentioned" in low else 0.0)
        else:
            raise ValueError(line)
    return scores


def _locomo_lengths(data: dict) -> dict[str, int]:
    total, id2length = 0, {}
    for sess_num in range(1, 50):
        if f"session_{sess_num}" not in data or data[f"session_{sess_num}"] == []:
            continue
        for dialog in data[f"session_{sess_num}"]:
            tokens = dialog["speaker"] + ": " + dialog["text"] + "\n"
            id2length[dialog["dia_id"]] = total + len(tokens)
            total += len(tokens)
    return id2length


def mem0_add(data_file: Path) -> list[int]:
    """mem0's ``process_conversation`` loop over each sample; returns messages per sample and raises
    ``ValueError(f"Unknown speaker: ...")`` exactly where mem0 does."""
    counts = []
    for item in json.load(open(data_file)):  # noqa: SIM115 - as the peer does
        conversation = item["conversation"]
        speaker_a = conversation["speaker_a"]
        speaker_b = conversation["speaker_b"]
        n = 0
        for key in conversation.keys():
            if key in ["speaker_a", "speaker_b"] or "date" in key or "timestamp" in key:
                continue
            date_time_key = key + "_date_time"
            conversation[date_time_key]
            for chat in conversation[key]:
                if chat["speaker"] == speaker_a or chat["speaker"] == speaker_b:
                    n += 1
                else:
                    raise ValueError(f"Unknown speaker: {chat['speaker']}")
        counts.append(n)
    return counts


def m3_memorization(checkout: Path, data_file: str = "data/data.jsonl") -> list[dict]:
    """M3-Agent's memorization loop, run from ``checkout`` as its README says: per ``data.jsonl``
    line, the clips its glob finds (id from the file name) and the paths it would write."""
    here = os.getcwd()
    os.chdir(checkout)
    try:
        out = []
        with open(data_file) as f:
            for line in f:
                sample = json.loads(line)
                clips = glob.glob(sample["clip_path"] + "/*")
                ids = [int(p.split("/")[-1].split(".")[0]) for p in clips]
                save_path = sample["intermediate_outputs"]
                saves = [os.path.join(save_path, f"clip_{i}_voices.json") for i in ids]
                for save in saves:  # face/voice processing create their folder; the export did too
                    with open(save, "w") as f:
                        json.dump({}, f)
                with open(sample["mem_path"], "wb") as f:  # no makedirs in M3-Agent: the folder must exist
                    pickle.dump({"clips": sorted(ids)}, f)
                out.append(
                    {
                        "sample": sample,
                        "clips": sorted(zip(ids, clips, strict=True)),
                        "saves": saves,
                        "mem_path": sample["mem_path"],
                        "video_exists": os.path.isfile(sample["video_path"]),
                    }
                )
        return out
    finally:
        os.chdir(here)


M3_GPT = "gpt-4o-2024-11-20"


def m3_control(checkout: Path, data_file: str) -> list[dict]:
    """``m3_agent/control.py`` run from the checkout root: its api config read at import (a
    KeyError where a field is missing), its annotation loading, and its results file written
    (each question unanswered, as when the model gives no ``[Answer]``)."""
    here = os.getcwd()
    os.chdir(checkout)
    try:
        config = json.load(open("configs/api_config.json"))  # noqa: SIM115 - as the peer does
        client = {k: config[M3_GPT][k] for k in ("azure_endpoint", "api_version", "api_key")}
        assert set(client) == {"azure_endpoint", "api_version", "api_key"}
        dataset_name = data_file.split("/")[-1].split(".")[0]
        output_path = os.path.join("data/results", f"{dataset_name}.jsonl")
        data = []
        datas = json.load(open(data_file))  # noqa: SIM115 - as the peer does
        for _, v in datas.items():
            for qa in v["qa_list"]:
                row = {"id": qa["question_id"], "mem_path": v["mem_path"], "question": qa["question"]}
                data.append({**row, "answer": qa["answer"]})
                if "before_clip" in qa:
                    data[-1]["before_clip"] = qa["before_clip"]
        with open(output_path, "w") as f:  # no makedirs in M3-Agent: data/results must exist
            for row in data:
                f.write(json.dumps({**row, "gpt_eval": False}, ensure_ascii=False) + "\n")
        return data
    finally:
        os.chdir(here)


def memeye_mcq(dialog_file: Path, choose: Callable[[dict, dict], str], limit: int | None = None) -> dict:
    """MemEye's MCQ loop over one task's ``dialog/<Task>.json``: the first ``limit`` questions, each
    asked once per rotation; per question the choices, whether each matched its rotation's letter,
    and ``contains_gt`` (the last choice against the top-level answer)."""
    doc = json.load(open(dialog_file))  # noqa: SIM115 - as the peer does
    out = {}
    for qa in doc["human-annotated QAs"][:limit]:
        picks = [choose(qa, rot) for rot in qa["options"]]
        out[qa["question_id"]] = {
            "choices": picks,
            "per_rotation": [p == rot["answer"] for p, rot in zip(picks, qa["options"], strict=True)],
            "contains_gt": picks[-1] == qa["answer"],
        }
    return out


def lmms_eval_task(yaml_path: Path) -> dict[str, Any]:
    """lmms-eval's task config as its loader builds it: ``!function`` tags imported from the
    ``.py`` beside the YAML, relative local ``data_files`` anchored at the YAML's folder."""
    import yaml

    folder = os.path.dirname(str(yaml_path))

    def function(loader: yaml.Loader, node: yaml.Node) -> Callable:
        module_name, name = loader.construct_scalar(node).rsplit(".", 1)  # type: ignore[arg-type]
        spec = importlib.util.spec_from_file_location(module_name, os.path.join(folder, module_name + ".py"))
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, name)

    class Loader(yaml.FullLoader):
        pass

    Loader.add_constructor("!function", function)
    with open(yaml_path, "rb") as f:
        config = yaml.load(f, Loader=Loader)  # noqa: S506 - a FullLoader, as the peer's
    files = config.get("dataset_kwargs", {}).get("data_files")
    local = config.get("dataset_path") in {"csv", "json", "parquet", "text", "pandas", "arrow"}
    if local and isinstance(files, dict):
        for split, rel in files.items():
            if isinstance(rel, str) and not os.path.isabs(rel) and os.path.isfile(os.path.join(folder, rel)):
                files[split] = os.path.join(folder, rel)
    return config


def lmms_eval_run(
    yaml_path: Path, reply: Callable[[dict], str], limit: int | None = None
) -> dict[str, float]:
    """One lmms-eval run of the task: the dataset loaded by ``datasets``, the first ``limit`` docs,
    ``process_results`` per doc and each metric's aggregation; returns the metrics."""
    import datasets

    config = lmms_eval_task(yaml_path)
    dataset = datasets.load_dataset(config["dataset_path"], **config["dataset_kwargs"])
    split = dataset[config["test_split"]]
    if config.get("process_docs") is not None:
        split = config["process_docs"](split)
    docs = itertools.islice(split, 0, limit)
    per_metric: dict[str, list] = {}
    for doc in docs:
        config["doc_to_text"](doc)
        config["doc_to_visual"](doc)
        for metric, value in config["process_results"](doc, [reply(doc)]).items():
            per_metric.setdefault(metric, []).append(value)
    return {m["metric"]: m["aggregation"](per_metric.get(m["metric"], [])) for m in config["metric_list"]}
