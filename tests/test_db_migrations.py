"""Schema: Alembic migrations match the models, upgrade from empty and downgrade to base;
init_db is idempotent and safe when several processes run it at once; SQLite settings. Each
test taking ``empty_db_url`` runs on a SQLite file and on PostgreSQL."""

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from db_support import db_url, empty_db_url, write_seed  # noqa: F401  (fixtures)
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.exc import IntegrityError

from db import migrate, service
from db.fts import include_name
from db.tables import MEAL_VALUE_COLUMNS, Base, Food
from db.seed import SEED_DIR
from db.session import configure, get_engine, init_db, session_scope

REPO = Path(__file__).resolve().parents[1]
TABLES = {"foods", "food_labels", "food_aliases", "servings", "glycemic_index", "users",
          "meal_entries"}


def test_upgrade_from_empty_then_downgrade_to_base(empty_db_url):
    engine = create_engine(empty_db_url)
    with engine.begin() as conn:
        assert migrate.current_revision(conn) is None
        migrate.upgrade(conn)
        assert migrate.current_revision(conn) == migrate.head_revision()
        assert TABLES <= set(inspect(conn).get_table_names())
    with engine.begin() as conn:
        migrate.downgrade(conn, "base")
        assert migrate.current_revision(conn) is None
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    with engine.begin() as conn:  # and up again: downgrade left nothing behind
        migrate.upgrade(conn)
        assert TABLES <= set(inspect(conn).get_table_names())
    engine.dispose()


def test_migrations_create_exactly_the_models(empty_db_url):
    engine = create_engine(empty_db_url)
    with engine.begin() as conn:
        migrate.upgrade(conn)
        context = MigrationContext.configure(conn, opts={"include_name": include_name})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == [], f"db/tables.py and db/migrations differ: {diff}"


def assert_hardening_schema(conn) -> None:
    """0002's parts (users.is_admin and .model, model_changes, the range CHECKs on meal
    values) are still there after every later batch rebuild of those tables."""
    schema = inspect(conn)
    assert {"is_admin", "model"} <= {c["name"] for c in schema.get_columns("users")}
    assert "model_changes" in schema.get_table_names()
    checks = {c["name"] for c in schema.get_check_constraints("meal_entries")}
    assert {f"ck_meal_entries_{c}_range" for c in MEAL_VALUE_COLUMNS} <= checks
    # And the database enforces them: an infinite kcal never reaches the table.
    before = conn.exec_driver_sql("SELECT count(*) FROM meal_entries").scalar()
    try:  # in a savepoint: PostgreSQL refuses every statement after a failed one
        with conn.begin_nested():
            conn.execute(text(
                "INSERT INTO meal_entries (user_id, eaten_at, food_id, food_name, grams, "
                "meal_type, note, kcal, created_at, updated_at) SELECT u.id, :day, f.id, "
                "f.name, 100, '', '', :kcal, :day, :day FROM users u, foods f LIMIT 1"),
                {"day": datetime(2024, 1, 2), "kcal": float("inf")})
    except IntegrityError as exc:
        assert "ck_meal_entries_kcal_range" in str(exc)
    else:
        raise AssertionError("an infinite kcal was stored")
    assert conn.exec_driver_sql("SELECT count(*) FROM meal_entries").scalar() == before


def test_head_keeps_the_hardening_constraints(empty_db_url):
    configure(empty_db_url)  # db.session's engine: SQLite savepoints work there
    with get_engine().begin() as conn:
        migrate.upgrade(conn)
        conn.exec_driver_sql(
            "INSERT INTO users (id, name, name_key, daily_kcal_target, daily_carb_target_g, "
            "exchange_unit_g, confidence_threshold, created_at) VALUES (1, 'ann', 'ann', 2000, "
            "275, 15, 0.5, '2024-01-01 00:00:00')")
        conn.exec_driver_sql(
            "INSERT INTO foods (id, name, name_key, category, fdc_dataset, fdc_id, source_code, "
            "fdc_description, kcal, carbohydrate_g, protein_g, fat_g, search_weight) VALUES (7, "
            "'Banana', 'banana', 'Fruit', 'SR Legacy', 173944, '09040', 'Bananas, raw', 89, "
            "22.84, 1.09, 0.33, 0)")
        assert_hardening_schema(conn)
    configure(None)


def test_init_db_is_idempotent(empty_db_url, small_seed):
    configure(empty_db_url)
    try:
        init_db(seed_dir=small_seed)
        init_db(seed_dir=small_seed)
        with session_scope(write=False) as session:
            assert len(session.scalars(select(Food)).all()) == 5
        service.create_user("ann")
        assert service.log_meal("ann", "banana")["created"]
    finally:
        configure(None)


def test_sqlite_settings(tmp_path, small_seed):
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=small_seed)
        with session_scope(write=False) as session:
            assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert session.execute(text("PRAGMA busy_timeout")).scalar() == 30000
    finally:
        configure(None)


def test_default_database_is_in_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("FOODTAG_DB_URL", raising=False)
    configure(None)
    try:
        assert get_engine().url.database == str(tmp_path / "home" / "foodtag.db")
        monkeypatch.setenv("FOODTAG_DB_URL", f"sqlite:///{tmp_path / 'other.db'}")
        configure(None)
        assert get_engine().url.database == str(tmp_path / "other.db")
    finally:
        configure(None)


def test_concurrent_first_runs_in_separate_processes(empty_db_url, small_seed):
    seed, url = small_seed, empty_db_url
    script = (
        "import sys; from pathlib import Path\n"
        "from db.session import configure, init_db\n"
        "configure(sys.argv[1]); init_db(seed_dir=Path(sys.argv[2]))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, url, str(seed)], cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    configure(url)
    try:
        with session_scope(write=False) as session:
            names = session.scalars(select(Food.name)).all()
        assert sorted(names) == sorted(set(names)) and len(names) == 5  # seeded exactly once
    finally:
        configure(None)


def test_in_memory_database(tmp_path):
    configure("sqlite://")
    try:
        init_db(seed_dir=write_seed(tmp_path / "seed"))
        with session_scope(write=False) as session:
            assert session.scalar(select(Food.id).where(Food.name == "Banana")) is not None
    finally:
        configure(None)


def test_upgrade_from_0001_keeps_foods_and_meals_and_adds_the_catalog(tmp_path, empty_db_url):
    """A database made before the catalog: its foods keep their ids, its meal entries stay,
    the next init_db loads SR Legacy (from a small catalog here) and indexes it for search."""
    from db import personal, sr28

    seed = write_seed(tmp_path / "seed")
    url = empty_db_url
    engine = create_engine(url)
    with engine.begin() as conn:
        migrate.upgrade(conn, "0001")
        conn.execute(text(
            "INSERT INTO foods (id, name, name_key, category, fdc_dataset, fdc_id, source_code, "
            "fdc_description, kcal, carbohydrate_g, protein_g, fat_g) VALUES (7, 'Banana', "
            "'banana', 'Fruit', 'SR Legacy', 173944, '09040', 'Bananas, raw', 89, 22.84, "
            "1.09, 0.33)"))
        conn.execute(text("INSERT INTO servings (food_id, name, grams, is_default, source) "
                          "VALUES (7, '1 medium', 118, true, 'SR Legacy household measure')"))
        conn.execute(text(
            "INSERT INTO users (id, name, name_key, daily_kcal_target, daily_carb_target_g, "
            "exchange_unit_g, confidence_threshold, created_at) VALUES (1, 'ann', 'ann', 2000, "
            "275, 15, 0.5, '2024-01-01 00:00:00')"))
        conn.execute(text(
            "INSERT INTO meal_entries (user_id, eaten_at, food_id, food_name, grams, meal_type, "
            "note, kcal, created_at, updated_at) VALUES (1, '2024-01-01 08:00:00', 7, 'Banana', "
            "118, '', '', 105.02, '2024-01-01 00:00:00', '2024-01-01 00:00:00')"))
    engine.dispose()
    # A two-food catalog: the banana (already there as a curated row) and apples.
    foods, portions = sr28.read_compact(SEED_DIR)
    wanted = {"09040", "09003"}
    sr28.write_compact([f for f in foods if f.ndb in wanted],
                       [p for p in portions if p.ndb in wanted], seed)
    configure(url)
    try:
        init_db(seed_dir=seed)
        assert service.food_count() == 2  # banana once, apples added
        banana = service.lookup("banana")
        # The rebuilt foods table did not cascade away its servings.
        assert banana["food_id"] == 7 and banana["portion"]["serving"] == "1 medium"
        assert service.search("apples")[0]["food"] == "Apples, raw, with skin"
        assert [e["food_id"] for e in service.list_meals(
            "ann", datetime(2024, 1, 1), datetime(2024, 1, 2))] == [7]
        assert not service.is_admin("ann")  # 0002's column, defaulted for an older user
        # New rows get the next ids, although the rows above and the catalog were written
        # with explicit ids (PostgreSQL: the sequences were moved past them).
        service.create_user("bob")
        assert personal.create_own_food("bob", "Muesli bar", {
            "kcal": 400, "carbohydrate_g": 60, "protein_g": 8, "fat_g": 12})["food_id"] == 9
        with get_engine().begin() as conn:
            assert_hardening_schema(conn)
    finally:
        configure(None)


def test_0007_takes_own_foods_out_of_the_search_index(tmp_path):
    """Before 0007 every user's own foods had rows in SQLite's FTS5 index (their words shifted
    bm25 for everyone); the upgrade deletes them and a downgrade puts them back."""
    from db import personal

    url = f"sqlite:///{tmp_path / 'foodtag.db'}"
    configure(url)
    try:
        init_db(seed_dir=write_seed(tmp_path / "seed"))
        service.create_user("bob")
        own = personal.create_own_food("bob", "Zorblax stew", {
            "kcal": 50, "carbohydrate_g": 5, "protein_g": 1, "fat_g": 1})["food_id"]

        def indexed() -> set[int]:
            with get_engine().connect() as conn:
                return set(conn.scalars(text("SELECT rowid FROM foods_fts")))

        public = indexed()
        assert own not in public and len(public) == service.food_count() - 1
        with get_engine().begin() as conn:
            migrate.downgrade(conn, "0006")
        assert indexed() == public | {own}
        with get_engine().begin() as conn:
            migrate.upgrade(conn)
        assert indexed() == public
        assert [hit["food"] for hit in service.search("zorblax", user="bob")] == ["Zorblax stew"]
        assert service.search("zorblax") == []
    finally:
        configure(None)


def test_0008_adds_region_and_cooked_weight_keeping_users_and_recipes(empty_db_url):
    """Users made before 0008 become US users (15 g choices, everyone's unit until then); a
    recipe gets an optional cooked weight; the database refuses an unknown region or a
    non-positive weight; a downgrade keeps the rows and drops the columns."""
    engine = create_engine(empty_db_url)  # SQLite: foreign keys off, as init_db migrates
    with engine.begin() as conn:
        migrate.upgrade(conn, "0007")
        conn.exec_driver_sql(
            "INSERT INTO users (id, name, name_key, daily_kcal_target, daily_carb_target_g, "
            "exchange_unit_g, confidence_threshold, created_at) VALUES (1, 'ann', 'ann', "
            "2000, 275, 12, 0.5, '2024-01-01 00:00:00')")
        conn.exec_driver_sql(
            "INSERT INTO foods (id, name, name_key, category, fdc_dataset, owner_id, "
            "fdc_description, kcal, carbohydrate_g, protein_g, fat_g, search_weight, "
            "recipe_servings) VALUES (7, 'Risotto', 'risotto', 'My recipes', 'Recipe', 1, "
            "'Recipe: 100 g rice', 130, 28, 2.7, 0.3, 0, 2)")
        migrate.upgrade(conn)
        assert conn.exec_driver_sql(
            "SELECT region, exchange_unit_g FROM users").one() == ("US", 12.0)
        assert conn.exec_driver_sql("SELECT recipe_cooked_g FROM foods").one() == (None,)
        conn.exec_driver_sql("UPDATE foods SET recipe_cooked_g = 250 WHERE id = 7")
        conn.exec_driver_sql("UPDATE users SET region = 'DE'")
    for bad, constraint in (("UPDATE users SET region = 'FR'", "ck_users_region"),
                            ("UPDATE foods SET recipe_cooked_g = 0",
                             "ck_foods_recipe_cooked_positive")):
        with pytest.raises(IntegrityError, match=constraint), engine.begin() as conn:
            conn.exec_driver_sql(bad)
    with engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT region FROM users").scalar() == "DE"
        assert conn.exec_driver_sql("SELECT recipe_cooked_g FROM foods").scalar() == 250.0
        migrate.downgrade(conn, "0007")
        assert "region" not in {c["name"] for c in inspect(conn).get_columns("users")}
        assert "recipe_cooked_g" not in {c["name"] for c in inspect(conn).get_columns("foods")}
        assert conn.exec_driver_sql("SELECT name FROM users").scalar() == "ann"
        assert conn.exec_driver_sql("SELECT recipe_servings FROM foods").scalar() == 2.0
    engine.dispose()


def test_0010_adds_photo_consent_off_and_its_downgrade_keeps_users(tmp_path, small_seed):
    """Users made before 0010 have not consented to keep photos; with SQLite's foreign keys
    on (a developer's downgrade), going back below 0010 rebuilds no table that users' rows
    would cascade from: the user and their meal stay."""
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=small_seed)
        service.create_user("ann")
        service.log_meal("ann", "banana")
        assert service.get_settings("ann")["keep_photos"] is False
        with get_engine().begin() as conn:  # foreign keys on
            migrate.downgrade(conn, "0009")
            assert "keep_photos" not in {c["name"] for c in inspect(conn).get_columns("users")}
            assert not {"kept_photos", "households", "household_members"} & set(inspect(conn).get_table_names())
            assert conn.exec_driver_sql("SELECT count(*) FROM meal_entries").scalar() == 1
            migrate.upgrade(conn)
        assert service.get_settings("ann")["keep_photos"] is False
        assert len(service.day_summary("ann", datetime.now().date())["entries"]) == 1
    finally:
        configure(None)


TRIGRAM_INDEXES = {"trgm_foods_name_key", "trgm_foods_description", "trgm_foods_common_names",
                   "trgm_food_aliases_alias_key", "trgm_food_labels_label"}


def _trigram_indexes(conn) -> set[str]:
    schema = inspect(conn)
    return {index["name"] for table in ("foods", "food_aliases", "food_labels")
            for index in schema.get_indexes(table) if index["name"].startswith("trgm_")}


def test_0011_gives_postgresql_trigram_indexes_and_sqlite_none(empty_db_url):
    """The search's candidate query on PostgreSQL is answered by trigram indexes (SQLite has
    its FTS5 index); downgrading removes them."""
    engine = create_engine(empty_db_url)
    with engine.begin() as conn:
        migrate.upgrade(conn)
        postgresql = conn.dialect.name == "postgresql"
        assert _trigram_indexes(conn) == (TRIGRAM_INDEXES if postgresql else set())
    with engine.begin() as conn:
        migrate.downgrade(conn, "0010")
        assert _trigram_indexes(conn) == set()
    engine.dispose()


def test_postgresql_sessions_get_the_apps_planner_settings(empty_db_url):
    """JIT compiling cost more than a whole search, and a random page cost for a spinning disk
    had the planner read every food to join a few search hits (db.session._session_options);
    the URL's own libpq options still apply, and win."""
    if not empty_db_url.startswith("postgresql"):
        return
    configure(empty_db_url + "?options=-c%20statement_timeout%3D5000%20-c%20jit%3Don")
    try:
        with session_scope(write=False) as session:
            assert session.execute(text("SHOW random_page_cost")).scalar() == "1.1"
            assert session.execute(text("SHOW statement_timeout")).scalar() == "5s"
            assert session.execute(text("SHOW jit")).scalar() == "on"
        configure(empty_db_url)
        with session_scope(write=False) as session:
            assert session.execute(text("SHOW jit")).scalar() == "off"
    finally:
        configure(None)


def test_postgresql_search_can_use_the_trigram_indexes(db_url):
    """The candidate query's expressions are the indexed ones (an expression index serves
    only its own expression): with sequential scans ruled out, a word of three letters or
    more is found through the indexes. (The small seed fits in a page or two, where reading
    the table is what the planner would choose.)"""
    from db import fts
    from db.tables import Food

    with session_scope(write=False) as session:
        if session.get_bind().dialect.name != "postgresql":
            return
        session.execute(text("SET LOCAL enable_seqscan = off"))
        statement = fts._indexed_matches(select(Food.id), [[[fts._Term("r0w0t0", "banana")]]])
        compiled = statement.compile(dialect=session.get_bind().dialect,
                                     compile_kwargs={"literal_binds": True})
        plan = "\n".join(row[0] for row in session.execute(text(f"EXPLAIN {compiled}")))
    assert "trgm_foods_name_key" in plan and "trgm_food_aliases_alias_key" in plan, plan


def test_0014_holds_the_swiss_foods_and_cofid_names_and_its_downgrade_takes_them_out(empty_db_url):
    """0014 lets a food come from the Swiss FCDB and name a CoFID food (up to 200 characters)
    as its entry; going back below it removes exactly those rows (FNDDS rows and CoFID 2015's
    coded rows fit the older schema and stay) and their seed parts."""
    def food(conn, food_id, dataset, code):
        conn.execute(text(
            "INSERT INTO foods (id, name, name_key, category, fdc_dataset, source_code, "
            "fdc_description, kcal, carbohydrate_g, protein_g, fat_g, search_weight) VALUES "
            "(:id, :name, :key, 'Test', :dataset, :code, :description, 100, 10, 1, 1, 0)"),
            {"id": food_id, "name": f"food {food_id}", "key": f"food {food_id}",
             "description": f"food {food_id}", "dataset": dataset, "code": code})

    engine = create_engine(empty_db_url)
    with engine.begin() as conn:
        migrate.upgrade(conn, "0013")
        food(conn, 1, "CoFID", "11-989")
        food(conn, 2, "FNDDS", "27311510")
        try:
            with conn.begin_nested():
                food(conn, 3, "Swiss FCDB", "768")
        except IntegrityError as exc:
            assert "fdc_dataset" in str(exc)
        else:
            raise AssertionError("0013 took a Swiss FCDB food")
        migrate.upgrade(conn)
        food(conn, 3, "Swiss FCDB", "768")
        food(conn, 4, "CoFID", "Biscuits, digestive, half coated in chocolate")
        conn.execute(text("INSERT INTO seed_versions (part, foods, loaded_at) VALUES "
                          "('swiss_fcdb_5_3', 1, '2026-01-01 00:00:00'), "
                          "('cofid_2021', 1, '2026-01-01 00:00:00')"))
        if conn.dialect.name == "postgresql":
            width = next(c["type"].length for c in inspect(conn).get_columns("foods")
                         if c["name"] == "source_code")
            assert width == 200
        migrate.downgrade(conn, "0013")
        assert sorted(conn.scalars(text("SELECT id FROM foods"))) == [1, 2]
        assert list(conn.scalars(text("SELECT part FROM seed_versions"))) == []
    engine.dispose()
