"""The search vocabulary (db/seed/search_vocabulary.csv) and the query rules of db.search that
need no database: readings by region, diet words, plurals, the form and dish rules, German
compounds (db.repo) and hypo treatment terms among other words (db.hypo)."""

import pytest

from db import search, vocabulary
from db.errors import SeedError
from db.seed import SEED_DIR


def test_every_shipped_row_has_a_meaning_a_source_and_a_known_region():
    rows = vocabulary.read(SEED_DIR)
    assert len(rows) >= 100
    assert all(row.source and row.means for row in rows)
    assert {row.region for row in rows} <= {None, *vocabulary.SEARCH_REGIONS}


def test_a_row_without_a_source_or_with_an_unknown_region_is_refused(tmp_path):
    (tmp_path / vocabulary.VOCABULARY_FILE).write_text(
        "term,means,region,source\ncrisps,potato chips,,\n", encoding="utf-8")
    with pytest.raises(SeedError, match=r":2: term, means and source are required"):
        vocabulary.read(tmp_path)
    (tmp_path / vocabulary.VOCABULARY_FILE).write_text(
        "term,means,region,source\nchips,french fries,GB,dictionary\n", encoding="utf-8")
    with pytest.raises(SeedError, match=r":2: region 'GB' is not one of"):
        vocabulary.read(tmp_path)


def test_the_searchers_region_decides_which_reading_comes_first():
    # A UK searcher's "chips" are French fries; a US one's stay chips; unknown: both, the
    # catalog's own (US) reading ahead.
    assert vocabulary.readings(["chips"], "UK") == [
        (["french", "fries"], 0.0), (["chips"], vocabulary.OTHER_READING_HANDICAP)]
    assert vocabulary.readings(["chips"], "US") == [(["chips"], 0.0)]
    assert vocabulary.readings(["chips"], None) == [
        (["chips"], 0.0), (["french", "fries"], vocabulary.OTHER_READING_HANDICAP)]
    # A word with one meaning everywhere is read in the catalog's words for everyone.
    assert vocabulary.readings(["wholemeal", "toast"], "US") == [
        (["wholemeal", "toast"], 0.0), (["whole", "wheat", "toast"], 0.0)]
    # The longest term wins: "beef mince" is ground beef, not "beef ground beef".
    assert vocabulary.readings(["beef", "mince"], None)[1] == (["ground", "beef"], 0.0)


@pytest.mark.parametrize("words, kept, diet", [
    (["diet", "coke"], ["coke"], True),
    (["sugar", "free", "jello"], ["jello"], True),
    (["coke", "zero"], ["coke"], True),
    (["cola", "light"], ["cola"], True),
    (["zero", "sugar", "soda"], ["soda"], True),
    (["diet"], ["diet"], True),
    (["sugar", "snap", "peas"], ["sugar", "snap", "peas"], False),
])
def test_diet_words_are_a_wish_not_a_word_to_find(words, kept, diet):
    assert search.split_diet(words) == (kept, diet)


@pytest.mark.parametrize("plural, one", [
    ("berries", "berry"), ("peaches", "peach"), ("beans", "bean"), ("potatoes", "potato"),
    ("glass", None), ("hummus", None), ("chickpeas", "chickpea"),
])
def test_singulars(plural, one):
    assert search.singular(plural) == one


def _item(name: str, category: str, sugars: float | None = None) -> search.Candidate:
    return search.candidate(1, name, category, 1.0, (), None, sugars_g=sugars)


def test_the_form_eaten_outranks_raw_dry_and_condensed_unless_asked():
    plain = search.make_query([(["chickpeas"], 0.0)])
    cooked = _item("Chickpeas, mature seeds, cooked, boiled, without salt", "Legumes and Legume Products")
    raw = _item("Chickpeas, mature seeds, raw", "Legumes and Legume Products")
    assert search.total(plain, cooked) > search.total(plain, raw)
    asked = search.make_query([(["dry", "chickpeas"], 0.0)])
    assert search.form_adjustment(asked, raw) == 0.0
    # Raw is how fruit is eaten: no penalty there.
    assert search.form_adjustment(search.make_query([(["apple"], 0.0)]),
                                  _item("Apples, raw, with skin", "Fruits and Fruit Juices")) == 0.0
    # Made up from a concentrate or a mix, the row is the food as drunk.
    soup = _item("Soup, chicken noodle, dry, mix, prepared with water", "Soups, Sauces, and Gravies")
    assert search.form_adjustment(search.make_query([(["chicken", "noodle", "soup"], 0.0)]),
                                  soup) == search.PREPARED_BONUS


def test_a_dish_or_stand_in_ranks_below_the_plain_food():
    tuna = search.make_query([(["tuna"], 0.0)])
    assert search.total(tuna, _item("Fish, tuna, light, canned in water, drained solids",
                                    "Finfish and Shellfish Products")) > \
        search.total(tuna, _item("Tuna tartare", "Fish"))
    bacon = search.make_query([(["bacon"], 0.0)])
    assert search.form_adjustment(bacon, _item("Bacon, meatless", "Legumes and Legume Products")) \
        == -search.SUBSTITUTE_PENALTY


def test_a_diet_query_leaves_sugared_foods_out():
    diet = search.make_query([(["cola"], 0.0)], diet=True)
    regular = _item("Beverages, carbonated, cola, regular", "Beverages", sugars=8.97)
    light = _item("Beverages, carbonated, low calorie, cola or pepper-type, with aspartame, "
                  "contains caffeine", "Beverages", sugars=0.0)
    assert [c.food for c, _ in search.rank(diet, [regular, light], 10)] == [light.food]
    # A table that gives no sugar value: its carbohydrate counts (SR 14150, orange soda).
    orange = search.candidate(2, "Beverages, carbonated, orange", "Beverages", 1.0, (), None,
                              values=(48.0, 12.3, 0.0, 0.0))
    assert search.sugared(orange)


@pytest.mark.parametrize("text, words", [
    ("pint of lager", ["lager"]), ("a bar of chocolate", ["chocolate"]),
    ("bangers and mash", ["bangers", "mash"]), ("Currywurst mit Pommes", ["currywurst", "pommes"]),
    ("bar", ["bar"]),
])
def test_a_measure_and_stop_words_are_no_words_to_find(text, words):
    assert search.query_words(text) == words


def test_a_name_without_its_group_head_and_generic_parts_is_the_food():
    def plain(name: str, category: str, phrase: str) -> bool:
        return search.plain_match(phrase, _item(name, category))

    assert plain("Blueberries, raw", "Fruits and Fruit Juices", "blueberry")
    assert plain("Trail mix, NFS", "Snacks", "trail mix")
    assert plain("Candies, milk chocolate", "Sweets", "milk chocolate")
    assert plain("Bread, brown, average", "UK foods (CoFID)", "brown bread")
    assert plain("Gurke, roh", "Vegetables/Fresh vegetables", "gurke")
    assert plain("Brot (Durchschnitt)", "Bread, flakes and breakfast cereals/Bread", "brot")
    assert plain("Prawn crackers, takeaway", "UK foods (CoFID)", "prawn cracker")
    # Asparagus and red cabbage are eaten cooked: the plainly cooked row is the food, not raw.
    assert plain("Asparagus, cooked, boiled, drained", "Vegetables and Vegetable Products",
                 "asparagus")
    assert plain("Spargel, gedämpft (ohne Zugabe von Salz)", "Vegetables/Fresh vegetables",
                 "spargel")
    assert not plain("Rotkohl, roh", "Vegetables/Fresh vegetables", "rotkohl")
    assert not plain("Asparagus, canned, drained solids", "Vegetables and Vegetable Products",
                     "asparagus")
    # Raw is not how chicken is eaten, and CoFID names no food groups to tell.
    assert not plain("Chicken, raw", "Poultry Products", "chicken")
    assert not plain("Quinoa, raw", "UK foods (CoFID)", "quinoa")
    # The milk chocolate the query asks for is no dish of "candies".
    query = search.make_query([(["milk", "chocolate"], 0.0)])
    assert search.form_adjustment(query, _item("Candies, milk chocolate", "Sweets")) == 0.0


def _table_row(name: str, dataset: str, region: str, portion: bool,
               aliases: tuple[str, ...] = ()) -> search.Candidate:
    return search.candidate(1, name, "Fruits and Fruit Juices", 1.0, aliases, None,
                            dataset=dataset, names_region=region, has_portion=portion)


def test_region_then_a_default_portion_decide_between_two_tables_names_of_a_food():
    us = _table_row("Blueberries, raw", "SR Legacy", "US", True)
    uk = _table_row("Blueberries", "CoFID", "UK", False)
    for region, first in (("US", us), ("UK", uk)):
        query = search.make_query([(["blueberries"], 0.0)], region=region)
        assert search.rank(query, [uk, us], 2)[0][0] is first
    # Of one table's two rows of a food, the one with a default serving.
    plain = _table_row("Blueberries, NFS", "FNDDS", "US", False)
    query = search.make_query([(["blueberries"], 0.0)], region="US")
    assert search.rank(query, [plain, us], 2)[0][0] is us
    # A name is the food without its generic parts only in the searcher's own words: a UK
    # biscuit is no US biscuit.
    uk_biscuit = _table_row("Biscuits, plain, homemade", "CoFID", "UK", False)
    us_biscuit = _table_row("Biscuits, plain or buttermilk, frozen, baked", "SR Legacy", "US", True)
    query = search.make_query([(["biscuits"], 0.0)], region="US", typed_words=["biscuits"])
    assert search.rank(query, [uk_biscuit, us_biscuit], 2)[0][0] is us_biscuit
    # An everyday alias names the food more surely than a name without its generic parts.
    chilled = _table_row("Orange juice, chilled, includes from concentrate", "SR Legacy", "US",
                         True, ("orange juice",))
    fresh = _table_row("Orange juice, raw", "SR Legacy", "US", True)
    query = search.make_query([(["orange", "juice"], 0.0)], region="US")
    assert search.rank(query, [fresh, chilled], 2)[0][0] is chilled


def test_german_compounds_split_with_their_linking_and_dropped_letters():
    from db.repo import _compound_kind, _split_compound, _vocabulary_spelling

    assert _split_compound("huhnersuppe", ()) == ["huhn", "suppe"]  # Hühn-er-suppe
    assert _split_compound("birnbrot", ("birne", "brot")) == ["birne", "brot"]  # Birn(e)brot
    assert _split_compound("schweinebraten", ("braten", "schwein", "schweine")) == [
        "schwein", "braten"]  # the word, not the plural "Schweine-" of another name
    assert _split_compound("cheeseburgers", ("burgers", "cheese", "cheeseburger")) == [
        "cheeseburgers"]  # the plural of a catalog word
    # A compound whose first part no table or dictionary holds is still of its last part's kind.
    assert _compound_kind("multivitaminsaft", ()) == ["saft"]
    # Typed without umlauts, or misspelt: the vocabulary's word, unless a catalog word is closer.
    assert _vocabulary_spelling("spaetzle", ()) == "spatzle"
    assert _vocabulary_spelling("bratkartofeln", ()) == "bratkartoffeln"
    assert _vocabulary_spelling("chiken", ("chicken",)) == "chiken"


def test_a_tablet_or_gel_term_among_other_words_is_read_from_the_pack():
    from db import hypo

    assert [t.term for t in hypo.treatments_for("dextro energy tablets", "UK")] == [
        "dextro energy"]
    assert [t.term for t in hypo.treatments_for("glucose tablets 4 g", "US")] == [
        "glucose tablets"]
    # A term with a food is the query's whole phrase only: an orange juice box is no apple juice.
    assert hypo.treatments_for("orange juice box", "US") == []
