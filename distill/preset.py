"""Pipeline presets: YAML recipes naming the options of every training stage.

A preset (``distill/presets/<name>.yaml``, or any YAML file path) holds:

    description   one paragraph, copied into the report
    train         `python -m distill train` options shared by every training stage
    teacher       a list of members {name, warmup (optional), finetune}; two or more members
                  are averaged into one ensemble teacher. finetune is one block of options, or a
                  list of them: fine-tuning cycles, each a fresh schedule starting from the
                  previous cycle's best.pt (a warm restart), so a finished teacher can learn on
                  without training again what it has learnt
    student       {why: a few sentences on why this student (into the report), options}
    baseline      options on top of the student's for the no-teacher baseline; `false` = none
    caches        {images: true, logits: true}: decode every photo once into RUN_DIR/cache for all
                  training stages; run the teacher once on `logit_views` views per photo and let
                  the student replay them (distill.image_cache, distill.logit_cache)
    targets       optional {teacher_top1, student_fraction, speedup, kd_gain, hours}: what the report
                  judges the run by (distill.report.TARGETS); without them it judges nothing

Every option block is checked against TrainConfig here, so a typo fails before any training.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from distill import config
from distill.config import TrainConfig
from distill.errors import DistillError
from distill.report import check_targets

PRESET_DIR = Path(__file__).resolve().parent / "presets"
# Options the pipeline sets itself: the data, the run folders, the chaining of stages.
RESERVED = ("data", "val_data", "out", "resume", "teacher", "log_dir", "image_cache", "logit_cache")


@dataclass(frozen=True)
class TeacherMember:
    name: str
    warmup: dict | None  # options of the frozen-body head warm-up, None to skip it
    finetune: list[dict]  # the fine-tuning cycles, in order


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    train: dict
    teachers: list[TeacherMember]
    student: dict
    student_why: str
    baseline: dict | None  # None: no baseline stage
    image_cache: bool = True
    logit_cache: bool = True
    targets: dict = field(default_factory=dict)  # {name: value}, see distill.report.TARGETS
    source: dict = field(default_factory=dict, compare=False)  # the YAML as read, for the report


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(spec: str) -> Preset:
    """A preset by name (cpu, gpu) or by YAML file path."""
    path = PRESET_DIR / f"{spec}.yaml" if re.fullmatch(r"[\w-]+", spec) else Path(spec).expanduser()
    if not path.is_file():
        raise DistillError(f"preset: {spec!r} is neither a preset ({', '.join(preset_names())}) nor a YAML file")
    values = config.load_yaml(str(path))
    where = f"preset {path}"
    unknown = set(values) - {"description", "train", "teacher", "student", "baseline", "caches", "targets"}
    if unknown:
        raise DistillError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    train = _options(values.get("train") or {}, f"{where}: train")
    members = values.get("teacher")
    if not isinstance(members, list) or not members:
        raise DistillError(f"{where}: teacher must be a list of one or more members")
    teachers = []
    for i, member in enumerate(members):
        if not isinstance(member, dict) or not re.fullmatch(r"[\w-]+", str(member.get("name", ""))):
            raise DistillError(f"{where}: teacher member {i + 1} needs a name (letters, digits, - and _)")
        if "finetune" not in member:
            raise DistillError(f"{where}: teacher member {member['name']} has no finetune options")
        warmup = _options(member["warmup"], f"{where}: teacher {member['name']} warmup") if member.get("warmup") else None
        cycles = member["finetune"] if isinstance(member["finetune"], list) else [member["finetune"]]
        if not cycles:
            raise DistillError(f"{where}: teacher member {member['name']} has an empty finetune list")
        finetune = [_options(cycle, f"{where}: teacher {member['name']} finetune {i + 1}") for i, cycle in enumerate(cycles)]
        if any("model" in cycle for cycle in finetune[1:]):
            raise DistillError(f"{where}: teacher member {member['name']}: a later fine-tuning cycle starts from "
                               "the one before it and names no model")
        if "model" not in (warmup or finetune[0]):
            raise DistillError(f"{where}: teacher member {member['name']} names no model")
        teachers.append(TeacherMember(str(member["name"]), warmup, finetune))
    if len({m.name for m in teachers}) != len(teachers):
        raise DistillError(f"{where}: teacher member names must differ")
    student = values.get("student") or {}
    if not isinstance(student, dict) or "options" not in student:
        raise DistillError(f"{where}: student needs options (and a why)")
    baseline = values.get("baseline", {})
    if baseline is not False and not isinstance(baseline, dict):
        raise DistillError(f"{where}: baseline must be a mapping of options or false")
    caches = values.get("caches") or {}
    if not isinstance(caches, dict) or set(caches) - {"images", "logits"} or not all(
            isinstance(v, bool) for v in caches.values()):
        raise DistillError(f"{where}: caches must be a mapping like {{images: true, logits: true}}")
    preset = Preset(
        name=path.stem, description=str(values.get("description", "")).strip(), train=train, teachers=teachers,
        student=_options(student["options"], f"{where}: student"), student_why=str(student.get("why", "")).strip(),
        baseline=None if baseline is False else _options(baseline or {}, f"{where}: baseline"), source=values,
        image_cache=caches.get("images", True), logit_cache=caches.get("logits", True),
        targets=check_targets(values.get("targets") or {}, f"{where}: targets"),
    )
    return preset


def _options(values, where: str) -> dict:
    if not isinstance(values, dict):
        raise DistillError(f"{where}: expected a mapping of train options")
    flat = config.flatten(values, TrainConfig, where)
    reserved = [k for k in flat if k in RESERVED]
    if reserved:
        raise DistillError(f"{where}: {', '.join(reserved)} are set by the pipeline, not the preset")
    return flat
