"""A person's own foods, recipes, favourites and recent foods. Like db.service, each function is
one unit of work scoped by user name; another user's foods are never read, listed or changed
(they answer as unknown).

Own food from a label: nutrients per 100 g, or per serving with the serving's grams (converted
to per 100 g, as every food is stored). Recipe: ingredients (any food the user can see, with
grams) and the number of servings; the recipe is stored per 100 g of the whole dish and gets a
default serving of 1/servings of it, so one serving's nutrients are exactly the ingredients'
sum divided by the number of servings. Cooking changes a dish's weight (pasta takes up water,
a roast loses it): with the dish's weight after cooking, its values per 100 g are of the
cooked dish, so a portion weighed off the plate is counted right.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db import arguments, fts, nutrition, repo, search, validate
from db.errors import InvalidValue, UnknownFood
from db.keys import name_key
from db.tables import NAME_MAX, FavouriteFood, Food, RecipeIngredient, Serving
from db.session import session_scope

OWN_CATEGORY = "My foods"
RECIPE_CATEGORY = "My recipes"
MAX_INGREDIENTS = 100
MAX_RECIPE_SERVINGS = 100.0
# Cooking takes up water (dry rice about 3x, dried beans about 2.5x) or loses it (a roast, a
# reduction); a cooked weight more than 10 times the ingredients' is a typing error.
MAX_COOKED_RATIO = 10.0
# Per 100 g, a label value above these is a typing error (pure fat is 900 kcal).
_LABEL_MAX = {"kcal": 900.0, "sodium_mg": 40000.0}


def _checked_name(name: object) -> str:
    return validate.name("name", name, NAME_MAX)


def _label_values(nutrients: Mapping[str, object], scale: float) -> dict[str, float | None]:
    """Per-100 g values from a label's values (times ``scale``), checked."""
    if not isinstance(nutrients, Mapping):
        raise InvalidValue("nutrients must be a mapping of nutrient name to number")
    unknown = sorted(set(nutrients) - set(nutrition.STORED_NUTRIENTS))
    if unknown:
        raise InvalidValue(f"unknown nutrients {unknown}; known: "
                           f"{list(nutrition.STORED_NUTRIENTS)}")
    values: dict[str, float | None] = {}
    for field in nutrition.STORED_NUTRIENTS:
        raw = nutrients.get(field)
        if raw is None:
            if field in nutrition.REQUIRED_NUTRIENTS:
                raise InvalidValue(f"{field} is required (the label's value; 0 if none)")
            values[field] = None
            continue
        per_100g = arguments.number(field, raw, 0.0, float("inf")) * scale
        if per_100g > _LABEL_MAX.get(field, 100.0):
            raise InvalidValue(f"{field} {validate.echo(raw)} is more than {_LABEL_MAX.get(field, 100.0):g} "
                               "per 100 g; check the label and the serving grams")
        values[field] = per_100g
    macros = sum(values[f] or 0.0 for f in ("carbohydrate_g", "protein_g", "fat_g"))
    if macros > 100.5:
        raise InvalidValue(f"carbohydrate + protein + fat is {macros:.1f} g per 100 g")
    for part in ("fiber_g", "sugars_g"):
        if (values[part] or 0.0) > (values["carbohydrate_g"] or 0.0) + 0.05:
            raise InvalidValue(f"{part} is more than carbohydrate_g")
    return values


def create_own_food(user: str, name: str, nutrients: Mapping[str, object], *,
                    serving_grams: float | None = None, serving_name: str = "1 serving",
                    per_serving: bool = False) -> dict[str, Any]:
    """A food from a label. ``per_serving``: the values are for ``serving_grams`` grams (as
    printed on many labels), else per 100 g. The default serving is ``serving_grams`` when
    given, else 100 g. Returns {"food", "food_id"}."""
    name = _checked_name(name)
    grams = validate.grams(serving_grams) if serving_grams is not None else None
    if per_serving and grams is None:
        raise InvalidValue("values per serving need serving_grams")
    values = _label_values(nutrients, 100.0 / grams if per_serving and grams else 1.0)
    serving = (arguments.text("serving_name", serving_name, 80) or "1 serving", grams) if grams \
        else ("100 g", 100.0)
    basis = f"per serving of {grams:g} g" if per_serving else "per 100 g"
    return _add_own(user, Food(
        name=name, category=OWN_CATEGORY, fdc_dataset="Own food",
        fdc_description=f"Own food from a label ({basis}), entered by the user", **values,
    ), [Serving(name=serving[0], grams=serving[1], is_default=True, source="from the label")])


def create_recipe(user: str, name: str, ingredients: Sequence[tuple[str, float]],
                  servings: float, *, cooked_grams: float | None = None) -> dict[str, Any]:
    """A recipe from (food, grams) ingredients making ``servings`` servings; ``cooked_grams``:
    the dish's weight after cooking (None: the ingredients' total). Returns {"food",
    "food_id", "per_serving": NUTRIENTS of one serving, "total_grams" (the ingredients'),
    "dish_grams" (the dish's)}."""
    name = _checked_name(name)
    count = arguments.number("servings", servings, 0.0, MAX_RECIPE_SERVINGS)
    if count <= 0:
        raise InvalidValue("servings must be more than 0")
    cooked = None if cooked_grams is None else arguments.number(
        "cooked_grams", cooked_grams, validate.MIN_PORTION_G, MAX_INGREDIENTS * validate.MAX_PORTION_G)
    if not isinstance(ingredients, Sequence) or isinstance(ingredients, str) or not ingredients:
        raise InvalidValue("a recipe needs at least one (food, grams) ingredient")
    if len(ingredients) > MAX_INGREDIENTS:
        raise InvalidValue(f"a recipe has at most {MAX_INGREDIENTS} ingredients")
    parsed = []
    for item in ingredients:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InvalidValue(f"ingredient {validate.echo(item)} is not a (food, grams) pair")
        parsed.append((item[0], validate.grams(item[1])))
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        rows, sums = [], dict.fromkeys(nutrition.STORED_NUTRIENTS, 0.0)
        for position, (query, grams) in enumerate(parsed):
            food = repo.find_food(query, session=session, owner=owner)
            rows.append(RecipeIngredient(food_id=food.id, position=position, grams=grams,
                                         food_name=food.name))
            for field in nutrition.STORED_NUTRIENTS:
                value = getattr(food, field)
                # One unknown value makes the dish's value unknown: never a silent zero.
                sums[field] = None if value is None or sums[field] is None else (
                    sums[field] + value * grams / 100.0)
        total = sum(grams for _, grams in parsed)
        dish = total if cooked is None else _checked_cooked(cooked, total, sums)
        per_100g = {k: None if v is None else v * 100.0 / dish for k, v in sums.items()}
        recipe = Food(
            name=name, category=RECIPE_CATEGORY, fdc_dataset="Recipe",
            fdc_description="Recipe: " + "; ".join(f"{g:g} g {r.food_name}"
                                                   for r, (_, g) in zip(rows, parsed)),
            recipe_servings=count, recipe_cooked_g=cooked, ingredients=rows, **per_100g,
        )
        weighed = (f"the recipe ({total:g} g)" if cooked is None else
                   f"the cooked dish ({cooked:g} g; {total:g} g of ingredients)")
        servings_rows = [Serving(name="1 serving", grams=dish / count, is_default=True,
                                 source=f"1/{count:g} of {weighed}")]
        if count != 1:
            servings_rows.append(Serving(name="whole recipe", grams=dish, is_default=False,
                                         source="all of " + weighed))
        added = _add_own_in(session, owner.id, recipe, servings_rows)
        per_serving = {k: None if v is None else v / count for k, v in sums.items()}
        return added | {"per_serving": nutrition.with_available(per_serving),
                        "total_grams": total, "dish_grams": dish}


def _checked_cooked(cooked: float, total: float, sums: Mapping[str, float | None]) -> float:
    """The cooked weight, refused when no cooking could give it from ``total`` grams of
    ingredients holding ``sums`` of each nutrient."""
    if cooked > total * MAX_COOKED_RATIO:
        raise InvalidValue(f"cooked_grams {cooked:g} is more than {MAX_COOKED_RATIO:g} times "
                           f"the ingredients' {total:g} g; check the weight")
    solids = sum(sums[f] or 0.0 for f in ("carbohydrate_g", "protein_g", "fat_g"))
    if cooked < solids:
        raise InvalidValue(f"cooked_grams {cooked:g} is less than the {solids:.0f} g of "
                           "carbohydrate, protein and fat in the ingredients; check the weight "
                           "(weigh the whole dish after cooking, without the pot)")
    return cooked


def _add_own(user: str, food: Food, servings: list[Serving]) -> dict[str, Any]:
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        return _add_own_in(session, owner.id, food, servings)


def _add_own_in(session: Session, owner_id: int, food: Food, servings: list[Serving]
                ) -> dict[str, Any]:
    food.owner_id = owner_id
    food.servings = servings
    taken = session.scalar(select(Food.id).where(Food.owner_id == owner_id,
                                                 Food.name_key == name_key(food.name)))
    if taken is not None:
        raise InvalidValue(f"you already have a food called {food.name!r}")
    try:
        with session.begin_nested():
            session.add(food)
    except IntegrityError:
        raise InvalidValue(f"you already have a food called {food.name!r}") from None
    fts.reindex(session, [food.id])
    return {"food": food.name, "food_id": food.id}


def own_foods(user: str) -> list[dict[str, Any]]:
    """The user's own foods and recipes (recipes with their ingredients), by name."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        foods = session.scalars(select(Food).where(Food.owner_id == owner.id)
                                .order_by(Food.name_key))
        return [{"food": f.name, "food_id": f.id, "kind": f.fdc_dataset,
                 "servings": f.recipe_servings, "cooked_grams": f.recipe_cooked_g,
                 "ingredients": ingredients_of(f)}
                for f in foods]


def ingredients_of(food: Food) -> list[dict[str, Any]]:
    return [{"food": i.food_name, "food_id": i.food_id, "grams": i.grams}
            for i in food.ingredients]


def delete_own_food(user: str, food: str) -> None:
    """Delete one of the user's foods; refused while meal entries or recipes use it (the log
    keeps its values either way, but the entry must still name its food)."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        row = session.scalar(select(Food).where(Food.owner_id == owner.id,
                                                Food.name_key == name_key(str(food))))
        if row is None:
            raise UnknownFood(f"you have no own food {validate.echo(food)}")
        try:
            with session.begin_nested():
                session.delete(row)
        except IntegrityError:
            raise InvalidValue(f"{row.name!r} is used by meal entries or recipes") from None
        fts.reindex(session, [row.id])


def set_favourite(user: str, food: str, favourite: bool = True) -> bool:
    """Star (or unstar) a food the user can see; returns whether it is now a favourite."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        row = repo.find_food(food, session=session, owner=owner)
        existing = session.get(FavouriteFood, (owner.id, row.id))
        if favourite and existing is None:
            session.add(FavouriteFood(user_id=owner.id, food_id=row.id))
        elif not favourite and existing is not None:
            session.delete(existing)
        return favourite


def add_favourite(user: str, food: str) -> None:
    set_favourite(user, food, True)


def remove_favourite(user: str, food: str) -> None:
    set_favourite(user, food, False)


def is_favourite(user: str, food: str) -> bool:
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        row = repo.find_food(food, session=session, owner=owner)
        return session.get(FavouriteFood, (owner.id, row.id)) is not None


def recent_foods(user: str, limit: int = 10) -> list[dict[str, Any]]:
    """The user's favourites, then their most recently logged other foods: what the Analyse
    tab offers one click away. Each in the shape of a search hit (db.repo.search_hit, score
    None), with its default portion: the empty search box lists these."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
        raise InvalidValue(f"limit must be a whole number from 1 to 100, got {validate.echo(limit)}")
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        favourites = list(session.scalars(
            select(FavouriteFood.food_id).where(FavouriteFood.user_id == owner.id)
            .order_by(FavouriteFood.created_at.desc(), FavouriteFood.food_id)))
        recent = repo.recent_food_ids(owner, session=session, limit=limit)
        ids = list(dict.fromkeys([*favourites, *recent]))[:limit]
        foods = {f.id: f for f in session.scalars(select(Food).where(Food.id.in_(ids)))}
        listed = [(search.candidate(i, foods[i].name, foods[i].category, foods[i].search_weight,
                                    (), None, own=foods[i].owner_id is not None,
                                    recent=i not in favourites, favourite=i in favourites,
                                    dataset=foods[i].fdc_dataset), None)
                  for i in ids if i in foods]
        return [repo.search_hit(c, s) for c, s in repo.with_portions(session, listed)]
