"""What the app, the API and the CLI call for glucose: import an export, the standard report,
each meal's response and the person's response per food. Every function is scoped by user
name, one unit of work in its own session_scope, and never touches another user's rows.

Times: readings are stored in UTC; meals are the eater's local wall-clock time (db.service);
the person's time zone (``time_zone``, default UTC) joins the two. Days are local days.
"""

from __future__ import annotations

import bisect
import csv
import itertools
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import IO, Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from db import arguments, repo
from db.errors import InvalidValue, NotFound
from db.glucose import formats, metrics, units, zones
from db.tables import GlucoseEvent, GlucoseReading, MealEntry, User
from db.session import session_scope

# A 90-day 5-minute Clarity export is about 2 MB; a year's is under 10 MB.
MAX_IMPORT_BYTES = 32 * 2**20
MAX_REPORT_DAYS = 366
# Refused rows listed one by one up to this many (all are counted).
MAX_REFUSED_LISTED = 100
# Entries logged within this many minutes of a meal's first entry are the same meal.
SAME_MEAL_MINUTES = 15
_INSERT_CHUNK = 5000
DISCLAIMER = ("This shows what happened to your glucose; it is not dosing advice and predicts "
              "nothing. Talk to your diabetes team before changing treatment.")


# --- time zone ------------------------------------------------------------------------------

def time_zone(user: str) -> str:
    with session_scope(write=False) as session:
        return repo.get_user(user, session=session).time_zone


def set_time_zone(user: str, name: str) -> str:
    """Set the person's IANA time zone (checked); returns it."""
    checked = zones.zone(name).key
    with session_scope() as session:
        repo.get_user(user, session=session).time_zone = checked
    return checked


# --- the unit glucose is shown in -----------------------------------------------------------

def glucose_unit(user: str) -> str:
    """The unit the person is shown glucose in: their choice (Settings), else their region's."""
    with session_scope(write=False) as session:
        return _unit(repo.get_user(user, session=session))


def _unit(owner: User) -> str:
    return units.unit_for(owner.region, owner.glucose_unit)


# --- import ---------------------------------------------------------------------------------

def import_export(user: str, data: bytes, *, fmt: str = "auto", tz: str | None = None) -> dict[str, Any]:
    """Import a glucose export (bytes of a file in one of formats.FORMATS, or "auto"); times
    without a zone are read in ``tz`` (default: the person's time zone). Readings already
    stored (same source, kind and time) are skipped, and so are sensor readings another
    device's file already holds (within SAME_MOMENT); rows that cannot be read are refused
    with their line numbers; a file that cannot be read at all imports nothing. Returns
    {"format", "time_zone", "read", "added", "duplicates" (all skipped), "other_device" (of
    those, the other device's), "events_read" and "events_added" (insulin and carbohydrate
    entries: formats.Event), "refused" (count), "refused_rows" (the first
    MAX_REFUSED_LISTED, "line N: why")}."""
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidValue("the export must be the bytes of a file")
    _check_size(len(data))
    return _import(user, bytes(data), fmt, tz)


def import_file(user: str, path: Path, *, fmt: str = "auto", tz: str | None = None) -> dict[str, Any]:
    """import_export of a file on disk (an upload, the command line's file), read a line or a
    chunk at a time: its memory does not grow with the file's size (see formats.Source)."""
    try:
        _check_size(Path(path).stat().st_size)
    except OSError as exc:
        raise InvalidValue(f"cannot read the export: {exc.strerror}") from None
    return _import(user, Path(path), fmt, tz)


def _check_size(size: int) -> None:
    if size > MAX_IMPORT_BYTES:
        raise InvalidValue(f"the file is larger than {MAX_IMPORT_BYTES // 2**20} MB; export a shorter period")


def _import(user: str, export: bytes | Path, fmt: str, tz: str | None) -> dict[str, Any]:
    if fmt not in ("auto", *formats.FORMATS):
        raise InvalidValue(f"unknown format {fmt!r}; choose auto, {', '.join(formats.FORMATS)}")
    zone_name = time_zone(user) if tz is None else tz
    where = zones.zone(zone_name)
    parsed = formats.parse(formats.Source.of(export), fmt, where)
    with session_scope() as session:  # one transaction: all of the file or none of it
        owner = repo.get_user(user, session=session)
        # Readings stored before this import: only they can be another device's (the file's own
        # chunks, inserted meanwhile, are not).
        stored_until = session.scalar(select(func.max(GlucoseReading.id))
                                      .where(GlucoseReading.user_id == owner.id)) or 0
        before, other_device = _count(session, owner), 0
        for chunk in parsed.unique_readings(_INSERT_CHUNK):  # in time order: each chunk's neighbours are few
            seen = _seen_by_another_device(session, owner, [r for r in chunk if r.kind == "cgm"],
                                           parsed.source, stored_until)
            other_device += len(seen)
            _insert_new(session, [{"user_id": owner.id, "measured_at": r.measured_at, "mg_dl": r.mg_dl,
                                   "kind": r.kind, "source": parsed.source, "reported_as": r.reported_as}
                                  for r in chunk if r not in seen])
        added = _count(session, owner) - before
        events_before = _event_count(session, owner)
        for events in parsed.event_chunks(_INSERT_CHUNK):
            _insert_new(session, [{"user_id": owner.id, "at": e.at, "kind": e.kind, "amount": e.amount,
                                   "source": parsed.source} for e in events], GlucoseEvent)
        events_added = _event_count(session, owner) - events_before
    read = parsed.reading_count
    return {"format": parsed.source, "time_zone": where.key, "read": read,
            "added": added, "duplicates": read - added, "other_device": other_device,
            "events_read": parsed.event_count, "events_added": events_added,
            "refused": len(parsed.refused),
            "refused_rows": [str(r) for r in itertools.islice(parsed.refused, MAX_REFUSED_LISTED)]}


# Two sensor readings closer than this (half the 5-minute interval of CGM exports) are one
# moment recorded twice: a receiver and a phone on one sensor, or an export of each.
SAME_MOMENT = timedelta(seconds=150)


def _seen_by_another_device(session: Session, owner: User, readings: list[formats.Reading],
                            source: str, stored_until: int) -> set:
    """The CGM ``readings`` within SAME_MOMENT of one already stored (id up to ``stored_until``)
    from another device's file (another source, or the same source at another time): the first
    stored is kept, so importing the other device's export adds only the times it alone covers.
    The same source at the same time is a re-import, left to the unique constraint (a duplicate)."""
    if not readings:
        return set()
    first, last = min(r.measured_at for r in readings), max(r.measured_at for r in readings)
    stored = session.execute(
        select(GlucoseReading.measured_at, GlucoseReading.source)
        .where(GlucoseReading.user_id == owner.id, GlucoseReading.kind == "cgm", GlucoseReading.id <= stored_until,
               GlucoseReading.measured_at >= first - SAME_MOMENT, GlucoseReading.measured_at <= last + SAME_MOMENT)
        .order_by(GlucoseReading.measured_at)).all()
    times = [t for t, _ in stored]
    seen = set()
    for reading in readings:
        near = stored[bisect.bisect_left(times, reading.measured_at - SAME_MOMENT):
                      bisect.bisect_right(times, reading.measured_at + SAME_MOMENT)]
        if any(t != reading.measured_at or other != source for t, other in near):
            seen.add(reading)
    return seen


def _count(session: Session, owner: User) -> int:
    return session.scalar(select(func.count(GlucoseReading.id))
                          .where(GlucoseReading.user_id == owner.id)) or 0


def _event_count(session: Session, owner: User) -> int:
    return session.scalar(select(func.count(GlucoseEvent.id)).where(GlucoseEvent.user_id == owner.id)) or 0


def _insert_new(session: Session, rows: list[dict[str, Any]], table=GlucoseReading) -> None:
    """One multi-row INSERT that skips rows the unique constraint already holds."""
    if not rows:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table.__table__).on_conflict_do_nothing()
    session.execute(statement, rows)


def reading_count(user: str) -> int:
    with session_scope(write=False) as session:
        return _count(session, repo.get_user(user, session=session))


# --- reads ----------------------------------------------------------------------------------

def _readings(session: Session, owner: User, start: datetime, end: datetime,
              kinds: tuple[str, ...] = ("cgm",)) -> list[tuple[datetime, float]]:
    """(UTC time, mg/dL) of the owner's readings with start <= time < end, in time order."""
    statement = (select(GlucoseReading.measured_at, GlucoseReading.mg_dl)
                 .where(GlucoseReading.user_id == owner.id, GlucoseReading.kind.in_(kinds),
                        GlucoseReading.measured_at >= start, GlucoseReading.measured_at < end)
                 .order_by(GlucoseReading.measured_at))
    return [(row[0], row[1]) for row in session.execute(statement)]


def _events(session: Session, owner: User, start: datetime, end: datetime) -> list[GlucoseEvent]:
    """The owner's insulin and carbohydrate events with start <= time < end, in time order."""
    return list(session.scalars(select(GlucoseEvent).where(
        GlucoseEvent.user_id == owner.id, GlucoseEvent.at >= start, GlucoseEvent.at < end)
        .order_by(GlucoseEvent.at)))


def _total(events) -> float | None:
    amounts = [e.amount for e in events]
    return round(sum(amounts), 1) if amounts else None


def _period(days: object, end: object, where) -> tuple[date, date]:
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_REPORT_DAYS:
        raise InvalidValue(f"days must be a whole number from 1 to {MAX_REPORT_DAYS}, got {days!r}")
    if isinstance(end, str):
        try:
            end = date.fromisoformat(end.strip())
        except ValueError:
            raise InvalidValue(f"the end day must be a date YYYY-MM-DD, got {end[:20]!r}") from None
    last = datetime.now(where).date() if end is None else arguments.day(end)
    return last - timedelta(days=days - 1), last


def report(user: str, days: int = 14, end: date | str | None = None) -> dict[str, Any]:
    """The standard CGM report for the ``days`` local days ending with ``end`` (default today
    in the person's zone): the consensus metrics (metrics.consensus_metrics' keys, GRI
    included; values in mg/dL whatever the person reads, "glucose_unit" the unit to show them
    in), "data_warning" (metrics.data_warning: too few days or readings, else None), the AGP by
    local time of day ("agp"; smoothed for the chart: "agp_smoothed", metrics.smooth_profile),
    the last 14 days' readings by time of day ("daily", metrics.daily_profiles), the period's
    meals with their carbohydrate ("meals") and the devices' insulin and carbohydrate ("events")."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        where, unit = zones.zone(owner.time_zone), _unit(owner)
        first, last = _period(days, end, where)
        start_local = datetime.combine(first, time())
        end_local = datetime.combine(last + timedelta(days=1), time())
        start, stop = zones.wall_to_utc(start_local, where), zones.wall_to_utc(end_local, where)
        readings = _readings(session, owner, start, stop)
        events = [(zones.local_naive(e.at, where), e.kind, e.amount) for e in _events(session, owner, start, stop)]
        meals = _meal_groups(repo.entries(owner, session=session, start=start_local, end=end_local))
    minutes = [(t - start).total_seconds() / 60 for t, _ in readings]
    values = [v for _, v in readings]
    interval = metrics.sampling_interval_minutes(minutes)
    local = [zones.local_naive(t, where) for t, _ in readings]
    out = {"user": user, "time_zone": where.key, "glucose_unit": unit, "start": first.isoformat(),
           "end": last.isoformat(), "days": days, "sampling_minutes": interval}
    out |= metrics.consensus_metrics(values, minutes, period_minutes=(stop - start).total_seconds() / 60,
                                     interval_minutes=interval)
    out["data_warning"] = metrics.data_warning(days, out["active_percent"])
    out["agp"] = metrics.agp_profile([t.hour * 60 + t.minute + t.second / 60 for t in local], values)
    out["agp_smoothed"] = metrics.smooth_profile(out["agp"])
    out["daily"] = metrics.daily_profiles(local, values, first, last)
    out["meals"] = [{"eaten_at": m["eaten_at"].isoformat(timespec="minutes"),
                     "minute_of_day": m["eaten_at"].hour * 60 + m["eaten_at"].minute,
                     "carbohydrate_g": m["carbohydrate_g"], "foods": m["foods"]} for m in meals]
    out["events"] = [{"at": at.isoformat(timespec="minutes"), "minute_of_day": at.hour * 60 + at.minute,
                      "kind": kind, "amount": amount} for at, kind, amount in events]
    out["disclaimer"] = DISCLAIMER
    return out


# --- meals ----------------------------------------------------------------------------------

def _meal_groups(entries: list[MealEntry]) -> list[dict[str, Any]]:
    """Entries logged within SAME_MEAL_MINUTES of a meal's first entry, as one meal each: its
    start (local), foods, total carbohydrate, the food giving the most carbohydrate with its
    share, and whether the person keeps it in the per-food figures ("kept": any of its entries
    kept, see keep_meal)."""
    groups: list[list[MealEntry]] = []
    for entry in entries:  # in time order
        if groups and entry.eaten_at - groups[-1][0].eaten_at <= timedelta(minutes=SAME_MEAL_MINUTES):
            groups[-1].append(entry)
        else:
            groups.append([entry])
    meals = []
    for group in groups:
        carbs = [(e.food_name, e.carbohydrate_g or 0.0) for e in group]
        total = sum(c for _, c in carbs)
        main, main_carbs = max(carbs, key=lambda pair: pair[1])
        meals.append({"eaten_at": group[0].eaten_at, "entry_ids": [e.id for e in group],
                      "foods": [e.food_name for e in group], "carbohydrate_g": round(total, 1),
                      "main_food": main, "main_share": main_carbs / total if total else 0.0,
                      "kept": any(e.keep_in_food_figures for e in group)})
    return meals


def meal_responses(user: str, start: datetime | None = None, end: datetime | None = None) -> list[dict[str, Any]]:
    """Each meal of the person's log (local start <= eaten_at < end, either optional) with its
    glucose response (metrics.meal_response) and its curve from 30 min before to 3 h after
    ("curve": [minutes from the meal, mg/dL])."""
    start = None if start is None else arguments.local_datetime("start", start)
    end = None if end is None else arguments.local_datetime("end", end)
    before, after = (timedelta(minutes=m) for m in metrics.WINDOW_MINUTES)
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        where = zones.zone(owner.time_zone)
        # Meals up to one curve (3 h) before ``start`` too: their curves still run into the
        # first meals of the period, which must be flagged for them.
        meals = _meal_groups(repo.entries(owner, session=session, start=None if start is None else start - after,
                                          end=end))
        if not meals:
            return []
        starts = [zones.wall_to_utc(m["eaten_at"], where) for m in meals]
        readings = _readings(session, owner, starts[0] + before, starts[-1] + after + timedelta(seconds=1))
        events = _events(session, owner, starts[0] + before, starts[-1] + after + timedelta(seconds=1))
        has_insulin = session.scalar(select(func.count(GlucoseEvent.id)).where(
            GlucoseEvent.user_id == owner.id, GlucoseEvent.kind != "carbs")) > 0
    times = [t for t, _ in readings]
    out = []
    for meal, meal_utc in zip(meals, starts):
        if start is not None and meal["eaten_at"] < start:
            continue
        low = bisect.bisect_left(times, meal_utc + before)
        high = bisect.bisect_right(times, meal_utc + after)
        curve = [((t - meal_utc).total_seconds() / 60, v) for t, v in readings[low:high]]
        # Another meal within one curve (3 h) before or after: its glucose is in this curve.
        other = any(s != meal_utc and abs(s - meal_utc) <= after for s in starts)
        near = [((e.at - meal_utc).total_seconds() / 60, e) for e in events
                if before <= e.at - meal_utc <= after]
        boluses = [t for t, e in near if e.kind == "bolus"]
        response = metrics.meal_response([c[0] for c in curve], [c[1] for c in curve],
                                         other_meal=other, bolus_minutes=boluses if has_insulin else None)
        low, high = metrics.MEAL_BOLUS_MINUTES
        out.append({**meal, "eaten_at": meal["eaten_at"].isoformat(timespec="minutes"),
                    "main_share": round(meal["main_share"], 2), "response": response,
                    "curve": [[round(t, 1), v] for t, v in curve],
                    # What the person's devices recorded with the meal: beside it, never advice.
                    "device_carbs_g": _total(e for t, e in near if e.kind == "carbs" and low <= t <= high),
                    "meal_bolus_units": _total(e for t, e in near if e.kind == "bolus" and low <= t <= high),
                    "events": [[round(t, 1), e.kind, e.amount] for t, e in near]})
    return out


def meal_of_entry(user: str, entry_id: int) -> dict[str, Any]:
    """The meal (as in meal_responses_json) that the user's entry ``entry_id`` belongs to;
    NotFound for an entry that is not theirs."""
    with session_scope(write=False) as session:
        entry = repo.get_entry(repo.get_user(user, session=session), entry_id, session=session)
        eaten_at = entry.eaten_at
    day = timedelta(days=1)  # a meal's entries lie within SAME_MEAL_MINUTES of each other
    for meal in meal_responses_json(user, eaten_at - day, eaten_at + day):
        if entry_id in meal["entry_ids"]:
            return meal
    raise NotFound(f"no meal entry #{entry_id}")  # not reached: the entry was found above


def keep_meal(user: str, entry_id: int, keep: bool) -> dict[str, Any]:
    """Keep the meal that the user's entry ``entry_id`` belongs to in their per-food figures
    although it is flagged (``keep`` True), or let its flags decide again (False): the choice is
    stored on each of the meal's entries (MealEntry.keep_in_food_figures). Returns the meal as
    meal_of_entry does; NotFound for an entry that is not theirs."""
    keep = arguments.flag("keep", keep)
    meal = meal_of_entry(user, entry_id)
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        for each in meal["entry_ids"]:
            repo.get_entry(owner, each, session=session).keep_in_food_figures = keep
    return {**meal, "kept": keep}


def meal_responses_json(user: str, start: datetime | None = None, end: datetime | None = None) -> list[dict[str, Any]]:
    """meal_responses with each response as a dict (for JSON)."""
    return [{**m, "response": m["response"].to_dict()} for m in meal_responses(user, start, end)]


def food_responses(user: str) -> dict[str, Any]:
    """The person's own response per food (metrics.per_food, in mg/dL: clean meals and the
    flagged ones they keep), with the minimum it needs and the unit to show it in."""
    return {"glucose_unit": glucose_unit(user), "minimum_meals": metrics.MIN_MEALS_PER_FOOD,
            "main_food_share": metrics.MAIN_FOOD_CARB_SHARE,
            "foods": metrics.per_food(meal_responses(user)), "disclaimer": DISCLAIMER}


# --- the dietitian's copy -------------------------------------------------------------------

GLUCOSE_EXPORT_COLUMNS = ("measured_at_utc", "local_time", "mg_dl", "mmol_l", "kind", "source",
                          "reported_as")


def export_readings_csv(user: str, out: IO[str]) -> int:
    """Write all the person's readings (time order) as CSV for their diabetes team, beside the
    meal log of db.service.export_log_csv; returns the number of rows."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        where = zones.zone(owner.time_zone)
        rows = list(_all_readings(session, owner))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GLUCOSE_EXPORT_COLUMNS)
    for reading in rows:
        writer.writerow([reading.measured_at.isoformat(), zones.local_naive(reading.measured_at, where).isoformat(),
                         reading.mg_dl, units.in_unit(reading.mg_dl, units.MMOL_L), reading.kind,
                         reading.source, reading.reported_as or ""])
    return len(rows)


def _all_readings(session: Session, owner: User) -> Iterator[GlucoseReading]:
    statement = (select(GlucoseReading).where(GlucoseReading.user_id == owner.id)
                 .order_by(GlucoseReading.measured_at, GlucoseReading.id))
    yield from session.scalars(statement)
