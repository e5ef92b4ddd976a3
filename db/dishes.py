"""A person's own dishes, learned from their photos: the stored side (names, foods, vectors).

Each function is one unit of work scoped by user name, like db.service: another user's dishes
are never read, listed or changed. Photos are not stored, only their embeddings (float32 bytes
from models.dishes), tagged with the model ``space`` they come from. How a dish is recognised
from them lives in models.dishes; app.dishes joins the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from db import households, repo, validate
from db.errors import InvalidValue, NotFound
from db.keys import name_key
from db.tables import DISH_SPACE_LEN, NAME_MAX, DishExample, Food, PersonalDish, User
from db.session import session_scope

MAX_DISHES_PER_USER = 50
MAX_PHOTOS_PER_ADD = 10
# Every correction adds a photo; past this many the oldest go, so a dish follows how the
# person's plates look now and a user's vectors stay bounded (50 x 50 photos of 2 x 1280
# float32 views: 26 MB at most).
MAX_PHOTOS_PER_DISH = 50
MAX_VIEWS = 64
MAX_DIM = 8192


@dataclass(frozen=True)
class PhotoVectors:
    """The float32 embeddings of one photo's views, ``views`` x ``dim``, as bytes."""

    views: int
    dim: int
    data: bytes

    def __post_init__(self) -> None:
        if not (1 <= self.views <= MAX_VIEWS and 1 <= self.dim <= MAX_DIM):
            raise InvalidValue(f"a photo's vectors must be 1-{MAX_VIEWS} views of 1-{MAX_DIM} numbers")
        if len(self.data) != 4 * self.views * self.dim:
            raise InvalidValue(f"vectors of {self.views} x {self.dim} float32 need {4 * self.views * self.dim} bytes, "
                               f"got {len(self.data)}")


def recognition_owners(user: str) -> list[str]:
    """Whose dishes recognise ``user``'s photos: the one place that decides it. The members
    of the household ``user`` joined (by a member's invite code, db.households), else
    ``user`` alone."""
    return households.household_members(user)


def _checked_space(space: object) -> str:
    if not isinstance(space, str) or not 1 <= len(space) <= DISH_SPACE_LEN:
        raise InvalidValue(f"model space must be 1-{DISH_SPACE_LEN} characters, got {validate.echo(space)}")
    return space


def _dish(session: Session, owner: User, name: object) -> PersonalDish:
    if not isinstance(name, str):
        raise InvalidValue(f"dish name must be text, got {validate.echo(name)}")
    dish = session.scalar(select(PersonalDish).where(PersonalDish.owner_id == owner.id,
                                                     PersonalDish.name_key == name_key(name)))
    if dish is None:
        raise NotFound(f"you have no dish {validate.echo(name)}")
    return dish


def _add_photos(session: Session, dish: PersonalDish, photos: Sequence[PhotoVectors], space: str) -> None:
    for photo in photos:
        dish.examples.append(DishExample(space=space, views=photo.views, dim=photo.dim, vectors=photo.data))
    session.flush()
    surplus = len(dish.examples) - MAX_PHOTOS_PER_DISH
    for old in list(dish.examples[:max(0, surplus)]):
        dish.examples.remove(old)


def add_dish(user: str, name: str, food: str, photos: Sequence[PhotoVectors], *, space: str) -> dict[str, Any]:
    """Create the dish ``name`` (the database food or the user's own recipe ``food``) from 1 to
    MAX_PHOTOS_PER_ADD photos; to an existing dish of that name and food, the photos are added."""
    name = validate.name("dish name", name, NAME_MAX)
    space = _checked_space(space)
    if not 1 <= len(photos) <= MAX_PHOTOS_PER_ADD:
        raise InvalidValue(f"a dish is added with 1 to {MAX_PHOTOS_PER_ADD} photos, got {len(photos)}")
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        row = repo.find_food(food, session=session, owner=owner)
        dish = session.scalar(select(PersonalDish).where(PersonalDish.owner_id == owner.id,
                                                         PersonalDish.name_key == name_key(name)))
        if dish is None:
            count = session.scalar(select(func.count()).select_from(PersonalDish)
                                   .where(PersonalDish.owner_id == owner.id))
            if count >= MAX_DISHES_PER_USER:
                raise InvalidValue(f"you have {count} dishes, the most one person may keep; remove one first")
            dish = PersonalDish(owner_id=owner.id, name=name, food_id=row.id)
            session.add(dish)
        elif dish.food_id != row.id:
            raise InvalidValue(f"your dish {dish.name!r} is {dish.food.name!r}, not {row.name!r}: "
                               "pick another name, or remove the dish first")
        _add_photos(session, dish, photos, space)
        return {"dish": dish.name, "food": row.name, "photos": len(dish.examples)}


def learn_in(session: Session, owner: User, food: Food, photo: PhotoVectors, *, space: str) -> str | None:
    """Inside the caller's transaction (db.service.log_meal): the person said this photo is
    ``food``, so its vectors join their dish of that food, if they have one. Returns the dish's
    name, or None (no dish for that food: nothing stored)."""
    space = _checked_space(space)
    dish = session.scalar(select(PersonalDish).where(PersonalDish.owner_id == owner.id,
                                                     PersonalDish.food_id == food.id)
                          .order_by(PersonalDish.id))
    if dish is None:
        return None
    _add_photos(session, dish, [photo], space)
    return dish.name


def list_dishes(user: str) -> list[dict[str, Any]]:
    """The user's dishes by name: {"dish", "food", "photos", "created_at"}."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        counts = (select(DishExample.dish_id, func.count().label("photos"))
                  .group_by(DishExample.dish_id).subquery())
        rows = session.execute(
            select(PersonalDish, func.coalesce(counts.c.photos, 0))
            .outerjoin(counts, counts.c.dish_id == PersonalDish.id)
            .where(PersonalDish.owner_id == owner.id)
            .options(selectinload(PersonalDish.food))
            .order_by(PersonalDish.name_key))
        return [{"dish": dish.name, "food": dish.food.name, "photos": int(photos), "created_at": dish.created_at}
                for dish, photos in rows]


def remove_dish(user: str, name: str) -> int:
    """Delete the user's dish with its vectors; returns how many photos' vectors went."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        dish = _dish(session, owner, name)
        photos = len(dish.examples)
        session.delete(dish)
        return photos


def dish_vectors(owners: Sequence[str], *, space: str, viewer: str | None = None) -> list[dict[str, Any]]:
    """Every dish of ``owners`` with its photos' vectors in ``space``:
    {"dish", "food", "owner", "photos": [PhotoVectors, ...]}; dishes with none there are left out,
    and so, for a ``viewer``, are other owners' dishes that stand for their own foods or recipes
    (private to them: the viewer could neither see nor log them)."""
    space = _checked_space(space)
    with session_scope(write=False) as session:
        users = [repo.get_user(owner, session=session) for owner in owners]
        by_id = {user.id: user.name for user in users}
        dishes = session.scalars(
            select(PersonalDish).where(PersonalDish.owner_id.in_(list(by_id)))
            .options(selectinload(PersonalDish.food), selectinload(PersonalDish.examples))
            .order_by(PersonalDish.owner_id, PersonalDish.name_key))
        found = []
        for dish in dishes:
            if viewer is not None and by_id[dish.owner_id] != viewer and dish.food.owner_id is not None:
                continue
            photos = [PhotoVectors(e.views, e.dim, e.vectors) for e in dish.examples if e.space == space]
            if photos:
                found.append({"dish": dish.name, "food": dish.food.name, "owner": by_id[dish.owner_id], "photos": photos})
        return found


def dishes_stamp(owners: Sequence[str]) -> tuple[int, int]:
    """(number of photos, newest photo id) over ``owners``' dishes: changes whenever a dish or
    photo is added or removed, so a recogniser built from them knows when to rebuild."""
    with session_scope(write=False) as session:
        ids = [repo.get_user(owner, session=session).id for owner in owners]
        count, newest = session.execute(
            select(func.count(DishExample.id), func.coalesce(func.max(DishExample.id), 0))
            .join(PersonalDish).where(PersonalDish.owner_id.in_(ids))).one()
        return int(count), int(newest)
