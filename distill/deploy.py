"""`python -m distill deploy RUN_DIR`: install a pipeline's student where the app finds models.

The app lists every ``$FOODTAG_HOME/models/*.onnx`` with the top-1 of the
``<model>.report.json`` beside it (app.model_catalog). Before installing, every label the model can
emit is looked up in the nutrition database the way the app does (db.service.lookup): a model
must never show a food the nutrition card cannot describe. Unknown labels are refused unless
a label map (YAML or JSON, ``model_label: database food``) says which food each one is; the
installed file then emits the database's labels.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from distill.errors import DistillError

NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,79}")


def load_label_map(path: str | Path) -> dict[str, str]:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise DistillError(f"deploy: label map {path} does not exist")
    try:
        values = yaml.safe_load(path.read_text())  # JSON is YAML too
    except yaml.YAMLError as exc:
        raise DistillError(f"deploy: label map {path} is not valid YAML/JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(values, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                               for k, v in values.items()):
        raise DistillError(f"deploy: label map {path} must map each model label to a database food name")
    return {k: v.strip() for k, v in values.items()}


def unknown_labels(labels: list[str]) -> list[str]:
    """The labels the nutrition database cannot look up (after the app's own lookup rules)."""
    from db import service
    from db.errors import UnknownFood
    from db.session import init_db

    init_db()  # idempotent; a fresh install gets its seeded database
    missing = []
    for label in labels:
        try:
            service.lookup(label)
        except UnknownFood:
            missing.append(label)
    return missing


def relabelled(labels: list[str], label_map: dict[str, str]) -> list[str]:
    """The model's labels with the mapped ones replaced by the database food they stand for."""
    foreign = sorted(set(label_map) - set(labels))
    if foreign:
        raise DistillError(f"deploy: the label map names labels the model does not have: {', '.join(foreign)}")
    return [label_map.get(label, label) for label in labels]


def served_labels(labels: list[str], label_map: str | Path | None) -> tuple[list[str], dict[str, str]]:
    """The labels the installed model will emit (mapped) and the map; refuses any label the
    nutrition database cannot describe."""
    mapping = load_label_map(label_map) if label_map else {}
    served = relabelled(labels, mapping) if mapping else labels
    missing = unknown_labels(served)
    if missing:
        shown = ", ".join(missing[:10]) + (f" (+{len(missing) - 10} more)" if len(missing) > 10 else "")
        raise DistillError(
            f"deploy: the nutrition database cannot describe {len(missing)} of the model's {len(labels)} labels: "
            f"{shown}. Map each to a database food with --label-map FILE (YAML 'label: food'), "
            "or add them to the seed (db/seed); nothing was installed")
    return served, mapping


def installed_path(run_dir: str | Path, name: str | None = None, model: str = "student") -> Path:
    """Where deploy puts a run's model: data_home()/models/<name>.onnx (default name <run>-<model>)."""
    from models.paths import data_home

    name = name or f"{Path(run_dir).resolve().name}-{model}"
    if not NAME.fullmatch(name):
        raise DistillError(f"deploy: name {name!r} must be letters, digits, '.', '-' or '_' (at most 80)")
    return data_home() / "models" / f"{name}.onnx"


def deploy(run_dir: str | Path, *, name: str | None = None, label_map: str | Path | None = None,
           force: bool = False, model: str = "student") -> Path:
    """Install RUN_DIR/<model>.onnx (+ its report) into data_home()/models; returns the new path."""
    from models.metadata import read_metadata
    from models.runtime_choice import INT8_SUFFIX

    run_dir = Path(run_dir)
    source = run_dir / f"{model}.onnx"
    if not source.is_file():
        raise DistillError(f"deploy: {source} does not exist (run `python -m distill pipeline` into {run_dir} first)")
    target = installed_path(run_dir, name, model)
    name, folder = target.stem, target.parent
    meta = read_metadata(source)
    labels = json.loads(meta["labels"])
    served, mapping = served_labels(labels, label_map)
    folder.mkdir(parents=True, exist_ok=True)
    if target.is_file() and not force:
        try:
            same = read_metadata(target)["version"] == meta["version"] and json.loads(read_metadata(target)["labels"]) == served
        except Exception:  # an unreadable file there is not ours to replace silently
            same = False
        if not same:
            raise DistillError(f"deploy: {target} already exists and holds another model; "
                               "choose another --name or pass --force to replace it")
    # The int8 variant (when the pipeline wrote one) goes beside it: the app serves whichever of
    # the two is faster on its machine (models.runtime_choice).
    int8_source, int8_target = source.with_name(source.stem + INT8_SUFFIX), target.with_name(target.stem + INT8_SUFFIX)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".deploy-") as tmp:
        staged = Path(tmp) / target.name
        _stage(source, staged, served)
        if int8_source.is_file():
            _stage(int8_source, Path(tmp) / int8_target.name, served)
            os.replace(Path(tmp) / int8_target.name, int8_target)
        else:
            int8_target.unlink(missing_ok=True)  # a previous deploy's int8 is not this model's
        report = _read_json(run_dir / f"{model}.report.json")
        report.update(deployed_from=str(run_dir.resolve()), label_map=mapping, labels=served)
        staged_report = Path(tmp) / f"{name}.report.json"
        staged_report.write_text(json.dumps(report, indent=2))
        # The report first: the app lists a model with whatever report is beside it.
        os.replace(staged_report, folder / staged_report.name)
        os.replace(staged, target)
    if (run_dir / "report.md").is_file():
        shutil.copyfile(run_dir / "report.md", folder / f"{name}.report.md")
    return target


def _stage(source: Path, staged: Path, served: list[str]) -> None:
    """Copy a model file, with the served labels written into its metadata when they differ."""
    import onnx

    from models.metadata import read_metadata, set_metadata
    from models.preprocess import PreprocessConfig

    meta = read_metadata(source)
    if json.loads(meta["labels"]) == served:
        shutil.copyfile(source, staged)
        return
    preprocess = PreprocessConfig.from_json(meta["preprocess"])
    preprocess.labels = served
    proto = set_metadata(onnx.load(str(source)), {**meta, "labels": json.dumps(served), "preprocess": preprocess.to_json()})
    onnx.save(proto, str(staged))


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DistillError(f"deploy: {path} is missing: the model has no measured accuracy to show "
                           "(rerun the pipeline; its eval stage writes it)") from None


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m distill deploy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", help="a pipeline run folder (holding student.onnx and its report)")
    parser.add_argument("--name", default=None, help="installed model name (default: <run folder>-student)")
    parser.add_argument("--model", default="student", choices=("student", "teacher", "baseline"),
                        help="which of the run's models to install (default: student)")
    parser.add_argument("--label-map", default=None, help="YAML/JSON file: model label -> database food")
    parser.add_argument("--force", action="store_true", help="replace an installed model of the same name")
    args = parser.parse_args(argv)
    from models.runtime_choice import choose_for_file

    path = deploy(args.run_dir, name=args.name, label_map=args.label_map, force=args.force, model=args.model)
    print(f"installed {path} (the app lists it under Models)")
    # Timed here, cached beside the model: the app on this machine starts without timing again.
    print(f"serving on this machine: {choose_for_file(path).reason}")
