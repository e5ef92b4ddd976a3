"""The Glucose tab's handlers in process (each user's own data, clear messages for bad input)."""

import json
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
from db_support import alice, db_url  # noqa: F401  (fixtures)
from glucose_support import flagged_bananas

from app.security import Uploads
from app.ui.glucose import MEAL_COLUMNS, NO_READINGS, GlucoseTab, columns_in
from db import service
from db.glucose import metrics
from db.glucose import service as glucose

DATA = Path(__file__).parent / "data" / "glucose"


def handlers(tmp_path: Path) -> GlucoseTab:
    def owned_path(stem: str, suffix: str, user: str) -> Path:
        folder = tmp_path / user
        folder.mkdir(exist_ok=True)
        return folder / f"{stem}{suffix}"
    tab = GlucoseTab(lambda request: request.username, owned_path, Uploads(tmp_path / "gradio"))
    with gr.Blocks():  # the handlers answer keyed by the tab's components
        tab.build_entry_response()
        tab.build()
    return tab


ALICE, BOB = SimpleNamespace(username="alice"), SimpleNamespace(username="bob")


def curve(h: GlucoseTab, entry_id, request) -> tuple:
    """The entry's (plot, text) as the Today tab shows them."""
    shown = h.entry_response(entry_id, request)
    return shown[h.c.entry_plot], shown[h.c.entry_text]


def test_import_report_and_meals_through_the_handlers(alice, tmp_path):
    service.create_user("bob")
    h = handlers(tmp_path)
    assert "set to **Europe/Berlin**" in h.save_zone("Europe/Berlin", ALICE)
    assert h.load(ALICE) == "Europe/Berlin" and h.load(BOB) == "UTC"
    status = h.import_file(str(DATA / "clarity_de_mmol.csv"), "auto", ALICE)
    assert "Read as **clarity** in Europe/Berlin: **4** readings added" in status
    assert "line 14: 2026-03-29 02:30:00 does not exist in Europe/Berlin" in status
    shown = h.report(2, "2026-03-29", ALICE)
    text, figure, png, pdf = shown[h.c.metrics_text], shown[h.c.agp], shown[h.c.png], shown[h.c.pdf]
    assert "4 readings" in text and "Shows what happened." in text and figure is not None
    assert [a.get_title() for a in shown[h.c.daily].axes] == ["Sat 28 Mar", "Sun 29 Mar"]
    assert Path(png).read_bytes()[:4] == b"\x89PNG" and "/alice/" in png
    assert Path(pdf).read_bytes()[:5] == b"%PDF-" and pdf == png[:-4] + ".pdf"
    assert "0 readings" in h.report(2, "2026-03-29", BOB)[h.c.metrics_text]
    service.log_meal(alice, "banana", eaten_at=datetime(2026, 3, 29, 1, 40))
    shown = h.meals(ALICE)
    table, picker = shown[h.c.meals_table], shown[h.c.meal_pick]
    assert list(table.columns) == columns_in("mg/dL", MEAL_COLUMNS) and table.iloc[0]["Foods"] == "Banana"
    assert picker["choices"] == ["2026-03-29T01:40"]
    assert h.meal_curve("2026-03-29T01:40", ALICE)[h.c.meal_plot] is not None
    assert h.meal_curve("2026-03-29T01:40", BOB)[h.c.meal_plot] is None
    assert h.meals(BOB)[h.c.meals_table].empty and h.foods(ALICE).empty
    csv_path = h.export_readings(ALICE)
    assert Path(csv_path).read_text().count("\n") == 5


def test_bad_input_gets_a_message_and_imports_nothing(alice, tmp_path):
    h = handlers(tmp_path)
    assert "Choose an export file" in h.import_file(None, "auto", ALICE)
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping list\neggs\n")
    assert "Nothing was imported: cannot tell which export" in h.import_file(str(bad), "auto", ALICE)
    assert "unknown time zone" in h.save_zone("Moon/Base", ALICE)
    assert h.report(14, "not a day", ALICE)[h.c.metrics_text].startswith("⚠️")
    for days in (float("nan"), 2.5):  # a raw API call can send what the box cannot
        assert "days must be a whole number" in h.report(days, "", ALICE)[h.c.metrics_text]


def test_an_uploaded_export_is_deleted_once_imported_and_kept_while_refused(alice, tmp_path):
    h = handlers(tmp_path)
    upload = tmp_path / "gradio" / ("a" * 64) / "export.csv"  # as Gradio keeps an upload
    upload.parent.mkdir(parents=True)
    upload.write_bytes(b"shopping list\neggs\n")
    assert "Nothing was imported" in h.import_file(str(upload), "auto", ALICE) and upload.exists()
    upload.write_bytes((DATA / "clarity_de_mmol.csv").read_bytes())  # the right file, tried again
    assert "readings added" in h.import_file(str(upload), "auto", ALICE) and not upload.parent.exists()
    assert h.import_file(str(upload), "auto", ALICE) == "⚠️ export.csv is no longer on the server: upload it again"


def test_an_entry_shows_its_own_curve_to_its_owner_only(alice, tmp_path):
    service.create_user("bob")
    h = handlers(tmp_path)
    h.save_zone("Europe/Berlin", ALICE)
    h.import_file(str(DATA / "clarity_de_mmol.csv"), "auto", ALICE)
    around = service.log_meal(alice, "banana", eaten_at=datetime(2026, 3, 29, 1, 40))["id"]
    far = service.log_meal(alice, "banana", eaten_at=datetime(2026, 3, 20, 12, 0))["id"]
    plot, text = curve(h, around, ALICE)
    assert plot["visible"] and plot["value"] is not None
    assert text.startswith("**Glucose after this meal** (Banana") and "Baseline " in text
    assert "2-h iAUC" in text and "correction bolus cannot be excluded" in text
    plot, text = curve(h, far, ALICE)
    assert not plot["visible"] and text == NO_READINGS
    # Bob asking for Alice's entry gets neither her curve nor her figures.
    plot, text = curve(h, around, BOB)
    assert not plot["visible"] and plot["value"] is None
    assert text == f"⚠️ no meal entry {around} for 'bob'"
    assert h.entry_response(None, ALICE) == {h.c.entry_plot: {"__type__": "update", "value": None, "visible": False},
                                             h.c.entry_text: ""}


def test_a_flagged_meal_is_kept_in_the_per_food_figures_from_the_tab(alice, tmp_path):
    """A picked flagged meal offers the choice to count it; kept, the meals table says so and
    the foods table gains the food once three are kept. The table names every flag but the
    insulin one said of every meal (a correction bolus was cut off as the last flag)."""
    h = handlers(tmp_path)
    flagged_bananas(alice)
    correction = [{"eventType": "Correction Bolus", "insulin": 1.5, "created_at": "2026-12-01T09:30:00Z"}]
    glucose.import_export(alice, json.dumps(correction).encode())
    table = h.meals(ALICE)[h.c.meals_table]
    flags = dict(zip(table["Meal (local time)"], table["Flags"]))
    assert flags["2026-12-01 08:00"] == (f"{metrics.FLAG_OTHER_MEAL}; {metrics.FLAG_CORRECTION}")
    assert flags["2026-12-02 08:00"] == metrics.FLAG_OTHER_MEAL  # insulin data: no "cannot be excluded"
    shown = h.meal_curve("2026-12-01T08:00", ALICE)
    assert shown[h.c.meal_plot] is not None
    assert shown[h.c.meal_keep] == {"__type__": "update", "value": False, "visible": True}
    for day in (1, 2, 3):
        shown = h.keep_meal(f"2026-12-0{day}T08:00", True, ALICE)
    assert shown[h.c.meal_keep_status].startswith("Kept: this meal counts for **Banana**")
    assert shown[h.c.foods_table]["Food"].tolist() == ["Banana"]
    flags = dict(zip(shown[h.c.meals_table]["Meal (local time)"], shown[h.c.meals_table]["Flags"]))
    assert flags["2026-12-02 08:00"] == f"{metrics.FLAG_OTHER_MEAL}; kept in your per-food figures"
    assert h.meal_curve("2026-12-02T08:00", ALICE)[h.c.meal_keep]["value"] is True
    shown = h.keep_meal("2026-12-02T08:00", False, ALICE)
    assert shown[h.c.meal_keep_status].startswith("This meal is left out") and shown[h.c.foods_table].empty
    # Bob has no such meal: nothing of Alice's is kept or shown.
    service.create_user("bob")
    assert h.keep_meal("2026-12-01T08:00", False, BOB) == {h.c.meal_keep_status: "⚠️ Pick a meal first."}
    assert h.meal_curve("2026-12-01T08:00", BOB)[h.c.meal_plot] is None
