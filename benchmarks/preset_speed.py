"""Before training: ONNX Runtime images/s of a preset's student architecture against its teacher's.

    python -m benchmarks.preset_speed [--preset cpu] [--classes 10] [--rounds 5]

Speed does not depend on the weights, so untrained models of the preset's architectures are
exported (with the same fusion as the pipeline's export) and timed side by side, interleaved,
at batch 1 and 32. This is how a student's resolution and depth are checked against the
">= 2x the teacher's images/s" target before hours of training; the pipeline's bench stage
measures the trained models again.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from distill.measure import count_gmacs, count_parameters
from distill.preset import load_preset
from models.bench import compare_engines
from models.engine import Engine
from models.export import export_onnx
from models.machine import cpu_description
from models.registry import EnsembleModel, create_model


def build(options: dict, labels: list[str]):
    """The model a stage's options describe, untrained, at the stage's input size."""
    kwargs = dict(options.get("model_kwargs") or {})
    model = create_model(options["model"], labels=labels, pretrained=False, **kwargs)
    if options.get("img_size"):
        model.preprocess.input_size = options["img_size"]
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    preset = load_preset(args.preset)
    labels = [f"class_{i}" for i in range(args.classes)]
    # The teacher as the pipeline exports it: one member, or the ensemble of all of them.
    members = [build({**(member.warmup or {}), **{k: v for cycle in member.finetune for k, v in cycle.items()}}, labels)
               for member in preset.teachers]
    models = {"teacher": members[0] if len(members) == 1 else EnsembleModel(members),
              "student": build(preset.student, labels)}
    with tempfile.TemporaryDirectory() as tmp:
        engines = {name: Engine(export_onnx(model, Path(tmp) / f"{name}.onnx")) for name, model in models.items()}
        result = compare_engines(engines, rounds=args.rounds)
    print(f"preset {preset.name} ({len(preset.teachers)} teacher member(s), timed as the pipeline exports them), "
          f"{cpu_description()}")
    print(f"{'model':<10}{'params M':>10}{'GMACs':>8}{'px':>5}{'batch':>7}{'images/s':>10}{'vs teacher':>12}")
    for row in result["rows"]:
        model = models[row["model"]]
        print(f"{row['model']:<10}{count_parameters(model) / 1e6:>10.2f}{count_gmacs(model):>8.3f}"
              f"{model.preprocess.input_size:>5}{row['batch']:>7}{row['images_per_s']:>10.1f}{row['vs_first']:>11.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
