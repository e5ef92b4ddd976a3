"""Glucose readings in the database (SQLite and PostgreSQL): import with re-import, a fatal error
that imports nothing, owner-only reads, deletion with the account, the report and each meal's
response placed by the person's time zone."""

import io
import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from db_support import alice, db_url  # noqa: F401  (fixtures)
from glucose_support import flagged_bananas
from sqlalchemy import func, select

from benchmarks.bench_glucose import clarity_export
from db import service
from db.errors import InvalidValue, NotFound, UnknownUser
from db.glucose import metrics
from db.glucose import service as glucose
from db.tables import GlucoseEvent, GlucoseReading, MealEntry
from db.session import session_scope

DATA = Path(__file__).parent / "data" / "glucose"


def fixture(name: str) -> bytes:
    return (DATA / name).read_bytes()


def test_import_then_reimport_adds_nothing(alice):
    first = glucose.import_export(alice, fixture("clarity_us_mgdl.csv"), tz="America/New_York")
    assert {k: first[k] for k in ("format", "time_zone", "read", "added", "duplicates", "refused")} == {
        "format": "clarity", "time_zone": "America/New_York", "read": 10, "added": 10,
        "duplicates": 0, "refused": 1}
    assert first["refused_rows"] == ["line 21: glucose value 'abc' is not a number"]
    again = glucose.import_export(alice, fixture("clarity_us_mgdl.csv"), tz="America/New_York")
    assert (again["added"], again["duplicates"]) == (0, 10)
    assert glucose.reading_count(alice) == 10
    # the same readings from another source are that source's own
    other = glucose.import_export(alice, fixture("libreview_uk_mmol.csv"), fmt="libreview",
                                  tz="Europe/London")
    assert (other["added"], other["duplicates"]) == (11, 0)


def test_zone_less_times_are_read_in_the_persons_zone(alice):
    assert glucose.time_zone(alice) == "UTC"
    with pytest.raises(InvalidValue, match="unknown time zone"):
        glucose.set_time_zone(alice, "Atlantis/Capital")
    glucose.set_time_zone(alice, "Europe/Paris")
    result = glucose.import_export(alice, fixture("plain.csv"))
    assert result["time_zone"] == "Europe/Paris"
    with session_scope(write=False) as session:
        first = session.scalar(select(func.min(GlucoseReading.measured_at)))
    assert first == datetime(2026, 12, 1, 7, 0)  # 08:00 in Paris


def test_a_fatal_error_imports_nothing(alice, monkeypatch):
    with pytest.raises(InvalidValue, match="DD-MM-YYYY or MM-DD-YYYY"):
        text = fixture("libreview_uk_mmol.csv").replace(b"25-10-2026", b"05-10-2026")
        glucose.import_export(alice, text)
    with pytest.raises(InvalidValue, match="larger than"):
        glucose.import_export(alice, b"x" * (glucose.MAX_IMPORT_BYTES + 1))
    # The database fails half way through a large file: the first chunk goes back too.
    calls = []
    real = glucose._insert_new

    def failing(session, rows):
        calls.append(len(rows))
        if len(calls) == 2:
            raise InvalidValue("disk full")
        real(session, rows)

    monkeypatch.setattr(glucose, "_insert_new", failing)
    with pytest.raises(InvalidValue, match="disk full"):
        glucose.import_export(alice, clarity_export(30, date(2026, 11, 1)))
    assert calls[0] == glucose._INSERT_CHUNK
    assert glucose.reading_count(alice) == 0


def test_readings_are_the_owners_and_go_with_the_account(alice):
    service.create_user("bob")
    glucose.import_export(alice, fixture("nightscout_entries.json"))
    assert glucose.reading_count(alice) == 4 and glucose.reading_count("bob") == 0
    assert glucose.report("bob", end=date(2026, 11, 9))["readings"] == 0
    assert glucose.report(alice, days=1, end=date(2026, 11, 9))["readings"] == 3  # cgm only
    out = io.StringIO()
    glucose.export_readings_csv("bob", out)
    assert out.getvalue().splitlines() == [",".join(glucose.GLUCOSE_EXPORT_COLUMNS)]
    service.remove_user(alice)
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count(GlucoseReading.id))) == 0
    with pytest.raises(UnknownUser):
        glucose.import_export("nobody", fixture("plain.csv"))


def test_export_for_the_diabetes_team(alice):
    glucose.set_time_zone(alice, "Europe/London")
    glucose.import_export(alice, fixture("libreview_uk_mmol.csv"))
    out = io.StringIO()
    assert glucose.export_readings_csv(alice, out) == 11
    lines = out.getvalue().splitlines()
    assert lines[1] == "2026-10-24T23:45:00,2026-10-25T00:45:00,109.9,6.1,cgm,libreview,"


def test_report_over_14_days(alice):
    glucose.set_time_zone(alice, "America/New_York")
    glucose.import_export(alice, clarity_export(20, date(2026, 11, 11)))
    report = glucose.report(alice, days=14, end=date(2026, 11, 30))
    assert (report["start"], report["end"], report["sampling_minutes"]) == ("2026-11-17", "2026-11-30", 5.0)
    assert report["readings"] == 14 * 288 and report["active_percent"] == 100.0
    assert set(metrics.RANGE_KEYS) <= set(report) and report["time_below_54"] > 0
    assert sum(report[k] for k in metrics.RANGE_KEYS) == pytest.approx(100, abs=0.3)
    assert report["gmi_percent"] == pytest.approx(metrics.gmi_percent(report["mean_mg_dl"]), abs=0.051)
    # the AGP is by local time: "Low" is written at 03:00 local every day
    assert report["agp"]["p5"][3 * 4] == 40.0
    assert report["agp_smoothed"] == metrics.smooth_profile(report["agp"])
    # the last 14 days' readings by local time of day, 288 a day
    assert [d["date"] for d in report["daily"]][::13] == ["2026-11-17", "2026-11-30"]
    assert all(len(d["readings"]) == 288 for d in report["daily"])
    assert report["daily"][0]["readings"][36][1] == 40.0  # 03:00 local, "Low"
    assert len(glucose.report(alice, days=20, end=date(2026, 11, 30))["daily"]) == 14
    with pytest.raises(InvalidValue, match="days must be"):
        glucose.report(alice, days=0)


def test_each_meal_beside_the_glucose_that_followed(alice):
    glucose.set_time_zone(alice, "Europe/Berlin")
    # Breakfast at 08:00 Berlin (07:00 UTC): flat 100 before, up to 190 at 60 min, 100 by 120.
    rows = ["timestamp,value,unit"]
    for minute in range(-30, 181, 5):
        value = 100 + 90 * max(0.0, 1 - abs(minute - 60) / 60)
        moment = datetime(2026, 12, 1, 8, 0) + timedelta(minutes=minute)
        rows.append(f"{moment:%Y-%m-%dT%H:%M:%S},{value:.1f},mg/dL")
    glucose.import_export(alice, "\n".join(rows).encode())
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 12, 1, 8, 0))
    service.log_meal(alice, "espresso", eaten_at=datetime(2026, 12, 1, 8, 5))  # the same meal
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 12, 1, 10, 30))  # within 3 h
    first, second = glucose.meal_responses_json(alice)
    assert first["foods"] == ["Banana", "Espresso"] and first["main_food"] == "Banana"
    response = first["response"]
    assert (response["baseline_mg_dl"], response["peak_mg_dl"], response["rise_mg_dl"],
            response["minutes_to_peak"]) == (100.0, 190.0, 90.0, 60.0)
    # a triangle 90 high and 120 min wide: 90 x 120 / 2
    assert response["iauc_2h"] == 5400.0
    assert response["flags"] == [metrics.FLAG_OTHER_MEAL, metrics.FLAG_INSULIN_UNKNOWN]
    assert first["curve"][0] == [-30.0, 100.0] and first["curve"][-1] == [180.0, 100.0]
    assert metrics.FLAG_MISSING_DATA in second["response"]["flags"]  # readings end at 11:00
    foods = glucose.food_responses(alice)
    assert foods["minimum_meals"] == metrics.MIN_MEALS_PER_FOOD and foods["foods"] == []


def test_a_meal_within_three_hours_after_another_is_flagged_for_it(alice):
    """Lunch 105 min after breakfast sits on breakfast's curve: both are flagged (also when the
    period asked for starts after breakfast), so neither feeds the per-food figures."""
    rows = ["timestamp,value,unit"] + [
        f"{datetime(2026, 12, 1, 6, 0) + timedelta(minutes=m):%Y-%m-%dT%H:%M:%S},{120 + (m % 60)},mg/dL"
        for m in range(0, 8 * 60, 5)]
    glucose.import_export(alice, "\n".join(rows).encode())
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 12, 1, 7, 0))
    service.log_meal(alice, "pizza", eaten_at=datetime(2026, 12, 1, 8, 45))
    service.log_meal(alice, "espresso", eaten_at=datetime(2026, 12, 1, 12, 0))  # 3 h 15 after: clean
    flags = {m["foods"][0]: m["response"]["flags"] for m in glucose.meal_responses_json(alice)}
    assert metrics.FLAG_OTHER_MEAL in flags["Banana"] and metrics.FLAG_OTHER_MEAL in flags["Cheese pizza"]
    assert metrics.FLAG_OTHER_MEAL not in flags["Espresso"]
    [lunch] = glucose.meal_responses_json(alice, datetime(2026, 12, 1, 8, 0), datetime(2026, 12, 1, 9, 0))
    assert lunch["foods"] == ["Cheese pizza"] and metrics.FLAG_OTHER_MEAL in lunch["response"]["flags"]


def test_the_other_devices_export_adds_only_what_it_alone_covers(alice):
    """A receiver and a phone on one sensor, 40 s apart, exported separately: the second file
    adds only the hour the first lacks, and the report's time with data is one sensor's."""
    glucose.set_time_zone(alice, "UTC")

    def export(offset_s: int, minutes: range) -> bytes:
        start = datetime(2026, 12, 1, 0, 0, offset_s)
        return "\n".join(["timestamp,value,unit"] + [
            f"{start + timedelta(minutes=m):%Y-%m-%dT%H:%M:%S}Z,{110 + m % 30},mg/dL" for m in minutes]).encode()

    receiver = glucose.import_export(alice, export(0, range(0, 12 * 60, 5)))
    phone = glucose.import_export(alice, export(40, range(0, 13 * 60, 5)))  # an hour longer
    assert receiver["added"] == 144
    assert (phone["added"], phone["other_device"], phone["duplicates"]) == (12, 144, 144)
    again = glucose.import_export(alice, export(40, range(0, 13 * 60, 5)))  # the phone's file again
    assert again["added"] == 0
    report = glucose.report(alice, days=1, end=date(2026, 12, 1))
    assert report["sampling_minutes"] == 5.0 and report["readings"] == 156
    assert report["active_percent"] == round(100 * 13 * 60 / (24 * 60), 1)


def test_insulin_and_carbohydrate_events_beside_meals_and_in_the_report(alice):
    """A Nightscout treatments export beside the readings: stored once, drawn in the report, and
    with each meal the carbohydrate and bolus the devices recorded; a bolus 2 h after a meal is a
    correction, which flags the meal (its curve is not the food's alone)."""
    glucose.set_time_zone(alice, "UTC")
    rows = ["timestamp,value,unit"] + [
        f"{datetime(2026, 12, 1, 6, 0) + timedelta(minutes=m):%Y-%m-%dT%H:%M:%S},{120 + (m % 60)},mg/dL"
        for m in range(0, 12 * 60, 5)]
    glucose.import_export(alice, "\n".join(rows).encode())
    treatments = [{"eventType": "Meal Bolus", "insulin": 4.5, "carbs": 60, "created_at": "2026-12-01T07:00:00Z"},
                  {"eventType": "Meal Bolus", "insulin": 3, "carbs": 45, "created_at": "2026-12-01T12:05:00Z"},
                  {"eventType": "Correction Bolus", "insulin": 1.5, "created_at": "2026-12-01T14:00:00Z"}]
    first = glucose.import_export(alice, json.dumps(treatments).encode())
    assert (first["events_read"], first["events_added"], first["added"]) == (5, 5, 0)
    assert glucose.import_export(alice, json.dumps(treatments).encode())["events_added"] == 0
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 12, 1, 7, 0))
    service.log_meal(alice, "espresso", eaten_at=datetime(2026, 12, 1, 12, 0))
    breakfast, lunch = glucose.meal_responses_json(alice)
    assert (breakfast["device_carbs_g"], breakfast["meal_bolus_units"]) == (60.0, 4.5)
    assert metrics.FLAG_INSULIN_UNKNOWN not in breakfast["response"]["flags"]
    assert metrics.FLAG_CORRECTION not in breakfast["response"]["flags"]
    assert (lunch["device_carbs_g"], lunch["meal_bolus_units"]) == (45.0, 3.0)
    assert metrics.FLAG_CORRECTION in lunch["response"]["flags"]  # 1.5 units at 14:00, 2 h after
    report = glucose.report(alice, days=1, end=date(2026, 12, 1))
    assert [(e["kind"], e["amount"], e["minute_of_day"]) for e in report["events"]] == [
        ("bolus", 4.5, 420), ("carbs", 60.0, 420), ("bolus", 3.0, 725), ("carbs", 45.0, 725), ("bolus", 1.5, 840)]
    from app.glucose.chart import agp_figure

    agp_figure(report)  # draws the doses
    service.remove_user(alice)
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count(GlucoseEvent.id))) == 0  # gone with the account


def test_a_flagged_meal_feeds_the_per_food_figures_only_once_the_person_keeps_it(alice):
    """Three breakfasts of banana, each with a coffee 2 h later on the same curve: all flagged
    (another meal), so banana has no per-food figures. Kept by the person (on one entry
    of the meal, stored on each of its entries), they count; unkept, they are out again. Only the
    owner can keep their meal."""
    bananas = flagged_bananas(alice)
    meals = [m for m in glucose.meal_responses_json(alice) if m["foods"] == ["Banana"]]
    assert all(metrics.FLAG_OTHER_MEAL in m["response"]["flags"] and not m["kept"] for m in meals)
    assert glucose.food_responses(alice)["foods"] == []
    for entry_id in bananas:
        kept = glucose.keep_meal(alice, entry_id, True)
        assert kept["kept"] and kept["entry_ids"] == [entry_id]
    [banana] = glucose.food_responses(alice)["foods"]
    assert (banana["food"], banana["meals"]) == ("Banana", 3)
    assert all(m["kept"] for m in glucose.meal_responses_json(alice) if m["foods"] == ["Banana"])
    glucose.keep_meal(alice, bananas[0], False)
    assert glucose.food_responses(alice)["foods"] == []  # two kept meals are below the minimum
    service.create_user("bob")
    with pytest.raises(NotFound):
        glucose.keep_meal("bob", bananas[0], True)
    with pytest.raises(InvalidValue, match="keep must be true or false"):
        glucose.keep_meal(alice, bananas[0], "yes")
    assert not glucose.meal_of_entry(alice, bananas[0])["kept"]


def test_keeping_a_meal_keeps_each_of_its_entries(alice):
    """A meal of two entries logged 5 minutes apart, kept through either entry: both are
    stored as kept, and the meal reads as kept."""
    first = service.log_meal(alice, "banana", eaten_at=datetime(2026, 12, 1, 8, 0))["id"]
    second = service.log_meal(alice, "espresso", eaten_at=datetime(2026, 12, 1, 8, 5))["id"]
    assert glucose.keep_meal(alice, second, True)["entry_ids"] == [first, second]
    with session_scope(write=False) as session:
        assert [e.keep_in_food_figures for e in session.scalars(select(MealEntry).order_by(MealEntry.id))] == [
            True, True]
