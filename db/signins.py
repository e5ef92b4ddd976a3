"""Sign-in sessions kept in the database, so that every app process accepts a session another
one started, and signing out on one ends it on all of them.

A session is named by a random token that only the client holds (in a cookie); the database
keeps its SHA-256, so a copy of the database signs nobody in. A session ends after ``idle_s``
without a request and at its ``expires_at`` however active.

Reading a session is one indexed SELECT. Counting it as used is a write, so last_seen_at is
rewritten only when it is older than `touch_interval_s` (a tenth of the idle time, at most a
minute): an idle session therefore ends between 90% and 100% of the idle time after its last
request, and a busy page costs the database one write a minute, not one per request.

Failed sign-ins are counted here too (per user name and per client address, for
app.security.Throttle's backoff), so a guesser meets the same delays on every app process and
after a restart. Each try is booked (counted and given its start time) before its password is
checked, so parallel guesses wait one after another instead of sharing one delay. Rows are
keyed by a SHA-256 and bounded: forgotten a day after their last failure, and the oldest beyond
MAX_FAILURE_ROWS deleted, so a spray of names cannot grow the table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from db import repo
from db.tables import SignInFailure, SignInSession, User, utcnow
from db.session import session_scope

# Live sessions per user. Signing in beyond this ends that user's oldest sessions, so a
# script signing in in a loop cannot grow the table without bound.
MAX_SESSIONS_PER_USER = 20
# Longer "tokens" are not ours: refused before hashing.
MAX_TOKEN_LEN = 256
MAX_TOUCH_INTERVAL_S = 60.0
# Failed sign-ins: a day without one clears the count; at most this many keys are kept.
FORGET_FAILURES_AFTER = timedelta(days=1)
MAX_FAILURE_ROWS = 10_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def touch_interval_s(idle_s: float) -> float:
    """How old last_seen_at may grow before a request rewrites it."""
    return min(MAX_TOUCH_INTERVAL_S, idle_s / 10)


def start(user: str, token: str, *, max_age_s: float, now: datetime | None = None) -> None:
    """A new session for ``user`` named by ``token``, ending at the latest ``max_age_s`` from
    now. Sessions past their end (anyone's) and the user's oldest beyond
    MAX_SESSIONS_PER_USER are deleted on the way."""
    now = now or utcnow()
    with session_scope() as session:
        row = repo.get_user(user, session=session)
        session.execute(delete(SignInSession).where(SignInSession.expires_at <= now))
        oldest = session.scalars(
            select(SignInSession.id).where(SignInSession.user_id == row.id)
            .order_by(SignInSession.id.desc()).offset(MAX_SESSIONS_PER_USER - 1)
        ).all()
        if oldest:
            session.execute(delete(SignInSession).where(SignInSession.id.in_(oldest)))
        session.add(SignInSession(token_hash=token_hash(token), user_id=row.id, created_at=now,
                                  last_seen_at=now, expires_at=now + timedelta(seconds=max_age_s)))


def user_for(token: str, *, idle_s: float, now: datetime | None = None) -> str | None:
    """The user whose live session ``token`` names, counting the session as used now; None
    for a token that names no session, an ended one or an expired one (which is deleted)."""
    if not token or len(token) > MAX_TOKEN_LEN:
        return None
    now = now or utcnow()
    with session_scope(write=False) as session:
        found = session.execute(
            select(SignInSession.id, SignInSession.last_seen_at, SignInSession.expires_at, User.name)
            .join(User, User.id == SignInSession.user_id)
            .where(SignInSession.token_hash == token_hash(token))
        ).first()
    if found is None:
        return None
    unused = (now - found.last_seen_at).total_seconds()
    if now >= found.expires_at or unused > idle_s:
        end(token)
        return None
    if unused >= touch_interval_s(idle_s):
        with session_scope() as session:
            # Only forwards: a slower process must not move it back.
            session.execute(update(SignInSession)
                            .where(SignInSession.id == found.id, SignInSession.last_seen_at < now)
                            .values(last_seen_at=now))
    return found.name


def end(token: str) -> bool:
    """Sign out: delete the session ``token`` names. True when there was one."""
    if not token or len(token) > MAX_TOKEN_LEN:
        return False
    with session_scope() as session:
        result = session.execute(delete(SignInSession).where(SignInSession.token_hash == token_hash(token)))
        return bool(result.rowcount)


def count(user: str) -> int:
    """The user's sessions in the table (live or not yet cleaned up)."""
    with session_scope(write=False) as session:
        row = repo.get_user(user, session=session)
        return len(session.scalars(select(SignInSession.id).where(SignInSession.user_id == row.id)).all())


# --- failed sign-ins -------------------------------------------------------------------------

def _failure_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def failures(key: str) -> tuple[int, datetime] | None:
    """Consecutive failures on record for ``key`` (tries still being checked included) and
    the time of the latest try; None for none."""
    with session_scope(write=False) as session:
        found = session.execute(select(SignInFailure.failures, SignInFailure.last_failed_at)
                                .where(SignInFailure.key_hash == _failure_key(key))).first()
    return None if found is None else (found.failures, found.last_failed_at)


def reserve_try(delays: Mapping[str, Callable[[int], float]], *, max_wait_s: float,
                now: datetime | None = None) -> tuple[float, dict[str, int]] | None:
    """Book one sign-in try for every key of ``delays`` before its password is checked, in
    one transaction, so that parallel tries (on any app process) queue up instead of all
    reading the same count: the try counts as a failure until clear_failures says otherwise,
    and starts ``delays[key](failures so far)`` seconds after the key's latest failure or
    booked try, whichever is later. Returns (seconds to wait from now, each key's count with
    this try), or None, booking nothing, when the wait would be over ``max_wait_s``."""
    now = now or utcnow()
    try:
        return _reserve(delays, max_wait_s, now)
    except IntegrityError:  # another process inserted a key first: book on its row
        return _reserve(delays, max_wait_s, now)


def _reserve(delays: Mapping[str, Callable[[int], float]], max_wait_s: float, now: datetime
             ) -> tuple[float, dict[str, int]] | None:
    with session_scope() as session:  # BEGIN IMMEDIATE on SQLite; rows locked on PostgreSQL
        session.execute(delete(SignInFailure).where(SignInFailure.last_failed_at < now - FORGET_FAILURES_AFTER))
        rows, start = {}, now
        for key, delay_s in delays.items():
            row = session.scalars(select(SignInFailure).where(SignInFailure.key_hash == _failure_key(key))
                                  .with_for_update()).first()
            if row is not None:
                start = max(start, row.last_failed_at + timedelta(seconds=delay_s(row.failures)))
            rows[key] = row
        wait_s = (start - now).total_seconds()
        if wait_s > max_wait_s:
            return None
        for key, row in rows.items():
            if row is None:
                session.add(SignInFailure(key_hash=_failure_key(key), failures=1, last_failed_at=start))
            else:
                row.failures, row.last_failed_at = row.failures + 1, start
        session.flush()
        _forget_old_failures(session, now)
        return wait_s, {key: 1 if row is None else row.failures for key, row in rows.items()}


def record_failure(keys: Iterable[str], *, now: datetime | None = None) -> None:
    """A booked try failed its check: the next delays of ``keys`` count from ``now`` (the
    try's count was added when it was booked)."""
    now = now or utcnow()
    with session_scope() as session:
        session.execute(update(SignInFailure)
                        .where(SignInFailure.key_hash.in_([_failure_key(key) for key in keys]),
                               SignInFailure.last_failed_at < now)
                        .values(last_failed_at=now))


def clear_failures(key: str) -> None:
    """A successful sign-in: ``key`` starts again from no failures."""
    key_hash = _failure_key(key)
    if failures(key) is not None:  # most sign-ins have none: no write for them
        with session_scope() as session:
            session.execute(delete(SignInFailure).where(SignInFailure.key_hash == key_hash))


def _forget_old_failures(session, now: datetime) -> None:
    session.execute(delete(SignInFailure).where(SignInFailure.last_failed_at < now - FORGET_FAILURES_AFTER))
    excess = session.scalar(select(func.count()).select_from(SignInFailure)) - MAX_FAILURE_ROWS
    if excess > 0:
        oldest = session.scalars(select(SignInFailure.key_hash)
                                 .order_by(SignInFailure.last_failed_at).limit(excess)).all()
        session.execute(delete(SignInFailure).where(SignInFailure.key_hash.in_(oldest)))
