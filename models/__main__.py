"""`python -m models`: list, export, merge, ship, calibrate, quantize, predict, bench."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from models.cli import unknown_command
from models.errors import FoodtagError


def _list(args) -> None:
    from models.registry import describe_model, list_models

    for kind in ("teacher", "student"):
        print(f"{kind}s:")
        for name in list_models(kind):
            print(f"  {name:<34}{describe_model(name)}")
    print("also: timm:<name> (hub weights), ckpt:<path> (training checkpoint), ensemble:<a>+<b>")


def _export(args) -> None:
    from models.export import export_onnx
    from models.registry import create_model

    path = export_onnx(create_model(args.name), args.out, opset=args.opset, fuse=args.fuse)
    print(f"wrote {path}")


def _merge(args) -> None:
    from models.merge import imagenet_extras, merge_with_imagenet
    from models.metadata import read_metadata
    from models.preprocess import PreprocessConfig

    path = merge_with_imagenet(args.model, args.out, **({"imagenet_size": args.imagenet_size} if args.imagenet_size else {}))
    labels = PreprocessConfig.from_json(read_metadata(args.model)["preprocess"]).labels
    print(f"wrote {path}: {len(labels)} labels of {args.model.name} and {len(imagenet_extras(labels))} ImageNet foods")


def _ship(args) -> None:
    from models.shipped import ship

    path = ship(args.model, args.eval, args.run_dir, **({"out": args.out} if args.out else {}))
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB) and its model card {path.with_suffix('.md')}")


def _calibrate(args) -> None:
    from models.calibration import calibrate_file
    from models.engine import Engine
    from models.shipped import SHIPPED_MODEL, render_card

    engine = Engine(args.model, threads=os.cpu_count())
    path, result, shares = calibrate_file(engine, args.data, args.out, held_out=tuple(args.held_out or ()),
                                          threshold=args.threshold, figure=args.figure)
    print(f"wrote {path}: temperature {result.temperature:.3f} fitted on {result.fitted_on:,} photos; on the other "
          f"{result.measured_on:,}: expected calibration error {result.ece_before:.1%} before, {result.ece_after:.1%} "
          f"after (top-1 {result.top1:.1%}, unchanged)")
    if shares:
        print(f"photos of {shares['classes']} classes the model is made not to know, answered at >= "
              f"{shares['threshold']:.0%}: {shares['before']:.1%} before, {shares['after']:.1%} after")
    if path.resolve() == SHIPPED_MODEL.resolve():
        SHIPPED_MODEL.with_suffix(".md").write_text(render_card(SHIPPED_MODEL))
        print(f"wrote its model card {SHIPPED_MODEL.with_suffix('.md')}")


def _quantize(args) -> None:
    import json
    import warnings

    from models.quantize import AGREEMENT_THRESHOLD, TIMING_BATCHES, format_report, quantize_model

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = quantize_model(
            args.model, args.out, photos_dir=args.photos, calibration_dir=args.calibration,
            modes=tuple(args.mode) if args.mode else None, agreement_threshold=AGREEMENT_THRESHOLD if args.threshold is None else args.threshold,
            allow_below_threshold=args.allow_below_threshold,
            timing_batches=() if args.no_timing else tuple(args.time_batch or TIMING_BATCHES),
        )
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return
    print(format_report(report))


def _predict(args) -> None:
    from models.engine import Engine
    from models.images import load_image

    engine = Engine(args.model)
    failed = 0
    for image_path in args.images:
        try:
            predictions = engine.predict([load_image(image_path)], top_k=args.top_k)[0]
        except FoodtagError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{image_path}: " + ", ".join(f"{p.label} {p.probability:.1%}" for p in predictions))
    if failed:
        sys.exit(1)


def _fp16(args) -> None:
    from models.variants import write_fp16

    print(f"wrote {write_fp16(args.model, args.out)}")


def _bench(args) -> None:
    import json
    import os

    if not args.spin:
        # PyTorch's OpenMP threads read this once, when torch loads (below): a waiting thread
        # sleeps instead of spinning, as ONNX Runtime's do with allow_spinning off.
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    from models.bench import benchmark, format_result
    from models.engine import SessionSettings
    from models.registry import create_model

    settings = SessionSettings(allow_spinning=args.spin, micro_batch=args.micro_batch,
                               **({"intra_op_threads": args.threads} if args.threads else {}))
    result = benchmark(
        create_model(args.name, **({"pretrained": False} if args.random_init else {})),
        photos_dir=args.photos, calibration_dir=args.calibration, batches=tuple(args.batch or (1, 32)),
        iterations=args.iterations, e2e_iterations=args.e2e_iterations, settings=settings,
    )
    print(json.dumps(result.to_dict(), indent=2) if args.json else format_result(result))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="registered teachers and students").set_defaults(run=_list)
    export = commands.add_parser("export", help="export a registry model to ONNX with metadata")
    export.add_argument("name", help="registry name, timm:<name>, ckpt:<path> or ensemble:<a>+<b>")
    export.add_argument("--out", required=True, type=Path)
    export.add_argument("--opset", type=int, default=17)
    export.add_argument("--fuse", action=argparse.BooleanOptionalAction, default=True,
                        help="ViTs: fused Attention, LayerNorm and GELU for ONNX Runtime (default: on)")
    export.set_defaults(run=_export)
    merge = commands.add_parser("merge", help="one file answering over a food model's labels and ImageNet's "
                                "foods it lacks (banana, espresso, broccoli...)")
    merge.add_argument("model", type=Path, help="an exported food model .onnx file (e.g. the Food-101 student)")
    merge.add_argument("--out", required=True, type=Path)
    merge.add_argument("--imagenet-size", type=int, help="input size of the ImageNet EfficientNet-Lite0 branch "
                       "and of the merged file (default: models.merge.IMAGENET_SIZE, 160)")
    merge.set_defaults(run=_merge)
    ship = commands.add_parser("ship", help="a pipeline's exported model as the repository's shipped default, "
                               "with its model card (models/shipped/)")
    ship.add_argument("model", type=Path, help="the run's exported model, e.g. RUN_DIR/student.onnx")
    ship.add_argument("--eval", required=True, type=Path, help="its val scores, e.g. RUN_DIR/eval/student.json")
    ship.add_argument("--run-dir", required=True, type=Path, help="the pipeline's run folder (its pipeline.json)")
    ship.add_argument("--out", type=Path, help="default: models/shipped/food101.onnx")
    ship.set_defaults(run=_ship)
    calibrate = commands.add_parser("calibrate", help="temperature scaling fitted on held-out photos, written "
                                    "into the model file (confidence that means what it says)")
    calibrate.add_argument("model", type=Path, help="an exported .onnx file (e.g. models/shipped/food101.onnx)")
    calibrate.add_argument("--data", required=True, type=Path,
                           help="held-out photos, one folder a class named as the model's labels (e.g. a val split)")
    calibrate.add_argument("--out", type=Path, help="default: the model file itself")
    calibrate.add_argument("--held-out", action="append", metavar="CLASS",
                           help="also measure how often photos of this class (repeatable) would be answered "
                                "confidently by the model without it")
    calibrate.add_argument("--threshold", type=float, default=0.5, help="confidence threshold for that measure "
                           "(default 0.5, the app's default)")
    calibrate.add_argument("--figure", type=Path, help="write the reliability diagram (PNG) here")
    calibrate.set_defaults(run=_calibrate)
    quantize = commands.add_parser("quantize", help="int8 variant of an exported model, checked against fp32 on photos")
    quantize.add_argument("model", type=Path, help="an exported fp32 .onnx file")
    quantize.add_argument("--out", required=True, type=Path, help="where to write, e.g. MODEL.int8.onnx")
    quantize.add_argument("--photos", required=True, type=Path,
                          help="folder of photos (any depth) on which int8 must agree with fp32")
    quantize.add_argument("--calibration", type=Path, help="folder of photos for static QDQ calibration (also tries static)")
    quantize.add_argument("--mode", action="append", choices=("dynamic", "static"),
                          help="limit the candidates (repeatable); default: dynamic, plus static with --calibration")
    quantize.add_argument("--threshold", type=float, default=None,
                          help="minimum top-1 agreement with fp32 (default: models.quantize.AGREEMENT_THRESHOLD, 0.99)")
    quantize.add_argument("--allow-below-threshold", action="store_true",
                          help="write the file even under the threshold (with a loud warning and a metadata flag)")
    quantize.add_argument("--time-batch", type=int, action="append",
                          help="batch size to time the candidates at (repeatable; default 1 and 32)")
    quantize.add_argument("--no-timing", action="store_true",
                          help="do not time: take the first candidate that agrees, in the expected-speed order")
    quantize.add_argument("--json", action="store_true", help="print the report as JSON")
    quantize.set_defaults(run=_quantize)
    predict = commands.add_parser("predict", help="top-k foods for image files")
    predict.add_argument("model", type=Path, help="an exported .onnx file")
    predict.add_argument("images", nargs="+", type=Path)
    predict.add_argument("--top-k", type=int, default=5)
    predict.set_defaults(run=_predict)
    fp16 = commands.add_parser("fp16", help="fp16 variant of an exported model, for CUDA")
    fp16.add_argument("model", type=Path, help="an exported fp32 .onnx file")
    fp16.add_argument("--out", required=True, type=Path, help="e.g. MODEL.fp16.onnx")
    fp16.set_defaults(run=_fp16)
    bench = commands.add_parser("bench", help="eager vs ONNX Runtime fp32, fused, int8 (and GPU): images/s, p50/p95, agreement")
    bench.add_argument("name", nargs="?", default="food_default", help="registry name, timm:<name> or ckpt:<path>")
    bench.add_argument("--random-init", action="store_true", help="random weights (speed only; agreement needs a trained model)")
    bench.add_argument("--photos", type=Path, help="photo folder: top-1 agreement, int8 guard, 12 MP end-to-end source")
    bench.add_argument("--calibration", type=Path, help="calibration photos: also try static QDQ int8")
    bench.add_argument("--batch", type=int, action="append", help="batch sizes (repeatable; default 1 and 32)")
    bench.add_argument("--iterations", type=int, default=40, help="timed calls at batch 1 (a quarter at larger batches)")
    bench.add_argument("--e2e-iterations", type=int, default=10, help="timed 12 MP JPEG analyses per decode mode")
    bench.add_argument("--threads", type=int, help="threads for PyTorch and ONNX Runtime alike (default: the usable cores)")
    bench.add_argument("--spin", action=argparse.BooleanOptionalAction, default=True,
                       help="threads busy-wait between ops (default: on); --no-spin turns it off for ONNX Runtime "
                            "and PyTorch alike (OMP_WAIT_POLICY=PASSIVE): fair on a machine other processes keep busy")
    bench.add_argument("--micro-batch", type=int, help="ONNX Runtime on a CPU runs a larger batch as runs of this many "
                                                        "images (default: 4 per thread; 0: whole batches)")
    bench.add_argument("--json", action="store_true", help="print the result as JSON")
    bench.set_defaults(run=_bench)
    argv = list(sys.argv[1:] if argv is None else argv)
    if (status := unknown_command(argv, commands.choices, parser.prog)) is not None:
        return status
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except FoodtagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
