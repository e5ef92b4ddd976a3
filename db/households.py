"""Households: people who share their kept meal photos (db.photos), so a dish one of them logs
is learned for all of them. Membership is explicit and needs the group's consent: a person
creates a household, and others join it only with a one-time invite code that a member made
(like a sign-in token, only its SHA-256 is stored; it ends after INVITE_TTL or once used).
Each function is one unit of work scoped by user name, as in db.service.
"""

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from db import repo, validate
from db.errors import InvalidValue
from db.models import Household, HouseholdInvite, User, utcnow
from db.session import session_scope

HOUSEHOLD_NAME_MAX = 64
INVITE_TTL = timedelta(days=2)
# 12 random bytes: 96 bits, far beyond guessing however often a client tries.
_INVITE_BYTES = 12


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().encode("utf-8")).hexdigest()


def member_ids(session: Session, user: User) -> list[int]:
    """The ids of the users whose kept photos ``user``'s recognition may use: the members of
    their household, else only themselves."""
    if user.household_id is None:
        return [user.id]
    return list(session.scalars(select(User.id).where(User.household_id == user.household_id)
                                .order_by(User.id)))


def household_members(user: str) -> list[str]:
    """The names of the people who share kept photos with ``user`` (``user`` among them),
    sorted; just [user] without a household."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        names = session.scalars(select(User.name).where(User.id.in_(member_ids(session, owner))))
        return sorted(names, key=str.casefold)


def household(user: str) -> dict[str, Any] | None:
    """{"name", "members"} of the user's household; None when they have none."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        if owner.household_id is None:
            return None
        name = session.get(Household, owner.household_id).name
    return {"name": name, "members": household_members(user)}


def create_household(user: str, name: str) -> dict[str, Any]:
    """Start a household called ``name`` with ``user`` as its first member."""
    name = validate.name("household name", name, HOUSEHOLD_NAME_MAX)
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        _not_in_one(session, owner)
        group = Household(name=name)
        session.add(group)
        session.flush()
        owner.household_id = group.id
    return {"name": name, "members": [owner.name]}


def create_invite(user: str) -> str:
    """A one-time code with which one person can join ``user``'s household within INVITE_TTL.
    Shown once: only its hash is stored."""
    code = secrets.token_urlsafe(_INVITE_BYTES)
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        if owner.household_id is None:
            raise InvalidValue("you are in no household: create one first, then invite")
        now = utcnow()
        session.execute(delete(HouseholdInvite).where(HouseholdInvite.expires_at <= now))
        session.add(HouseholdInvite(code_hash=_code_hash(code), household_id=owner.household_id,
                                    created_by=owner.id, created_at=now, expires_at=now + INVITE_TTL))
    return code


def join_household(user: str, code: str) -> dict[str, Any]:
    """Join the household whose member made the invite ``code``; the code is used up."""
    if not isinstance(code, str) or not code.strip() or len(code) > 100:
        raise InvalidValue("enter the invite code a member of the household gave you")
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        _not_in_one(session, owner)
        invite = session.get(HouseholdInvite, _code_hash(code))
        if invite is None or invite.expires_at <= utcnow():
            raise InvalidValue("this invite code is not valid (used, expired or mistyped): "
                               "ask a member of the household for a new one")
        owner.household_id = invite.household_id
        session.delete(invite)
    return household(user)  # type: ignore[return-value]


def leave_household(user: str) -> None:
    """Stop sharing: from now on the user's photos and the others' reach only their owners.
    The last member's leaving ends the household (and its open invites)."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        group_id, owner.household_id = owner.household_id, None
        # Codes they made no longer let anyone in.
        session.execute(delete(HouseholdInvite).where(HouseholdInvite.created_by == owner.id))
        session.flush()
        if group_id is not None:
            drop_if_empty(session, group_id)


def drop_if_empty(session: Session, group_id: int) -> None:
    """Delete the household when nobody is in it any more."""
    members = session.scalar(select(func.count(User.id)).where(User.household_id == group_id))
    if not members:
        session.execute(delete(Household).where(Household.id == group_id))


def _not_in_one(session: Session, user: User) -> None:
    if user.household_id is not None:
        name = session.get(Household, user.household_id).name
        raise InvalidValue(f"you are already in the household {name!r}: leave it first")
