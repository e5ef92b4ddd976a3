"""`python -m distill`: distil a frozen teacher into a small student, evaluate, profile, run the pipeline.

    python -m distill pipeline --data DIR --out RUN_DIR [--preset cpu|gpu]   (all of it, resumable)
        [--unlabelled DIR]                                  (also photos without labels, taught by the teacher)
    python -m distill prepare-food101 SRC DIR            (the 64 px Food-101 tars as an ImageFolder)
    python -m distill deploy RUN_DIR                        (the student into the app's model folder)
    python -m distill report RUN_DIR [--out FILE]           (report.md of a finished or partial run)
    python -m distill train --data DIR --teacher ckpt:teacher.pt --model vit_micro ...
    torchrun --nproc-per-node 2 -m distill train ...        (DDP; --zero shards AdamW)
    python -m distill eval --checkpoint runs/x/best.pt --data DIR
    python -m distill profile --data DIR --teacher ...      (train options; a profiled window and
                                                             a bottleneck report)
    python -m distill tune-loader --data DIR --model ...    (measure loader workers, pick the best)

`python -m distill train --help` lists every option. Bad input exits 2 with one line.
Under SageMaker (entry_point="distill/__main__.py", source_dir at the repo root) the
command defaults to `train` and SM_CHANNEL_*/SM_MODEL_DIR/SM_OUTPUT_DATA_DIR fill in paths.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if not __package__:  # run as a file (SageMaker): import the package from the repo root instead
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from distill import config, dist  # noqa: E402
from distill.errors import DistillError, LostPeerError  # noqa: E402
from models.cli import unknown_command  # noqa: E402
from models.errors import FoodtagError  # noqa: E402

USAGE = ("usage: python -m distill {pipeline,prepare-food101,deploy,report,train,eval,profile,tune-loader} [options]   "
         "(--help after the command lists them)")


def train(argv: list[str]) -> None:
    explicit = config.parse_args(config.TrainConfig, argv, "python -m distill train",
                                 "Distil a frozen teacher into a student (or train it supervised: --teacher none).")
    run_training(explicit)


def run_training(explicit: dict, then=None) -> None:
    """Resolve the config and run it (distill.train.run): fit, then(trainer), close."""
    from distill.train import resolve_config, run

    run(*resolve_config(explicit), then=then)


def profile(argv: list[str]) -> None:
    """A short training run under torch.profiler, then the bottleneck report."""
    from distill.profiling import StepProfiler, collect_facts, report

    explicit = config.parse_args(config.TrainConfig, argv, "python -m distill profile",
                                 "Profile a few training steps (same options as train) and report bottlenecks.")
    explicit.setdefault("profile_steps", 10)
    explicit.setdefault("max_steps", StepProfiler.WAIT + 1 + explicit["profile_steps"])
    explicit.setdefault("val_data", "none")  # the training step is what is profiled
    explicit["log_every"] = 1  # every step's timing and memory feed the rules

    def print_report(trainer) -> None:
        if dist.is_main():
            print(report(collect_facts(trainer, skip=StepProfiler.WAIT + 1)), flush=True)

    run_training(explicit, then=print_report)


def tune_loader(argv: list[str]) -> None:
    """Measure the training loader over worker counts, prefetch and pinning; print the pick."""
    import argparse
    import tempfile

    from distill.data import available_cpus
    from distill.loader_tuning import tune
    from distill.train import Trainer, resolve_config

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--batches", type=int, default=10, help="batches timed per setting (after start-up)")
    extra.add_argument("--full-grid", action="store_true", help="also measure every combination")
    own, rest = extra.parse_known_args(argv)
    if own.batches < 1:
        raise DistillError("tune-loader: --batches must be >= 1")
    explicit = config.parse_args(config.TrainConfig, rest, "python -m distill tune-loader",
                                 "Loader throughput over worker counts on the training data and transform "
                                 "(train options; also --batches N, --full-grid).")
    explicit.setdefault("teacher", "none")  # only a --logit-cache needs the teacher
    with tempfile.TemporaryDirectory() as out:
        explicit.update(out=out, progress=False, tensorboard=False, val_data="none")
        cfg, _ = resolve_config(explicit)
        trainer = Trainer(cfg)
        tune(trainer.train_set, cfg.data.batch_size, own.batches, trainer.device.type == "cuda",
             available_cpus(), own.full_grid)


def evaluate(argv: list[str]) -> None:
    from distill.evaluate import run

    explicit = config.parse_args(config.EvalConfig, argv, "python -m distill eval",
                                 "Top-1/top-5, per-class accuracy and teacher agreement of a checkpoint.")
    cfg = config.build(config.EvalConfig, explicit)
    dist.init(cfg.device, cfg.backend)
    finished = False
    try:
        run(cfg)
        finished = True
    finally:
        dist.destroy(finished)


def pipeline(argv: list[str]) -> None:
    from distill.pipeline import main as run_pipeline

    run_pipeline(argv)


def prepare_food101(argv: list[str]) -> None:
    from distill.food101 import main as run_prepare

    run_prepare(argv)


def deploy(argv: list[str]) -> None:
    from distill.deploy import main as run_deploy
    from models.paths import owner_only_files

    owner_only_files()  # installed beside the app's database, owner-only like everything there
    run_deploy(argv)


def report(argv: list[str]) -> None:
    import argparse

    from distill.report import TARGETS, parse_target, write_report

    parser = argparse.ArgumentParser(prog="python -m distill report", description="report.md of a pipeline run")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="write here instead of RUN_DIR/report.md")
    parser.add_argument("--images", type=config.parse_bool, default=True, metavar="BOOL",
                        help="draw the confusion matrices and curves beside RUN_DIR/report.md (default: true)")
    parser.add_argument("--target", dest="targets", action="append", type=parse_target, default=[],
                        metavar="NAME=VALUE", help="judge the run by this target, on top of those the run states "
                        f"(repeatable; {', '.join(TARGETS)})")
    args = parser.parse_args(argv)
    if not (args.run_dir / "pipeline.json").is_file():
        raise DistillError(f"report: {args.run_dir} is not a pipeline run folder (no pipeline.json)")
    print(write_report(args.run_dir, args.out, images=args.images, targets=dict(args.targets)))


def one_line(exc: Exception) -> str:
    """A DataLoader worker re-raises with the worker's traceback in the message: keep the cause."""
    text = str(exc).strip()
    if "Original Traceback" in text:
        text = text.splitlines()[-1].split(": ", 1)[-1]
    return text.splitlines()[0] if text else type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "SM_MODEL_DIR" in os.environ and (not argv or argv[0].startswith("--")) and argv[:1] != ["--help"]:
        argv.insert(0, "train")  # SageMaker passes hyperparameters only
    commands = {"train": train, "eval": evaluate, "profile": profile, "tune-loader": tune_loader,
                "pipeline": pipeline, "prepare-food101": prepare_food101, "deploy": deploy, "report": report}
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if (status := unknown_command(argv, commands, "python -m distill")) is not None:
        return status
    try:
        commands[argv[0]](argv[1:])
    except FoodtagError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except LostPeerError as exc:  # within --dist-timeout: a lost node ends the run instead of hanging it
        print(f"error: lost contact with the other training processes (a process or node stopped, or the "
              f"network failed); torchrun --max-restarts N continues from last.pt. Cause: {one_line(exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
