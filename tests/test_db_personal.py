"""Own foods, recipes, favourites and recent foods: hand-summed values, privacy, export."""

import csv
import io
from datetime import datetime

import pytest
from db_support import (  # noqa: F401  (fixtures)
    alice, db_url)

from db import personal, repo, service
from db.errors import InvalidValue, UnknownFood, UserExists
from db.session import session_scope

NOON = datetime(2024, 5, 1, 12, 0)


def test_recipe_per_serving_is_the_hand_sum(alice):
    made = personal.create_recipe(alice, "Banana pizza", [("banana", 118), ("pizza", 107)],
                                  servings=2)
    # Hand sums (test seed per 100 g: banana 89 kcal, 22.84 g carbohydrate, 2.6 g fiber,
    # 1.09 g protein, 0.33 g fat, 1 mg sodium; cheese pizza 266, 33.0, 2.3, 11.4, 9.7, 598):
    # kcal 89*1.18 + 266*1.07 = 105.02 + 284.62 = 389.64 -> 194.82 per serving of 2.
    expected = {
        "kcal": (105.02 + 284.62) / 2,
        "carbohydrate_g": (26.9512 + 35.31) / 2,
        "fiber_g": (3.068 + 2.461) / 2,
        "available_carbohydrate_g": (26.9512 + 35.31 - 3.068 - 2.461) / 2,
        "protein_g": (1.2862 + 12.198) / 2,
        "fat_g": (0.3894 + 10.379) / 2,
        "sodium_mg": (1.18 + 639.86) / 2,
    }
    assert made["total_grams"] == 225.0
    for field, value in expected.items():
        assert made["per_serving"][field] == pytest.approx(value), field
    # Logged like any food: the default serving is one of the two servings (112.5 g).
    entry = service.log_meal(alice, "Banana pizza", eaten_at=NOON)
    assert entry["grams"] == 112.5 and entry["serving"] == "1 serving"
    assert entry["kcal"] == 194.8 and entry["carbohydrate_g"] == 31.1
    assert entry["ingredients"] == "2 servings: 118 g Banana; 107 g Cheese pizza"
    card = service.lookup("banana pizza", user=alice)
    assert card["source"]["dataset"] == "Recipe" and card["portion"]["kcal"] == 194.8


def test_a_recipe_weighed_after_cooking_is_counted_per_cooked_gram(alice):
    """Pasta takes up water: 236 g of banana and pizza (hand sum above: 62.26 g carbohydrate
    in 225 g) cooked to 450 g. A 150 g portion weighed off the plate is a third of the dish:
    20.75 g carbohydrate, not the 41.5 g the raw weights would give."""
    made = personal.create_recipe(alice, "Banana pizza bake", [("banana", 118), ("pizza", 107)],
                                  servings=3, cooked_grams=450)
    assert (made["total_grams"], made["dish_grams"]) == (225.0, 450.0)
    assert made["per_serving"]["carbohydrate_g"] == pytest.approx((26.9512 + 35.31) / 3)
    card = service.lookup("banana pizza bake", user=alice)
    assert card["per_100g"]["carbohydrate_g"] == round((26.9512 + 35.31) / 4.5, 3)
    assert card["portion"]["serving"] == "1 serving" and card["portion"]["grams"] == 150.0
    assert {s["name"]: s["grams"] for s in card["servings"]} == {"1 serving": 150.0,
                                                                  "whole recipe": 450.0}
    weighed = service.log_meal(alice, "Banana pizza bake", grams=150, eaten_at=NOON)
    assert weighed["carbohydrate_g"] == round((26.9512 + 35.31) / 3, 1)  # 20.8
    assert weighed["ingredients"] == "3 servings of 450 g cooked: 118 g Banana; 107 g Cheese pizza"
    [listed] = [f for f in personal.own_foods(alice) if f["food"] == "Banana pizza bake"]
    assert listed["cooked_grams"] == 450.0
    # Not weighed: the raw total stands for the dish, as before.
    plain = personal.create_recipe(alice, "Banana bowl", [("banana", 200)], servings=2)
    assert plain["dish_grams"] == 200.0
    assert [f["cooked_grams"] for f in personal.own_foods(alice) if f["food"] == "Banana bowl"] == [None]


@pytest.mark.parametrize("cooked, message", [
    (0, "cooked_grams must be between 1 and 500000"),
    (-5, "cooked_grams must be between 1 and 500000"),
    (20, "less than the 24 g of carbohydrate, protein and fat"),  # banana: 24.26 g solids
    (1001, "more than 10 times the ingredients' 100 g"),
    ("lots", "cooked_grams must be a number"),
    (float("nan"), "cooked_grams"),
])
def test_an_impossible_cooked_weight_is_refused(alice, cooked, message):
    with pytest.raises(InvalidValue, match=message):
        personal.create_recipe(alice, "Stew", [("banana", 100)], servings=1, cooked_grams=cooked)
    assert personal.own_foods(alice) == []


def test_an_unknown_ingredient_value_leaves_the_recipe_value_unknown(alice):
    made = personal.create_recipe(alice, "Brulee and banana", [("creme brulee", 110),
                                                              ("banana", 118)], servings=1)
    assert made["per_serving"]["fiber_g"] is None  # USDA has no fiber value for one of them
    assert made["per_serving"]["available_carbohydrate_g"] == made["per_serving"][
        "carbohydrate_g"]  # so all carbohydrate counts: never under-reported


def test_own_food_from_a_label_per_serving(alice):
    personal.create_own_food(alice, "Muesli bar", {"kcal": 120, "carbohydrate_g": 20,
                                                   "fiber_g": 3, "protein_g": 2, "fat_g": 4},
                             serving_grams=30, serving_name="1 bar", per_serving=True)
    card = service.lookup("muesli bar", user=alice)
    assert card["per_100g"]["kcal"] == 400.0 and card["per_100g"]["fat_g"] == 13.333
    assert card["portion"]["serving"] == "1 bar" and card["portion"]["kcal"] == 120.0
    assert card["source"]["dataset"] == "Own food"
    hits = service.search("muesli", user=alice)
    assert hits[0]["food"] == "Muesli bar" and hits[0]["own"]


@pytest.mark.parametrize("nutrients, message", [
    ({"kcal": 100, "carbohydrate_g": 10, "protein_g": 1}, "fat_g is required"),
    ({"kcal": 100, "carbohydrate_g": 10, "protein_g": 1, "fat_g": -1}, "fat_g"),
    ({"kcal": 100, "carbohydrate_g": 80, "protein_g": 20, "fat_g": 10}, "per 100 g"),
    ({"kcal": 100, "carbohydrate_g": 5, "fiber_g": 6, "protein_g": 1, "fat_g": 1}, "fiber_g"),
    ({"kcal": 100, "carbohydrate_g": 5, "protein_g": 1, "fat_g": 1, "alcohol": 3}, "unknown"),
])
def test_bad_labels_are_refused(alice, nutrients, message):
    with pytest.raises(InvalidValue, match=message):
        personal.create_own_food(alice, "Bad", nutrients)
    assert personal.own_foods(alice) == []


@pytest.mark.parametrize("grams", [0.5, 5001, float("nan"), float("inf"), "lots", True])
def test_portion_grams_follow_the_one_rule(alice, grams):
    """Own foods' serving grams and recipe ingredients use db.validate like every portion."""
    with pytest.raises(InvalidValue, match="grams must be"):
        personal.create_own_food(alice, "Bar", {"kcal": 100, "carbohydrate_g": 10,
                                                "protein_g": 1, "fat_g": 1}, serving_grams=grams)
    with pytest.raises(InvalidValue, match="grams must be"):
        personal.create_recipe(alice, "Stew", [("banana", grams)], servings=1)
    assert personal.own_foods(alice) == []


def test_errors_echo_only_a_short_prefix(alice):
    long = "9" * 10_000
    for call in (lambda: personal.create_recipe(alice, "Stew", [("banana", long)], servings=1),
                 lambda: personal.create_recipe(alice, "Stew", [[long] * 3], servings=1),
                 lambda: personal.create_own_food(alice, "Bar", {"kcal": long, "carbohydrate_g": 1,
                                                                 "protein_g": 1, "fat_g": 1})):
        with pytest.raises(InvalidValue) as refused:
            call()
        assert len(str(refused.value)) < 200


def test_own_foods_are_private(alice):
    service.create_user("bob")
    personal.create_recipe(alice, "Secret stew", [("banana", 100)], servings=1)
    with pytest.raises(UnknownFood):
        service.lookup("secret stew", user="bob")
    with pytest.raises(UnknownFood):
        service.lookup("secret stew")
    with pytest.raises(UnknownFood):
        service.log_meal("bob", "secret stew")
    assert service.search("secret stew", user="bob") == [] or all(
        not hit["own"] and hit["food"] != "Secret stew"
        for hit in service.search("secret stew", user="bob"))
    with pytest.raises(UnknownFood):
        personal.create_recipe("bob", "Copy", [("secret stew", 100)], servings=1)
    with pytest.raises(UnknownFood):
        personal.delete_own_food("bob", "secret stew")
    # Bob may have his own food of the same name.
    personal.create_own_food("bob", "Secret stew", {"kcal": 50, "carbohydrate_g": 5,
                                                   "protein_g": 1, "fat_g": 1})
    assert service.lookup("secret stew", user="bob")["source"]["dataset"] == "Own food"
    assert service.lookup("secret stew", user=alice)["source"]["dataset"] == "Recipe"
    with pytest.raises(InvalidValue, match="already have"):
        personal.create_recipe(alice, "secret STEW", [("banana", 100)], servings=1)


LABEL = {"kcal": 50, "carbohydrate_g": 5, "protein_g": 1, "fat_g": 1}


def test_typo_correction_never_draws_on_another_users_words(alice):
    """Correcting Alice's typo towards a word only Bob's own food has would tell her that his
    food exists; his own typos still find it."""
    from db import fts, repo
    from db.session import session_scope

    service.create_user("bob")
    personal.create_own_food("bob", "Zorblax stew", LABEL)
    assert [hit["food"] for hit in service.search("zorblex", user="bob")] == ["Zorblax stew"]
    assert service.search("zorblex", user=alice) == []
    with session_scope() as session:
        bob, me = (repo.get_user(name, session=session).id for name in ("bob", alice))
        assert "zorblax" in fts.vocabulary(session, bob)
        assert "zorblax" not in fts.vocabulary(session, me) and "zorblax" not in fts.vocabulary(session)
        assert "banana" in fts.vocabulary(session, me)  # the public words stay


def test_another_users_many_own_foods_do_not_crowd_out_public_ones(alice, monkeypatch):
    from db import fts

    service.create_user("bob")
    for i in range(4):
        personal.create_own_food("bob", f"Banana banana banana {i}", LABEL)
    monkeypatch.setattr(fts, "MAX_CANDIDATES", 3)  # fewer places than Bob has foods
    assert "Banana" in [hit["food"] for hit in service.search("banana", user=alice)]
    assert "Banana" in [hit["food"] for hit in service.search("banana")]


def test_another_users_own_foods_do_not_change_which_public_foods_a_search_keeps(
        alice, monkeypatch):
    """FTS5's bm25 weighs a word by how many indexed rows hold it: were Bob's own foods in the
    index, adding "banana" foods would make "pizza" the rarer word, and Alice's search would
    keep a different public food when only one place is left."""
    from db import fts, repo
    from db.session import session_scope

    monkeypatch.setattr(fts, "MAX_CANDIDATES", 1)
    service.create_user("bob")

    def kept() -> list[str]:
        with session_scope(write=False) as session:
            me = repo.get_user(alice, session=session).id
            rows = fts.candidates(session, [[["banana"], ["pizza"]]], owner_id=me, category=None,
                                  all_words=False)
            return [row.name for row in rows]

    before = kept()
    assert len(before) == 1
    for word in ("Banana", "Pizza"):
        for i in range(6):
            personal.create_own_food("bob", f"{word} {word} {i}", LABEL)
        assert kept() == before


def test_own_foods_are_found_by_whole_words_and_word_starts(alice, db_url):
    """Own foods stay out of SQLite's search index (see above) yet match there as indexed
    foods do: a query word starts a word of the food, it is not found inside one. (PostgreSQL
    has no index: its LIKE query finds words inside words for every food.)"""
    personal.create_own_food(alice, "Zorblax stew", LABEL)
    personal.create_own_food(alice, "Rice pudding", LABEL)
    assert [hit["food"] for hit in service.search("zorb", user=alice)] == ["Zorblax stew"]
    if db_url.startswith("sqlite"):
        assert service.search("blax", user=alice) == []
    assert [hit["food"] for hit in service.search("rice pud", user=alice)] == ["Rice pudding"]
    personal.delete_own_food(alice, "zorblax stew")
    assert service.search("zorblax", user=alice) == []


def test_export_names_the_recipe_ingredients(alice):
    personal.create_recipe(alice, "Fruit salad", [("banana", 200)], servings=4)
    service.log_meal(alice, "fruit salad", eaten_at=NOON)
    out = io.StringIO()
    service.export_log_csv(alice, out)
    row = next(csv.DictReader(io.StringIO(out.getvalue())))
    assert row["food"] == "Fruit salad" and row["grams"] == "50.0"
    assert row["ingredients"] == "4 servings: 200 g Banana"


def test_favourites_then_recent_foods(alice):
    service.log_meal(alice, "banana", eaten_at=NOON)
    service.log_meal(alice, "espresso", eaten_at=NOON.replace(hour=13))
    assert [f["food"] for f in personal.recent_foods(alice)] == ["Espresso", "Banana"]
    personal.add_favourite(alice, "pizza")
    personal.add_favourite(alice, "pizza")  # twice is once
    assert [f["food"] for f in personal.recent_foods(alice)] == ["Cheese pizza", "Espresso",
                                                                 "Banana"]
    personal.remove_favourite(alice, "pizza")
    assert [f["food"] for f in personal.recent_foods(alice, limit=1)] == ["Espresso"]


def test_recent_foods_have_the_shape_of_search_hits(alice):
    """GET /api/foods without a query lists these; with one, search hits: one shape."""
    service.log_meal(alice, "banana", eaten_at=NOON)
    personal.add_favourite(alice, "espresso")
    favourite, recent = personal.recent_foods(alice)
    hit = next(h for h in service.search("banana", user=alice) if h["food"] == "Banana")
    assert recent == {**hit, "score": None} and recent["recent"] and not recent["favourite"]
    # 118 g x 22.84 g/100 g: the default serving's carbohydrate, as the search shows it.
    assert recent["portion"] == {"serving": '1 medium (7" to 7-7/8" long)', "grams": 118.0,
                                 "carbohydrate_g": 27.0, "available_carbohydrate_g": 23.9,
                                 "amount": None}
    assert favourite["food"] == "Espresso" and favourite["favourite"] and not favourite["recent"]
    assert set(favourite) == set(hit) and favourite["portion"]["grams"] is not None


def test_deleting_an_own_food_in_use_is_refused(alice):
    personal.create_own_food(alice, "Oat cookie", {"kcal": 450, "carbohydrate_g": 60,
                                                   "protein_g": 6, "fat_g": 20})
    entry = service.log_meal(alice, "oat cookie", grams=30, eaten_at=NOON)
    with pytest.raises(InvalidValue, match="used by"):
        personal.delete_own_food(alice, "oat cookie")
    service.delete_meal(alice, entry["id"])
    personal.delete_own_food(alice, "oat cookie")
    assert personal.own_foods(alice) == []


def test_photo_correction_is_stored_and_exported(alice):
    digest = "ab" * 32
    entry = service.log_meal(alice, "banana", eaten_at=NOON, predicted_label="pizza",
                             confidence=0.41, photo_sha256=digest.upper(), is_correction=True)
    assert entry["photo_sha256"] == digest and entry["is_correction"] is True
    out = io.StringIO()
    service.export_log_csv(alice, out)
    row = next(csv.DictReader(io.StringIO(out.getvalue())))
    assert (row["predicted_label"], row["food"], row["is_correction"], row["photo_sha256"]) == (
        "pizza", "Banana", "True", digest)
    with pytest.raises(InvalidValue, match="SHA-256"):
        service.log_meal(alice, "banana", photo_sha256="not-a-hash")


@pytest.mark.parametrize("name", [
    "\u200b",  # zero-width space alone
    "\u200f\u200d\u202e",  # bidi marks and a joiner: nothing visible
    "Muesli\u200bbar",  # a visible name with an invisible character inside
    "Bar\u202egnp.exe",  # a right-to-left override
    "Bar\u0378",  # unassigned
    "Bar\u2028two lines",
])
def test_invisible_and_unassigned_characters_are_refused_in_names(alice, name):
    label = {"kcal": 100, "carbohydrate_g": 10, "protein_g": 1, "fat_g": 1}
    with pytest.raises(InvalidValue, match="invisible, control or unassigned|is empty"):
        personal.create_own_food(alice, name, label)
    with pytest.raises(InvalidValue, match="invisible, control or unassigned|is empty"):
        personal.create_recipe(alice, name, [("banana", 100)], servings=1)
    with pytest.raises(InvalidValue, match="invisible, control or unassigned|is empty"):
        service.create_user(name, None)
    assert personal.own_foods(alice) == []


def test_names_are_stored_nfc_and_compared_after_normalisation(alice):
    label = {"kcal": 100, "carbohydrate_g": 10, "protein_g": 1, "fat_g": 1}
    decomposed = "  Cre\u0300me bru\u0302le\u0301e "  # e + combining accents, as some keyboards send it
    assert personal.create_own_food(alice, decomposed, label)["food"] == "Crème brûlée"
    with pytest.raises(InvalidValue, match="already have a food called"):
        personal.create_own_food(alice, "Crème brûlée", label)  # the same name, precomposed
    with pytest.raises(InvalidValue, match="already have a food called"):
        personal.create_recipe(alice, "crème  BRÛLÉE", [("banana", 100)], servings=1)
    service.create_user("Zoe\u0308", None)
    with pytest.raises(UserExists):
        service.create_user("Zoë", None)
    with session_scope(write=False) as session:
        assert repo.find_user("Zoë", session=session).name == "Zoë"  # stored precomposed (NFC)
    assert [f["food"] for f in personal.own_foods(alice)] == ["Crème brûlée"]
