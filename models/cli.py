"""What the `python -m PACKAGE COMMAND ...` entry points (app, db, distill, models) share."""

from __future__ import annotations

import sys
from collections.abc import Iterable


def unknown_command(argv: list[str], commands: Iterable[str], prog: str) -> int | None:
    """When the first word names no command, say so on stderr and return 2 (argparse's status for
    bad usage); None when it names one or is an option."""
    names = list(commands)
    if argv and not argv[0].startswith("-") and argv[0] not in names:
        print(f"{prog}: error: unknown command {argv[0]!r} (commands: {', '.join(names)})", file=sys.stderr)
        return 2
    return None
