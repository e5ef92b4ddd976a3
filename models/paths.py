"""Where the project keeps its data: exported models, the SQLite database, run outputs."""

import os
from pathlib import Path


def data_home() -> Path:
    """The data folder: ``$FOODTAG_HOME``, else ``~/.local/share/foodtag``. Created on demand."""
    home = Path(os.environ.get("FOODTAG_HOME") or Path.home() / ".local" / "share" / "foodtag")
    home.mkdir(parents=True, exist_ok=True)
    return home
