"""docs/architecture.md names files and functions (`path.py` `Name.attr`): each must exist, so
the walk-through of one photo and one training step stays true."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
# `app/meals.py` `Analyzer.analyse_upload`: a file, then one or more names in it.
PAIR = re.compile(r"`((?:app|db|models|distill)/[\w/]+\.py)`((?:,? `[\w.]+`(?: and `[\w.]+`)?)+)")


def named() -> list[tuple[str, str]]:
    pairs = []
    for path, names in PAIR.findall(DOC.replace("\n", " ")):
        pairs += [(path, name) for name in re.findall(r"`([\w.]+)`", names)]
    return pairs


def test_the_page_names_enough_to_follow():
    files = {path for path, _ in named()}
    assert len(named()) >= 30 and {"app/meals.py", "db/service.py", "distill/train.py"} <= files


def test_every_named_function_exists():
    missing = []
    for path, name in named():
        assert (ROOT / path).is_file(), path
        target = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        for part in name.split("."):
            target = getattr(target, part, None)
            if target is None:
                missing.append(f"{path} {name}")
                break
    assert not missing, missing
