"""The person's glucose unit (issue 43): mg/dL or mmol/L by their region unless they choose,
shown by the one rule of db.glucose.units in the Glucose tab, the report text and the AGP PNG,
the CLI, the API and the CSV; the same readings give the same statistics in either unit."""

import io
import json
from datetime import date, datetime, timedelta
from types import SimpleNamespace

import gradio as gr
import pytest
from db_support import db_url  # noqa: F401  (fixture)

from app.__main__ import main
from app.glucose import chart
from app.ui.glucose import MEAL_COLUMNS, GlucoseTab, columns_in
from app.ui.settings import BY_REGION, SettingsTab
from benchmarks.bench_glucose import clarity_export
from db import service
from db.errors import InvalidValue
from db.glucose import service as glucose
from db.glucose import units
from db.nutrition import REGIONS

END = date(2026, 11, 30)


def test_in_unit_and_shown_are_the_one_display_rule():
    assert units.in_unit(180.2, units.MMOL_L) == 10.0 and units.in_unit(70, units.MMOL_L) == 3.9
    assert units.in_unit(142.6, units.MG_DL) == 143.0 and units.in_unit(None, units.MMOL_L) is None
    assert units.shown(100.0, units.MMOL_L) == "5.6" and units.shown(100.0, units.MG_DL) == "100"
    assert units.shown(None, units.MG_DL) == "-"
    assert units.check_unit("MMOL/L") == units.MMOL_L
    with pytest.raises(InvalidValue, match="glucose unit must be one of mg/dL, mmol/L"):
        units.check_unit("mg")


def test_every_region_has_its_glucose_unit():
    assert set(units.REGION_UNITS) == set(REGIONS)
    assert units.REGION_UNITS == {"US": units.MG_DL, "UK": units.MMOL_L, "DE": units.MG_DL}


def test_the_unit_follows_the_region_until_the_person_chooses(db_url):
    for name, region, expected in (("ann", "US", "mg/dL"), ("ben", "UK", "mmol/L"), ("carl", "DE", "mg/dL")):
        service.create_user(name, region=region)
        assert glucose.glucose_unit(name) == expected and service.get_settings(name)["glucose_unit"] is None
    service.update_settings("carl", glucose_unit="mmol/L")  # a German whose sensor reads mmol/L
    assert glucose.glucose_unit("carl") == "mmol/L"
    service.update_settings("carl", region="UK")
    service.update_settings("ben", glucose_unit="mg/dL")
    assert (glucose.glucose_unit("carl"), glucose.glucose_unit("ben")) == ("mmol/L", "mg/dL")
    service.update_settings("ben", glucose_unit=None)  # back to the region's
    assert glucose.glucose_unit("ben") == "mmol/L"
    with pytest.raises(InvalidValue, match="glucose unit"):
        service.update_settings("ben", glucose_unit="mmol")


def _two_readers() -> tuple[str, str]:
    """A US and a UK user with the same 14 days of readings and one meal each."""
    for name, region in (("us", "US"), ("uk", "UK")):
        service.create_user(name, region=region)
        glucose.import_export(name, clarity_export(14, END - timedelta(days=13)), tz="UTC")
        service.log_meal(name, "banana", eaten_at=datetime(2026, 11, 30, 8, 0))
    return "us", "uk"


def test_the_same_readings_give_the_same_statistics_in_either_unit(db_url):
    us, uk = _two_readers()
    in_mg, in_mmol = glucose.report(us, end=END), glucose.report(uk, end=END)
    assert (in_mg["glucose_unit"], in_mmol["glucose_unit"]) == ("mg/dL", "mmol/L")
    differ = {"user", "glucose_unit"}
    assert {k: v for k, v in in_mg.items() if k not in differ} == {k: v for k, v in in_mmol.items() if k not in differ}
    same = lambda user: [{k: v for k, v in m.items() if k != "entry_ids"} for m in glucose.meal_responses_json(user)]  # noqa: E731
    assert same(us) == same(uk)
    lines = {unit: {line[:17].strip(): line[17:].strip() for line in chart.report_text(r).splitlines()}
             for unit, r in (("mg", in_mg), ("mmol", in_mmol))}
    # Only what is shown differs: percentages, GMI, CV and GRI are the same text.
    for key in ("GMI", "CV", "GRI (zone)", "Time with data", "Readings"):
        assert lines["mg"][key] == lines["mmol"][key]
    assert lines["mg"]["In range 70-180"] == lines["mmol"]["In range 3.9-10.0"]
    assert lines["mg"]["Mean"] == f"{in_mg['mean_mg_dl']:.0f} mg/dL"
    assert lines["mmol"]["Mean"] == f"{round(in_mg['mean_mg_dl'] / 18.016, 1):.1f} mmol/L"
    assert lines["mmol"]["SD"] == f"{round(in_mg['sd_mg_dl'] / 18.016, 1):.1f} mmol/L"


def test_the_agp_png_is_drawn_in_the_persons_unit(db_url):
    us, uk = _two_readers()
    for user, unit, band, top in ((us, "mg/dL", "70-180", 400), (uk, "mmol/L", "3.9-10.0", 22.2)):
        figure = chart.agp_figure(glucose.report(user, end=END))
        agp, _ranges, numbers = figure.axes[:3]
        assert agp.get_ylabel() == f"glucose ({unit})" and agp.get_ylim()[1] == pytest.approx(top)
        assert f"target range {band} {unit}" in [t.get_text() for t in agp.get_legend().get_texts()]
        assert f"In range {band}" in numbers.texts[0].get_text()
        assert chart.png(figure)[:4] == b"\x89PNG"
    meal = glucose.meal_responses_json(uk)[0]
    assert chart.meal_figure(meal, "mmol/L").axes[0].get_ylabel() == "glucose (mmol/L)"
    text = chart.response_text(meal, "mmol/L")
    assert f"peak {units.shown(meal['response']['peak_mg_dl'], 'mmol/L')} mmol/L" in text
    assert "mmol/L x min" in text and "mg/dL" not in text


def test_the_glucose_tab_shows_the_persons_unit(db_url, tmp_path):
    us, uk = _two_readers()
    tab = GlucoseTab(lambda request: request.username, lambda stem, suffix, user: tmp_path / f"{user}{stem}{suffix}",
                     None)
    with gr.Blocks():
        tab.build_entry_response()
        tab.build()
    for user, unit in ((us, "mg/dL"), (uk, "mmol/L")):
        request = SimpleNamespace(username=user)
        text = tab.report(14, END.isoformat(), request)[tab.c.metrics_text]
        assert "Mean" in text and f" {unit}\n" in text
        table = tab.meals(request)[tab.c.meals_table]
        assert list(table.columns) == columns_in(unit, MEAL_COLUMNS)
        peak = glucose.meal_responses_json(user)[0]["response"]["peak_mg_dl"]
        assert table.iloc[0][f"Peak ({unit})"] == units.in_unit(peak, unit)
    assert "Peak (mmol/L)" in columns_in("mmol/L", MEAL_COLUMNS)
    assert "iAUC 2 h (mmol/L x min)" in columns_in("mmol/L", MEAL_COLUMNS)


def test_the_cli_shows_and_sets_the_unit(db_url, capsys):
    us, uk = _two_readers()
    capsys.readouterr()
    assert main(["glucose", "unit", uk]) == 0 and capsys.readouterr().out == "uk: mmol/L\n"
    assert main(["glucose", "report", uk, "--end", END.isoformat()]) == 0
    out = capsys.readouterr().out
    assert "In range 3.9-10.0" in out and " mmol/L\n" in out and "mg/dL" not in out
    assert main(["glucose", "meals", uk]) == 0
    assert "mmol/L; iAUC in mmol/L x min" in capsys.readouterr().out
    assert main(["glucose", "report", us, "--end", END.isoformat()]) == 0
    out = capsys.readouterr().out
    assert "In range 70-180" in out and "mmol/L" not in out
    assert main(["glucose", "unit", us, "mmol/L"]) == 0 and capsys.readouterr().out == "us: mmol/L\n"
    assert main(["glucose", "unit", us, "region"]) == 0 and capsys.readouterr().out == "us: mg/dL\n"
    assert main(["glucose", "report", uk, "--end", END.isoformat(), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["glucose_unit"] == "mmol/L" and report["mean_mg_dl"] > 54  # still mg/dL by name
    assert main(["glucose", "unit", us, "mmol"]) == 1
    assert "glucose unit must be one of" in capsys.readouterr().err


def test_the_csv_names_both_units_for_everyone(db_url):
    us, uk = _two_readers()
    exported = {}
    for user in (us, uk):
        out = io.StringIO()
        glucose.export_readings_csv(user, out)
        exported[user] = out.getvalue().splitlines()
    header = exported[uk][0].split(",")
    assert header[2:4] == ["mg_dl", "mmol_l"]
    first = exported[uk][1].split(",")
    assert first[3] == f"{units.in_unit(float(first[2]), 'mmol/L'):.1f}"
    assert [line.split(",")[2:] for line in exported[us]] == [line.split(",")[2:] for line in exported[uk]]


def tab_choices(update: dict) -> list:
    return [tuple(choice) for choice in update["choices"]]


def test_the_settings_tab_offers_by_region_and_both_units(db_url):
    service.create_user("ben", region="UK")
    assert SettingsTab.glucose_unit_choices("UK") == [("By region (mmol/L)", BY_REGION), ("mg/dL", "mg/dL"),
                                                      ("mmol/L", "mmol/L")]
    assert SettingsTab.glucose_unit_choices("US")[0] == ("By region (mg/dL)", BY_REGION)
    assert tab_choices(SettingsTab.glucose_units_for_region("UK"))[0] == ("By region (mmol/L)", BY_REGION)
    tab = SettingsTab(SimpleNamespace(user=lambda request: request.username), None)
    tab.c.glucose_unit = "glucose unit"  # load_settings answers keyed by the components
    for name in ("kcal_target", "carb_target", "unit", "threshold", "region"):
        setattr(tab.c, name, name)
    ben = SimpleNamespace(username="ben")
    assert tab.load_settings(ben)["glucose unit"] == BY_REGION
    assert tab.save_settings(None, None, None, None, None, "mg/dL", ben) == "Settings saved."
    assert glucose.glucose_unit("ben") == "mg/dL"
    assert tab.load_settings(ben)["glucose unit"] == "mg/dL"
    tab.save_settings(None, None, None, None, None, None, ben)  # empty: unchanged
    assert glucose.glucose_unit("ben") == "mg/dL"
    tab.save_settings(None, None, None, None, None, BY_REGION, ben)
    assert glucose.glucose_unit("ben") == "mmol/L" and service.get_settings("ben")["glucose_unit"] is None


def test_the_cli_food_table_is_in_the_persons_unit():
    from app.glucose.cli import foods_table

    food = {"food": "Banana", "meals": 3, "iauc_per_10g": 1801.6, "iauc_per_10g_sd": 180.2,
            "rise_per_10g": 18.0, "rise_per_10g_sd": 9.0}
    shared = {"minimum_meals": 3, "main_food_share": 0.5, "foods": [food], "disclaimer": "Not advice."}
    in_mmol = foods_table({**shared, "glucose_unit": "mmol/L"})
    assert "iAUC/10 g 100.0 (SD 10.0) mmol/L x min  rise/10 g 1.0 (SD 0.5) mmol/L" in in_mmol
    in_mg = foods_table({**shared, "glucose_unit": "mg/dL"})
    assert "iAUC/10 g 1802 (SD 180) mg/dL x min  rise/10 g 18 (SD 9) mg/dL" in in_mg
