"""The CGM report and meal-response numbers against answers worked out by hand (the working is
in each comment), and the AGP percentiles against numpy's."""

import numpy as np
import pytest

from db.glucose import metrics


def test_iauc_rise_and_time_to_peak_on_a_curve_that_ends_below_baseline():
    minutes = [-15, -10, -5, 0, 30, 60, 90, 120, 150, 180]
    values = [100, 100, 100, 100, 160, 190, 130, 90, 95, 100]
    response = metrics.meal_response(minutes, values)
    # baseline mean(100, 100, 100, 100) = 100; peak 190 at 60 min
    assert (response.baseline_mg_dl, response.peak_mg_dl, response.rise_mg_dl,
            response.minutes_to_peak) == (100.0, 190.0, 90.0, 60.0)
    # 0-30: (0 + 60) / 2 x 30 = 900; 30-60: (60 + 90) / 2 x 30 = 2250; 60-90: (90 + 30) / 2 x 30
    # = 1800; 90-120 crosses: only the triangle above, 30^2 / (30 + 10) x 30 / 2 = 337.5
    assert response.iauc_2h == 5287.5
    # 30-minute steps are longer than the 20 allowed: missing data; insulin is never known
    assert response.flags == [metrics.FLAG_MISSING_DATA, metrics.FLAG_INSULIN_UNKNOWN]


def test_iauc_ignores_area_below_baseline_and_cuts_at_the_crossing():
    # baseline 100; 0-15 dips to 80: nothing; 15-30 crosses up: 20^2 / 40 x 15 / 2 = 75;
    # 30-120 at 120: 20 x 90 = 1800
    minutes = [-5, 0, 15, 30, 120]
    values = [100, 100, 80, 120, 120]
    assert metrics.incremental_auc(minutes, values, 100.0) == pytest.approx(1875.0)


def test_iauc_interpolates_the_curve_at_0_and_120_minutes():
    # v(0) = 100 + 30 x 5/15 = 110; v(120) = 130 - 30 x 110/115 = 101.3043...
    # 0-10: (10 + 30) / 2 x 10 = 200; 10-120: (30 + 1.3043) / 2 x 110 = 1721.739...
    area = metrics.incremental_auc([-5, 10, 125], [100, 130, 100], 100.0)
    assert area == pytest.approx(200 + (30 + (30 - 30 * 110 / 115)) / 2 * 110)
    assert area == pytest.approx(1921.739, abs=1e-3)


def test_a_meal_without_readings_before_it_has_no_numbers_only_flags():
    response = metrics.meal_response([5, 10, 15], [120, 130, 140], other_meal=True)
    assert response.baseline_mg_dl is None and response.iauc_2h is None
    assert response.flags == [metrics.FLAG_OTHER_MEAL, metrics.FLAG_MISSING_DATA,
                              metrics.FLAG_INSULIN_UNKNOWN]


def test_a_complete_5_minute_curve_is_not_missing_data():
    minutes = list(range(-30, 181, 5))
    response = metrics.meal_response(minutes, [110.0] * len(minutes))
    assert response.flags == [metrics.FLAG_INSULIN_UNKNOWN]
    assert (response.rise_mg_dl, response.iauc_2h, response.minutes_to_peak) == (0.0, 0.0, 5.0)


def constructed_day() -> list[float]:
    """288 five-minute readings: 14 at 50, 14 at 60, 202 at 120, 29 at 200, 29 at 300."""
    return [50.0] * 14 + [60.0] * 14 + [120.0] * 202 + [200.0] * 29 + [300.0] * 29


def test_time_in_ranges_mean_gmi_and_cv_on_a_constructed_14_day_series():
    values = constructed_day() * 14
    report = metrics.consensus_metrics(values, [5 * i for i in range(len(values))],
                                       period_minutes=14 * 24 * 60, interval_minutes=5)
    # 14/288 = 4.86 %, 202/288 = 70.14 %, 29/288 = 10.07 %
    assert [report[k] for k in metrics.RANGE_KEYS] == [4.9, 4.9, 70.1, 10.1, 10.1]
    # mean = (14x50 + 14x60 + 202x120 + 29x200 + 29x300) / 288 = 40280 / 288 = 139.861
    assert report["mean_mg_dl"] == 139.9
    # GMI = 3.31 + 0.02392 x 139.861 = 6.655
    assert report["gmi_percent"] == 6.7
    # sum of squared deviations over 4032 readings = 15,828,3xx; / 4031 -> SD 62.66; CV 44.8 %
    assert report["sd_mg_dl"] == 62.7 and report["cv_percent"] == 44.8
    assert report["active_percent"] == 100.0 and report["readings"] == 4032


def test_range_boundaries_follow_the_consensus():
    assert [metrics.range_key(v) for v in (53.9, 54, 69.9, 70, 180, 181, 250, 251)] == [
        "time_below_54", "time_54_69", "time_54_69", "time_in_range", "time_in_range",
        "time_181_250", "time_181_250", "time_above_250"]


def test_mmol_readings_count_by_the_consensus_boundaries_in_mmol():
    """3.9-10.0 mmol/L is in range and 10.1-13.9 level-1 high (Battelino 2019), read as the
    importer stores them (converted to mg/dL): 10.0 is 180.2 mg/dL, 13.9 is 250.4."""
    from db.glucose.formats import glucose_mg_dl

    keys = {mmol: metrics.range_key(glucose_mg_dl(mmol, "mmol/L", None)[0])
            for mmol in ("2.9", "3.0", "3.8", "3.9", "10.0", "10.1", "13.9", "14.0")}
    assert keys == {"2.9": "time_below_54", "3.0": "time_54_69", "3.8": "time_54_69", "3.9": "time_in_range",
                    "10.0": "time_in_range", "10.1": "time_181_250", "13.9": "time_181_250",
                    "14.0": "time_above_250"}
    # One person's day, exported in both units by the device (mmol/L to one decimal): the same
    # time in ranges.
    mg_dl = [65, 72, 120, 175, 180, 190, 240, 250, 260, 300]
    mmol = [glucose_mg_dl(f"{v / 18.016:.1f}", "mmol/L", None)[0] for v in mg_dl]
    both = [metrics.consensus_metrics(values, [5 * i for i in range(10)], period_minutes=50, interval_minutes=5)
            for values in (mg_dl, mmol)]
    assert {k: both[0][k] for k in metrics.RANGE_KEYS} == {k: both[1][k] for k in metrics.RANGE_KEYS}


def test_active_percent_and_sampling_interval():
    assert metrics.sampling_interval_minutes([0, 15, 30, 45, 50]) == 15.0
    half = metrics.consensus_metrics([100.0] * 2016, [5 * i for i in range(2016)], period_minutes=14 * 24 * 60,
                                     interval_minutes=5)
    assert half["active_percent"] == 50.0
    empty = metrics.consensus_metrics([], [], period_minutes=60, interval_minutes=5)
    assert empty["mean_mg_dl"] is None and empty["active_percent"] == 0.0


def test_two_devices_seconds_apart_are_one_series_of_time_with_data():
    """A receiver and a phone both recording one sensor, 40 s apart: twice the readings, the
    same 5-minute interval and the same time with data as one of them (not a 1-minute interval
    and a third of the time)."""
    one = [5.0 * i for i in range(2016)]  # 7 of 14 days, every 5 minutes
    both = sorted(one + [t + 40 / 60 for t in one])
    assert metrics.sampling_interval_minutes(both) == metrics.sampling_interval_minutes(one) == 5.0
    period = 14 * 24 * 60
    alone = metrics.consensus_metrics([120.0] * len(one), one, period_minutes=period, interval_minutes=5)
    merged = metrics.consensus_metrics([120.0] * len(both), both, period_minutes=period, interval_minutes=5)
    assert alone["active_percent"] == merged["active_percent"] == 50.0
    # A 1-minute stream is covered minute by minute; a gap only for the interval after its last reading.
    stream = [float(m) for m in range(600)] + [float(m) for m in range(900, 1200)]
    assert metrics.covered_minutes(stream, 5.0) == 599 + 5 + 299 + 5


def test_agp_percentiles_match_numpy_slot_by_slot():
    rng = np.random.default_rng(32)
    minute_of_day = rng.uniform(0, 24 * 60, 5000)
    values = rng.normal(140, 40, 5000).clip(40, 400)
    profile = metrics.agp_profile(minute_of_day, values)
    assert len(profile["minute"]) == 96 and profile["minute"][1] == 15
    for slot in range(96):
        inside = values[(minute_of_day >= slot * 15) & (minute_of_day < slot * 15 + 15)]
        expected = np.percentile(inside, [5, 25, 50, 75, 95])
        got = [profile[f"p{p}"][slot] for p in (5, 25, 50, 75, 95)]
        assert got == pytest.approx(expected, abs=0.05)


def test_agp_slot_without_readings_is_none():
    profile = metrics.agp_profile([10.0, 20.0], [100.0, 200.0])
    assert profile["p50"][0] == 100.0 and profile["p50"][1] == 200.0 and profile["p50"][2] is None


def meal(food, carbs, rise, iauc, flags=()):
    return {"main_food": food, "main_share": 1.0, "carbohydrate_g": carbs,
            "response": metrics.MealResponse(100.0, 100.0 + rise, rise, 45.0, iauc,
                                             [*flags, metrics.FLAG_INSULIN_UNKNOWN])}


def test_per_food_needs_the_minimum_of_clean_meals_and_ranks_by_iauc_per_10g():
    meals = [meal("Rice", 40, 60, 4000), meal("Rice", 40, 80, 4800), meal("Rice", 20, 40, 2200),
             meal("Lentils", 40, 20, 1200), meal("Lentils", 40, 24, 1600), meal("Lentils", 40, 16, 800),
             meal("Toast", 30, 50, 3000), meal("Toast", 30, 50, 3000),
             meal("Toast", 30, 50, 3000, [metrics.FLAG_OTHER_MEAL])]  # Toast: 2 clean meals
    ranked = metrics.per_food(meals)
    assert [r["food"] for r in ranked] == ["Rice", "Lentils"]
    rice = ranked[0]
    # iAUC per 10 g: 1000, 1200, 1100 -> mean 1100, SD 100; rise per 10 g: 15, 20, 20
    assert (rice["meals"], rice["iauc_per_10g"], rice["iauc_per_10g_sd"], rice["rise_per_10g"]) == (
        3, 1100.0, 100.0, 18.3)
    assert ranked[1]["iauc_per_10g"] == 300.0


def test_glycemia_risk_index_and_its_zones():
    """Klonoff 2023: GRI = 3.0 x VLow + 2.4 x Low + 1.6 x VHigh + 0.8 x High, at most 100."""
    ranges = {"time_below_54": 1.0, "time_54_69": 3.0, "time_in_range": 70.0, "time_181_250": 20.0,
              "time_above_250": 6.0}
    assert metrics.gri(ranges) == pytest.approx(3.0 + 7.2 + 9.6 + 16.0)  # 35.8
    assert [metrics.gri_zone(v) for v in (0, 20, 20.1, 35.8, 60, 80.5, 100)] == ["A", "A", "B", "B", "C", "E", "E"]
    assert metrics.gri({**ranges, "time_below_54": 40.0}) == 100.0
    report = metrics.consensus_metrics([50.0, 60.0, 120.0, 200.0, 300.0], [0, 5, 10, 15, 20], period_minutes=25,
                                       interval_minutes=5)
    # 20% in each of the five ranges: 3.0 x 20 + 2.4 x 20 + 1.6 x 20 + 0.8 x 20 = 156 -> 100
    assert (report["gri"], report["gri_zone"]) == (100.0, "E")


def test_too_little_data_is_said():
    assert metrics.data_warning(14, 92.0) is None
    assert metrics.data_warning(9, 61.6) == ("Too little data: 9 days (the consensus asks for 14) and 61.6% time "
                                             "with data (at least 70%).")


def test_agp_curves_are_smoothed_round_midnight_by_the_stated_weights():
    """Each slot becomes the 1-2-3-2-1 weighted mean of itself and two neighbours either side,
    taken round midnight; a neighbour without readings is left out, a slot without them stays
    empty; the percentiles keep their order."""
    slots = 24 * 60 // metrics.AGP_SLOT_MINUTES
    profile = {"minute": [s * metrics.AGP_SLOT_MINUTES for s in range(slots)]}
    for offset, p in zip((-20, -10, 0, 10, 20), metrics.AGP_PERCENTILES):
        curve = [100.0 + offset] * slots
        curve[0] = 190.0 + offset  # 00:00-00:15 high
        curve[10] = None  # 02:30-02:45 without readings
        profile[f"p{p}"] = curve
    smooth = metrics.smooth_profile(profile)
    p50 = smooth["p50"]
    assert p50[0] == 130.0  # (100 + 2 x 100 + 3 x 190 + 2 x 100 + 100) / 9
    assert p50[slots - 1] == 120.0  # 23:45: (100 + 2 x 100 + 3 x 100 + 2 x 190 + 100) / 9, round midnight
    assert p50[2] == 110.0  # (190 + 2 x 100 + 3 x 100 + 2 x 100 + 100) / 9
    assert p50[3] == 100.0 and p50[50] == 100.0
    assert p50[10] is None and p50[11] == 100.0  # 02:45: weights 1 + 3 + 2 + 1 over 7 slots' 100s
    assert smooth["minute"] == profile["minute"]
    for slot in range(slots):
        if p50[slot] is not None:
            values = [smooth[f"p{p}"][slot] for p in metrics.AGP_PERCENTILES]
            assert values == sorted(values)


def test_daily_profiles_are_the_last_14_days_by_time_of_day():
    """A 20-day period gives its last 14 days, each with its own readings by minute of the day
    (seconds kept) and an empty list for a day without readings."""
    from datetime import date, datetime, timedelta

    first, last = date(2026, 11, 11), date(2026, 11, 30)
    times = [datetime(2026, 11, 11, 0, 2, 30) + timedelta(hours=6 * n) for n in range(20 * 4)]
    times = [t for t in times if t.date() != date(2026, 11, 20)]  # a day without readings
    days = metrics.daily_profiles(times, [100.0 + n for n in range(len(times))], first, last)
    assert [d["date"] for d in days] == [(date(2026, 11, 17) + timedelta(days=n)).isoformat() for n in range(14)]
    assert days[3] == {"date": "2026-11-20", "readings": []}
    assert [m for m, _ in days[0]["readings"]] == [2.5, 362.5, 722.5, 1082.5]
    assert days[0]["readings"][0][1] == 100.0 + 6 * 4  # the 25th reading, the first of 17 November
    assert len(metrics.daily_profiles(times[:4], [1.0] * 4, first, first)) == 1  # a 1-day period: its day
