"""Reading glucose exports: each fixture in tests/data/glucose is laid out as its format's public
description says (db/glucose/formats.py), in mg/dL and mmol/L, across a DST change."""

import json
from datetime import datetime
from pathlib import Path

import pytest

from db.errors import InvalidValue
from db.glucose import formats, zones

DATA = Path(__file__).parent / "data" / "glucose"


def parse(name: str, zone: str, fmt: str = "auto") -> formats.ParsedFile:
    return formats.parse(formats.decode((DATA / name).read_bytes()), fmt, zones.zone(zone))


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_clarity_mg_dl_across_the_fall_back_hour_in_new_york():
    parsed = parse("clarity_us_mgdl.csv", "America/New_York")
    assert parsed.source == "clarity"
    cgm = [(r.measured_at, r.mg_dl, r.reported_as) for r in parsed.readings if r.kind == "cgm"]
    # 00:45 EDT is 04:45 UTC; 01:00-01:45 happen twice (EDT, then EST); 02:00 EST is 07:00 UTC:
    # read in file order, the readings are 15 minutes apart throughout.
    assert [t for t, _, _ in cgm] == [utc(f"2026-11-01T{h}") for h in (
        "04:45", "05:00", "05:15", "05:30", "05:45", "06:00", "06:15", "06:45", "07:00")]
    assert cgm[2] == (utc("2026-11-01T05:15"), 40.0, "Low")
    assert cgm[5] == (utc("2026-11-01T06:00"), 400.0, "High")
    meter = [(r.measured_at, r.mg_dl) for r in parsed.readings if r.kind == "meter"]
    assert meter == [(utc("2026-11-01T05:20"), 121.0)]  # the Calibration row
    assert [str(r) for r in parsed.refused] == ["line 21: glucose value 'abc' is not a number"]


def test_libreview_in_german_is_read_by_column_position():
    """A German LibreView export (Gerätezeitstempel, Aufzeichnungstyp, Glukosewert-Verlauf mg/dL,
    ...; day-first dates) is recognised and read as the English one: historic, scan and strip
    glucose, a food record skipped."""
    parsed = parse("libreview_de_mgdl.csv", "Europe/Berlin")
    assert parsed.source == "libreview" and list(parsed.refused) == []
    assert [(r.kind, r.measured_at, r.mg_dl) for r in parsed.readings] == [
        ("cgm", utc("2026-11-13T06:00"), 104.0), ("cgm", utc("2026-11-13T06:15"), 118.0),
        ("scan", utc("2026-11-13T06:22"), 131.0), ("cgm", utc("2026-11-13T06:30"), 142.0),
        ("meter", utc("2026-11-13T06:40"), 150.0), ("cgm", utc("2026-11-13T06:45"), 155.0)]


def test_libreview_header_in_any_language_and_semicolons():
    """Words the reader has never seen (here the English header with every word changed), by
    position: Device, Serial, Timestamp, Record Type, Historic, Scan ... Strip, units in the names."""
    english = (DATA / "libreview_uk_mmol.csv").read_text(encoding="utf-8-sig").splitlines()
    header = english[1].split(",")
    foreign = [f"Kolumn{i} {'mmol/L' if 'mmol/L' in name else ''}".strip() for i, name in enumerate(header)]
    text = "\n".join([english[0], ";".join(foreign), *(line.replace(",", ";") for line in english[2:])])
    assert formats.detect(text) == "libreview"
    translated = formats.parse(text, "auto", zones.zone("Europe/London"))
    original = parse("libreview_uk_mmol.csv", "Europe/London")
    assert [(r.kind, r.measured_at, r.mg_dl) for r in translated.readings] == [
        (r.kind, r.measured_at, r.mg_dl) for r in original.readings]


def test_nightscout_sgv_as_text_and_in_mmol():
    entries = [{"type": "sgv", "sgv": "118", "date": 1764576000000},  # numeric text
               {"type": "sgv", "sgv": 5.6, "date": 1764576300000},  # mmol/L, unit not said
               {"type": "sgv", "sgv": 6, "units": "mmol", "date": 1764576600000},  # mmol/L, said
               {"type": "sgv", "sgv": 5, "date": 1764576900000},  # a Dexcom status code
               {"type": "sgv", "sgv": "high", "date": 1764577200000}]
    parsed = formats.parse(json.dumps(entries), "auto", zones.zone("UTC"))
    assert [r.mg_dl for r in parsed.readings] == [118.0, round(5.6 * 18.016, 1), round(6 * 18.016, 1)]
    assert [str(r) for r in parsed.refused] == ["entry 4: sgv 5 is a sensor status code, not glucose",
                                                "entry 5: glucose value \"'high'\" is not a number"]


def test_clarity_mmol_with_semicolons_and_the_spring_forward_gap_in_berlin():
    parsed = parse("clarity_de_mmol.csv", "Europe/Berlin")
    assert [(r.measured_at, r.mg_dl) for r in parsed.readings] == [
        (utc("2026-03-29T00:30"), round(5.6 * 18.016, 1)),  # 01:30 CET
        (utc("2026-03-29T00:45"), round(6.1 * 18.016, 1)),
        (utc("2026-03-29T01:00"), round(7.0 * 18.016, 1)),  # 03:00 CEST
        (utc("2026-03-29T01:15"), round(7.4 * 18.016, 1)),
    ]
    assert [str(r) for r in parsed.refused] == [
        "line 14: 2026-03-29 02:30:00 does not exist in Europe/Berlin (the clocks went forward then)"]


def test_libreview_historic_scan_and_strip_in_mmol_across_the_fall_back_in_london():
    parsed = parse("libreview_uk_mmol.csv", "Europe/London")
    assert parsed.source == "libreview"
    by_kind = {k: [(r.measured_at, r.mg_dl) for r in parsed.readings if r.kind == k]
               for k in ("cgm", "scan", "meter")}
    assert [t for t, _ in by_kind["cgm"]] == [utc(f"2026-10-{t}") for t in (
        "24T23:45", "25T00:00", "25T00:15", "25T00:30", "25T00:45", "25T01:00", "25T01:15",
        "25T01:45", "25T02:00")]
    assert by_kind["cgm"][0][1] == round(6.1 * 18.016, 1)
    assert by_kind["scan"] == [(utc("2026-10-25T00:07"), round(6.4 * 18.016, 1))]
    assert by_kind["meter"] == [(utc("2026-10-25T01:20"), round(7.3 * 18.016, 1))]
    # the food (type 5) and time-change (type 6) rows are not glucose; the empty reading is refused
    assert [str(r) for r in parsed.refused] == ["line 13: no glucose value"]


def test_libreview_us_month_first_with_am_pm_lo_and_hi():
    parsed = parse("libreview_us_mgdl.csv", "America/Chicago")
    assert [(r.measured_at, r.mg_dl, r.kind, r.reported_as) for r in parsed.readings] == [
        (utc("2026-11-15T17:45"), 101.0, "cgm", None),  # 11:45 AM CST
        (utc("2026-11-15T18:00"), 40.0, "cgm", "Low"),  # 12:00 PM is noon
        (utc("2026-11-15T18:15"), 500.0, "cgm", "High"),
        (utc("2026-11-15T18:20"), 144.0, "scan", None),
        (utc("2026-11-15T18:30"), 150.0, "cgm", None),
    ]
    assert [r.line for r in parsed.refused] == [8]


@pytest.mark.parametrize("name", ["nightscout_entries.json", "nightscout_entries.tsv"])
def test_nightscout_entries_json_and_tsv_carry_their_own_time(name):
    # The person's zone does not matter: every entry carries UTC milliseconds or an offset.
    parsed = parse(name, "Asia/Tokyo")
    cgm = {(r.measured_at, r.mg_dl) for r in parsed.readings if r.kind == "cgm"}
    assert {(utc("2026-11-09T04:00"), 107.0), (utc("2026-11-09T03:55"), 105.0)} <= cgm
    assert len(parsed.refused) == 1


def test_nightscout_json_meter_and_status_codes():
    parsed = parse("nightscout_entries.json", "UTC")
    assert [(r.line, r.measured_at, r.kind) for r in parsed.readings] == [
        (1, utc("2026-11-09T04:00"), "cgm"), (2, utc("2026-11-09T03:55"), "cgm"),
        (5, utc("2026-11-09T03:40"), "meter"),
        (6, utc("2026-11-09T03:35"), "cgm"),  # from dateString's +0100
    ]
    assert [str(r) for r in parsed.refused] == ["entry 3: sgv 5 is a sensor status code, not glucose"]


def test_plain_csv_units_offsets_and_refusals():
    parsed = parse("plain.csv", "Europe/Paris")
    assert [(r.measured_at, r.mg_dl, r.kind) for r in parsed.readings] == [
        (utc("2026-12-01T07:00"), 100.0, "cgm"),  # no zone: Paris (UTC+1)
        (utc("2026-12-01T07:05"), 99.1, "cgm"),  # 5.5 x 18.016
        (utc("2026-12-01T08:10"), 108.1, "meter"),  # Z
        (utc("2026-12-01T07:15"), 104.0, "cgm"),
    ]
    assert [r.line for r in parsed.refused] == [6, 7, 8]
    assert "outside 10-1000 mg/dL" in list(parsed.refused)[-1].reason


@pytest.mark.parametrize("text, message", [
    ("hello,world\n1,2\n", "cannot tell which export"),
    ("timestamp,value,unit\n", "holds no glucose readings"),
    ("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type\n", "needs the columns"),
    ("[1, 2", "not valid JSON"),
])
def test_unreadable_files_are_refused_whole(text, message):
    with pytest.raises(InvalidValue, match=message):
        formats.parse(text, "auto", zones.zone("UTC"))


def test_libreview_dates_that_read_both_ways_are_not_guessed():
    text = (DATA / "libreview_uk_mmol.csv").read_text(encoding="utf-8-sig").replace("25-10-2026", "05-10-2026")
    with pytest.raises(InvalidValue, match="DD-MM-YYYY or MM-DD-YYYY"):
        formats.parse(text, "libreview", zones.zone("Europe/London"))


def test_not_utf8_and_unknown_zone():
    with pytest.raises(InvalidValue, match="not UTF-8"):
        formats.decode(b"timestamp,value\xff")
    with pytest.raises(InvalidValue, match="unknown time zone"):
        zones.zone("Mars/Olympus")


def test_newest_first_files_resolve_the_repeated_hour_too():
    walls = [datetime(2026, 11, 1, h, m) for h, m in ((2, 0), (1, 30), (1, 0), (1, 30), (1, 0), (0, 30))]
    placed = zones.walls_to_utc(walls, zones.zone("America/New_York"))
    assert placed == [utc(f"2026-11-01T{t}") for t in ("07:00", "06:30", "06:00", "05:30", "05:00", "04:30")]


@pytest.mark.parametrize("text, words", [
    ("timestamp,value,unit\n0001-01-01T00:00:00+05:00,100,mg/dL\n", "outside the years 1970-2100"),
    ("timestamp,value,unit\n9999-12-31T23:59:00,100,mg/dL\n", "outside the years 1970-2100"),
    ('[{"type": "sgv", "sgv": 100, "date": -62135596800000}]', "outside the years 1970-2100"),
    ('[{"type": "sgv", "sgv": 100, "dateString": "0001-01-01T00:00:00+00:00"}]', "outside the years"),
    ("timestamp,value,unit\n2026-12-01T08:00:00,1_00,mg/dL\n", "is not a number"),
    ("timestamp,value,unit\n2026-12-01T08:00:00,\u0661\u0662\u0663,mg/dL\n", "is not a number"),
    ("timestamp,value,unit\n2026-12-01T08:00:00,1e2,mg/dL\n", "is not a number"),
    ("timestamp,value,unit\n2026-12-01T08:00:00,inf,mg/dL\n", "is not a number"),
])
def test_times_outside_the_years_and_values_not_plain_decimals_are_refused_rows(text, words):
    parsed = formats.parse(text, "auto", zones.zone("Asia/Kolkata"))
    assert parsed.readings == [] and len(parsed.refused) == 1
    assert words in str(next(iter(parsed.refused)))


def test_a_decimal_comma_is_a_decimal():
    parsed = formats.parse("timestamp,value,unit\n2026-12-01T08:00:00,\"5,6\",mmol/L\n", "auto", zones.zone("UTC"))
    assert [r.mg_dl for r in parsed.readings] == [round(5.6 * 18.016, 1)]


@pytest.mark.parametrize("junk", ["json", "csv"])
def test_a_file_of_junk_rows_is_refused_at_bounded_memory(junk):
    """32 MB of rows that are not readings (a JSON array of zeros; a CSV of "a" lines) is refused
    with one message, its parse never holding a row per line (peak growth measured in a fresh
    process, beside the file's own text)."""
    import subprocess
    import sys

    script = f"""
import resource
from db.errors import InvalidValue
from db.glucose import formats, zones
size = 32 * 2**20
text = "[" + ",".join(["0"] * (size // 2)) + "]" if {junk!r} == "json" else "timestamp,value,unit\\n" + "a\\n" * (size // 2)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    formats.parse(text, "auto", zones.zone("UTC"))
except InvalidValue as exc:
    print(exc)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
    message, growth_mb = done.stdout.strip().splitlines()
    assert "cannot be read: is it a glucose export?" in message, done.stderr
    assert int(growth_mb) < 100


@pytest.mark.parametrize("text, message", [
    ("timestamp,value\n" + "x" * 70_000 + "\n", "line 2 is longer than 65,536 characters"),
    # A quoted field over several lines, past the csv module's limit (it raised csv.Error: a 500).
    ('timestamp,value\n2026-12-01T08:00:00,"' + ("y" * 60_000 + "\n") * 3 + '"\n', "cannot be read as CSV"),
    ('[{"type": "sgv", "note": "' + "z" * 200_000 + '"}]', "entry 1 is longer than 65,536 characters"),
    ("timestamp,value\n" + ",\n" * 1_000_000, "more than 1,000,000 lines"),
    ("[" + "{}," * 1_000_000 + "{}]", "more than 1,000,000 entries"),
])
def test_overlong_lines_fields_and_entries_and_endless_files_are_refused_whole(text, message):
    """A file is read a line (or a JSON entry) at a time: a line, field or entry far longer
    than any export's, or a file of a million rows that are nothing, is no export."""
    with pytest.raises(InvalidValue, match=message):
        formats.parse(text, "auto", zones.zone("UTC"))


def test_a_file_on_disk_is_read_as_its_text_in_any_encoding(tmp_path):
    """UTF-16 with its BOM, or UTF-8 holding a character beyond the BMP; a JSON number split
    across the chunks the reader takes is read whole."""
    path = tmp_path / "export.csv"
    path.write_bytes("timestamp,value,note\r\n2026-12-01T08:00:00,100,\U0001F34C\r\n".encode("utf-16"))
    assert [r.mg_dl for r in formats.parse(formats.Source.of(path), "auto", zones.zone("UTC")).readings] == [100.0]
    numbers = "[" + ",".join(["123456"] * 30_000) + "]"  # 210 kB: chunk ends fall inside numbers
    parsed = formats.parse(numbers, "auto", zones.zone("UTC"))
    assert len(parsed.refused) == 30_000 and parsed.readings == []


def test_long_formats_with_or_without_a_unit_column():
    """iglu's long format (id,time,gl) and other plain CSVs: the unit from a unit column, the
    value column's name, or the values themselves; several people in one file refused."""
    where = zones.zone("UTC")
    mg = formats.parse("id,time,gl\nsubject1,2026-12-01 08:00:00,105\nsubject1,2026-12-01 08:05:00,5.5\n",
                       "auto", where)
    # A value over 33.3 makes the file mg/dL, so 5.5 there is out of range, not 5.5 mmol/L.
    assert [r.mg_dl for r in mg.readings] == [105.0] and "outside 10-1000 mg/dL" in str(next(iter(mg.refused)))
    mmol = formats.parse("id,time,gl\nsubject1,2026-12-01 08:00:00,5.8\nsubject1,2026-12-01 08:05:00,6.1\n",
                         "auto", where)
    assert [r.mg_dl for r in mmol.readings] == [round(5.8 * 18.016, 1), round(6.1 * 18.016, 1)]
    named = formats.parse("time,glucose mmol/L\n2026-12-01T08:00:00,7.0\n", "auto", where)
    assert [r.mg_dl for r in named.readings] == [round(7.0 * 18.016, 1)]
    with pytest.raises(InvalidValue, match="more than one person"):
        formats.parse("id,time,gl\na,2026-12-01 08:00:00,105\nb,2026-12-01 08:00:00,99\n", "auto", where)


def test_insulin_and_carbohydrate_events_from_each_format():
    """Clarity's Insulin and Carbs rows, LibreView's record types 4 and 5 and Nightscout
    treatments become events beside the readings (units and grams, in UTC)."""
    clarity = parse("clarity_us_mgdl.csv", "America/New_York")
    assert [(e.kind, e.at, e.amount) for e in clarity.events] == [("bolus", utc("2026-11-01T05:22"), 2.0)]
    libre = parse("libreview_de_mgdl.csv", "Europe/Berlin")
    assert [(e.kind, e.at, e.amount) for e in libre.events] == [("carbs", utc("2026-11-13T06:35"), 45.0)]
    english = (DATA / "libreview_uk_mmol.csv").read_text(encoding="utf-8-sig").splitlines()
    insulin = english[2].split(",")
    insulin[2:4], insulin[4], insulin[7], insulin[12] = ["25-10-2026 07:00", "4"], "", "6", "14"
    food = english[2].split(",")
    food[2:4], food[4], food[9] = ["25-10-2026 07:05", "5"], "", "52"
    text = "\n".join([*english, ",".join(insulin), ",".join(food)])
    events = formats.parse(text, "libreview", zones.zone("Europe/London")).events
    assert [(e.kind, e.at, e.amount) for e in events] == [
        ("carbs", utc("2026-10-25T01:10"), 40.0),  # the fixture's own food record (01:10 GMT, after the change)
        ("bolus", utc("2026-10-25T07:00"), 6.0), ("basal", utc("2026-10-25T07:00"), 14.0),
        ("carbs", utc("2026-10-25T07:05"), 52.0)]
    treatments = [{"eventType": "Meal Bolus", "insulin": 4.5, "carbs": 60, "created_at": "2026-12-01T07:00:00Z"},
                  {"eventType": "Correction Bolus", "insulin": "1.5", "created_at": "2026-12-01T09:00:00Z"},
                  {"eventType": "Carb Correction", "carbs": 15, "created_at": "2026-12-01T11:00:00Z"},
                  {"eventType": "Note", "notes": "walk", "created_at": "2026-12-01T12:00:00Z"},
                  {"eventType": "Bolus", "insulin": 250, "created_at": "2026-12-01T13:00:00Z"}]
    nightscout = formats.parse(json.dumps(treatments), "auto", zones.zone("UTC"))
    assert [(e.kind, e.at.hour, e.amount) for e in nightscout.events] == [
        ("bolus", 7, 4.5), ("carbs", 7, 60.0), ("bolus", 9, 1.5), ("carbs", 11, 15.0)]
    assert [str(r) for r in nightscout.refused] == ["entry 5: bolus 250 units is outside 0-100 units"]
