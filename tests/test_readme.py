"""README.md as a newcomer reads it: short, its links lead somewhere, and its commands exist as
written (every command and option it shows is one the command's --help lists; the cheap ones run)."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# How many leading words name the command, per entry point (`app users add`, `db lookup`, ...).
COMMAND_WORDS = {"app": {"users": 2, "batch": 1, "photos": 2, "dishes": 2, "glucose": 2}, "db": 1, "models": 1, "distill": 1}


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def readme_commands() -> list[tuple[str, list[str]]]:
    """(package, argv) of every `python -m PACKAGE ...` line in the README's bash blocks, optional
    parts ([...]) included and choices (a|b) kept as written."""
    commands = []
    for block in bash_blocks(README):
        for line in block.replace("\\\n", " ").splitlines():
            tokens = shlex.split(line.replace("[", " ").replace("]", " "), comments=True)
            if "-m" not in tokens:
                continue
            package, *argv = tokens[tokens.index("-m") + 1:]
            if package.split(".")[0] in COMMAND_WORDS:
                commands.append((package, argv))
    return commands


def command_of(package: str, argv: list[str]) -> list[str]:
    words = COMMAND_WORDS[package]
    if isinstance(words, dict):
        words = words.get(argv[0], 0) if argv else 0
    return argv[:words]


def help_text(package: str, command: list[str], capsys) -> str:
    main = importlib.import_module(f"{package}.__main__").main
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code in (0, None)
    return capsys.readouterr().out


def test_readme_is_short_and_starts_with_the_two_commands():
    assert len(README.splitlines()) <= 300
    first = bash_blocks(README)[0].splitlines()
    assert len(first) == 2  # .ci/run runs the second line
    assert first[0].endswith(".venv/bin/python -m app")
    assert first[1] == 'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest'
    assert '-m pytest -m "not slow"' in README  # the quick tier


def test_every_docs_link_exists():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked, screenshots = 0, []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            path = (page.parent / target).resolve()
            if path.is_relative_to(ROOT / "docs" / "screenshots") and not path.parent.is_dir():
                screenshots.append(target)  # written by the screenshot script, which has not run here
                continue
            assert path.exists(), f"{page.relative_to(ROOT)} links to {target}, which does not exist"
            checked += 1
    assert checked >= 15
    if screenshots:
        pytest.skip(f"docs/screenshots/ is not generated yet: {', '.join(screenshots)} not checked")


def test_every_readme_command_and_option_is_in_its_help(capsys):
    commands = readme_commands()
    assert {package for package, _ in commands} >= {"app", "db", "models", "distill"}
    for package, argv in commands:
        command = command_of(package, argv)
        text = help_text(package, command, capsys)
        for option in (token.split("=")[0] for token in argv if token.startswith("--")):
            assert option in text, f"`python -m {package} {' '.join(command)}` has no {option}"


def test_the_cheap_readme_commands_run(capsys):
    from db.__main__ import main as db_main
    from models.__main__ import main as models_main

    assert ("db", ["check-seed"]) in readme_commands() and ("models", ["list"]) in readme_commands()
    assert db_main(["check-seed"]) == 0
    assert models_main(["list"]) == 0
    assert "vit_hybrid_lite0" in capsys.readouterr().out
