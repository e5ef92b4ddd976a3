"""Search vocabulary: the words people in the UK, Australia and Germany type for foods the
USDA catalog names in US English ("wholemeal" -> "whole wheat", "crisps" -> "potato chips",
"Brötchen" -> "rolls hard"), read from db/seed/search_vocabulary.csv (``term,means,region,
source``: each row names the dictionary or food table that gives the meaning).

A row without a region is one meaning everywhere ("aubergine" is an eggplant to everyone). A
row with a region is that region's meaning of an ambiguous word ("chips" are French fries in
the UK and Australia, potato chips in the US): it applies when the searcher's region is that
region, and, with no region known, as a second reading behind the catalog's own (US) one.
"""

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from db import search, validate
from db.errors import InvalidValue, SeedError
from db.keys import name_key

VOCABULARY_FILE = "search_vocabulary.csv"
# The regions whose words the vocabulary knows; None (unknown) is allowed everywhere.
SEARCH_REGIONS: tuple[str, ...] = ("US", "UK", "AU", "DE")
# A rewritten query scores this much below the words as typed when it uses a region's meaning
# the searcher's region is not known to prefer; the typed words score this much below it
# when the searcher's region does prefer it.
OTHER_READING_HANDICAP = 2.0
MAX_TERM_WORDS = 3


@dataclass(frozen=True)
class Synonym:
    term: tuple[str, ...]
    means: tuple[str, ...]
    region: str | None
    source: str
    # A meaning written as the tables name a food and its kind ("rolls, hard"): the food, the
    # part before the comma ("rolls"), which a compound's first part may name the kind of.
    head: tuple[str, ...] = ()


def _words(text: str) -> tuple[str, ...]:
    return tuple(name_key(text).replace("-", " ").replace(",", " ").split())


def read(seed_dir: Path) -> tuple[Synonym, ...]:
    """The vocabulary rows, checked: every row has a term, a meaning, a source and a known
    region (or none). A missing file is an empty vocabulary."""
    path = Path(seed_dir) / VOCABULARY_FILE
    if not path.is_file():
        return ()
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ["term", "means", "region", "source"]:
            raise SeedError(f"{path}:1: header must be term,means,region,source")
        for row in reader:
            # a term is read as a query's words are ("m&ms", "cup of joe", "fruit by the foot")
            term = tuple(search.query_words(row["term"] or ""))
            means = _words(row["means"] or "")
            head = _words(row["means"].split(",")[0]) if "," in (row["means"] or "") else ()
            region = (row["region"] or "").strip() or None
            if not term or not means or not (row["source"] or "").strip():
                raise SeedError(f"{path}:{reader.line_num}: term, means and source are required")
            amounts = set(search.words(row["term"] or "")) - set(term) & (
                search.UNIT_WORDS | search.HALF_WORDS | search.SIZE_WORDS)
            if amounts:  # "halbes hähnchen" would be read as "hähnchen" alone
                raise SeedError(f"{path}:{reader.line_num}: a query reads {sorted(amounts)} of "
                                f"the term as an amount: leave it out")
            if len(term) > MAX_TERM_WORDS:
                raise SeedError(f"{path}:{reader.line_num}: a term has at most "
                                f"{MAX_TERM_WORDS} words")
            if region is not None and region not in SEARCH_REGIONS:
                raise SeedError(f"{path}:{reader.line_num}: region {region!r} is not one of "
                                f"{list(SEARCH_REGIONS)}")
            rows.append(Synonym(term, means, region, row["source"].strip(), head))
    return tuple(rows)


@lru_cache(maxsize=1)
def shipped() -> tuple[Synonym, ...]:
    from db.seed import SEED_DIR

    return read(SEED_DIR)


@lru_cache(maxsize=1)
def single_word_terms() -> frozenset[str]:
    """One-word terms: compound splitting may use them as parts ("apfel" + "saft")."""
    return frozenset(s.term[0] for s in shipped() if len(s.term) == 1)


@lru_cache(maxsize=None)  # one per search region (check_region)
def regional_single_word_terms(region: str | None) -> frozenset[str]:
    """The one-word terms with a meaning for a searcher in ``region`` (``_meaning``; None:
    unknown, every term)."""
    return frozenset(t for t in single_word_terms() if _meaning((t,), region) is not None)


@lru_cache(maxsize=1)
def phrase_words() -> frozenset[str]:
    """Every word of the terms of several words ("xtra" of "irn bru xtra")."""
    return frozenset(w for s in shipped() if len(s.term) > 1 for w in s.term)


# Shorter words of longer terms are read as typed: a typo of one is as likely another word.
MIN_PHRASE_WORD = 5


@lru_cache(maxsize=None)  # one per search region (check_region)
def regional_phrase_words(region: str | None) -> frozenset[str]:
    """The words of at least MIN_PHRASE_WORD letters of the terms of several words with a
    meaning for a searcher in ``region`` ("mountain" of "mountain dew")."""
    return frozenset(w for s in shipped() if len(s.term) > 1
                     and _meaning(s.term, region) is not None
                     for w in s.term if len(w) >= MIN_PHRASE_WORD)


def completes_term(words: list[str], index: int, region: str | None) -> bool:
    """Whether the word at ``index`` is in a term of several words that ``words`` hold in a
    row, with a meaning for a searcher in ``region``."""
    return any(_meaning_or_singular(tuple(words[start:start + size]), region) is not None
               for size in range(2, MAX_TERM_WORDS + 1)
               for start in range(max(0, index - size + 1), min(index, len(words) - size) + 1))


@lru_cache(maxsize=1)
def _by_term() -> dict[tuple[str, ...], tuple[Synonym, ...]]:
    found: dict[tuple[str, ...], list[Synonym]] = {}
    for row in shipped():
        found.setdefault(row.term, []).append(row)
    return {term: tuple(rows) for term, rows in found.items()}


def check_region(region: object) -> str | None:
    """``region`` if it is a known search region or None; InvalidValue otherwise."""
    if region is not None and (not isinstance(region, str) or region not in SEARCH_REGIONS):
        raise InvalidValue(f"region must be one of {list(SEARCH_REGIONS)}, got "
                           f"{validate.echo(region)}")
    return region


def readings(words: list[str], region: str | None) -> list[tuple[list[str], float]]:
    """The query ``words`` as typed and, where the vocabulary knows some of them, rewritten
    into the catalog's words, each with the score handicap it ranks under (best reading 0)."""
    rewritten: list[str] = []
    regional = False  # a region's meaning of an ambiguous word was used
    index = 0
    while index < len(words):
        for size in range(min(MAX_TERM_WORDS, len(words) - index), 0, -1):
            found = _meaning_or_singular(tuple(words[index:index + size]), region)
            if found is not None:
                rewritten.extend(found.means)
                regional = regional or found.region is not None
                index += size
                break
        else:
            rewritten.append(words[index])
            index += 1
    if rewritten == words:
        return [(words, 0.0)]
    if not regional:
        # a query read as a term that names its food more fully is read so too ("Saft" is
        # juice, and a bare "juice" is fruit juice); not one read in another language again
        # ("Erdäpfel" is the tables' German "Kartoffel", not only the English "potato")
        again = _meaning(tuple(rewritten), region)
        return [(words, 0.0), (rewritten, 0.0)] + (
            [(list(again.means), 0.0)] if again is not None and again.region is None
            and set(rewritten) < set(again.means) else [])
    if region is None:
        return [(words, 0.0), (rewritten, OTHER_READING_HANDICAP)]
    return [(rewritten, 0.0), (words, OTHER_READING_HANDICAP)]


@lru_cache(maxsize=None)  # one per search region (check_region)
def _diet_terms(region: str | None) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The terms of several words that hold a diet word ("lucozade zero", "crystal light"),
    longest first, each as a pattern of its words in a query's name_key and its meaning."""
    terms = sorted({s.term for s in shipped() if len(s.term) > 1
                    and search.split_diet(s.term)[0] != list(s.term)}, key=len, reverse=True)
    # A German compound may end with the first word ("Himbeersirup zuckerfrei")
    return tuple((re.compile((r"\b" if len(term[0]) < MIN_PHRASE_WORD else "")
                             + r"[\s-]+".join(map(re.escape, term)) + r"(?:e?s)?\b"),
                  " ".join(found.means))
                 for term in terms if (found := _meaning(term, region)) is not None)


def with_diet_terms_read(text: str, region: str | None) -> str:
    """``text`` with each term that holds a diet word read as its meaning, which says the
    wish its own way ("lucozade zero": "energy drink sugar free"). The diet words leave a
    query before the vocabulary reads it (search.split_diet): "lucozade" alone is sugared."""
    key = name_key(text)
    found = [(pattern, means) for pattern, means in _diet_terms(region) if pattern.search(key)]
    for pattern, means in found:
        key = pattern.sub(means, key)
    return key if found else text


def head(word: str, region: str | None) -> tuple[str, ...]:
    """The food a one-word term's meaning names before its kind ("rolls" of Brötchen's
    "rolls, hard", SR28's 'Rolls, hard'); empty where the meaning names no kind."""
    found = _meaning((word,), region)
    return found.head if found is not None else ()


def _meaning_or_singular(term: tuple[str, ...], region: str | None) -> Synonym | None:
    """The row for ``term``, else for it with its last word in the singular ("strawberry
    yoghurts" reads the term "yoghurt")."""
    found = _meaning(term, region)
    one = search.singular(term[-1])
    if found is None and one is not None:
        found = _meaning((*term[:-1], one), region)
    return found


def _meaning(term: tuple[str, ...], region: str | None) -> Synonym | None:
    """The row for ``term``: the searcher's region's own, else an everywhere row, else (region
    unknown) any region's."""
    rows = _by_term().get(term, ())
    for wanted in (lambda s: region is not None and s.region == region,
                   lambda s: s.region is None,
                   lambda s: region is None):
        for row in rows:
            if wanted(row):
                return row
    return None
