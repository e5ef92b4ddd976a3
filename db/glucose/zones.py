"""Time zones: an export whose timestamps carry no zone is read in the person's IANA zone.

Daylight saving time is handled explicitly. A wall-clock time the clocks skipped (spring
forward) is refused with its line. A wall-clock time that happened twice (fall back) is read
by the order of the file: a device writes readings in time order, so within the repeated
hour a step back in wall-clock time means the second pass, after the clocks went back.
"""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from db.errors import InvalidValue


def zone(name: object) -> ZoneInfo:
    """The IANA zone called ``name`` (e.g. "Europe/London"); InvalidValue when there is none."""
    if not isinstance(name, str) or not name or len(name) > 64 or "\x00" in name:
        raise InvalidValue(f"time zone must be an IANA name such as Europe/London, got {name!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidValue(f"unknown time zone {name!r}: give an IANA name such as "
                           "Europe/London or America/New_York") from None


def utc_naive(moment: datetime) -> datetime:
    """An aware datetime as naive UTC (how readings are stored)."""
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def local_naive(utc: datetime, where: ZoneInfo) -> datetime:
    """Stored naive UTC as the wall-clock time in ``where``."""
    return utc.replace(tzinfo=timezone.utc).astimezone(where).replace(tzinfo=None)


def wall_to_utc(wall: datetime, where: ZoneInfo) -> datetime:
    """One wall-clock time (a meal's eaten_at) as naive UTC; in a repeated hour, the first
    pass; in a skipped hour, as if the clocks had not yet moved."""
    return utc_naive(wall.replace(tzinfo=where, fold=0))


def skipped(wall: datetime, where: ZoneInfo) -> str | None:
    """Why a wall-clock time cannot be placed in ``where`` (the clocks skipped it), or None."""
    first = wall.replace(tzinfo=where, fold=0)
    if first.utcoffset() != wall.replace(tzinfo=where, fold=1).utcoffset() \
            and local_naive(utc_naive(first), where) != wall:
        return f"{wall.isoformat(sep=' ')} does not exist in {where.key} (the clocks went forward then)"
    return None


class WallWalk:
    """A file's wall-clock times, given in the order of time (file order, or backwards for a
    file written newest first), as naive UTC: within a repeated hour a step back in wall-clock
    time means the second pass. Holds only the walk's state, so a file of any length is placed
    one time at a time."""

    def __init__(self, where: ZoneInfo) -> None:
        self.where = where
        self._previous_repeated: datetime | None = None
        self._second_pass = False

    def place(self, wall: datetime) -> datetime | str:
        """The next wall-clock time as naive UTC, or why it is refused (a time the clocks skipped)."""
        first, second = wall.replace(tzinfo=self.where, fold=0), wall.replace(tzinfo=self.where, fold=1)
        if first.utcoffset() == second.utcoffset():
            self._previous_repeated, self._second_pass = None, False
            return utc_naive(first)
        gap = skipped(wall, self.where)
        if gap is not None:
            return gap
        if self._previous_repeated is not None and wall <= self._previous_repeated:
            self._second_pass = True
        self._previous_repeated = wall
        return utc_naive(second if self._second_pass else first)


def walls_to_utc(walls: list[datetime | None], where: ZoneInfo) -> list[datetime | str | None]:
    """Each wall-clock time of a file (in file order; None: a row without one) as naive UTC,
    or the reason it is refused (a time the clocks skipped)."""
    out: list[datetime | str | None] = [None] * len(walls)
    known = [i for i, w in enumerate(walls) if w is not None]
    if not known:
        return out
    # A file written newest first is walked backwards, so the walk is always forward in time.
    if walls[known[0]] > walls[known[-1]]:  # type: ignore[operator]
        known.reverse()
    walk = WallWalk(where)
    for i in known:
        out[i] = walk.place(walls[i])  # type: ignore[arg-type]
    return out
