"""db.service on a small seed, on SQLite and on PostgreSQL: nutrition cards, search, users, the meal log
(isolation, idempotency, frozen history, bad input, concurrent writers)."""

import csv
import io
import re
import threading
from datetime import date, datetime, timedelta, timezone

import pytest
from db_support import (  # noqa: F401  (fixtures)
    alice, db_url, full_db, full_db_url)
from sqlalchemy import func, select

from db import nutrition, service
from db.errors import InvalidPortion, InvalidValue, NotFound, UnknownFood, UnknownUser, UserExists
from db.tables import Food, MealEntry, User
from db.nutrition import NUTRIENTS
from db.session import session_scope

NOON = datetime(2024, 5, 1, 12, 0)
SQL_TEXT = ["'; DROP TABLE foods; --", "banana' OR '1'='1", "%", "_", "\\", "\x00"]


def _entry_count() -> int:
    with session_scope(write=False) as session:
        return session.scalar(select(func.count(MealEntry.id)))


# --- lookup and search ------------------------------------------------------------------

def test_card_shape_and_default_serving(db_url):
    card = service.lookup("banana")
    assert set(card) == {"food", "food_id", "category", "source", "per_100g", "portion",
                         "servings", "glycemic_index", "glycemic_load", "exchanges"}
    assert card["source"] == {"dataset": "SR Legacy", "fdc_id": 173944, "code": "09040",
                              "description": "Bananas, raw", "proxy_note": None,
                              "citation": "U.S. Department of Agriculture, Agricultural Research "
                                          "Service. USDA National Nutrient Database for Standard "
                                          "Reference, Release 28 (2016)",
                              "attribution": None}
    assert list(card["per_100g"]) == list(NUTRIENTS)
    assert set(card["portion"]) == {"grams", "serving", *NUTRIENTS}
    # Default serving: one medium banana, 118 g (hand-computed from the per-100 g values).
    assert card["portion"]["grams"] == 118.0
    assert card["portion"]["serving"] == '1 medium (7" to 7-7/8" long)'
    assert card["portion"]["kcal"] == 105.0  # 89 * 1.18 = 105.02
    assert card["portion"]["available_carbohydrate_g"] == 23.9  # (22.84 - 2.6) * 1.18
    assert card["glycemic_index"] == {"value": 51, "citation": "Atkinson 2008",
                                      "source": "Atkinson 2008 Table A1: Banana, raw"}
    assert card["glycemic_load"] == {"value": 12.2, "band": "medium"}  # 51 * 23.8832 / 100
    # US choices count total carbohydrate (fiber 3.1 g is under 5 g): 26.9512 / 15 = 1.8
    assert card["exchanges"] == {"unit_g": 15.0, "value": 1.8, "as_taught": 2.0,
                                 "unit": "US carbohydrate choice",
                                 "basis": nutrition.TOTAL_MINUS_HALF_FIBER}
    assert [s["default"] for s in card["servings"]] == [True, False]
    # db.cards.Card documents exactly these fields.
    from db import cards

    assert set(card) == set(cards.Card.__annotations__)
    for key, kind in (("source", cards.Source), ("exchanges", cards.Exchanges),
                      ("glycemic_index", cards.GlycemicIndex), ("glycemic_load", cards.GlycemicLoad)):
        assert set(card[key]) == set(kind.__annotations__), key
    assert all(set(s) == set(cards.ServingInfo.__annotations__) for s in card["servings"])


def test_lookup_by_label_name_alias_any_case(db_url):
    for query in ("pizza", "PIZZA", "Cheese Pizza", " margherita ", "cheese_pizza"):
        assert service.lookup(query)["food"] == "Cheese pizza"
    assert service.lookup("red_wine")["food"] == "Red wine"
    assert service.lookup("creme brulee")["food"] == "Crème brûlée"


def test_lookup_grams_serving_and_units(db_url):
    card = service.lookup("pizza", grams=214, exchange_unit_g=12)
    assert card["portion"]["serving"] is None
    assert card["glycemic_load"] == {"value": 39.4, "band": "high"}  # 60 * (33-2.3)*2.14 / 100
    assert card["exchanges"]["value"] == 5.5  # BE: available, 65.698 / 12
    assert card["exchanges"]["basis"] == nutrition.AVAILABLE
    small = service.lookup("banana", grams=50, exchange_unit_g=10)
    assert small["glycemic_load"]["band"] == "low"  # 51 * 10.12 / 100 = 5.2
    assert small["exchanges"]["value"] == 1.0
    assert service.lookup("banana", serving="1 CUP SLICED")["portion"]["grams"] == 150.0


def test_food_without_gi_or_fiber(db_url):
    wine = service.lookup("red wine")
    assert wine["glycemic_index"] is None and wine["glycemic_load"] is None  # never guessed
    brulee = service.lookup("creme_brulee", grams=100)
    assert brulee["per_100g"]["fiber_g"] is None
    assert brulee["portion"]["available_carbohydrate_g"] == 24.0  # no fiber value: all of it
    assert brulee["source"]["proxy_note"] == "Custard entry stands in for the caramel top"


@pytest.mark.parametrize("kwargs, error", [
    ({"grams": 0}, InvalidPortion), ({"grams": -10}, InvalidPortion),
    ({"grams": 1e9}, InvalidPortion), ({"grams": float("nan")}, InvalidPortion),
    ({"serving": "1 bucket"}, InvalidPortion),
    ({"grams": 100, "serving": "1 cup sliced"}, InvalidPortion),
    ({"exchange_unit_g": 14}, InvalidValue),
])
def test_lookup_bad_portion(db_url, kwargs, error):
    with pytest.raises(error):
        service.lookup("banana", **kwargs)


def test_unknown_food_suggests(db_url):
    with pytest.raises(UnknownFood, match=r"unknown food 'piza' \(did you mean: Cheese pizza"):
        service.lookup("piza")
    with pytest.raises(InvalidValue):
        service.lookup("   ")
    with pytest.raises(InvalidValue):
        service.lookup("x" * 1000)


@pytest.mark.parametrize("text", SQL_TEXT)
def test_sql_looking_text_is_just_text(db_url, text):
    with pytest.raises((UnknownFood, InvalidValue)):
        service.lookup(text)
    # Searched as words: "'; DROP TABLE foods; --" may find "wine, table", never run SQL.
    hits = service.search(text)
    assert all("drop" not in hit["food"].lower() for hit in hits)
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count(Food.id))) == 5


def test_search_ranks_and_limits(db_url):
    results = service.search("piza")
    assert results[0]["food"] == "Cheese pizza" and set(results[0]) == {
        "food", "food_id", "category", "score", "own", "recent", "favourite", "portion",
        "dataset", "duplicates", "asks"}
    top = service.search("banana")[0]
    assert {k: top[k] for k in ("food", "food_id", "category", "own")} == {
        "food": "Banana", "food_id": 1, "category": "Fruit", "own": False}
    assert [r["food"] for r in service.search("bana")][:1] == ["Banana"]
    assert service.search("wine")[0]["food"] == "Red wine"
    assert len(service.search("e", limit=2)) <= 2
    assert service.search("zzzzqqq") == [] and service.search("") == []
    with pytest.raises(InvalidValue):
        service.search("banana", limit=0)


# --- users ------------------------------------------------------------------------------

def test_users_and_passwords(db_url):
    service.create_user("Bob", "correct horse")
    with pytest.raises(UserExists):
        service.create_user(" bob ")
    assert service.verify_password("bob", "correct horse")
    assert not service.verify_password("bob", "wrong")
    assert not service.verify_password("nobody", "correct horse")
    with session_scope(write=False) as session:
        stored = session.scalar(select(User.password_hash).where(User.name == "Bob"))
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    service.ensure_user("carol")
    service.ensure_user("carol")
    assert not service.verify_password("carol", "") and not service.verify_password("carol", "x")
    for bad in ("", "   ", "a" * 65, "tab\there", None):
        with pytest.raises(InvalidValue):
            service.create_user(bad)


def test_account_administration(db_url):
    from db import personal, signins
    from db.tables import SignInSession

    service.create_user("ann", "ann-password", admin=True)
    service.create_user("Bob", "bob-password")
    service.log_meal("bob", "banana", grams=100)
    personal.create_own_food("bob", "Bob's granola", {"kcal": 450, "carbohydrate_g": 60, "protein_g": 10, "fat_g": 15})
    signins.start("bob", "bobs-token", max_age_s=3600)
    assert [(u["name"], u["admin"], u["password"], u["meals"]) for u in service.list_users()] == [
        ("ann", True, True, 0), ("Bob", False, True, 1)]

    service.set_password("bob", "new-bob-password")
    assert service.verify_password("bob", "new-bob-password") and not service.verify_password("bob", "bob-password")
    assert signins.user_for("bobs-token", idle_s=600) is None  # a reset ends the user's sessions
    with pytest.raises(InvalidValue, match="a new password is needed"):
        service.set_password("bob", None)

    with pytest.raises(InvalidValue, match="'ann' is the only admin"):
        service.set_admin("ann", False)
    assert service.set_admin("bob", True) and not service.set_admin("bob", True)  # the second changes nothing
    assert service.set_admin("ann", False) and not service.is_admin("ann")
    with pytest.raises(InvalidValue, match="'Bob' is the only admin: make another user an admin before you remove"):
        service.remove_user("bob")
    service.set_admin("ann", True)

    assert service.remove_user("bob") == 1
    assert [u["name"] for u in service.list_users()] == ["ann"]
    with session_scope(write=False) as session:  # everything that was Bob's went with him
        assert session.scalar(select(func.count(MealEntry.id))) == 0
        assert session.scalar(select(func.count(Food.id)).where(Food.owner_id.is_not(None))) == 0
        assert session.scalar(select(func.count(SignInSession.id))) == 0
    for change in (lambda: service.remove_user("bob"), lambda: service.set_admin("nobody", True),
                   lambda: service.set_password("nobody", "a-password")):
        with pytest.raises(UnknownUser):
            change()


def test_weak_password_hash_is_upgraded_on_login(db_url):
    from argon2 import PasswordHasher

    service.create_user("dave")
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("s3cret")
    with session_scope() as session:
        session.scalar(select(User).where(User.name == "dave")).password_hash = weak
    assert service.verify_password("dave", "s3cret")
    with session_scope(write=False) as session:
        upgraded = session.scalar(select(User.password_hash).where(User.name == "dave"))
    assert upgraded != weak and service.verify_password("dave", "s3cret")


def test_settings(alice):
    assert service.get_settings(alice) == {"daily_kcal_target": 2000.0,
                                           "daily_carb_target_g": 275.0,
                                           "exchange_unit_g": 15.0,
                                           "confidence_threshold": 0.7,
                                           "region": "US",
                                           "keep_photos": False,
                                           "glucose_unit": None}  # None: the region's
    updated = service.update_settings(alice, exchange_unit_g=12, daily_carb_target_g=180)
    assert updated["exchange_unit_g"] == 12.0 and updated["daily_carb_target_g"] == 180.0
    for bad in ({"exchange_unit_g": 13}, {"confidence_threshold": 1.5}, {"daily_kcal_target": -1},
                {"colour": "blue"}, {"daily_kcal_target": "2000"}, {"keep_photos": "yes"},
                {"glucose_unit": "mmol"}):
        with pytest.raises(InvalidValue):
            service.update_settings(alice, **bad)
    assert service.get_settings(alice)["exchange_unit_g"] == 12.0
    with pytest.raises(UnknownUser):
        service.get_settings("nobody")


@pytest.mark.parametrize("region, unit", [("US", 15.0), ("UK", 10.0), ("DE", 12.0)])
def test_region_at_sign_up_sets_the_unit_taught_there(db_url, region, unit):
    service.create_user("carol", region=region.lower())
    assert service.user_region("carol") == region
    assert service.get_settings("carol")["exchange_unit_g"] == unit
    card = service.lookup("banana", exchange_unit_g=unit)  # 118 g: 26.95 g carbohydrate
    assert card["exchanges"]["unit_g"] == unit


def test_the_local_user_gets_the_first_start_region_once(db_url):
    service.ensure_user("local", region="UK")
    assert (service.user_region("local"), service.get_settings("local")["exchange_unit_g"]) == (
        "UK", 10.0)
    service.ensure_user("local", region="DE")  # a later start never changes it
    assert service.user_region("local") == "UK"


def test_changing_region_brings_its_unit_unless_taught_there_too(alice):
    assert service.update_settings(alice, region="DE")["exchange_unit_g"] == 12.0  # BE
    service.update_settings(alice, exchange_unit_g=10)  # KE, also taught in Germany
    assert service.update_settings(alice, region="DE")["exchange_unit_g"] == 10.0
    assert service.update_settings(alice, region="US")["exchange_unit_g"] == 15.0
    # An explicit unit in the same change wins over the region's.
    changed = service.update_settings(alice, region="UK", exchange_unit_g=12)
    assert (changed["region"], changed["exchange_unit_g"]) == ("UK", 12.0)
    for bad in ("FR", "", None, 1):
        with pytest.raises(InvalidValue, match="region must be one of US, UK, DE"):
            service.update_settings(alice, region=bad)
    with pytest.raises(InvalidValue, match="region must be one of"):
        service.create_user("dora", region="Mars")
    assert service.user_region(alice) == "UK"
    with pytest.raises(UnknownUser):
        service.user_region("nobody")


def test_us_choices_are_shown_to_the_nearest_half_with_the_exact_value(alice):
    # Banana, 1 medium (118 g): 26.95 g carbohydrate, 3.07 g fiber (<= 5 g: all counted).
    card = service.lookup("banana")
    assert card["exchanges"]["value"] == 1.8 and card["exchanges"]["as_taught"] == 2.0
    be = service.lookup("banana", exchange_unit_g=12)["exchanges"]
    assert be["as_taught"] == be["value"]  # BE/KE/CP: one decimal, no halves


# --- meals ------------------------------------------------------------------------------

def test_log_and_read_back(alice):
    entry = service.log_meal(alice, "pizza", eaten_at=NOON, meal_type="lunch", note="with salad",
                             predicted_label="pizza", confidence=0.91,
                             model_version="food_default@1")
    assert entry["created"] is True
    assert entry["food"] == "Cheese pizza" and entry["serving"] == "1 slice"
    assert entry["grams"] == 107.0 and entry["kcal"] == 284.6  # 266 * 1.07
    assert entry["glycemic_load"] == 19.7  # 60 * 32.849 / 100
    assert entry["eaten_at"] == "2024-05-01T12:00:00"
    assert (entry["predicted_label"], entry["confidence"], entry["model_version"]) == (
        "pizza", 0.91, "food_default@1")
    listed = service.list_meals(alice, NOON - timedelta(hours=1), NOON + timedelta(hours=1))
    assert [e["id"] for e in listed] == [entry["id"]]
    assert set(listed[0]) == set(entry) - {"created", "dish_learned"}


def test_day_summary_and_daily_totals(alice):
    service.update_settings(alice, exchange_unit_g=10)
    service.log_meal(alice, "banana", eaten_at=NOON)
    service.log_meal(alice, "pizza", grams=214, eaten_at=NOON + timedelta(hours=7))
    service.log_meal(alice, "banana", eaten_at=NOON + timedelta(days=1))  # next day
    summary = service.day_summary(alice, date(2024, 5, 1))
    assert summary["date"] == "2024-05-01" and len(summary["entries"]) == 2
    # 105.02 + 569.24 kcal; (23.8832 + 65.698) g available -> 8.96 exchanges of 10 g
    assert summary["totals"]["kcal"] == 674.3
    assert summary["totals"]["available_carbohydrate_g"] == 89.6
    assert summary["totals"]["exchanges"] == 9.0
    assert summary["targets"] == {"daily_kcal_target": 2000.0, "daily_carb_target_g": 275.0,
                                  "exchange_unit_g": 10.0}
    totals = service.daily_totals(alice, days=3, until=date(2024, 5, 2))
    assert [t["date"] for t in totals] == ["2024-04-30", "2024-05-01", "2024-05-02"]
    assert [t["kcal"] for t in totals] == [0.0, 674.3, 105.0]


def test_aware_datetimes_become_local_wall_clock(alice):
    aware = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
    entry = service.log_meal(alice, "espresso", eaten_at=aware)
    assert entry["eaten_at"] == aware.astimezone().replace(tzinfo=None).isoformat()


def test_a_meal_more_than_a_day_ahead_is_refused_on_log_and_edit(alice):
    """The page's day-ahead rule (db.validate.meal_moment) holds for every caller of the service."""
    ahead = datetime.now() + timedelta(days=2)
    with pytest.raises(InvalidValue, match="more than a day in the future"):
        service.log_meal(alice, "banana", eaten_at=ahead)
    entry = service.log_meal(alice, "banana", eaten_at=datetime.now() + timedelta(hours=20))  # a planned meal
    with pytest.raises(InvalidValue, match="more than a day in the future"):
        service.update_meal(alice, entry["id"], eaten_at=ahead)


def test_external_id_makes_logging_idempotent(alice, db_url):
    first = service.log_meal(alice, "banana", eaten_at=NOON, external_id="photo-42")
    again = service.log_meal(alice, "pizza", grams=300, external_id="photo-42")
    assert first["created"] and not again["created"]
    assert again["id"] == first["id"] and again["food"] == "Banana"
    service.create_user("bob")
    other = service.log_meal("bob", "banana", external_id="photo-42")  # ids are per user
    assert other["created"] and other["id"] != first["id"]
    assert _entry_count() == 2


def test_users_cannot_touch_each_others_entries(alice):
    service.create_user("bob")
    mine = service.log_meal(alice, "banana", eaten_at=NOON)
    with pytest.raises(NotFound) as caught:
        service.update_meal("bob", mine["id"], grams=10)
    assert "alice" not in str(caught.value)
    with pytest.raises(NotFound):
        service.delete_meal("bob", mine["id"])
    assert service.list_meals("bob", NOON - timedelta(days=1), NOON + timedelta(days=1)) == []
    assert service.day_summary("bob", NOON.date())["entries"] == []
    assert service.update_meal(alice, mine["id"], note="ok")["note"] == "ok"
    with pytest.raises(NotFound):
        service.update_meal(alice, mine["id"] + 1000, note="x")
    service.delete_meal(alice, mine["id"])
    with pytest.raises(NotFound):
        service.delete_meal(alice, mine["id"])


def test_update_rescales_or_reprices(alice):
    entry = service.log_meal(alice, "banana", eaten_at=NOON)
    half = service.update_meal(alice, entry["id"], grams=59)
    assert half["kcal"] == 52.5 and half["serving"] is None  # 105.02 / 2
    cup = service.update_meal(alice, entry["id"], serving="1 cup sliced")
    assert cup["grams"] == 150.0 and cup["kcal"] == 133.5
    pizza = service.update_meal(alice, entry["id"], food="pizza")
    assert pizza["food"] == "Cheese pizza" and pizza["grams"] == 150.0 and pizza["kcal"] == 399.0
    moved = service.update_meal(alice, entry["id"], eaten_at=NOON + timedelta(days=1))
    assert moved["eaten_at"] == "2024-05-02T12:00:00"
    for bad in ({"grams": -1}, {"food_id": 3}, {"food": "unobtainium"}, {"eaten_at": "noon"}):
        with pytest.raises((InvalidValue, UnknownFood)):
            service.update_meal(alice, entry["id"], **bad)


def test_history_survives_food_corrections(alice):
    before = service.log_meal(alice, "banana", eaten_at=NOON)
    with session_scope() as session:  # a later data correction
        banana = session.scalar(select(Food).where(Food.name == "Banana"))
        banana.kcal, banana.carbohydrate_g, banana.name = 120.0, 30.0, "Banana, ripe"
    after = service.list_meals(alice, NOON, NOON + timedelta(minutes=1))[0]
    assert {k: after[k] for k in ("food", "kcal", "carbohydrate_g", "glycemic_load")} == {
        k: before[k] for k in ("food", "kcal", "carbohydrate_g", "glycemic_load")}
    # Changing the portion rescales the entry's own values, not the corrected food's.
    assert service.update_meal(alice, before["id"], grams=236)["kcal"] == 210.0
    assert service.lookup("banana", grams=100)["portion"]["kcal"] == 120.0


@pytest.mark.parametrize("query, kwargs, error", [
    ("unobtainium", {}, UnknownFood),
    ("banana", {"grams": -5}, InvalidPortion),
    ("banana", {"grams": 100_000}, InvalidPortion),
    ("banana", {"serving": "1 crate"}, InvalidPortion),
    ("banana", {"confidence": 1.5}, InvalidValue),
    ("banana", {"eaten_at": "yesterday"}, InvalidValue),
    ("banana", {"note": "x" * 5000}, InvalidValue),
    ("'; DELETE FROM meal_entries; --", {}, UnknownFood),
])
def test_bad_meals_write_nothing(alice, query, kwargs, error):
    service.log_meal(alice, "espresso", eaten_at=NOON)
    with pytest.raises(error):
        service.log_meal(alice, query, **kwargs)
    assert _entry_count() == 1


def test_unknown_user_writes_nothing(db_url):
    with pytest.raises(UnknownUser):
        service.log_meal("ghost", "banana")
    assert _entry_count() == 0


def test_twenty_threads_logging_at_once(alice):
    results = _at_once(20, lambda i: service.log_meal(alice, "banana", grams=100 + i,
                                                      eaten_at=NOON, external_id=f"t{i}"))
    assert not [r for r in results if isinstance(r, BaseException)], results
    entries = service.list_meals(alice, NOON, NOON + timedelta(seconds=1))
    assert sorted(e["external_id"] for e in entries) == sorted(f"t{i}" for i in range(20))
    assert sorted(e["grams"] for e in entries) == [100.0 + i for i in range(20)]


def _at_once(count: int, call) -> list:
    """``call(i)`` in ``count`` threads released together; returns the results, in order
    (an exception in a thread is returned in its place)."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = call(i)
        except BaseException as exc:  # collected: a thread's exception would be lost
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_the_same_external_id_at_once_logs_one_entry(alice):
    """The external_id race: every call sees no entry yet; on PostgreSQL all but one insert
    then fail on the unique constraint and return the winner's entry."""
    results = _at_once(8, lambda i: service.log_meal(alice, "banana", grams=100 + i,
                                                     eaten_at=NOON, external_id="photo-7"))
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sum(r["created"] for r in results) == 1
    assert len({r["id"] for r in results}) == 1 and len({r["grams"] for r in results}) == 1
    assert _entry_count() == 1


def test_the_same_new_user_at_once_is_created_once(db_url):
    results = _at_once(6, lambda i: service.create_user("eve"))
    assert results.count(None) == 1
    assert all(isinstance(r, UserExists) for r in results if r is not None), results
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count(User.id)).where(User.name == "eve")) == 1


def test_export_log_csv(alice, tmp_path):
    service.log_meal(alice, "banana", eaten_at=NOON, note="=HYPERLINK(\"http://x\")")
    service.log_meal(alice, "pizza", eaten_at=NOON - timedelta(hours=2))
    out = tmp_path / "log.csv"
    assert service.export_log_csv(alice, out) == 2
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("user,date,time,meal_type,food,grams,serving,kcal")
    assert "Cheese pizza" in lines[1] and "Banana" in lines[2]  # time order
    assert "'=HYPERLINK" in lines[2]  # not a live formula in a spreadsheet
    buffer = io.StringIO()
    assert service.export_log_csv(alice, buffer) == 2
    with pytest.raises(UnknownUser):
        service.export_log_csv("ghost", tmp_path / "ghost.csv")


def test_export_for_the_dietitian_has_exchanges_in_the_unit_usda_ids_and_rounded_values(alice):
    service.update_settings(alice, exchange_unit_g=10.0)
    service.log_meal(alice, "banana", grams=123.456, eaten_at=NOON, confidence=0.1234567890123)
    buffer = io.StringIO()
    service.export_log_csv(alice, buffer)
    header = buffer.getvalue().splitlines()[0].split(",")
    row = next(csv.DictReader(io.StringIO(buffer.getvalue())))
    # 123.5 g banana: 28.2 g carbohydrate, 3.2 g fiber -> 25.0 g available / 10 g = 2.5 KE
    assert (row["date"], row["time"], row["food"], row["grams"]) == (NOON.date().isoformat(), "12:00", "Banana", "123.5")
    assert (row["carbohydrate_g"], row["exchanges"]) == ("28.2", "2.5")
    assert row["exchange_unit"] == "KE (Kohlenhydrateinheit) / UK carbohydrate portion (CP) (1 = 10 g)"
    assert (row["usda_dataset"], row["fdc_id"], row["ndb_number"]) == ("SR Legacy", "173944", "09040")
    assert row["confidence"] == "0.123"
    # The ids and hashes for machines come after every column a person reads.
    assert header.index("id") > header.index("exchange_unit") and header[-1] == "is_correction"


def test_model_choices_are_per_user_and_every_change_is_recorded(db_url):
    service.create_user("admin1", "correct horse 1", admin=True)
    service.create_user("bea")
    assert service.is_admin("admin1") and not service.is_admin("bea")
    service.set_user_model("bea", "student")
    service.set_user_model("bea", "student")  # no change, no record
    assert service.default_model() is None
    service.set_default_model("admin1", "student", replaces="food_default")
    assert service.default_model() == "student"
    assert service.user_model("bea") == "student" and service.user_model("admin1") is None
    service.set_user_model("bea", None)
    changes = service.model_changes()
    assert [(c["changed_by"], c["scope"], c["from_model"], c["to_model"]) for c in changes] == [
        ("bea", "user", "student", None),
        ("admin1", "server", "food_default", "student"),
        ("bea", "user", None, "student"),
    ]
    assert all(c["changed_at"] for c in changes)


def test_no_nan_or_infinity_reaches_the_meal_log(db_url):
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    service.create_user("nan")
    entry = service.log_meal("nan", "banana", grams=100)
    with pytest.raises(InvalidValue, match="finite"):  # the ORM guard (SQLite would store NULL)
        with session_scope() as session:
            session.get(MealEntry, entry["id"]).kcal = float("nan")
    with pytest.raises(IntegrityError):  # the CHECK constraint, for writes around the ORM
        with session_scope() as session:
            session.execute(text("UPDATE meal_entries SET carbohydrate_g = :v WHERE id = :id"),
                            {"v": float("inf"), "id": entry["id"]})
    assert service.day_summary("nan", datetime.fromisoformat(entry["eaten_at"]).date())["entries"][0]["kcal"] == 89.0


def test_markers_of_downloads_long_gone_are_forgotten(db_url, alice):
    from db.tables import OwnedFile

    service.own_file(alice, "a" * 32)
    with session_scope() as session:
        session.get(OwnedFile, "a" * 32).created_at -= service.FORGET_OWNED_FILES_AFTER + timedelta(minutes=1)
    service.own_file(alice, "b" * 32)
    assert service.file_owner("a" * 32) is None  # older than any file Gradio still serves
    assert service.file_owner("b" * 32) == alice


@pytest.mark.parametrize("query, region, expected", [
    # A count or unit before the treatment ("5 jelly babies"): still the treatment.
    ("5 jelly babies", "UK", r"^Gummibonbon mit Fruchtessenz$"),
    ("life savers", "US", r"^Candies, hard$"),
    ("smarties candy", "US", r"^Candies, hard$"),  # US Smarties are dextrose tablets
])
def test_a_counted_or_branded_hypo_treatment_is_its_food(full_db, query, region, expected):
    hits = service.search(query, limit=3, region=region)
    assert hits and all(re.search(expected, h["food"]) for h in hits), hits
    assert all(h["portion"]["carbohydrate_g"] for h in hits)


@pytest.mark.parametrize("query, region", [
    ("4 oz juice", "US"), ("juice", "US"), ("juice for a low", "UK"),
    ("Saft für Unterzuckerung", "DE"), ("Saft", "DE")])
def test_juice_for_a_low_is_fruit_juice_never_a_light_drink_or_a_schorle(full_db, query, region):
    # ADA's Rule of 15: 4 ounces of juice. A light juice drink or a Schorle holds half the
    # carbohydrate: counted as juice, the treatment is under-counted twice over.
    hit = service.search(query, limit=1, region=region)[0]
    assert re.search(r"(?i)^(fruit juice|(orange|apple) juice, 100%|orangensaft|apfelsaft)",
                     hit["food"]), hit
    per_100g = service.lookup(hit["food"], grams=100)["per_100g"]["carbohydrate_g"]
    assert per_100g >= 10 and 100 <= hit["portion"]["grams"] <= 250, hit


@pytest.mark.parametrize("query, region", [
    ("Glukosetabletten", "DE"), ("Glucosetabletten", "DE"), ("glukose tabletten", "DE"),
    ("glucojuice", "UK"), ("3 Glukosetabletten", "DE")])
def test_german_glucose_tablets_and_glucojuice_are_read_from_the_pack(full_db, query, region):
    [hit] = service.search(query, limit=3, region=region)
    assert hit["food_id"] is None and "from the pack" in hit["asks"]


@pytest.mark.parametrize("query, region", [
    ("level life gel", "US"), ("Jubin Gel", "DE"), ("hypo gel", "UK"), ("4 dextro tablets", "UK")])
def test_glucose_gel_brands_and_short_names_are_read_from_the_pack(full_db, query, region):
    # Not "Stock gel" nor a bitter beer: a gel or tablet for a hypo differs by brand.
    [hit] = service.search(query, limit=3, region=region)
    assert hit["food_id"] is None and "from the pack" in hit["asks"]


def test_full_fat_coke_is_regular_cola_not_creme_fraiche(full_db):
    hit = service.search("half a can of full fat coke", limit=1, region="UK")[0]
    assert re.search(r"(?i)cola(?!.*(diet|low calorie|zero))", hit["food"]), hit
    assert service.lookup(hit["food"], grams=100)["per_100g"]["carbohydrate_g"] >= 9
    # a dairy food keeps its full-fat row, which holds the words
    assert "full fat" in service.search("full fat creme fraiche", limit=1, region="UK")[0]["food"]
