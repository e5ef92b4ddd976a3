"""Queries. Each takes ``*, session`` and never commits: the service that owns the unit of
work does. Lookups that fail raise the matching db.errors exception.
"""

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from db import search, validate
from db.errors import InvalidValue, NotFound, UnknownFood, UnknownUser
from db.keys import name_key
from db.models import Food, FoodAlias, FoodLabel, MealEntry, ModelChange, User

MAX_QUERY_LEN = 200


def find_food(query: object, *, session: Session) -> Food:
    """The food whose model label, name or alias is ``query`` (case-insensitive)."""
    if not isinstance(query, str):
        raise InvalidValue(f"food must be text, got {validate.echo(query)}")
    if len(query) > MAX_QUERY_LEN:
        raise InvalidValue(f"food name is longer than {MAX_QUERY_LEN} characters")
    key = name_key(query)
    if not key:
        raise InvalidValue("food name is empty")
    loaded = (selectinload(Food.servings), selectinload(Food.glycemic_index))
    # Labels first: a photo's label must always reach the food the seed maps it to.
    for statement in (
        select(Food).join(FoodLabel).where(FoodLabel.label == key.replace(" ", "_")),
        select(Food).where(Food.name_key == key),
        select(Food).join(FoodAlias).where(FoodAlias.alias_key == key),
    ):
        food = session.scalar(statement.options(*loaded))
        if food is not None:
            return food
    close = [c.food for c, _ in search.rank(query, search_candidates(session=session), 3)]
    hint = f" (did you mean: {', '.join(close)}?)" if close else ""
    raise UnknownFood(f"unknown food {validate.echo(query.strip())}{hint}")


def search_candidates(*, session: Session) -> list[search.Candidate]:
    foods = session.scalars(
        select(Food).options(selectinload(Food.aliases), selectinload(Food.labels))
    )
    return [
        search.Candidate(
            food_id=food.id,
            food=food.name,
            category=food.category,
            keys=search.keys_for(food.name, [a.alias for a in food.aliases],
                                 [lbl.label for lbl in food.labels]),
        )
        for food in foods
    ]


def count_foods(*, session: Session) -> int:
    return session.scalar(select(func.count(Food.id))) or 0


def count_users_with_password(*, session: Session) -> int:
    return session.scalar(select(func.count(User.id)).where(User.password_hash.is_not(None))) or 0


def find_user(name: str, *, session: Session) -> User | None:
    return session.scalar(select(User).where(User.name_key == name_key(name)))


def get_user(name: object, *, session: Session) -> User:
    if not isinstance(name, str) or not name_key(name):
        raise UnknownUser(f"no user {validate.echo(name)}")
    user = find_user(name, session=session)
    if user is None:
        raise UnknownUser(f"no user {validate.echo(name.strip())}")
    return user


def get_entry(user: User, entry_id: object, *, session: Session) -> MealEntry:
    """The user's entry; NotFound both when it does not exist and when it is someone else's."""
    if isinstance(entry_id, bool) or not isinstance(entry_id, int):
        raise NotFound(f"no meal entry {validate.echo(entry_id)}")
    entry = session.scalar(
        select(MealEntry).where(MealEntry.id == entry_id, MealEntry.user_id == user.id)
    )
    if entry is None:
        raise NotFound(f"no meal entry {entry_id} for {user.name!r}")
    return entry


def entry_by_external_id(user: User, external_id: str, *, session: Session) -> MealEntry | None:
    return session.scalar(
        select(MealEntry).where(MealEntry.user_id == user.id, MealEntry.external_id == external_id)
    )


def entries(user: User, *, session: Session, start: datetime | None = None,
            end: datetime | None = None) -> list[MealEntry]:
    """The user's entries with start <= eaten_at < end (either bound optional), in time order."""
    statement = select(MealEntry).where(MealEntry.user_id == user.id)
    if start is not None:
        statement = statement.where(MealEntry.eaten_at >= start)
    if end is not None:
        statement = statement.where(MealEntry.eaten_at < end)
    return list(session.scalars(statement.order_by(MealEntry.eaten_at, MealEntry.id)))


def model_changes(limit: int, *, session: Session) -> list[ModelChange]:
    """The latest model changes, newest first."""
    return list(session.scalars(select(ModelChange).order_by(ModelChange.id.desc()).limit(limit)))
