"""Helpers for the db tests: a small seed written from CSV text, and databases on it (SQLite and
PostgreSQL: tests using ``db_url`` or ``empty_db_url`` run on both).

The rows are modelled on USDA SR Legacy / FNDDS entries (banana, red wine and espresso follow
the SR Legacy values; the pizza and creme brulee rows are shaped like FNDDS ones) but they are
test data, not the shipped seed: tests of the real seed read db/seed/*.csv.
"""

from __future__ import annotations

import multiprocessing
import shutil
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

FOODS_CSV = """\
name,labels,aliases,category,fdc_dataset,fdc_id,source_code,fdc_description,proxy_note,kcal,carbohydrate_g,sugars_g,fiber_g,protein_g,fat_g,saturated_fat_g,sodium_mg,energy_note
Banana,banana,Bananas;Cavendish banana,Fruit,SR Legacy,173944,09040,"Bananas, raw",,89,22.84,12.23,2.6,1.09,0.33,0.112,1,
Red wine,red_wine,"Wine, red",Beverage,SR Legacy,173190,14096,"Alcoholic beverage, wine, table, red",,85,2.61,0.62,0,0.07,0,0,4,Alcohol (10.6 g per 100 g at 7 kcal/g) supplies most of the energy
Espresso,espresso,,Beverage,SR Legacy,171891,14209,"Beverages, coffee, brewed, espresso, restaurant-prepared",,9,1.67,0,0,0.12,0.18,0.093,14,
Cheese pizza,pizza,Pizza;Margherita,Dish,FNDDS,2345688,58106210,"Pizza, cheese, from restaurant or fast food, medium crust",,266,33.0,3.6,2.3,11.4,9.7,4.5,598,
Crème brûlée,creme_brulee,,Dessert,FNDDS,2343344,53440200,"Creme brulee",Custard entry stands in for the caramel top,300,24.0,23.0,,4.5,21.0,12.0,80,
"""

SERVINGS_CSV = """\
food,serving,grams,is_default,source
Banana,"1 medium (7"" to 7-7/8"" long)",118,true,"SR Legacy household measure, FDC 173944"
Banana,1 cup sliced,150,false,"SR Legacy household measure, FDC 173944"
Red wine,1 glass (5 fl oz),147,true,"SR Legacy household measure, FDC 173190"
Espresso,1 shot (1 fl oz),30,true,"SR Legacy household measure, FDC 171891"
Cheese pizza,1 slice,107,true,"FNDDS portion, FDC 2345688"
Cheese pizza,1 small pizza (8"),257,false,"FNDDS portion, FDC 2345688"
Crème brûlée,1 ramekin,110,true,"FNDDS portion, FDC 2343344"
"""

GI_CSV = """\
food,gi,reference,gi_source
Banana,51,glucose,"Atkinson 2008 Table A1: Banana, raw"
Cheese pizza,60,glucose,"Atkinson 2008 Table A1: Pizza, cheese"
"""


def write_seed(folder: Path, foods: str = FOODS_CSV, servings: str = SERVINGS_CSV,
               gi: str = GI_CSV) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "foods.csv").write_text(foods, encoding="utf-8")
    (folder / "servings.csv").write_text(servings, encoding="utf-8")
    (folder / "glycemic_index.csv").write_text(gi, encoding="utf-8")
    return folder


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database on the small seed, configured as the database; yields its URL. Every
    test using it runs twice: on a SQLite file and on the session's PostgreSQL server."""
    from db.session import configure

    server = None
    if request.param == "sqlite":
        path = tmp_path / "foodtag.db"
        shutil.copyfile(request.getfixturevalue("seeded_template"), path)
        url = f"sqlite:///{path}"
    else:
        server = request.getfixturevalue("postgres_server")
        url = server.create_database(template=request.getfixturevalue("postgres_template"))
    configure(url)
    yield url
    configure(None)
    if server is not None:
        server.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new, empty database (nothing configured): a SQLite file, and a database
    on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def alice(db_url: str) -> str:
    from db import service

    service.create_user("alice")
    return "alice"


@pytest.fixture(scope="module", params=BACKENDS)
def full_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database on the whole shipped seed (curated foods and every table) for the module that
    imports this fixture, on SQLite (FTS5 search) and on PostgreSQL (LIKE search); its tests
    share it. Each module gets its own copy of one seeded template, so what a module writes
    stays in it."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("full-seed-copy") / "foodtag.db"
        shutil.copyfile(request.getfixturevalue("full_seed_sqlite"), path)
        yield f"sqlite:///{path}"
        return
    server = request.getfixturevalue("postgres_server")
    url = server.create_database(template=request.getfixturevalue("full_seed_postgres"))
    yield url
    server.drop_database(url.rsplit("/", 1)[1])


def first_hits(url: str, queries: list[tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """The first ten hits of each (region, query) on the database at ``url``, searched in this
    process, which is configured on ``url`` while it runs."""
    from db import service
    from db.session import configure

    configure(url)
    try:
        return {(region, query): service.search(query, limit=10, region=region)
                for region, query in queries}
    finally:
        configure(None)


def first_hits_on_two_cores(url: str, queries: list[tuple[str, str]]) -> dict[tuple[str, str], list[dict]]:
    """``first_hits``, half of the queries searched in a second process at the same time: the
    machines running the suite have two cores and a search keeps one busy. Spawned, not
    forked, as this process holds threads and connections."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as helper:
        theirs = helper.submit(first_hits, url, queries[1::2])
        hits = first_hits(url, queries[::2])
        return hits | theirs.result()


@pytest.fixture
def full_db(full_db_url: str) -> Iterator[str]:
    """``full_db_url``, configured as the database for one test."""
    from db.session import configure

    configure(full_db_url)
    yield full_db_url
    configure(None)
