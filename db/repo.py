"""Queries. Each takes ``*, session`` and never commits: the service that owns the unit of
work does. Lookups that fail raise the matching db.errors exception.
"""

from bisect import bisect_left
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from db import fts, search, validate
from db.errors import InvalidValue, NotFound, UnknownFood, UnknownUser
from db.keys import name_key
from db.models import FavouriteFood, Food, FoodAlias, FoodLabel, MealEntry, ModelChange, OwnedFile, User

MAX_QUERY_LEN = 200


def find_food(query: object, *, session: Session, owner: User | None = None) -> Food:
    """The food whose model label, name or alias is ``query`` (case-insensitive): the
    ``owner``'s own foods first, then public ones; another user's foods are never found."""
    if not isinstance(query, str):
        raise InvalidValue(f"food must be text, got {validate.echo(query)}")
    if len(query) > MAX_QUERY_LEN:
        raise InvalidValue(f"food name is longer than {MAX_QUERY_LEN} characters")
    key = name_key(query)
    if not key:
        raise InvalidValue("food name is empty")
    loaded = (selectinload(Food.servings), selectinload(Food.glycemic_index),
              selectinload(Food.ingredients))
    statements = [
        # Labels first: a photo's label must always reach the food the seed maps it to.
        select(Food).join(FoodLabel).where(FoodLabel.label == key.replace(" ", "_")),
        select(Food).where(Food.name_key == key, Food.owner_id.is_(None)),
        select(Food).join(FoodAlias).where(FoodAlias.alias_key == key),
    ]
    if owner is not None:
        statements.insert(0, select(Food).where(Food.name_key == key,
                                                Food.owner_id == owner.id))
    for statement in statements:
        food = session.scalar(statement.options(*loaded))
        if food is not None:
            return food
    close = [c.food for c, _ in search_foods(query, session=session, owner=owner, limit=3)]
    hint = f" (did you mean: {', '.join(close)}?)" if close else ""
    raise UnknownFood(f"unknown food {validate.echo(query.strip())}{hint}")


def get_food(food_id: object, *, session: Session, owner: User | None = None) -> Food:
    """A food by id, if it is public or the ``owner``'s; UnknownFood otherwise (another
    user's food and a missing one are not told apart)."""
    if isinstance(food_id, bool) or not isinstance(food_id, int):
        raise InvalidValue(f"food id must be a whole number, got {validate.echo(food_id)}")
    food = session.get(Food, food_id)
    if food is None or (food.owner_id is not None
                        and (owner is None or food.owner_id != owner.id)):
        raise UnknownFood(f"no food with id {food_id}")
    return food


def search_foods(text_: str, *, session: Session, owner: User | None = None,
                 category: str | None = None, limit: int = 10,
                 ) -> list[tuple[search.Candidate, float]]:
    """Foods matching ``text_``, best first (db.search explains the order), with the
    ``owner``'s own, favourite and recent foods lifted."""
    wanted = search.query_words(text_)
    if not wanted:
        return []
    owner_id = owner.id if owner is not None else None
    vocabulary = fts.vocabulary(session, owner_id)
    alternatives = [_spellings(word, vocabulary, last=i == len(wanted) - 1)
                    for i, word in enumerate(wanted)]
    rows = fts.candidates(session, alternatives, owner_id=owner_id, category=category)
    if not rows and len(alternatives) > 1:  # no food has every word: any word will do
        rows = fts.candidates(session, alternatives, owner_id=owner_id, category=category,
                              all_words=False)
    recent, favourite = (personal_food_ids(owner, session=session) if owner is not None
                         else (set(), set()))
    found = [search.candidate(r.food_id, r.name, r.category, r.weight, r.aliases,
                              r.common_names, own=r.owner_id is not None,
                              recent=r.food_id in recent, favourite=r.food_id in favourite)
             for r in rows]
    # Rank with each word as the food names spell it (the first correction of a typo).
    return search.rank([choices[0] for choices in alternatives], found, limit)


def _spellings(word: str, vocabulary: tuple[str, ...], *, last: bool) -> list[str]:
    """``word`` itself when the catalog has it (or, for the last word being typed, a word
    starting with it); else its closest catalog words; else the word (no match)."""
    if not vocabulary:
        return [word]
    index = bisect_left(vocabulary, word)
    if index < len(vocabulary) and (vocabulary[index] == word or
                                    (last and vocabulary[index].startswith(word))):
        return [word]
    return search.corrections(word, vocabulary) or [word]


def personal_food_ids(user: User, *, session: Session,
                      recent_limit: int = 50) -> tuple[set[int], set[int]]:
    """(ids of the user's most recently logged foods, ids of their favourites)."""
    return (set(recent_food_ids(user, session=session, limit=recent_limit)),
            set(session.scalars(select(FavouriteFood.food_id)
                                .where(FavouriteFood.user_id == user.id))))


def recent_food_ids(user: User, *, session: Session, limit: int = 10) -> list[int]:
    """The user's most recently logged distinct foods, newest first."""
    latest = func.max(MealEntry.eaten_at)
    return list(session.scalars(
        select(MealEntry.food_id).where(MealEntry.user_id == user.id)
        .group_by(MealEntry.food_id).order_by(latest.desc(), MealEntry.food_id).limit(limit)
    ))


def categories(*, session: Session) -> list[str]:
    return list(session.scalars(
        select(Food.category).where(Food.owner_id.is_(None)).distinct().order_by(Food.category)
    ))


def count_foods(*, session: Session) -> int:
    return session.scalar(select(func.count(Food.id))) or 0


def count_users_with_password(*, session: Session) -> int:
    return session.scalar(select(func.count(User.id)).where(User.password_hash.is_not(None))) or 0


def all_users(*, session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.name_key)))


def count_admins(*, session: Session) -> int:
    return session.scalar(select(func.count(User.id)).where(User.is_admin)) or 0


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
    """The user's entries with start <= eaten_at < end (either bound optional), in time order.
    Their foods (and a recipe's ingredients) come in the same round trips: entry dicts name
    a recipe's ingredients."""
    statement = select(MealEntry).where(MealEntry.user_id == user.id).options(
        selectinload(MealEntry.food).selectinload(Food.ingredients))
    if start is not None:
        statement = statement.where(MealEntry.eaten_at >= start)
    if end is not None:
        statement = statement.where(MealEntry.eaten_at < end)
    return list(session.scalars(statement.order_by(MealEntry.eaten_at, MealEntry.id)))


def model_changes(limit: int, *, session: Session) -> list[ModelChange]:
    """The latest model changes, newest first."""
    return list(session.scalars(select(ModelChange).order_by(ModelChange.id.desc()).limit(limit)))


def file_owner(marker: str, *, session: Session) -> str | None:
    """The name of the user who may download the file named with ``marker``, if any."""
    return session.scalar(select(User.name).join(OwnedFile, OwnedFile.user_id == User.id)
                          .where(OwnedFile.marker == marker))
