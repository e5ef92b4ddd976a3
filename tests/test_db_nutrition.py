"""db.nutrition: portion maths, available carbohydrate, glycemic load bands, exchanges,
checked against values worked out by hand."""

import math
from datetime import date, datetime

import pytest

from db import nutrition, validate
from db.errors import InvalidPortion, InvalidValue

# Bananas, raw (SR Legacy 09040), per 100 g.
BANANA = {"kcal": 89.0, "carbohydrate_g": 22.84, "sugars_g": 12.23, "fiber_g": 2.6,
          "protein_g": 1.09, "fat_g": 0.33, "saturated_fat_g": 0.112, "sodium_mg": 1.0}


def test_portion_scales_every_nutrient_and_adds_available_carbohydrate():
    portion = nutrition.for_portion(BANANA, 118)  # one medium banana
    assert list(portion) == list(nutrition.NUTRIENTS)
    assert portion["kcal"] == pytest.approx(105.02)  # 89 * 1.18
    assert portion["carbohydrate_g"] == pytest.approx(26.9512)
    assert portion["fiber_g"] == pytest.approx(3.068)
    assert portion["available_carbohydrate_g"] == pytest.approx(23.8832)  # 26.9512 - 3.068
    assert portion["sodium_mg"] == pytest.approx(1.18)


def test_missing_values_stay_missing():
    portion = nutrition.for_portion({**BANANA, "sugars_g": None, "sodium_mg": None}, 50)
    assert portion["sugars_g"] is None and portion["sodium_mg"] is None
    assert portion["kcal"] == pytest.approx(44.5)


@pytest.mark.parametrize("carbs, fiber, expected", [
    (22.84, 2.6, 20.24),
    (10.0, None, 10.0),   # no fiber value: all carbohydrate counts
    (None, 2.0, None),    # no carbohydrate value: nothing to derive
    (1.0, 1.5, 0.0),      # fiber above carbs (analytical noise) never goes negative
])
def test_available_carbohydrate(carbs, fiber, expected):
    result = nutrition.available_carbohydrate(carbs, fiber)
    assert result == (None if expected is None else pytest.approx(expected))


def test_glycemic_load_is_gi_times_available_carbs_over_100():
    assert nutrition.glycemic_load(51, 23.8832) == pytest.approx(12.180432)
    assert nutrition.glycemic_load(None, 23.8) is None  # no published GI: no GL
    assert nutrition.glycemic_load(51, None) is None


@pytest.mark.parametrize("gl, band", [
    (0.0, "low"), (7.5, "low"), (10.0, "low"),
    (10.04, "low"),     # shown as 10.0
    (10.06, "medium"),  # shown as 10.1: above 10 is never "low"
    (10.5, "medium"), (11.0, "medium"), (19.0, "medium"), (19.94, "medium"),
    (19.96, "high"),    # shown as 20.0
    (20.0, "high"), (42.0, "high"),
])
def test_gl_bands(gl, band):
    assert nutrition.gl_band(gl) == band


# Hand-computed: one medium banana (118 g of SR Legacy 09040: 22.84 g carbohydrate and 2.6 g
# fiber per 100 g) has 26.9512 g carbohydrate and 3.068 g fiber, so 23.8832 g available.
BANANA_118G = (26.9512, 3.068)
# A high-fiber portion (over 5 g): 40 g carbohydrate, 8 g fiber -> US counts 40 - 8/2 = 36 g.
HIGH_FIBER = (40.0, 8.0)
# Exactly 5 g fiber is not "more than 5 g": US counts all 30 g.
FIVE_G_FIBER = (30.0, 5.0)


@pytest.mark.parametrize("portion, unit, expected", [
    (BANANA_118G, "us_choice", 26.9512 / 15),   # 1.797: total carbohydrate, fiber under 5 g
    (BANANA_118G, "be", 23.8832 / 12),          # 1.990: available carbohydrate
    (BANANA_118G, "ke", 23.8832 / 10),          # 2.388
    (BANANA_118G, "uk_cp", 23.8832 / 10),       # 2.388
    (HIGH_FIBER, "us_choice", 36.0 / 15),  # 2.4: minus half the fiber
    (HIGH_FIBER, "be", 32.0 / 12),         # 2.667
    (HIGH_FIBER, "ke", 3.2),
    (HIGH_FIBER, "uk_cp", 3.2),
    (FIVE_G_FIBER, "us_choice", 2.0),
    (FIVE_G_FIBER, "be", 25.0 / 12),
    ((20.0, None), "us_choice", 20.0 / 15),  # fiber unknown: all of it counts
    ((20.0, None), "uk_cp", 2.0),
])
def test_carb_units_each_with_its_own_basis(portion, unit, expected):
    assert nutrition.exchanges(*portion, unit) == pytest.approx(expected)


@pytest.mark.parametrize("setting, key", [(15, "us_choice"), (12, "be"), (10, "ke")])
def test_exchange_setting_picks_the_convention(setting, key):
    assert nutrition.carb_unit(setting).key == key
    assert nutrition.exchanges(*HIGH_FIBER, setting) == nutrition.exchanges(*HIGH_FIBER, key)


def test_exchanges_reject_other_units():
    with pytest.raises(InvalidValue, match="15, 12, 10"):
        nutrition.exchanges(20.0, None, 11)
    with pytest.raises(InvalidValue):
        nutrition.exchanges(20.0, None, True)
    with pytest.raises(InvalidValue):
        nutrition.exchanges(20.0, None, "uk")
    assert nutrition.exchanges(None, 2.0, 15) is None


# The list (5e-324, -1, nan, inf, 1e308, "abc") and the edges around 1 g and 5 kg.
@pytest.mark.parametrize("grams", [5e-324, 0, -1, 0.99, 5000.01, 1e308, math.nan, math.inf, -math.inf,
                                   "abc", "nan", "inf", "1e308", "5e-324", "", None, True, [100],
                                   "1_000", "1e2", "\u0661\u0662", "0x10", "1,5"])
def test_bad_grams_are_rejected(grams):
    """Text is a plain decimal (ASCII digits, a dot): not Python's "1_000", "1e2" or other scripts' digits."""
    with pytest.raises(InvalidPortion, match="grams must be"):
        validate.grams(grams)


def test_grams_limits_are_inclusive_and_text_is_parsed():
    assert validate.grams(5000) == 5000.0
    assert validate.grams(1) == 1.0
    assert validate.grams(" 12.5 ") == 12.5 and validate.grams("150.") == 150.0 and validate.grams("+2") == 2.0
    assert validate.optional_grams("  ") is None and validate.optional_grams(None) is None


def test_error_messages_echo_only_a_short_prefix():
    with pytest.raises(InvalidPortion) as info:
        validate.grams("x" * 10_000)
    assert len(str(info.value)) < 120 and "..." in str(info.value)


@pytest.mark.parametrize("value", [date(1, 1, 1), date(9999, 12, 31), datetime(1899, 12, 31, 23, 59)])
def test_dates_outside_1900_to_2100_are_refused(value):
    with pytest.raises(InvalidValue, match="outside the years 1900-2100"):
        validate.day(value) if not isinstance(value, datetime) else validate.moment("eaten_at", value)


def test_scaling_never_produces_nan_or_inf():
    with pytest.raises(InvalidValue, match="not be finite"):
        nutrition.scale({"kcal": 0.0}, math.inf)
    with pytest.raises(InvalidValue, match="not be finite"):
        nutrition.scale({"kcal": 1e308}, 1e10)


def test_energy_consistency_rule():
    assert nutrition.energy_estimate(22.84, 1.09, 0.33) == pytest.approx(98.69)
    assert nutrition.energy_consistent(89, 22.84, 1.09, 0.33)  # banana: 9.8 % under
    assert not nutrition.energy_consistent(85, 2.61, 0.07, 0.0)  # red wine: alcohol
    assert nutrition.energy_consistent(2, 0.0, 0.1, 0.0)  # tiny values: 2 kcal slack
    assert not nutrition.energy_consistent(120, 10, 10, 0)  # 80 estimated: 50 % over


def test_totals_skip_missing_values():
    rows = [{"kcal": 100.0, "sodium_mg": None}, {"kcal": 50.5, "sodium_mg": None}]
    assert nutrition.totals(rows, ("kcal", "sodium_mg")) == {"kcal": 150.5, "sodium_mg": None}
    assert nutrition.totals([], ("kcal",)) == {"kcal": None}
