"""Reading glucose exports: each fixture in tests/data/glucose is laid out as its format's public
description says (db/glucose/formats.py), in mg/dL and mmol/L, across a DST change."""

import csv
import io
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


# LibreView exports in French, Italian, Spanish and Dutch: the English export's 19 columns in the
# same positions with their header words translated and a metadata first line, each with its
# locale's separator (; or ,), decimal mark and day-first date (14/11/2026, 14-11-2026); 07:00 on
# 14 November is 06:00 UTC in each country. Mg/dL in France, Italy and Spain, mmol/L with decimal
# commas in the Netherlands.
EUROPEAN = {"libreview_fr_mgdl.csv": "Europe/Paris", "libreview_it_mgdl.csv": "Europe/Rome",
            "libreview_es_mgdl.csv": "Europe/Madrid", "libreview_nl_mmol.csv": "Europe/Amsterdam"}


@pytest.mark.parametrize("name", sorted(EUROPEAN))
def test_libreview_in_french_italian_spanish_and_dutch(name):
    parsed = parse(name, EUROPEAN[name])
    mmol = [5.8, 6.6, 7.3, 7.9, 8.3, 8.6]
    values = [round(v * 18.016, 1) for v in mmol] if "mmol" in name else [104.0, 118.0, 131.0, 142.0, 150.0, 155.0]
    assert parsed.source == "libreview"
    assert [(r.kind, r.measured_at, r.mg_dl) for r in parsed.readings] == list(zip(
        ["cgm", "cgm", "scan", "cgm", "meter", "cgm"],
        [utc(f"2026-11-14T06:{m}") for m in ("00", "15", "22", "30", "40")] + [utc("2026-11-14T07:00")], values))
    # The rapid-acting insulin (4,5 or 4.5 units) and the food's 45 g; the note (type 6) is no event.
    assert [(e.kind, e.at, e.amount) for e in parsed.events] == [
        ("bolus", utc("2026-11-14T06:25"), 4.5), ("carbs", utc("2026-11-14T06:35"), 45.0)]
    assert [str(r) for r in parsed.refused] == ["line 10: no glucose value"]


def test_libreview_saved_again_by_a_spreadsheet():
    """Dates as a European spreadsheet saves them (14.11.26, a two-digit year), and a
    comma-separated file whose decimal commas are quoted, read as the export itself."""
    original = parse("libreview_nl_mmol.csv", "Europe/Amsterdam")
    text = (DATA / "libreview_nl_mmol.csv").read_text(encoding="utf-8-sig")
    short_years = formats.parse(text.replace("14-11-2026", "14.11.26"), "auto", zones.zone("Europe/Amsterdam"))
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    out = io.StringIO()
    csv.writer(out).writerows(rows)  # "5,8" quoted where it holds a comma
    quoted = formats.parse(out.getvalue(), "auto", zones.zone("Europe/Amsterdam"))
    for parsed in (short_years, quoted):
        assert [(r.kind, r.measured_at, r.mg_dl) for r in parsed.readings] == [
            (r.kind, r.measured_at, r.mg_dl) for r in original.readings]
        assert [(e.kind, e.amount) for e in parsed.events] == [("bolus", 4.5), ("carbs", 45.0)]


def test_an_unquoted_decimal_comma_is_refused_never_misread():
    """5,8 mmol/L unquoted in a comma-separated file splits into 5 and 8: every value after it
    moves one column. The row is refused (it was read as 5 mmol/L), the others are kept."""
    text = (DATA / "libreview_uk_mmol.csv").read_text(encoding="utf-8-sig").replace(",6.1,", ",6,1,")
    parsed = formats.parse(text, "auto", zones.zone("Europe/London"))
    assert round(6 * 18.016, 1) not in [r.mg_dl for r in parsed.readings]
    assert str(next(iter(parsed.refused))) == (
        "line 3: 20 fields where the header has 19: a decimal comma in a comma-separated file? (export it again)")
    assert len(parsed.readings) == len(parse("libreview_uk_mmol.csv", "Europe/London").readings) - 1


@pytest.mark.parametrize("change, message", [
    # The Italian header with its historic glucose column's unit gone.
    (lambda lines: [lines[0], lines[1].replace("Storico glucosio mg/dL", "Storico glucosio"), *lines[2:]],
     "read as a LibreView export (Italian header on line 2), but it lacks the unit (mg/dL or mmol/L) in the "
     "name of Historic Glucose (5th column), 'Storico glucosio': export it again from LibreView"),
    # The English words with Record Type renamed: the reader says which column it lacks.
    (lambda lines: [lines[0], lines[1].replace("Tipo di registrazione", "Type").replace(
        "Timestamp dispositivo", "Device Timestamp"), *lines[2:]],
     "read as a LibreView export (English header on line 2), but it lacks Record Type (4th column)"),
    # A header cut short (a spreadsheet's column deleted): not the export's 19 columns.
    (lambda lines: [lines[0], ",".join(lines[1].split(",")[:5]), *lines[2:]],
     "read as a LibreView export (Italian header on line 2), but it lacks the 19 columns of an export "
     "(its header has 5)"),
    # Only notes (record type 6): no reading at all.
    (lambda lines: lines[:2] + [line for line in lines[2:] if ",6," in line],
     "read as a LibreView export (Italian header on line 2), but none of its rows is a reading: no record "
     "type 0 (historic glucose), 1 (scan), 2 (strip), 4 (insulin) or 5 (food)"),
])
def test_a_libreview_file_that_cannot_be_read_says_what_was_recognised_and_what_is_missing(change, message):
    lines = (DATA / "libreview_it_mgdl.csv").read_text(encoding="utf-8-sig").splitlines()
    with pytest.raises(InvalidValue) as raised:
        formats.parse("\n".join(change(lines)), "auto", zones.zone("Europe/Rome"))
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize("text, fmt, message", [
    ("when,glucose\n2026-12-01T08:00,100\n", "auto",
     "cannot tell which export this is (Dexcom Clarity, LibreView, Nightscout or a CSV with timestamp and value "
     "columns) (its first line has a glucose column but no time column"),
    ("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Glucose Value\n1,2026-12-01T08:00:00,EGV,100\n", "auto",
     "read as a Dexcom Clarity export (its header on line 1), but its column 'Glucose Value' names no unit"),
    ("time,reading\n2026-12-01T08:00,100\n", "csv",
     "read as a plain CSV, but its header has a time column but no glucose column (value, glucose, gl or sgv)"),
])
def test_other_formats_say_what_they_lack(text, fmt, message):
    with pytest.raises(InvalidValue) as raised:
        formats.parse(text, fmt, zones.zone("UTC"))
    assert str(raised.value).startswith(message)


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
    ("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type\n",
     r"read as a Dexcom Clarity export \(its header on line 1\), but it lacks the column Glucose Value"),
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
