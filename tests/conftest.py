"""Shared test set-up: a private data folder per test session, one exported default model, one
PostgreSQL server per test session (tests/postgres.py), and the test tiers.

Tiers: every test that starts a server, a browser, PostgreSQL, Ray, torchrun, a whole pipeline,
a training run or another Python process gets that marker and `slow` (pyproject.toml registers
them), decided here from what the test and its fixtures do, so a new test file is classified
without a decorator; so does one that builds full-size models, loads the whole food catalogue
runs the batch tool or a command line end to end, or walks the migrations (TIER_FIXTURES,
TIER_MODULES):
`python -m pytest -m "not slow"` is the quick tier, `-m server` one tier, no `-m` everything.
"""

import atexit
import functools
import importlib.util
import inspect
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres import PostgresServer, find_bin_dir

# Set before any project module reads it, so no test touches the user's real data folder.
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="foodtag-test-"))
# Removed at exit: each session exports a model and a database there (about 27 MB).
atexit.register(shutil.rmtree, _SESSION_HOME, ignore_errors=True)
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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test session (started on first use, about 2 s), in a
    temporary folder, removed at the end. Skips only when no PostgreSQL binaries exist; a
    server that exists but does not start is an error."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl, postgres) on PATH or under "
                    "/usr/lib/postgresql/*/bin: install the postgresql package (.ci/run does)")
    if importlib.util.find_spec("psycopg") is None:
        pytest.fail("PostgreSQL is installed but its driver is not: pip install -e '.[postgres]'")
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, empty database on the session's PostgreSQL server (dropped after the test);
    yields its SQLAlchemy URL (postgresql+psycopg://...)."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture(scope="session")
def small_seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small seed's folder, written once per session."""
    from db_support import write_seed

    return write_seed(tmp_path_factory.mktemp("small-seed"))


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory, small_seed: Path) -> Path:
    """A SQLite database file migrated and seeded once per session; tests get copies of it."""
    from db.session import configure, init_db

    path = tmp_path_factory.mktemp("db-template") / "template.db"
    configure(f"sqlite:///{path}")
    init_db(seed_dir=small_seed)
    configure(None)  # closes the connections, which checkpoints the WAL into the file
    return path


@pytest.fixture(scope="session")
def postgres_template(postgres_server: PostgresServer, small_seed: Path) -> str:
    """A PostgreSQL database migrated and seeded once per session; returns its name (tests
    get copies made by CREATE DATABASE ... TEMPLATE)."""
    from db.session import configure, init_db

    configure(postgres_server.create_database(name="seeded_template"))
    init_db(seed_dir=small_seed)
    configure(None)  # a template must have no open connections
    return "seeded_template"


@pytest.fixture(scope="session")
def full_seed_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file on the whole shipped seed, seeded once per test session; modules get copies."""
    from db.session import configure, init_db

    path = tmp_path_factory.mktemp("full-seed") / "template.db"
    configure(f"sqlite:///{path}")
    init_db()
    configure(None)  # closes the connections, which checkpoints the WAL into the file
    return path


@pytest.fixture(scope="session")
def full_seed_postgres(postgres_server: PostgresServer) -> str:
    """A PostgreSQL database on the whole shipped seed, seeded once per test session (about 9 s);
    returns its name: modules get copies made by CREATE DATABASE ... TEMPLATE."""
    from db.session import configure, init_db

    configure(postgres_server.create_database(name="full_seed_template"))
    init_db()
    configure(None)  # a template must have no open connections
    return "full_seed_template"


# --- test tiers ----------------------------------------------------------------------------------

# What a test's or a fixture's source does that puts it in a tier (any one of the texts).
TIER_CALLS = {
    "server": ("start_server(", "seeded_server("),  # a live app in this process (tests/app_support.py)
    "browser": ("playwright",),
    "torchrun": ("nproc=", "torchrun(", "--nproc-per-node"),
    "ray": ('engine="ray"', '"--engine", "ray"', "import ray"),
    "pipeline": ('"pipeline", "--data"',),  # `python -m distill pipeline` run through distill_support
    "training": ('run_cli("train"', 'run_cli("profile"', 'run_cli("tune-loader"', 'run_cli("eval"'),  # in-process
}
# Fixtures that are expensive to make or to use: a test handed one (directly or through another
# fixture) is in the tier. Durations measured with `-m "not slow" --durations=0` on 2 cores.
TIER_FIXTURES = {
    "model": ("default_model_path",),  # exports the full-size default model (10 s) and runs it
    "catalog": ("full_db_url", "shipped"),  # the whole shipped food catalogue (5-10 s per module)
}
# Modules whose tests are heavy for what they compute, not for what they start, and why.
TIER_MODULES = {
    "model": (
        "test_models_registry",  # builds every registered model at full size: about 40 s
        "test_distill_teacher",  # full-size teachers through PyTorch and ONNX Runtime: about 20 s
        "test_models_inference",  # exports, quantises and times ONNX models: about 30 s
        "test_models_export",  # exports to ONNX and compares with PyTorch: about 15 s
    ),
    "cli": (
        "test_db_cli",  # `python -m db` commands end to end over seeded databases: about 15 s
        "test_app_cli",  # `python -m app users ...`, a password hash per command: about 10 s
    ),
    "migrations": (
        "test_db_migrations",  # every revision up and down on real databases: about 10 s
    ),
    "batch": (
        "test_batch_run",  # the batch tool end to end over a database, resumes included: about 30 s
        "test_batch_ui",  # the same through the Gradio tab: about 10 s
    ),
}
TIERS = (*TIER_CALLS, *TIER_FIXTURES, *TIER_MODULES, "postgres", "subprocess")


@functools.cache
def _source(function) -> str:
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def _sources_with_local_helpers(functions: list, module) -> list[str]:
    """The functions' sources, and those of the test module's own functions they call (transitively):
    a fixture that calls the module's `launch()` starts what `launch` starts."""
    local = {name: f for name, f in vars(module).items()
             if inspect.isfunction(f) and f.__module__ == module.__name__} if module else {}
    sources, seen, todo = [], set(), list(functions)
    while todo:
        function = todo.pop()
        if function in seen:
            continue
        seen.add(function)
        source = _source(function)
        sources.append(source)
        todo += [f for name, f in local.items() if f"{name}(" in source]
    return sources


def tiers_of(item: pytest.Item) -> set[str]:
    """The tiers a test belongs to: by what its own function and every fixture it uses (directly or
    through other fixtures) call, by its module (test_*_browser, test_*_ray), and by parameters
    (a PostgreSQL backend, the Ray engine)."""
    functions = [getattr(item, "function", None)]
    # pytest has no public way from an item to its fixtures' functions; without one, the test alone.
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in getattr(item, "fixturenames", ()):
        functions += [definition.func for definition in definitions.get(name, ())]
    module = getattr(item, "module", None)
    sources = _sources_with_local_helpers([f for f in functions if f is not None], module)
    found = {tier for tier, calls in TIER_CALLS.items() if any(c in src for src in sources for c in calls)}
    if any("Popen(" in src and '"-m", "app"' in src for src in sources):  # the app as a long-running process
        found.add("server")
    if any("sys.executable" in src or "run_subprocess(" in src for src in sources):  # seconds of imports each
        found.add("subprocess")
    fixtures = set(getattr(item, "fixturenames", ()))
    found |= {tier for tier, names in TIER_FIXTURES.items() if fixtures & set(names)}
    name = module.__name__ if module else ""
    found |= {tier for tier, modules in TIER_MODULES.items() if name.rsplit(".", 1)[-1] in modules}
    found |= {tier for tier in ("browser", "ray", "multinode") if f"_{tier}" in name}
    if module is not None and "playwright" in _source(module):  # a module that drives a browser
        found.add("browser")
    if "multinode" in found:
        found = (found - {"multinode"}) | {"torchrun"}
    params = [v for v in getattr(getattr(item, "callspec", None), "params", {}).values() if isinstance(v, str)]
    if "postgres_server" in fixtures or "postgresql" in params:
        found.add("postgres")
    if "ray" in params:
        found.add("ray")
    return found


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        found = tiers_of(item)
        for tier in sorted(found):
            item.add_marker(tier)
        if found or any(item.get_closest_marker(name) for name in TIERS):  # a tier marked by hand is slow too
            item.add_marker("slow")
