"""The My foods tab: the person's own foods, entered from a label, and recipes built from
foods; list and delete. Thin handlers over db.personal."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pandas as pd

from app import views
from app.errors import shown_errors
from app.ui.common import AppContext, NumberField
from db import personal, service
from db.nutrition import NUTRIENT_LABELS, STORED_NUTRIENTS
from models.errors import FoodtagError

PER_100G, PER_SERVING = "per 100 g", "per serving"
# The recipe's ingredient rows: plain text boxes (a Dataframe's new cell swallowed the first key
# typed into it: "oats" became "ats"), the first few shown, one more per "Add an ingredient".
INGREDIENT_ROWS, SHOWN_ROWS = 15, 3


def _ingredient_rows(rows) -> list[tuple[str, object]]:
    """The recipe table's rows -> (food, grams) pairs; blank rows are skipped, half-filled ones
    refused (grams are checked by db.validate in db.personal)."""
    values = rows.values.tolist() if isinstance(rows, pd.DataFrame) else list(rows or [])
    pairs = []
    for number, row in enumerate(values, 1):
        food, grams = (list(row) + ["", ""])[:2]
        food = "" if food is None else str(food).strip()
        grams = "" if grams is None or (isinstance(grams, float) and grams != grams) else grams
        if not food and str(grams).strip() == "":
            continue
        if not food:
            raise FoodtagError(f"Ingredient row {number} has grams but no food name.")
        pairs.append((food, grams))
    if not pairs:
        raise FoodtagError("Add at least one ingredient: a food name and its grams.")
    return pairs


class MyFoodsTab:
    """One method per event; ``c`` holds the components, made by build()."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.c = SimpleNamespace()

    def my_foods(self, request: gr.Request):
        """The user's own foods and recipes, and the delete picker."""
        with shown_errors():
            foods = personal.own_foods(self.ctx.user(request))
        return {self.c.my_table: views.own_foods_table(foods),
                self.c.my_pick: gr.update(choices=[f["food"] for f in foods], value=None)}

    def add_own_food(self, name: str | None, basis: str | None, serving_name: str | None,
                     serving_grams: float | None, kcal: float | None, carbohydrate: float | None,
                     sugars: float | None, fiber: float | None, protein: float | None,
                     fat: float | None, saturated_fat: float | None, sodium: float | None,
                     request: gr.Request):
        """A food from its label: values (STORED_NUTRIENTS, in that order) per 100 g, or per
        serving of ``serving_grams``."""
        values = dict(zip(STORED_NUTRIENTS, (kcal, carbohydrate, sugars, fiber, protein, fat,
                                             saturated_fat, sodium), strict=True))
        with shown_errors():
            user = self.ctx.user(request)
            made = personal.create_own_food(
                user, name or "", {k: v for k, v in values.items() if v is not None},
                serving_grams=serving_grams, serving_name=(serving_name or "").strip() or "1 serving",
                per_serving=basis == PER_SERVING)
        return {self.c.my_status: f"Saved **{made['food']}**: search for it in the Analyse tab to log it.",
                **self.my_foods(request)}

    def add_recipe(self, name: str | None, servings: float | None, rows, cooked_grams: float | None,
                   request: gr.Request):
        """A recipe from (food, grams) rows, weighed after cooking or not; shows one serving's
        nutrients."""
        with shown_errors():
            user = self.ctx.user(request)
            ingredients = _ingredient_rows(rows)
            if servings is None:
                raise FoodtagError("Enter the number of servings the recipe makes.")
            made = personal.create_recipe(user, name or "", ingredients, servings,
                                          cooked_grams=cooked_grams or None)
        return {self.c.my_status: views.recipe_markdown(made, float(servings)), **self.my_foods(request)}

    def save_recipe(self, name: str | None, servings: float | None, cooked_grams: float | None,
                    request: gr.Request, *cells: str | None):
        """The page's Save recipe: ``cells`` are the rows' food names, then their grams. A refused
        recipe says why beside the form, and the list of foods stays as it was."""
        foods, grams = cells[:INGREDIENT_ROWS], cells[INGREDIENT_ROWS:]
        try:
            return self.add_recipe(name, servings, list(zip(foods, grams, strict=True)), cooked_grams, request)
        except gr.Error as exc:
            return {self.c.my_status: f"❌ **Recipe not saved:** {exc.message}"}

    def add_recipe_api(self, name: str, servings: float, rows: list[list], cooked_grams: float | None,
                       request: gr.Request) -> tuple[str, list[list[str]]]:
        """POST /gradio_api/call/add_recipe: ``rows`` as [[food, grams], ...]; answers the saved
        recipe's card and the person's foods and recipes (name, kind, servings, ingredients)."""
        made = self.add_recipe(name, servings, rows, cooked_grams, request)
        return made[self.c.my_status], made[self.c.my_table].values.tolist()

    def more_ingredient_rows(self, shown: int):
        """One more ingredient row on screen."""
        shown = min(int(shown or SHOWN_ROWS) + 1, INGREDIENT_ROWS)
        return {self.c.shown_rows: shown, **{row: gr.update(visible=i < shown) for i, row in enumerate(self.c.rows)},
                self.c.more_rows_btn: gr.update(interactive=shown < INGREDIENT_ROWS)}

    def delete_own_food(self, food: str | None, request: gr.Request):
        with shown_errors():
            if not food:
                raise FoodtagError("Pick one of your foods first.")
            personal.delete_own_food(self.ctx.user(request), food)
        return {self.c.my_status: f"Deleted {food}.", **self.my_foods(request)}

    def open_pack_form(self, food: str | None, request: gr.Request):
        """A search entry for glucose tablets or gel was picked (in the Analyse tab): this tab,
        its label form filled in with the name and the serving, waiting for the pack's figures."""
        with shown_errors():
            entry = service.pack_entry(food, user=self.ctx.user(request)) if food else None
        if entry is None:
            return gr.skip()
        c = self.c
        return {c.tabs: gr.Tabs(selected="my-foods"), c.own_name: entry["food"], c.own_basis: PER_SERVING,
                c.own_serving_name: entry["serving"],
                c.my_status: f"Enter {entry['asks']}, and the weight of one, then Save food."}

    def build(self, page: gr.Blocks, tabs: gr.Tabs) -> None:
        """The tab's layout and its own events; ``tabs`` is the page's, which open_pack_form
        switches to this tab (the page wires that event)."""
        c = self.c
        c.tabs = tabs
        with gr.Tab("My foods", id="my-foods"):
            with gr.Accordion("Add a food from its label", open=True):
                with gr.Row():
                    c.own_name = gr.Textbox(label="Name", scale=2)
                    c.own_basis = gr.Radio(label="The label's values are", choices=[PER_100G, PER_SERVING],
                                           value=PER_100G, scale=2)
                    c.own_serving_name = gr.Textbox(label="Serving name", placeholder="1 bar")
                    # No minimum here: an empty box below it was drawn red before anything was
                    # typed; db.personal refuses grams out of range with a message.
                    c.own_serving_grams = NumberField(label="Serving grams")
                with gr.Row():
                    c.own_values = [NumberField(label=f"{label} ({unit})", minimum=0)
                                    for label, unit in map(NUTRIENT_LABELS.get, STORED_NUTRIENTS)]
                c.add_food_btn = gr.Button("Save food", variant="primary")
            with gr.Accordion("Build a recipe", open=True):
                with gr.Row():
                    c.recipe_name = gr.Textbox(label="Recipe name", scale=2)
                    c.recipe_servings = NumberField(label="Servings it makes", value=1, minimum=0)
                c.recipe_cooked = NumberField(label="Weight after cooking (g), if weighed: portions "
                                                  "weighed off the plate then count right", minimum=0)
                gr.Markdown("Ingredients: a food's name (as found by search) and its grams.")
                c.rows, c.row_foods, c.row_grams = [], [], []
                for i in range(INGREDIENT_ROWS):
                    with gr.Row(visible=i < SHOWN_ROWS) as row:
                        c.row_foods.append(gr.Textbox(label=f"Ingredient {i + 1}", scale=3, min_width=160,
                                                      elem_classes="ingredient-food"))
                        c.row_grams.append(gr.Textbox(label="grams", scale=1, min_width=90,
                                                      elem_classes="ingredient-grams"))
                    c.rows.append(row)
                c.shown_rows = gr.State(SHOWN_ROWS)
                with gr.Row():
                    c.more_rows_btn = gr.Button("+ Add an ingredient", scale=0, min_width=180)
                    c.add_recipe_btn = gr.Button("Save recipe", variant="primary")
            c.my_status = gr.Markdown(elem_id="my-foods-status")
            c.my_table = gr.Dataframe(label="Your foods and recipes", interactive=False)
            with gr.Row():
                c.my_pick = gr.Dropdown(label="Food or recipe", choices=[], interactive=True)
                c.delete_food_btn = gr.Button("Delete it", variant="stop")

        changed = [c.my_status, c.my_table, c.my_pick]
        c.add_food_btn.click(self.add_own_food, [c.own_name, c.own_basis, c.own_serving_name, c.own_serving_grams,
                                                 *c.own_values], changed, api_name="add_own_food")
        c.add_recipe_btn.click(self.save_recipe, [c.recipe_name, c.recipe_servings, c.recipe_cooked, *c.row_foods,
                                                  *c.row_grams], changed, api_visibility="private")
        gr.api(self.add_recipe_api, api_name="add_recipe")
        c.more_rows_btn.click(self.more_ingredient_rows, [c.shown_rows], [c.shown_rows, *c.rows, c.more_rows_btn],
                              queue=False, api_visibility="private")
        c.delete_food_btn.click(self.delete_own_food, [c.my_pick], changed, api_name="delete_own_food")
        page.load(self.my_foods, None, [c.my_table, c.my_pick], api_name="my_foods")
