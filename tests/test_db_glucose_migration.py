"""Migrations 0012 (glucose readings and the person's time zone), 0016 (their glucose unit) and
0017 (a flagged meal kept in the per-food figures) and 0018 (times outside the readers' years
deleted) on SQLite and PostgreSQL: existing users stay
and get UTC and their region's unit, existing meals are not kept, and the database itself refuses
a duplicate reading, an impossible value, an unknown kind and an unknown unit; a downgrade keeps
the users and their meals."""

import pytest
from db_support import empty_db_url  # noqa: F401  (fixture)
from sqlalchemy import create_engine, inspect
from sqlalchemy.exc import IntegrityError

from db import migrate

READING = ("INSERT INTO glucose_readings (user_id, measured_at, mg_dl, kind, source) "
           "VALUES ({user}, '2026-11-01 05:00:00', {value}, '{kind}', 'clarity')")


def ann_at(url: str, revision: str):
    """An engine on ``url`` migrated to ``revision``, with one user, ann."""
    engine = create_engine(url)
    with engine.begin() as conn:
        migrate.upgrade(conn, revision)
        conn.exec_driver_sql(
            "INSERT INTO users (id, name, name_key, daily_kcal_target, daily_carb_target_g, exchange_unit_g, "
            "confidence_threshold, created_at) VALUES (1, 'ann', 'ann', 2000, 275, 15, 0.5, '2024-01-01 00:00:00')")
    return engine


def test_0012_adds_readings_and_a_time_zone_keeping_users(empty_db_url):
    engine = ann_at(empty_db_url, "0011")
    with engine.begin() as conn:
        migrate.upgrade(conn, "0012")
        assert conn.exec_driver_sql("SELECT time_zone FROM users").scalar() == "UTC"
        conn.exec_driver_sql(READING.format(user=1, value=120, kind="cgm"))
        conn.exec_driver_sql(READING.format(user=1, value=121, kind="meter"))  # another kind
    for bad, constraint in ((READING.format(user=1, value=130, kind="cgm"), "uq_glucose_readings|UNIQUE"),
                            (READING.format(user=1, value=5, kind="scan"), "ck_glucose_readings_mg_dl_range"),
                            (READING.format(user=1, value=100, kind="blood"), "ck_glucose_readings_kind")):
        with pytest.raises(IntegrityError, match=constraint), engine.begin() as conn:
            conn.exec_driver_sql(bad)
    with engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM glucose_readings").scalar() == 2
        migrate.downgrade(conn, "0011")
        assert "glucose_readings" not in inspect(conn).get_table_names()
        assert "time_zone" not in {c["name"] for c in inspect(conn).get_columns("users")}
        assert conn.exec_driver_sql("SELECT name FROM users").scalar() == "ann"
    engine.dispose()


def test_0016_adds_the_glucose_unit_null_by_region_and_its_downgrade_keeps_users(empty_db_url):
    engine = ann_at(empty_db_url, "0015")
    with engine.begin() as conn:
        migrate.upgrade(conn, "0016")
        assert conn.exec_driver_sql("SELECT glucose_unit FROM users").scalar() is None  # by region
        conn.exec_driver_sql("UPDATE users SET glucose_unit = 'mmol/L'")
    with pytest.raises(IntegrityError, match="ck_users_glucose_unit"), engine.begin() as conn:
        conn.exec_driver_sql("UPDATE users SET glucose_unit = 'mmol'")
    with engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT glucose_unit FROM users").scalar() == "mmol/L"
        migrate.downgrade(conn, "0015")
        assert "glucose_unit" not in {c["name"] for c in inspect(conn).get_columns("users")}
        assert conn.exec_driver_sql("SELECT name FROM users").scalar() == "ann"
        migrate.upgrade(conn, "0016")  # and up again
        assert conn.exec_driver_sql("SELECT glucose_unit FROM users").scalar() is None
    engine.dispose()


def test_0017_adds_the_kept_choice_off_for_every_meal_and_its_downgrade_keeps_them(empty_db_url):
    """Every existing meal stays out of the per-food figures while flagged (keep_in_food_figures
    false) until the person keeps it; a downgrade keeps the meals."""
    engine = ann_at(empty_db_url, "0016")
    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO foods (id, name, name_key, category, fdc_dataset, fdc_description, "
                             "search_weight, fdc_id) VALUES (1, 'Banana', 'banana', 'Fruits', 'SR Legacy', '', 0, 173944)")
        conn.exec_driver_sql("INSERT INTO meal_entries (id, user_id, eaten_at, food_id, food_name, grams, meal_type, "
                             "note, created_at, updated_at) VALUES (1, 1, '2026-12-01 08:00:00', 1, 'Banana', 118, "
                             "'', '', '2026-12-01 08:00:00', '2026-12-01 08:00:00')")
        migrate.upgrade(conn, "0017")
        assert conn.exec_driver_sql("SELECT keep_in_food_figures FROM meal_entries").scalar() in (False, 0)
        conn.exec_driver_sql("UPDATE meal_entries SET keep_in_food_figures = true")
        assert conn.exec_driver_sql("SELECT keep_in_food_figures FROM meal_entries").scalar() in (True, 1)
        migrate.downgrade(conn, "0016")
        assert "keep_in_food_figures" not in {c["name"] for c in inspect(conn).get_columns("meal_entries")}
        assert conn.exec_driver_sql("SELECT food_name FROM meal_entries").scalar() == "Banana"
    engine.dispose()


def test_0018_deletes_stored_times_outside_the_readers_years_and_keeps_the_rest(empty_db_url):
    """A version before the year check stored a year-1 reading, after which the person's
    readings.csv answered 500 (issue 44); the rows around it stay."""
    engine = ann_at(empty_db_url, "0017")
    with engine.begin() as conn:
        for when in ("0001-01-01 00:00:00", "1969-12-31 23:59:59", "2026-11-01 05:00:00", "9999-12-31 23:00:00"):
            conn.exec_driver_sql(READING.replace("2026-11-01 05:00:00", when).format(user=1, value=120, kind="cgm"))
        for when in ("0001-01-01 00:00:00", "2026-11-01 05:00:00"):
            conn.exec_driver_sql("INSERT INTO glucose_events (user_id, at, kind, amount, source) "
                                 f"VALUES (1, '{when}', 'bolus', 4, 'clarity')")
        migrate.upgrade(conn, "0018")
        readings = conn.exec_driver_sql("SELECT measured_at FROM glucose_readings").scalars().all()
        events = conn.exec_driver_sql("SELECT at FROM glucose_events").scalars().all()
    assert [str(t)[:19] for t in readings] == ["2026-11-01 05:00:00"]
    assert [str(t)[:19] for t in events] == ["2026-11-01 05:00:00"]
    with engine.begin() as conn:
        migrate.downgrade(conn, "0017")
    engine.dispose()
