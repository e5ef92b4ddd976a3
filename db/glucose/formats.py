"""Readers for glucose exports, each laid out as its public description says:

- Dexcom Clarity CSV: a header ``Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,
  ...,Glucose Value (mg/dL)`` (or ``(mmol/L)``), then rows of patient, device and alert
  information with no timestamp, then one row per event; ``EGV`` rows are sensor readings,
  ``Calibration`` rows fingerstick values; "Low" / "High" below 40 / above 400 mg/dL.
  Timestamps are the receiver's wall-clock time without a zone. Some locales write ``;``
  between fields and a decimal comma.
- LibreView CSV: a first line naming the export (``Glucose Data,Generated on,...``), then
  ``Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose
  mg/dL,...,Strip Glucose mg/dL,...`` (or ``mmol/L``), in the account's language (German:
  ``Gerät,Seriennummer,Gerätezeitstempel,Aufzeichnungstyp,Glukosewert-Verlauf mg/dL,...``)
  but always in that order, so columns are read by position. Record Type 0 is a historic (every 15
  minutes) reading, 1 a scan, 2 a strip (meter) reading; other types (insulin, food, notes)
  are not glucose. Device Timestamp is wall-clock time without a zone, written as the
  account's locale does: ``MM-DD-YYYY hh:mm AM`` (US), ``DD-MM-YYYY HH:MM`` (``/`` or ``.``
  between them too, and a two-digit year as a spreadsheet saves it: ``14.11.26``) or
  ``YYYY-MM-DD HH:MM``; which of day and month comes first is read from the file itself.
  European exports (and files a spreadsheet saved again) may separate fields with ``;`` and
  write a decimal comma (``5,8``); a row with more fields than its header (an unquoted decimal
  comma in a comma-separated file, which would shift every value) is refused, never misread.
- Nightscout ``entries`` export: JSON (an array of entries: ``type`` "sgv" with ``sgv`` in
  mg/dL (a number or numeric text; mmol/L where ``units`` says so, or a decimal below 39, which
  no mg/dL sensor writes), or "mbg" with ``mbg``, a meter value; ``date`` in milliseconds since 1970 UTC,
  ``dateString`` ISO 8601 with its offset) or the tab-separated CSV of /api/v1/entries.csv
  (``dateString, date, sgv, direction, device``, no header); a ``treatments`` export (entries
  with ``eventType``, ``insulin`` units and ``carbs`` grams, ``created_at``) gives events.
- Events, beside the readings: Clarity's ``Insulin`` rows (``Fast-Acting``: a bolus,
  ``Long-Acting``: basal; ``Insulin Value (u)``) and ``Carbs`` rows (``Carb Value (grams)``);
  LibreView's record type 4 (rapid- and long-acting insulin units) and 5 (food: carbohydrate
  grams). Shown beside the curve, never used to suggest a dose.
- Plain CSV: a header naming a time column (``timestamp``, ``time``) and a glucose column
  (``value``, ``glucose``, ``gl``; iglu's long format ``id,time,gl`` too), optionally ``unit``
  (mg/dL or mmol/L; else the value column's name, else the values: all at most 33.3 is mmol/L)
  and ``kind`` (cgm or meter); ISO 8601 timestamps, with an offset or read in the person's zone.
  A file with several ``id`` values holds several people's readings and is refused.

mmol/L becomes mg/dL at 18.016 (the molar mass of glucose, 180.16 g/mol, over 10).

A row that cannot be read is refused with its line number and the rest is read; a file that
cannot be read at all raises InvalidValue, so nothing of it is imported.

A file is read a line (or a JSON entry) at a time from its bytes (Source), never as one string,
and its rows are kept as columns (ParsedFile), so what an import holds does not grow with its
text: a file of 32 MB, of readings or of junk, costs the server a few tens of MB.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import os
import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import BinaryIO, TextIO
from zoneinfo import ZoneInfo

import numpy as np

from db.errors import InvalidValue
from db.glucose import zones
from db.glucose.units import MMOL_L_TO_MG_DL
from db.tables import GLUCOSE_KINDS, GLUCOSE_MG_DL_RANGE, MAX_CARBS_G, MAX_INSULIN_UNITS

FORMATS: tuple[str, ...] = ("clarity", "libreview", "nightscout", "csv")
# Each format as a message names it: "read as a LibreView export, but ...".
FORMAT_NAMES = {"clarity": "a Dexcom Clarity export", "libreview": "a LibreView export",
                "nightscout": "a Nightscout export", "csv": "a plain CSV"}
# A year of 5-minute readings is about 105,000 rows; reading stops past this many.
MAX_ROWS = 400_000
# The longest line of a CSV, and the longest JSON entry, read (in characters; an export's are
# under 1 kB): a longer one is no export.
MAX_LINE = MAX_ENTRY = 64 * 1024
# Lines (or JSON entries) read at most: a year of 5-minute readings is about 105,000.
MAX_LINES = 1_000_000
# Characters read at a time.
_CHUNK = 64 * 1024
# Refused rows whose reasons are kept (the others are only counted).
KEPT_REFUSED = 100
# Readings outside these years are a device clock never set, or a trick.
MIN_YEAR, MAX_YEAR = 1970, 2100
# Glucose as devices write it: ASCII digits, a decimal dot or comma (float() would also take
# "1_00", "1e2", "inf" and other scripts' digits).
_PLAIN_DECIMAL = re.compile(r"[0-9]+(?:[.,][0-9]+)?|[.,][0-9]+")
# The devices' reporting limits, stored in place of "Low" / "High".
_DEXCOM_LIMITS = (40.0, 400.0)
_LIBRE_LIMITS = (40.0, 500.0)
_CLARITY_TIME = "Timestamp (YYYY-MM-DDThh:mm:ss)"
_SPACE = re.compile(r"\s*")


@dataclass(frozen=True, slots=True)  # slots: a year of readings is 100,000 of them
class Reading:
    line: int
    measured_at: datetime  # naive UTC
    mg_dl: float
    kind: str  # db.tables.GLUCOSE_KINDS
    reported_as: str | None = None  # "Low" / "High": stored at the device's limit


@dataclass(frozen=True, slots=True)
class Event:
    """An insulin dose or a carbohydrate entry the device recorded (db.tables.GlucoseEvent)."""
    line: int
    at: datetime  # naive UTC
    kind: str  # "bolus", "basal" or "carbs"
    amount: float  # units of insulin, grams of carbohydrate


EVENT_KINDS = ("bolus", "basal", "carbs")
_EVENT_LIMITS = {"bolus": MAX_INSULIN_UNITS, "basal": MAX_INSULIN_UNITS, "carbs": MAX_CARBS_G}


@dataclass(frozen=True, slots=True)
class Refused:
    line: int
    reason: str
    place: str = "line"  # "entry" for a JSON array

    def __str__(self) -> str:
        return f"{self.place} {self.line}: {self.reason}"


class Refusals:
    """The rows a file's reading refused: every one counted, the first KEPT_REFUSED (by line)
    kept for the message, so a file of nothing but bad rows costs no memory per row; past
    MAX_ROWS of them the file is not an export at all."""

    def __init__(self) -> None:
        self.count = 0
        self._kept: list[Refused] = []

    def append(self, refused: Refused) -> None:
        self.count += 1
        if self.count > MAX_ROWS:
            raise InvalidValue(f"more than {MAX_ROWS:,} rows of the file cannot be read: is it a glucose "
                               "export?")
        self._kept.append(refused)
        if len(self._kept) > 2 * KEPT_REFUSED:
            self._trim()

    def _trim(self) -> None:
        self._kept.sort(key=lambda r: r.line)
        del self._kept[KEPT_REFUSED:]

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        """The kept refusals, by line."""
        self._trim()
        return iter(list(self._kept))


# ParsedFile's columns: a row's kind (an index into _KINDS, or _REFUSED), its "Low"/"High"
# (an index into _REPORTED), its time (microseconds since _EPOCH).
_KINDS = (*GLUCOSE_KINDS, *EVENT_KINDS)
_REFUSED = 255
_REPORTED = (None, "Low", "High")
_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
_INDEX_CHUNK = 4096  # row indices made Python ints at a time


def _moment(microseconds: int) -> datetime:
    return _EPOCH + timedelta(microseconds=microseconds)


class ParsedFile:
    """What `parse` read from an export: its readings and events, and the rows it refused.
    Kept as columns (about 27 bytes a row) rather than a Python object per row (about 500
    bytes with its strings), so that 400,000 rows take a few MB; `readings` and `events`
    build the objects on demand, `unique_readings` and `event_chunks` a chunk at a time."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.refused = Refusals()
        self._lines = array("q")
        self._moments = array("q")  # microseconds since 1970: naive UTC, or a wall-clock time to place
        self._values = array("d")  # mg/dL, units of insulin or grams of carbohydrate
        self._kinds = bytearray()  # an index into _KINDS, or _REFUSED: a refused row kept for its wall time
        self._reported = bytearray()  # an index into _REPORTED
        self._walls = bytearray()  # 1: _moments holds a wall-clock time (until `_place`)

    def _add(self, line: int, moment: datetime, wall: bool, kind: int, value: float = 0.0,
             reported: str | None = None) -> None:
        self._lines.append(line)
        self._moments.append((moment - _EPOCH) // _MICROSECOND)
        self._values.append(value)
        self._kinds.append(kind)
        self._reported.append(_REPORTED.index(reported))
        self._walls.append(wall)

    def _place(self, where: ZoneInfo) -> None:
        """Place the wall-clock times in UTC, walking them as zones.WallWalk needs, the refused
        rows' among them (they are walked, not kept), as a list of every row would be walked."""
        walls = np.flatnonzero(np.frombuffer(self._walls, dtype=np.uint8))
        if not walls.size:
            return
        if self._moments[walls[0]] > self._moments[walls[-1]]:  # newest first: walk backwards
            walls = walls[::-1]
        walk = zones.WallWalk(where)
        for start in range(0, walls.size, _INDEX_CHUNK):
            for i in walls[start:start + _INDEX_CHUNK].tolist():
                placed = walk.place(_moment(self._moments[i]))
                if self._kinds[i] != _REFUSED:  # not a time the clocks skipped: that was checked on reading
                    self._moments[i] = (placed - _EPOCH) // _MICROSECOND  # type: ignore[operator]

    def _rows(self, kinds: tuple[str, ...]) -> np.ndarray:
        """The indices of the rows of ``kinds``, in file order."""
        codes = np.frombuffer(self._kinds, dtype=np.uint8)
        return np.flatnonzero(np.isin(codes, [_KINDS.index(kind) for kind in kinds]))

    def _reading(self, i: int) -> Reading:
        return Reading(self._lines[i], _moment(self._moments[i]), self._values[i], _KINDS[self._kinds[i]],
                       _REPORTED[self._reported[i]])

    def _event(self, i: int) -> Event:
        return Event(self._lines[i], _moment(self._moments[i]), _KINDS[self._kinds[i]], self._values[i])

    @property
    def reading_count(self) -> int:
        return len(self._rows(GLUCOSE_KINDS))

    @property
    def event_count(self) -> int:
        return len(self._rows(EVENT_KINDS))

    @property
    def readings(self) -> list[Reading]:
        """Every reading, in file order."""
        return [self._reading(i) for i in self._rows(GLUCOSE_KINDS).tolist()]

    @property
    def events(self) -> list[Event]:
        """Every insulin and carbohydrate event, in file order."""
        return [self._event(i) for i in self._rows(EVENT_KINDS).tolist()]

    def unique_readings(self, size: int) -> Iterator[list[Reading]]:
        """The readings in chunks of ``size``, in time order, each (kind, time) once: its first
        in the file."""
        rows = self._rows(GLUCOSE_KINDS)
        moments = np.frombuffer(self._moments, dtype=np.int64)[rows]
        kinds = np.frombuffer(self._kinds, dtype=np.uint8)[rows]
        order = np.lexsort((rows, kinds, moments))  # by time, then kind, then place in the file
        moments, kinds, rows = moments[order], kinds[order], rows[order]
        first = np.ones(rows.size, dtype=bool)
        first[1:] = (moments[1:] != moments[:-1]) | (kinds[1:] != kinds[:-1])
        rows = rows[first]
        for start in range(0, rows.size, size):
            yield [self._reading(i) for i in rows[start:start + size].tolist()]

    def event_chunks(self, size: int) -> Iterator[list[Event]]:
        """The events in chunks of ``size``, in file order."""
        rows = self._rows(EVENT_KINDS)
        for start in range(0, rows.size, size):
            yield [self._event(i) for i in rows[start:start + size].tolist()]


@dataclass(frozen=True, slots=True)
class _Row:
    """A glucose row as read, before its time is placed in UTC and its value checked."""

    line: int
    when: datetime | str  # aware, naive wall-clock, or why it cannot be read
    value: str
    unit: str  # "mg/dL" or "mmol/L"
    kind: str
    limits: tuple[float, float] | None = None  # what "Low" / "High" stand for


def _encoding(head: bytes) -> str:
    """An export's text encoding from its first bytes: UTF-16 with its BOM, else UTF-8 (with or
    without BOM)."""
    return "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def _not_text(byte: int) -> InvalidValue:
    return InvalidValue(f"the file is not UTF-8 text (byte {byte}); export it again from the device's software")


def decode(data: bytes) -> str:
    """The text of an export: UTF-8 (with or without BOM) or UTF-16 with its BOM."""
    try:
        return data.decode(_encoding(data))
    except UnicodeDecodeError as exc:
        raise _not_text(exc.start + 1) from None


class Source:
    """An export (a file, or its bytes or text in memory), read as text from the start as often
    as a reader needs, a line or a chunk at a time, and never whole: 32 MB of text is up to
    128 MB as one Python string (one character beyond Latin-1 makes every character 2 or 4
    bytes), and a list of its lines millions of strings."""

    def __init__(self, open_binary: Callable[[], BinaryIO]) -> None:
        self._open = open_binary
        with open_binary() as raw:
            self.encoding = _encoding(raw.read(2))
            raw.seek(0)
            _check_text(raw, self.encoding)

    @classmethod
    def of(cls, export: str | bytes | os.PathLike | Source) -> Source:
        """A Source of a file (a path), of its bytes, or of its text (a str)."""
        if isinstance(export, Source):
            return export
        if isinstance(export, str):
            export = export.encode("utf-8", "surrogatepass")
        if isinstance(export, (bytes, bytearray)):
            data = bytes(export)
            return cls(lambda: io.BytesIO(data))
        return cls(lambda: open(export, "rb"))

    @contextmanager
    def text(self) -> Iterator[TextIO]:
        """The text from its start (line ends as written: \\n, \\r\\n or \\r)."""
        with io.TextIOWrapper(self._open(), encoding=self.encoding, newline="") as stream:
            yield stream

    def lines(self) -> Iterator[str]:
        """The text's lines one at a time, with their ends; InvalidValue past MAX_LINE characters."""
        with self.text() as stream:
            for number in itertools.count(1):
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    return
                if number > MAX_LINES:
                    raise InvalidValue(f"the file has more than {MAX_LINES:,} lines: export a shorter period")
                if len(line) > MAX_LINE:
                    raise InvalidValue(f"line {number} is longer than {MAX_LINE:,} characters: is the file "
                                       "a glucose export?")
                yield line

    def is_json(self) -> bool:
        with self.text() as stream:
            return _Window(stream).peek() in ("[", "{")


def _check_text(raw: BinaryIO, encoding: str) -> None:
    """InvalidValue (naming the byte) unless all of ``raw`` decodes, read a chunk at a time."""
    decoder, at = codecs.getincrementaldecoder(encoding)(), 0
    while True:
        chunk = raw.read(_CHUNK)
        pending = len(decoder.getstate()[0])  # the bytes of a character begun in the last chunk
        try:
            decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise _not_text(at - pending + exc.start + 1) from None
        if not chunk:
            return
        at += len(chunk)


class _Window:
    """A text stream from a point on, read a chunk at a time: ``text[at:]`` is what is held of
    it, at most about MAX_ENTRY + _CHUNK characters."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.text, self.at, self.ended = stream, "", 0, False

    def _more(self) -> bool:
        """Read the next chunk, dropping what lies before the point; False at the end."""
        chunk = self.stream.read(_CHUNK)
        self.text, self.at, self.ended = self.text[self.at:] + chunk, 0, not chunk
        return bool(chunk)

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), the point moved to it."""
        while True:
            self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]
            if self.at < len(self.text) or not self._more():
                return self.text[self.at:self.at + 1]

    def value(self, decoder: json.JSONDecoder, number: int) -> object:
        """The JSON value at the point (the ``number``th entry), the point moved past it."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.at)
                if end < len(self.text) or self.ended:  # a number may go on in the next chunk
                    self.at = end
                    return value
            except json.JSONDecodeError:
                if self.ended:
                    raise
            if len(self.text) - self.at > MAX_ENTRY:
                raise InvalidValue(f"entry {number} is longer than {MAX_ENTRY:,} characters: is the file a "
                                   "Nightscout export?")
            self._more()


def detect(export: str | Source) -> str:
    """Which of FORMATS an export (its text, or a Source) is, from its first lines."""
    source = Source.of(export)
    if source.is_json():
        return "nightscout"
    lines = [line.rstrip("\r\n") for line in itertools.islice(source.lines(), 30)]
    for line in lines:
        if _CLARITY_TIME in line:
            return "clarity"
        if _is_libreview_header(line):
            return "libreview"
    first = lines[0] if lines else ""
    if "\t" in first and re.match(r'"?\d{4}-\d\d-\d\dT', first):
        return "nightscout"
    names = [c.strip().lower() for c in re.split(r"[,;\t]", first)]
    if _plain_columns(names) is not None:
        return "csv"
    lacks = _plain_lacks(names)
    found = f" (its first line has {lacks})" if lacks else ""
    raise InvalidValue("cannot tell which export this is (Dexcom Clarity, LibreView, Nightscout "
                       f"or a CSV with timestamp and value columns){found}: name it with --format")


def parse(export: str | Source, fmt: str, where: ZoneInfo) -> ParsedFile:
    """Every glucose reading and event of an export (its text, or a Source) in format ``fmt``
    (one of FORMATS or "auto"), times without a zone read in ``where``: rows are read one at
    a time and kept as ParsedFile's columns."""
    source = Source.of(export)
    if fmt == "auto":
        fmt = detect(source)
    if fmt not in READERS:
        raise InvalidValue(f"unknown format {fmt!r}; choose auto, {', '.join(FORMATS)}")
    parsed = ParsedFile(fmt)
    place = "entry" if fmt == "nightscout" and source.is_json() else "line"
    try:
        for count, row in enumerate(READERS[fmt](source, parsed.refused), start=1):
            if count > MAX_ROWS:
                raise InvalidValue(f"the file has more than {MAX_ROWS:,} readings; export a shorter period")
            _collect(row, where, parsed, place)
    except csv.Error as exc:  # a field over csv's limit (128 kB), say
        raise InvalidValue(f"the file cannot be read as CSV ({exc}): is it a glucose export?") from None
    parsed._place(where)
    if not parsed.reading_count and not parsed.event_count and not parsed.refused:
        raise InvalidValue(f"the file holds no glucose readings (read as {FORMAT_NAMES[fmt]})")
    return parsed


def _collect(row: _Row, where: ZoneInfo, parsed: ParsedFile, place: str) -> None:
    """Check one row and keep it in ``parsed``, or refuse it there: its time first (the years,
    then a wall-clock time the clocks skipped), then its value. A refused row with a wall-clock
    time is kept as _REFUSED: the walk through a repeated hour (ParsedFile._place) counts it."""
    when = _in_years(row.when)
    if isinstance(when, str):
        parsed.refused.append(Refused(row.line, when, place))
        return
    wall = when.tzinfo is None
    if wall and (gap := zones.skipped(when, where)) is not None:
        parsed.refused.append(Refused(row.line, gap, place))
        parsed._add(row.line, when, wall, _REFUSED)
        return
    moment = when if wall else zones.utc_naive(when)
    try:
        if row.kind in EVENT_KINDS:
            value, reported = event_amount(row.value, row.kind), None
        else:
            value, reported = glucose_mg_dl(row.value, row.unit, row.limits)
    except ValueError as exc:
        parsed.refused.append(Refused(row.line, str(exc), place))
        if wall:
            parsed._add(row.line, moment, wall, _REFUSED)
        return
    parsed._add(row.line, moment, wall, _KINDS.index(row.kind), value, reported)


def _in_years(when: datetime | str) -> datetime | str:
    """A time within MIN_YEAR..MAX_YEAR, else why not (before any zone arithmetic, which
    overflows at years 1 and 9999)."""
    if isinstance(when, datetime) and not MIN_YEAR <= when.year <= MAX_YEAR:
        return f"time {when.isoformat(sep=' ')[:25]} is outside the years {MIN_YEAR}-{MAX_YEAR}"
    return when


def glucose_mg_dl(value: str, unit: str, limits: tuple[float, float] | None) -> tuple[float, str | None]:
    """(mg/dL, "Low"/"High"/None) for a value as written in ``unit``; ValueError says why not."""
    text = value.strip()
    if limits is not None and text.lower() in ("low", "lo", "high", "hi"):
        is_low = text.lower().startswith("lo")
        return (limits[0] if is_low else limits[1]), ("Low" if is_low else "High")
    if not text:
        raise ValueError("no glucose value")
    if not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"glucose value {text[:20]!r} is not a number")
    number = float(text.replace(",", "."))
    mg_dl = number * MMOL_L_TO_MG_DL if unit == "mmol/L" else number
    low, high = GLUCOSE_MG_DL_RANGE
    if not low <= mg_dl <= high:  # also refuses NaN and infinity
        raise ValueError(f"glucose {text} {unit} is outside {low:g}-{high:g} mg/dL")
    return round(mg_dl, 1), None


def event_amount(value: str, kind: str) -> float:
    """Units of insulin or grams of carbohydrate, a plain decimal within the kind's limit."""
    text = value.strip()
    if not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"{'carbohydrate' if kind == 'carbs' else 'insulin'} {text[:20]!r} is not a number")
    amount = float(text.replace(",", "."))
    unit = "g" if kind == "carbs" else "units"
    if not 0 < amount <= _EVENT_LIMITS[kind]:
        raise ValueError(f"{kind} {text} {unit} is outside 0-{_EVENT_LIMITS[kind]:g} {unit}")
    return amount


def glucose_unit(text: str) -> str:
    """ "mg/dL" or "mmol/L" as named in a header or cell; ValueError otherwise."""
    low = text.strip().lower().replace(" ", "")
    if "mmol" in low:
        return "mmol/L"
    if "mg/dl" in low:
        return "mg/dL"
    raise ValueError(f"unit {text.strip()[:20]!r} is neither mg/dL nor mmol/L")


# --- time stamps ----------------------------------------------------------------------------

def iso_time(text: str) -> datetime | str:
    """An ISO 8601 date and time (aware when it carries an offset), or why it cannot be read."""
    text = text.strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    try:  # Clarity in some exports: "2025-05-01 0:01:47"
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return f"timestamp {text[:40]!r} is not a date and time (YYYY-MM-DDThh:mm:ss)"


_LIBRE_TIME = re.compile(
    r"^(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$")


def _libre_parts(text: str) -> tuple[int, int, int, int, int, int, str | None] | None:
    match = _LIBRE_TIME.match(text.strip())
    if not match:
        return None
    a, b, c, hour, minute = (int(match.group(i)) for i in range(1, 6))
    return a, b, c, hour, minute, int(match.group(6) or 0), match.group(7)


def libre_day_first(stamps: Iterable[str]) -> bool:
    """Whether a LibreView file writes DD-MM-YYYY (else MM-DD-YYYY), told by a first number
    above 12 (a day) or a second one above 12; a file where both readings fit every row is
    refused rather than guessed. One pass over ``stamps``."""
    day_first = month_first = either = False
    for stamp in stamps:
        parts = _libre_parts(stamp)
        if parts is None or parts[0] > 31:  # unreadable, or year first
            continue
        day_first |= parts[0] > 12
        month_first |= parts[1] > 12
        either |= parts[0] <= 12
    if day_first and month_first:
        raise InvalidValue("the file mixes DD-MM-YYYY and MM-DD-YYYY dates; export it again")
    if not day_first and not month_first and either:
        raise InvalidValue("cannot tell whether the dates are DD-MM-YYYY or MM-DD-YYYY (no day "
                           "after the 12th): export at least two weeks, or set LibreView's date "
                           "format to Year-Month-Day")
    return day_first


def libre_time(text: str, day_first: bool) -> datetime | str:
    parts = _libre_parts(text)
    if parts is None:
        return f"Device Timestamp {text.strip()[:40]!r} is not a date and time"
    a, b, c, hour, minute, second, half = parts
    year, month, day = (a, b, c) if a > 31 else (c, b, a) if day_first else (c, a, b)
    if year < 100:  # 14.11.26: a spreadsheet's short year, in this century
        year += 2000
    if half is not None:
        if not 1 <= hour <= 12:
            return f"Device Timestamp {text.strip()!r} has hour {hour} with {half}"
        hour = hour % 12 + (12 if half.lower() == "pm" else 0)
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return f"Device Timestamp {text.strip()!r} is not a real date and time"


# --- readers --------------------------------------------------------------------------------

def _delimiter(header: str) -> str:
    return max((",", ";", "\t"), key=header.count)


def _header_index(source: Source, marker: Callable[[str], bool], what: str) -> int:
    for number, line in enumerate(itertools.islice(source.lines(), 30)):
        if marker(line.rstrip("\r\n")):
            return number
    raise InvalidValue(f"no {what} header line in the first 30 lines: is this the right format?")


def _columns(header: list[str], needed: dict[str, Callable[[str], bool]]) -> dict[str, int]:
    found = {}
    for key, matches in needed.items():
        index = next((i for i, name in enumerate(header) if matches(name.strip())), None)
        if index is not None:
            found[key] = index
    return found


def _records(source: Source, skip: int) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of each CSV record after ``skip`` lines; the first is the header."""
    lines = itertools.islice(source.lines(), skip, None)
    header = next(lines, "")
    reader = csv.reader(itertools.chain([header], lines), delimiter=_delimiter(header))
    for cells in reader:
        yield reader.line_num + skip, cells


def _cell(cells: list[str], index: int | None) -> str:
    return cells[index].strip() if index is not None and index < len(cells) else ""


def read_clarity(source: Source, refused: Refusals) -> Iterator[_Row]:
    start = _header_index(source, lambda line: _CLARITY_TIME in line, "Dexcom Clarity")
    records = _records(source, start)
    _, header = next(records)
    cols = _columns(header, {
        "time": lambda n: n == _CLARITY_TIME,
        "event": lambda n: n == "Event Type",
        "glucose": lambda n: n.startswith("Glucose Value"),
        "subtype": lambda n: n == "Event Subtype",
        "insulin": lambda n: n.startswith("Insulin Value"),
        "carbs": lambda n: n.startswith("Carb Value"),
    })
    missing = [name for key, name in (("time", _CLARITY_TIME), ("event", "Event Type"),
                                      ("glucose", "Glucose Value (mg/dL or mmol/L)")) if key not in cols]
    if missing:
        raise InvalidValue(f"read as {FORMAT_NAMES['clarity']} (its header on line {start + 1}), but it "
                           f"lacks the column{'s' * (len(missing) > 1)} {' and '.join(missing)}")
    try:
        unit = glucose_unit(header[cols["glucose"]])
    except ValueError:
        raise InvalidValue(f"read as {FORMAT_NAMES['clarity']} (its header on line {start + 1}), but its "
                           f"column {header[cols['glucose']].strip()[:40]!r} names no unit (mg/dL or mmol/L)") from None
    kinds = {"EGV": "cgm", "Calibration": "meter"}
    for line, cells in records:
        event = _cell(cells, cols["event"])
        when = iso_time(_cell(cells, cols["time"]))
        if event == "Insulin" and "insulin" in cols:
            kind = "basal" if _cell(cells, cols.get("subtype")).startswith("Long") else "bolus"
            yield _Row(line, when, _cell(cells, cols["insulin"]), "", kind)
        elif event == "Carbs" and "carbs" in cols:
            yield _Row(line, when, _cell(cells, cols["carbs"]), "", "carbs")
        elif event in kinds:  # not patient, device, alert, exercise or health events
            yield _Row(line, when, _cell(cells, cols["glucose"]), unit, kinds[event], _DEXCOM_LIMITS)


# LibreView writes its columns in the account's language (Device Timestamp, Gerätezeitstempel,
# ...) but always in this order, the glucose columns named with their unit: the position says
# what a column is, whatever the words.
_LIBRE_COLUMNS = {"time": 2, "type": 3, "0": 4, "1": 5, "2": 14}
_LIBRE_NAMES = {"time": "Device Timestamp (3rd column)", "type": "Record Type (4th column)",
                "0": "Historic Glucose (5th column)", "1": "Scan Glucose (6th column)",
                "2": "Strip Glucose (15th column)"}
# The Device Timestamp column's name in the languages of our fixtures (tests/data/glucose:
# the English export's columns with their words translated; the French ones as a public reader
# of Libre exports lists them). They only name the language in messages and recognise a header
# whose glucose columns lost their units; any other language is read by position all the same.
LIBREVIEW_LANGUAGES = {"device timestamp": "English", "gerätezeitstempel": "German",
                       "horodatage de l'appareil": "French", "timestamp dispositivo": "Italian",
                       "sello de tiempo del dispositivo": "Spanish", "tijdstempel apparaat": "Dutch"}


def _has_unit(name: str) -> bool:
    return "mg/dl" in name.lower() or "mmol/l" in name.lower()


def _split(line: str) -> list[str]:
    return next(csv.reader([line], delimiter=_delimiter(line)), [])


def libreview_language(header: list[str]) -> str | None:
    """The language of a LibreView header, told by its Device Timestamp column; None when it is
    not one of LIBREVIEW_LANGUAGES."""
    if len(header) <= _LIBRE_COLUMNS["time"]:
        return None
    return LIBREVIEW_LANGUAGES.get(header[_LIBRE_COLUMNS["time"]].strip().lower().replace("\u2019", "'"))


def _is_libreview_header(line: str) -> bool:
    if "Device Timestamp" in line and "Record Type" in line:
        return True
    cells = _split(line)
    if libreview_language(cells) is not None:
        return True
    return len(cells) >= 15 and all(_has_unit(cells[_LIBRE_COLUMNS[t]]) for t in ("0", "1", "2"))


def _libreview_columns(header: list[str], what: str) -> tuple[dict[str, int], dict[str, str]]:
    """The glucose columns of a LibreView header (by their English names, else by position) and
    each glucose column's unit; InvalidValue naming what is missing."""
    cols = _columns(header, {
        "time": lambda n: n == "Device Timestamp",
        "type": lambda n: n == "Record Type",
        "0": lambda n: n.startswith("Historic Glucose"),
        "1": lambda n: n.startswith("Scan Glucose"),
        "2": lambda n: n.startswith("Strip Glucose"),
    })
    if "time" not in cols and len(header) > max(_LIBRE_COLUMNS.values()):  # another language
        cols = dict(_LIBRE_COLUMNS)
    missing = [_LIBRE_NAMES[key] for key in ("time", "type", "0") if key not in cols]
    if "time" not in cols and len(header) <= max(_LIBRE_COLUMNS.values()):
        missing = [f"the 19 columns of an export (its header has {len(header)})"]
    units = {}
    for key in ("0", "1", "2"):
        if key in cols and not missing:
            try:
                units[key] = glucose_unit(header[cols[key]])
            except ValueError:
                missing.append(f"the unit (mg/dL or mmol/L) in the name of {_LIBRE_NAMES[key]}, "
                               f"{header[cols[key]].strip()[:40]!r}")
    if missing:
        raise InvalidValue(f"read as {what}, but it lacks {'; '.join(missing)}: export it again from "
                           "LibreView (Glucose History, Download glucose data) and import it unchanged")
    return cols, units


def read_libreview(source: Source, refused: Refusals) -> Iterator[_Row]:
    start = _header_index(source, _is_libreview_header, "LibreView (Device, Serial Number, Device Timestamp, "
                          "Record Type, Historic Glucose ... in any export language)")
    records = _records(source, start)
    _, header = next(records)
    language = libreview_language(header)
    what = (f"{FORMAT_NAMES['libreview']} ({language + ' header' if language else 'header'} on line "
            f"{start + 1}{'' if language else ', read by column position'})")
    cols, units = _libreview_columns(header, what)
    kinds = {"0": "cgm", "1": "scan", "2": "meter"}
    kept = (*units, "4", "5")  # glucose, insulin and food rows

    def records_kept() -> Iterator[tuple[int, list[str]]]:
        rows = _records(source, start)
        next(rows)  # the header
        return ((line, cells) for line, cells in rows if _cell(cells, cols["type"]) in kept)

    seen = 0

    def times() -> Iterator[str]:
        nonlocal seen
        for _, cells in records_kept():
            seen += 1
            yield _cell(cells, cols["time"])

    # Two passes over the file: day-first is read from all the dates.
    day_first = libre_day_first(times())
    if not seen:
        raise InvalidValue(f"read as {what}, but none of its rows is a reading: no record type 0 "
                           "(historic glucose), 1 (scan), 2 (strip), 4 (insulin) or 5 (food)")
    for line, cells in records_kept():
        if len(cells) > len(header):  # every value after an unquoted decimal comma moved one column
            refused.append(Refused(line, f"{len(cells)} fields where the header has {len(header)}: "
                                         "a decimal comma in a comma-separated file? (export it again)"))
            continue
        record_type = _cell(cells, cols["type"])
        when = libre_time(_cell(cells, cols["time"]), day_first)
        if record_type in units:
            yield _Row(line, when, _cell(cells, cols[record_type]), units[record_type], kinds[record_type],
                       _LIBRE_LIMITS)
            continue
        # 4: insulin (rapid- or long-acting units), 5: food (grams of carbohydrate; a food
        # recorded without them is no event).
        for kind, column in {"4": (("bolus", 7), ("basal", 12)), "5": (("carbs", 9),)}[record_type]:
            if _cell(cells, column):
                yield _Row(line, when, _cell(cells, column), "", kind)


def read_nightscout(source: Source, refused: Refusals) -> Iterator[_Row]:
    if not source.is_json():
        yield from _nightscout_tsv(source)
        return
    for number, entry in enumerate(_json_entries(source), start=1):
        if not isinstance(entry, dict):
            refused.append(Refused(number, "not an entry object", "entry"))
            continue
        if "eventType" in entry:  # a treatments export: insulin and carbohydrate
            when = _nightscout_time(entry.get("mills", entry.get("date")), entry.get("created_at"))
            for kind, key in (("bolus", "insulin"), ("carbs", "carbs")):
                amount = _nightscout_number(entry.get(key))
                if amount not in (None, 0.0):
                    yield _Row(number, when, _as_text(amount), "", kind)
            continue
        kind = {"sgv": "cgm", "mbg": "meter"}.get(entry.get("type"))
        if kind is None:  # calibration records and device status are not glucose
            continue
        value = _nightscout_number(entry.get("sgv" if kind == "cgm" else "mbg"))
        unit = "mmol/L" if "mmol" in str(entry.get("units", "")).lower() else "mg/dL"
        if isinstance(value, float) and value < 39 and unit == "mg/dL":
            # Entries are in mg/dL; below 39 a whole number is a Dexcom status code, and a
            # decimal one an uploader that sent mmol/L (5.6) without saying so.
            if value.is_integer():
                refused.append(Refused(number, f"sgv {value:g} is a sensor status code, not glucose",
                                       "entry"))
                continue
            unit = "mmol/L"
        yield _Row(number, _nightscout_time(entry.get("date"), entry.get("dateString")), _as_text(value), unit, kind)


def _json_entries(source: Source) -> Iterator[object]:
    """The items of a JSON array (or the one object) decoded one at a time from a window of the
    text (_Window): neither the text nor a list of the items is ever whole."""
    decoder = json.JSONDecoder()
    with source.text() as stream:
        window = _Window(stream)
        try:
            if window.peek() == "{":
                yield window.value(decoder, 1)
            else:
                window.at += 1  # past [
                for number in itertools.count(1):
                    if window.peek() == "]":
                        break
                    if number > MAX_LINES:
                        raise InvalidValue(f"the file has more than {MAX_LINES:,} entries: export a shorter period")
                    yield window.value(decoder, number)
                    if window.peek() == ",":
                        window.at += 1
                    elif window.peek() != "]":
                        raise ValueError("expected , or ]")
                window.at += 1
            if window.peek() != "":
                raise ValueError("text after the JSON value")
        except (ValueError, RecursionError):
            raise InvalidValue("the Nightscout file is not valid JSON (a JSON array of entries)") from None


def _nightscout_number(value: object) -> float | object:
    """A glucose value as a float, written as a number or as numeric text ("118"); anything
    else is returned as it is, for the error message."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", "."))
        except ValueError:
            return value
    return value


def _as_text(value: float | object) -> str:
    """A Nightscout number as the readers' text ("118", "5.6"); anything else quoted, for the
    error message."""
    return f"{value:g}" if isinstance(value, float) else repr(value)


def _nightscout_time(millis: object, text: object) -> datetime | str:
    if isinstance(millis, (int, float)) and not isinstance(millis, bool):
        try:
            return datetime.fromtimestamp(millis / 1000, timezone.utc)
        except (ValueError, OverflowError, OSError):
            return f"date {millis!r} is not milliseconds since 1970"
    if isinstance(text, str):
        when = iso_time(text)
        if isinstance(when, datetime) and when.tzinfo is None:
            return f"dateString {text[:40]!r} has no time zone offset"
        return when
    return "the entry has neither date nor dateString"


def _nightscout_tsv(source: Source) -> Iterator[_Row]:
    reader = csv.reader(source.lines(), delimiter="\t")
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        date_ms = _cell(cells, 1)
        when = (_nightscout_time(int(date_ms), None) if date_ms.isdigit()
                else _nightscout_time(None, _cell(cells, 0)))
        yield _Row(reader.line_num, when, _cell(cells, 2), "mg/dL", "cgm")


# A plain CSV's columns, as glucose tools name them (iglu's long format is id,time,gl).
_TIME_NAMES = ("timestamp", "time", "datetime", "date_time")
_VALUE_NAMES = ("value", "glucose", "gl", "sgv")
# Without a unit column or one in the value column's name: a file whose every value is at most
# this is in mmol/L (no sensor reports a mg/dL value under 39), any other in mg/dL.
MMOL_L_MAX = 33.3


def _plain_columns(names: list[str]) -> tuple[int, int] | None:
    """(time column, value column) of a plain CSV header (names lower-cased), or None."""
    time_at = next((i for i, n in enumerate(names) if n in _TIME_NAMES), None)
    value_at = next((i for i, n in enumerate(names) if n in _VALUE_NAMES or
                     (n.split(" ")[0] in _VALUE_NAMES and _has_unit(n))), None)
    return None if time_at is None or value_at is None else (time_at, value_at)


def _plain_lacks(names: list[str]) -> str | None:
    """Which of its two columns a plain CSV header (names lower-cased) has and which it lacks,
    for the message; None when it has both or neither (then it may be no plain CSV at all)."""
    has_time = any(n in _TIME_NAMES for n in names)
    has_value = any(n in _VALUE_NAMES or (n.split(" ")[0] in _VALUE_NAMES and _has_unit(n)) for n in names)
    if has_time == has_value:
        return None
    return ("a time column but no glucose column (value, glucose, gl or sgv)" if has_time
            else "a glucose column but no time column (timestamp, time, datetime or date_time)")


def read_plain_csv(source: Source, refused: Refusals) -> Iterator[_Row]:
    records = _records(source, 0)
    _, header = next(records)
    names = [h.strip().lower() for h in header]
    columns = _plain_columns(names)
    if columns is None:
        lacks = _plain_lacks(names) or "neither a time nor a glucose column"
        raise InvalidValue(f"read as {FORMAT_NAMES['csv']}, but its header has {lacks}: the CSV needs a "
                           "header naming its time (timestamp, time) and glucose (value, glucose, gl) columns, "
                           "and optionally unit (mg/dL or mmol/L) and kind")
    time_at, value_at = columns
    unit_at = names.index("unit") if "unit" in names else None
    named_unit = glucose_unit(names[value_at]) if _has_unit(names[value_at]) else None
    kind_at = names.index("kind") if "kind" in names else None
    id_at = names.index("id") if "id" in names else None

    def rows() -> Iterator[tuple[int, list[str], str]]:
        """(line, cells, kind) of the rows that are not blank, of one person."""
        records = _records(source, 0)
        next(records)  # the header
        people = set()
        for line, cells in records:
            if not any(c.strip() for c in cells):
                continue
            if id_at is not None:
                people.add(_cell(cells, id_at))
                if len(people) > 1:
                    raise InvalidValue("the file holds readings of more than one person (its id column); "
                                       "import one person's readings")
            yield line, cells, _cell(cells, kind_at).lower() or "cgm"

    if unit_at is None and named_unit is None:  # the unit from the values (see MMOL_L_MAX): a first pass
        high = max((float(v.replace(",", ".")) for _, cells, kind in rows() if kind in ("cgm", "meter")
                    if _PLAIN_DECIMAL.fullmatch(v := _cell(cells, value_at))), default=None)
        named_unit = "mmol/L" if high is not None and high <= MMOL_L_MAX else "mg/dL"
    for line, cells, kind in rows():
        if kind not in ("cgm", "meter"):
            refused.append(Refused(line, f"kind {kind[:20]!r} is neither cgm nor meter"))
            continue
        unit = named_unit
        if unit_at is not None:
            try:
                unit = glucose_unit(_cell(cells, unit_at))
            except ValueError as exc:
                refused.append(Refused(line, str(exc)))
                continue
        yield _Row(line, iso_time(_cell(cells, time_at)), _cell(cells, value_at), unit, kind)


READERS: dict[str, Callable[[Source, Refusals], Iterator[_Row]]] = {
    "clarity": read_clarity,
    "libreview": read_libreview,
    "nightscout": read_nightscout,
    "csv": read_plain_csv,
}
