"""Every `python -m PACKAGE COMMAND` entry point names an unknown command instead of only
printing its usage (models.cli.unknown_command)."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("package, argv", [
    ("app", ["bogus"]), ("app", ["users", "bogus"]), ("app", ["glucose", "bogus"]), ("db", ["bogus"]), ("models", ["bogus"]),
    ("distill", ["bogus"]),
])
def test_an_unknown_command_is_named_with_status_2(package, argv, capsys):
    main = importlib.import_module(f"{package}.__main__").main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "unknown command 'bogus'" in err and "(commands: " in err and "Traceback" not in err


@pytest.mark.parametrize("package", ["db", "models"])
def test_an_option_before_the_command_is_still_argparse_s_to_judge(package, capsys):
    main = importlib.import_module(f"{package}.__main__").main
    with pytest.raises(SystemExit) as stop:
        main(["--bogus-option"])
    assert stop.value.code == 2 and "unknown command" not in capsys.readouterr().err
