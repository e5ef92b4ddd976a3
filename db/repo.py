"""Queries. Each takes ``*, session`` and never commits: the service that owns the unit of
work does. Lookups that fail raise the matching db.errors exception.
"""

import re
from bisect import bisect_left
from dataclasses import replace
from datetime import datetime
from difflib import SequenceMatcher
from os.path import commonprefix
from typing import Any

from sqlalchemy import func, select, union
from sqlalchemy.orm import Session, selectinload

from db import datasets, fts, hypo, nutrition, portions, search, validate, vocabulary
from db.errors import InvalidValue, NotFound, UnknownFood, UnknownUser
from db.keys import name_key
from db.tables import (FavouriteFood, Food, FoodAlias, FoodLabel, MealEntry, ModelChange, OwnedFile,
                       Serving, User)

MAX_QUERY_LEN = 200


def find_food(query: object, *, session: Session, owner: User | None = None) -> Food:
    """The food whose model label, name or alias is ``query`` (case-insensitive): the
    ``owner``'s own foods first, then public ones; another user's foods are never found."""
    if not isinstance(query, str):
        raise InvalidValue(f"food must be text, got {validate.echo(query)}")
    if len(query) > MAX_QUERY_LEN:
        raise InvalidValue(f"food name is longer than {MAX_QUERY_LEN} characters")
    key = name_key(query)
    if not key:
        raise InvalidValue("food name is empty")
    loaded = (selectinload(Food.servings), selectinload(Food.glycemic_index),
              selectinload(Food.ingredients))
    statements = [
        # Labels first: a photo's label must always reach the food the seed maps it to.
        select(Food).join(FoodLabel).where(FoodLabel.label == key.replace(" ", "_")),
        select(Food).where(Food.name_key == key, Food.owner_id.is_(None)),
        select(Food).join(FoodAlias).where(FoodAlias.alias_key == key),
    ]
    if owner is not None:
        statements.insert(0, select(Food).where(Food.name_key == key,
                                                Food.owner_id == owner.id))
    for statement in statements:
        food = session.scalar(statement.options(*loaded))
        if food is not None:
            return food
    treatment = hypo.treatment_named(query)
    if treatment is not None:  # a hypo treatment is never guessed (db.hypo)
        food = session.scalar(select(Food).options(*loaded).where(
            Food.fdc_dataset == treatment.dataset, Food.source_code == treatment.entry,
            Food.owner_id.is_(None))) if treatment.entry else None
        if food is None:
            raise UnknownFood(f"{treatment.term}: no food table lists them; add yours as an own "
                              f"food with {treatment.asks}")
        return food
    close = [c.food for c, _ in search_foods(query, session=session, owner=owner, limit=3)]
    hint = f" (did you mean: {', '.join(close)}?)" if close else ""
    raise UnknownFood(f"unknown food {validate.echo(query.strip())}{hint}")


def search_foods(text_: str, *, session: Session, owner: User | None = None,
                 category: str | None = None, limit: int = 10, region: str | None = None,
                 ) -> list[tuple[search.Candidate, float]]:
    """Foods matching ``text_``, best first (db.search explains the order), with the
    ``owner``'s own, favourite and recent foods lifted. ``region`` ("US", "UK", "AU", "DE"):
    whose meaning of an ambiguous word comes first (db.vocabulary)."""
    vocabulary.check_region(region)
    found = _search_foods(text_, session=session, owner=owner, category=category, limit=limit,
                          region=region)
    if found:
        return found
    # Nothing found: a word misspelt beyond what a search corrects (``_a_typo``: "orchata",
    # "lentle") is read as its closest catalog word, rather than no answer at all.
    respelt = _loosely_respelt(text_, fts.vocabulary(session, owner.id if owner else None))
    return [] if respelt is None else _search_foods(
        respelt, session=session, owner=owner, category=category, limit=limit, region=region)


def _loosely_respelt(text_: str, known: tuple[str, ...]) -> str | None:
    """``text_``'s words with each unknown one of more than LOOSE_TYPO_MIN letters as the
    closest catalog word of its length or longer that keeps its first letter or adds one
    before it ("lentle": lentil, "orchata": horchata), or None if none is. Not a shorter word
    nor another first letter, which are other foods more often than the word misspelt ("Ayran"
    is no Ayr, a fish, nor a Mayan bake; a "bridie" no brie)."""
    typed = search.words(text_)
    respelt = [close[0] if len(word) > LOOSE_TYPO_MIN and not _known(word, known)
               and word not in vocabulary.single_word_terms()
               and (close := [c for c in search.corrections(word, known)
                              if len(c) >= len(word) and (c[0] == word[0] or c[1:] == word)])
               else word for word in typed]
    return None if respelt == typed else " ".join(respelt)


LOOSE_TYPO_MIN = 4


def _search_foods(text_: str, *, session: Session, owner: User | None, category: str | None,
                  limit: int, region: str | None) -> list[tuple[search.Candidate, float]]:
    owner_id = owner.id if owner is not None else None
    known = fts.vocabulary(session, owner_id)
    homemade = search.says_homemade(text_)
    text_, skin_off = search.without_skin_said(search.with_sugars_taken(
        search.with_how_made_said(search.without_decimal_percent(text_))))
    text_, bread_off = search.without_bread_said(text_)
    text_ = vocabulary.with_diet_terms_read(_food_words(text_, known), region)
    wanted, diet = search.query_wishes(text_)
    if not wanted:
        return []
    respelt = _term_spelling(wanted, known, region)
    if respelt != wanted:  # the text as meant, for every reading of it below
        for typed, meant in zip(wanted, respelt):
            if meant != typed:
                text_ = re.sub(rf"\b{re.escape(typed)}\b", meant, text_, flags=re.IGNORECASE)
        wanted, diet = search.query_wishes(text_)
    wanted = [_vocabulary_spelling(w, known, region) for w in wanted]
    parts = [_split_compound(w, known) for w in wanted]
    # A compound the catalog holds whole (a Swiss name, "apfelsaft") is read as the
    # vocabulary's parts too ("apple juice"); one it does not hold ("cheesesteak") is read
    # as its parts only, not corrected to another whole word ("cheesecake").
    vocabulary_parts = [_split_compound(w, known, held_whole=True) if part == [w] else part
                        for w, part in zip(wanted, parts)]
    found = _readings(parts, known, region)
    if vocabulary_parts != parts:
        found += [r for r in _readings(vocabulary_parts, known, region) if r not in found]
    readings, diet = _diet_wishes(found[:MAX_READINGS], diet)
    typed_words = search.words(text_)
    on = _on_bread(typed_words)
    readings += _diet_wishes(_filled_bread(parts, region, typed_words, on), diet)[0]
    readings += _drink_alone(wanted, region)
    main, heads = _main_food(text_, wanted, known, region, _named_food(session, typed_words))
    # "toast with butter" is toast too (a reading of the main food alone, ranked below a food
    # that is both: "Baked beans, canned in tomato sauce, with pork sausages"), not a food that
    # only holds both words ("Seeds, sesame butter, tahini, from roasted and toasted kernels").
    if main and not _sandwich_said(typed_words, on):
        readings += [(reading, handicap + search.MAIN_FOOD_HANDICAP) for reading, handicap in
                     _readings([_split_compound(w, known) for w in main], known, region)]
    asked_words = search.query_words(text_)
    # or a word read into them ("Apfelmark": unsweetened apple sauce)
    no_added_sugar = search.asks_no_added_sugar(asked_words) or any(
        search.asks_no_added_sugar(reading) for reading, _ in found)
    # A compound's last part names its kind ("Birnbrot" is a bread, "Kirschbananensaft" a
    # juice): read alone where no food has every part, below any reading of them all.
    kinds = [part[-1:] if len(part) > 1 else _compound_kind(part[0], known) for part in parts]
    kind_readings = [] if kinds == parts else _diet_wishes(
        [(reading, handicap + COMPOUND_KIND_HANDICAP)
         for reading, handicap in _readings(kinds, known, region)], diet)[0]
    recent, favourite = (personal_food_ids(owner, session=session) if owner is not None
                         else (set(), set()))

    def matching(alternatives: list[list[list[str]]], all_words: bool) -> list[search.Candidate]:
        rows = fts.candidates(session, alternatives, owner_id=owner_id, category=category,
                              all_words=all_words)
        return [search.candidate(r.food_id, r.name, r.category, r.weight, r.aliases,
                                 r.common_names, own=r.owner_id is not None,
                                 recent=r.food_id in recent, favourite=r.food_id in favourite,
                                 sugars_g=r.sugars_g,
                                 names_region=_names_region(r.dataset), dataset=r.dataset,
                                 values=r.values, entry=r.entry, has_portion=r.has_portion)
                for r in rows]

    # Foods with every word of a reading; where none answers (or none a diet wish may get: no
    # table has a diet lemon-lime soda, its diet soda is "Beverages, carbonated, low calorie,
    # other than cola", or none but by its description: a composite's lists its ingredients),
    # a compound's kind too; then any word will do.
    stages, typed_readings = [(readings, True)], readings
    # "taco bell crunchy taco" is a crunchy taco: the words as typed without the seller (the
    # query's repeated "taco" included), read anew, are what the later stages look for
    # "salt and vinegar crisps" are crisps (a flavour no table has a row of), not crisps
    # "without salt"
    typed = search.query_wishes(text_, unique=False)[0]
    sold = search.without_sellers(typed)
    flavourless = search.without_flavours(sold or typed)
    # "orange gatorade" is Gatorade before any row of both words (the dry powder), below one
    # that is both: read beside the words as typed
    brand = search.without_drink_flavours(typed)
    if brand:
        typed_readings += [(reading, handicap + DRINK_FLAVOUR_HANDICAP) for reading, handicap in
                           _readings([_split_compound(_vocabulary_spelling(w, known, region), known)
                                      for w in dict.fromkeys(brand)], known, region)]
    if sold or flavourless:
        readings = _readings([_split_compound(_vocabulary_spelling(w, known, region), known)
                              for w in dict.fromkeys(flavourless or sold)], known, region)
        readings += _drink_alone(list(dict.fromkeys(flavourless or sold)), region)
        stages.append((readings, True))
        kind_readings = [] if flavourless else kind_readings
    measureless = [(kept, handicap) for reading, handicap in readings
                   if (kept := search.without_measures(reading))]
    if measureless:  # "half cup juice" is juice, not a cupcake
        stages.append((measureless, True))
    regular = [(kept, handicap) for reading, handicap in measureless or readings
               if (kept := search.without_regular(reading))]
    if regular:  # "full fat coke" is cola, not a full-fat crème fraîche
        stages.append((regular, True))
    cookless = [(kept, handicap) for reading, handicap in measureless or readings
                if (kept := search.without_cooking(reading))]
    if cookless:  # "Maiskolben gegrillt": corn on the cob, before any word of it will do
        stages.append((cookless, True))
    if kind_readings:
        stages.append((readings + kind_readings, True))
    if any(len(reading) > 1 for reading, _ in readings + kind_readings):
        stages.append((readings + kind_readings, False))
    if sold and any(len(reading) > 1 for reading, _ in typed_readings):
        stages.append((typed_readings + kind_readings, False))  # "wendys baconator"
    kinds_read = False
    # rows of stages that no answer ended (search.ends_no_search): ranked after the answers
    weak: dict[int, search.Candidate] = {}
    carried: dict[int, search.Candidate] = {}  # and ranked with them
    for stage, (readings, all_words) in enumerate(stages):
        alternatives = [[_spellings(word, known, last=i == len(reading) - 1)
                         for i, word in enumerate(reading)] for reading, _ in readings]
        found = matching(alternatives, all_words)
        allowed = [c for c in found if not (diet and search.sugared(c, no_added_sugar))]
        named = [c for c in allowed
                 if fts.names_match(alternatives, c.food, c.aliases, c.common_names)]
        asked = search.asked_forms(r for r, _ in readings)
        # A diet query's rows that only say light or reduced ("Pancake syrup, light", 33 g of
        # sugar per 100 g) end no search: a sugar-free row ("Syrups, sugar free") may come
        # later, and they are ranked with it (the sugar costs them: db.search).
        if (diet and named and stage < len(stages) - 1
                and all(search.sugary(c) for c in named)):
            carried.update((c.food_id, c) for c in named)
            continue
        # Likewise another query's rows that are all diet kinds ("snapple peach tea": SR
        # Legacy's only peach Snapple is the diet one): the regular kind may come later.
        if (not diet and named and stage < len(stages) - 1
                and all(search.reduced(c) for c in named)):
            carried.update((c.food_id, c) for c in named)
            continue
        read_on = any(all_words for _, all_words in stages[stage + 1:])
        no_answer = [c for c in named if search.ends_no_search(c, asked, region, read_on)]
        if named and stage < len(stages) - 1 and len(no_answer) == len(named):
            weak.update((c.food_id, c) for c in named)  # read on, and list them after
            continue
        if not all_words and allowed or named:
            if len(no_answer) < len(named):  # "Geschnetzeltes": the cooked ones before the raw
                weak.update((c.food_id, c) for c in no_answer)
            break
        # A diet query whose words name only sugared foods, by an alias or a brand ("ribena no
        # added sugar", "Diät Marmelade": Konfitüre), asks for the diet kind of those foods:
        # read before any word of the query alone will do ("sugar free gummy bears" is no bear).
        if diet and not kinds_read and (stage == len(stages) - 1
                                        or all_words and not stages[stage + 1][1]):
            kinds_read = True
            named = _sugared_kinds([c for c in found if fts.names_match(
                alternatives, c.food, c.aliases, c.common_names)])
            if named:
                stages[stage + 1:stage + 1] = [(named, True)] + ([(named, False)] if any(
                    len(reading) > 1 for reading, _ in named) else [])
    # Rank with each word as the food names spell it: of a typo's corrections the first that
    # a food found names beside the other words ("frensh fries": french, not fresh).
    spelt = [[_spelt(choices, words, found) for choices in words] for words in alternatives]
    guessed = {choice for chosen, (reading, _) in zip(spelt, readings)
               for word, choice in zip(reading, chosen)
               if choice not in (word, search.singular(word))}
    # the main food's word as spelt too ("pancaks with syrup": pancake, so "Pancake syrup" is syrup)
    if main and search.joins_with(text_):
        heads |= {choice for chosen, (reading, _) in zip(spelt, readings)
                  for word, choice in zip(reading, chosen) if word in heads and choice in guessed}
    query = search.make_query([(chosen, handicap)
                               for chosen, (_, handicap) in zip(spelt, readings)],
                              diet=diet, typed=sum(map(len, parts)), region=region,
                              typed_words=wanted, guessed=guessed,
                              no_added_sugar=no_added_sugar, heads=heads, paired=bool(main),
                              any_order=search.joins_foods(text_),
                              accompanied=search.joins_with(text_),
                              main_words={w for reading, _ in vocabulary.readings(main, region)
                                          for w in reading},
                              sugar_left_out=search.leaves_sugar_out(asked_words),
                              skin_off=skin_off, homemade=homemade, bread_off=bread_off)
    found = list({c.food_id: c for c in (*carried.values(), *found)}.values())
    ranked = search.rank(query, [c for c in found if c.food_id not in weak], limit)
    ranked += search.rank(query, list(weak.values()), limit)[:limit - len(ranked)]
    return with_portions(session, ranked, measure=search.query_measure(text_, region))


def _spelt(choices: list[str], words: list[list[str]], found: list[search.Candidate]) -> str:
    """Of a query word's spellings (``_spellings``: a typo's corrections), the one most found
    foods' names hold with a spelling of every other word of its reading; of equals, and for
    a reading of one word, the first (the closest)."""
    others = [set(other) for other in words if other is not choices]
    if len(choices) < 2 or not others:
        return choices[0]  # a word alone: the closest
    names = [set(c.name_words) for c in found]
    held = [sum(choice in name and all(not other.isdisjoint(name) for other in others)
                for name in names) for choice in choices]
    return choices[held.index(max(held))]


_FROM_PLACE_RE = re.compile(  # the last such word: "im Büro in Frankfurt" is "in Frankfurt"
    r"^.*\S(\s+(?:from|at|vom|von|beim|bei|im|in|am|after|off|on)\s+(?:the\s+|a\s+|my\s+|our\s+|"
    r"der\s+|dem\s+|die\s+)?((?:[\w.]+'?s?)(?:\s+[\w.]+'?s?){0,2})\s*)$", re.IGNORECASE)
# Whose it is, said before the food: "sister mae's chicken and dumplings", "mum's apple pie".
_FAMILY = frozenset({"mum", "mom", "mam", "ma", "nan", "nana", "nanna", "gran", "granny", "grandma",
                     "grandad", "grandpa", "dad", "auntie", "aunt", "uncle", "wife", "husband",
                     "friend", "neighbour", "neighbor", "oma", "opa", "mama", "papa"})
_WHOSE_RE = re.compile(r"^((?:[\w']+\s+){0,2}\w+'s)\s+(?=\S)", re.IGNORECASE)


def _without_unknown_place(text_: str, known: tuple[str, ...]) -> str:
    """``text_`` without each closing "from", "at", "in" or "on" and up to three words none of
    which the catalog or the vocabulary holds, or a name's possessive ("pat's", "mike's
    pastry"): where it came from ("potato knish from katz", "Döner vom Ali", "glazed donut
    from the nurses station", "Kaffee im Büro in Frankfurt"), and without a leading possessive
    of words no table holds ("sister mae's chicken and dumplings"; "shepherd's pie" stays). A
    table's own "from frozen", "in syrup" or "from concentrate" stays."""
    while found := _FROM_PLACE_RE.match(text_):
        words = search.words(found[2])
        whose = "'s" in found[2].split()[0].lower() and words[:1] != [
            w for w in words[:1] if w in search.SELLER_WORDS]
        if not words or (not whose and any(_food_word(w, known) for w in words)):
            break
        text_ = text_[:found.start(1)]
    whose = _WHOSE_RE.match(text_)
    if whose and text_[whose.end():].strip():
        named = search.words(whose[1].replace("'s", ""))
        # one name alone may be a brand ("Mott's juice box"): a person is two words or family
        family = len(named) == 1 and named[0] in _FAMILY
        if family or (len(named) > 1 and not any(
                _known(w, known) or w in vocabulary.single_word_terms()
                or w in search.SELLER_WORDS for w in named)):
            text_ = text_[whose.end():]
    return text_


# A closing clause of when, why or where it was eaten, opened by a word that joins no two foods
# in any table's names ("at" only in "purchased at a bakery"; "from the" only in one Swiss name;
# "for" only in a few, which no one types: "Ham, for use with vegetables"): "saltines for
# morning sickness", "pedialyte for my sick kid", "chicken noodle soup when i was sick",
# "jambalaya at the crawfish boil", "pralines from the french quarter", "egg coffee after
# service", "Banane vorm Laufen", "Radler nach dem Radfahren", "Matjesbrötchen an den
# Landungsbrücken", "Gummibärchen bei niedrigem Zucker", "Erdbeeren aus dem Garten".
_OCCASION_RE = re.compile(
    r"^(.*\S)\s+(?:(?:when|while|during|at|before|after|for|bei|vor|vorm|nach|während|"
    r"waehrend|für|fuer)\s+"
    r"|from\s+(?:the|a|an|my|our)\s+|an\s+(?:den|der|dem|die)\s+"
    # "Erdbeeren aus dem Garten", "Rührei aus 2 Eiern" (not "Brot aus Dinkel": what it is)
    r"|aus\s+(?:dem|der|den|meinem|meiner|unserem|unserer|eigenem|eigener|eigenen|\d+)\s+"
    r"(?!(?:dose|büchse|buchse)\b))\S.*$",  # "Ananas aus der Dose": canned, what it is
    re.IGNORECASE)


def _without_occasion(text_: str, known: tuple[str, ...]) -> str:
    """``text_`` without its last closing clause of when, why or where (``_OCCASION_RE``) where
    the words before it name a food ("a slice at the pizza place" stays)."""
    found = _OCCASION_RE.match(text_)
    if found is None:
        return text_
    before = [w for w in search.words(found[1]) if w not in search.MEASURE_AND_SIZE_WORDS
              and w not in search.STOPWORDS and not w.isdigit()]
    return found[1] if any(_food_word(w, known) for w in before) else text_


def _food_words(text_: str, known: tuple[str, ...]) -> str:
    """``text_`` without the why, the context, a place no table knows and an occasion said
    after the food, in turn until none is left ("orange chicken from the food court at the
    mall", "jelly babies for a hypo in the car", "Bratkartoffeln wie bei Oma")."""
    while (shorter := _without_occasion(_without_unknown_place(
            search.without_context(hypo.without_why(text_)), known), known)) != text_:
        text_ = shorter
    return text_


def _food_word(word: str, known: tuple[str, ...]) -> bool:
    """Whether ``word`` may name a food: a catalog or vocabulary word (not the start of one:
    "car" is no caramel), a compound of them ("Tomatensoße") or one letter off a long catalog
    word ("tomatoe")."""
    return (_known(word, known) or word in vocabulary.single_word_terms()
            or len(_split_compound(word, known)) > 1
            or (len(word) > SHORT_WORD and any(_known(w, known) for w in _one_letter_off(word))))


def _named_food(session: Session, typed: list[str]) -> tuple[int, int, int] | None:
    """(start, its "and", end), indices of ``typed``, of the words around the query's "and" that
    are a public food's name or alias: "mac and cheese" of "baked mac and cheese" is one food
    (an alias of "Macaroni and cheese"), not "baked mac" (a mackerel) with cheese. The longest;
    None: no such words."""
    joins = [i for i, w in enumerate(typed) if w in search.AND_WORDS and 0 < i < len(typed) - 1]
    spans = {" ".join(typed[i - left:i + right + 1]).replace(f" {typed[i]} ", f" {joiner} "):
             (i - left, i, i + right) for i in joins for left in (1, 2) for right in (1, 2)
             if i - left >= 0 and i + right < len(typed) for joiner in (typed[i], "&")}
    if not spans:
        return None
    named = session.scalars(union(
        select(FoodAlias.alias_key).join(Food, Food.id == FoodAlias.food_id)
        .where(Food.owner_id.is_(None), FoodAlias.alias_key.in_(spans)),
        select(Food.name_key).where(Food.owner_id.is_(None), Food.name_key.in_(spans)))).all()
    return max((spans[phrase] for phrase in named), key=lambda s: s[2] - s[0], default=None)


def _main_food(text_: str, wanted: list[str], known: tuple[str, ...], region: str | None,
               named: tuple[int, int, int] | None = None) -> tuple[list[str], set[str]]:
    """The words of the main food of a phrase of two foods (``search.main_food``: "scampi" of
    "scampi and chips"), or none when the query names one food; and the words that name the
    main food, in the catalog's words too ("mince": "beef"), for a query of several words.
    ``named``: a food named with "and" (``_named_food``), the main food where the phrase would
    be split at its "and"."""
    if len(wanted) < 2 or search.without_flavours(search.query_words(text_)):
        return [], set()  # one food, or a snack of a flavour ("salt and pepper chips")
    typed = search.words(text_)
    words, head = search.main_food(typed)
    if named is not None and head == typed[named[1] - 1]:
        start, _, end = named
        words = [w for w in typed[start:end + 1] if w not in search.STOPWORDS]
        head = words[-1]
    # spelt as the query's words are ("broetchen mit butter": brotchen)
    words = [_vocabulary_spelling(w, known, region) for w in words]
    head = head and _vocabulary_spelling(head, known, region)
    main = [w for w in words if w in wanted]
    if head is None or head not in wanted:
        return [], set()
    heads = {head, _split_compound(head, known)[-1]}
    heads |= {reading[-1] for reading, _ in vocabulary.readings([head], region) if reading}
    if not main or len(main) >= len(wanted):
        return [], heads
    # without the cut it ends in ("apple slices with peanut butter": apple, not "Apple pie" by
    # its slice)
    while len(main) > 1 and main[-1] in _CUT_WORDS:
        main = main[:-1]
    return main, heads


_CUT_WORDS = frozenset({"slice", "slices", "piece", "pieces", "chunk", "chunks", "wedge", "wedges",
                        "cube", "cubes"})


def _sugared_kinds(named: list[search.Candidate]) -> list[tuple[list[str], float]]:
    """The kinds of foods a diet query named but that are sugared, as readings: each name's
    first part ("Blackcurrant juice drink/squash" of "…, diluted"), with its second where the
    first is a food group ("Beverages, carbonated")."""
    kinds: list[tuple[list[str], float]] = []
    for found in named:
        # not a note's figures ("Sirup zubereitet (verdünnt im Verhältnis 1:5.5)"): "5" is in
        # every wine's "13.5 vol%"
        parts = [[w for w in search.words(part) if not any(c.isdigit() for c in w)
                  and w not in search.STATE_WORDS]
                 for part in re.sub(r"\([^)]*\)", " ", found.food).split(",")]
        kind = parts[0] + (parts[1] if len(parts) > 1 and tuple(parts[0]) in search.GROUP_HEADS
                           else [])
        if kind and (kind, 0.0) not in kinds:
            kinds.append((kind, 0.0))
    return kinds[:MAX_READINGS]


def _diet_wishes(readings: list[tuple[list[str], float]], diet: bool
                 ) -> tuple[list[tuple[list[str], float]], bool]:
    """The readings without their diet words, and whether the query or one of them carries a
    diet wish: a regional word may ("pepsi max", "cola light" read as "diet cola")."""
    kept = []
    for reading, handicap in readings:
        words, wish = search.split_diet(reading)
        kept.append((words, handicap))
        diet = diet or wish
    return kept, diet


def _names_region(dataset: str | None) -> str | None:
    table = datasets.dataset(dataset or "")
    return table.names_region if table else None


def search_hit(found: search.Candidate, value: float | None = None) -> dict[str, Any]:
    """A search result as every caller shows it: {"food", "food_id", "category", "score",
    "own", "recent", "favourite", "portion": {"serving", "grams", "carbohydrate_g",
    "available_carbohydrate_g", "amount"}, "dataset", "duplicates": [{"food", "food_id",
    "dataset"}], "asks"} (the default serving and the carbohydrate in it, ``with_portions`` fills them; the food's table; the same food
    in other tables, ranked below it; for a hypo treatment, what to read from the pack,
    db.hypo). The search and the list of recent foods give the same shape, so a client reads
    both alike."""
    return {"food": found.food, "food_id": found.food_id, "category": found.category,
            "score": None if value is None else round(value, 2), "own": found.own,
            "recent": found.recent, "favourite": found.favourite,
            "portion": {"serving": found.portion.serving, "grams": found.portion.grams,
                        "carbohydrate_g": found.portion.carbohydrate_g,
                        "available_carbohydrate_g": found.portion.available_carbohydrate_g,
                        "amount": found.portion.amount},
            "dataset": found.dataset,
            "duplicates": [{"food": name, "food_id": food_id, "dataset": dataset}
                           for food_id, name, dataset in found.duplicates],
            "asks": None}


MAX_READINGS = 4
# A reading of a compound's last part alone ranks this much below the words as typed.
COMPOUND_KIND_HANDICAP = 2.0
# And of a drink brand without its flavour ("gatorade" of "orange gatorade").
DRINK_FLAVOUR_HANDICAP = 1.0


def _readings(parts: list[list[str]], known: tuple[str, ...],
              region: str | None) -> list[tuple[list[str], float]]:
    """The query's readings (db.vocabulary.readings) with split compounds as separate words,
    and each with adjacent words joined where the catalog writes them as one ("soy milk" ->
    "soymilk"), at most MAX_READINGS."""
    words = [w for part in parts for w in part]
    found: list[tuple[list[str], float]] = []
    for reading, handicap in vocabulary.readings(words, region):
        if reading != words:  # "gekochte Kartoffeln": boiled potatoes, not "boiled boiled potatoes"
            reading = [w for i, w in enumerate(reading) if len(w) < 3 or w not in reading[:i]]
        found.append((reading, handicap))
        if handicap == 0.0 and reading != words:
            found += _modified_kinds(parts, region)
        for i in range(len(reading) - 1):
            # typed as two words, not split from one compound nor read from the vocabulary
            where = [next((j for j, part in enumerate(parts) if w in part), None)
                     for w in reading[i:i + 2]]
            apart = None not in where and where[0] != where[1]
            joined = _joined(reading[i], reading[i + 1], known, apart=apart)
            if joined:
                found.append((reading[:i] + [joined] + reading[i + 2:], handicap))
    unique: dict[tuple[str, ...], float] = {}
    for reading, handicap in found:
        unique[tuple(reading)] = min(handicap, unique.get(tuple(reading), handicap))
    return [(list(r), h) for r, h in unique.items()][:MAX_READINGS]


def _joined(first: str, second: str, known: tuple[str, ...], *, apart: bool = True
            ) -> str | None:
    """The catalog word two adjacent words make together ("soy milk": "soymilk", "fish cake":
    "fishcakes"), also with one letter off where the joined word is long ("chees cake":
    "cheesecake", "cookeis" split as cook and eis: "cookies") unless two catalog words were
    typed ``apart`` ("brot butter" is no "Bratbutter"), or None."""
    joined = first + second
    for whole in (joined, joined + "s", joined + "es"):
        if _known(whole, known):
            return whole
    if (len(joined) <= SHORT_WORD or min(len(first), len(second)) < 3
            or (apart and _known(first, known) and _known(second, known))):
        return None
    return next((w for w in _one_letter_off(joined) if w[0] == joined[0] and _known(w, known)),
                None)


# A bread named with its filling is a sandwich of it: "Schinkenbrötchen", "Leberkäse Semmel",
# "Bratwurst im Brötchen", "Brötchen mit Nutella", "tuna mayo baguette", "meatball sub" (the
# Swiss FCDB's "Sandwich (Baguette) mit Schinken", CoFID's "Sandwich, white bread, tuna
# mayonnaise"). Read so a little below the words as typed, which name a bread of that kind
# first ("Roggenbrot"). Bread spread with butter is bread ("Butterbrot", "Brötchen mit
# Butter"); a "sausage roll" is a pastry and a bap the vocabulary's soft roll ("bacon bap").
BREAD_PARTS = frozenset({"brotchen", "semmel", "weggli", "schrippe", "weckle", "brot"})
FILLED_ROLLS = frozenset({"baguette", "baguettes", "sub", "subs", "hoagie", "hoagies",
                          "sarnie", "sarnies", "panini", "paninis", "pita", "pitas", "pitta",
                          "pittas"})
FILLED_BREAD_LINKS = frozenset({"im", "in", "mit", "auf", "aufs"})  # "Bratwurst im Brötchen"
# The breads a sandwich is said to be "on" (a US deli's "ham and swiss on rye"); not toast,
# whose dishes are named ("beans on toast", "cheese on toast").
ON_BREADS = frozenset({"rye", "wheat", "white", "sourdough", "pumpernickel", "multigrain",
                       "ciabatta", "brioche", "focaccia", "kaiser", "roll", "bun", "hoagie",
                       "whole", "wholemeal", "wholewheat", "wholegrain", "granary", "brown",
                       "bagel", "baguette"})
SPREAD_FATS = frozenset({"butter", "margarine", "schmalz"})
# What a roll's name goes on to say it is, no filling: "pitta bread", "pita chips".
NO_FILLINGS = frozenset({"bread", "breads", "brot", "chips", "crisps"})
FILLED_BREAD_HANDICAP = 1.0
DRINK_ALONE_HANDICAP = 4.0


def _on_bread(typed: list[str]) -> int | None:
    """Where a query says the sandwich's bread ("turkey and swiss on rye", "ham on a roll"):
    the index of its "on", or None."""
    return next((i for i, w in enumerate(typed[:-1]) if i and w == "on" and next(
        (b for b in typed[i + 1:] if b not in ("a", "an")), None) in ON_BREADS), None)


def _sandwich_said(typed: list[str], on: int | None) -> bool:
    """Whether the query is a sandwich, not its filling with bread: "tuna on rye", "ham and
    cheese on a roll"; not "square sausage on a roll", which may be the sausage in a bap.
    ``on``: ``_on_bread(typed)``."""
    if on is None:
        return False
    bread = next(b for b in typed[on + 1:] if b not in ("a", "an"))
    return bread not in ("roll", "bun") or not search.AND_WORDS.isdisjoint(typed[:on])


def _filled_bread(parts: list[list[str]], region: str | None, typed: list[str],
                  on: int | None) -> list[tuple[list[str], float]]:
    """The query read as the sandwich of the filling its bread is named with: the first part
    of a compound whose last part is a bread, the other words beside a bread or roll, or
    the words before "on" a bread (``on``, ``_on_bread(typed)``: "turkey and swiss on rye")."""
    found = []
    if on:
        fillings = [w for w in typed[:on] if w not in search.STOPWORDS]
        found += [(reading, handicap + FILLED_BREAD_HANDICAP) for reading, handicap
                  in vocabulary.readings(["sandwich", *fillings], region)]
    for i, part in enumerate(parts):
        others = [w for p in parts[:i] + parts[i + 1:] for w in p]
        if len(part) == 2 and part[1] in BREAD_PARTS:
            fillings = [part[0], *others]
        elif len(part) == 1 and part[0] in BREAD_PARTS | FILLED_ROLLS:
            # a count is no filling ("2 Brötchen")
            fillings = [w for w in others if w not in FILLED_BREAD_LINKS and not w.isdigit()
                        and w not in NO_FILLINGS]
        else:
            continue
        if fillings and SPREAD_FATS.isdisjoint(fillings):
            found += [(reading, handicap + FILLED_BREAD_HANDICAP) for reading, handicap
                      in vocabulary.readings(["sandwich", *fillings], region)]
    return found[:MAX_READINGS]


def _drink_alone(wanted: list[str], region: str | None) -> list[tuple[list[str], float]]:
    """A coffee-shop drink with the milk chosen for it said after it ("latte semi skimmed",
    "cappuccino 2% milk") read as the drink alone too, below the words as typed (a row that
    names both, "Coffee, infusion, average, with semi-skimmed milk", comes first): no row of
    the milk alone is the drink."""
    kept = search.without_milk_choice(wanted, search.MILK_DRINK_WORDS)
    if kept == wanted or not search.PLANT_MILK_WORDS.isdisjoint(wanted[len(kept):]):
        return []  # (a plant milk makes another drink: "Coffee, Latte, with non-dairy milk")
    return [(reading, handicap + DRINK_ALONE_HANDICAP)
            for reading, handicap in vocabulary.readings(kept, region)]


def _modified_kinds(parts: list[list[str]], region: str | None) -> list[tuple[list[str], float]]:
    """The query read with each split compound's last part as the food its meaning names
    before its kind (db.vocabulary.head): the compound's first part says which kind
    ("Roggenbrötchen" is a rye roll, SR28's 'Roll, rye', not the 'Rolls, hard' that Brötchen
    alone means)."""
    heads = [part[:-1] + list(vocabulary.head(part[-1], region) or part[-1:])
             if len(part) > 1 else part for part in parts]
    if heads == parts:
        return []
    words = [w for part in heads for w in part]
    return [(reading, handicap) for reading, handicap in vocabulary.readings(words, region)
            if reading != words]


def _known(word: str, known: tuple[str, ...]) -> bool:
    index = bisect_left(known, word)
    return index < len(known) and known[index] == word


def _starts_known(word: str, known: tuple[str, ...]) -> bool:
    """Whether a catalog word starts with ``word`` ("flapjack" of "flapjacks"): a word being
    typed, or a singular, is not two words."""
    index = bisect_left(known, word)
    return index < len(known) and known[index].startswith(word)


def _a_word(word: str, known: tuple[str, ...]) -> bool:
    """Whether ``word`` is a catalog word (or starts one, as it is typed) or a vocabulary term:
    no compound to split, no typo to correct; so is a measure ("Tetrapack", "Päckchen")."""
    return (_known(word, known) or word in vocabulary.single_word_terms()
            or word in search.MEASURE_AND_SIZE_WORDS or _starts_known(word, known))


# German joins a compound's parts with a linking element ("Orange-n-saft", "Schwein-s-braten",
# "Hühn-er-suppe") or drops the first part's last letter ("Birn(e)brot", "Nudel(n)salat").
_LINKS = ("", "s", "n", "en", "e", "er", "es")
_DROPPED = ("e", "n")


def _split_compound(word: str, known: tuple[str, ...], *, held_whole: bool = False
                    ) -> list[str]:
    """``word`` as the two catalog or vocabulary words it joins ("cornflakes" -> corn flakes,
    "apfelsaft" -> apfel saft, "orangensaft" -> orange saft with German's linking "n",
    "birnbrot" -> birne brot), or ``[word]`` when it is a word itself, the plural of one, or no
    such split exists. Of several splits, the most even one. ``held_whole``: a word the catalog
    holds whole ("Tomatensauce", "Apfelsaft"), split where the vocabulary reads its first part
    (tomaten sauce), unless the vocabulary reads it whole."""
    terms = vocabulary.single_word_terms()
    one = search.singular(word)
    if len(word) < 6 or (word in terms if held_whole else
                         _a_word(word, known) or (one is not None and _known(one, known))):
        return [word]  # a word, or the plural of one ("cheeseburgers")

    def part(text: str) -> bool:
        return len(text) >= 3 and (_known(text, known) or text in terms)

    def first(text: str) -> bool:
        return len(text) >= 3 and text in terms if held_whole else part(text)

    best: list[str] | None = None
    for cut in range(3, len(word) - 2):
        head, tail = word[:cut], word[cut:]
        if not (part(tail) or tail in _PIECE_TAILS):
            continue
        stem = _first_part(head, first, terms)
        if stem is not None and (best is None or min(len(stem), len(tail)) > min(map(len, best))):
            best = [stem, tail]
    return best or [word]


# The pieces a German compound may end with ("Ananasstücke", "Käsescheiben"): the food in
# pieces, whose last part the search then leaves out as a measure.
_PIECE_TAILS = frozenset({"stuck", "stucke", "stuckchen", "scheibe", "scheiben"})


def _first_part(head: str, part, terms: frozenset[str]) -> str | None:
    """The word a compound's first part ``head`` stands for (``_LINKS``, ``_DROPPED``): one the
    vocabulary reads first ("linsen", lentils, not the catalog's "linse"), else the shortest
    ("schwein" of "Schweinebraten", not the plural "schweine" of "Schweine- und Rindfleisch")."""
    stems = [head[:len(head) - len(link)] for link in _LINKS if head.endswith(link)]
    stems += [head + letter for letter in _DROPPED]
    found = [stem for stem in stems if part(stem)]
    return min(found, key=lambda stem: (stem not in terms, len(stem))) if found else None


# The shortest first part, and last part, of a compound whose first part is no word the
# catalog or the vocabulary holds ("Sacher-torte", "Multivitamin-saft").
MIN_HEAD, MIN_KIND = 3, 4


def _compound_kind(word: str, known: tuple[str, ...]) -> list[str]:
    """``[word]``, or for a word neither the catalog nor the vocabulary holds, the longest
    catalog or vocabulary word it ends with: a compound's kind ("saft" of "Kirschbananensaft")."""
    if _a_word(word, known):
        return [word]
    terms = vocabulary.single_word_terms()
    for cut in range(MIN_HEAD, len(word) - MIN_KIND + 1):
        if _known(word[cut:], known) or word[cut:] in terms:
            return [word[cut:]]
    return [word]


# A word typed without its umlaut's letters as German writes them when it has none
# ("Spaetzle" for Spätzle, which the catalog and the vocabulary hold as "spatzle"), and
# German's own spelling of Sauce (Duden: "Soße, auch Sauce"; "Bratensoße" is the Swiss
# table's "Bratensauce").
_GERMAN_SPELLINGS = (("ae", "a"), ("oe", "o"), ("ue", "u"), ("sosse", "sauce"))
# A word neither the catalog nor the vocabulary holds that is this close to a vocabulary term
# is that term misspelt ("bratkartofeln"): read as the term, as the catalog's words are
# corrected (db.search.corrections) after the vocabulary has read the query.
VOCABULARY_TYPO_CUTOFF = 0.85


def _german_respelt(word: str) -> str:
    """``word`` with German's spellings of umlauts and of Sauce (``_GERMAN_SPELLINGS``) as the
    catalog's keys write them."""
    for written, letter in _GERMAN_SPELLINGS:
        word = word.replace(written, letter)
    return word


def _vocabulary_spelling(word: str, known: tuple[str, ...], region: str | None) -> str:
    """``word``, or the catalog or vocabulary word it spells otherwise (``_GERMAN_SPELLINGS``,
    ``VOCABULARY_TYPO_CUTOFF``): a term of the searcher's ``region`` or of every region, not
    another region's ("bisquits" in the US are biscuits, not the UK's misspelt "bisuits")."""
    if _a_word(word, known):
        # one that only starts catalog words ("kaffe" of "Kaffeerahm") and lacks the last
        # letter of a term is the term ("Kaffe mit Milch": Kaffee)
        if (len(word) >= 4 and not _known(word, known)
                and word not in vocabulary.single_word_terms()
                and word not in search.MEASURE_AND_SIZE_WORDS):
            terms = vocabulary.regional_single_word_terms(region)
            return next((word + c for c in _LETTERS if word + c in terms), word)
        return word
    plain = _german_respelt(word)
    if plain != word and (_a_word(plain, known) or len(_split_compound(plain, known)) > 1) and (
            _known(plain, known) or plain in vocabulary.single_word_terms()
            or not set(search.corrections(word, known)[:1]) & set(_one_letter_off(word))):
        # not where it only starts a catalog word and the word as typed is a letter off one
        # ("Paela" is paella, not the start of "Palak")
        return plain
    if len(_split_compound(word, known)) > 1:
        # one letter off a catalog word is that word misspelt ("cheezecake" is no "cheez"
        # cake); two off are other words ("cheesesteak" is no cheesecake)
        return next((w for w in _one_letter_off(word) if _known(w, known)), word)
    terms = vocabulary.regional_single_word_terms(region)
    swapped = next((t for t in (*_swapped(word), *_as_sounded(word), *_swapped(plain))
                    if t in terms and abs(len(t) - len(word)) <= 2), None)
    if swapped is not None:
        # two letters typed the wrong way round ("nudlen": Nudeln; "spaetzel": Spätzle), "müsly"
        return swapped
    close = search.close_words(word, terms, 1, VOCABULARY_TYPO_CUTOFF)
    catalog = [c for c in search.corrections(word, known)[:1] if _a_typo(word, c, known)]
    if not close:
        # a compound misspelt in its last part ("Apfel-strudl", "Apfelstrudle", "Erbsensupe")
        # where no catalog word is a letter off ("Kartoffelsupe" is no Kartoffelstärke)
        if ((catalog and search.edits(word, catalog[0]) <= 2) or len(word) < MIN_MISSPELT_COMPOUND
                or word in vocabulary.phrase_words()):  # "jamaican" of "jamaican patty"
            return word
        # of several, one whose parts the vocabulary reads ("Erbsen-suppe", not the catalog's
        # "sope" or "ensure"); beside a catalog word further off, one whose parts it both reads
        spelt = [w for typed in dict.fromkeys((word, plain))
                 for w in (*_one_letter_off(typed), *_swapped(typed))
                 if w[0] == typed[0] and _misspelt_compound(typed, w, known)
                 and not (catalog and not set(_split_compound(w, known)) <= terms)]
        # and of those, one that keeps every letter typed (a letter left out is the likeliest
        # slip: "Erdbeerjogurt" is Erdbeer-joghurt, not Erdbeer-gogurt)
        return max(spelt, key=lambda w: (sum(p in terms for p in _split_compound(w, known)),
                                         _keeps_letters(word, w)), default=word)
    if catalog and catalog[0] != close[0] and (
            _similarity(word, catalog[0]) >= _similarity(word, close[0])
            or search.edits(word, catalog[0]) < search.edits(word, close[0])
            or search.edits(word, catalog[0]) == 1 and len(catalog[0]) == len(word)):
        # "chiken" is chicken, not the vocabulary's "schinken"; "rool" is a roll (one letter
        # wrong), not the Polish rosół (one left out)
        return word
    return close[0]


def _term_spelling(words: list[str], known: tuple[str, ...], region: str | None) -> list[str]:
    """``words`` with one the catalog and the vocabulary lack read as the word of a term it is
    close to, where the words beside it complete that term ("mountian dew": "mountain dew";
    "bufalo wings": "buffalo wings"): the vocabulary reads terms before a typo is corrected."""
    spelt = list(words)
    for i, word in enumerate(words):
        if (len(word) < vocabulary.MIN_PHRASE_WORD or _known(word, known)
                or word in vocabulary.single_word_terms() or word in vocabulary.phrase_words()):
            continue
        for close in search.close_words(word, vocabulary.regional_phrase_words(region),
                                        MAX_TERM_SPELLINGS, VOCABULARY_TYPO_CUTOFF):
            if vocabulary.completes_term(spelt[:i] + [close] + spelt[i + 1:], i, region):
                spelt[i] = close
                break
    return spelt


MAX_TERM_SPELLINGS = 3
MIN_MISSPELT_COMPOUND = 8
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _misspelt_compound(word: str, spelt: str, known: tuple[str, ...]) -> bool:
    """Whether ``spelt`` splits into a first part and a last part of at least MIN_KIND
    letters of which ``word`` holds one as typed: ``word`` is that compound with the other
    misspelt ("Apfelstrudl", "Hünersuppe")."""
    split = _split_compound(spelt, known)
    # a misspelt first part is one the vocabulary reads ("Huhn"), not any catalog word: an
    # unknown kind of noodle ("Band-nudeln") is no "Brand-nudeln"
    return (len(split) == 2 and len(split[1]) >= MIN_KIND
            and (word.startswith(split[0]) or word.endswith(split[1])
                 and split[0] in vocabulary.single_word_terms()))


def _keeps_letters(word: str, other: str) -> bool:
    """Whether ``other`` holds every letter of ``word`` in its order."""
    letters = iter(other)
    return all(letter in letters for letter in word)


def _one_letter_off(word: str) -> list[str]:
    """The words one letter dropped, added or replaced away from ``word``, in a fixed order."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return sorted({head + tail[1:] for head, tail in cuts if tail}
                  | {head + c + tail for head, tail in cuts for c in _LETTERS}
                  | {head + c + tail[1:] for head, tail in cuts if tail for c in _LETTERS}
                  - {word})


def _as_sounded(word: str) -> list[str]:
    """A final "y" spelt as it sounds in a word that ends in "ie" or "i" ("browny": brownie,
    "müsly": Müsli)."""
    return [word[:-1] + end for end in ("ie", "i")] if word.endswith("y") else []


def _swapped(word: str) -> list[str]:
    """The words two neighbouring letters of ``word`` swapped make, in order."""
    return [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)
            if word[i] != word[i + 1]]


def _similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


def with_portions(session: Session, ranked: list[tuple[search.Candidate, float | None]],
                  measure: tuple[str, ...] = ()) -> list[tuple[search.Candidate, float | None]]:
    """The hits with their default serving and the carbohydrate in it (looked up for the
    hits shown only; None where the food has no default or no carbohydrate value); with a
    ``measure`` (db.search.query_measure), the serving it names where the food has one
    ("tablespoon of sugar": 1 tablespoon, not the packet; db.portions.measured_serving)."""
    found = _default_portions(session, [c.food_id for c, _ in ranked], measure)
    return [(replace(hit, portion=_portion(*found.get(hit.food_id, (None, None, None, None)))),
             value) for hit, value in ranked]


def _portion(serving: str | None, grams: float | None, carbohydrate_per_100g: float | None,
             fiber_per_100g: float | None, amount: str | None = None) -> search.Portion:
    """The portion a hit shows, with its carbohydrate on both bases (total, and available for
    the UK and German units: db.cards.hit_text shows the person's)."""
    if grams is None:
        return search.Portion(serving, None, None, amount)
    # Not for_portion: a table's serving may be under the 1 g a person may type (a 0.7 g
    # sweetener tablet).
    values = nutrition.rounded(nutrition.scale(nutrition.with_available(
        {"carbohydrate_g": carbohydrate_per_100g, "fiber_g": fiber_per_100g}), grams / 100.0))
    return search.Portion(serving, grams, values["carbohydrate_g"], amount,
                          values["available_carbohydrate_g"])


def hypo_hits(text_: str, *, session: Session, region: str | None) -> list[dict[str, Any]]:
    """The answer to a search for a hypo treatment (db.hypo): the real food, with the
    serving its row names, or an entry asking for the pack's figure (``food_id`` None); no
    hits when the query is not one (or its food's table is not seeded)."""
    text_ = _food_words(text_, fts.vocabulary(session, None))
    hits, measure = [], search.query_measure(text_, region)
    for treatment in hypo.treatments_for(text_, region):
        if treatment.entry is None:
            hits.append({**search_hit(search.candidate(0, treatment.pack_name,
                                                       hypo.PACK_CATEGORY, 0.0, (), None)),
                         "food_id": None, "asks": treatment.asks})
            continue
        food = session.scalar(select(Food).options(selectinload(Food.servings)).where(
            Food.fdc_dataset == treatment.dataset, Food.source_code == treatment.entry,
            Food.owner_id.is_(None)))
        if food is None:
            continue
        serving = _shown_serving(food, treatment.serving, measure)
        portion = (_portion(serving.name, serving.grams, food.carbohydrate_g, food.fiber_g)
                   if serving else search.Portion(None, None, None))
        found = search.candidate(food.id, food.name, food.category, food.search_weight, (),
                                 None, portion=portion, dataset=food.fdc_dataset)
        hits.append({**search_hit(found), "asks": treatment.asks})
    return hits


def _shown_serving(food: Food, name: str | None, measure: tuple[str, ...]) -> Serving | None:
    """The serving ``name`` (a hypo treatment's row names one), else the one the query's
    measure names (``with_portions``), else the food's default."""
    if name is None:
        index = portions.measured_serving([(s.name, s.is_default) for s in food.servings], measure)
        if index is not None:
            return food.servings[index]
    return next((s for s in food.servings if s.name == name), food.default_serving)


def _default_portions(session: Session, food_ids: list[int], measure: tuple[str, ...] = (),
                      ) -> dict[int, tuple[str | None, float, float | None, float | None,
                                           str | None]]:
    """(serving name, grams, carbohydrate and fiber per 100 g, amount) of the foods' default servings,
    or of the servings the ``measure`` names (``with_portions``), or of the amount it asks for
    ("2 × 1 slice", "100 ml": db.portions.measured_amount; the serving None for a metric one)."""
    if not food_ids:
        return {}
    statement = (select(Serving.food_id, Serving.name, Serving.grams, Serving.is_default,
                        Food.carbohydrate_g, Food.fiber_g, Food.name.label("food"))
                 .join(Food, Food.id == Serving.food_id).where(Serving.food_id.in_(food_ids)))
    if not measure:
        statement = statement.where(Serving.is_default.is_(True))
    servings: dict[int, list] = {}
    for row in session.execute(statement.order_by(Serving.id)):
        servings.setdefault(row.food_id, []).append(row)
    chosen: dict[int, tuple[str | None, float, float | None, float | None, str | None]] = {}
    for food_id, rows in servings.items():
        index = portions.measured_serving([(r.name, r.is_default) for r in rows], measure)
        amount = portions.measured_amount([(r.name, r.grams, r.is_default) for r in rows],
                                          measure, index, rows[0].food)
        row = rows[index] if index is not None else next((r for r in rows if r.is_default), None)
        if amount is not None:
            grams, label = amount
            chosen[food_id] = (rows[index].name if index is not None and measure[1:] not in
                               METRIC_MEASURES else None, grams, rows[0].carbohydrate_g,
                               rows[0].fiber_g, label)
        elif row is not None:
            chosen[food_id] = (row.name, row.grams, row.carbohydrate_g, row.fiber_g, None)
    # A weight typed for a food with no serving ("100g quorn mince") is that weight still.
    unserved = [food_id for food_id in food_ids if food_id not in servings]
    if measure and unserved:
        for food in session.execute(select(Food.id, Food.name, Food.carbohydrate_g, Food.fiber_g)
                                    .where(Food.id.in_(unserved))):
            amount = portions.measured_amount([], measure, None, food.name)
            if amount is not None:
                chosen[food.id] = (None, amount[0], food.carbohydrate_g, food.fiber_g, amount[1])
    return chosen


# The measures whose amount is grams or millilitres, not a number of one serving.
METRIC_MEASURES = (("g",), ("ml",), ("oz",))


def _spellings(word: str, known: tuple[str, ...], *, last: bool) -> list[str]:
    """``word`` itself when the catalog has it (or, for the last word being typed, a word
    starting with it), with its singular when the catalog has that too; else its singular;
    else its closest catalog words; else the word (no match)."""
    one = search.singular(word)
    if (not known or word in vocabulary.single_word_terms() or word in search.SELLER_WORDS
            or word in search.SIZE_PHRASE_WORDS):
        # a regional word is read in the catalog's words, not corrected; its singular is
        # the same word ("biscuits" of "Biscuit with gravy"); a seller's name ("pret") or a
        # pack's size ("share size") is no misspelt food word either ("pre", "spare")
        return [word, one] if one is not None and _known(one, known) else [word]
    index = bisect_left(known, word)
    if index < len(known) and known[index] != word and word.endswith("oe") and _known(
            word[:-1], known):
        return [word[:-1]]  # "tomatoe", "potatoe": the singular misspelt, not "tomatoes"
    german = _german_singular(word, known) if not _known(word, known) else None
    if german is not None:  # "Bananen" are Banane, not the start of "Bananenkuchen"
        return [german]
    stem = word[:-1] if _GERMAN_N_PLURAL_RE.search(word) else None
    if stem is not None and _known(word, known) and _known(stem, known):
        return [stem, word]  # "Mandeln" a name holds ("... Nüssen und Mandeln") are Mandel too
    if index < len(known) and (known[index] == word or
                               (last and known[index].startswith(word))):
        return [word, one] if one is not None and _known(one, known) else [word]
    ies = word[:-2] + "ies"
    if word.endswith("ys") and word[-3:-2] not in "aeiou" and _known(ies, known):
        return [ies, one] if one is not None and _known(one, known) else [ies]  # "blueberrys"
    spelt = next((w for w in _as_sounded(word) if _known(w, known)), None)
    if spelt is not None and not _known(word, known):
        return [spelt]  # "browny" is a brownie
    if one is not None and _known(one, known):
        return [one]
    return [c for c in search.corrections(word, known) if _a_typo(word, c, known)] or [word]


# German plurals: "-n" after a singular's "-e", "-el" or "-er" ("Bananen", "Kartoffeln"),
# "-er" ("Eier", "Kräuter" folded to "krauter") and "-e" ("Würste" folded to "wurste", "Brote").
_GERMAN_N_PLURAL_RE = re.compile(r"(e|el|er)n$")


def _german_singular(word: str, known: tuple[str, ...]) -> str | None:
    """The catalog word ``word`` is the German plural of ("bananen": "banane", "eier": "ei",
    "wurste": "wurst"), or None; an English word misspelt is none ("chiken" is no "chik")."""
    stems = [word[:-1]] if _GERMAN_N_PLURAL_RE.search(word) else []
    stems += [word[:-2]] if word.endswith("er") and len(word) > 3 else []
    stems += [word[:-1]] if word.endswith("e") and len(word) > 4 else []
    return next((stem for stem in stems if _known(stem, known)), None)


# A word this short that is not one letter off a catalog word is no typo of it: it is
# another word ("obers" is no "goobers", "lumpia" no "lump", "brotli" no "roti").
SHORT_WORD = 6


def _a_typo(word: str, correction: str, known: tuple[str, ...]) -> bool:
    """Whether ``correction`` may be what ``word`` misspells: its first letter kept, unless
    both are compounds of one kind; for a short word, one letter dropped, added, replaced or
    two swapped."""
    if correction[:1] != word[:1] and not _same_kind(word, correction, known):
        # a word is rarely mistyped in its first letter: a brand or dish the catalog lacks is
        # no misspelling of the word that differs there ("peeps" is no "neeps", "chalupa" no
        # "haupia", "refritos" no "fritos")
        return False
    if len(word) > SHORT_WORD:
        return True
    # "gruene" is "grüne" typed without its umlaut: one letter off "grun" as "grune"
    return any(correction in {w[:i] + w[i + 1] + w[i] + w[i + 2:] for i in range(len(w) - 1)}
               or correction in _one_letter_off(w) for w in {word, _german_respelt(word)})


def _same_kind(word: str, correction: str, known: tuple[str, ...]) -> bool:
    """Whether both words are compounds ending in one catalog or vocabulary word of at least
    MIN_KIND letters: two foods of that kind ("Graubrot", "Ruchbrot": breads)."""
    shared = commonprefix([word[::-1], correction[::-1]])[::-1]
    return (len(shared) >= MIN_KIND and len(shared) < min(len(word), len(correction))
            and (_known(shared, known) or shared in vocabulary.single_word_terms()))


def personal_food_ids(user: User, *, session: Session,
                      recent_limit: int = 50) -> tuple[set[int], set[int]]:
    """(ids of the user's most recently logged foods, ids of their favourites)."""
    return (set(recent_food_ids(user, session=session, limit=recent_limit)),
            set(session.scalars(select(FavouriteFood.food_id)
                                .where(FavouriteFood.user_id == user.id))))


def recent_food_ids(user: User, *, session: Session, limit: int = 10) -> list[int]:
    """The user's most recently logged distinct foods, newest first."""
    latest = func.max(MealEntry.eaten_at)
    return list(session.scalars(
        select(MealEntry.food_id).where(MealEntry.user_id == user.id)
        .group_by(MealEntry.food_id).order_by(latest.desc(), MealEntry.food_id).limit(limit)
    ))


def categories(*, session: Session) -> list[str]:
    return list(session.scalars(
        select(Food.category).where(Food.owner_id.is_(None)).distinct().order_by(Food.category)
    ))


def count_foods(*, session: Session) -> int:
    return session.scalar(select(func.count(Food.id))) or 0


def count_users_with_password(*, session: Session) -> int:
    return session.scalar(select(func.count(User.id)).where(User.password_hash.is_not(None))) or 0


def all_users(*, session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.name_key)))


def count_admins(*, session: Session) -> int:
    return session.scalar(select(func.count(User.id)).where(User.is_admin)) or 0


def find_user(name: str, *, session: Session) -> User | None:
    return session.scalar(select(User).where(User.name_key == name_key(name)))


def get_user(name: object, *, session: Session) -> User:
    if not isinstance(name, str) or not name_key(name):
        raise UnknownUser(f"no user {validate.echo(name)}")
    user = find_user(name, session=session)
    if user is None:
        raise UnknownUser(f"no user {validate.echo(name.strip())}")
    return user


def get_entry(user: User, entry_id: object, *, session: Session) -> MealEntry:
    """The user's entry; NotFound both when it does not exist and when it is someone else's."""
    # Past 64 bits no row can have the id, and the database would refuse the number itself.
    if isinstance(entry_id, bool) or not isinstance(entry_id, int) or not 0 < entry_id < 2**63:
        raise NotFound(f"no meal entry {validate.echo(entry_id)}")
    entry = session.scalar(
        select(MealEntry).where(MealEntry.id == entry_id, MealEntry.user_id == user.id)
    )
    if entry is None:
        raise NotFound(f"no meal entry {entry_id} for {user.name!r}")
    return entry


def entry_by_external_id(user: User, external_id: str, *, session: Session) -> MealEntry | None:
    return session.scalar(
        select(MealEntry).where(MealEntry.user_id == user.id, MealEntry.external_id == external_id)
    )


def entries(user: User, *, session: Session, start: datetime | None = None,
            end: datetime | None = None) -> list[MealEntry]:
    """The user's entries with start <= eaten_at < end (either bound optional), in time order.
    Their foods (and a recipe's ingredients) come in the same round trips: entry dicts name
    a recipe's ingredients."""
    statement = select(MealEntry).where(MealEntry.user_id == user.id).options(
        selectinload(MealEntry.food).selectinload(Food.ingredients))
    if start is not None:
        statement = statement.where(MealEntry.eaten_at >= start)
    if end is not None:
        statement = statement.where(MealEntry.eaten_at < end)
    return list(session.scalars(statement.order_by(MealEntry.eaten_at, MealEntry.id)))


def model_changes(limit: int, *, session: Session) -> list[ModelChange]:
    """The latest model changes, newest first."""
    return list(session.scalars(select(ModelChange).order_by(ModelChange.id.desc()).limit(limit)))


def file_owner(marker: str, *, session: Session) -> str | None:
    """The name of the user who may download the file named with ``marker``, if any."""
    return session.scalar(select(User.name).join(OwnedFile, OwnedFile.user_id == User.id)
                          .where(OwnedFile.marker == marker))
