"""RUN_DIR/report.md from what a pipeline run left behind: stage records, eval/*.json, bench.json.

Works on a partial run too (missing parts say so), so `python -m distill report RUN_DIR`
shows how far a run has got. Pictures: a confusion matrix per model and the training
curves of every training stage, as PNGs beside the report.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import yaml

from distill.errors import DistillError
from distill.stages import StageBook

MODELS = ("teacher", "student", "baseline")
# `pipeline --unlabelled`'s extra arm: the student distilled from the labelled photos alone.
LABELLED_ONLY = "student-labelled"
# Stages that `pipeline --seeds K` adds (student-seed1, eval-baseline-seed1, ...).
EXTRA_SEED = re.compile(r"-seed(\d+)$")
# The targets a run can be judged by: name -> how the target reads, given its value. A run is judged
# only by the targets its preset (`targets:`) or the command line (`--target NAME=VALUE`) states.
TARGETS = {
    "teacher_top1": lambda v: f"teacher top-1 >= {v:.0%}",
    "student_fraction": lambda v: f"student top-1 >= {v:.0%} of the teacher's",
    "speedup": lambda v: f"student >= {v:g}x the teacher's images/s",
    "kd_gain": lambda v: f"KD student >= {v * 100:g} points above the no-teacher baseline",
    "unlabelled_gain": lambda v: f"student >= {v * 100:g} points above the one distilled from the labelled photos alone",
    "hours": lambda v: f"whole pipeline under {v:g} h",
}


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _verdict(ok: bool | None) -> str:
    return "not measured yet" if ok is None else ("**met**" if ok else "**not met**")


def check_targets(values, where: str) -> dict[str, float]:
    """{name: value} of known targets, each a positive number; anything else is an error naming it."""
    if not isinstance(values, dict):
        raise DistillError(f"{where}: targets must be a mapping like {{teacher_top1: 0.85}}")
    unknown = sorted(set(values) - set(TARGETS))
    if unknown:
        raise DistillError(f"{where}: unknown target(s) {', '.join(map(str, unknown))}; known: {', '.join(TARGETS)}")
    checked = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise DistillError(f"{where}: target {name} must be a positive number, got {value!r}")
        checked[name] = float(value)
    return checked


def parse_target(text: str) -> tuple[str, float]:
    """NAME=VALUE from the command line (argparse type)."""
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or number is None:
        raise argparse.ArgumentTypeError(f"expected NAME=NUMBER (e.g. teacher_top1=0.85), got {text!r}")
    try:
        return next(iter(check_targets({name.strip(): number}, "--target").items()))
    except DistillError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def collect(run_dir: Path, targets: dict[str, float] | None = None) -> dict:
    """Everything the report shows, as plain data (also what docs/results.md is made from). The run is
    judged by the preset's targets, then those the pipeline was given on its command line, then `targets`."""
    book = StageBook(run_dir)
    records = {r["stage"]: r for r in book.all_records()}
    evals = {m: _read(run_dir / "eval" / f"{m}.json") for m in MODELS}
    evals.update({f"{m}.int8": _read(run_dir / "eval" / f"{m}.int8.json") for m in MODELS})
    evals[LABELLED_ONLY] = _read(run_dir / "eval" / f"{LABELLED_ONLY}.json")
    bench = _read(run_dir / "bench.json")
    speed: dict[str, dict[int, dict]] = {}
    for row in (bench or {}).get("rows", []):
        speed.setdefault(row["model"], {})[row["batch"]] = row
    pipeline = _read(run_dir / "pipeline.json") or {}
    stated = {**((pipeline.get("preset") or {}).get("targets") or {}), **(pipeline.get("targets") or {}), **(targets or {})}
    return {"run_dir": run_dir, "records": records, "evals": evals, "bench": bench, "speed": speed,
            "preset": pipeline, "seeds": seed_evals(run_dir, evals), "targets": stated,
            "photos": pipeline.get("photos"), "unlabelled": pipeline.get("unlabelled") or ""}


def seed_evals(run_dir: Path, evals: dict) -> dict[int, dict]:
    """seed -> {"student": eval, "baseline": eval} for every seed with both evaluated: the extra seeds
    of `pipeline --seeds` and, when there are any, the run's own (the seed before the first)."""
    extra = sorted(int(m.group(1)) for p in (run_dir / "eval").glob("student-seed*.json")
                   if (m := re.fullmatch(r"student-seed(\d+)", p.stem)))
    seeds = {s: {m: _read(run_dir / "eval" / f"{m}-seed{s}.json") for m in ("student", "baseline")} for s in extra}
    if extra and evals["student"] and evals["baseline"]:
        seeds[extra[0] - 1] = {"student": evals["student"], "baseline": evals["baseline"]}
    return {s: pair for s, pair in sorted(seeds.items()) if pair["student"] and pair["baseline"]}


def stage_seconds(record: dict) -> tuple[float, bool]:
    """A stage's wall time, and whether it is projected: a training stage resumed from last.pt
    timed only its last attempt, so its time is scaled to all the steps it ran (the last attempt's
    pace). Records without the attempt's first step (older runs) give the last attempt's time."""
    details = record.get("details") or {}
    start, steps = details.get("started_at_step"), details.get("steps")
    if details.get("resumed") and start is not None and steps and steps > start:
        return record["seconds"] * steps / (steps - start), True
    return record["seconds"], False


def unmeasured(record: dict) -> bool:
    """A training stage resumed at its last step (its training finished in an attempt that wrote no
    record): its time is not known."""
    details = record.get("details") or {}
    return bool(details.get("resumed")) and details.get("started_at_step", 0) >= details.get("steps", 1)


def paired_gain_interval(a: dict, b: dict, resamples: int = 10000, seed: int = 0) -> tuple[float, float] | None:
    """95% interval of top-1(a) - top-1(b) on the same photos: a paired bootstrap over the photos
    (both models judged on each resampled photo), so a gain smaller than the validation set can
    resolve shows as an interval around zero. None when the two evaluations saw different photos."""
    return mean_gain_interval([(a, b)], resamples, seed)


def mean_gain_interval(pairs: list[tuple[dict, dict]], resamples: int = 10000,
                       seed: int = 0) -> tuple[float, float] | None:
    """The same for the mean gain of several (a, b) pairs (one per seed): each photo counts the mean
    of its per-pair differences, and the photos are resampled. It says how far the validation
    photos leave the seed-averaged gain uncertain; the spread between seeds is in the table."""
    labels = np.asarray(pairs[0][0].get("targets") or [])
    if not len(labels) or any(list(labels) != list(x.get("targets") or []) for pair in pairs for x in pair):
        return None
    difference = np.mean([(np.asarray(a["predictions"]) == labels).astype(float)
                          - (np.asarray(b["predictions"]) == labels).astype(float) for a, b in pairs], axis=0)
    draws = np.random.default_rng(seed).integers(0, len(difference), (resamples, len(difference)))
    low, high = np.percentile(difference[draws].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)


def gain_text(a: dict | None, b: dict | None) -> tuple[str, float | None]:
    """top-1(a) - top-1(b) in points with its paired-bootstrap interval, and the gain ('-', None when
    either is not evaluated yet)."""
    if not (a and b):
        return "-", None
    gain, interval = a["top1"] - b["top1"], paired_gain_interval(a, b)
    return f"{gain * 100:+.1f} points" + (
        f" (95% interval {interval[0] * 100:+.1f} to {interval[1] * 100:+.1f}: paired bootstrap over the "
        f"{len(a['targets'])} photos)" if interval else ""), gain


def measurements(info: dict) -> list[tuple[str, str, str, float | None]]:
    """(target name, what was measured, the measured text, the value a target compares) for each figure a
    target can judge; the value is None while it is not measured yet."""
    evals, speed, records = info["evals"], info["speed"], info["records"]
    teacher, student, baseline = (evals[m] for m in MODELS)
    rows = [("teacher_top1", "teacher top-1", _pct(teacher["top1"]) if teacher else "-",
             teacher["top1"] if teacher else None)]
    fraction = student["top1"] / teacher["top1"] if teacher and student else None
    rows.append(("student_fraction", "student top-1 as a share of the teacher's",
                 "-" if fraction is None else f"{_pct(student['top1'])} = {fraction:.1%} of the teacher", fraction))
    for batch in (1, 32):
        row = speed.get("student.onnx", {}).get(batch)
        rows.append(("speedup", f"student images/s over the teacher's, batch {batch}",
                     f"{row['vs_first']:.2f}x" if row else "-", row["vs_first"] if row else None))
    seeds = info["seeds"]
    if len(seeds) > 1:  # the recipe's gain: the mean over seeds, each listed under "The teacher's gain over seeds"
        gains = [pair["student"]["top1"] - pair["baseline"]["top1"] for pair in seeds.values()]
        gain = sum(gains) / len(gains)
        interval = mean_gain_interval([(pair["student"], pair["baseline"]) for pair in seeds.values()])
        measured = (f"{gain * 100:+.1f} points, the mean over {len(gains)} seeds ("
                    + ", ".join(f"{g * 100:+.1f}" for g in gains) + ")"
                    + (f"; 95% interval {interval[0] * 100:+.1f} to {interval[1] * 100:+.1f} (paired bootstrap "
                       f"over the photos)" if interval else ""))
    else:
        measured, gain = gain_text(student, baseline)
    rows.append(("kd_gain", "KD student's top-1 over the no-teacher baseline", measured, gain))
    if info.get("unlabelled"):
        measured, gain = gain_text(student, evals[LABELLED_ONLY])
        rows.append(("unlabelled_gain", "student's top-1 over the same student distilled from the labelled photos "
                     "alone (the unlabelled photos' gain)", measured, gain))
    finished = "report" in records or "bench" in records
    # The pipeline as it runs by default: the extra seeds' stages are counted apart.
    hours = sum(stage_seconds(r)[0] for name, r in records.items() if not EXTRA_SEED.search(name)) / 3600
    extra = sum(stage_seconds(r)[0] for name, r in records.items() if EXTRA_SEED.search(name)) / 3600
    measured = f"{hours:.2f} h" + ("" if finished else " so far") + (
        f" (the extra seeds' stages: {extra:.2f} h more)" if extra else "")
    untimed = [name for name, r in records.items() if unmeasured(r)]
    if untimed:
        measured += f"; without the training time of {', '.join(untimed)} (each resumed at its last step)"
    rows.append(("hours", "whole pipeline's wall time", measured, hours if finished else None))
    return rows


def targets(info: dict) -> list[tuple[str, str, bool | None]]:
    """(target, what was measured, met?) for each target the run states; none stated, none judged."""
    stated = info["targets"]
    rows = []
    for name, _, measured, value in measurements(info):
        if name in stated:
            goal = stated[name]
            met = None if value is None else (value < goal if name == "hours" else value >= goal)
            rows.append((TARGETS[name](goal), measured, met))
    return rows


def seed_table(info: dict) -> list[str]:
    """Markdown rows: each seed's student and baseline, the teacher's gain with its paired-bootstrap
    interval, and the mean over the seeds."""
    teacher = info["evals"]["teacher"]
    lines = ["| seed | student | baseline | KD gain (points) | 95% interval (paired bootstrap) | student / teacher |",
             "|---|---|---|---|---|---|"]
    for seed, pair in info["seeds"].items():
        student, baseline = pair["student"], pair["baseline"]
        interval = paired_gain_interval(student, baseline)
        lines.append(f"| {seed} | {_pct(student['top1'])} | {_pct(baseline['top1'])} | "
                     f"{(student['top1'] - baseline['top1']) * 100:+.1f} | "
                     + (f"{interval[0] * 100:+.1f} to {interval[1] * 100:+.1f}" if interval else "-") + " | "
                     + (f"{student['top1'] / teacher['top1']:.1%}" if teacher else "-") + " |")
    students = [pair["student"]["top1"] for pair in info["seeds"].values()]
    baselines = [pair["baseline"]["top1"] for pair in info["seeds"].values()]
    mean_student, mean_baseline = sum(students) / len(students), sum(baselines) / len(baselines)
    interval = mean_gain_interval([(pair["student"], pair["baseline"]) for pair in info["seeds"].values()])
    lines.append(f"| mean | {_pct(mean_student)} | {_pct(mean_baseline)} | {(mean_student - mean_baseline) * 100:+.1f} | "
                 + (f"{interval[0] * 100:+.1f} to {interval[1] * 100:+.1f}" if interval else "-") + " | "
                 + (f"{mean_student / teacher['top1']:.1%}" if teacher else "-") + " |")
    return lines


def most_confused(metrics: dict, top: int = 10) -> list[tuple[str, str, int, float]]:
    """(true class, predicted class, validation photos, share of the true class's photos) of the `top`
    largest off-diagonal entries of the confusion matrix (rows: true class), largest first, ties by name."""
    classes, matrix = metrics["classes"], metrics["confusion"]
    pairs = [(classes[i], classes[j], count, count / sum(row))
             for i, row in enumerate(matrix) for j, count in enumerate(row) if i != j and count]
    return sorted(pairs, key=lambda pair: (-pair[2], pair[0], pair[1]))[:top]


def _stage_line(record: dict) -> str:
    details = record.get("details") or {}
    notes = []
    if "best_top1" in details:
        notes.append(f"best val top-1 {_pct(details['best_top1'])}, {details['steps']}/{details['total_steps']} steps")
        if details.get("stopped_early"):
            notes.append("stopped early")
        seconds, projected = stage_seconds(record)
        if projected:
            notes.append(f"resumed from last.pt at step {details['started_at_step']}: the last attempt took "
                         f"{record['seconds'] / 60:.1f} min for {details['steps'] - details['started_at_step']} "
                         f"steps, projected to all {details['steps']}")
        elif unmeasured(record):
            notes.append("resumed from last.pt at its last step: trained by an earlier attempt, time not measured")
        elif details.get("resumed"):
            notes.append("resumed from last.pt (time of the last attempt only)")
    if "top1" in details:
        notes.append(f"top-1 {_pct(details['top1'])}")
    if "gmacs" in details:
        notes.append(f"{details['parameters'] / 1e6:.2f} M params, {details['gmacs']:.3g} GMACs, {details['input_size']} px")
    return f"| {record['stage']} | {stage_seconds(record)[0] / 60:.1f} | {'; '.join(notes)} |"


def in_progress(run_dir: Path, records: dict) -> list[str]:
    """One line per training folder without a stage record: how far its last attempt got."""
    lines = []
    for jsonl in sorted(run_dir.glob("*/metrics.jsonl")):
        folder = jsonl.parent
        if folder.name in records or ".stale-" in folder.name:
            continue
        entries = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
        train = [r for r in entries if "train/loss" in r]
        val = [r for r in entries if "val/top1" in r]
        if not train:
            lines.append(f"{folder.name}: started, no step logged yet")
            continue
        last = train[-1]
        line = (f"{folder.name}: step {last['step']}, epoch {last['epoch']:.2f}, training loss {last['train/loss']:.3f}, "
                f"{last['train/images_per_s']:.1f} images/s")
        if val:
            line += "; validation top-1 by epoch: " + ", ".join(_pct(r["val/top1"]) for r in val)
        lines.append(line)
    return lines


def markdown(info: dict, images: bool = True) -> str:
    run_dir, records, evals, speed = info["run_dir"], info["records"], info["evals"], info["speed"]
    preset = info["preset"].get("preset", {})
    lines = [f"# Pipeline report: {run_dir.name}", ""]
    lines += [f"Data: `{info['preset'].get('data', '?')}`. Preset: {preset.get('description', '').strip()}", ""]
    photos = info.get("photos")
    if photos:
        lines += [f"Training photos: {photos['labelled']} labelled, {photos['unlabelled']} unlabelled"
                  + (f" (`{info['unlabelled']}`: the teacher's soft labels are their only target; the teacher "
                     f"learnt from the labelled photos alone)" if info.get("unlabelled") else "") + ".", ""]
    if info["bench"]:
        lines += [f"Speed measured with ONNX Runtime on {info['bench'].get('cpu', 'this CPU')}, "
                  f"{info['bench']['rounds']} interleaved rounds (median).", ""]
    lines += ["## Results on the validation data", "",
              "| model | top-1 | top-5 | params (M) | GMACs | input px | images/s b1 | images/s b32 | speed vs teacher b1 / b32 |",
              "|---|---|---|---|---|---|---|---|---|"]
    names = [m for m in (*MODELS, LABELLED_ONLY) if evals[m] or f"export-{m}" in records]
    for name in names + [f"{m}.int8" for m in MODELS if evals[f"{m}.int8"]]:
        base = name.split(".")[0]
        ev = evals.get(name)
        export = (records.get(f"export-{base}") or {}).get("details", {})
        s = speed.get(f"{name}.onnx", {})
        cells = [name, _pct(ev["top1"]) if ev else "-", _pct(ev["top5"]) if ev else "-",
                 f"{export['parameters'] / 1e6:.2f}" if export else "-", f"{export['gmacs']:.3g}" if export else "-",
                 str(export.get("input_size", "-")),
                 *(f"{s[b]['images_per_s']:.1f}" if b in s else "-" for b in (1, 32)),
                 " / ".join(f"{s[b]['vs_first']:.2f}x" for b in (1, 32) if b in s) or "-"]
        lines.append("| " + " | ".join(cells) + " |")
    int8 = records.get("int8")
    if int8 is None:
        lines += ["", "int8: not run yet (or `models.quantize` is missing from this checkout)."]
    else:
        lines += ["", "int8 (`models.quantize`; kept only when its top-1 agrees with fp32 on >= 99% of the "
                      "validation photos):"]
        for name, result in int8["details"].items():
            if "refused" in result:
                lines.append(f"- {name}: not written: {result['refused']}")
            else:
                lines.append(f"- {name}: {result['chosen']}, top-1 agreement with fp32 {_pct(result['top1_agreement'])}, "
                             f"top-1 {_pct(result['top1'])}")
    served = (info["bench"] or {}).get("served", {})
    if served:
        lines += ["", "Served on this machine (`models.runtime_choice`: the fastest file that meets the "
                      "agreement threshold, timed at batch 1):"]
        lines += [f"- {name}: {choice['reason']}" for name, choice in served.items()]
    lines += ["", "## Measured", "", "| what | measured |", "|---|---|"]
    lines += [f"| {what} | {measured} |" for _, what, measured, _ in measurements(info)]
    judged = targets(info)
    if judged:
        lines += ["", "## Targets", "", "| target | measured | |", "|---|---|---|"]
        lines += [f"| {t} | {m} | {_verdict(ok)} |" for t, m, ok in judged]
    if len(info["seeds"]) > 1:
        lines += ["", "## The teacher's gain over seeds", "",
                  "The student and the baseline trained again with other seeds (`--seeds`): the same options, "
                  "each seed its own initialisation, data order and augmented views. The served models above are "
                  "the first seed's.", ""] + seed_table(info)
    teacher = evals["teacher"]
    if teacher:
        from distill.measure import agreement

        lines += ["", "## Agreement with the teacher (same top-1 class on a validation image)", ""]
        for name in ("student", "baseline"):
            if evals[name]:
                lines.append(f"- {name}: {_pct(agreement(evals[name], teacher))}")
    present = [m for m in MODELS if evals[m]]
    if present:
        classes = evals[present[0]]["classes"]
        lines += ["", "## Per-class top-1", "", "| class | images | " + " | ".join(present) + " |",
                  "|---|---|" + "---|" * len(present)]
        for c in classes:
            count = evals[present[0]]["per_class_images"].get(c, 0)
            lines.append(f"| {c} | {count} | " + " | ".join(_pct(evals[m]["per_class"].get(c)) for m in present) + " |")
        lines += ["", "## The 10 most confused pairs (off-diagonal entries of the confusion matrix)"]
        for m in present:
            confused = most_confused(evals[m])
            lines += ["", f"{m}:" if confused else f"{m}: no photo predicted as another class."]
            if confused:
                lines += ["", "| true class | predicted | photos | share of the true class's photos |",
                          "|---|---|---|---|"]
                lines += [f"| {true} | {predicted} | {count} | {_pct(share)} |"
                          for true, predicted, count, share in confused]
    lines += ["", "## Stages (wall time; a resumed training stage projected from its last attempt's pace)", "",
              "| stage | minutes | result |",
              "|---|---|---|"]
    lines += [_stage_line(r) for r in records.values()]
    total = sum(stage_seconds(r)[0] for r in records.values())
    lines += ["", f"Total: {total / 60:.1f} min ({total / 3600:.2f} h)."]
    running = in_progress(run_dir, records)
    if running:
        lines += ["", "Not finished yet:", ""] + [f"- {line}" for line in running]
    why = (preset.get("student") or {}).get("why")
    if why:
        lines += ["", "## The student and why", "", why.strip()]
    if images:
        pictures = [f"![confusion matrix of the {m}](confusion-{m}.png)" for m in present]
        if (run_dir / "curves.png").is_file():
            pictures.append("![validation top-1 of every training stage](curves.png)")
        if pictures:
            lines += ["", "## Pictures", ""] + pictures
    lines += ["", "## Configuration (the preset)", "", "```yaml", yaml.safe_dump(preset, sort_keys=False).strip(), "```", ""]
    return "\n".join(lines)


def plot_confusion(metrics: dict, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matrix = np.asarray(metrics["confusion"])
    classes = metrics["classes"]
    size = max(5, 0.45 * len(classes) + 2)
    fig, ax = plt.subplots(figsize=(size, size))
    ax.imshow(matrix, cmap="Blues")
    if len(classes) <= 30:
        ax.set_xticks(range(len(classes)), classes, rotation=90)
        ax.set_yticks(range(len(classes)), classes)
        for i in range(len(classes)):
            for j in range(len(classes)):
                if matrix[i, j]:
                    ax.text(j, i, str(matrix[i, j]), ha="center", va="center", fontsize=7,
                            color="white" if matrix[i, j] > matrix.max() / 2 else "black")
    ax.set(xlabel="predicted", ylabel="true", title=f"{metrics['model']}: top-1 {metrics['top1']:.1%}")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def plot_stage_curves(run_dir: Path, out: Path) -> Path | None:
    """Validation top-1 per epoch of every training stage, one line each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted(p.parent for p in run_dir.glob("*/metrics.jsonl") if ".stale-" not in p.parent.name)
    if not runs:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for folder in runs:
        records = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines() if line.strip()]
        val = [(r["epoch"], r["val/top1"]) for r in records if "val/top1" in r]
        train = [(r["epoch"], r["train/loss"]) for r in records if "train/loss" in r]
        if val:
            right.plot(*zip(*val), marker="o", label=folder.name)
        if train:
            left.plot(*zip(*train), label=folder.name)
    left.set(xlabel="epoch", ylabel="training loss", title="training loss")
    right.set(xlabel="epoch", ylabel="validation top-1", title="validation top-1", ylim=(0, 1))
    for ax in (left, right):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def write_report(run_dir: Path, out: Path | None = None, images: bool = True,
                 targets: dict[str, float] | None = None) -> Path:
    """Write the report (and its PNGs beside RUN_DIR/report.md); returns the report's path. `targets`
    add to (and override) the ones the run states."""
    run_dir = Path(run_dir)
    info = collect(run_dir, targets)
    if images:
        for name, metrics in info["evals"].items():
            if metrics:
                plot_confusion(metrics, run_dir / f"confusion-{name}.png")
        plot_stage_curves(run_dir, run_dir / "curves.png")
    out = Path(out) if out else run_dir / "report.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown(info, images=images))
    return out
