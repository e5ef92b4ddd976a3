"""The database side of food search: the SQLite FTS5 index (created by migration 0003) and the
candidate query. Other databases have no FTS5 table; there a LIKE query over names and
descriptions finds the candidates and db.search ranks them the same way.

The index (table foods_fts, rowid = foods.id) holds each public food's name, its aliases and
model labels, USDA's common names and USDA's description. ``reindex`` rewrites the rows of given
foods; the seed loader and the own-food functions call it after writing foods. Users' own foods
stay out of it: bm25 weighs each word by how many indexed rows hold it, so one user's private
foods would change which public foods another user's search keeps. A user's own foods are
found by the LIKE query, which reads only theirs.
"""

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import (Float, Integer, String, and_, bindparam, case, column, exists, func,
                        intersect, literal, or_, select, text, union, union_all)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from db import datasets, search
from db.keys import name_key
from db.tables import Food, FoodAlias, FoodLabel, SeedVersion, Serving

FTS_TABLE = "foods_fts"
TRIGRAM_INDEX_PREFIX = "trgm_"
# The tables with rows that have no default serving (db.composition: a CoFID or Swiss row no
# portion is cited for, an FNDDS food none of whose measures is one portion).
_PORTIONS_MAY_LACK = (datasets.FNDDS.name, datasets.COFID.name, datasets.SWISS_FCDB.name)
# At most this many candidates are ranked in Python; bm25 picks them when more match.
MAX_CANDIDATES = 400
# bm25 column weights: name, aliases, common names, description.
_BM25 = "bm25(foods_fts, 10.0, 8.0, 4.0, 1.0)"

_vocab_lock = threading.Lock()
_vocab_cache: dict[tuple[str, tuple], tuple[str, ...]] = {}


def include_name(name: str | None, type_: str, _parent_names: object) -> bool:
    """Alembic filter: the FTS5 tables (and SQLite's shadow tables behind them) are made by
    raw SQL in migration 0003, PostgreSQL's trigram indexes by migration 0011, not from the
    models."""
    if name is None:
        return True
    return not ((type_ == "table" and name.startswith(FTS_TABLE))
                or (type_ == "index" and name.startswith(TRIGRAM_INDEX_PREFIX)))


def has_index(session: Session) -> bool:
    bind = session.get_bind()
    if bind.dialect.name != "sqlite":
        return False
    found = session.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :n"), {"n": FTS_TABLE}
    ).first()
    return found is not None


def reindex(session: Session, food_ids: Iterable[int] | None = None) -> None:
    """Rewrite the index rows of ``food_ids`` (all foods when None). No-op without FTS5."""
    if not has_index(session):
        return
    session.flush()
    if food_ids is None:
        session.execute(text(f"DELETE FROM {FTS_TABLE}"))
        where, params = "WHERE f.owner_id IS NULL", {}
    else:
        ids = sorted(set(food_ids))
        if not ids:
            return
        session.execute(text(f"DELETE FROM {FTS_TABLE} WHERE rowid IN :ids")
                        .bindparams(bindparam("ids", expanding=True)), {"ids": ids})
        where, params = "WHERE f.id IN :ids AND f.owner_id IS NULL", {"ids": ids}
    statement = text(
        f"INSERT INTO {FTS_TABLE} (rowid, name, aliases, common_names, description) "
        "SELECT f.id, f.name, "
        "  trim(coalesce((SELECT group_concat(a.alias, '; ') FROM food_aliases a "
        "                 WHERE a.food_id = f.id), '') || '; ' || "
        "       coalesce((SELECT group_concat(replace(l.label, '_', ' '), '; ') "
        "                 FROM food_labels l WHERE l.food_id = f.id), ''), '; '), "
        f"  coalesce(f.common_names, ''), f.fdc_description FROM foods f {where}"
    )
    if food_ids is not None:
        statement = statement.bindparams(bindparam("ids", expanding=True))
    session.execute(statement, params)


def vocabulary(session: Session, owner_id: int | None = None) -> tuple[str, ...]:
    """The words typo correction may choose (sorted): those of the public foods, plus the
    ``owner_id``'s own. Never another user's: a correction towards a word only their private
    food has would tell that the food exists. Words are split as db.search splits them, which
    is how the FTS5 index (unicode61, diacritics removed) tokenises too. The public words are
    cached per database until its catalog changes (``catalog_version``)."""
    url = str(session.get_bind().url)
    public = Food.owner_id.is_(None)
    version = catalog_version(session)
    with _vocab_lock:
        cached = _vocab_cache.get((url, version))
    if cached is None:
        cached = tuple(sorted(_catalog_words(session, public)))
        with _vocab_lock:
            _vocab_cache.clear()
            _vocab_cache[(url, version)] = cached
    if owner_id is None:
        return cached
    own = _catalog_words(session, Food.owner_id == owner_id).difference(cached)
    return tuple(sorted(own.union(cached))) if own else cached


def catalog_version(session: Session) -> tuple:
    """A value that changes whenever the public foods do: they are written only by seeding
    (db.session._load_seed), which records each part it loads in seed_versions, and by
    migrations, which add or delete such a record with the foods they change. A few rows to
    read, where counting the public foods read every food (about 8 ms a search on
    PostgreSQL); read once per transaction (a search asks twice: its words and the hypo
    treatments' words)."""
    transaction = session.get_transaction()
    cached = session.info.get(_VERSION_KEY)
    if transaction is not None and cached is not None and cached[0] is transaction:
        return cached[1]
    version = tuple(session.execute(select(func.count(), func.max(SeedVersion.loaded_at))
                                    .select_from(SeedVersion)).one())
    session.info[_VERSION_KEY] = (session.get_transaction(), version)
    return version


_VERSION_KEY = "foodtag.catalog_version"


def _catalog_words(session: Session, visible) -> set[str]:
    """The words of the ``visible`` foods' names, descriptions, common names, aliases and
    labels, read in one query (a search with a user reads their own foods' words each time)."""
    found: set[str] = set()
    # The Swiss FCDB's English names are translations with typos of their own ("Chicken
    # brest"): a misspelt word is never corrected towards one of their words.
    texts = union_all(
        select(Food.name).where(visible), select(Food.fdc_description).where(visible),
        select(Food.common_names).where(visible, Food.common_names.is_not(None),
                                        Food.fdc_dataset != datasets.SWISS_FCDB.name),
        select(FoodAlias.alias).join(Food, Food.id == FoodAlias.food_id).where(visible),
        select(FoodLabel.label).join(Food, Food.id == FoodLabel.food_id).where(visible))
    for text_ in session.scalars(texts):
        if text_:
            found.update(search.words(text_))
    return found - search.NOTE_WORDS


@dataclass(frozen=True)
class Row:
    food_id: int
    name: str
    category: str
    weight: float
    aliases: tuple[str, ...]
    common_names: str | None
    owner_id: int | None
    sugars_g: float | None = None
    dataset: str | None = None
    values: tuple[float | None, ...] = ()  # kcal, carbohydrate, protein, fat per 100 g
    entry: str | None = None  # the table's entry (source_code)
    has_portion: bool | None = None  # whether it has a default serving


# A query's readings (db.search.Query): each a list of words, each word a list of its
# alternatives (itself, its singular, or the corrections of a typo).
Readings = Sequence[Sequence[Sequence[str]]]


def _terms(choices: Sequence[str]) -> list[str]:
    """The alternatives a prefix (FTS5) or substring (LIKE) match needs: "chip" finds
    everything "chips" finds, so "chips" is left out."""
    return [w for w in choices
            if not any(c != w and len(c) >= 3 and w.startswith(c) for c in choices)]


def _fts_expression(readings: Readings, *, all_words: bool) -> str:
    """FTS5 MATCH text: each query word as a prefix term ("ric"* finds rice) or an OR of its
    alternatives; a reading's words joined by AND (or OR); readings joined by OR."""
    expressions = []
    for alternatives in readings:
        parts = []
        for choices in alternatives:
            terms = [f'"{w}"*' if len(w) >= 3 else f'"{w}"' for w in _terms(choices)]
            parts.append(terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")")
        expressions.append("(" + (" AND " if all_words else " OR ").join(parts) + ")")
    return " OR ".join(expressions)


def candidates(session: Session, readings: Readings, *, owner_id: int | None,
               category: str | None, all_words: bool = True) -> list[Row]:
    """Foods matching any reading of the query (its words, each given as its alternatives),
    visible to ``owner_id`` (public foods and that user's own), optionally of one category."""
    # each reading once ("cereals ready-to-eat" is read as typed and as its main food)
    readings = list({tuple(map(tuple, r)): r for r in readings if r}.values())
    if not readings:
        return []
    # Whether the food has a default serving: one row of the unique index on (food_id) of the
    # default servings, looked up for the tables whose rows may lack one (every SR Legacy,
    # curated, composite and own food has one).
    columns = _columns(category)
    if not has_index(session):
        if session.get_bind().dialect.name == "postgresql":
            found = session.execute(*_postgres_matches(readings, all_words, owner_id=owner_id,
                                                       category=category)).all()
        else:
            visible, statement = _visible(columns, owner_id)
            found = session.execute(_with_portion(_like_matches(
                statement, readings, all_words,
                rarity=None if all_words else _rarity(session, visible, readings)))).all()
        return [_row(r, (*_split(r.aliases), *map(name_key, _split(r.labels)))) for r in found]
    # The index holds the public foods only; each own food gets its place too, so another
    # user's many own foods cannot crowd the public ones out of anyone's results.
    fts = text(f"SELECT {FTS_TABLE}.rowid AS id, aliases FROM {FTS_TABLE} "
               f"JOIN foods ON foods.id = {FTS_TABLE}.rowid WHERE {FTS_TABLE} MATCH :q "
               "AND (:category IS NULL OR foods.category = :category) "
               f"ORDER BY {_BM25} LIMIT :n").columns(
        column("id", Integer), column("aliases", String)).subquery("hits")
    # The index row already holds the aliases and labels: no second query for them.
    public = session.execute(
        columns.where(Food.owner_id.is_(None)).join(fts, fts.c.id == Food.id)
        .add_columns(fts.c.aliases, _has_portion(Food.id, Food.fdc_dataset)),
        {"q": _fts_expression(readings, all_words=all_words), "category": category,
         "n": MAX_CANDIDATES}).all()
    found = [_row(r, tuple(a for a in r.aliases.split("; ") if a)) for r in public]
    if owner_id is not None:
        own = session.execute(_with_portion(_like_matches(
            columns.where(Food.owner_id == owner_id).add_columns(Food.fdc_description),
            readings, all_words))).all()
        # LIKE finds words inside words ("ice" in "rice"); keep the matches the index would make.
        found += [row for row, result in zip(_rows(session, own), own)
                  if _index_would_match(readings, all_words, row, result.fdc_description)]
    return found


def _columns(category):
    """The columns a candidate row brings, of the foods of ``category`` if one is given (a
    value, or a parameter of a cached statement)."""
    columns = select(Food.id, Food.name, Food.category, Food.search_weight, Food.common_names,
                     Food.owner_id, Food.sugars_g, Food.fdc_dataset, Food.kcal,
                     Food.carbohydrate_g, Food.protein_g, Food.fat_g, Food.source_code)
    return columns if category is None else columns.where(Food.category == category)


def _visible(columns, owner_id):
    """(whether a food is visible to ``owner_id``: public or theirs, the candidate statement
    of those foods). Each row brings its aliases and labels (as the index row does): no second
    and third query with a few hundred ids to send."""
    visible = Food.owner_id.is_(None)
    if owner_id is not None:
        visible = or_(visible, Food.owner_id == owner_id)
    return visible, columns.where(visible).add_columns(
        _names_of(FoodAlias.alias, FoodAlias.food_id, "aliases"),
        _names_of(FoodLabel.label, FoodLabel.food_id, "labels"))


@dataclass(frozen=True)
class _Term:
    """A query word's term as the parameters of a cached PostgreSQL statement, named by its
    place among the query's words (``key``)."""
    key: str
    text: str

    def starts(self):  # a word starting with the term, as the SQLite index matches
        return self._parameter("s")

    def whole(self):  # the term as a word of its own
        return self._parameter("w")

    def inside(self):  # the term anywhere, for LIKE ... ESCAPE '/'
        return self._parameter("c")

    def _parameter(self, kind: str):
        return bindparam(self.key + kind, self.values()[self.key + kind])

    def values(self) -> dict[str, str]:
        """The values of ``starts``, ``whole`` and ``inside``."""
        word = re.escape(self.text)
        return {self.key + "s": rf"\m{word}", self.key + "w": rf"\m{word}\M",
                self.key + "c": "%" + re.sub(r"([/%_])", r"/\1", self.text) + "%"}


# PostgreSQL's candidate statements, one per shape of the query (how many readings, words and
# terms, which terms are short, whether of one user or one category), built once with the
# words as parameters: building one per search cost about a sixth of the search (SQLAlchemy's
# objects, not PostgreSQL's work).
_postgres_statements: dict[tuple, object] = {}
_MAX_STATEMENTS = 4096


def _postgres_matches(readings: Readings, all_words: bool, *, owner_id: int | None,
                      category: str | None) -> tuple[object, dict]:
    """(the candidate statement, its parameters) on PostgreSQL: ``_indexed_matches`` of every
    word of a reading, or ``_any_word_matches``."""
    if all_words:
        terms = [[[_Term(f"r{i}w{j}t{k}", t) for k, t in enumerate(_terms(choices))]
                  for j, choices in enumerate(alternatives)]
                 for i, alternatives in enumerate(readings)]
    else:  # one list of every word of the readings
        terms = [[[_Term(f"q{j}t{k}", t) for k, t in enumerate(choices)]
                  for j, choices in enumerate(_query_words(readings))]]
    shape = tuple(tuple(tuple(len(t.text) < TRIGRAM for t in word) for word in reading)
                  for reading in terms)
    key = (all_words, owner_id is None, category is None, shape, MAX_CANDIDATES)
    statement = _postgres_statements.get(key)
    if statement is None:
        if len(_postgres_statements) >= _MAX_STATEMENTS:
            _postgres_statements.clear()
        visible, found = _visible(_columns(None if category is None else bindparam("category")),
                                  None if owner_id is None else bindparam("owner_id"))
        statement = _postgres_statements.setdefault(key, _with_portion(
            _indexed_matches(found, terms) if all_words
            else _any_word_matches(found, terms[0], visible)))
    values = {"owner_id": owner_id, "category": category}
    for reading in terms:
        for word in reading:
            for term in word:
                values.update(term.values())
    return statement, values


def _has_portion(food_id, dataset):
    """Whether the food has a default serving: a row of the unique index on the default
    servings' food_id, looked up for the tables whose rows may lack one (every SR Legacy,
    curated, composite and own food has one)."""
    return case((dataset.in_(_PORTIONS_MAY_LACK),
                 exists().where(Serving.food_id == food_id, Serving.is_default)),
                else_=True).label("has_portion")


def _with_portion(matches):
    """``matches`` (at most MAX_CANDIDATES foods) with ``_has_portion``: looked up for those
    only, not for every food the words match before the limit."""
    found = matches.subquery()
    return select(*found.c, _has_portion(found.c.id, found.c.fdc_dataset))


def _row(result, aliases: tuple[str, ...]) -> Row:
    return Row(result.id, result.name, result.category, result.search_weight, aliases,
               result.common_names, result.owner_id, result.sugars_g, result.fdc_dataset,
               (result.kcal, result.carbohydrate_g, result.protein_g, result.fat_g),
               result.source_code, bool(result.has_portion))


def _index_would_match(readings: Readings, all_words: bool, row: Row,
                       description: str | None) -> bool:
    """Whether ``_fts_expression`` would match the food: in some reading, each query word (or
    one of its alternatives) starts a word of its texts, or is one when shorter than three
    letters."""
    return _texts_match(readings, all_words,
                        (row.name, " ".join(row.aliases), row.common_names, description))


def names_match(readings: Readings, name: str, aliases: Sequence[str],
                common_names: str | None) -> bool:
    """Whether some reading has every word in the food's names (its name, aliases, labels
    and common names), not only in its description: a composite's description lists its
    ingredients, and a plate is not what "sausage bread" asks for."""
    return _texts_match(readings, True, (name, " ".join(aliases), common_names))


def _texts_match(readings: Readings, all_words: bool, texts: Sequence[str | None]) -> bool:
    present = set(search.words(" ".join(filter(None, texts))))

    def found(word: str) -> bool:
        return word in present if len(word) < 3 else any(w.startswith(word) for w in present)

    def matches(alternatives: Sequence[Sequence[str]]) -> bool:
        hits = (any(found(w) for w in choices) for choices in alternatives)
        return all(hits) if all_words else any(hits)

    return any(matches(alternatives) for alternatives in readings)


def _query_words(readings: Readings) -> list[tuple[str, ...]]:
    """Each word of the readings once, as the terms that match it."""
    return list(dict.fromkeys(tuple(_terms(choices)) for alternatives in readings
                              for choices in alternatives))


def _rarity(session: Session, visible, readings: Readings) -> dict[tuple[str, ...], float]:
    """Each query word's weight in an any-word match: the fewer foods hold it, the more, as
    bm25 weighs the index's words ("adobo" of "chicken adobo" is in 3 foods, "chicken" in over
    a thousand; without it the thousand fill the limit and the adobo falls out)."""
    return {terms: 1.0 / (1.0 + session.scalar(
                select(func.count()).select_from(Food).where(visible, _row_contains(terms))))
            for terms in _query_words(readings)}


def _any_word_matches(statement, words: Sequence[Sequence[_Term]], visible):
    """``_like_matches`` of any word on PostgreSQL: in one query, each word's set of food ids
    read once (``_indexed_ids``), where a test of each food per word and a count per word
    (``_rarity``) read every food several times ("orange ju": 48 ms of SQL). Of as good and
    as likely, the shorter names first, as bm25 ranks them in the SQLite index ("jerk
    chicken": "Chicken, meat, average, roasted" among a thousand chickens)."""
    hits = union_all(*(select(found.c.id, literal(index).label("word"))
                       for index, terms in enumerate(words)
                       for found in [_indexed_ids(terms).subquery()])).subquery("hits")
    # ``_rarity`` in SQL: 1 / (1 + the visible foods holding the word), in double precision as
    # in Python, summed in the words' order (floating-point sums depend on it).
    holding = func.count().over(partition_by=hits.c.word)
    seen = (select(hits.c.id, hits.c.word,
                   (literal(1.0, Float) / (literal(1.0, Float) + holding)).label("rarity"))
            .join(Food, Food.id == hits.c.id).where(visible)).subquery("seen")
    per_food = (select(seen.c.id, func.count().label("matched"),
                       func.sum(aggregate_order_by(seen.c.rarity, seen.c.word)).label("rarity"))
                .group_by(seen.c.id).subquery("per_food"))
    return (statement.join(per_food, per_food.c.id == Food.id)
            .order_by(per_food.c.matched.desc(), per_food.c.rarity.desc(),
                      Food.search_weight.desc(), func.length(Food.name), Food.id)
            .limit(MAX_CANDIDATES))


def _indexed_matches(statement, readings: Sequence[Sequence[Sequence[_Term]]]):
    """``statement`` narrowed to the foods whose name, aliases and labels, common names or
    description (the index's four fields) contain every word of some reading, likeliest first,
    on PostgreSQL with its trigram indexes (migration 0011): one set of ids (the union of the
    readings' ``_reading_ids``), which the foods' primary key then finds; a test of each food
    against every word's set read all 18,000 foods per search."""
    # More than the limit may match ("brot" is in every broth, "lo" of "lo mein" in many
    # words): likeliest first, as the index's bm25 ranks them: the foods with the most words of
    # a reading, then those whose name holds every word of one, then a table's generic row
    # ("Chicken, NS as to part and cooking method, ..." of a thousand chickens), then by their
    # prior and the shorter names first ("Brot (Durchschnitt)").
    ids = union_all(*(select(found.c.id, literal(len(reading)).label("words"))
                      for reading in readings
                      for found in [_reading_ids(reading).subquery()])).subquery("ids")
    best = (select(ids.c.id, func.max(ids.c.words).label("words"))
            .group_by(ids.c.id).subquery("best"))
    named = or_(*(and_(*(or_(*(Food.name_key.like(t.inside(), escape="/") for t in word))
                         for word in reading))
                  for reading in readings))
    return (statement.join(best, best.c.id == Food.id)
            .order_by(best.c.words.desc(), case((named, 0), else_=1),
                      case((_says_generic(Food.name), 0), else_=1),
                      Food.search_weight.desc(), func.length(Food.name), Food.id)
            .limit(MAX_CANDIDATES))


def _like_matches(statement, readings: Readings, all_words: bool, *,
                  rarity: dict[tuple[str, ...], float] | None = None):
    """``statement`` narrowed to the foods whose name, aliases and labels, common names or
    description (the index's four fields) contain the words of some reading, likeliest first:
    a test of each food, where SQLite has no index (or for a user's own foods)."""
    found = statement.where(or_(*(
        (and_ if all_words else or_)(*(_row_contains(_terms(choices))
                                       for choices in alternatives))
        for alternatives in readings
    )))
    if all_words:
        return found.order_by(Food.search_weight.desc(), Food.id).limit(MAX_CANDIDATES)
    # Any word will do: the foods with more of the query's words first, as bm25 ranks them in
    # the index ("orange squash" is many oranges and squashes: the UK's squash drinks, which
    # hold "juice drink squash" of its reading, must not fall behind them in the limit).
    words = _query_words(readings)
    matched = sum((case((_row_contains(terms), 1), else_=0) for terms in words), literal(0))
    order = [matched.desc()]
    if rarity:
        order.append(sum((case((_row_contains(terms), rarity[terms]), else_=0.0)
                          for terms in words), literal(0.0)).desc())
    return found.order_by(*order, Food.search_weight.desc(), Food.id).limit(MAX_CANDIDATES)


def _says_generic(name):
    """Whether a name says what it does not specify, as FNDDS's generic rows do ("Milk, NFS",
    "Chicken, NS as to part and cooking method, ...")."""
    return or_(name.contains(", NFS"), name.contains(" NS as to "))


def _row_contains(terms: Sequence[str]):
    """Whether a food's texts contain one of ``terms``, tested food by food: cheap where the
    statement has already narrowed the foods (SQLite's own-food query)."""
    def contains(w: str):
        return _texts_hold(lambda text: text.contains(w, autoescape=True))

    return or_(*(contains(w) for w in terms))


def _holds_word(terms: Sequence[_Term]):
    """Whether a food's texts hold one of ``terms`` as a word of its own, as the SQLite index
    matches a word under three letters ("lo" of "lo mein" is no "lobster"), tested food by food
    (PostgreSQL): cheap where most foods match (the short terms of ``_reading_ids`` and
    ``_indexed_ids``)."""
    return or_(*(_texts_hold(lambda text, t=t: text.op("~")(t.whole())) for t in terms))


def _texts_hold(holds):
    return or_(holds(Food.name_key),
               Food.aliases.any(holds(FoodAlias.alias_key)),
               Food.labels.any(holds(FoodLabel.label)),
               holds(func.lower(Food.fdc_description)),
               holds(func.lower(Food.common_names)))


# A trigram index finds only text with at least one trigram in common with the pattern.
TRIGRAM = 3


def _reading_ids(reading: Sequence[Sequence[_Term]]):
    """The ids of the foods with every word of one reading: the intersection of the sets of
    its words that a trigram index answers (``_indexed_ids``), and only those foods tested for
    its shorter words ("to" of "ready to eat" is in most foods: a scan of every food per
    word); every food tested where it has no longer word ("r" as someone starts typing)."""
    short = [word for word in reading if all(len(t.text) < TRIGRAM for t in word)]
    long = [_indexed_ids(word) for word in reading if any(len(t.text) >= TRIGRAM for t in word)]
    tests = [_holds_word(word) for word in short]
    if not long:
        return select(Food.id).where(*tests)
    ids = intersect(*long)
    return select(Food.id).where(Food.id.in_(ids), *tests) if short else ids


def _indexed_ids(terms: Sequence[_Term]):
    """The ids of the foods whose texts contain one of ``terms``, as one select: the trigram
    indexes of migration 0011 answer the longer terms (each part the expression an index
    holds, or it is not used), a scan the short ones ("r", "ri" as someone starts typing),
    which no index can find."""
    short = [t for t in terms if len(t.text) < TRIGRAM]
    long = [t for t in terms if len(t.text) >= TRIGRAM]

    def any_term(*columns):  # a word starting with the term, as the SQLite index matches
        return or_(*(c.op("~")(t.starts()) for c in columns for t in long))

    parts = [select(Food.id).where(_holds_word(short))] if short else []
    if long:
        parts += [select(Food.id).where(any_term(Food.name_key, func.lower(Food.fdc_description),
                                                 func.lower(Food.common_names))),
                  select(FoodAlias.food_id).where(any_term(FoodAlias.alias_key)),
                  select(FoodLabel.food_id).where(any_term(FoodLabel.label))]
    return union(*parts)


# Joins a food's aliases (or labels) in one text: a control character, which no name holds
# (aliases come from the seed files; db.validate refuses control characters in names).
_NAME_SEPARATOR = "\x1f"


def _names_of(name_column, food_id_column, label: str):
    """The food's names of one kind (its aliases, its labels) joined by _NAME_SEPARATOR, or
    NULL when it has none: a subquery per food row, as column ``label``."""
    return (select(func.aggregate_strings(name_column, _NAME_SEPARATOR))
            .where(food_id_column == Food.id).scalar_subquery().label(label))


def _split(joined: str | None) -> tuple[str, ...]:
    return tuple(joined.split(_NAME_SEPARATOR)) if joined else ()


def _rows(session: Session, rows: Sequence) -> list[Row]:
    aliases = _aliases(session, [r.id for r in rows])
    return [_row(r, aliases.get(r.id, ())) for r in rows]


def _aliases(session: Session, food_ids: list[int]) -> dict[int, tuple[str, ...]]:
    """Aliases and model labels (as words) of the foods, in one query each."""
    out: dict[int, list[str]] = {}
    if not food_ids:
        return {}
    for chunk_start in range(0, len(food_ids), 500):
        chunk = food_ids[chunk_start:chunk_start + 500]
        for food_id, alias in session.execute(
            select(FoodAlias.food_id, FoodAlias.alias).where(FoodAlias.food_id.in_(chunk))
        ):
            out.setdefault(food_id, []).append(alias)
        for food_id, label in session.execute(
            select(FoodLabel.food_id, FoodLabel.label).where(FoodLabel.food_id.in_(chunk))
        ):
            out.setdefault(food_id, []).append(name_key(label))
    return {k: tuple(v) for k, v in out.items()}
