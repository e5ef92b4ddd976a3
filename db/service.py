"""Everything the app and the batch tool call. Each function is one unit of work in its own
session_scope; meal functions are scoped by user name and never touch another user's rows.

Dates and times: ``eaten_at`` is the eater's local wall-clock time (naive; aware datetimes
are converted to local time), entry dicts give it as ISO text, and days are local days.
"""

import csv
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import IO, Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from db import (arguments, cards, dishes, households, hypo, nutrition, passwords, photos, repo, spreadsheet,
                validate)
from db.errors import InvalidPortion, InvalidValue, NoDefaultServing, UserExists
from db.keys import name_key
from db.tables import Food, MealEntry, ModelChange, OwnedFile, ServerSetting, SignInSession, User, utcnow
from db.session import session_scope
from models.errors import FoodtagError

MAX_SEARCH_LIMIT = 100
DEFAULT_MODEL_SETTING = "default_model"
MAX_SUMMARY_DAYS = 3660
_MEAL_CHANGES = ("food", "grams", "serving", "eaten_at", "meal_type", "note")


# --- foods ------------------------------------------------------------------------------

def lookup(query: str, grams: float | None = None, serving: str | None = None,
           exchange_unit_g: float = nutrition.DEFAULT_EXCHANGE_UNIT_G, *, user: str | None = None) -> cards.Card:
    """The nutrition card (db.cards.Card) for ``grams`` (or a named ``serving``, or the default
    serving) of the food whose label, name or alias is ``query``. With ``user``, that user's
    own foods and recipes are found too."""
    unit = nutrition.check_exchange_unit(exchange_unit_g)
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session) if user is not None else None
        food = repo.find_food(query, session=session, owner=owner)
        if grams is None and serving is None:  # "juice box" means its juice box (db.hypo)
            treatment = hypo.treatment_named(query)
            serving = treatment.serving if treatment is not None else None
        portion_g, serving_name = _portion(food, grams, serving)
        return cards.nutrition_card(food, portion_g, serving_name, unit)


def pack_entry(name: str, *, user: str | None = None) -> dict[str, str] | None:
    """What to enter for a hypo treatment that no table lists (db.hypo), when ``name`` is its
    search entry or its term and not a food (the user's own included): {"food": the name to
    save it under ("Glucose tablets"), "asks": "the carbohydrate in one tablet (g), from the
    pack", "serving": "1 tablet"}; None otherwise."""
    treatment = hypo.treatment_named(name)
    if treatment is None or treatment.entry is not None:
        return None
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session) if user is not None else None
        if owner is not None and session.scalar(select(Food.id).where(
                Food.owner_id == owner.id, Food.name_key == name_key(treatment.term))) is not None:
            return None
    unit = re.search(r"\bin one (\w+)", treatment.asks or "")
    return {"food": treatment.term[:1].upper() + treatment.term[1:], "asks": treatment.asks,
            "serving": f"1 {unit.group(1)}" if unit else ""}


def search(text: str, limit: int = 10, *, user: str | None = None,
           group: str | None = None, region: str | None = None) -> list[dict[str, Any]]:
    """Foods for a search box, best first (ranking: db.search). With ``user``: their own foods
    too, and their favourite and recent foods first among comparable matches. ``group``: only
    foods of that category (an SR Legacy food group such as "Beverages"). ``region`` ("US",
    "UK", "AU", "DE"): whose meaning of an ambiguous word ("chips", "biscuit") comes first;
    without it, the user's own region (Settings), so the app, /api/foods and the CLI agree.

    Each hit: {"food", "food_id", "category", "score", "own", "recent", "favourite",
    "portion": {"serving", "grams", "carbohydrate_g", "amount"}, "dataset", "duplicates",
    "asks"}: the default serving and the carbohydrate in it (or in the amount the query asked
    for, db.portions.measured_amount), so 45 g cooked and 126 g dry are told apart before
    choosing; the food's table and the same food in other tables. A hypo treatment is
    answered by db.hypo alone (after the user's own foods that match, such as their tablets
    added from the pack): its food, or an entry (``food_id`` None) whose ``asks`` says what to
    read from the pack. The app's search box, GET /api/foods and ``python -m db
    search`` all call this."""
    if not isinstance(text, str):
        raise InvalidValue(f"search text must be text, got {validate.echo(text)}")
    if len(text) > repo.MAX_QUERY_LEN:
        raise InvalidValue(f"search text is longer than {repo.MAX_QUERY_LEN} characters")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise InvalidValue(
            f"limit must be a whole number from 1 to {MAX_SEARCH_LIMIT}, got {validate.echo(limit)}"
        )
    if group is not None and (not isinstance(group, str) or len(group) > 60 or "\x00" in group):
        raise InvalidValue(f"food group must be a name of at most 60 characters, got {validate.echo(group)}")
    # "jelly babies for a hypo yesterday" is a search for jelly babies, "blt from tesco" for a
    # BLT: the repository reads a query without its why, context and place (repo._food_words)
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session) if user is not None else None
        if region is None and owner is not None:
            region = owner.region
        treatments = repo.hypo_hits(text, session=session, region=region) if not group else []
        ranked = repo.search_foods(text, session=session, owner=owner, category=group or None,
                                   limit=limit, region=region)
    if treatments:  # never guessed (db.hypo): the person's own tablets (from the pack) first
        own = [repo.search_hit(c, s) for c, s in ranked if c.own]
        return (own + treatments)[:limit]
    return [repo.search_hit(c, s) for c, s in ranked]


def food_groups() -> list[str]:
    """Every category of the public foods (the food-group filter's choices), sorted."""
    with session_scope(write=False) as session:
        return repo.categories(session=session)


def food_count() -> int:
    with session_scope(write=False) as session:
        return repo.count_foods(session=session)


def account_count() -> int:
    """Users who can sign in (they have a password)."""
    with session_scope(write=False) as session:
        return repo.count_users_with_password(session=session)


def _portion(food: Food, grams: object, serving: object) -> tuple[float, str | None]:
    """(grams, serving name or None) for a portion given as grams, a serving name, or neither
    (the food's default serving)."""
    grams, serving = validate.portion(grams, serving)
    if grams is not None:
        return grams, None
    if serving is None:
        default = food.default_serving
        if default is None:  # a CoFID or Swiss row without a cited portion (db.composition)
            raise NoDefaultServing(f"{food.name} has no default serving; give grams")
        return default.grams, default.name
    for candidate in food.servings:
        if name_key(candidate.name) == name_key(serving):
            return candidate.grams, candidate.name
    names = ", ".join(s.name for s in food.servings)
    raise InvalidPortion(f"{food.name} has no serving {validate.echo(serving.strip())} (servings: {names})")


# --- users ------------------------------------------------------------------------------

def create_user(name: str, password: str | None = None, *, admin: bool = False,
                region: str = nutrition.DEFAULT_REGION) -> None:
    """A new user; password None makes a local user who needs none. UserExists if taken.
    ``admin``: may change the server's default model. ``region`` (US, UK, DE) sets the
    exchange unit to the one taught there."""
    name = arguments.user_name(name)
    region = nutrition.check_region(region)
    password_hash = passwords.hash_password(pw) if (pw := arguments.password(password)) else None
    try:
        with session_scope() as session:
            if repo.find_user(name, session=session) is not None:
                raise UserExists(f"user {name!r} already exists")
            session.add(User(name=name, password_hash=password_hash, is_admin=bool(admin),
                             region=region, exchange_unit_g=nutrition.region_unit(region)))
            session.flush()
    except IntegrityError:  # a concurrent create won the race
        raise UserExists(f"user {name!r} already exists") from None


def ensure_user(name: str, *, region: str = nutrition.DEFAULT_REGION) -> None:
    """Create a password-less local user called ``name`` (in ``region``) unless one exists;
    an existing user keeps their region."""
    try:
        create_user(name, region=region)
    except UserExists:
        pass


def list_users() -> list[dict[str, Any]]:
    """Every user, by name: whether they sign in with a password, are an admin, when they were
    created and how many meals they have logged."""
    with session_scope(write=False) as session:
        meals = dict(session.execute(select(MealEntry.user_id, func.count(MealEntry.id)).group_by(MealEntry.user_id)).all())
        return [{"name": u.name, "admin": u.is_admin, "password": u.password_hash is not None,
                 "created_at": u.created_at, "meals": meals.get(u.id, 0)} for u in repo.all_users(session=session)]


def _keep_an_admin(session, user: User, doing: str) -> None:
    if user.is_admin and repo.count_admins(session=session) == 1:
        raise InvalidValue(f"{user.name!r} is the only admin: make another user an admin before you {doing}")


def remove_user(name: str) -> int:
    """Delete a user with everything that is theirs (meal log, kept photos, own foods and
    recipes, favourites, settings, sign-in sessions); returns how many meals went with them.
    The last admin stays."""
    with session_scope() as session:
        user = repo.get_user(name, session=session)
        _keep_an_admin(session, user, f"remove {user.name!r}")
        meals = session.scalar(select(func.count(MealEntry.id)).where(MealEntry.user_id == user.id))
        # The photo files are named by their rows, which the cascade below would delete unread.
        kept = photos.forget(session, session.scalars(photos.of_user(user)))
        household = households.household_of(session, user)
        session.delete(user)  # the database cascades to every row that belongs to the user
        session.flush()
        if household is not None:
            households.drop_if_empty(session, household)
    photos.remove_files(kept)
    return meals


def set_password(name: str, password: str) -> None:
    """Give a user a new password (checked as for a new account) and end their sign-in sessions,
    so a stolen session does not outlive the reset."""
    new = arguments.password(password)
    if new is None:
        raise InvalidValue("a new password is needed")
    password_hash = passwords.hash_password(new)
    with session_scope() as session:
        user = repo.get_user(name, session=session)
        user.password_hash = password_hash
        session.execute(delete(SignInSession).where(SignInSession.user_id == user.id))


def set_admin(name: str, admin: bool) -> bool:
    """Grant (or revoke) admin rights; returns whether anything changed. The last admin stays one."""
    with session_scope() as session:
        user = repo.get_user(name, session=session)
        if user.is_admin == admin:
            return False
        if not admin:
            _keep_an_admin(session, user, f"revoke {user.name!r}")
        user.is_admin = admin
    return True


def verify_password(name: str, password: str) -> bool:
    """True when ``password`` is the user's password. A password-less (local) user never
    signs in this way, and unknown users get False after the same hashing work as a real
    check, so neither can be told apart by timing."""
    if not isinstance(password, str):
        return False
    with session_scope(write=False) as session:
        user = repo.find_user(name, session=session) if isinstance(name, str) else None
        user_id, stored = (user.id, user.password_hash) if user else (None, None)
    # Hashing takes ~0.1 s: done outside any transaction so it holds no database lock.
    if user_id is None or stored is None:
        passwords.burn_time(password)
        return False
    if not passwords.verify(stored, password):
        return False
    if passwords.needs_rehash(stored):
        rehashed = passwords.hash_password(password)
        with session_scope() as session:
            row = session.get(User, user_id)
            if row is not None and row.password_hash == stored:
                row.password_hash = rehashed
    return True


def is_admin(user: str) -> bool:
    with session_scope(write=False) as session:
        return repo.get_user(user, session=session).is_admin


def user_model(user: str) -> str | None:
    """The model the user picked for themselves; None: the server's default."""
    with session_scope(write=False) as session:
        return repo.get_user(user, session=session).model


def set_user_model(user: str, model: str | None) -> None:
    """Pick a model for this user only (None: back to the server's default); recorded."""
    model = arguments.optional_text("model", model, 200)
    with session_scope() as session:
        row = repo.get_user(user, session=session)
        if row.model != model:
            session.add(ModelChange(changed_by=row.name, scope="user", from_model=row.model, to_model=model))
            row.model = model


def default_model() -> str | None:
    """The server's default model as an admin last set it (every app process follows it);
    None: never set, each process uses the one it starts with."""
    with session_scope(write=False) as session:
        row = session.get(ServerSetting, DEFAULT_MODEL_SETTING)
        return row.value if row else None


def set_default_model(user: str, model: str, *, replaces: str | None = None) -> None:
    """Make ``model`` the server's default and record the change; ``replaces`` names the
    model in use when none was ever set. The caller checked that ``user`` is an admin and
    that ``model`` is installed."""
    model = arguments.text("model", model, 200)
    if not model:
        raise InvalidValue("model name is empty")
    with session_scope() as session:
        row = repo.get_user(user, session=session)
        setting = session.get(ServerSetting, DEFAULT_MODEL_SETTING)
        before = setting.value if setting else arguments.optional_text("replaces", replaces, 200)
        if setting is None:
            session.add(ServerSetting(name=DEFAULT_MODEL_SETTING, value=model, changed_by=row.name))
        else:
            setting.value, setting.changed_by = model, row.name
        session.add(ModelChange(changed_by=row.name, scope="server", from_model=before, to_model=model))


def model_changes(limit: int = 50) -> list[dict[str, Any]]:
    """The latest model changes, newest first: changed_at (UTC ISO), changed_by, scope, from, to."""
    with session_scope(write=False) as session:
        rows = repo.model_changes(limit, session=session)
        return [{"changed_at": r.changed_at.isoformat(timespec="seconds"), "changed_by": r.changed_by,
                 "scope": r.scope, "from_model": r.from_model, "to_model": r.to_model} for r in rows]


# Gradio deletes a served file within its cache age (app.ui.GRADIO_CACHE_S, an hour); a day
# later nothing can be fetched under the marker, so its row is forgotten.
FORGET_OWNED_FILES_AFTER = timedelta(days=1)


def own_file(user: str, marker: str) -> None:
    """Record that only ``user`` may download the file named with ``marker``; forget the
    markers of files long gone, so the table does not grow with every download ever made."""
    with session_scope() as session:
        session.execute(delete(OwnedFile).where(OwnedFile.created_at < utcnow() - FORGET_OWNED_FILES_AFTER))
        session.add(OwnedFile(marker=arguments.text("marker", marker, 32), user_id=repo.get_user(user, session=session).id))


def file_owner(marker: str) -> str | None:
    """Who may download the file named with ``marker``; None when no file has it."""
    with session_scope(write=False) as session:
        return repo.file_owner(marker, session=session)


def get_settings(user: str) -> dict[str, Any]:
    with session_scope(write=False) as session:
        return _settings(repo.get_user(user, session=session))


def user_region(user: str) -> str:
    """The user's region code (US, UK, DE): search prefers its vocabulary."""
    with session_scope(write=False) as session:
        return repo.get_user(user, session=session).region


def update_settings(user: str, **values: Any) -> dict[str, Any]:
    """Change some of: daily_kcal_target, daily_carb_target_g, exchange_unit_g (15, 12 or
    10), confidence_threshold (0-1), region (US, UK, DE), keep_photos (consent to keep the
    photos of logged meals, db.photos), glucose_unit (mg/dL, mmol/L, or None: the region's,
    db.glucose.units). A new region brings its exchange unit unless the
    current one is also taught there or ``exchange_unit_g`` is given. Turning keep_photos off
    deletes the meal photos kept so far. Returns all settings."""
    checked = arguments.settings(values)
    with session_scope() as session:
        row = repo.get_user(user, session=session)
        if "region" in checked and "exchange_unit_g" not in checked:
            checked["exchange_unit_g"] = nutrition.region_unit(str(checked["region"]),
                                                               row.exchange_unit_g)
        for field, value in checked.items():
            setattr(row, field, value)
        settings = _settings(row)
    if checked.get("keep_photos") is False:
        photos.forget_meal_photos(user)
    return settings


def _settings(user: User) -> dict[str, Any]:
    return {field: getattr(user, field) for field in arguments.SETTINGS}


def household_members(user: str) -> list[str]:
    """Whose kept photos ``user``'s recognition may learn from: their household's members
    (db.households), or just [user]."""
    return households.household_members(user)


# --- meals ------------------------------------------------------------------------------

def log_meal(user: str, query: str, *, grams: float | None = None, serving: str | None = None,
             eaten_at: datetime | None = None, meal_type: str = "", note: str = "",
             predicted_label: str | None = None, confidence: float | None = None,
             model_version: str | None = None, external_id: str | None = None,
             photo_sha256: str | None = None, is_correction: bool | None = None,
             photo: bytes | None = None, photo_vectors: dishes.PhotoVectors | None = None,
             vector_space: str | None = None) -> dict[str, Any]:
    """Log a portion of a food (public, or the user's own); the entry keeps the nutrient
    values as of now. From a photo: ``predicted_label`` and ``confidence`` are the model's top
    answer, ``photo_sha256`` names the photo, and ``is_correction`` says the person chose
    another food than the model's, so (photo, predicted_label, food) can train a better model.
    ``photo``: the photo as kept (models.images.keepable_jpeg), kept with the entry only when
    the user's keep_photos setting is on (db.photos); otherwise not a byte of it is written.
    ``photo_vectors`` (the photo's embedding in the model space ``vector_space``) with
    ``is_correction``: the person's dish of this food learns the photo in the same transaction
    as the entry (both stored or neither); ``dish_learned`` names that dish, else None.

    With ``external_id`` the call is idempotent per user: if the user already has an entry
    with that id, it is returned unchanged with ``created`` False.
    """
    when = datetime.now() if eaten_at is None else validate.meal_moment("eaten_at", eaten_at)
    fields = {
        "meal_type": arguments.text("meal_type", meal_type, 40),
        "note": arguments.text("note", note, 2000),
        "predicted_label": arguments.optional_text("predicted_label", predicted_label, 80),
        "confidence": arguments.confidence(confidence),
        "model_version": arguments.optional_text("model_version", model_version, 200),
        "photo_sha256": arguments.sha256_hex("photo_sha256", photo_sha256),
        "is_correction": arguments.optional_flag("is_correction", is_correction),
    }
    external = arguments.optional_text("external_id", external_id, 200)
    jpeg = photos.check_jpeg(photo)
    with photos.undone_on_error() as kept, session_scope() as session:
        owner = repo.get_user(user, session=session)
        if external is not None:
            existing = repo.entry_by_external_id(owner, external, session=session)
            if existing is not None:
                return cards.entry_dict(existing) | {"created": False, "dish_learned": None}
        food = repo.find_food(query, session=session, owner=owner)
        portion_g, serving_name = _portion(food, grams, serving)
        entry = MealEntry(
            user_id=owner.id, eaten_at=when, food_id=food.id, food_name=food.name,
            grams=portion_g, serving=serving_name, external_id=external,
            **fields, **cards.frozen_values(food, portion_g),
        )
        try:
            with session.begin_nested():  # a savepoint: a lost race leaves the session usable
                session.add(entry)
        except IntegrityError:
            # Postgres: a concurrent call with the same external_id committed first.
            # (SQLite never gets here: BEGIN IMMEDIATE serialises the two calls.)
            if external is None:
                raise
            existing = repo.entry_by_external_id(owner, external, session=session)
            if existing is None:
                raise
            return cards.entry_dict(existing) | {"created": False, "dish_learned": None}
        kept.append(photos.keep(session, owner, entry, jpeg))
        learned = (dishes.learn_in(session, owner, food, photo_vectors, space=vector_space)
                   if is_correction and photo_vectors is not None and vector_space else None)
        return cards.entry_dict(entry) | {"created": True, "dish_learned": learned}


def list_meals(user: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """The user's entries with start <= eaten_at < end, in time order."""
    start = arguments.local_datetime("start", start)
    end = arguments.local_datetime("end", end)
    if end < start:
        raise InvalidValue(f"end {end.isoformat()} is before start {start.isoformat()}")
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        rows = repo.entries(owner, session=session, start=start, end=end)
        return [cards.entry_dict(e) for e in rows]


def day_summary(user: str, day: date) -> dict[str, Any]:
    """One local day: its entries, their totals (with exchanges in the user's unit) and the
    user's targets."""
    day = arguments.day(day)
    start = datetime.combine(day, time())
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        rows = repo.entries(owner, session=session, start=start, end=start + timedelta(days=1))
        totals = nutrition.totals(
            (cards.stored_values(e) for e in rows), (*nutrition.NUTRIENTS, "glycemic_load")
        )
        # Per entry: the US fiber rule looks at each portion, not the day's sum.
        exchanges = sum(nutrition.exchanges(e.carbohydrate_g, e.fiber_g, owner.exchange_unit_g)
                        or 0.0 for e in rows)
        settings = _settings(owner)
        return {
            "date": day.isoformat(),
            "entries": [cards.entry_dict(e) for e in rows],
            "totals": nutrition.rounded(totals) | {"exchanges": round(exchanges or 0.0, 1)},
            "targets": {k: settings[k] for k in ("daily_kcal_target", "daily_carb_target_g",
                                                 "exchange_unit_g")},
        }


def daily_totals(user: str, days: int = 28, until: date | None = None) -> list[dict[str, Any]]:
    """kcal and carbohydrate per local day for the ``days`` days ending with ``until``
    (default today), oldest first; days without entries give 0."""
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_SUMMARY_DAYS:
        raise InvalidValue(
            f"days must be a whole number from 1 to {MAX_SUMMARY_DAYS}, got {validate.echo(days)}"
        )
    last = date.today() if until is None else arguments.day(until)
    first = last - timedelta(days=days - 1)
    keys = ("kcal", "carbohydrate_g", "available_carbohydrate_g")
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        rows = repo.entries(owner, session=session, start=datetime.combine(first, time()),
                            end=datetime.combine(last + timedelta(days=1), time()))
        by_day: dict[date, list[MealEntry]] = {}
        for entry in rows:
            by_day.setdefault(entry.eaten_at.date(), []).append(entry)
        out = []
        for offset in range(days):
            current = first + timedelta(days=offset)
            day_rows = by_day.get(current, [])
            sums = nutrition.totals((cards.stored_values(e) for e in day_rows), keys)
            out.append({"date": current.isoformat(),
                        **{k: round(v or 0.0, 1) for k, v in sums.items()}})
        return out


def update_meal(user: str, entry_id: int, **changes: Any) -> dict[str, Any]:
    """Change an entry: food (label/name/alias), grams or serving, eaten_at, meal_type, note.

    A new food is priced from its current data. A new portion of the same food rescales the
    entry's own frozen values, so a later correction of the food still does not leak in.
    """
    unknown = sorted(set(changes) - set(_MEAL_CHANGES))
    if unknown:
        raise InvalidValue(f"cannot change {unknown}; changeable: {list(_MEAL_CHANGES)}")
    updates: dict[str, Any] = {}
    if "eaten_at" in changes:
        updates["eaten_at"] = validate.meal_moment("eaten_at", changes["eaten_at"])
    if "meal_type" in changes:
        updates["meal_type"] = arguments.text("meal_type", changes["meal_type"], 40)
    if "note" in changes:
        updates["note"] = arguments.text("note", changes["note"], 2000)
    grams, serving = changes.get("grams"), changes.get("serving")
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        entry = repo.get_entry(owner, entry_id, session=session)
        if changes.get("food") is not None:
            food = repo.find_food(changes["food"], session=session, owner=owner)
            if grams is None and serving is None:
                grams = entry.grams  # keep the amount; the old serving belongs to the old food
            portion_g, serving_name = _portion(food, grams, serving)
            updates |= {"food": food, "food_name": food.name, "grams": portion_g,
                        "serving": serving_name, **cards.frozen_values(food, portion_g)}
        elif grams is not None or serving is not None:
            portion_g, serving_name = _portion(entry.food, grams, serving)
            scaled = nutrition.scale(cards.stored_values(entry), portion_g / entry.grams)
            updates |= {"grams": portion_g, "serving": serving_name, **scaled}
        for field, value in updates.items():
            setattr(entry, field, value)
        session.flush()
        if "food" in updates:
            photos.relabel(session, entry)
        return cards.entry_dict(entry)


def delete_meal(user: str, entry_id: int) -> None:
    """Delete one of the user's entries, with its kept photos."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        entry = repo.get_entry(owner, entry_id, session=session)
        kept = photos.forget(session, session.scalars(photos.of_entry(entry)))
        session.delete(entry)
    photos.remove_files(kept)


def export_log_csv(user: str, out: str | Path | IO[str]) -> int:
    """Write all the user's entries for their dietitian (time order, cards.EXPORT_COLUMNS:
    rounded values, exchanges in the user's unit, USDA ids) as CSV to a path or an open text
    file; returns the number of rows.

    Text cells are neutralised against formula injection (db.spreadsheet.neutralise)."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        rows = [cards.export_row(e, owner.exchange_unit_g) for e in repo.entries(owner, session=session)]
    with _text_out(out) as handle:
        writer = csv.DictWriter(handle, fieldnames=cards.EXPORT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(v) for k, v in row.items()})
    return len(rows)


def _csv_cell(value: Any) -> Any:
    if isinstance(value, str):
        return spreadsheet.neutralise(value)
    return "" if value is None else value


@contextmanager
def _text_out(out: str | Path | IO[str]) -> Iterator[IO[str]]:
    if hasattr(out, "write"):
        yield out  # type: ignore[misc]
        return
    path = Path(out)  # type: ignore[arg-type]
    try:
        handle = path.open("w", encoding="utf-8", newline="")
    except OSError as exc:
        raise FoodtagError(f"cannot write {path}: {exc.strerror}") from None
    with handle:
        yield handle
