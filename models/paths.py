"""Where the project keeps its data: exported models, the SQLite database, run outputs."""

import os
from pathlib import Path


def owner_only_files() -> None:
    """Make every file this process creates from now on owner-only (umask 077): the database,
    meal logs and exports, batch results and models are health data or come from it. Each
    command calls it first, whatever umask its caller had."""
    os.umask(0o077)


def data_home() -> Path:
    """The data folder: ``$FOODTAG_HOME``, else ``~/.local/share/foodtag``. Created on demand, 0700."""
    home = Path(os.environ.get("FOODTAG_HOME") or Path.home() / ".local" / "share" / "foodtag")
    # Owner-only: it holds the database (password hashes, meal logs) and deployed models.
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    if home.stat().st_mode & 0o077:
        home.chmod(0o700)
    return home
