"""`python -m app glucose ...` in process, on SQLite and PostgreSQL: what import, report and meals
print, and the PNG of the AGP."""

import json
from datetime import date, datetime
from pathlib import Path

import pytest
from db_support import alice, db_url  # noqa: F401  (fixtures)

from app.__main__ import main
from benchmarks.bench_glucose import clarity_export
from db import service
from db.glucose import metrics

DATA = Path(__file__).parent / "data" / "glucose"
REPORT_KEYS = ("time_below_54", "time_54_69", "time_in_range", "time_181_250", "time_above_250",
               "mean_mg_dl", "gmi_percent", "cv_percent", "active_percent")


def test_import_prints_added_duplicates_and_refused_rows(alice, capsys):
    file = str(DATA / "clarity_us_mgdl.csv")
    assert main(["glucose", "import", alice, file, "--tz", "America/New_York"]) == 0
    out, err = capsys.readouterr()
    assert "10 readings added, 0 duplicates skipped, 1 insulin and carbohydrate events added, 1 rows refused" in out
    assert "refused line 21: glucose value 'abc' is not a number" in err
    assert main(["glucose", "import", alice, file, "--format", "clarity", "--tz", "America/New_York"]) == 0
    assert "0 readings added, 10 duplicates skipped" in capsys.readouterr().out


def test_bad_input_is_an_error_message_and_nothing_is_imported(alice, capsys, tmp_path):
    assert main(["glucose", "import", alice, str(tmp_path / "missing.csv")]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert main(["glucose", "import", alice, str(DATA / "plain.csv"), "--tz", "Nowhere/Land"]) == 1
    assert "unknown time zone 'Nowhere/Land'" in capsys.readouterr().err
    assert main(["glucose", "report", alice, "--end", "2026-02-30"]) == 1
    assert "YYYY-MM-DD" in capsys.readouterr().err


def test_report_json_has_the_consensus_keys_and_writes_the_png_and_pdf(alice, capsys, tmp_path):
    export = tmp_path / "clarity.csv"
    export.write_bytes(clarity_export(14, date(2026, 11, 17)))
    assert main(["glucose", "zone", alice, "Europe/London"]) == 0
    assert main(["glucose", "import", alice, str(export)]) == 0
    capsys.readouterr()
    png, pdf = tmp_path / "report.png", tmp_path / "report.pdf"
    assert main(["glucose", "report", alice, "--end", "2026-11-30", "--json", "--png", str(png), "--pdf", str(pdf)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(isinstance(report[k], float) for k in REPORT_KEYS)
    assert report["active_percent"] == 100.0 and report["readings"] == 14 * 288
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and pdf.read_bytes()[:5] == b"%PDF-"
    assert len(report["daily"]) == 14 and len(report["agp_smoothed"]["p50"]) == 96
    assert main(["glucose", "report", alice, "--pdf", str(tmp_path / "no" / "such" / "folder.pdf")]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert main(["glucose", "report", alice, "--end", "2026-11-30"]) == 0
    assert "Shows what happened." in capsys.readouterr().out


def test_meals_json_gives_each_meals_response(alice, capsys, tmp_path):
    export = tmp_path / "clarity.csv"
    export.write_bytes(clarity_export(2, date(2026, 11, 29)))
    main(["glucose", "import", alice, str(export)])
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 11, 29, 12, 0))
    capsys.readouterr()
    assert main(["glucose", "meals", alice, "--json"]) == 0
    (meal,) = json.loads(capsys.readouterr().out)
    assert meal["foods"] == ["Banana"] and meal["carbohydrate_g"] == pytest.approx(27.0, abs=0.1)
    assert meal["response"]["flags"] == [metrics.FLAG_INSULIN_UNKNOWN]
    assert len(meal["curve"]) == 43  # -30 to +180 min every 5 min
    assert main(["glucose", "meals", alice]) == 0
    assert "not dosing advice" in capsys.readouterr().out


def test_report_text_keeps_one_decimal_for_percentages():
    """GMI 6.0% is not shown as "6%", nor 94.0% time in range as "94%"; no value is a dash."""
    from app.glucose.chart import report_text

    text = report_text({"time_in_range": 94.0, "gmi_percent": 6.0, "cv_percent": 30.0, "active_percent": 100.0,
                        "mean_mg_dl": 140.0, "readings": 12, "time_below_54": None,
                        "glucose_unit": "mg/dL"})
    lines = {line[:17].strip(): line[17:].strip() for line in text.splitlines() if line[:17].strip()}
    assert lines["GMI"] == "6.0%" and lines["CV"] == "30.0%  goal <=36%" and lines["Time with data"] == "100.0%"
    assert lines["In range 70-180"] == "94.0%  goal >70%"
    assert "94.0%" in text and lines["Mean"] == "140 mg/dL"


def test_the_meal_texts_say_which_flagged_meals_are_kept():
    """A flagged meal the person keeps is marked in `glucose meals` and in the entry's response
    text (the Today tab); an unflagged one is not."""
    from app.glucose.chart import response_text
    from app.glucose.cli import meals_table

    def meal(flags: list[str], kept: bool) -> dict:
        response = metrics.MealResponse(100.0, 160.0, 60.0, 60.0, 3600.0, flags)
        return {"eaten_at": "2026-12-01T08:00", "carbohydrate_g": 27.0, "foods": ["Banana"], "kept": kept,
                "response": response.to_dict()}
    kept, unflagged = meals_table([meal([metrics.FLAG_OTHER_MEAL], True), meal([], True)], "mg/dL").splitlines()[1:3]
    assert kept.endswith(f"Banana; {metrics.FLAG_OTHER_MEAL}; kept in the per-food figures")
    assert unflagged.endswith("Banana")
    said = "Counted in your per-food figures all the same"
    assert said in response_text(meal([metrics.FLAG_OTHER_MEAL], True), "mg/dL")
    assert said not in response_text(meal([metrics.FLAG_OTHER_MEAL], False), "mg/dL")
