"""App pieces that need neither a server nor a model: config rules, parsing, views, photos."""

import io
import json
from datetime import date, datetime, timedelta

import pytest
from app_support import animated_gif, bad_inputs, jpeg_bytes

from app.meals import read_photo
from app.model_catalog import read_accuracy
from app.config import AppConfig, ConfigError, is_loopback
from app.ui.common import parse_when
from app.ui.settings import SettingsTab
from app.ui.today import parse_day
from app import views
from models.errors import FoodtagError, ImageError


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_need_no_accounts(host):
    assert is_loopback(host)
    AppConfig(host=host)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "myhost.example"])
def test_public_host_without_accounts_is_refused(host):
    with pytest.raises(ConfigError, match="without accounts"):
        AppConfig(host=host)
    AppConfig(host=host, accounts=True)


def test_env_config(monkeypatch):
    monkeypatch.setenv("FOODTAG_PORT", "8123")
    monkeypatch.setenv("FOODTAG_HOST", "localhost")
    config = AppConfig.from_env(port=9000)
    assert (config.host, config.port) == ("localhost", 9000)
    monkeypatch.setenv("FOODTAG_PORT", "eighty")
    with pytest.raises(ConfigError, match="FOODTAG_PORT"):
        AppConfig.from_env()


def test_model_poll_interval_from_env_and_its_range(monkeypatch):
    assert AppConfig().model_poll_seconds == 5.0
    monkeypatch.setenv("FOODTAG_MODEL_POLL_SECONDS", "2.5")
    assert AppConfig.from_env().model_poll_seconds == 2.5
    monkeypatch.setenv("FOODTAG_MODEL_POLL_SECONDS", "soon")
    with pytest.raises(ConfigError, match="FOODTAG_MODEL_POLL_SECONDS"):
        AppConfig.from_env()
    for bad in (0.0, -1.0, 7200.0):
        with pytest.raises(ConfigError, match="model poll interval"):
            AppConfig(model_poll_seconds=bad)


def test_first_start_region_from_flag_or_env(monkeypatch):
    assert AppConfig().region == "US"
    monkeypatch.setenv("FOODTAG_REGION", "uk")
    assert AppConfig.from_env().region == "UK"
    assert AppConfig.from_env(region="DE").region == "DE"  # the flag wins
    monkeypatch.setenv("FOODTAG_REGION", "FR")
    with pytest.raises(ConfigError, match="region must be one of US, UK, DE, got 'FR'"):
        AppConfig.from_env()


def test_model_flag_must_be_an_onnx_file(tmp_path):
    with pytest.raises(ConfigError, match="not an existing .onnx"):
        AppConfig(models=[tmp_path / "missing.onnx"])


def test_parse_when():
    now = datetime.now()
    assert abs(parse_when("now") - now) < timedelta(seconds=5)
    assert parse_when("2024-03-01 12:30") == datetime(2024, 3, 1, 12, 30)
    assert parse_when("07:45", today=date(2024, 3, 1)) == datetime(2024, 3, 1, 7, 45)
    with pytest.raises(FoodtagError, match="not understood"):
        parse_when("yesterday-ish")
    with pytest.raises(FoodtagError, match="future"):
        parse_when((now + timedelta(days=3)).strftime("%Y-%m-%d %H:%M"))
    assert parse_day("2024-03-01") == date(2024, 3, 1)
    with pytest.raises(FoodtagError, match="YYYY-MM-DD"):
        parse_day("March")
    for text in ("0001-01-01", "9999-12-31"):
        with pytest.raises(FoodtagError, match="outside the years"):
            parse_day(text)
    with pytest.raises(FoodtagError, match="outside the years"):
        parse_when("0001-01-01 12:00")


def test_the_page_and_batch_read_meal_times_by_one_rule():
    """db.validate.meal_time behind the time box and the batch eaten_at cell: the same texts
    accepted, the same ones refused with the same message."""
    from app.batch.errors import RowError
    from app.batch.rows import parse_eaten_at

    ahead = (datetime.now() + timedelta(days=3)).strftime("%Y-%m-%d %H:%M")
    for text in ("2024-05-01", "2024-05-01 12:30", "2024-05-01T12:30:00"):
        assert parse_when(text) == parse_eaten_at(text) == datetime.fromisoformat(text)
    for text, words in ((ahead, "more than a day in the future"), ("yesterday-ish", "not understood"),
                        ("0001-01-01 12:00", "outside the years")):
        with pytest.raises(FoodtagError, match=words) as page:
            parse_when(text)
        with pytest.raises(RowError, match=words) as row:
            parse_eaten_at(text)
        assert str(row.value).split(" ", 1)[1] == str(page.value).split(" ", 1)[1]  # the field name differs
    assert parse_eaten_at("") is None


@pytest.mark.parametrize("exc, status", [
    ("UploadTooLarge", 413), ("ImageError", 400), ("UnknownFood", 404), ("NotFound", 404), ("UnknownUser", 404),
    ("UserExists", 409), ("ModelError", 503), ("InvalidValue", 422), ("InvalidPortion", 422), ("FoodtagError", 422),
    ("DishError", 422),
])
def test_one_http_status_per_domain_error(exc, status):
    from app import dishes, errors
    from db import errors as db_errors
    from models import errors as model_errors

    kind = next(getattr(m, exc) for m in (errors, db_errors, model_errors, dishes) if hasattr(m, exc))
    assert errors.http_status(kind("x")) == status
    response = errors.error_response(kind("no such thing"))
    assert response.status_code == status and json.loads(response.body) == {"error": "no such thing"}


def test_grams_or_a_serving_is_one_rule():
    from db import validate
    from db.errors import InvalidPortion

    assert validate.portion(" 150 ", "  ") == (150.0, None)
    assert validate.portion("", " 1 cup ") == (None, "1 cup")
    assert validate.portion(None, None) == (None, None)
    with pytest.raises(InvalidPortion, match="grams or a serving, not both"):
        validate.portion("50", "1 cup")


def test_read_photo_bad_inputs(coffee_image):
    for name, (file_name, data, words) in bad_inputs(coffee_image).items():
        with pytest.raises(ImageError) as info:
            read_photo(data, file_name)
        message = str(info.value)
        assert words.lower() in message.lower(), (name, message)
        assert file_name in message and "\n" not in message


def test_avif_is_not_mistaken_for_heic(coffee_image):
    from PIL import features

    if not features.check("avif"):
        pytest.skip("this Pillow has no AVIF codec")
    out = io.BytesIO()
    coffee_image.save(out, format="AVIF")
    assert read_photo(out.getvalue(), "cup.avif").image.size == coffee_image.size


def test_animated_gif_uses_first_frame_and_says_so(coffee_image):
    photo = read_photo(animated_gif(coffee_image), "loop.gif")
    assert photo.image.mode == "RGB" and photo.image.size == (224, 168)
    # Frame 0 is the coffee photo, not frame 1's solid blue.
    assert photo.image.getpixel((112, 84)) != (0, 0, 255)
    assert any("first frame" in note for note in photo.notes)
    assert read_photo(jpeg_bytes(coffee_image), "cup.jpg").notes == ()


def test_read_accuracy(tmp_path):
    report = tmp_path / "m.report.json"
    report.write_text(json.dumps({"top1": 0.835, "top5": 0.97}))  # as `distill eval --json` writes
    assert read_accuracy(report) == pytest.approx(0.835)
    report.write_text(json.dumps({"top1": 83.5}))  # not a fraction: refused, not guessed
    assert read_accuracy(report) is None
    report.write_text(json.dumps([0.8]))
    assert read_accuracy(report) is None
    report.write_text("{not json")
    assert read_accuracy(report) is None


CARD = {
    "food": "Cheese pizza", "food_id": 1, "category": "Mixed dishes",
    "source": {"dataset": "FNDDS", "fdc_id": 2705433, "code": "58106230",
               "description": "Pizza, cheese, from restaurant or fast food, medium crust", "proxy_note": None},
    "per_100g": {"kcal": 266.0, "carbohydrate_g": 33.0, "available_carbohydrate_g": 30.7, "sugars_g": 3.6,
                 "fiber_g": 2.3, "protein_g": 11.4, "fat_g": 9.7, "saturated_fat_g": 4.4, "sodium_mg": 598.0},
    "portion": {"grams": 107.0, "serving": "1 slice", "kcal": 284.6, "carbohydrate_g": 35.3,
                "available_carbohydrate_g": 32.8, "sugars_g": 3.9, "fiber_g": 2.5, "protein_g": 12.2,
                "fat_g": 10.4, "saturated_fat_g": 4.7, "sodium_mg": None},
    "servings": [{"name": "1 slice", "grams": 107.0, "default": True}],
    "glycemic_index": {"value": 80, "citation": "Atkinson 2008",
                       "source": "Atkinson 2008, Table A1 row 123: Pizza, cheese; the pooled row"},
    "glycemic_load": {"value": 26.3, "band": "high"},
    "exchanges": {"unit_g": 15.0, "value": 2.2, "as_taught": 2.0, "unit": "US carbohydrate choice",
                  "basis": "total carbohydrate, minus half the fiber when over 5 g"},
}


def test_card_markdown_shows_every_part():
    text = views.card_markdown(CARD)
    # US choices to the nearest half, as taught, the exact value beside them.
    for needle in ("Cheese pizza", "1 slice (107 g)", "2 x US carbohydrate choice (exact 2.2; 1 = 15 g",
                   "counted from total carbohydrate, minus half the fiber", "Available carbohydrate",
                   "32.8 g", "Sodium | n/a", "26.3 (high)", "USDA FNDDS 2021-2023, FDC ID 2705433, food code 58106230",
                   "Pizza, cheese, from restaurant"):
        assert needle in text, needle
    # A short citation on the card; the full provenance behind a click.
    assert "**GI 80**, Atkinson 2008" in text
    assert text.index("<details><summary>How this GI was chosen</summary>") < text.index(
        "Table A1 row 123")
    proxied = {**CARD, "source": {**CARD["source"], "proxy_note": "closest USDA dish & more"},
               "glycemic_index": None, "glycemic_load": None}
    text = views.card_markdown(proxied)
    assert "not in our GI table" in text and "no published value" not in text
    assert "Stand-in entry" in text
    assert "<summary>What stands in, and what it leaves out</summary>\n\nclosest USDA dish &amp; more" in text


def test_card_headline_says_the_carbohydrate_first_in_the_users_unit():
    """One basis and one rounding on a line: US choices count total carbohydrate and show the
    count as taught (to the half) with the exact one beside it, as the card's detail does; BE, KE
    and the UK CP count available carbohydrate, so the grams beside them are available (32.8 g /
    12 = 2.7 BE, where 35.3 g total / 12 would say 2.9)."""
    assert views.card_headline(CARD) == (
        "## 35.3 g carbs, 2 choices\n\n**Cheese pizza**, 1 slice (107 g) · exact 2.2 choices")
    be = {**CARD, "exchanges": {**CARD["exchanges"], "unit_g": 12.0, "value": 2.7, "as_taught": 2.7}}
    assert views.card_headline(be).startswith("## 32.8 g carbs, 2.7 BE")
    cp = {**CARD, "exchanges": {**CARD["exchanges"], "unit_g": 10.0, "value": 3.3, "as_taught": 3.3}}
    assert views.card_headline(cp).startswith("## 32.8 g carbs, 3.3 KE / CP")
    assert views.carbs_headline(42.1, 4.2, 10.0) == "42.1 g carbs, 4.2 KE / CP"
    assert views.carbs_headline(14.4, 1.0, 15.0) == "14.4 g carbs, 1 choice"  # not "1 choices"
    assert views.carbs_headline(14.4, 1.0, 12.0) == "14.4 g carbs, 1 BE"
    # an exact count that reads as the one taught is not said twice
    assert views.carbs_headline(14.4, 0.96, 15.0, as_taught=1.0) == "14.4 g carbs, 1 choice"


def test_entry_labels_tell_equal_looking_meals_apart():
    entry = {"id": 7, "eaten_at": "2024-03-02T06:54:00", "meal_type": "breakfast", "food": "Burrito",
             "grams": 180.0, "serving": None, "carbohydrate_g": 42.14}
    labels = [label for label, _id in views.entry_choices([entry, {**entry, "id": 8}])]
    assert labels == ["#7 06:54 breakfast: Burrito, 180 g, 42.1 g carbohydrate",
                      "#8 06:54 breakfast: Burrito, 180 g, 42.1 g carbohydrate"]


def test_picked_headline_names_the_pick_and_the_models_guess():
    analysis = {"predictions": [{"food": "Eggnog", "name": "eggnog", "probability": 0.16}]}
    assert views.picked_markdown(analysis, "Bibimbap") == "**You picked Bibimbap** (the model guessed eggnog, 16%)."
    assert "eggnog" not in views.picked_markdown(None, "Bibimbap")


def test_card_source_line_for_sr_legacy_own_foods_and_recipes():
    sr = {"dataset": "SR Legacy", "fdc_id": None, "code": "09003", "description": "Apples, raw"}
    assert views.source_text(sr) == "USDA SR Legacy, NDB 09003"
    assert views.source_text({**sr, "dataset": "Own food"}) == "your own food, from its label"
    assert views.source_text({**sr, "dataset": "Recipe"}).startswith("your recipe")


def test_meal_chart_has_a_bar_for_every_day():
    entries = [{"eaten_at": "2024-03-02T08:00:00", "meal_type": "breakfast", "carbohydrate_g": 40.0, "food": "Oatmeal"}]
    frame = views.meal_carbs_frame(entries, date(2024, 3, 1), date(2024, 3, 3))
    assert list(frame["day"]) == ["2024-03-01", "2024-03-02", "2024-03-03"]
    assert frame.loc[1, "carbohydrate (g)"] == 40.0
    # The legend names meals only; an empty day's bar says so in its tooltip.
    assert set(frame["meal"]) == {"breakfast"}
    assert list(frame["food"]) == ["nothing logged", "Oatmeal", "nothing logged"]
    assert set(views.meal_carbs_frame([], date(2024, 3, 1), date(2024, 3, 2))["meal"]) <= set(views.MEAL_TYPES)


def test_meal_for_time():
    assert [views.meal_for_time(datetime(2024, 1, 1, h)) for h in (7, 12, 16, 19, 23)] == [
        "breakfast", "lunch", "snack", "dinner", "snack"]


def test_totals_table_against_targets():
    summary = {
        "totals": {"kcal": 1500.0, "carbohydrate_g": 137.5, "available_carbohydrate_g": 120.0, "glycemic_load": 61.2,
                   "exchanges": 8.0},
        "targets": {"daily_kcal_target": 2000.0, "daily_carb_target_g": 275.0, "exchange_unit_g": 15.0},
    }
    rows = {r[0]: r[1:] for r in views.totals_table(summary).values.tolist()}
    assert rows["Energy"] == ["1,500 kcal", "2,000 kcal", "75%"]
    assert rows["Carbohydrate"] == ["137.5 g", "275 g", "50%"]
    assert rows["Carbohydrate exchanges (15 g)"][0] == "8"
    assert rows["Glycemic load (foods with a GI)"][0] == "61.2"


@pytest.mark.parametrize("region, unit, expected", [
    ("DE", "15", "12"),  # BE, Germany's default
    ("DE", "10", "10"),  # KE is taught there too: kept
    ("UK", "12", "10"),  # the 10 g carbohydrate portion
    ("US", "10", "15"),
    (None, "12", "12"),  # nothing picked: the unit stays
])
def test_picking_a_region_offers_its_unit(region, unit, expected):
    assert SettingsTab.unit_for_region(region, unit) == expected


def test_the_log_confirmation_reads_as_the_headline():
    """Stored values on the headline's basis and rounding: UK CP from available carbohydrate,
    US choices to the half with the exact count beside it."""
    entry = {"carbohydrate_g": 35.7, "available_carbohydrate_g": 33.2, "fiber_g": 2.5}
    assert views.logged_carbs(entry, 10.0) == "33.2 g carbohydrate, 3.3 KE / CP"
    assert views.logged_carbs(entry, 15.0) == "35.7 g carbohydrate, 2.5 choices (exact 2.4)"
