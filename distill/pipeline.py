"""`python -m distill pipeline`: labelled photos in, a served model and its report out.

    python -m distill pipeline --data DIR --out RUN_DIR [--preset cpu|gpu|FILE.yaml] [--unlabelled DIR]

Stages, each skipped when its outputs exist and are valid (see distill.stages), so an
interrupted pipeline resumes at the stage it was in, and a training stage from its last.pt:

    teacher-head, teacher    head warm-up on a frozen body, then fine-tuning (per ensemble member)
    export-teacher, eval-teacher   teacher.onnx (metadata + parity check), its accuracy on val
    student                  the ViT distilled from the teacher (first filling the teacher-logit
                             cache: the teacher's logits on K augmented views of every photo);
                             with --unlabelled also from the photos there, on the teacher's soft
                             labels alone (the teacher itself learns from the labelled photos only)
    baseline                 the same ViT trained on the labels alone (off: --baseline false)
    student-labelled         (--unlabelled) the student distilled from the labelled photos alone:
                             the unlabelled photos' gain. With --unlabelled this one and the
                             baseline train as many steps as the student, so every arm has the
                             same budget (their epochs pass over the labelled photos several times)
    student-seedN, baseline-seedN   (--seeds K) both again with seeds +1 .. +K-1, so the report
                             gives the teacher's gain over K seeds, not one draw
    export-*, eval-*         student.onnx, baseline.onnx and their accuracy (<model>.report.json)
    int8                     *.int8.onnx (models.quantize, with its agreement guard) and their accuracy
    bench                    ONNX Runtime images/s of every model, side by side, and which file
                             (fp32 or int8) this machine serves for each (models.runtime_choice)
    report                   report.md with tables, confusion matrices and training curves
    deploy                   (--deploy) the student (and its int8 file) into the app's model folder
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from distill import config, data
from distill.errors import DistillError
from distill.preset import Preset, load_preset, preset_names
from distill.report import TARGETS, parse_target
from distill.stages import Stage, StageBook
from models.machine import cpu_description

MODELS = ("teacher", "student", "baseline")
TEACHER_ONLY_OPTIONS = ("kd", "alpha", "temperature", "logit_views", "logit_topk", "logit_pixels", "teacher_resize",
                        "teacher_runtime", "unlabelled_data")
# How a training stage runs, not what it trains (data loading and augmentation do not depend on the
# worker count): changing these never retrains a finished stage.
RUN_ONLY_OPTIONS = ("num_workers", "progress", "tensorboard", "log_every")


@dataclass
class PipelineConfig:
    data: str
    out: str
    preset: str = "cpu"
    val_data: str = ""
    baseline: bool = True
    deploy: bool = False
    deploy_name: str = ""
    label_map: str = ""
    bench_rounds: int = 5
    seeds: int = 1
    unlabelled: str = ""  # photos without labels: the student learns them from the teacher
    resume: bool = False  # continue the run in out; an error when there is none
    targets: dict = field(default_factory=dict)  # --target NAME=VALUE: on top of the preset's

    def __post_init__(self) -> None:
        if not self.data:
            raise DistillError("pipeline: pass --data DIR (an ImageFolder tree with train/ and val/)")
        if not self.out:
            raise DistillError("pipeline: pass --out RUN_DIR")
        if self.bench_rounds < 1:
            raise DistillError(f"pipeline: bench_rounds must be >= 1, got {self.bench_rounds}")
        if self.seeds < 1:
            raise DistillError(f"pipeline: seeds must be >= 1, got {self.seeds}")
        if self.data != "synthetic" and not Path(self.data).expanduser().exists():
            raise DistillError(f"data: {self.data} does not exist")
        if not self.val_data and not data.has_val_split(self.data):
            raise DistillError(f"data: {self.data} has no val/ folder: the pipeline selects models on "
                               "validation data; pass --val-data")
        if self.unlabelled:
            if self.data == "synthetic":
                raise DistillError("pipeline: --unlabelled photos train beside labelled photos; --data synthetic "
                                   "has none")
            data.open_unlabelled(self.unlabelled)  # missing, empty, labelled or unreadable: refused before training
        if self.resume and not (Path(self.out).expanduser() / "pipeline.json").is_file():
            raise DistillError(f"pipeline --resume: {self.out} holds no pipeline run to continue; leave out --resume "
                               "to start one there")


class Pipeline:
    def __init__(self, cfg: PipelineConfig):
        self.cfg = cfg
        self.preset: Preset = load_preset(cfg.preset)
        self.run_dir = Path(cfg.out).expanduser().resolve()
        self.book = StageBook(self.run_dir)
        if cfg.seeds > 1 and not self.has_baseline:
            raise DistillError("pipeline: --seeds measures the teacher's gain over the baseline, and this run has "
                               "none (--baseline false, or a preset without one)")
        self.common = {**self.preset.train, "data": cfg.data}
        if self.preset.image_cache and cfg.data != "synthetic":  # synthetic photos are drawn, not decoded
            self.common["image_cache"] = str(self.run_dir / "cache")
        if cfg.val_data:
            self.common["val_data"] = cfg.val_data
        if cfg.deploy:  # refuse now, not after hours of training, when the app could not describe a class
            from distill.deploy import served_labels

            options = config.build(config.TrainConfig, {**self.common, "teacher": "none"})
            classes = data.open_source(cfg.data, "train", options.data.synthetic_classes,
                                       options.data.synthetic_images).classes
            served_labels(classes or [], cfg.label_map or None)
        self.photos = self._count_photos()
        if cfg.unlabelled:  # e.g. a preset that mixes images: refuse now, not after the teacher's hours
            try:
                config.build(config.TrainConfig, self.student_options())
            except DistillError as exc:
                raise DistillError(f"pipeline --unlabelled: the {self.preset.name} preset's student cannot learn "
                                   f"unlabelled photos ({exc}); in a copy of the preset set its student options "
                                   "(e.g. mixup: 0, cutmix: 0) and pass --preset COPY.yaml") from None
        self._check_run_folder()

    # --- paths and specs --------------------------------------------------------------------------

    def onnx(self, name: str, suffix: str = ".onnx") -> Path:
        return self.run_dir / f"{name}{suffix}"

    def member_folder(self, member: str, head: bool = False, cycle: int = 1) -> Path:
        """teacher[-NAME][-head | -cycleN]: the first fine-tuning cycle keeps the plain name."""
        base = "teacher" if len(self.preset.teachers) == 1 else f"teacher-{member}"
        return self.run_dir / (f"{base}-head" if head else base if cycle == 1 else f"{base}-cycle{cycle}")

    def teacher_checkpoints(self) -> list[Path]:
        return [self.member_folder(m.name, cycle=len(m.finetune)) / "best.pt" for m in self.preset.teachers]

    def teacher_spec(self) -> str:
        specs = [f"ckpt:{p}" for p in self.teacher_checkpoints()]
        return specs[0] if len(specs) == 1 else "ensemble:" + "+".join(specs)

    def models(self) -> list[str]:
        return [m for m in MODELS if m != "baseline" or self.has_baseline]

    @property
    def has_baseline(self) -> bool:
        return self.cfg.baseline and self.preset.baseline is not None

    def _count_photos(self) -> dict[str, int]:
        """The training photos with and without labels, for the report."""
        options = config.build(config.TrainConfig, {**self.common, "teacher": "none"})
        labelled = data.open_source(self.cfg.data, "train", options.data.synthetic_classes,
                                    options.data.synthetic_images)
        unlabelled = data.open_unlabelled(self.cfg.unlabelled) if self.cfg.unlabelled else []
        return {"labelled": len(labelled), "unlabelled": len(unlabelled)}

    def student_options(self) -> dict:
        options = {**self.common, **self.preset.student, "teacher": self.teacher_spec()}
        if self.preset.logit_cache:  # built inside the student stage, resumable, keyed by the teacher's weights and seed
            options["logit_cache"] = str(self.run_dir / "cache")
        if self.cfg.unlabelled:
            options["unlabelled_data"] = self.cfg.unlabelled
        return options

    def student_steps(self) -> int:
        """The student's optimizer steps over the labelled and unlabelled photos: with --unlabelled, the
        labelled-only arms train as many, so the comparison is of data, not of budget."""
        options = config.build(config.TrainConfig, self.student_options())
        if options.optim.max_steps:
            return options.optim.max_steps
        step_samples = options.data.batch_size * options.optim.accum_steps
        return options.optim.epochs * (sum(self.photos.values()) // step_samples)

    def _check_run_folder(self) -> None:
        """A run folder belongs to one data set: refuse to mix two. (A changed preset is fine: the
        stages whose options changed run again.) pipeline.json also tells the report the preset."""
        # Unlabelled photos are no part of it: adding them to a run retrains only the students.
        identity = {"data": self.cfg.data, "val_data": self.cfg.val_data}
        path = self.run_dir / "pipeline.json"
        if path.is_file():
            recorded = json.loads(path.read_text())
            if {k: recorded.get(k) for k in identity} != identity:
                raise DistillError(f"pipeline: {self.run_dir} holds a run on other data ({recorded.get('data')}); "
                                   "choose another --out (nothing was changed)")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**identity, "unlabelled": self.cfg.unlabelled, "photos": self.photos,
                                    "preset_name": self.preset.name, "preset": self.preset.source,
                                    "targets": self.cfg.targets}, indent=2))

    # --- the stages -----------------------------------------------------------------------------

    def stages(self) -> list[Stage]:
        stages = []
        for member in self.preset.teachers:
            start, inputs = None, []  # the checkpoint the next fine-tuning cycle starts from
            if member.warmup is not None:
                head = self.member_folder(member.name, head=True)
                stages.append(self._train_stage(head.name, {**self.common, **member.warmup, "teacher": "none",
                                                            "freeze_body": True}, head, []))
                start = head / "best.pt"
            for cycle, options in enumerate(member.finetune, start=1):
                finetune = {**self.common, **options, "teacher": "none"}
                if start is not None:
                    finetune.update(model=f"ckpt:{start}", freeze_body=False)
                    inputs = [start]
                folder = self.member_folder(member.name, cycle=cycle)
                stages.append(self._train_stage(folder.name, finetune, folder, inputs))
                start = folder / "best.pt"
        stages += self._model_stages("teacher", self.teacher_spec(), self.teacher_checkpoints())
        teacher_ckpts = self.teacher_checkpoints()
        student = self.student_options()
        # A folder's modification time changes when a photo is added or removed: the students learn again.
        unlabelled = [Path(self.cfg.unlabelled).expanduser().resolve()] if self.cfg.unlabelled else []
        stages += self._trained_model_stages("student", student, teacher_ckpts + unlabelled)
        same_budget = self.labelled_only_budget() if self.cfg.unlabelled else {}
        if self.cfg.unlabelled:
            # The teacher stays live here (no logit cache): over the budget's many epochs of a few photos
            # it labels fresh views, where a cache would replay its K views again and again.
            labelled_only = {key: value for key, value in student.items() if key not in ("unlabelled_data", "logit_cache",
                                                                                      "logit_pixels")}
            stages += self._trained_model_stages("student-labelled", {**labelled_only, **same_budget}, teacher_ckpts)
        if self.has_baseline:
            # Options only a teacher uses are left out, so changing them does not retrain the baseline.
            baseline = {key: value for key, value in {**self.common, **self.preset.student, **self.preset.baseline}.items()
                        if key not in TEACHER_ONLY_OPTIONS}
            baseline.update(same_budget, teacher="none")
            stages += self._trained_model_stages("baseline", baseline, [])
            # One seed's student moves by points on a few hundred validation photos; more seeds say
            # what the teacher adds to the recipe rather than to one draw.
            for seed in self.extra_seeds():
                stages += self._trained_model_stages(f"student-seed{seed}", {**student, "seed": seed},
                                                     teacher_ckpts + unlabelled)
                stages += self._trained_model_stages(f"baseline-seed{seed}", {**baseline, "seed": seed}, [])
        stages.append(Stage("int8", self._int8, [self.run_dir / "int8.json"], [self.onnx(m) for m in self.models()]))
        stages.append(Stage("bench", self._bench, [self.run_dir / "bench.json"],
                            [self.onnx(m) for m in self.models()] + [self.run_dir / "int8.json"]))
        evaluated = (self.models() + ["student-labelled"] * bool(self.cfg.unlabelled)
                     + [f"{m}-seed{s}" for s in self.extra_seeds() for m in ("student", "baseline")])
        stages.append(Stage("report", self._report, [self.run_dir / "report.md"],
                            [self.run_dir / "eval" / f"{m}.json" for m in evaluated] + [self.run_dir / "bench.json"],
                            settings={"targets": {**self.preset.targets, **self.cfg.targets}}))
        if self.cfg.deploy:
            from distill.deploy import installed_path

            target = installed_path(self.run_dir, self.cfg.deploy_name or None)
            stages.append(Stage("deploy", self._deploy, [target], [self.onnx("student"), self.run_dir / "report.md"],
                                settings={"label_map": self.cfg.label_map}))
        return stages

    def _served_files(self) -> list[Path]:
        """The fp32 models, then the int8 variants the int8 stage wrote."""
        files = [self.onnx(m) for m in self.models()]
        written = json.loads((self.run_dir / "int8.json").read_text())
        return files + [self.onnx(m, ".int8.onnx") for m in self.models() if written.get(m, {}).get("out_path")]

    def _train_stage(self, name: str, options: dict, folder: Path, inputs: list[Path]) -> Stage:
        # Paths inside the run folder are recorded relative to it, so a moved run folder stays valid.
        settings = {k: v.replace(str(self.run_dir), "$RUN_DIR") if isinstance(v, str) else v for k, v in options.items()}
        stage = Stage(name, lambda: None, [folder / "best.pt"], inputs, settings=settings, run_only=RUN_ONLY_OPTIONS)
        stage.run = lambda: self._train(stage, options, folder)
        return stage

    def labelled_only_budget(self) -> dict:
        """The labelled-only arms' options: the student's optimizer steps, and as many passes over the
        labelled photos per epoch as make an epoch about the student's (so they validate about as often)."""
        passes = max(1, round(sum(self.photos.values()) / self.photos["labelled"]))
        return {"max_steps": self.student_steps(), "repeats": passes}

    def extra_seeds(self) -> list[int]:
        """The seeds after the run's own that --seeds adds (the run's own is the preset's seed)."""
        options = {k: v for k, v in {**self.common, **self.preset.student}.items() if k not in TEACHER_ONLY_OPTIONS}
        own = config.build(config.TrainConfig, {**options, "teacher": "none"}).run.seed
        return [own + i for i in range(1, self.cfg.seeds)]

    def _trained_model_stages(self, name: str, options: dict, inputs: list[Path]) -> list[Stage]:
        """Train RUN_DIR/<name>, then export and evaluate its best.pt."""
        folder = self.run_dir / name
        return [self._train_stage(name, options, folder, inputs),
                *self._model_stages(name, f"ckpt:{folder / 'best.pt'}", [folder / "best.pt"])]

    def _model_stages(self, name: str, spec: str, inputs: list[Path]) -> list[Stage]:
        return [
            Stage(f"export-{name}", lambda: self._export(name, spec), [self.onnx(name)], inputs),
            Stage(f"eval-{name}", lambda: self._evaluate(name),
                  [self.run_dir / "eval" / f"{name}.json", self.onnx(name, ".report.json")], [self.onnx(name)]),
        ]

    # --- what each stage does -------------------------------------------------------------------

    def _train(self, stage: Stage, options: dict, folder: Path) -> dict:
        from distill.train import resolve_config
        from distill.train import run as run_training

        if self.book.has_stale_record(stage) and folder.exists():
            # Its options, its teacher or its own best.pt changed since it finished: keep the old run aside.
            aside = folder.with_name(f"{folder.name}.stale-{datetime.now():%Y%m%d-%H%M%S}")
            folder.rename(aside)
            self.log(f"[{stage.name}] out of date; the previous run moved to {aside.name}")
        explicit = {**options, "out": str(folder)}
        if (folder / "last.pt").is_file():
            explicit["resume"] = str(folder / "last.pt")
            self.log(f"[{stage.name}] continuing from {folder / 'last.pt'}")
        cfg, resume = resolve_config(explicit)
        trainer = run_training(cfg, resume)
        # started_at_step lets the report project a resumed stage's time for one uninterrupted attempt.
        return {"best_top1": trainer.best_top1, "steps": trainer.step, "total_steps": trainer.total_steps,
                "stopped_early": trainer.stopped_early, "resumed": resume is not None,
                "started_at_step": resume["step"] if resume is not None else 0}

    def _export(self, name: str, spec: str) -> dict:
        from distill.measure import count_gmacs, count_parameters
        from models.errors import ModelError
        from models.export import export_onnx
        from models.registry import create_model

        try:
            model = create_model(spec)
            export_onnx(model, self.onnx(name))
        except ModelError as exc:
            raise DistillError(f"export {name}: {exc}") from None
        return {"spec": spec, "parameters": count_parameters(model), "gmacs": count_gmacs(model),
                "input_size": model.preprocess.input_size}

    def _evaluate(self, name: str) -> dict:
        from distill.measure import evaluate_onnx, write_model_report

        val, options = self._val_source()
        metrics = evaluate_onnx(self.onnx(name), val, seed=options.run.seed,
                                batch_size=options.data.batch_size,
                                num_workers=data.resolve_workers(options.data.num_workers))
        (self.run_dir / "eval").mkdir(exist_ok=True)
        (self.run_dir / "eval" / f"{name}.json").write_text(json.dumps(metrics))
        write_model_report(metrics, self.onnx(name, ".report.json"), run=str(self.run_dir), role=name)
        self.log(f"[eval-{name}] top-1 {metrics['top1']:.2%}, top-5 {metrics['top5']:.2%} on {metrics['images']} images")
        return {"top1": metrics["top1"], "top5": metrics["top5"]}

    def _val_source(self) -> tuple[data.Source, config.TrainConfig]:
        options = config.build(config.TrainConfig, {**self.common, "teacher": "none"})
        val = data.open_source(self.cfg.val_data or self.cfg.data, "val", options.data.synthetic_classes,
                               options.data.synthetic_images)
        return val, options

    def _int8(self) -> dict:
        """int8 variants (models.quantize: the fastest candidate on this CPU among dynamic and static
        QDQ, calibrated on training photos, kept only when its top-1 agrees with fp32 on >= 99% of
        the validation photos)."""
        from distill.measure import evaluate_onnx, photo_folder
        from models.errors import ModelError
        from models.quantize import quantize_model

        val, options = self._val_source()
        train = data.open_source(self.cfg.data, "train", options.data.synthetic_classes, options.data.synthetic_images)
        photos = photo_folder(val, self.run_dir / "cache" / "int8-val", seed=options.run.seed)
        calibration = photo_folder(train, self.run_dir / "cache" / "int8-calibration", seed=options.run.seed, limit=256)
        results = {}
        for name in self.models():
            try:
                report = quantize_model(self.onnx(name), self.onnx(name, ".int8.onnx"), photos_dir=photos,
                                        calibration_dir=calibration)
            except ModelError as exc:  # under the agreement threshold: nothing written, and the report says why
                results[name] = {"out_path": None, "refused": str(exc)}
                self.onnx(name, ".int8.onnx").unlink(missing_ok=True)
                self.log(f"[int8] {name}: {exc}")
                continue
            metrics = evaluate_onnx(self.onnx(name, ".int8.onnx"), val, seed=options.run.seed,
                                    batch_size=options.data.batch_size)
            (self.run_dir / "eval" / f"{name}.int8.json").write_text(json.dumps(metrics))
            results[name] = {**report.to_dict(), "top1": metrics["top1"]}
            self.log(f"[int8] {name}: {report.chosen}, agreement with fp32 {report.top1_agreement:.2%}, "
                     f"top-1 {metrics['top1']:.2%}")
        (self.run_dir / "int8.json").write_text(json.dumps(results, indent=2))
        return {name: {k: r.get(k) for k in ("chosen", "top1_agreement", "top1", "refused") if r.get(k) is not None}
                for name, r in results.items()}

    def _bench(self) -> dict:
        from models.bench import compare_engines
        from models.engine import Engine
        from models.runtime_choice import choose_for_file

        engines = {path.name: Engine(path) for path in self._served_files()}
        result = compare_engines(engines, rounds=self.cfg.bench_rounds)
        result["cpu"] = cpu_description()
        # What the app on this machine would serve for each model (int8 only where it is faster),
        # timed apart from the table above and cached beside the model, as the app does.
        result["served"] = {m: choose_for_file(self.onnx(m)).to_dict() for m in self.models()}
        for name, choice in result["served"].items():
            self.log(f"[bench] {name} serves {choice['reason']}")
        (self.run_dir / "bench.json").write_text(json.dumps(result, indent=2))
        return {}

    def _report(self) -> dict:
        from distill.report import write_report

        write_report(self.run_dir)
        return {}

    def _deploy(self) -> dict:
        from distill.deploy import deploy

        from models.runtime_choice import choose_for_file

        installed = deploy(self.run_dir, name=self.cfg.deploy_name or None, label_map=self.cfg.label_map or None)
        served = choose_for_file(installed).reason
        self.log(f"[deploy] {installed.name} serves {served}")
        return {"installed": str(installed), "served": served}

    # --- running --------------------------------------------------------------------------------

    def log(self, text: str) -> None:
        line = f"{datetime.now():%Y-%m-%d %H:%M:%S} {text}"
        print(line, file=sys.stderr, flush=True)
        with open(self.run_dir / "pipeline.log", "a") as f:
            f.write(line + "\n")

    def run(self) -> Path:
        start = time.perf_counter()
        self.log(f"pipeline {self.preset.name} on {self.cfg.data} into {self.run_dir}")
        for stage in self.stages():
            self.book.run(stage, self.log)
        self.log(f"pipeline finished in {(time.perf_counter() - start) / 60:.1f} min (this invocation); "
                 f"report {self.run_dir / 'report.md'}")
        return self.run_dir / "report.md"


def parse_args(argv: list[str]) -> PipelineConfig:
    parser = argparse.ArgumentParser(prog="python -m distill pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="ImageFolder root with train/ and val/ (or any "
                        "`distill train --data` kind with --val-data)")
    parser.add_argument("--val-data", default="", help="validation data when --data has no val/ folder")
    parser.add_argument("--out", required=True, help="run folder (rerun the same command to resume)")
    parser.add_argument("--preset", default="cpu", help=f"recipe: {', '.join(preset_names())} or a YAML file "
                        "(default: cpu)")
    parser.add_argument("--unlabelled", default="", metavar="DIR", help="a folder of photos without labels (or a CSV "
                        "manifest with empty labels): the teacher labels K augmented views of each once (the "
                        "teacher-logit cache) and the student learns them beside the labelled photos; the report "
                        "gives their gain over the student distilled from the labelled photos alone")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out (an error when it holds "
                        "none); rerunning the same command without it continues too")
    parser.add_argument("--baseline", type=config.parse_bool, default=True, metavar="BOOL",
                        help="also train the student without the teacher, for comparison (default: true)")
    parser.add_argument("--deploy", action="store_true", help="install the student into the app's model "
                        "folder at the end (like `python -m distill deploy RUN_DIR`)")
    parser.add_argument("--deploy-name", default="", help="the deployed model's name (default: the run folder's)")
    parser.add_argument("--label-map", default="", help="YAML/JSON mapping of model labels to database "
                        "foods, for labels the nutrition database does not know")
    parser.add_argument("--bench-rounds", type=int, default=5, help="interleaved rounds of the speed benchmark")
    parser.add_argument("--seeds", type=int, default=1, metavar="K", help="train the student and the baseline with K "
                        "seeds (the preset's, then the next K-1); the report gives the teacher's gain for each and "
                        "their mean (default: 1)")
    parser.add_argument("--target", dest="targets", action="append", type=parse_target, default=[],
                        metavar="NAME=VALUE", help="judge the run by this target, on top of the preset's "
                        f"(repeatable; {', '.join(TARGETS)}; e.g. teacher_top1=0.85); with none, nothing is judged")
    args = parser.parse_args(argv)
    return PipelineConfig(**{**vars(args), "targets": dict(args.targets)})


def main(argv: list[str]) -> None:
    Pipeline(parse_args(argv)).run()
