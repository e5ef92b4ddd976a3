"""Hypo treatments are never guessed: a search for one (glucose tablets, gel, dextrose,
Traubenzucker, jelly babies, a juice box, a sports drink) answers with the real food of a
food table, or, where no table lists it (tablets and gels differ by brand), with an entry
that asks for the carbohydrate from the pack; never with the closest-sounding food (a rennin
tablet of 2 g, lime juice). Under-counting a hypo treatment is the most dangerous error this
app could make.

db/seed/hypo_treatments.csv (``term,region,dataset,entry,serving,asks,source``): what is
typed (as db.search reads words: lower case, no accents, singular or plural alike), the region
whose word it is (empty: everywhere), the food (a table and its entry; empty: none lists it),
the serving whose carbohydrate the hit shows (empty: the default), what to read from the pack
(required without a food) and why this is the food.
"""

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from db import search
from db.datasets import DATASETS
from db.errors import SeedError
from db.keys import name_key

TREATMENTS_FILE = "hypo_treatments.csv"
COLUMNS = ["term", "region", "dataset", "entry", "serving", "asks", "source"]
# The category of an entry that asks for the pack's figure.
PACK_CATEGORY = "Hypo treatment: carbohydrate from the pack"


@dataclass(frozen=True)
class Treatment:
    term: str  # as typed in the file
    phrase: str  # as matched (db.search's words, singular)
    region: str | None
    dataset: str | None
    entry: str | None
    serving: str | None
    asks: str | None
    source: str

    @property
    def pack_name(self) -> str:
        """The name of the entry that asks for the pack's figure ("Glucose tablets: enter the
        carbohydrate from the pack")."""
        return f"{self.term[:1].upper()}{self.term[1:]}: enter the carbohydrate from the pack"


def _phrase(text: str) -> str:
    return _joined(search.query_words(text))


def _joined(words: list[str]) -> str:
    return " ".join(search.singular(w) or w for w in words)


def read(seed_dir: Path) -> tuple[Treatment, ...]:
    """The rows, checked: a term, a source, a known table with an entry or none, and for an
    entry without a food what it asks for. Missing file: none."""
    path = Path(seed_dir) / TREATMENTS_FILE
    if not path.is_file():
        return ()
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != COLUMNS:
            raise SeedError(f"{path}:1: header must be {','.join(COLUMNS)}")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            cells = {k: (v or "").strip() or None for k, v in row.items()}
            if not cells["term"] or not cells["source"]:
                raise SeedError(f"{where}: term and source are required")
            if bool(cells["dataset"]) != bool(cells["entry"]) or (
                    cells["dataset"] and cells["dataset"] not in DATASETS):
                raise SeedError(f"{where}: a known dataset with its entry, or neither")
            if not cells["entry"] and not cells["asks"]:
                raise SeedError(f"{where}: without a food the row must say what to read "
                                "from the pack (asks)")
            rows.append(Treatment(cells["term"], _phrase(cells["term"]), cells["region"], cells["dataset"],
                                  cells["entry"], cells["serving"], cells["asks"],
                                  cells["source"]))
    return tuple(rows)


@lru_cache(maxsize=1)
def shipped() -> tuple[Treatment, ...]:
    from db.seed import SEED_DIR

    return read(SEED_DIR)


# What a query may say after the treatment about why it is eaten ("jelly babies for a hypo",
# "juice for low blood sugar", "skittles for low sugar", "Saft bei Unterzucker", or bare as a
# note: "full fat coke hypo", "gummy bears low", "skittles low blood sugar", "Gummibärchen
# Unterzucker"): the food is what comes before it.
_WHY_RE = re.compile(
    r"\s+(for|when|during|to treat|bei|gegen|wegen|fur|für)\s+"
    # whose: "for my son's low", "for mum's hypo"
    r"(an?\s+|the\s+|einer?\s+|den\s+|(?:(?:my|our|his|her|their)\s+)?(?:\w+'s\s+)?)?"
    r"(hypos?( treatment)?|hypoglyc(a)?emia|low( blood)? (sugar|glucose)|low bg|lows?|unterzucker(ung)?|"
    r"hypoglyk(ä|ae)mie)\s*$", re.IGNORECASE)
_BARE_WHY_RE = re.compile(r"(?<=\w)\s+(hypo( treatment)?|low|low blood (sugar|glucose)|low bg|"
                          r"unterzucker(ung)?)\s*$", re.IGNORECASE)
# A bare "hypo" or "low" after these is the why's own words ("for a hypo"), no note.
_WHY_WORDS = frozenset({"for", "when", "during", "treat", "bei", "gegen", "wegen", "fur", "für",
                        "a", "an", "my", "the", "einer", "eine", "den"})


# A glucose reading said after the food ("jelly beans bg 55", "jelly babies at 3.5", "Cola BZ
# 55", "juice 3.2 mmol"): no food's words. Not a bare number ("jelly babies 5", a count) nor
# "sugar 2" (two sugars).
_READING_RE = re.compile(
    r"\s*[(,-]?\s*(?:(?:\b(?:at|bg|bgl|bs|bz|low|hypo|unterzucker|blood\s+(?:sugar|glucose)|"
    r"blutzucker|glucose\s+level|sugar\s+level|reading|level)\s*(?:was|is|of|at|bei|von|:|=)?\s*)"
    r"\d+(?:[.,]\d+)?\s*(?:mmol(?:/l)?|mg\s*/?\s*dl)?"
    r"|\s\d+(?:[.,]\d+)?\s*(?:mmol(?:/l)?|mg\s*/?\s*dl))\s*\)?\s*$", re.IGNORECASE)

# Sugar stirred into water is the sugar ("2 sugar packets in water", "Traubenzucker in Wasser
# aufgelöst"); not the tables' "boiled in water" or "canned in water".
_IN_WATER_RE = re.compile(
    r"\b(?:sugar|glucose|dextrose|\w*zucker)(?:s|\s+(?:packets?|sachets?|cubes?|lumps?|powder))?"
    r"(\s+(?:dissolved\s+|mixed\s+|stirred\s+)?in\s+(?:a\s+(?:glass|cup)\s+of\s+|some\s+)?"
    r"(?:water|wasser)(?:\s+(?:aufgelöst|aufgeloest|gelöst))?)\s*$", re.IGNORECASE)


# A note before the food: "hypo cola", "hypo 5 jelly babies", "Unterzucker Traubenzucker".
_LEADING_WHY_RE = re.compile(r"^\s*(hypo|unterzucker)\s*[:,-]?\s+(?=\S)", re.IGNORECASE)


def without_why(text: str) -> str:
    """``text`` without a closing "for a hypo" (``_WHY_RE``) or a bare "hypo" or "low" after the
    food, or a "hypo" before it (not a treatment's own word: "hypo stop gel"), and without the
    water its sugar is stirred into; unchanged where nothing else is left."""
    lead = _LEADING_WHY_RE.match(text)
    if lead and text[lead.end():].strip():
        typed, note = f" {_phrase(text)} ", _phrase(lead[1])
        if not any(f" {t.phrase} " in typed for t in shipped() if t.phrase.split()[0] == note):
            text = text[lead.end():]
    if (read := _READING_RE.sub("", text)).strip():
        text = read
    food = _WHY_RE.sub("", text)
    if food == text:
        food = _BARE_WHY_RE.sub("", text)
        if not food.split() or food.split()[-1].lower() in _WHY_WORDS:
            food = text
    food = food if food.strip() else text
    if water := _IN_WATER_RE.search(food):
        food = food[:water.start(1)]
    return food


def treatments_for(text: str, region: str | None) -> list[Treatment]:
    """The rows whose term is the query (every region's, the searcher's region's first; its
    words written as one: "Traubenzuckergel"), or
    the query without its count, measure or size ("5 jelly babies", "large juice box"); else
    the rows without a food whose term the query holds among other words ("dextro energy
    tablets", "glucose tablets 4 g"): tablets and gels of any brand are read from the pack."""
    words = search.query_words(text)
    phrase = _joined(words)
    mine = [t for t in shipped() if t.region in (None, region)]
    found = [t for t in mine if t.phrase == phrase] or [  # else a term's words as one word
        t for t in mine if " " not in phrase and t.phrase.replace(" ", "") == phrase]
    # without an amount first ("glucose shot 15g" is a glucose shot), then without a measure
    for kept in ([w for w in words if not search.is_amount(w)], search.without_measures(words)):
        if not found and kept:
            found = [t for t in mine if t.phrase == _joined(kept)]
    if not found:
        # one entry to fill in from the pack: the brand's ("dex4 glucose tablets": Dex4), the
        # term the query holds at most words of the others' ("dextro energy", not "dextro")
        padded = f" {phrase} "
        held = [t for t in mine if t.entry is None and f" {t.phrase} " in padded]
        found = [max(held, key=lambda t: (t.region is not None, -padded.index(f" {t.phrase} "),
                                          len(t.phrase)))] if held else []
    return sorted(found, key=lambda t: t.region is None)


def treatment_named(text: str) -> Treatment | None:
    """The row a lookup by name means: its term ("glucose tablets") or the name of its pack
    entry ("Glucose tablets: enter the carbohydrate from the pack"), any region's."""
    phrase, key = _phrase(text), name_key(text)
    return next((t for t in shipped() if t.phrase == phrase or name_key(t.pack_name) == key),
                None)
