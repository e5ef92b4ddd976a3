"""`python -m models`: list, export, predict, bench."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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

    path = export_onnx(create_model(args.name), args.out, opset=args.opset)
    print(f"wrote {path}")


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


def _bench(args) -> None:
    import os
    import tempfile

    import torch

    from models.bench import benchmark, format_table
    from models.default import DEFAULT_MODEL, default_model_path
    from models.engine import Engine
    from models.export import export_onnx
    from models.registry import create_model

    model = create_model(args.name)
    if args.name == DEFAULT_MODEL:
        onnx_path = default_model_path()
    else:
        onnx_path = export_onnx(model, Path(tempfile.mkdtemp()) / "bench.onnx")
    engine = Engine(onnx_path)
    print(f"model {args.name}, input {model.preprocess.input_size}px, {os.cpu_count()} CPU threads "
          f"(torch {torch.get_num_threads()}), ONNX Runtime providers {engine.providers}")
    print(format_table(benchmark(model, engine, iterations=args.iterations)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="registered teachers and students").set_defaults(run=_list)
    export = commands.add_parser("export", help="export a registry model to ONNX with metadata")
    export.add_argument("name", help="registry name, timm:<name>, ckpt:<path> or ensemble:<a>+<b>")
    export.add_argument("--out", required=True, type=Path)
    export.add_argument("--opset", type=int, default=17)
    export.set_defaults(run=_export)
    predict = commands.add_parser("predict", help="top-k foods for image files")
    predict.add_argument("model", type=Path, help="an exported .onnx file")
    predict.add_argument("images", nargs="+", type=Path)
    predict.add_argument("--top-k", type=int, default=5)
    predict.set_defaults(run=_predict)
    bench = commands.add_parser("bench", help="PyTorch eager vs ONNX Runtime: images/s, p50/p95")
    bench.add_argument("name", nargs="?", default="food_default")
    bench.add_argument("--iterations", type=int, default=40)
    bench.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except FoodtagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
