"""`python -m distill prepare-food101`: the 64 px Food-101 copy's per-class tars as the ImageFolder
the food101 preset trains on.

    python -m distill prepare-food101 ../shared/data/food101-64 DIR \\
        [--hold-out ../shared/data/food10/val] [--without-classes-of ../shared/data/food10/train]

The shared copy holds `train/<class>.tar` and `val/<class>.tar` (each member `<class>/<id>.jpg`,
the file name being Food-101's image id). `--hold-out DIR` leaves out every photo whose class and
id appear under DIR: food10/val's full-size photos come from the same Food-101 train split, so a
model that trained on their 64 px copies could not be measured fairly on them. `--without-classes-of
DIR` leaves out whole classes (the classes of DIR's subfolders): the household simulation's model
must never have seen the dishes it is then taught from a few photos. DIR/prepared.json records what
was left out, for the model card.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tarfile
from pathlib import Path

from distill.errors import DistillError

SPLITS = ("train", "val")


def photo_ids(folder: Path) -> set[tuple[str, str]]:
    """(class, file name) of every photo in an ImageFolder split."""
    return {(p.parent.name, p.name) for p in folder.glob("*/*") if p.is_file()}


def prepare(source: Path, out: Path, hold_out: list[Path] = (), without_classes_of: list[Path] = ()) -> dict:
    if not all((source / split).is_dir() for split in SPLITS):
        raise DistillError(f"prepare-food101: {source} has no train/ and val/ folders of class tars "
                           "(expected ../shared/data/food101-64)")
    if out.exists():
        raise DistillError(f"prepare-food101: {out} exists; choose a new folder (nothing was changed)")
    for folder in [*hold_out, *without_classes_of]:
        if not folder.is_dir():
            raise DistillError(f"prepare-food101: {folder} is not a folder")
    held = set().union(*(photo_ids(f) for f in hold_out)) if hold_out else set()
    dropped = sorted({p.name for f in without_classes_of for p in f.iterdir() if p.is_dir()})
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)  # an interrupted earlier run
    counts, left_out = {}, 0
    for split in SPLITS:
        counts[split] = 0
        for tar_path in sorted((source / split).glob("*.tar")):
            if tar_path.stem in dropped:
                continue
            with tarfile.open(tar_path) as tar:
                members = [m for m in tar.getmembers() if m.isfile()]
                kept = [m for m in members if tuple(m.name.split("/")[-2:]) not in held]
                left_out += len(members) - len(kept)
                tar.extractall(partial / split, members=kept, filter="data")  # no paths outside the folder
                counts[split] += len(kept)
    record = {"source": str(source), "photos": counts, "held_out": left_out,
              "hold_out_folders": [str(f) for f in hold_out], "classes_left_out": dropped,
              "classes": len({p.name for p in (partial / "train").iterdir()})}
    (partial / "prepared.json").write_text(json.dumps(record, indent=2))
    partial.rename(out)
    return record


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m distill prepare-food101", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="the 64 px copy (../shared/data/food101-64)")
    parser.add_argument("out", type=Path, help="a new folder for the ImageFolder (train/, val/)")
    parser.add_argument("--hold-out", type=Path, action="append", default=[], metavar="DIR",
                        help="leave out the photos found under DIR (class/id.jpg); repeatable")
    parser.add_argument("--without-classes-of", type=Path, action="append", default=[], metavar="DIR",
                        help="leave out the classes that have a folder in DIR; repeatable")
    args = parser.parse_args(argv)
    record = prepare(args.source, args.out, args.hold_out, args.without_classes_of)
    print(f"{args.out}: {record['photos']['train']} train and {record['photos']['val']} val photos of "
          f"{record['classes']} classes ({record['held_out']} held out)")
