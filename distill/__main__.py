"""`python -m distill`: distil a frozen teacher into a small student, evaluate, run the pipeline.

    python -m distill pipeline --data DIR --out RUN_DIR [--preset cpu|gpu]   (all of it, resumable)
    python -m distill deploy RUN_DIR                        (the student into the app's model folder)
    python -m distill report RUN_DIR [--out FILE]           (report.md of a finished or partial run)
    python -m distill train --data DIR --teacher ckpt:teacher.pt --model vit_micro ...
    torchrun --nproc-per-node 2 -m distill train ...        (DDP; --zero shards AdamW)
    python -m distill eval --checkpoint runs/x/best.pt --data DIR

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
from distill.errors import DistillError  # noqa: E402
from models.errors import FoodtagError  # noqa: E402

USAGE = ("usage: python -m distill {pipeline,deploy,report,train,eval} [options]   "
         "(--help after the command lists them)")


def train(argv: list[str]) -> None:
    from distill.train import resolve_config, run

    explicit = config.parse_args(config.TrainConfig, argv, "python -m distill train",
                                 "Distil a frozen teacher into a student (or train it supervised: --teacher none).")
    run(*resolve_config(explicit))


def evaluate(argv: list[str]) -> None:
    from distill.evaluate import run

    explicit = config.parse_args(config.EvalConfig, argv, "python -m distill eval",
                                 "Top-1/top-5, per-class accuracy and teacher agreement of a checkpoint.")
    cfg = config.build(config.EvalConfig, explicit)
    dist.init(cfg.device, cfg.backend)
    try:
        run(cfg)
    finally:
        dist.destroy()


def pipeline(argv: list[str]) -> None:
    from distill.pipeline import main as run_pipeline

    run_pipeline(argv)


def deploy(argv: list[str]) -> None:
    from distill.deploy import main as run_deploy

    run_deploy(argv)


def report(argv: list[str]) -> None:
    import argparse

    from distill.report import write_report

    parser = argparse.ArgumentParser(prog="python -m distill report", description="report.md of a pipeline run")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="write here instead of RUN_DIR/report.md")
    parser.add_argument("--images", type=config.parse_bool, default=True, metavar="BOOL",
                        help="draw the confusion matrices and curves beside RUN_DIR/report.md (default: true)")
    args = parser.parse_args(argv)
    if not (args.run_dir / "pipeline.json").is_file():
        raise DistillError(f"report: {args.run_dir} is not a pipeline run folder (no pipeline.json)")
    print(write_report(args.run_dir, args.out, images=args.images))


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
    commands = {"train": train, "eval": evaluate, "pipeline": pipeline, "deploy": deploy, "report": report}
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if not argv or argv[0] not in commands:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        commands[argv[0]](argv[1:])
    except FoodtagError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
