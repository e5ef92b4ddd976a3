"""Password hashing with argon2id (argon2-cffi defaults, RFC 9106 low-memory profile)."""

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True when the hash was made with weaker parameters than the current ones."""
    return _hasher.check_needs_rehash(password_hash)


@cache
def _dummy_hash() -> str:
    return _hasher.hash("not a password anyone has")


def burn_time(password: str) -> None:
    """Spend as long as a real check, so a missing user cannot be told from a wrong password
    by timing."""
    verify(_dummy_hash(), password)
