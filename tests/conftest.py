"""Shared test set-up: a private data folder per test session, and one exported default model."""

import os
import tempfile
from pathlib import Path

import pytest

# Set before any project module reads it, so no test touches the user's real data folder.
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="foodtag-test-"))
os.environ["FOODTAG_HOME"] = str(_SESSION_HOME)
os.environ.pop("FOODTAG_DB_URL", None)

FOOD10 = Path(__file__).resolve().parents[2] / "shared" / "data" / "food10"


@pytest.fixture(scope="session")
def default_model_path() -> Path:
    """The default food model, exported once per test session (about 10 s on 2 cores)."""
    from models.default import default_model_path

    return default_model_path()


@pytest.fixture(scope="session")
def coffee_image():
    """scikit-image's sample photo of a cup of espresso."""
    from PIL import Image
    from skimage import data

    return Image.fromarray(data.coffee())


@pytest.fixture(scope="session")
def bomb_files() -> dict[str, bytes]:
    """The issue's hostile photos (1x100000 and 1x8000 PNGs, an 8000x8000 RGBA PNG, a 60 MP
    JPEG), built once per session (about 4 s)."""
    from image_support import bombs

    return bombs()
