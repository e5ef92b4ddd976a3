"""The My foods tab: own foods from a label, recipes, list and delete, through the UI handler
functions and through gradio_client against a live server; each user sees only their own."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest
from app_support import seeded_server
from gradio_client import Client

from app.ui import build_page
from app.ui.my_foods import PER_100G, PER_SERVING
from db import personal, service

PASSWORDS = {"carol": "carol-pass-123", "dave": "dave-pass-456"}
# 30 g bar: 20 g carbohydrate per bar -> 66.67 g per 100 g.
BAR = ("Muesli bar", PER_SERVING, "1 bar", 30, 120, 20, 8, 3, 2, 4, None, None)


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path):
    with seeded_server(tmp_path_factory.mktemp("app-myfoods"), PASSWORDS, accounts=True) as live:
        yield live


@pytest.fixture(scope="module")
def page(server):
    return build_page(server.app.ctx)


@pytest.fixture(scope="module")
def handlers(page):
    """The My foods tab's handlers."""
    return page.my_foods


CAROL, DAVE = SimpleNamespace(username="carol"), SimpleNamespace(username="dave")


def shown(handlers, outputs: dict) -> tuple:
    """(status, table, picker) as the My foods tab shows them after a handler."""
    c = handlers.c
    return outputs[c.my_status], outputs[c.my_table], outputs[c.my_pick]


def test_food_recipe_list_and_delete_through_the_handlers(handlers):
    status, table, picker = shown(handlers, handlers.add_own_food(*BAR, CAROL))
    assert "Saved **Muesli bar**" in status and picker["choices"] == ["Muesli bar"]
    status, table, picker = shown(handlers, handlers.add_recipe(
        "Banana bar bowl", 2, [["banana", 118], ["Muesli bar", "60"], ["", None]], None, CAROL))
    # Hand sum: 118 g banana x 22.84 g/100 g = 26.95 g; 60 g bar = 2 bars = 40 g; / 2 servings.
    assert "| Carbohydrate | 33.5 g |" in status and "2 servings of 89 g" in status
    [recipe] = [f for f in personal.own_foods("carol") if f["food"] == "Banana bar bowl"]
    assert [(i["food"], i["grams"]) for i in recipe["ingredients"]] == [("Banana", 118.0), ("Muesli bar", 60.0)]
    rows = table.set_index("food").to_dict("index")
    assert rows["Banana bar bowl"]["ingredients"] == "118 g Banana; 60 g Muesli bar"
    assert rows["Muesli bar"]["kind"] == "own food"
    # A food a recipe uses cannot be deleted; the recipe can, then the food.
    with pytest.raises(gr.Error, match="used by meal entries or recipes"):
        handlers.delete_own_food("Muesli bar", CAROL)
    status, table, picker = shown(handlers, handlers.delete_own_food("Banana bar bowl", CAROL))
    assert status == "Deleted Banana bar bowl." and picker["choices"] == ["Muesli bar"]
    handlers.delete_own_food("Muesli bar", CAROL)
    assert handlers.my_foods(CAROL)[handlers.c.my_table].empty


def test_recipe_weighed_after_cooking_through_the_handlers(handlers):
    # 100 g of banana cooked down to 50 g: 22.84 g carbohydrate in 50 g, 45.68 g per 100 g.
    status, _table, _picker = shown(handlers, handlers.add_recipe("Banana jam", 1, [["banana", 100]], 50, CAROL))
    assert "50 g cooked (from 100 g of ingredients) in all" in status
    assert "| Carbohydrate | 22.8 g |" in status
    with pytest.raises(gr.Error, match="less than the"):
        handlers.add_recipe("Banana dust", 1, [["banana", 100]], 10, CAROL)
    handlers.delete_own_food("Banana jam", CAROL)


def test_the_label_form_takes_every_stored_nutrient(handlers):
    # Per 100 g, in STORED_NUTRIENTS order: kcal, carbohydrate, sugars, fiber, protein, fat,
    # saturated fat, sodium.
    handlers.add_own_food("Salted nuts", PER_100G, "", None, 600, 20, 4, 9, 20, 50, 7.5, 400, CAROL)
    per_100g = service.lookup("Salted nuts", 100, user="carol")["portion"]
    assert (per_100g["saturated_fat_g"], per_100g["sodium_mg"], per_100g["fiber_g"]) == (7.5, 400, 9)
    handlers.delete_own_food("Salted nuts", CAROL)


def test_bad_inputs_get_a_clear_message(handlers):
    label = (120, 20, 8, 3, 2, 4, None, None)
    cases = [
        (lambda: handlers.add_own_food("  ", PER_100G, "", None, *label, CAROL), "name is empty"),
        (lambda: handlers.add_own_food("Bar", PER_SERVING, "", None, *label, CAROL), "need serving_grams"),
        (lambda: handlers.add_own_food("Bar", PER_SERVING, "", 0.5, *label, CAROL), "grams must be from 1"),
        (lambda: handlers.add_own_food("Bar", PER_100G, "", None, None, 20, 8, 3, 2, 4, None, None, CAROL), "kcal is required"),
        (lambda: handlers.add_own_food("Bar", PER_100G, "", None, 120, 20, 8, 30, 2, 4, None, None, CAROL),
         "fiber_g is more than carbohydrate_g"),
        (lambda: handlers.add_recipe("Soup", 2, [["banana", 0.5]], None, CAROL), "grams must be from 1"),
        (lambda: handlers.add_recipe("Soup", 2, [["banana", "lots"]], None, CAROL), "grams must be a number"),
        (lambda: handlers.add_recipe("Soup", 2, [["no such food xyz", 100]], None, CAROL), "unknown food"),
        (lambda: handlers.add_recipe("Soup", 2, [["", 100]], None, CAROL), "row 1 has grams but no food"),
        (lambda: handlers.add_recipe("Soup", 2, [["", None]], None, CAROL), "at least one ingredient"),
        (lambda: handlers.add_recipe("Soup", None, [["banana", 100]], None, CAROL), "number of servings"),
        (lambda: handlers.add_recipe("Soup", 0, [["banana", 100]], None, CAROL), "servings must be more than 0"),
        (lambda: handlers.add_recipe("", 1, [["banana", 100]], None, CAROL), "name is empty"),
        (lambda: handlers.delete_own_food(None, CAROL), "Pick one of your foods"),
        (lambda: handlers.delete_own_food("Banana", CAROL), "no own food"),  # not theirs to delete
    ]
    for call, message in cases:
        with pytest.raises(gr.Error, match=message):
            call()
    assert personal.own_foods("carol") == []  # nothing half-saved


def test_user_b_never_sees_uses_or_deletes_user_a_foods(handlers):
    handlers.add_own_food("Carol crackers", PER_100G, "", None, 450, 60, 2, 5, 10, 18, None, None, CAROL)
    listed = handlers.my_foods(DAVE)
    table, picker = listed[handlers.c.my_table], listed[handlers.c.my_pick]
    assert table.empty and picker["choices"] == []
    with pytest.raises(gr.Error, match="no own food"):
        handlers.delete_own_food("Carol crackers", DAVE)
    with pytest.raises(gr.Error, match="unknown food"):
        handlers.add_recipe("Copy", 1, [["Carol crackers", 50]], None, DAVE)
    # Same name for dave is his own, separate food.
    handlers.add_own_food("Carol crackers", PER_100G, "", None, 100, 10, 1, 1, 1, 1, None, None, DAVE)
    handlers.delete_own_food("Carol crackers", DAVE)
    assert [f["food"] for f in personal.own_foods("carol")] == ["Carol crackers"]
    handlers.delete_own_food("Carol crackers", CAROL)


def test_my_foods_through_gradio_client(server):
    carol = Client(server.url, auth=("carol", PASSWORDS["carol"]), verbose=False)
    dave = Client(server.url, auth=("dave", PASSWORDS["dave"]), verbose=False)
    status, table, _picker = carol.predict(*BAR, api_name="/add_own_food")
    assert "Saved **Muesli bar**" in status and table["data"][0][0] == "Muesli bar"
    rows = [["Banana", 118], ["Muesli bar", 60]]
    status, table = carol.predict("Bar and banana", 2, rows, None, api_name="/add_recipe")
    assert "| Carbohydrate | 33.5 g |" in status
    assert ["Bar and banana", "recipe", "2", "118 g Banana; 60 g Muesli bar"] in table
    with pytest.raises(Exception, match="unknown food"):
        carol.predict("Bad", 1, [["zzz qqq", 10]], None, api_name="/add_recipe")
    with pytest.raises(Exception, match="grams must be from 1"):
        carol.predict("Bad", 1, [["Banana", 0.5]], None, api_name="/add_recipe")
    # Dave's list is empty, and he can neither delete nor build on Carol's foods.
    table, _picker = dave.predict(api_name="/my_foods")
    assert "Muesli bar" not in str(table)
    with pytest.raises(Exception, match="no own food|not in the list of choices"):
        dave.predict("Bar and banana", api_name="/delete_own_food")
    with pytest.raises(Exception, match="unknown food"):
        dave.predict("Copy", 1, [["Muesli bar", 10]], None, api_name="/add_recipe")
    # Carol lists, then deletes her recipe.
    carol.predict(api_name="/my_foods")
    status, table, _picker = carol.predict("Bar and banana", api_name="/delete_own_food")
    assert status == "Deleted Bar and banana." and [r[0] for r in table["data"]] == ["Muesli bar"]


def test_glucose_tablets_are_entered_from_the_pack_never_guessed(handlers, page):
    # The search answers with an entry that asks for the pack's figure (db.hypo); picking it
    # shows where to enter it, with no card and Log off, and fills in the label form.
    a = page.analyse.c
    [entry] = page.analyse.search_foods("glucose tablets", None, CAROL)[a.search_hits]["choices"]
    picked = page.analyse.choose_food({}, entry[1], CAROL)
    state, headline, card, log = picked[a.state], picked[a.headline], picked[a.card], picked[a.log_btn]
    assert state["food"] is None and card == "" and log["interactive"] is False
    assert "no food table lists them" in headline and "one tablet (g), from the pack" in headline
    c = handlers.c
    opened = handlers.open_pack_form(entry[1], CAROL)
    tab, name, basis, serving, status = (opened[c.tabs], opened[c.own_name], opened[c.own_basis],
                                         opened[c.own_serving_name], opened[c.my_status])
    assert (tab.selected, name, basis, serving) == ("my-foods", "Glucose tablets", PER_SERVING, "1 tablet")
    assert "carbohydrate in one tablet" in status
    assert handlers.open_pack_form("Banana", CAROL) == gr.skip()
    # Saved from the pack (4 g carbohydrate in a 4.2 g tablet), the search finds carol's own
    # tablets first, and they are logged at her figure; dave still gets the pack entry alone.
    handlers.add_own_food(name, basis, serving, 4.2, 15, 4, 4, 0, 0, 0, 0, 0, CAROL)
    hits = service.search("glucose tablets", user="carol")
    assert [h["food"] for h in hits] == ["Glucose tablets", entry[1]] and hits[0]["own"]
    assert hits[0]["portion"] == {"serving": "1 tablet", "grams": 4.2, "carbohydrate_g": 4.0,
                                  "available_carbohydrate_g": 4.0, "amount": None}
    assert handlers.open_pack_form("glucose tablets", CAROL) == gr.skip()
    assert page.analyse.choose_food({}, "Glucose tablets", CAROL)[a.card] != ""
    assert [h["food_id"] for h in service.search("glucose tablets", user="dave")] == [None]
    handlers.delete_own_food("Glucose tablets", CAROL)


def test_an_amount_the_search_read_opens_the_card_at_its_grams(page):
    # "two slices of toast" lists toast at 2 x 1 slice; the hit's value carries the grams
    # (app/ui/analyse.py _hit_value), and the card opens with them as typed grams, shown in the
    # grams box, so Log logs what the list showed. A client's grams are checked like typed ones.
    from app.ui.analyse import HIT_SERVING_SEPARATOR

    a = page.analyse.c
    picked = page.analyse.choose_food({}, HIT_SERVING_SEPARATOR.join(("Banana", "", "150")), CAROL)
    assert picked[a.state]["grams"] == 150.0 and picked[a.grams]["value"] == "150"
    assert "150 g" in picked[a.card] and "34.3 g" in picked[a.card]
    with pytest.raises(gr.Error):
        page.analyse.choose_food({}, HIT_SERVING_SEPARATOR.join(("Banana", "", "1e9")), CAROL)


def test_the_search_list_shows_the_carbohydrate_the_users_unit_counts(page):
    # A banana's 118 g hold 27.0 g carbohydrate, 23.9 g of it available (2.6 g fibre per
    # 100 g): the US list says the first, a UK or German one the second, as the card does.
    a, dave = page.analyse.c, SimpleNamespace(username="dave")
    labels = {}
    for region in ("US", "UK", "DE"):
        service.update_settings("dave", region=region)
        hits = page.analyse.search_foods("banana", None, dave)[a.search_hits]["choices"]
        labels[region] = next(label for label, _value in hits if label.startswith("Banana - "))
    assert labels["US"].endswith("(118 g): 27 g carbohydrate")
    assert labels["UK"].endswith("(118 g): 23.9 g carbohydrate") and labels["DE"] == labels["UK"]
    service.update_settings("dave", region="US")


def test_a_food_without_a_default_serving_waits_for_grams(page):
    # A CoFID or Swiss row without a cited portion (db/seed/table_portions.csv): picked, it stays
    # chosen with a note asking for grams and Log off (no error, no 100 g guess); typed grams
    # draw its card and turn Log on.
    from sqlalchemy import select

    from datetime import datetime

    from app import meals
    from db.errors import NoDefaultServing
    from db.session import session_scope
    from db.tables import Food, Serving

    a = page.analyse.c

    def set_banana_default(is_default: bool) -> None:
        with session_scope() as session:
            for serving in session.scalars(select(Serving).join(Food).where(Food.name == "Banana")):
                serving.is_default = is_default and serving.name == default_name

    with session_scope(write=False) as session:
        default_name = session.scalars(select(Food).where(Food.name == "Banana")).one().default_serving.name
    set_banana_default(False)
    try:
        picked = page.analyse.choose_food({}, "Banana", CAROL)
        state = picked[a.state]
        assert state["food"] == "Banana" and picked[a.card] == "" and picked[a.log_btn]["interactive"] is False
        assert "has no default serving" in picked[a.carb_head] and "type the grams" in picked[a.carb_head]
        typed = page.analyse.set_grams(state, "150", CAROL)
        assert typed[a.log_btn]["interactive"] is True and "150 g" in typed[a.card]
        assert "34.3 g" in typed[a.card]  # 150 g x 22.84 g carbohydrate per 100 g
        # The meal path the API, batch and CLI share refuses it without grams, logging nothing.
        every_day = (datetime(1970, 1, 1), datetime(2100, 1, 1))
        before = len(service.list_meals("carol", *every_day))
        with pytest.raises(NoDefaultServing, match="give grams"):
            meals.log("carol", meals.Draft(food="Banana"))
        assert len(service.list_meals("carol", *every_day)) == before
    finally:
        set_banana_default(True)


# Last in this file: seeded_server points the process's database at a fresh file, so the
# module's server (carol, dave) is no longer the one the handlers above read.
def test_single_user_mode_uses_the_local_user(tmp_path_factory, default_model_path):
    from app.config import LOCAL_USER

    with seeded_server(tmp_path_factory.mktemp("app-myfoods-local")) as live:
        handlers, local = build_page(live.app.ctx).my_foods, SimpleNamespace(username=None)
        handlers.add_own_food("Rye crisp", PER_100G, "", None, 370, 70, 2, 16, 10, 2, None, None, local)
        picker = handlers.my_foods(local)[handlers.c.my_pick]
        assert picker["choices"] == ["Rye crisp"]
        assert [f["food"] for f in personal.own_foods(LOCAL_USER)] == ["Rye crisp"]
