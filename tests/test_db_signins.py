"""Sign-in sessions in the database (db.signins): hashed tokens, idle and absolute expiry,
throttled last-seen writes, sign-out, a bound per user, and no session ever names another user.
Failed sign-ins: counted across app processes, hashed, forgotten after a day, bounded."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from db_support import db_url  # noqa: F401  (fixture)
from sqlalchemy import select

from app.security import Throttle
from db import service, signins
from db.tables import SignInFailure, SignInSession, utcnow
from db.session import session_scope

IDLE_S, MAX_AGE_S = 1800.0, 12 * 3600.0


def last_seen(token: str):
    with session_scope(write=False) as session:
        return session.scalar(select(SignInSession.last_seen_at)
                              .where(SignInSession.token_hash == signins.token_hash(token)))


def test_tokens_are_stored_hashed_and_name_only_their_user(db_url):
    service.create_user("alice", "alice-pass-123")
    service.create_user("bob", "bob-pass-456")
    signins.start("alice", "token-of-alice", max_age_s=MAX_AGE_S)
    signins.start("bob", "token-of-bob", max_age_s=MAX_AGE_S)
    with session_scope(write=False) as session:
        stored = session.scalars(select(SignInSession.token_hash)).all()
    assert sorted(stored) == sorted(signins.token_hash(t) for t in ("token-of-alice", "token-of-bob"))
    assert not {"token-of-alice", "token-of-bob"} & set(stored)
    assert signins.user_for("token-of-alice", idle_s=IDLE_S) == "alice"
    assert signins.user_for("token-of-bob", idle_s=IDLE_S) == "bob"
    for guess in ("", "token-of-", "token-of-alicE", signins.token_hash("token-of-alice"), "x" * 5000):
        assert signins.user_for(guess, idle_s=IDLE_S) is None


def test_idle_and_absolute_expiry_and_sign_out(db_url):
    service.create_user("alice", "alice-pass-123")
    start = utcnow()
    signins.start("alice", "idle", max_age_s=MAX_AGE_S, now=start)
    assert signins.user_for("idle", idle_s=IDLE_S, now=start + timedelta(seconds=IDLE_S - 1)) == "alice"
    # Used just now (above), so 29 more minutes are fine; 31 minutes without a request are not.
    used = start + timedelta(seconds=IDLE_S - 1)
    assert signins.user_for("idle", idle_s=IDLE_S, now=used + timedelta(seconds=IDLE_S - 1)) == "alice"
    later = used + timedelta(seconds=IDLE_S - 1) + timedelta(seconds=IDLE_S + 1)
    assert signins.user_for("idle", idle_s=IDLE_S, now=later) is None
    assert last_seen("idle") is None  # an expired session is deleted: it stays refused

    signins.start("alice", "busy", max_age_s=3600, now=start)
    for minute in range(0, 60, 10):  # used every 10 minutes: never idle
        assert signins.user_for("busy", idle_s=IDLE_S, now=start + timedelta(minutes=minute)) == "alice"
    assert signins.user_for("busy", idle_s=IDLE_S, now=start + timedelta(minutes=60)) is None  # max age

    signins.start("alice", "leaving", max_age_s=MAX_AGE_S)
    assert signins.end("leaving") and signins.user_for("leaving", idle_s=IDLE_S) is None
    assert not signins.end("leaving")


def test_last_seen_is_written_at_most_once_per_touch_interval(db_url):
    service.create_user("alice", "alice-pass-123")
    start = utcnow()
    signins.start("alice", "t", max_age_s=MAX_AGE_S, now=start)
    interval = signins.touch_interval_s(IDLE_S)
    assert interval == 60.0 and signins.touch_interval_s(10.0) == 1.0
    for second in range(0, 59, 3):  # twenty requests within the interval: no write
        assert signins.user_for("t", idle_s=IDLE_S, now=start + timedelta(seconds=second)) == "alice"
    assert last_seen("t") == start
    assert signins.user_for("t", idle_s=IDLE_S, now=start + timedelta(seconds=61)) == "alice"
    assert last_seen("t") == start + timedelta(seconds=61)
    # A process whose clock is behind never moves it back.
    assert signins.user_for("t", idle_s=IDLE_S, now=start + timedelta(seconds=50)) == "alice"
    assert last_seen("t") == start + timedelta(seconds=61)


def test_sessions_per_user_are_bounded_and_expired_ones_cleaned_up(db_url):
    service.create_user("alice", "alice-pass-123")
    service.create_user("bob", "bob-pass-456")
    start = utcnow()
    signins.start("bob", "short", max_age_s=60, now=start)
    for i in range(signins.MAX_SESSIONS_PER_USER + 5):
        signins.start("alice", f"a{i}", max_age_s=MAX_AGE_S, now=start + timedelta(seconds=120))
    assert signins.count("alice") == signins.MAX_SESSIONS_PER_USER
    assert signins.user_for("a0", idle_s=IDLE_S, now=start + timedelta(seconds=121)) is None  # the oldest ended
    assert signins.user_for(f"a{signins.MAX_SESSIONS_PER_USER + 4}", idle_s=IDLE_S,
                            now=start + timedelta(seconds=121)) == "alice"
    assert signins.count("bob") == 0  # past its end: deleted by the next sign-in


# --- failed sign-ins ----------------------------------------------------------------------------

def test_the_wait_doubles_after_the_free_failures_in_every_process(db_url):
    here, elsewhere = (Throttle("user", free=5, base_s=1.0, cap_s=30.0) for _ in range(2))  # two app processes
    for failures in range(1, 6):
        assert here.wait_s("bob") == 0 and elsewhere.wait_s("bob") == 0
        assert elsewhere.reserve("bob", max_wait_s=30) == (0.0, failures)
    assert 0.9 < here.wait_s("bob") <= 1.0
    wait, failures = here.reserve("bob", max_wait_s=30)  # booked 1 s after the fifth
    assert 0.9 < wait <= 1.0 and failures == 6
    assert 2.9 < elsewhere.wait_s("bob") <= 3.0  # 2 s after the booked try
    assert here.wait_s("alice") == 0
    assert Throttle("client", free=5, base_s=1.0, cap_s=30.0).wait_s("bob") == 0  # another kind of key
    elsewhere.succeeded("bob")
    assert here.wait_s("bob") == 0


def test_parallel_tries_are_booked_one_after_another(db_url):
    """Twelve guesses at once after five failures: each books its start after the one before
    (1 s, then 2, 4 and 8 s more); those that would wait over 30 s are refused, booking nothing."""
    throttle, start = Throttle("user", free=5, base_s=1.0, cap_s=30.0), utcnow()

    def book(_=None, limit: float = 30):
        return signins.reserve_try({"user:bob": throttle.delay_s}, max_wait_s=limit, now=start)

    for _ in range(5):
        assert book() == (0.0, {"user:bob": _ + 1})
    with ThreadPoolExecutor(12) as pool:
        booked = list(pool.map(book, range(12)))
    assert sorted(b[0] for b in booked if b) == [1.0, 3.0, 7.0, 15.0]
    assert sorted(b[1]["user:bob"] for b in booked if b) == [6, 7, 8, 9]
    assert booked.count(None) == 8 and signins.failures("user:bob") == (9, start + timedelta(seconds=15))
    assert [book(limit=1e9)[0] for _ in range(3)] == [31.0, 61.0, 91.0]  # 16 s, then the 30 s cap


def test_failures_are_stored_hashed_forgotten_after_a_day_and_bounded(db_url, monkeypatch):
    def record_failure(key: str, now=None) -> None:
        assert signins.reserve_try({key: lambda failures: 0.0}, max_wait_s=0, now=now) is not None

    long_ago = utcnow() - signins.FORGET_FAILURES_AFTER - timedelta(minutes=1)
    record_failure("user:my-password-typed-as-a-name", now=long_ago)
    with session_scope(write=False) as session:
        assert "my-password" not in " ".join(session.scalars(select(SignInFailure.key_hash)))
    record_failure("user:bob")
    assert signins.failures("user:my-password-typed-as-a-name") is None  # a day passed: forgotten
    monkeypatch.setattr(signins, "MAX_FAILURE_ROWS", 3)
    start = utcnow()
    for i in range(5):  # a spray of names keeps only the latest three
        record_failure(f"user:spray{i}", now=start + timedelta(seconds=i + 1))
    kept = [k for k in ["user:bob"] + [f"user:spray{i}" for i in range(5)] if signins.failures(k)]
    assert kept == ["user:spray2", "user:spray3", "user:spray4"]
