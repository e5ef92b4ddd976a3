"""The one-page report (app.glucose.chart.report_page) drawn from a report built by the metrics
alone (no database): the AGP from the smoothed curves, the daily profiles, the GRI grid, the
unit on every glucose axis and label, one A4 page as PNG and PDF, the method stated."""

import re
from datetime import date, datetime, timedelta

import pytest

from app.glucose import chart
from db.glucose import metrics

FIRST, LAST = date(2026, 11, 1), date(2026, 11, 30)


def report(unit: str, days: int = 14) -> dict:
    """The report of ``days`` days of 15-minute readings (a daily wave of 80-200 mg/dL, with one
    2-hour gap each day), in ``unit``."""
    first = LAST - timedelta(days=days - 1)
    times = [datetime.combine(first, datetime.min.time()) + timedelta(minutes=15 * n) for n in range(days * 96)]
    times = [t for t in times if not 10 <= t.hour < 12]
    values = [140.0 + 60.0 * ((t.hour * 60 + t.minute) / 720 - 1) ** 2 * (1 if t.day % 2 else -1) for t in times]
    minutes = [(t - times[0]).total_seconds() / 60 for t in times]
    out = {"user": "ann", "time_zone": "Europe/London", "glucose_unit": unit, "start": first.isoformat(),
           "end": LAST.isoformat(), "days": days, "sampling_minutes": 15.0,
           "meals": [{"eaten_at": "2026-11-30T08:00", "minute_of_day": 480, "carbohydrate_g": 45.0, "foods": ["Toast"]}],
           "events": [{"at": "2026-11-30T08:00", "minute_of_day": 480, "kind": "bolus", "amount": 4.0}]}
    out |= metrics.consensus_metrics(values, minutes, period_minutes=days * 1440, interval_minutes=15.0)
    out["data_warning"] = metrics.data_warning(days, out["active_percent"])
    out["agp"] = metrics.agp_profile([t.hour * 60 + t.minute for t in times], values)
    out["agp_smoothed"] = metrics.smooth_profile(out["agp"])
    out["daily"] = metrics.daily_profiles(times, values, first, LAST)
    return out


def texts(figure) -> list[str]:
    found = [t.get_text() for t in figure.texts]
    for axes in figure.axes:
        found += [t.get_text() for t in (*axes.texts, axes.title, axes.xaxis.label, axes.yaxis.label)]
        found += [t.get_text() for t in axes.get_yticklabels()]
        if axes.get_legend():
            found += [t.get_text() for t in axes.get_legend().get_texts()]
    return found


@pytest.mark.parametrize("unit, band, low", [("mg/dL", "70-180", "70"), ("mmol/L", "3.9-10.0", "3.9")])
def test_the_page_holds_the_agp_daily_profiles_and_gri_in_the_persons_unit(unit, band, low):
    page = chart.report_page(report(unit))
    said = texts(page)
    assert any(f"glucose in {unit}" in t for t in said)
    assert f"glucose ({unit})" in said and f"target range {band} {unit}" in said
    days = [a for a in page.axes if re.fullmatch(r"\w{3} \d{1,2} Nov", a.get_title())]
    assert [a.get_title() for a in days][:2] == ["Tue 17 Nov", "Wed 18 Nov"] and len(days) == 14
    assert [t.get_text() for t in days[0].get_yticklabels()][0] == low
    assert any(t.startswith("Glycemia risk index") for t in said)
    assert any(chart.METHOD[:60] in t for t in said)  # the method, on the page


def test_a_short_period_keeps_the_panels_size_and_says_it_is_too_short():
    full, short = chart.report_page(report("mg/dL")), chart.report_page(report("mg/dL", days=3))
    height = [a.get_position().height for a in full.axes if a.get_title().endswith(" Nov")]
    short_days = [a for a in short.axes if a.get_title().endswith(" Nov")]
    assert len(short_days) == 3 and short_days[0].get_position().height == pytest.approx(height[0])
    assert any(t.startswith("Too little data: 3 days") for t in texts(short))


def test_the_png_and_the_pdf_are_one_a4_page_and_the_pdf_is_the_same_each_time():
    shown = report("mmol/L")
    image = chart.report_png(shown)
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")
    assert (width, height) == (1240, 1753)  # A4 at 150 dpi
    pdf = chart.report_pdf(shown)
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1
    assert b"/MediaBox [ 0 0 595.44 841.68 ]" in pdf  # A4 in points
    assert chart.report_pdf(shown) == pdf  # no creation date: the same report, the same file


def test_the_ranges_bar_labels_never_overlap():
    assert chart.label_heights([0.1, 0.4, 50.0, 99.5, 100.0]) == [3.0, 9.0, 50.0, 91.0, 97.0]
    assert chart.label_heights([2.0, 10.0, 50.0, 80.0, 95.0]) == [3.0, 10.0, 50.0, 80.0, 95.0]  # room: unmoved
