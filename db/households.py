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
from db.tables import Household, HouseholdInvite, HouseholdMember, User, utcnow
from db.session import session_scope

HOUSEHOLD_NAME_MAX = 64
INVITE_TTL = timedelta(days=2)
# 12 random bytes: 96 bits, far beyond guessing however often a client tries.
_INVITE_BYTES = 12


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().encode("utf-8")).hexdigest()


def household_of(session: Session, user: User) -> int | None:
    """The id of the user's household; None when they are in none."""
    return session.scalar(select(HouseholdMember.household_id).where(HouseholdMember.user_id == user.id))


def member_ids(session: Session, user: User) -> list[int]:
    """The ids of the users whose kept photos ``user``'s recognition may use: the members of
    their household, else only themselves."""
    group = household_of(session, user)
    if group is None:
        return [user.id]
    return list(session.scalars(select(HouseholdMember.user_id).where(HouseholdMember.household_id == group)
                                .order_by(HouseholdMember.user_id)))


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
        group = household_of(session, repo.get_user(user, session=session))
        if group is None:
            return None
        name = session.get(Household, group).name
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
        session.add(HouseholdMember(user_id=owner.id, household_id=group.id))
    return {"name": name, "members": [owner.name]}


def create_invite(user: str) -> str:
    """A one-time code with which one person can join ``user``'s household within INVITE_TTL.
    Shown once: only its hash is stored."""
    code = secrets.token_urlsafe(_INVITE_BYTES)
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        group = household_of(session, owner)
        if group is None:
            raise InvalidValue("you are in no household: create one first, then invite")
        now = utcnow()
        session.execute(delete(HouseholdInvite).where(HouseholdInvite.expires_at <= now))
        session.add(HouseholdInvite(code_hash=_code_hash(code), household_id=group, created_by=owner.id,
                                    created_at=now, expires_at=now + INVITE_TTL))
    return code


def join_household(user: str, code: str) -> dict[str, Any]:
    """Join the household whose member made the invite ``code``; the code is used up."""
    if not isinstance(code, str) or not code.strip() or len(code) > 100:
        raise InvalidValue("enter the invite code a member of the household gave you")
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        _not_in_one(session, owner)
        invite = session.scalar(select(HouseholdInvite).where(HouseholdInvite.code_hash == _code_hash(code),
                                                              HouseholdInvite.expires_at > utcnow()))
        group = invite.household_id if invite is not None else None
        # Deleted by its hash, not as a loaded row: of two joins racing with one code, the
        # second deletes nothing and is refused like any used code.
        if invite is None or session.execute(delete(HouseholdInvite).where(
                HouseholdInvite.code_hash == invite.code_hash)).rowcount != 1:
            raise InvalidValue("this invite code is not valid (used, expired or mistyped): "
                               "ask a member of the household for a new one")
        session.add(HouseholdMember(user_id=owner.id, household_id=group))
    return household(user)  # type: ignore[return-value]


def leave_household(user: str) -> None:
    """Stop sharing: from now on the user's photos and the others' reach only their owners.
    The last member's leaving ends the household (and its open invites)."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        group = household_of(session, owner)
        if group is None:
            return
        session.execute(delete(HouseholdMember).where(HouseholdMember.user_id == owner.id))
        # Codes they made no longer let anyone in.
        session.execute(delete(HouseholdInvite).where(HouseholdInvite.created_by == owner.id))
        drop_if_empty(session, group)


def drop_if_empty(session: Session, group: int) -> None:
    """Delete the household when nobody is in it any more."""
    members = session.scalar(select(func.count()).where(HouseholdMember.household_id == group))
    if not members:
        session.execute(delete(Household).where(Household.id == group))


def _not_in_one(session: Session, user: User) -> None:
    group = household_of(session, user)
    if group is not None:
        name = session.get(Household, group).name
        raise InvalidValue(f"you are already in the household {name!r}: leave it first")
