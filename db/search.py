"""Food search ranking: pure functions, no database (db.fts fetches the candidates).

How a result list is ordered, best first:
1. The query is the food's name, an alias or a USDA common name ("white rice"), or its name
   without a group head and generic parts ("Candies, milk chocolate", "Trail mix, NFS",
   "Blueberries, raw" where raw is how it is eaten: ``plain_match``).
2. More query words found as whole words in the name ("rice" in "Rice, white, cooked" beats
   "rice" only as the start of "ricotta"), then in aliases and common names.
3. A query word names the food itself: it is in the name's first part ("Rice, white, ..." for
   "white rice", not "Oil, rice bran"), best as its last word ("Almonds, salted", not "Almond
   paste"), or in its second ("Fish, tuna, ..."); and the name has fewer words the query did
   not ask for (FNDDS's "NFS", not further specified, is none: "Muffin, NFS" is the muffin).
4. The food as eaten (``form_adjustment``): a cooked, prepared, ready-to-drink or
   ready-to-serve row above a raw, dry, condensed, powder, concentrate or mix row, unless the
   query names that form (raw is how fruit and salad are eaten, not meat, grains, starchy
   vegetables or those eaten cooked: asparagus, red cabbage, Brussels sprouts; a name that only
   says such a food was plainly cooked, "Spargel, gedämpft", is the food as in 1); the plain
   food above dishes made with it (a sandwich, a soup, a tartare), above flavoured or coated
   kinds and above meat-free stand-ins, unless asked for.
5. Diet words ("diet", "zero", "light", "sugar-free", "unsweetened"): a sugared row never
   comes first; rows that say they are diet, sugar-free or unsweetened come first, the less
   sugar the sooner.
6. The food's prior (``prior``): everyday foods (USDA's dietary survey, the foods the photo
   models name, everyday aliases), and below them baby foods, branded and restaurant items. It
   is small: a curated dish never outranks the plain food on its prior alone.
7. Between tables, the searcher's region (``region_handicap``: US FNDDS and SR Legacy, UK
   CoFID, DE the Swiss FCDB's German names), then a default serving: a row whose card would
   ask for grams ranks below an equivalent row with one.
Then the person's own matches come first, in tiers (``tier``): favourites, then their own
foods and recently logged foods, then everything else, each tier in the order above: what
someone logged before is most likely what they mean again.

Query words: typos are replaced by the closest catalog words (``corrections``), so
"spagetti" finds spaghetti, and a name holding such a guess counts less than one holding a word
as typed (``score``); a measure ("a pint of lager") and stop words are no words to find
(nor in a name compared whole: "Fish and chips"); plurals match singulars ("berries" ~ "berry"); compounds are split
and joined ("cornflakes" ~ "corn flakes", "soy milk" ~ "soymilk", German's "Hühner-suppe",
"Birn(e)brot"), and where no food has every part, a compound's last part names its kind
("Mischbrot" is a bread); regional words are read in the catalog's words too (db.vocabulary),
typed without umlauts ("Spaetzle") or misspelt ("Bratkartofeln") as well (db.repo). Each
reading of the query is scored and the best counts.
"""

import math
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher, get_close_matches
from fractions import Fraction
from functools import lru_cache, partial

from db.keys import name_key
from db.portions import COUNTED

# Words that never decide a match on their own ("rice with beans").
STOPWORDS = frozenset({"a", "an", "and", "the", "of", "with", "in", "on", "or", "w", "n", "wi",
                       "wit", "mit", "und", "de", "aufs", "zum", "zur", "aus", "vom", "im",
                       # how much or whose, never what: "a few skittles", "coke zero with my kebab"
                       "my", "some", "few", "couple", "mein", "meine", "etwas", "paar",
                       # how many: "a dozen wings" (leading_count)
                       "dozen"})
# Below this similarity a replacement is noise ("tea" ~ "pea" is fine, "tea" ~ "steak" not).
TYPO_CUTOFF = 0.75
# Words of a table's notes on a food, no food's: a typo is never read as one ("baked beens" is
# no fish that "may have been previously frozen").
NOTE_WORDS = frozenset({"been", "previously"})
MAX_TYPO_CHOICES = 3
PREFIX_INSIDE = 0.3
# A query word that is the last word of the name's first part: the name is of that food.
HEAD_MATCHED = 1.5
# A query word in the name's first part that is not its last word names what the food is
# made of ("almonds" in "Almond paste"), not the food: less than the 1.5 of its last word.
HEAD_MISSED = 0.75
# Per query word that neither the name nor an alias holds.
MISSING_PENALTY = 2.0
# Per query word that corrects a typo and the name holds (``score``): half a word typed right.
GUESSED_DISCOUNT = 1.0
NOT_FURTHER_SPECIFIED = "nfs"
# Parts of a name that say its entry is the food in general, not a kind of it: FNDDS's "Trail
# mix, NFS", CoFID's "Bread, brown, average", "Flapjacks, retail", "Toad in the hole, homemade",
# "Prawn crackers, takeaway" (where CoFID's sample was bought, as "retail" and "homemade" say);
# and "raw" where raw is how the food is eaten ("Blueberries, raw"). Without them the name is
# the query's food as much as a name that is the query ("Blueberries"): the searcher's region,
# then a default portion, decide between them (``total``).
# A name that is the query once they are left out counts a little less than the query's own
# name or an everyday alias: "Orange juice, chilled" (alias "orange juice") before "Orange
# juice, raw" (the juice of one orange).
PLAIN_NAME = 9.5
# The Swiss FCDB says "average" in German, in a note: "Brot (Durchschnitt)" is bread.
GENERIC_PARTS = frozenset({NOT_FURTHER_SPECIFIED, "average", "retail", "homemade", "takeaway",
                           "durchschnitt"})
# FNDDS's "NS as to" (not specified as to) parts leave a food general as "NFS" does: "Chicken,
# NS as to part and cooking method, NS as to skin eaten" is chicken, not a cut of it.
NOT_SPECIFIED = ("ns", "as", "to")
# First parts that name a food group, not the food: "Candies, milk chocolate" is milk
# chocolate, "Snacks, trail mix, regular" trail mix, FNDDS's "Fish, cod, fried" cod (no Cape
# Cod) and "Candy, fruit snacks" fruit snacks; alone with generic parts ("Fish, NFS") the food.
GROUP_HEADS = frozenset({("candies",), ("snacks",), ("beverages",),
                         ("cereals", "ready", "to", "eat"), ("alcoholic", "beverage"),
                         ("fish",), ("candy",), ("crustaceans",), ("mollusks",)})
# Of those, the ones whose next part names the food (score()'s first part and head): SR
# Legacy's "Cereals ready-to-eat" and "Beverages" are followed by a maker ("GENERAL MILLS"), so
# the group's name stays their head.
NAMING_GROUP_HEADS = frozenset({("fish",), ("candy",), ("crustaceans",), ("mollusks",)})

# prior(): how much more likely a food is what someone means. The curated share equals the
# survey's: a food the models name is an everyday food, not a better match.
_CURATED = 1.0      # the food the photo models name (shipped labels) or an everyday alias
_SURVEY = 1.0       # SR Legacy row used in USDA's What We Eat in America survey
_GROUP_PENALTY = {
    "Baby Foods": -3.0,
    "American Indian/Alaska Native Foods": -2.0,
    "Fast Foods": -1.0,
    "Restaurant Foods": -1.0,
}
_BRANDED = -1.0     # a brand in capitals in the description ("KELLOGG'S", "McDONALD'S")
_BRAND_RE = re.compile(r"\b[A-Z][A-Z'&.]{2,}\b")
# Capitals that are no brand: FNDDS's "not further specified" (253 of its generic foods,
# "Biscuit, NFS"), and the tables' UHT milk, ABV of beer, HOLL (high oleic, low linolenic)
# rapeseed oil and one CoFID "HOMEMADE".
_NOT_BRANDS = frozenset({"NFS", "UHT", "ABV", "HOLL", "HOMEMADE"})
# Databases seeded before the curated share was cut stored up to 3 + 1 for it; ranking counts
# a prior up to this much, so such a database ranks as a fresh one does.
MAX_PRIOR = 1.0

_WORD_RE = re.compile(r"[a-z0-9]+")
# "Beverages, carbonated, low calorie, other than cola or pepper": not a cola; such words
# do not match the query.
# "Pudding, flavors other than chocolate, NFS" is the pudding that is not chocolate: not a
# flavoured kind. Likewise what a name says the food is without ("Chili hot dog, no bun" for
# "hot dog bun", "Chicken or turkey creole, without rice" for "chicken and rice"); not the
# diet words ("no sugar added", "without salt", "no added fat"), which say what it is.
_OTHER_THAN_RE = re.compile(r"\b(flavors )?other than [^,(]*|\bnon chocolate\b|"
                            r"\b(no|without) (?!(added|sugar|salt|fat)\b)[^,(]*", re.IGNORECASE)
# "Kartoffelsalat mit Essig-Öl-Sauce" is a salad, not a sauce: in a German name (the Swiss
# FCDB's) what comes after "mit" is what the food is made with, not its kind.
# Likewise what an English name says a food was cooked or kept in ("Potato crisps, fried in
# sunflower oil", "Baked beans, canned in tomato sauce") or made with ("Chicken or turkey
# salad, made with mayonnaise") is not its kind: no oil, no sauce, no mayonnaise; nor the bread
# a sandwich is on ("Turkey sandwich on wheat" is a sandwich, as "Hot dog sandwich" is).
_MADE_WITH_RE = re.compile(r"\bmit\b.*|\b((fried|cooked|canned|roasted|boiled|stewed|packed|"
                           r"preserved|stored) in|made with|(?<=sandwich )on)\b[^,(]*",
                           re.IGNORECASE)

# --- the food as eaten (form_adjustment) ---
# Forms that are not what a person eats. A query naming one (or its FORM_SYNONYMS) asks for it.
FORM_WORDS = frozenset({"raw", "dry", "uncooked", "unprepared", "condensed", "powder",
                        "concentrate", "mix", "dehydrated", "undiluted"})
FORM_SYNONYMS = {"dried": "dry", "powdered": "powder", "uncooked": "raw", "concentrated":
                 "concentrate", "instant": "powder", "flour": "dry"}
# "raw" is the eaten form of fruit, salad vegetables, nuts and spices; it is not of these
# groups' foods, nor of starchy vegetables.
RAW_NOT_EATEN_GROUPS = frozenset({
    "Legumes and Legume Products", "Cereal Grains and Pasta", "Beef Products", "Pork Products",
    "Poultry Products", "Lamb, Veal, and Game Products", "Finfish and Shellfish Products",
    "Sausages and Luncheon Meats", "Dairy and Egg Products", "Breakfast Cereals",
})
# The Swiss FCDB's groups of the same foods.
RAW_NOT_EATEN_PREFIXES = ("Meat and offal/", "Fish/", "Eggs", "Cereal products, pulses and potatoes/",
                          "Sausages and cold meats/")
# Parts of a name that only say a food eaten cooked was cooked plainly: FNDDS's "Kale, NS as to
# form, cooked", SR Legacy's "Asparagus, cooked, boiled, drained", CoFID's "Cauliflower, boiled
# in unsalted water", the Swiss FCDB's "Spargel, gedämpft (ohne Zugabe von Salz)". Without
# them the name is the food as eaten, as "Blueberries, raw" is a fruit's.
PLAINLY_COOKED = frozenset({
    "cooked", "boiled", "steamed", "drained", "fresh", "with", "without", "salt", "unsalted",
    "in", "water", "no", "added", "fat", "ns", "as", "to", "form",
    "gekocht", "gedampft", "gedunstet", "ohne", "zugabe", "zusatz", "von", "und", "fett", "salz"})
# CoFID's copy names no food groups: whether raw is how its food is eaten is not known.
UNGROUPED = frozenset({"UK foods (CoFID)"})
# The Swiss FCDB's German form words ("Rotkohl, roh", "Reis poliert, trocken"), and the
# tables' other words for a form ("Sweetcorn, dried", "Beans, broad, dried, raw").
GERMAN_FORMS = {"roh": "raw", "trocken": "dry", "vorfritiert": "unprepared"}  # par-fried, sold frozen
NAMED_FORMS = {"dried": "dry", "powdered": "powder"}
# Foods eaten dried, whose "dried" is no form to avoid: prunes, raisins, dates, herbs and spices.
_EATEN_DRIED_RE = re.compile(r"^(prunes?|raisins?|sultanas?|currants?|dates?|plums, dried)\b")
EATEN_DRIED_GROUPS = frozenset({"Spices and Herbs"})
_STARCHY_RE = re.compile(r"^(potato|potatoes|sweet potato|yams?|cassava|taro|plantains?|peas|"
                         r"corn|parsnips?)\b")
# Vegetables eaten cooked, in the English and the Swiss FCDB's German names: "Spargel, roh" and
# "Rotkohl, roh" are what a cook buys, "Spargel, gedämpft" what is eaten.
_EATEN_COOKED_RE = re.compile(
    r"^(asparagus|spargel|cabbage, red|red cabbage|rotkohl|rotkabis|brussels sprouts|rosenkohl|"
    r"kale|grunkohl|leeks?|lauch|artichokes?|artischocke|okra|collards|eggplant|aubergine|"
    r"pumpkin|kurbis|squash, winter|beets?|beetroot|rande|swiss chard|mangold|"
    r"cauliflower|blumenkohl|sauerkraut|beans, (broad|runner|french|green)|"
    r"(broad|runner|french|green|string|snap) beans|sweetcorn|swede|rutabaga|turnips?)\b")
# Grains in CoFID, whose rows name no food group ("Rice, Thai fragrant, raw", "Quinoa, raw").
_UNGROUPED_EATEN_COOKED_RE = re.compile(
    r"^(rice|quinoa|couscous|beef|pork|lamb|veal|chicken|turkey|duck|goose|rabbit|venison|"
    r"bacon|gammon|sausages?|burgers?|cod|haddock|plaice|pollock|hake|coley|whiting|salmon|"
    r"mackerel|trout|scampi|fish fingers|fish cakes|mince)\b")
# "dry roasted" nuts, "dry curd" cottage cheese, "dry-fried" black pudding and juice "from
# concentrate" are eaten as they are.
_NOT_A_FORM_RE = re.compile(r"\bdry[- ](roasted|curd|fried)\b|\bfrom concentrate\b")
# Words that say the row is the food made ready ("frozen concentrate, prepared with water"),
# and the Swiss FCDB's German ones ("Spargel, gedämpft", "Rotkohl, gedünstet", "zubereitet").
_PREPARED_RE = re.compile(
    r"\b(prepared|reconstituted|diluted|cooked|boiled|ready[- ]to[- ](drink|serve|eat|heat)|"
    r"made (with|from|up with)|brewed|baked|roasted|steamed|microwaved|fried|broiled|grilled|"
    r"braised|stewed|simmered|scrambled|poached|drained|"
    r"zubereitet|gekocht|gedampft|gedunstet|gebraten|gebacken|geschmort|frittiert|grilliert)\b")
# Bread is eaten as it is bought: its toasted row is the food made ready only for a query that
# asks for toast ("Pumpernickel" is "Bread, pumpernickel", "rye toast" its toasted row).
_TOASTED_RE = re.compile(r"\btoasted\b")
# A baked snack is a kind of the snack, not the snack made ready ("Potato chips, baked, plain"
# is no better "potato chips" than "Potato chips, NFS").
_SNACK_RE = re.compile(r"(snacks?|potato chips|tortilla chips|crisps|potato crisps|crackers?|"
                       r"pretzels?|kellogg's, pop-tarts)\b")
FORM_PENALTY = 4.0
PREPARED_BONUS = 0.5
# A row that names the form asked ("Lentils, raw" for "dry lentils") before one that names none
# ("Lentils, NFS", cooked): its carbohydrate per 100 g is the weighed food's.
FORM_MATCH_BONUS = 1.0
_DRY_FORMS = frozenset({"dry", "raw", "uncooked"})
# A dish made with the food ("tuna salad", "ham sandwich", "guacamole" is found by alias).
DISH_WORDS = frozenset({
    "sandwich", "sandwiches", "soup", "soups", "salad", "salads", "pie", "pies", "tartare",
    "tartar", "casserole", "stew", "sauce", "dip", "bar", "bars", "burrito", "burritos", "taco",
    "tacos", "pizza", "lasagna", "dinner", "entree", "meal", "spread", "nuggets", "pudding",
    "fritters", "cake", "cakes", "muffins", "cookies", "toast", "chowder", "gravy", "omelet",
    "quiche", "strudel", "turnover", "hash", "patty", "patties", "loaf", "dumplings", "pot",
    "roll", "rolls", "wrap", "bowl", "smoothie", "shake", "shakes",
    "cracker", "crackers", "chips", "fries", "noodles", "mayonnaise", "oil", "flour",
    "juice", "nectar", "jam", "jelly", "syrup", "candies", "dressing", "filling", "topping",
    "stuffed",  # "Peppers, stuffed"; a "stuffed sandwich" is a filled pastry, not a sandwich
})
DISH_PENALTY = 2.0
# A query word that is a kind of a dish asks for the dish: "chicken broth" is the soup
# ("Soup, chicken broth"), not "Chicken, canned, meat only, with broth".
DISH_KINDS = {"broth": "soup", "bouillon": "soup", "consomme": "soup", "bisque": "soup",
              "sub": "sandwich", "hoagie": "sandwich", "panini": "sandwich"}
# Sweetened, coated or flavoured kinds of a plain food ("caramel popcorn").
FLAVOUR_WORDS = frozenset({"caramel", "coated", "frosted", "glazed", "candied", "sugared",
                           "sweetened", "flavored", "flavor", "honey", "chocolate", "cinnamon"})
FLAVOUR_PENALTY = 1.0
# A first word that makes another food of the rest: "Frozen yogurt, vanilla" is no vanilla
# yogurt, a "Frozen coffee drink, with whipped cream" no coffee with cream (where "frozen" ends
# the name, "Peas, frozen, cooked", it is how the food was kept).
OTHER_FOOD_FIRST_WORDS = frozenset({"frozen"})
# A drink served cold is another drink than the hot one named: "tea with sugar" is hot tea, not
# "Tea, iced, ..., pre-sweetened with sugar" ("ice tea", "iced latte", "Eistee" ask for it; an
# iced bun is a bun with icing).
ICED_WORDS = frozenset({"iced", "ice"})
_ICED_DRINK_RE = re.compile(r"\biced\b.*\b(tea|coffee|latte|mocha|cappuccino|drink)\b|"
                            r"\b(tea|coffee|latte|mocha|cappuccino|drink)\b.*\biced\b")
# FNDDS's "from school lunch" rows ("Pizza, with pepperoni, from school lunch, medium crust")
# are a school's recipe: another food for a query that does not say school.
SCHOOL_LUNCH_PENALTY = 1.0
# Likewise a word of a name's first two that makes it another food, unless asked (its place):
# a sweet potato is no potato ("baked potato"), a spaghetti squash no spaghetti.
OTHER_FOOD_PAIRS = {("sweet", "potato"): 0, ("sweet", "potatoes"): 0, ("spaghetti", "squash"): 1,
                    # a mix of fruits is no peach, though its note names one ("Fruit cocktail,
                    # (peach and pineapple and ...)" for "peaches in juice")
                    ("fruit", "cocktail"): 1, ("fruit", "salad"): 1}
# Two foods in one ("Shrimp and grits", "Pork and beef sausage"): their first part joins them.
# A food with its sauce is one dish ("Pasta with tomato-based sauce", FNDDS's pasta as served).
_COMBINATION_RE = re.compile(r"\b(and|n)\b|&|\bwith\b(?!(?: [\w-]+)* sauce$)", re.IGNORECASE)
COMBINATION_PENALTY = 1.0
# Stand-ins for the food ("Bacon, meatless").
SUBSTITUTE_WORDS = frozenset({"meatless", "imitation", "substitute", "vegetarian", "veggie", "vegan",
                              "analog", "nondairy", "mock", "tofu", "quorn"})
SUBSTITUTE_PENALTY = 3.0
_NON_DAIRY_RE = re.compile(r"(?i)\bnon-?dairy\b")
PLANT_MILK_WORDS = frozenset({"non", "nondairy", "dairy", "vegan", "plant", "oat", "oatmilk",
                              "soy", "soya", "soymilk", "almond", "rice", "coconut", "cashew",
                              "hafer", "soja", "mandel", "pflanzlich", "oatly", "alpro"})
# The plant words of PLANT_MILK_WORDS that name no other food ("rice", "coconut" do), and the
# first words of a dairy milk's or yogurt's name.
PLANT_KIND_WORDS = frozenset({"oat", "oatmilk", "soy", "soya", "soymilk", "almond", "cashew",
                              "hafer", "soja", "mandel", "oatly", "alpro", "vegan", "plant",
                              "pflanzlich"})
DAIRY_FIRST_WORDS = frozenset({"milk", "yogurt", "yoghurt", "joghurt", "milch", "vollmilch",
                               "magermilch", "quark", "kefir"})
# Odd cuts and offal of a meat, each a part of its name of its own ("Chicken, feet, boiled",
# "Chicken, skin, casseroled", "Pork, ears", "Turkey, whole, giblets"): below the everyday meat
# unless asked for ("chicken liver"). Not "skin" in "skin not eaten", which says how a breast
# was eaten.
ODD_PARTS = frozenset({"feet", "foot", "back", "tail", "neck", "giblets", "skin", "liver",
                       "heart", "hearts", "gizzard", "gizzards", "kidney", "kidneys", "tongue",
                       "ear", "ears", "tripe", "brain", "brains", "lungs", "spleen",
                       "chitterlings", "pancreas", "sweetbreads", "snout", "leber", "herz",
                       "niere", "nieren", "zunge", "haut"})
_MEAT_RE = re.compile(r"^(chicken|turkey|beef|pork|lamb|veal|mutton|duck|goose|goat|poultry|"
                      r"huhn|poulet|truthahn|rind|schwein|kalb|lamm|ente)\b")
ODD_PART_PENALTY = 1.5
# Words that ask for a drink's alcoholic kind ("spiked eggnog", "boozy punch").
ALCOHOL_WORDS = frozenset({"alcoholic", "alcohol", "spiked", "boozy", "hard", "rum", "vodka",
                           "brandy", "bourbon", "whiskey", "whisky", "gin", "wine", "alkohol",
                           "shot", "shots"})
# The skin said left off ("chicken breast no skin", "skinless chicken thighs", "Hähnchenbrust
# ohne Haut"): a row eaten with it ranks lower, one eaten without it a little higher.
_SKIN_OFF_RE = re.compile(r"\b(?:(?:no|without|minus|ohne)\s+(?:the\s+)?(?:skin|haut)|skinless|"
                          r"skin(?:ned)?\s+(?:off|removed))\b", re.IGNORECASE)
# The skin said kept ("baked potato skin on", "chicken thigh with skin"): the other way round.
_SKIN_ON_RE = re.compile(r"\b(?:skin[- ]on|peel[- ]on|(?:with|mit)\s+(?:the\s+)?(?:skin|peel|haut|"
                         r"schale)|skin and all|in der schale)\b", re.IGNORECASE)
_SKIN_EATEN_RE = re.compile(r"\b(?:skin|peel) (?:/ coating )?eaten|\b(?:flesh|meat) and skin\b|"
                            r"(?<!weighed )\bwith skin\b|\bmit haut\b", re.IGNORECASE)
_SKIN_OFF_ROW_RE = re.compile(r"\b(?:skin|peel) (?:/ coating )?not eaten|\b(?:meat|flesh) only\b|"
                              r"\bohne haut\b|(?<!prepared )\bskinless\b|\bwithout skin\b",
                              re.IGNORECASE)
SKIN_EATEN_PENALTY = 1.0
SKIN_OFF_BONUS = 0.5


def without_skin_said(text: str) -> tuple[str, bool | None]:
    """``text`` without the words that say its skin was left off or kept (``_SKIN_OFF_RE``,
    ``_SKIN_ON_RE``: a wish, not a food: "skinless chicken thighs" is chicken thighs), and
    whether it was said left off (True), kept (False) or neither (None)."""
    kept, off = _without_said(_SKIN_OFF_RE, text)
    if off:
        return kept, True
    kept, on = _without_said(_SKIN_ON_RE, text)
    return kept, False if on else None


def _without_said(pattern: re.Pattern[str], text: str) -> tuple[str, bool]:
    """``text`` without what ``pattern`` finds, and whether it found any."""
    kept = pattern.sub(" ", text)
    return " ".join(kept.split()), kept != text


# The bread said left off ("ballpark frank no bun", "Bratwurst ohne Brot", "burger patty
# without the bun"): a wish, not a food; rows in a bun or on bread rank behind.
_BREAD_OFF_RE = re.compile(
    r"\b(?:no|without|minus|ohne|hold\s+the)\s+(?:the\s+|a\s+)?(?:buns?|bread|rolls?|brot|"
    r"br(?:ö|oe|o)tchen|semmel|weckle?|bap)\b", re.IGNORECASE)
_IN_BREAD_RE = re.compile(
    r"\b(?:on|in) (?:a |an )?(?:\w+ )?(?:buns?|bread|rolls?)\b|\bsandwich\b|"
    r"(?:br(?:ö|o)tchen|semmel|brot)\b|^(?:fast foods, )?(?:cheese|ham)burgers?\b", re.IGNORECASE)
_BREAD_LEFT_OFF_ROW_RE = re.compile(r"\bno bun\b|\bwithout (?:bun|bread)\b|\bohne brot\b",
                                    re.IGNORECASE)
BREAD_PENALTY = 12.0  # more than a name that is the query: "burger no bun" is no "Hamburger"
# The groups of FNDDS and the Swiss FCDB whose foods come in bread, whatever their names say
# ("Hamburger", "Hot dog": 21-24 g of carbohydrate per 100 g, the frankfurter alone 3 g).
_IN_BREAD_GROUPS = frozenset({
    "Burgers", "Frankfurter sandwiches", "Egg/breakfast sandwiches", "Vegetable sandwiches/burgers",
    "Deli and cured meat sandwiches", "Cheese sandwiches", "Meat and BBQ sandwiches",
    "Chicken fillet sandwiches", "Seafood sandwiches", "Peanut butter and jelly sandwiches",
    "Prepared dishes/Sandwiches"})


def without_bread_said(text: str) -> tuple[str, bool]:
    """``text`` without the words that say its bread or bun was left off
    (``_BREAD_OFF_RE``), and whether they were there."""
    return _without_said(_BREAD_OFF_RE, text)


# A food said to come from a tin ("peaches from a tin", "Mais aus der Dose") is the canned food:
# in syrup or brine, not the raw fruit or vegetable. Said of a drink, the can is only what it
# came in ("cola aus der Dose"), a place the search leaves out (PLACES).
_CANNED_SAID_RE = re.compile(
    r"\b(?:(?:straight\s+)?(?:from|out\s+of)\s+(?:a|the)\s+(?:tin|can)"
    r"|aus\s+(?:der|einer)\s+(?:dose|b(?:ü|ue|u)chse))\b", re.IGNORECASE)
_GERMAN_CANNED_RE = re.compile(r"^aus\b", re.IGNORECASE)
_DRINK_NAMED_RE = re.compile(
    r"\b(cola|coke|pepsi|fanta|sprite|soda|pop|lemonade|limo|limonade|drink|getr(ä|ae|a)nk|"
    r"energy|bull|monster|beer|bier|lager|cider|juice|saft|schorle|tea|tee|eistee|coffee|"
    r"kaffee|water|wasser|wine|wein|sekt|spritzer)\b", re.IGNORECASE)


# "Süßkartoffel aus dem Ofen", "salmon from the oven": baked, as the tables say it.
_OVEN_SAID_RE = re.compile(r"\b(?:aus\s+dem|im|vom)\s+(?:back)?ofen\b|\bfrom\s+the\s+oven\b",
                           re.IGNORECASE)


# A tin or can of a food, and the German "Dosen-" compound ("a tin of peaches", "Dose Mais",
# "Dosenravioli"), is the canned food too; not of sweets or biscuits sold in tins.
_CANNED_MEASURE_RE = re.compile(
    r"\b(?:(?:an?|one|1|half|½|1/2)\s+(?:tin|can)s?\s+of\b|(?:tins?|cans?)\s+of\b"
    r"|(?:eine|1|halbe)\s+dose\b|^\s*dose\b|\bdose\s*$)", re.IGNORECASE)
_DOSEN_COMPOUND_RE = re.compile(r"\bdosen(?=[a-zäöüß]{3,})", re.IGNORECASE)
_DOSE_RE = re.compile(r"\bdose\b", re.IGNORECASE)
_CANNED_WORDS = frozenset({"canned", "tinned", "konserve"})
_CANNED_NAMED_RE = re.compile(r"\b(" + "|".join(sorted(_CANNED_WORDS)) + r")\b", re.IGNORECASE)
# Fruit "in juice" or "in syrup" is canned fruit, as the tables name it ("pineapple chunks in
# juice": "Pineapple, canned in juice", not the raw fruit); not a drink mixed with a juice.
_PACKED_IN_RE = re.compile(
    r"\b(?:in|im)\s+(?:(?:its|their)\s+own\s+|natural\s+|fruit\s+|light\s+|heavy\s+"
    r"|eigenen?\s+)?(juice|syrup|saft|sirup)\b", re.IGNORECASE)
_SOLD_IN_TINS_RE = re.compile(
    r"\b(biscuits?|cookies?|sweets|chocolates?|quality street|roses|celebrations|crisps|"
    r"pringles|popcorn|nuts|keks\w*|pl(ä|ae|a)tzchen|bonbons?|pralinen)\b", re.IGNORECASE)


def with_how_made_said(text: str) -> str:
    """``text`` with "from a tin" or "aus der Dose" said of a food as the tables say it,
    "canned" or "Konserve" (the Swiss FCDB's word, read as "canned" in English), as is fruit
    "in juice" or "in syrup", and "aus dem Ofen" as "gebacken", "from the oven" as "baked"."""
    text = _OVEN_SAID_RE.sub(
        lambda said: "baked" if said.group(0).lower().startswith("from") else "gebacken", text)
    packed = _PACKED_IN_RE.search(text)
    if (packed and not _CANNED_NAMED_RE.search(text)
            and not _DRINK_NAMED_RE.search(_PACKED_IN_RE.sub("", text))):
        if packed.group(1).lower() in ("saft", "sirup"):  # the Swiss FCDB names no juice
            return _PACKED_IN_RE.sub(
                lambda said: " konserve gezuckert" if said.group(1).lower() == "sirup"
                else " konserve", text)
        return f"{text} canned"
    if _DRINK_NAMED_RE.search(_DOSEN_COMPOUND_RE.sub("", text)):  # "Dosenbier" too
        return text
    text = _CANNED_SAID_RE.sub(
        lambda said: "konserve" if _GERMAN_CANNED_RE.match(said.group(0)) else "canned", text)
    german = _DOSEN_COMPOUND_RE.search(text) or _DOSE_RE.search(text)
    if ((german or _CANNED_MEASURE_RE.search(text)) and not _SOLD_IN_TINS_RE.search(text)
            and not _CANNED_NAMED_RE.search(text)):
        text = f"{_DOSEN_COMPOUND_RE.sub('', text)} {'konserve' if german else 'canned'}"
    return text


# "tea 2 sugars", "coffee milk one sugar", "Kaffee 2 Stück Zucker": the sugar is taken with the
# drink, as "with 2 sugars" says (``main_food``), not a food of both words (sweetened iced tea).
_SUGARS_TAKEN_RE = re.compile(
    r"(?<!\bwith)(?<!\bmit)(?<!\band)(?<!\bund)\s+"
    r"((\d+|an?|one|two|three|half|ein|eine|zwei|drei)\s+(st(ü|ue)ck\s+)?"
    r"(sugars?|sweeteners?|sugar lumps?|sugar cubes?|zucker|s(ü|ue)(ß|ss)stoff))\s*$",
    re.IGNORECASE)


# A fat content with decimals, as German and UK packs print it ("fettarme Milch 1,5%",
# "Joghurt 3,5 % Fett"): no table names its milk so, and its digits are no words to find
# ("5" is in "Sherry, 18.5 vol%"). The kind says it ("fettarme", "semi-skimmed").
_DECIMAL_PERCENT_RE = re.compile(r"\b\d+[.,]\d+\s*%(\s*fett\b)?", re.IGNORECASE)


def without_decimal_percent(text: str) -> str:
    return _DECIMAL_PERCENT_RE.sub(" ", text)


def with_sugars_taken(text: str) -> str:
    """``text`` with "with" before the sugars taken in a drink that it ends with
    (``_SUGARS_TAKEN_RE``): "mug of tea 2 sugars" is "mug of tea with 2 sugars"."""
    return _SUGARS_TAKEN_RE.sub(r" with \1", text)


# Cooking methods by the heat they cook with; a row cooked by another kind of heat than the query
# names ("Fried green beans" for "steamed green beans") ranks below one cooked as asked or said
# only "cooked". UK "grilled" is US "broiled"; German as the Swiss FCDB writes it.
COOKING_HEATS = {
    **dict.fromkeys(("steamed", "boiled", "stewed", "poached", "simmered", "braised", "gedampft",
                     "gekocht", "gedunstet", "geschmort"), "moist"),
    **dict.fromkeys(("baked", "roasted", "broiled", "grilled", "toasted", "gebacken",
                     "grilliert", "gegrillt", "gerostet", "uberbacken"), "dry"),
    **dict.fromkeys(("fried", "sauteed", "frittiert", "gebraten"), "fat"),
}
OTHER_HEAT_PENALTY = 1.0
COOKING_WORD_SHARE = 0.5  # of a word's weight in score(), for a cooking word (COOKING_HEATS)

# --- diet words (diet_adjustment) ---
# German inflects: "zuckerfreier Sirup", "zuckerfreie Limo"; "Diät-Limonade", "ungesüßt".
DIET_WORDS = frozenset({"diet", "zero", "light", "lite", "sugarfree", "unsweetened",
                        "zuckerfrei", "zuckerfreie", "zuckerfreier", "zuckerfreies",
                        "zuckerfreien", "diat", "ungesusst", "ungesusste", "ungesusster",
                        "ungezuckert", "sugarless", "skinny",
                        "unsweet",  # the US South's "unsweet tea" (sweet tea's opposite)
                        # "diabetic jam", "Diabetiker-Marmelade": sold for diabetes, sugar-free
                        "diabetic", "diabetiker",
                        "slimline"})  # Schweppes' UK name for its diet mixers
# "Light" that names a kind, not a diet: single cream is "light cream", poultry's breast "light
# meat", and "light brown sugar", "light tuna", "light rye" and a "light roast" are no less
# sugared ("light cream cheese" is the reduced-fat cheese).
LIGHT_WORDS = frozenset({"light", "lite"})
LIGHT_KINDS = frozenset({"cream", "meat", "brown", "tuna", "rye", "roast"})
# "Non diet coke", "nicht light": the regular kind, with its sugar (a hypo treatment).
NOT_WORDS = frozenset({"non", "not", "nicht", "kein", "keine"})
# Sweeteners with no sugar's calories ask for a diet food and are the food asked for: "stevia
# drops" is liquid stevia, not a sugared cough drop.
SWEETENER_WORDS = frozenset({"stevia", "sucralose", "aspartame", "saccharin", "splenda",
                             "truvia", "canderel", "sussstoff", "sussstoffe"})
# "Free" as a drink's last word says sugar-free ("7up free", "Irn Bru free"); after what a food
# may be free of ("alcohol free", "gluten free") it says that instead.
FREE = "free"
FREE_OF = frozenset({"alcohol", "alkohol", "gluten", "lactose", "laktose", "fat", "caffeine",
                     "dairy", "milk", "nut", "nuts", "egg", "eggs", "wheat", "meat", "salt",
                     "sodium", "cholesterol", "soy", "grain", "msg", "sugar", "calorie"})
DIET_PHRASES = (("sugar", "free"), ("no", "sugar"), ("zero", "sugar"), ("no", "added", "sugar"),
                ("low", "calorie"), ("calorie", "free"), ("ohne", "zucker"), ("low", "sugar"),
                ("without", "sugar"), ("zero", "calorie"))
_DIET_MARKER_RE = re.compile(
    r"\b(diet|zero|light|lite|low[- ]calorie|reduced[- ]calorie|calorie[- ]free|"
    r"sugar[- ]free|sugarless|no sugar added|no added sugar|without (added )?sugar|"
    r"reduced sugar|unsweetened|not sweetened|"
    r"with (aspartame|sodium saccharin|low[- ]calorie sweeteners?|"
    r"sucralose|stevia|non-nutritive sweetener)|"
    # a tabletop sweetener is the diet food itself ("Sugar substitute, stevia, liquid",
    # "Sweeteners, tabletop, aspartame"); a blend with sugar is not
    r"sugar substitute(?! and sugar)|sweeteners, tabletop, (aspartame|saccharin|sucralose)|"
    # the Swiss FCDB's German: "Colagetränk, mit Süssstoffen", "Tee, ungezuckert"
    r"mit sussstoffen?|ungezuckert|zuckerfrei|ohne zucker|energievermindert)\b")
# A row's claim to have no sugar at all, whose sugar is then its milk's or fruit's own.
_SUGAR_FREE_CLAIM_RE = re.compile(r"\b(sugar[- ]free|sugarless|zuckerfrei)\b")
_TABLETOP_SWEETENER_RE = re.compile(
    r"(sugar substitute(?! and sugar)|sweeteners, tabletop, (aspartame|saccharin|sucralose))")
# Markers that say no sugar was added, or less ("Cranberry juice, unsweetened": 12 g per
# 100 g; "Baked beans, canned in tomato sauce, reduced sugar"), not that the food has little:
# a diet row only for a query asking for that (``NO_ADDED_SUGAR_WORDS``), or where the row
# holds little sugar anyway.
_NO_ADDED_SUGAR_RE = re.compile(
    r"\b(unsweetened|not sweetened|no sugar added|no added sugar|without added sugar|"
    r"reduced sugar|ungezuckert)\b")
NO_ADDED_SUGAR_WORDS = frozenset({"unsweetened", "unsweet", "ungesusst", "ungesusste", "ungesusster",
                                  "ungezuckert"})
NO_ADDED_SUGAR_PHRASES = (("no", "sugar"), ("no", "added", "sugar"), ("ohne", "zucker"),
                          ("without", "sugar"))
# Plain yoghurt, quark or kefir is the one with no sugar added ("Joghurt ohne Zucker" is
# "Joghurt, nature"); not "plain" elsewhere: CoFID's "Chocolate, plain" is dark chocolate.
_PLAIN_DAIRY_RE = re.compile(r"^(yogh?urt|joghurt|quark|skyr|kefir)\b[^(]*\b(plain|natural|nature|natur)\b")
# Sugar per 100 g above which a row without a diet marker is sugared (a diet cola has 0;
# unsweetened tea, coffee and water have none either).
SUGARED_G = 1.5
# The lactose of milk and of a coffee made with it (whole milk: 5.05 g per 100 g, SR28 01077),
# and the plain milk or coffee it counts for: not a flavoured or sweetened one.
MILK_SUGARED_G = 5.1
_MILK_DRINK_RE = re.compile(
    r"^(milk|coffee, (latte|cappuccino|cafe au lait|macchiato|flat white|cortado)"
    r"|coffee, infusion, average, with [^,]*milk|tea, infusion, average, with [^,]*milk)"
    r"(?!.*\b(flavou?red|sweetened|chocolate|strawberry|banana|condensed|evaporated|dry|"
    r"powder|malted|shake)\b)")
DIET_MATCH_BONUS = 3.0
# A row marked diet may still be sugared ("Lemonade, fruit juice drink, light": 5 g per 100 g):
# per gram of sugar per 100 g above SUGARED_G it loses this much of its bonus, so a diet row
# with less sugar comes first, beyond the bonus too ("Light ice cream, NFS", 14 g, behind
# "Ice creams, vanilla, light, no sugar added", 6 g, for "sugar free ice cream"; a diet
# lemonade, 0.6 g, before a "light" one, 5 g, for "crystal light pink lemonade"). Half that
# where the query asks only for no added sugar: an unsweetened applesauce has its fruit's sugar.
DIET_SUGAR_PENALTY = 1.0
NO_ADDED_SUGAR_SUGAR_PENALTY = 0.5
# A row that does not say it is diet, sugar-free or unsweetened ("light beer" is not "beer").
UNMARKED_PENALTY = 12.0
# A query without diet words means the regular kind: "gatorade" is not Gatorade G2 (a third
# of the sugar, a hypo treatment that falls short). "Unsweetened" is the plain kind of juice
# and tea, and "light" names kinds too (light tuna, light cream), so neither counts here.
_REDUCED_RE = re.compile(
    r"\b(diet|zero|low[- ]calorie|reduced[- ]calorie|calorie[- ]free|sugar[- ]free|"
    r"sugarless|with (aspartame|sodium saccharin|low[- ]calorie sweeteners?|sucralose)|"
    r"mit sussstoffen?|energievermindert)\b")  # the Swiss FCDB's German
REDUCED_PENALTY = 3.0


@lru_cache(maxsize=65536)
def _key(text: str) -> str:
    """name_key with the letters no decomposition takes apart folded (``_LIGATURES``), cached:
    the same catalog names are scored again and again. The stored keys (db.keys) keep them: a
    user name or a food saved with one is found as it was saved."""
    return name_key(text).translate(_LIGATURES)


# Letters no decomposition takes apart: "bœuf" is "boeuf", Polish "gołąbki" "golabki".
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ı": "i"})


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD_RE.findall(_key(text)))


def words(text: str) -> list[str]:
    """The lower-case, accent-free words of ``text`` (punctuation splits words). Cached: the
    same catalog names are scored again and again."""
    return list(_words(text))


# "a cup of tea", "a glass of milk", "a pint of lager", "a bar of chocolate": the measure says
# how much, the words after "of" what.
MEASURE_WORDS = frozenset({"cup", "glass", "bowl", "mug", "plate", "slice", "piece", "portion",
                           "serving", "can", "bottle", "handful", "spoonful", "spoonfuls", "pint",
                           "half",
                           "bar", "packet", "bag", "tin", "pot", "tub", "jar", "box", "scoop",
                           "slices", "pieces", "bowls", "scoops", "servings", "pints", "mugs",
                           "cups", "cans", "bottles", "glasses", "strip", "strips", "punnet",
                           "punnets", "round", "rounds", "packets", "sachet", "sachets",
                           "stack", "stacks", "square", "wedge", "sleeve", "sleeves",
                           # Collins: a dram is a small measure of spirits (a whisky's shot)
                           "dram", "drams",
                           "nest", "nests",  # of dried noodles or pasta
                           "ear", "ears",  # of corn: "elote 1 ear", not a rib eye
                           "bit"})  # "a bit of chicken": some of it
# Spoons and units say how much wherever they stand ("tbsp honey", "4 oz juice", "150ml orange
# juice"); German names the measure before the food without "of" ("Tasse Kaffee", "Kugel Eis",
# "Stück Käsekuchen", "ein Glas Milch"). Neither is a word to find while a food word follows.
UNIT_WORDS = frozenset({"tablespoon", "tablespoons", "tbsp", "tbs", "teaspoon", "teaspoons", "tsp",
                        "oz", "ounce", "ounces", "fl", "ml", "cl", "l", "g", "gram", "grams",
                        "kg", "el", "tl", "essloffel", "teeloffel", "loffel"})
# Units that measure only after an amount ("100 g rice", "8 fl oz juice"); a spoon measures
# alone ("tbsp honey").
WEIGHED_UNITS = frozenset({"g", "gram", "grams", "kg", "ml", "cl", "l", "oz", "ounce", "ounces"})
# German's "half" of one, inflected ("ein halbes Hähnchen", "eine halbe Brezel").
HALF_WORDS = frozenset({"halbe", "halbes", "halber", "halben"})
# German and Austrian measures that name a volume: a Maß of beer is a litre; Austria's Achterl
# and Vierterl of wine an eighth and a quarter litre, its Seidl and Krügerl of beer 0.3 and 0.5
# l, a Stamperl of schnapps 2 cl (Duden, Österreichisches Wörterbuch).
NAMED_VOLUMES_ML = {"mass": 1000, "achterl": 125, "vierterl": 250, "seidl": 300, "krugerl": 500,
                    "stamperl": 20}
GERMAN_MEASURE_WORDS = HALF_WORDS | frozenset(NAMED_VOLUMES_ML) | frozenset({
    "stuck", "stucke", "stuckchen", "kugel", "kugeln", "scheibe", "scheiben", "tasse", "tassen",
    "glas", "glaser", "becher", "dose", "dosen", "flasche", "flaschen", "portion", "portionen",
    "teller", "schale", "schussel", "riegel", "packung", "tute",
    "packchen", "tetrapack", "tetrapak", "trinkpackchen",  # "Apfelsaft Tetrapack": the juice
    "handvoll", "klein", "kleine", "kleiner", "kleines", "kleinen", "gross", "grosse", "grosser",
    "grosses", "grossen"})
# A count before the measure or the food ("2 slices", "ein Stück", "eine Tasse").
_NUMBERS = {"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
            "nine": "9", "ten": "10", "drei": "3", "vier": "4", "fünf": "5", "funf": "5",
            "fuenf": "5", "sechs": "6", "sieben": "7", "acht": "8", "neun": "9", "zehn": "10"}
COUNT_WORDS = frozenset({"ein", "eine", "einen", "einem", "einer", "one", "two", "zwei",
                         *_NUMBERS})
_AMOUNT_RE = re.compile(r"^\d+(ml|cl|l|g|kg|oz)?$")


def is_amount(word: str) -> bool:
    """Whether a query word is an amount: a count or a metric amount ("2", "15g", "200ml")."""
    return _AMOUNT_RE.match(word) is not None
# The serving a measure asks for, by the words its name holds ("1 tablespoon", "1 slice, NFS",
# "1 can (12 fl oz)", "1 scoop"): a Stück of cake is a piece or a slice, a Tasse a cup.
MEASURE_SERVINGS = {
    "tablespoon": ("tablespoon", "tbsp"), "tablespoons": ("tablespoon", "tbsp"),
    "tbsp": ("tablespoon", "tbsp"), "tbs": ("tablespoon", "tbsp"), "el": ("tablespoon", "tbsp"),
    "essloffel": ("tablespoon", "tbsp"), "teaspoon": ("teaspoon", "tsp"),
    "teaspoons": ("teaspoon", "tsp"), "tsp": ("teaspoon", "tsp"), "tl": ("teaspoon", "tsp"),
    "teeloffel": ("teaspoon", "tsp"), "slice": ("slice", "piece"), "slices": ("slice", "piece"),
    # a spoonful as a person heaps it: a tablespoon's worth (Collins: the amount a spoon holds)
    "spoonful": ("tablespoon", "tbsp"), "spoonfuls": ("tablespoon", "tbsp"),
    "strip": ("strip", "slice"), "strips": ("strip", "slice"),  # bacon by the strip or slice
    "scheibe": ("slice",), "scheiben": ("slice",), "piece": ("piece",), "pieces": ("piece",),
    # a round of toast or sandwiches is a slice (Collins: round, British = a slice of bread)
    "round": ("slice",), "rounds": ("slice",),
    "stuck": ("piece", "slice"), "stucke": ("piece", "slice"), "can": ("can",), "tin": ("can",),
    "dose": ("can",), "dosen": ("can",), "cans": ("can",), "glass": ("glass",),
    "glasses": ("glass",), "glas": ("glass",), "cup": ("cup",), "cups": ("cup",),
    "mug": ("mug", "cup"), "tasse": ("cup",), "tassen": ("cup",),
    "bowl": ("bowl",), "bowls": ("bowl",), "schale": ("bowl",), "schussel": ("bowl",),
    "bottle": ("bottle",), "bottles": ("bottle",), "flasche": ("bottle",), "flaschen": ("bottle",),
    "scoop": ("scoop",), "scoops": ("scoop",), "kugel": ("scoop",), "kugeln": ("scoop",),
    "bar": ("bar",), "bars": ("bar",), "riegel": ("bar",), "pint": ("pint",),
    "pints": ("pint",), "packet": ("packet",), "packets": ("packet",), "mugs": ("mug", "cup"),
    "sachet": ("packet", "sachet"), "sachets": ("packet", "sachet"),
    "teller": ("plate",), "plate": ("plate",), "plates": ("plate",),
    "square": ("square", "piece"), "wedge": ("wedge", "slice"),
    "sleeve": ("sleeve",), "sleeves": ("sleeve",),  # FNDDS's crackers: "1 sleeve", 115 g
}
# The amount a count before the measure asks for ("two slices": the "2 slices" serving, "half a
# can": "1/2 can", where the food has one): a digit, or one of these words.
COUNT_AMOUNTS = {"one": "1", "ein": "1", "eine": "1", "einen": "1", "einem": "1", "einer": "1",
                 "two": "2", "zwei": "2", **_NUMBERS, "half": "1/2",
                 **dict.fromkeys(HALF_WORDS, "1/2")}
# A metric amount (or ounces) names a serving of that amount ("100ml orange juice": "1 serving
# 100 ml") where the food has one, else that many grams (db.portions.measured_amount).
_METRIC_RE = re.compile(r"^(\d+)(ml|g|oz)$")
_FRACTION_RE = re.compile(r"\b(\d+)/(\d+)\b")
FLUID_OUNCE_ML = 29.5735
IMPERIAL_PINT_ML = 568.261  # a UK pint (Weights and Measures Act 1985), not the US 473 ml


# A measure, container or size beside the food without "of" ("half cup juice", "coleslaw pot",
# "small box of raisins"): searched for, as some foods are named with one ("granola bar",
# "juice box"); where no food has every word, the words without them (``without_measures``),
# and without a count ("5 jelly babies"; "3 musketeers" is a name).
SIZE_WORDS = frozenset({"small", "large", "medium", "mini", "big", "regular",
                        # a coffee chain's cup sizes (12, 16 and 20 fl oz, as FNDDS's small,
                        # medium and large coffee drinks)
                        "tall", "grande", "venti", "gulp",  # 7-Eleven's "Big Gulp" cup
                        "fun"}) | frozenset(  # a sweet's "fun size" bag or bar
    f"{stem}{ending}" for stem in ("klein", "gross", "mittelgross")
    for ending in ("", "e", "er", "es", "en"))
# The serving a size asks for where nothing else says how much ("large banana": "1 large";
# "fun size snickers": "1 bar, fun size"), by the words its name holds (query_measure).
SIZE_SERVINGS = {"small": "small", "medium": "medium", "large": "large", "big": "large",
                 "fun": "fun", "king": "king", "snack": "snack", "mini": "mini",
                 "tall": "small", "grande": "medium", "venti": "large",
                 **{f"{stem}{ending}": size
                    for stem, size in (("klein", "small"), ("mittelgross", "medium"),
                                       ("gross", "large"))
                    for ending in ("", "e", "er", "es", "en")}}
# The cut or piece of a fish or meat, which some names hold ("Chicken, leg", "Cod, fillet"):
# "tuna steak" is tuna, "crab legs" crab, "lobster tail" lobster where no name has both.
CUT_WORDS = frozenset({"fillet", "fillets", "filet", "filets", "steak", "steaks", "tail", "tails",
                       "leg", "legs"})
FRESH_AND_CUT_WORDS = frozenset({
    "fresh", "ripe", "sliced", "chopped", "diced", "cubed", "chunks", "frisch", "frische",
    "frischer", "frisches", "frischen", "reif", "reife", "reifer", "reifes", "reifen",
    "geschnitten", "cut", "up", "peeled", "cubes",
    # served warm: "Apfelstrudel warm mit Vanillesoße"
    "warm", "warme", "warmer", "warmes", "warmen"})
MEASURE_AND_SIZE_WORDS = (MEASURE_WORDS | SIZE_WORDS | UNIT_WORDS | GERMAN_MEASURE_WORDS
                          | COUNT_WORDS | CUT_WORDS
                          | {"carton", "pouch", "pots", "boxes", "shot", "shots", "side", "sides",
                             "snack", "size",
                             # where it was bought, which some names hold ("Biryani, chicken,
                             # takeaway"): "chicken korma takeaway" is the korma
                             "takeaway", "takeout", "restaurant"}
                          # how fresh or how cut, which few names hold: "fresh strawberries"
                          # are strawberries, "sliced cucumber" cucumber
                          | FRESH_AND_CUT_WORDS)
# A pack's size ("snickers full size", "fun size mars bar"): "full" and "king" alone are words
# of foods ("full fat", "king prawns").
SIZE_PHRASES = tuple(tuple(p.split()) for p in (
    "full size", "king size", "fun size", "family size", "party size", "snack size",
    "sharing size", "share size"))


# Their words are no misspelt food words ("share size" is no "spare size", "fun" no "bun").
SIZE_PHRASE_WORDS = frozenset(w for phrase in SIZE_PHRASES for w in phrase)


def without_measures(found: Sequence[str]) -> list[str]:
    """The words without measures, containers, sizes and counts (``MEASURE_AND_SIZE_WORDS``,
    ``SIZE_PHRASES``), or none when nothing else is left."""
    unsized = _without_phrases(found, SIZE_PHRASES) or list(found)
    kept = [w for w in unsized if w not in MEASURE_AND_SIZE_WORDS and not _AMOUNT_RE.match(w)]
    return kept if kept != list(found) else []


# Where a food was bought says nothing of what it is ("taco bell crunchy taco", "greggs sausage
# roll", "costa flat white", "tesco lasagne ready meal"): the fast-food, coffee and bakery chains
# and supermarkets of the US, the UK and Germany, as query words, and "ready meal". Searched
# for, as SR Legacy names some chains' foods ("WENDY'S, Chicken Nuggets"); where no food has
# every word, the words without them (``without_sellers``).
SELLER_PHRASES = tuple(tuple(p.split()) for p in (
    "mcdonalds", "mcdonald s", "mcdonald", "burger king", "wendys", "wendy s", "taco bell",
    "chick fil a", "chick fil", "chickfila", "subway", "starbucks", "dunkin donuts", "dunkin",
    "panera", "kfc", "popeyes", "arbys", "arby s", "sonic", "dairy queen", "five guys",
    "in n out", "pizza hut", "dominos", "domino s", "papa johns", "little caesars",
    "jack in the box", "whataburger", "culvers", "ihop", "dennys", "denny s", "cracker barrel",
    "applebees", "olive garden", "krispy kreme", "tim hortons", "jimmy johns", "jersey mikes",
    "white castle", "waffle house", "greggs", "pret a manger", "pret", "costa", "caffe nero",
    "wetherspoons", "nandos", "wagamama", "itsu", "m s", "marks and spencer", "tesco",
    "sainsburys", "sainsbury s", "asda", "morrisons", "waitrose", "aldi", "lidl", "co op",
    "backwerk", "ditsch", "nordsee", "vapiano", "tchibo", "rewe", "edeka", "kamps",
    "iceland", "ocado", "spar", "farmfoods", "walmart", "costco", "kroger", "safeway",
    "publix", "meijer", "trader joes", "trader joe s", "whole foods", "kaufland", "netto",
    "penny", "norma", "globus",
    # the supermarkets' own brands, as on a receipt ("GV whole milk", "Ja! Toastbrot")
    "great value", "gv", "kirkland", "kirkland signature", "market pantry", "good gather",
    "good and gather", "gut gunstig", "gut und gunstig", "ja", "k classic", "milbona",
    "ready meal", "ready meals"))


# A one-word seller's name, which is no misspelt food word ("pret" is no "pre").
SELLER_WORDS = frozenset(phrase[0] for phrase in SELLER_PHRASES if len(phrase) == 1)

# When a food was eaten and where it came from say nothing of what it is: "tea and toast for
# breakfast", "Weggli zum Zmorge", "blt from tesco", "Leberkäse vom Metzger", "custard from a
# tin" (why, "for a hypo", is db.hypo's). The tables' own "from frozen", "from concentrate"
# and "from dry mix" are none of these.
MEALTIMES = (
    "breakfast", "brekkie", "brunch", "lunch", "lunchtime", "dinner", "supper", "tea", "teatime",
    "dessert", "pudding", "afters", "elevenses", "snack", "work", "school",
    "frühstück", "mittag", "mittagessen", "abendessen", "abendbrot", "brotzeit", "vesper",
    "jause", "zmorge", "zmorgen", "znüni", "zvieri", "zmittag", "znacht", "kaffee", "nachtisch",
    "pause", "arbeit", "schule",
    # around sleep and exercise: "juice box before bed", "banana before a run"
    "bed", "bedtime", "sleep", "run", "walk", "workout", "gym", "training", "exercise",
    "schlafen", "schlafengehen", "sport",
    # a break from work: "orange chicken on my lunch break" (not the start of "breakfast")
    "lunch break", "break", "coffee break", "tea break", "mittagspause", "kaffeepause")
PLACES = (
    "chippy", "chipper", "chip shop", "takeaway", "take away", "takeout", "bakery", "bakers",
    "baker", "shop", "corner shop", "supermarket", "canteen", "cafeteria", "cafe", "café",
    "coffee shop", "pub", "restaurant", "deli", "vending machine", "cinema", "petrol station",
    "gas station", "garage", "drive thru", "drive through", "food truck", "market", "van",
    "ice cream van", "freezer", "fridge", "tin", "can", "jar", "packet", "box", "carton",
    "bäcker", "bäckerei", "metzger", "metzgerei", "fleischer", "imbiss", "imbissbude",
    "kantine", "mensa", "italiener", "chinesen", "griechen", "türken", "inder", "asiaten",
    "dönerladen", "supermarkt", "tankstelle", "kiosk", "markt", "automat", "dose", "glas",
    "packung", "tüte", "kühlschrank", "konditorei", "beck", "bäck", "diner", "grill",
    "meal deal",  # a UK supermarket's lunch of sandwich, snack and drink
    "home", "office", "zuhause", "zu hause", "daheim", "food court",
    # where it is eaten: "trail mix from the break room", "lemon bars from church"
    "break room", "breakroom", "staff room", "staffroom", "nurses station", "church",
    "church basement", "potluck", "farm stand", "farmers market", "club", "halls", "uni",
    "kaffeehaus", "beisl", "wirtshaus", "biergarten", "festzelt", "kirche", "party",
    "wiesn", "oktoberfest", "volksfest", "kirmes", "weihnachtsmarkt", "christkindlmarkt",
    # convenience stores and gas stations: "coke from 7-eleven"
    "7-eleven", "7 eleven", "seven eleven", "wawa", "sheetz", "circle k", "quiktrip",
    "game", "stadium", "ballpark", "fair", "state fair", "tex mex", "tex-mex", "cafe du monde")
# A place named with a word before it: "from the local chippy", "at the mexican place".
_PLACE_NOUNS = ("place", "restaurant", "takeaway", "takeout", "shop", "cafe", "café", "diner",
                "bakery", "pub", "van", "chippy", "imbiss", "bäcker")


def _spelt_any_way(phrase: str) -> str:
    """A regex of ``phrase`` that also matches it typed without umlauts ("Bäcker", "Baecker",
    "Backer") and with any spaces."""
    umlauts = {"ä": "(?:ä|ae|a)", "ö": "(?:ö|oe|o)", "ü": "(?:ü|ue|u)", "é": "(?:é|e)",
               " ": r"\s+"}
    return "".join(umlauts.get(c, re.escape(c)) for c in phrase)


_CONTEXT_RE = re.compile(
    r"\s+(?:(?:for|at|on|with|during|zum|zur|beim|am|als|before|after|vor|nach)\s+"
    r"(?:my\s+|the\s+|a\s+|an\s+|dem\s+|der\s+)?(?:"
    + "|".join(map(_spelt_any_way, MEALTIMES)) + r")"
    + r"|(?:from|vom|von|aus|at|after|off|im|in|auf)\s+"
      r"(?:the\s+|a\s+|an\s+|my\s+|der\s+|dem\s+|die\s+|einem\s+|einer\s+|beim\s+)?"
      r"(?:\w+\s+(?=(?:" + "|".join(map(_spelt_any_way, _PLACE_NOUNS)) + r")\s*$))?"
    + r"(?:" + "|".join(map(_spelt_any_way, PLACES + _PLACE_NOUNS)) + r"))\s*$",
    re.IGNORECASE)
# Where or how it was made said before the food ("chip shop sausage", "roller grill hot dog",
# "Späti Bier", "homemade meatloaf", "slow cooker pot roast") or after it ("pot roast in the
# slow cooker", "chili from scratch"): the tables' "homemade" is their generic kind (GENERIC_PARTS),
# the others no food's words.
MADE_WHERE = (
    "chip shop", "chippy", "roller grill", "gas station", "petrol station", "truck stop",
    "vending machine", "canteen", "cafeteria", "diner", "pub", "späti", "meal deal",
    "imbiss", "kiosk", "tankstellen", "kantinen", "slow cooker", "crockpot", "crock pot",
    "instant pot", "air fryer", "homemade", "home made", "home-made", "hausgemacht",
    "hausgemachte", "hausgemachter", "hausgemachtes", "hausgemachten", "selbstgemacht",
    "selbstgemachte", "selbstgemachter", "selbstgemachtes", "selbstgemachten",
    # served warm or left over, which no name says: "warm apple pie", "leftover pizza"
    "warm", "warme", "warmer", "warmes", "warmen", "lukewarm", "leftover", "leftovers")
# "homemade" leaves the words (the tables' generic kind, GENERIC_PARTS), but of two rows alike
# the homemade one comes first: less than FOREIGN_NAME_PENALTY, the searcher's table still wins.
HOMEMADE_BONUS = 0.3


def says_homemade(text: str) -> bool:
    return _HOMEMADE_RE.search(text) is not None


_DONENESS_RE = re.compile(r"\b(?:medium[- ]rare|medium[- ]well|well[- ]done|rare|blutig|"
                          r"durchgebraten)\b", re.IGNORECASE)
_HOMEMADE_RE = re.compile(r"\b(?:homemade|home[- ]made|hausgemacht\w*|selbstgemacht\w*)\b",
                          re.IGNORECASE)
# What a food is eaten without, said after it ("Nudeln ohne Soße", "coffee without milk"): the
# food; not its sugar ("ohne Zucker", "without added sugar": a diet wish).
_WITHOUT_RE = re.compile(r"\s+(?:ohne|without|no)\s+(?!(?:zucker|sugar|added|zuckerzusatz)\b)"
                         r"\w+(?:\s+\w+)?\s*$", re.IGNORECASE)
# What it is eaten without, sugar included ("black coffee no cream no sugar", "tea without milk
# or sugar", "Kaffee ohne Milch und Zucker"): the food, without sugar (leaves_sugar_out).
_WITHOUT_NOR_SUGAR_RE = re.compile(
    r"\s+(ohne|without|no)\s+(?!(?:zucker|sugar)\b)\w+(?:\s*(?:,|and|or|&|und|oder|nor|no|without|"
    r"ohne))+\s*(sugar|zucker)\s*$", re.IGNORECASE)


def _without_all_but_sugar(text: str) -> str:
    """``text`` with only the sugar left of what it is eaten without (``_WITHOUT_NOR_SUGAR_RE``)."""
    return _WITHOUT_NOR_SUGAR_RE.sub(lambda m: f" {m[1]} {m[2]}", text)


# A diary's verbs around the food ("had a banana", "ate 2 eggs", "ich habe 2 Bananen gegessen",
# "Apfelsaft getrunken"): no food's words. Not "drink" ("drink mix" is a food).
_DIARY_VERB_RE = re.compile(
    r"^\s*(?:(?:i|we|he|she|they|ich|wir)\s+)?(?:just\s+|also\s+|then\s+|only\s+|nur\s+)?"
    r"(?:had|have|ate|eaten|eat|drank|grabbed|snacked\s+on|hatte|habe|hab|hatten|haben|aß|ass|"
    r"esse|trank|trinke)\s+(?=\S)"
    r"|\s+(?:eaten|gegessen|getrunken|genommen|gehabt|gefuttert|consumed)\s*$", re.IGNORECASE)


# When, said after the food: "Bockwurst heute", "cheesecake tonight".
WHEN_SAID = ("today", "tonight", "yesterday", "this morning", "this evening", "last night",
             "heute", "gestern", "heute morgen", "heute mittag", "heute abend", "morgens",
             "mittags", "abends", "morning", "afternoon", "evening", "night", "at night",
             "am morgen", "am vormittag", "am nachmittag", "am abend", "vormittags",
             "nachmittags", "nachts", "in der nacht", "in der früh", "zum feierabend",
             "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
             "weekend", "at the weekend", "on the weekend", "tea time", "sunday dinner",
             "sunday lunch", "montag", "dienstag", "mittwoch", "donnerstag", "freitag",
             "samstag", "sonntag", "sonntags", "am sonntag", "am wochenende",
             # where, said bare after the food: "jello salad potluck"
             "potluck", "church", "at church", "chapel", "chapel tea", "church tea",
             "zwischendurch", "late night", "on shift", "before shift", "after shift",
             "before my shift", "after my shift", "on my shift", "night shift", "on nights",
             "new year", "new years", "new year's", "christmas", "thanksgiving", "easter",
             "diwali", "eid", "weihnachten", "ostern", "silvester", "fat tuesday",
             "shrove tuesday", "pancake day", "mardi gras", "burns night", "bonfire night",
             "fasching", "fastnacht", "karneval", "fat thursday",
             # what it is for: "Kokosmilch zum Kochen", "cream for baking"
             "zum kochen", "zum backen", "for cooking", "for baking",
             # served warm, cold or plain: "Sauerkraut warm", "Vollmilch kalt", "Magerquark pur"
             "warm", "kalt", "lauwarm", "heiss", "heiß", "gekühlt", "pur",
             # as a side: "brocolli side dish", "fries on the side"
             "side", "side dish", "as a side",
             # a diary's when and where: "strawberries earlier", "Apfel vorhin", "Bananen zuhause"
             "earlier", "earlier today", "just now", "a while ago", "this afternoon",
             "vorhin", "eben", "gerade", "gerade eben", "grad", "zuhause", "zu hause", "daheim",
             "at home", "at work", "at my desk", "on the go", "on the way", "unterwegs",
             "auf arbeit", "auf der arbeit", "bei der arbeit", "im büro")
# What a drink came in, said after it: "coke can", "juice carton" (not the start of "canned").
CONTAINERS_SAID_AFTER = ("can", "bottle", "carton", "pouch")
# How it is made at home, said after the food: "Bratkartoffeln wie bei Oma".
LIKE_HOME = ("wie bei oma", "wie bei mama", "wie bei mutti", "nach omas art", "nach omas rezept",
             "like grandma makes", "like mom makes", "like my mum makes")
# A German fat content after the food ("Naturjoghurt 3,5 Prozent", "Milch 1,5 % Fett"): the
# tables name the kind, not the figure.
_FAT_CONTENT_RE = re.compile(r"\s+\d+(?:[.,]\d+)?\s*(?:prozent(?:\s+fett)?|%?\s*fett)\s*$",
                             re.IGNORECASE)
_MADE_WHERE_RE = re.compile(
    r"^(?:" + "|".join(map(_spelt_any_way, MADE_WHERE)) + r")\s+(?=\S)"
    r"|\s+(?:(?:in|from|on|at)\s+(?:the\s+|a\s+|my\s+)?)?(?:"
    + "|".join(map(_spelt_any_way, MADE_WHERE + ("scratch",) + LIKE_HOME + WHEN_SAID
                   + CONTAINERS_SAID_AFTER))
    + r")\s*$",
    re.IGNORECASE)
# A seller stays a word to search for (SR Legacy names some chains' foods): "from" goes.
_FROM_SELLER_RE = re.compile(
    r"\s+(?:from|at|vom|von|bei|beim)\s+(?:the\s+)?(?=(?:"
    + "|".join(_spelt_any_way(" ".join(p)) for p in SELLER_PHRASES)
    + r")(?:\s+(?:small|medium|large|regular))?\s*$)", re.IGNORECASE)  # "frosty from wendys small"


# The course said bare after a dish of two words or more ("banana pudding dessert", "peach
# cobbler dessert"); not after a dessert's own name ("gelatin dessert", "frozen dessert").
_COURSE_RE = re.compile(r"(?<=\w)(?<!gelatin)(?<!jello)(?<!jell-o)(?<!frozen)(?<!dairy)"
                        r"(?<!whipped)(?<!milk)\s+(?:dessert|nachtisch|nachspeise)\s*$",
                        re.IGNORECASE)


def _without_course(text: str) -> str:
    found = _COURSE_RE.search(text)
    if found is None or (len(text[:found.start()].split()) < 2
                         and found[0].strip().lower() == "dessert"):  # "rice dessert"
        return text
    return text[:found.start()]


# Said after the food, each dropped in turn until none is left (``without_context``).
_CLOSING_CONTEXT = (*(partial(found.sub, "") for found in (
    _CONTEXT_RE, _MADE_WHERE_RE, _FAT_CONTENT_RE, _WITHOUT_RE, _DIARY_VERB_RE)),
    _without_all_but_sugar)


def without_context(text: str) -> str:
    """``text`` without closing words of when it was eaten or where it came from
    (``MEALTIMES``, ``PLACES``; a seller's name stays, without its "from"): "fries from
    mcdonalds for lunch" is "fries mcdonalds"; and without where or how it was made
    (``MADE_WHERE``). Unchanged where nothing else is left."""
    while True:
        shorter = text
        for closing in _CLOSING_CONTEXT:
            shorter = closing(shorter)
        shorter = _without_course(shorter)
        if shorter == text or not shorter.strip():
            break
        text = shorter
    # "homemade" anywhere ("slice of homemade meatloaf"): the tables' generic kind; how a steak
    # was done ("ribeye medium rare with baked potato"), which no name says
    for said in (_HOMEMADE_RE, _DONENESS_RE):
        if (unmade := said.sub(" ", text).strip()) and unmade != text.strip():
            text = " ".join(unmade.split())
    return _FROM_SELLER_RE.sub(" ", text)


def without_sellers(found: Sequence[str]) -> list[str]:
    """The words without a seller's name (``SELLER_PHRASES``), or none when the query names
    none or nothing else is left."""
    return _without_phrases(found, SELLER_PHRASES)


# A flavour of crisps or chips no table has a row of ("salt and vinegar crisps", "cheese and onion
# crisps", "sweet chilli doritos"): where no food has every word, the snack without it
# (``without_flavours``).
SNACK_WORDS = frozenset({"crisps", "crisp", "chips", "doritos", "pringles", "tortilla",
                         "nachos", "popcorn", "walkers", "tayto", "mccoys"})
FLAVOUR_PHRASES = tuple(tuple(p.split()) for p in (
    "salt vinegar", "cheese onion", "ready salted", "prawn cocktail", "sour cream onion",
    "smoky bacon", "roast chicken", "sweet chilli", "sweet chili", "chilli heatwave", "chili heatwave",
    "cool original", "cool ranch", "nacho cheese", "bbq", "barbecue", "salted", "paprika",
    "flamin hot", "jalapeno", "ranch", "sea salt", "lightly salted", "sea salt vinegar",
    "salt pepper", "salt chilli", "salt chili"))


def without_flavours(found: Sequence[str]) -> list[str]:
    """The words without a snack's flavour (``FLAVOUR_PHRASES``) where they name a snack
    (``SNACK_WORDS``), or none when they name no flavour or no snack."""
    if SNACK_WORDS.isdisjoint(found):
        return []
    return _without_phrases(found, FLAVOUR_PHRASES)


# A drink brand's flavour ("orange gatorade", "cherry coke", "fruit punch powerade"): the
# brand's drink in any flavour answers, before a row that only holds the words (SR Legacy's
# orange Gatorade is the dry powder, "cherry" finds a NOS energy drink of "loaded cherry").
DRINK_BRANDS = frozenset({
    "gatorade", "powerade", "lucozade", "fanta", "tango", "coke", "pepsi", "sprite", "7up",
    "vimto", "ribena", "snapple", "kool", "koolaid", "capri", "vitaminwater", "oasis",
    "robinsons", "monster", "rockstar", "bodyarmor", "propel", "crush", "faygo", "sunkist",
    "jarritos", "schweppes", "lilt", "fruitshoot", "tropicana",
    "eistee"})  # "Eistee Pfirsich": iced tea, whatever its fruit
DRINK_FLAVOUR_PHRASES = tuple(tuple(p.split()) for p in (
    "orange", "grape", "cherry", "wild cherry", "black cherry", "lemon", "lime", "lemon lime",
    "strawberry", "raspberry", "blue raspberry", "fruit punch", "punch", "tropical", "berry",
    "mixed berry", "watermelon", "mango", "peach", "apple", "pineapple", "blackcurrant",
    "summer fruits", "original", "vanilla", "cool blue", "glacier freeze", "citrus", "pink",
    "passion fruit", "passionfruit", "kiwi", "melon", "tropical punch",
    "pfirsich", "zitrone", "himbeere", "kirsche", "maracuja", "waldfrucht", "granatapfel"))


def without_drink_flavours(found: Sequence[str]) -> list[str]:
    """The words without a drink's flavour (``DRINK_FLAVOUR_PHRASES``) where they name a drink
    brand (``DRINK_BRANDS``), or none when they name no flavour or no brand."""
    if DRINK_BRANDS.isdisjoint(found):
        return []
    return _without_phrases(found, DRINK_FLAVOUR_PHRASES)


# "Full fat" says the regular kind: of milk or cheese its whole-milk row, which holds the words
# ("Creme fraiche, full fat"), but of a drink the sugared one ("full fat coke" is regular cola,
# not a diet one): where no food has every word, the words without it
# (``without_regular``).
REGULAR_PHRASES = (("full", "fat"), ("full", "sugar"))


def without_regular(found: Sequence[str]) -> list[str]:
    """The words without a "full fat" (``REGULAR_PHRASES``), or none when the query has none
    or nothing else is left."""
    return _without_phrases(found, REGULAR_PHRASES)


def without_cooking(found: Sequence[str]) -> list[str]:
    """The words without how the food was cooked (``COOKING_HEATS``), said before or after
    them, or none for other words: "Maiskolben gegrillt" is corn on the cob where no row is
    grilled corn."""
    ends = [i for i in (0, len(found) - 1) if found[i] in COOKING_HEATS]
    cooked = [w for w in found if w in COOKING_HEATS]
    if len(found) < 2 or len(cooked) != 1 or len(ends) != 1:
        return []
    return [w for i, w in enumerate(found) if i != ends[0]]


def _without_phrases(found: Sequence[str], phrases: Sequence[tuple[str, ...]]) -> list[str]:
    """The words without any of ``phrases`` (the longest where two start at one word), or none
    when they hold none or nothing else is left."""
    kept, index = [], 0
    while index < len(found):
        phrase = max((p for p in phrases if tuple(found[index:index + len(p)]) == p),
                     key=len, default=None)
        if phrase is None:
            kept.append(found[index])
        index += len(phrase) if phrase else 1
    return kept if kept and kept != list(found) else []


# Words that join a food to what it comes with ("toast with butter", "Apfelstrudel mit
# Vanillesauce", "beans on toast", "arroz con pollo") or to a second food ("scampi and chips").
# "Rotkohl zum Braten", "Leberwurst aufs Brot": what comes with it, what it is spread on
WITH_WORDS = frozenset({"with", "w", "wi", "wit", "mit", "on", "auf", "aufs", "con", "in", "im",
                        "de", "zum", "zur", "over"})  # "gumbo over rice"
AND_WORDS = frozenset({"and", "und", "n"})
# What is spread on bread ("jam on toast", "Nutella aufs Brot"): the bread it is on is the
# main food, as in "toast with jam", and holds most of its carbohydrate.
SPREAD_WORDS = frozenset({"jam", "jelly", "butter", "margarine", "marge", "honey", "marmalade",
                          "marmite", "vegemite", "nutella", "peanut", "lemon", "curd",
                          "marmelade", "konfiture", "honig", "nussnougatcreme"})
SPREAD_ON_WORDS = frozenset({"on", "auf", "aufs"})
_CREAM_WORDS = frozenset({"cream", "clotted", "sahne"})
# A name holding the main food's word (``main_food``): where no food has every word ("chicken
# adobo"), the dish the phrase ends with comes before the meat it starts with.
HEAD_WORD_BONUS = 1.0
# Shapes a food is cut or sold in name no food of their own: "shortbread fingers" is
# shortbread, not fish fingers; "cheese sticks" cheese.
SHAPE_WORDS = frozenset({"finger", "fingers", "stick", "sticks", "bites", "rounds", "squares",
                         "slices", "wedges", "strips", "cubes", "balls", "pieces"})
# Nor does the state it was bought or eaten in: "fresh tagliatelle cooked" is tagliatelle.
STATE_WORDS = FORM_WORDS | frozenset(FORM_SYNONYMS) | frozenset({
    "cooked", "fresh", "frozen", "canned", "tinned", "drained", "rinsed", "reheated",
    "abgetropft", "gegart", "frisch", "tiefgekuhlt", "tiefgefroren", "konserve", "konserven",
    "prepared", "zubereitet", "zubereitete", "zubereiteter", "oven", "microwave", "microwaved"})


# Sides listed after a main food ("chicken kiev chips and peas", "steak and ale pie mash and
# peas"): two of them joined with "and" at the end of a query name no food of the main's.
SIDE_DISHES = frozenset(tuple(p.split()) for p in (
    "chips", "fries", "french fries", "mash", "mashed potatoes", "mashed potato", "peas",
    "mushy peas", "garden peas", "beans", "baked beans", "green beans", "salad", "side salad",
    "coleslaw", "slaw", "rice", "veg", "vegetables", "veggies", "gravy", "onion rings",
    "potatoes", "roast potatoes", "roasties", "new potatoes", "carrots", "broccoli", "sweetcorn",
    "corn", "yorkshire pudding", "yorkshire pud", "garlic bread", "stuffing", "pommes",
    "pommes frites", "kartoffeln", "salzkartoffeln", "bratkartoffeln", "kartoffelbrei",
    "puree", "pueree", "reis", "salat", "gemuse", "gemuese", "erbsen", "sosse", "sauce",
    "knodel", "knoedel", "klosse", "kloesse", "rotkohl", "sauerkraut"))
# A main food and a side that the tables name as one dish ("Fish and chips", "Bangers and mash").
ONE_DISH_PAIRS = frozenset({("fish", "chips"), ("fish", "fries"), ("bangers", "mash"),
                            ("sausage", "mash"), ("sausages", "mash")})
# A second food's amount or article ("and a cup of tomato soup", "und ein Bier").
MEASURED_WORDS = MEASURE_WORDS | frozenset({"a", "an", "some", "ein", "eine", "einen", "side",
                                             "one", "two", "half"})


def _without_sides(found: list[str]) -> list[str]:
    """``found`` without the two sides listed at its end ("chips and peas") where a main food
    comes before them ("chicken kiev chips and peas": chicken kiev; not "fish chips and peas",
    whose "fish chips" is one dish, ``ONE_DISH_PAIRS``)."""
    for link in range(len(found) - 2, 0, -1):
        if found[link] not in AND_WORDS:
            continue
        after = tuple(found[link + 1:])
        for size in (2, 1):
            before = tuple(found[link - size:link])
            main = [w for w in found[:link - size] if w not in STOPWORDS]
            if (main and before in SIDE_DISHES and after in SIDE_DISHES
                    and (main[-1], *before) not in ONE_DISH_PAIRS):
                return found[:link - size]
        break
    return found


# Dishes named by two fillings joined with "and" before them ("egg and cress sandwich", "peanut
# butter and jelly sandwich", "chicken and mushroom pie"): one food, whatever the fillings'
# words. Two foods of two words each are two foods ("roast beef and yorkshire pudding").
FILLED_DISH_WORDS = frozenset({
    "sandwich", "sandwiches", "toastie", "toasties", "wrap", "wraps", "baguette", "sub", "panini",
    "roll", "rolls", "bagel", "pie", "pies", "pasty", "pasties", "crisps", "pizza", "salad",
    "soup", "omelet", "omelette", "burrito", "quesadilla", "bake", "casserole", "stew", "curry",
    "risotto", "pasta", "quiche", "tart", "flan", "muffin", "muffins", "cake", "cookies",
    "gumbo", "jambalaya", "paella", "chowder", "hotpot", "dumplings", "dumplins", "noodle",
    "noodles", "sarnie", "sarnies", "butty", "butties", "bap", "baps", "naan", "naans", "crumble",
    "scone", "scones", "jacket", "jackets", "pancake", "pancakes",
    "crepe", "crepes", "waffle", "waffles", "sausage", "sausages", "burger", "burgers"})


def main_food(found: Sequence[str]) -> tuple[list[str], str | None]:
    """(the words of the main food, the word that names it) of the query words ``found``,
    stop words included. A phrase names its food last ("chicken adobo" is adobo, "egg and cress
    sandwich" a sandwich), before what it comes with ("toast with butter" is toast, "latte with
    oat milk" a latte, "fish in parsley sauce" fish) or a second food ("scampi and chips" is
    scampi, "jelly and ice cream" jelly, "roast beef and yorkshire pudding" roast beef), not a
    dish of two fillings (``FILLED_DISH_WORDS``: "cheese and onion pasty"); a spread names the
    bread it is on (``SPREAD_WORDS``: "jam on toast" is toast, "cheese on toast" stays cheese)."""
    kept = _without_sides(list(found))
    joined = next((i for i, w in enumerate(kept) if w in WITH_WORDS and 0 < i < len(kept) - 1),
                  None)
    if joined is not None:
        spread = kept[joined] in SPREAD_ON_WORDS and all(
            w in SPREAD_WORDS or w in AND_WORDS or w in STOPWORDS for w in kept[:joined])
        kept = kept[joined + 1:] if spread else kept[:joined]
    joined = next((i for i, w in enumerate(kept) if w in AND_WORDS and 0 < i < len(kept) - 1),
                  None)
    second = [w for w in kept[joined + 1:] if w not in STOPWORDS] if joined is not None else []
    # a measure or article opens a second food ("grilled cheese and a cup of tomato soup"), not
    # a dish's second filling ("chicken and vegetable soup")
    measured = joined is not None and joined + 1 < len(kept) and (
        kept[joined + 1] in MEASURED_WORDS or _AMOUNT_RE.match(kept[joined + 1]) is not None)
    # the dish word the phrase ends with, before its amount ("... soup carton 300g")
    last = next((w for w in reversed(kept) if w not in MEASURE_AND_SIZE_WORDS
                 and not _AMOUNT_RE.match(w)), kept[-1])
    if joined is not None and (len(second) == 1 or last not in FILLED_DISH_WORDS or measured):
        kept = kept[:joined]
        # a list of what is spread on it ("scones jam and cream", "toast butter and jam")
        if second and all(w in SPREAD_WORDS or w in _CREAM_WORDS for w in second):
            while len(kept) > 1 and kept[-1] in SPREAD_WORDS and kept[-2] not in SPREAD_WORDS:
                kept = kept[:-1]
    kept = [w for w in kept if w not in STOPWORDS]
    # a shape, how it was cooked or cut names no food ("Hähnchen gebraten" is chicken, "smoked
    # brisket sliced" brisket)
    named = [w for w in kept if w not in SHAPE_WORDS and w not in COOKING_HEATS
             and w not in GERMAN_FORMS and w not in STATE_WORDS
             and w not in MEASURE_AND_SIZE_WORDS and not _AMOUNT_RE.match(w)
             and not _TIMES_RE.match(w)] or kept
    named = without_milk_choice(named, COFFEE_DRINK_WORDS)
    # a flavour after the product names no food ("ensure vanilla", "almighurt erdbeere")
    while len(named) > 1 and (named[-1] in TRAILING_FLAVOUR_WORDS or named[-2:] == [
            "chocolate", "chip"]):
        named = named[:-2] if named[-1] == "chip" and len(named) > 2 else named[:-1]
    return kept, named[-1] if named else None


# Coffee-shop drinks, and the words of the milk chosen for them (``main_food``).
COFFEE_DRINK_WORDS = frozenset({"coffee", "latte", "lattes", "cappuccino", "cappuccinos",
                                "flat", "mocha", "macchiato", "americano", "cortado", "kaffee",
                                "milchkaffee", "tea", "tee", "chai"})
MILK_CHOICE_WORDS = frozenset({"milk", "milch", "skimmed", "skim", "semi", "whole", "oat", "soy",
                               "soya", "almond", "coconut", "hafermilch", "sojamilch",
                               "mandelmilch", "vollmilch", "fettarm", "fettarme", "nonfat",
                               "lowfat", "dairy", "free", "lactose"})
# Of them, the drinks made with milk, whose rows name no dairy milk (db.repo reads them alone
# too); tea's and filter coffee's do ("Tea, infusion, average, with semi-skimmed milk").
MILK_DRINK_WORDS = frozenset({"latte", "lattes", "cappuccino", "cappuccinos", "flat", "mocha",
                              "macchiato", "cortado", "milchkaffee"})


def without_milk_choice(found: Sequence[str], drinks: frozenset[str]) -> list[str]:
    """``found`` without the milk chosen for one of ``drinks``, said after it: the milk names
    no food ("latte semi skimmed", "cappuccino 2% milk" are the coffee)."""
    kept = list(found)
    if drinks.isdisjoint(kept[:-1]):
        return kept
    while len(kept) > 1 and kept[-1] in MILK_CHOICE_WORDS:
        kept.pop()
    return kept


# Flavours and kinds a product's name is followed by in a log (``main_food``); not chocolate,
# which names the food after "milk", "dark" or "hot".
TRAILING_FLAVOUR_WORDS = frozenset({
    "vanilla", "vanille", "strawberry", "erdbeer", "erdbeere", "schoko", "banana", "banane",
    "cherry", "raspberry", "himbeer", "himbeere", "caramel", "karamell", "original", "classic",
    "natur", "nature", "plain", "unflavored", "peach", "pfirsich", "zimt"})


def joins_foods(text: str) -> bool:
    """Whether the query joins two foods with "and" ("carrots and peas", "Wurst und Brot")."""
    found = words(text)
    return any(w in AND_WORDS for w in found[1:-1])


# Words that join what a food is eaten with to it ("pancakes with syrup", "Kaffee mit Milch");
# not what it comes on or in ("cheese on toast", "fish in sauce"), which may name the dish.
# "wi": Scots and Northern English; "wit": Philadelphia's ("cheesesteak wit onions")
ACCOMPANIED_WORDS = frozenset({"with", "w", "wi", "wit", "mit", "con"})


_MADE_WORDS = frozenset({"made", "prepared", "cooked", "zubereitet", "gemacht"})


def joins_with(text: str) -> bool:
    """Whether the query joins a second food "with" the first ("pancakes with syrup"; not
    "oatmeal made with milk", which says how it was made)."""
    found = words(text)
    return any(w in ACCOMPANIED_WORDS and found[i] not in _MADE_WORDS
               for i, w in enumerate(found[1:-1]))


def query_words(text: str) -> list[str]:
    """The words a query searches for: a measure (``_says_how_much``) and stop words dropped,
    unless nothing else is left."""
    return list(dict.fromkeys(_query_words(text)))


def _measured_count(found: Sequence[str], text: str) -> int:
    """Where a count follows a measure of the food ("stack of 3 pancakes", "plate of 2 eggs";
    not "glass of 1% milk"): the index of the count, else 0 (a count may lead: "2 bananas")."""
    if re.search(r"\d\s*%", text):
        return 0
    lead = 1 if found[:1] in (["a"], ["an"]) else 0
    return lead + 2 if (len(found) > lead + 3 and found[lead] in MEASURE_WORDS
                        and found[lead + 1] == "of" and _is_count(found[lead + 2])) else 0


def _query_words(text: str) -> list[str]:
    found = words(text)
    at = _measured_count(found, text)
    counted = leading_count(found[at:], text) is not None  # "2 bananas": not "..., Stage 2"
    kept = [w for i, w in enumerate(found)
            if w not in STOPWORDS and not _says_how_much(found, i) and not (counted and i == at)
            and not _TIMES_RE.match(w)]
    return kept or found


# A count written as times after or before the food: "jelly babies x5", "beans on toast x2".
_TIMES_RE = re.compile(r"^(x\d+|\d+x)$")


def times_count(found: Sequence[str]) -> str | None:
    """How many a "x5" or "5x" among the query words counts, or None."""
    times = next((w for w in found if _TIMES_RE.match(w)), None)
    if times is None or len(found) < 2 or not 1 <= int(times.strip("x")) <= MAX_COUNT:
        return None
    return times.strip("x")


# What a number before a food says of it, not how many ("1% milk", "4 finger Kit Kat", "6 inch
# sub", "12 pack"), and foods whose name starts with a number ("3 Musketeers", "7 Up").
NOT_COUNTED_NEXT = SHAPE_WORDS | frozenset({"finger", "inch", "inches", "in", "cm", "pack",
                                            "pk", "piece", "percent"})
NUMBER_NAMES = frozenset({"3 musketeers", "7 up", "100 grand", "5 hour", "7 eleven",
                          "three musketeers", "seven up", "five guys", "five alive"})


# A "half" that names a food, not half of one: "half and half", "half fat milk".
NOT_HALF_OF_IT = frozenset({"and", "n", "fat", "cream", "skimmed", "skim", "moon", "moons",
                            "time", "price"})


def leading_count(found: Sequence[str], text: str) -> str | None:
    """How many of the food a query's first word counts ("2 eggs": "2", "zwei Brötchen":
    "2"), or None."""
    if len(found) < 2 or re.match(r"\s*\d+\s*%", text):
        return None
    if (found[:3] == ["half", "a", "dozen"] and len(found) > 3
            or found[:2] == ["half", "dozen"] and len(found) > 2):
        return "6"
    if found[:2] in (["a", "dozen"], ["one", "dozen"]) and len(found) > 2:
        return "12"
    if len(found) > 2 and (found[:2] in (["half", "a"], ["half", "an"])
                           or found[0] in COUNT_WORDS and found[1] in HALF_WORDS):
        return "1/2"  # "half a burrito", "ein halbes Hähnchen" (not "half a cup of": a measure)
    if found[0] == "half" and found[1] not in NOT_HALF_OF_IT and found[1] not in MEASURE_WORDS:
        return "1/2"  # "half bagel with cream cheese"
    count = found[0] if found[0].isdigit() else COUNT_AMOUNTS.get(found[0])
    if (count is None or "/" in count or not 1 <= int(count) <= MAX_COUNT
            or found[1] in NOT_COUNTED_NEXT or f"{found[0]} {found[1]}" in NUMBER_NAMES
            or found[1] in UNIT_WORDS or found[1] in MEASURE_WORDS
            or (found[1] in GERMAN_MEASURE_WORDS and found[1] not in SIZE_SERVINGS)):
        return None
    return count


def query_wishes(text: str, *, unique: bool = True) -> tuple[list[str], bool]:
    """The query words without its diet words, each once (or as typed), and whether it had any
    (``split_diet``); a word the diet words repeat counts ("fat free sugar free yogurt")."""
    kept, diet = split_diet(_query_words(text))
    return list(dict.fromkeys(kept)) if unique else kept, diet


def query_measure(text: str, region: str | None = None) -> tuple[str, ...]:
    """The words of the serving the query's measure asks for ("tablespoon of sugar": the
    "1 tablespoon" serving; ``MEASURE_SERVINGS``), led by the amount a count or metric amount
    before it asks for where it is not one ("two slices of toast": ("2", "slice"), "half a can
    of coke": ("1/2", "can"), "100ml orange juice": ("100", "ml")), or none. A pint is the
    region's: 568 ml in the UK, a US pint's serving elsewhere."""
    found = words(text)
    if at := _measured_count(found, text):  # "stack of 3 pancakes": three of them
        count = leading_count(found[at:], text)
        if count not in (None, "1"):
            return count, COUNTED
    for i, word in enumerate(found):
        if word.isdigit() and found[i + 1:i + 3] == ["fl", "oz"] and _says_how_much(found, i):
            return str(round(int(word) * FLUID_OUNCE_ML)), "ml"  # "8 fl oz juice"
        if word in ("pint", "pints") and _NAMING.get(region or "") == "UK" and _says_how_much(
                found, i):
            amount = _amount_before(found[:i]) or "1"
            return str(round(float(Fraction(amount)) * IMPERIAL_PINT_ML)), "ml"
        if word in NAMED_VOLUMES_ML and _says_how_much(found, i):  # "eine Maß Bier": a litre
            return str(round(float(Fraction(_amount_before(found[:i]) or "1"))
                             * NAMED_VOLUMES_ML[word])), "ml"
        metric = _METRIC_RE.match(word) or (
            word.isdigit() and i + 1 < len(found) and _METRIC_RE.match(word + found[i + 1]))
        if metric and _says_how_much(found, i):
            return metric[1], metric[2]
        if word in MEASURE_SERVINGS and _says_how_much(found, i):
            # "mini box of raisins": the measure's serving of that size, where the food has one
            size = tuple(SIZE_SERVINGS[w] for w in found[i - 1:i] if i and w in SIZE_SERVINGS)
            amount = _amount_before([w for w in found[:i] if w not in SIZE_SERVINGS])
            fraction = _FRACTION_RE.search(text)
            if fraction and amount == fraction[2] and found[i - 2:i] == list(fraction.groups()):
                amount = f"{fraction[1]}/{fraction[2]}"  # "1/2 cup rice": its words are 1, 2
            return (*MEASURE_SERVINGS[word], *size) if amount in (None, "1") else (
                amount, *MEASURE_SERVINGS[word], *size)
    # a count before the food alone ("3 chicken tenders", "zwei Brötchen") or as times after it
    # ("jelly babies x5"): that many of its default serving (db.portions.measured_amount),
    # where that is one of it
    count = leading_count(found, text) or times_count(found)
    if count not in (None, "1"):
        # "3 kleine Kartoffeln", "2 large eggs": that many of the size's serving, where the
        # food has one (db.portions.measured_amount)
        return (count, COUNTED, *[SIZE_SERVINGS[w] for w in found[1:2] if w in SIZE_SERVINGS])
    sized = [SIZE_SERVINGS[w] for i, w in enumerate(found) if w in SIZE_SERVINGS
             and (w not in SIZE_PHRASE_WORDS or found[i + 1:i + 2] == ["size"])]
    return (sized[0],) if sized else ()


# The most a query counts (query_measure).
MAX_COUNT = 20


def _amount_before(before: Sequence[str]) -> str | None:
    """The amount the words before a measure ask for ("2", "two", "half a"), or None."""
    kept = [w for w in before if w not in ("a", "an")]
    if not kept:
        return None
    return kept[-1] if kept[-1].isdigit() else COUNT_AMOUNTS.get(kept[-1])


def _is_fraction(numerator: str, denominator: str) -> bool:
    """Whether two words are a fraction's ("1/2", "3/4"), not a name's digits ("Heineken 0.0")."""
    return (numerator.isdigit() and denominator in ("2", "3", "4", "8")
            and 0 < int(numerator) < int(denominator))


def _says_how_much(found: Sequence[str], index: int) -> bool:
    """Whether ``found[index]`` is a measure, unit or count before the food: "cup" in "cup of
    tea", "tbsp" in "tbsp honey", "Tasse" in "Tasse Kaffee", "4" and "oz" in "4 oz juice",
    "2" in "2 slices of toast", "150ml" in "150ml orange juice", "eine" in "eine Brezel",
    "half" in "half a can of coke".
    The last word is the food's ("g" in "gatorade g"), unless a number before it makes it a
    unit ("almonds 1 oz") or it is a piece of the food (``TRAILING_MEASURES``: "apple slices")."""
    word, after = found[index], found[index + 1:]
    if not after:  # a unit after a number after the food: "almonds 1 oz", "rice 150 g"
        return (index > 1 and word in UNIT_WORDS | MEASURE_WORDS and _is_count(found[index - 1])
                or index > 0 and word in TRAILING_MEASURES
                or index > 1 and _is_fraction(found[index - 1], word)  # "custard 1/2"
                or index > 0 and _AMOUNT_RE.match(word) is not None and not word.isdigit())
    if word in MEASURE_WORDS and (after[0] == "of" or index and _is_count(found[index - 1])):
        return True
    if ((word in MEASURE_WORDS or word in CONTAINERS_SAID_AFTER) and index and len(after) == 1
            and not after[0].isdigit() and _AMOUNT_RE.match(after[0])):
        return True  # "soup carton 300g": the carton's amount
    if word in SIZE_WORDS and after[0] in MEASURE_WORDS and _says_how_much(found, index + 1):
        return True  # "mini box of raisins", "big bowl of cereal": the measure's size
    if word == "half" and after[0] in ("a", "an") and len(after) > 1 and after[1] in MEASURE_WORDS:
        return True  # "half a can of coke"
    if word == "half" and after[0] in MEASURE_WORDS | UNIT_WORDS:
        return True  # "half cup orange juice", "half pint of milk"
    if word in WEIGHED_UNITS and not (index and (_is_count(found[index - 1])
                                                 or found[index - 1] == "fl")):
        return False  # no amount before it: a word of the food ("gram crackers")
    if word in UNIT_WORDS or word in GERMAN_MEASURE_WORDS:
        return any(w not in UNIT_WORDS and w not in STOPWORDS and not _is_count(w) for w in after)
    if word in COUNT_WORDS or _AMOUNT_RE.match(word) and not word.isdigit():
        return True
    if _is_fraction(word, after[0]):  # "1/2 cup", "custard 1/2": words 1, 2
        return len(after) == 1 or _says_how_much(found, index + 1)
    return word.isdigit() and (after[0] in UNIT_WORDS or after[0] in MEASURE_WORDS
                               or after[0] in GERMAN_MEASURE_WORDS or after[0] in SHAPE_WORDS
                               or after[0] in COUNTED_AS)


# Pieces of the food said after it, no food's last word: "apple slices", "brownie square" (not
# "potato wedges", "oat squares": foods; nor "pepperoni slice", a slice of pizza in the US).
TRAILING_MEASURES = frozenset({"slices", "piece", "pieces", "square", "wedge", "portion",
                               "serving", "helping"})


# How a count after the food is said: "nuggets 8 count", "wings 10 pc".
COUNTED_AS = frozenset({"count", "ct", "pc", "pcs"})


def _is_count(word: str) -> bool:
    return word in COUNT_WORDS or word.isdigit() or word == "half"  # "half cup orange juice"


def split_diet(found: Sequence[str]) -> tuple[list[str], bool]:
    """(the query words without its diet words, whether it had any): "diet coke" looks for
    cola and asks for a diet one. Only diet words: they are what is searched for."""
    kept, index, diet = [], 0, False
    while index < len(found):
        phrase = next((p for p in DIET_PHRASES if tuple(found[index:index + len(p)]) == p), None)
        if found[index] in NOT_WORDS and found[index + 1:index + 2] and (
                found[index + 1] in DIET_WORDS):
            index += 2  # "non diet coke", "not diet": the regular kind
        elif phrase is not None:
            diet, index = True, index + len(phrase)
        elif found[index] in LIGHT_WORDS and found[index + 1:index + 2] and (
                found[index + 1] in LIGHT_KINDS and found[index + 2:index + 3] != ["cheese"]
                or found[index + 1] == "syrup" and not _CANNED_WORDS.isdisjoint(found)):
            # "light cream", "light brown sugar", canned fruit "in light syrup": a kind, no wish
            kept.append(found[index])
            index += 1
        elif found[index] in DIET_WORDS or (
                found[index] == FREE and index == len(found) - 1 and index > 0
                and found[index - 1] not in FREE_OF):
            diet, index = True, index + 1
        elif prefix := _diet_prefix(found[index]):  # "Diätcola": a diet cola
            diet, index = True, index + 1
            kept.append(found[index - 1][len(prefix):])
        else:
            diet = diet or found[index] in SWEETENER_WORDS
            kept.append(found[index])
            index += 1
    return (kept, diet) if kept else (list(found), diet)


# German joins a diet word to the food ("Diätcola", "Diabetikerschokolade", "Zuckerfreikaugummi"),
# longest first; what follows must be a word of its own (four letters or more).
DIET_PREFIXES = ("diabetiker", "zuckerfreie", "zuckerfrei", "diat")


def _diet_prefix(word: str) -> str | None:
    return next((p for p in DIET_PREFIXES if word.startswith(p) and len(word) >= len(p) + 4),
                None)


def leaves_sugar_out(found: Sequence[str]) -> bool:
    """Whether the query words say the food is taken without sugar ("tea with milk no sugar",
    "Kaffee ohne Zucker") and name no unsweetened kind ("unsweetened almond milk")."""
    return NO_ADDED_SUGAR_WORDS.isdisjoint(found) and asks_no_added_sugar(found)


def asks_no_added_sugar(found: Sequence[str]) -> bool:
    """Whether the query words ask for no added sugar ("unsweetened applesauce", "no added
    sugar squash") rather than for a diet food ("diet", "light", "sugar free", "zero")."""
    return not NO_ADDED_SUGAR_WORDS.isdisjoint(found) or any(
        tuple(found[i:i + len(p)]) == p for p in NO_ADDED_SUGAR_PHRASES
        for i in range(len(found)))


# Nouns whose plural only adds an "s" to an "-ie" or "-che" ("cookies", not "cooky"; "quiches",
# not "quich"): the food words of these endings in the four tables and the vocabulary.
_IE_AND_CHE_NOUNS = frozenset({
    "cookie", "brownie", "smoothie", "veggie", "hoagie", "calorie", "sarnie", "smartie",
    "twinkie", "goodie", "munchie", "bikkie", "pierogie", "rookie", "birdie", "sweetie",
    "quiche", "brioche", "ganache"})


@lru_cache(maxsize=65536)
def singular(word: str) -> str | None:
    """The singular of an English plural ("berries" -> "berry", "peaches" -> "peach",
    "cookies" -> "cookie", "beans" -> "bean"), or None when ``word`` does not look like one."""
    if word[:-1] in _IE_AND_CHE_NOUNS:
        return word[:-1]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "oes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return None


def prior(*, curated: bool, survey: bool, food_group: str, description: str) -> float:
    """The food's search weight, stored on the row when it is loaded."""
    weight = max(_CURATED if curated else 0.0, _SURVEY if survey else 0.0)
    weight += _GROUP_PENALTY.get(food_group, 0.0) if not curated else 0.0
    if not curated and any(m not in _NOT_BRANDS for m in _BRAND_RE.findall(description)):
        weight += _BRANDED
    return weight


def corrections(word: str, vocabulary: Sequence[str]) -> list[str]:
    """Catalog words close to a misspelt ``word`` (best first), at most MAX_TYPO_CHOICES."""
    return close_words(word, vocabulary, MAX_TYPO_CHOICES, TYPO_CUTOFF)


# Per word list (kept by identity: the catalog's and the vocabulary's are built once), its
# words by length and the answers so far: a query reads the same unknown word at several
# stages, and difflib over ~10,000 words is a search's costliest step. Bounded, as queries
# are a stranger's text.
_CLOSE_WORDS: dict[int, tuple[Collection[str], dict[int, list[str]], dict]] = {}
MAX_CLOSE_WORD_ANSWERS = 50_000


def close_words(word: str, words: Collection[str], n: int, cutoff: float) -> list[str]:
    """difflib's closest of ``words`` to ``word`` (best first), comparing only words of
    similar length: a typo changes a word's length by at most a couple of letters."""
    entry = _CLOSE_WORDS.get(id(words))
    if entry is None or entry[0] is not words:
        if len(_CLOSE_WORDS) >= 8:
            _CLOSE_WORDS.clear()
        by_length: dict[int, list[str]] = {}
        for term in words:
            by_length.setdefault(len(term), []).append(term)
        entry = _CLOSE_WORDS[id(words)] = (words, by_length, {})
    _, by_length, answers = entry
    key = (word, n, cutoff)
    if key not in answers:
        if len(answers) >= MAX_CLOSE_WORD_ANSWERS:
            answers.clear()
        near = [term for length in range(len(word) - 2, len(word) + 3)
                for term in by_length.get(length, ())]
        # of as close, the fewer letters changed (difflib breaks its ties by the word's
        # alphabetical order: "rool" was root, roos and rolo, not a roll)
        found = get_close_matches(word, near, n=n + CLOSE_WORD_SPARES, cutoff=cutoff)
        answers[key] = [w for *_, w in sorted(
            (-round(SequenceMatcher(None, w, word).ratio(), 9), edits(word, w), i, w)
            for i, w in enumerate(found))][:n]
    return list(answers[key])


CLOSE_WORD_SPARES = 3  # the ties difflib would cut off at ``n``


def edits(word: str, other: str) -> int:
    """The letters dropped, added or replaced between two words (Levenshtein distance)."""
    row = list(range(len(other) + 1))
    for i, letter in enumerate(word, 1):
        previous, row[0] = row[0], i
        for j, other_letter in enumerate(other, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (letter != other_letter))
    return row[-1]


@dataclass(frozen=True)
class Portion:
    """A food's default serving and the carbohydrate in it, shown beside each result."""

    serving: str | None
    grams: float | None
    carbohydrate_g: float | None
    # How much the query asked for where it is not one serving ("2 × 1 slice", "100 ml"):
    # ``grams`` are that much (db.portions.measured_amount).
    amount: str | None = None
    # Total minus fibre: what UK and German labels (and their units) call carbohydrate.
    available_carbohydrate_g: float | None = None


@dataclass(frozen=True)
class Candidate:
    food_id: int
    food: str
    category: str
    weight: float
    aliases: tuple[str, ...] = ()
    common_names: str = ""
    own: bool = False
    # Filled by the caller from the person's log.
    recent: bool = False
    favourite: bool = False
    name_words: tuple[str, ...] = field(default=(), compare=False)
    sugars_g: float | None = None  # per 100 g
    portion: Portion = Portion(None, None, None)
    names_region: str | None = None  # whose words name the food ("UK" for CoFID's)
    dataset: str | None = None  # the table it comes from (db.datasets)
    # Energy, carbohydrate, protein and fat per 100 g: the same food in two tables has the same.
    values: tuple[float | None, ...] = ()
    entry: str | None = None  # its entry in that table (source_code)
    # The same food in other tables, ranked below this one: (food id, name, dataset).
    duplicates: tuple[tuple[int, str, str | None], ...] = ()
    has_portion: bool | None = None  # whether it has a default serving (None: not known)


def candidate(food_id: int, name: str, category: str, weight: float, aliases: Iterable[str],
              common_names: str | None, *, own: bool = False, recent: bool = False,
              favourite: bool = False, sugars_g: float | None = None,
              portion: Portion = Portion(None, None, None),
              names_region: str | None = None, dataset: str | None = None,
              values: tuple[float | None, ...] = (), entry: str | None = None,
              has_portion: bool | None = None) -> Candidate:
    return Candidate(food_id, name, category, weight, tuple(aliases), common_names or "",
                     own, recent, favourite, tuple(words(_OTHER_THAN_RE.sub("", name))),
                     sugars_g, portion, names_region, dataset, values, entry, (),
                     has_portion)


@dataclass(frozen=True)
class Query:
    """What a search asks for: its readings (query words, each reading with its handicap),
    whether it asked for a diet food, the forms it names and every word it used."""

    readings: tuple[tuple[tuple[str, ...], float], ...]
    diet: bool = False
    forms: frozenset[str] = frozenset()
    asked: frozenset[str] = frozenset()
    typed: int | None = None  # how many words were typed (score's ``typed``)
    region: str | None = None  # the searcher's (db.vocabulary.SEARCH_REGIONS)
    phrases: frozenset[str] = frozenset()  # each reading as a phrase of singulars
    typed_phrase: str | None = None  # the words as typed, as such a phrase
    guessed: frozenset[str] = frozenset()  # words that are corrections of a typo (score)
    no_added_sugar: bool = False  # the diet wish is no added sugar (asks_no_added_sugar)
    heads: frozenset[str] = frozenset()  # the words that name the main food (``main_food``)
    paired: bool = False  # the query names two foods ("tea and biscuits": ``main_food``)
    any_order: bool = False  # it joins them with "and" (``score``)
    accompanied: bool = False  # it joins the second "with" the first (``joins_with``)
    main_forms: frozenset[str] = frozenset()  # the main food's words, as read too
    # the sugar is said left out ("tea with milk no sugar"), no unsweetened kind named
    sugar_left_out: bool = False
    skin_off: bool | None = None  # the skin was left off, kept, not said (``without_skin_said``)
    homemade: bool = False  # it was said homemade (``says_homemade``)
    bread_off: bool = False  # the bread or bun was said left off (``without_bread_said``)


def make_query(readings: Sequence[tuple[Sequence[str], float]], *, diet: bool = False,
               typed: int | None = None, region: str | None = None,
               typed_words: Sequence[str] | None = None,
               guessed: Iterable[str] = (), no_added_sugar: bool = False,
               heads: Iterable[str] = (), paired: bool = False, any_order: bool = False,
               accompanied: bool = False, main_words: Iterable[str] = (),
               sugar_left_out: bool = False, skin_off: bool | None = None,
               homemade: bool = False, bread_off: bool = False) -> Query:
    asked = frozenset(w for reading, _ in readings for w in reading)
    asked |= frozenset(filter(None, (singular(w) for w in asked)))
    asked |= frozenset(DISH_KINDS[w] for w in asked if w in DISH_KINDS)
    forms = frozenset(FORM_SYNONYMS.get(w) or GERMAN_FORMS.get(w, w) for w in asked) & FORM_WORDS
    if forms & _DRY_FORMS:
        forms |= _DRY_FORMS  # dry beans are "mature seeds, raw", raw noodles "Pasta, dry"
    phrases = frozenset(_singular_phrase(r) for r, _ in readings)
    return Query(tuple((tuple(r), h) for r, h in readings), diet, forms, asked, typed, region,
                 phrases, None if typed_words is None else _singular_phrase(typed_words),
                 frozenset(guessed), no_added_sugar, _forms(heads), paired, any_order,
                 accompanied, _forms(main_words), sugar_left_out, skin_off, homemade,
                 bread_off)


def _forms(found: Iterable[str]) -> frozenset[str]:
    """The words and their singulars: two words are the same word when these meet."""
    return frozenset(w for word in found for w in (word, singular(word)) if w)


def _word_hits(query: Sequence[str], target: Sequence[str],
               forms: frozenset[str] | None = None) -> tuple[int, float]:
    """(query words found whole in ``target``, query words that only start a target word).
    A plural counts as whole ("apple" ~ "apples", "berries" ~ "berry"). A prefix is what the
    last word looks like while it is typed; another word that only starts a target word
    ("ham" in "hamburger") counts PREFIX_INSIDE; a measure or size none. ``forms``:
    ``_forms(target)``, when known."""
    forms = _forms(target) if forms is None else forms
    whole, prefix = 0, 0.0
    for index, word in enumerate(query):
        if word in forms or (singular(word) or word) in forms:
            whole += 1
        elif (word not in MEASURE_AND_SIZE_WORDS and (word != "s" or index == len(query) - 1)
              and any(t.startswith(word) for t in target)):
            # (a measure or size is a whole word: "small bag" is no "Bagel"; the "s" of a
            # possessive inside the query ("young's scampi") starts no word: no "squash")
            prefix += 1.0 if index == len(query) - 1 else PREFIX_INSIDE
    return whole, prefix


def _sorted_phrase(phrase: str) -> str:
    return " ".join(sorted(phrase.split()))


def _singular_phrase(found: Sequence[str]) -> str:
    """The words as one phrase, each in its singular ("potatoes" is the alias "potato"), without
    stop words as a query has none ("Fish and chips" is the query "fish and chips")."""
    kept = [w for w in found if w not in STOPWORDS] or found
    return " ".join(singular(w) or w for w in kept)


@lru_cache(maxsize=65536)
def _text_phrase(text: str) -> str:
    """``_singular_phrase`` of a catalog text (an alias, a common name): cached, as names are."""
    return _singular_phrase(_words(text))


@dataclass(frozen=True)
class _Texts:
    """A food's texts as score() compares them (cached per food)."""

    name: str  # the name as a phrase of singulars, in English word order
    aliases: frozenset[str]
    common: frozenset[str]
    other_words: tuple[str, ...]  # the words of its aliases and common names
    first: frozenset[str]  # _forms of the name's first part ("Rice" of "Rice, white")
    head: frozenset[str]  # _forms of that part's last word: what the food is ("paste" of
    # "Almond paste", "peas" of "Wasabi peas")
    second: frozenset[str]  # and of its second part
    name_forms: frozenset[str]
    other_forms: frozenset[str]
    # The name without its group head and generic parts (GENERIC_PARTS, GROUP_HEADS), as
    # phrases ``name`` is read as; and how many words those parts hold. ``*_raw``: without a
    # "raw" part too, for a food eaten raw; ``*_cooked``: without a plainly cooked part
    # (PLAINLY_COOKED), for a food eaten cooked.
    plain: frozenset[str]
    plain_raw: frozenset[str]
    plain_cooked: frozenset[str]
    ignored: int
    ignored_raw: int
    ignored_cooked: int
    # How many of its words are in parentheses: a note on the food ("(includes kaiser)", the
    # Swiss FCDB's "(ohne Zusatz von Fett und Salz)", "(Durchschnitt aus Rind, Kalb, ...)"),
    # not words of a kind the query did not ask for.
    noted: int


_NOTE_RE = re.compile(r"\(([^()]*)\)")


def _name_phrases(parts: Sequence[tuple[str, ...]]) -> frozenset[str]:
    """A name's parts as the phrase ``score`` compares with the query: in order, a name of two
    parts its second part first ("Chocolate, milk" is milk chocolate)."""
    if len(parts) == 2:
        return frozenset({_singular_phrase((*parts[1], *parts[0]))})
    return frozenset({_singular_phrase([w for part in parts for w in part])})


def _plain_parts(parts: list[tuple[str, ...]], drop: frozenset[str]
                 ) -> tuple[list[tuple[str, ...]], int]:
    """``parts`` without a leading group head and the parts made of ``drop`` words only or
    that say what is not specified (``NOT_SPECIFIED``), and how many words were dropped."""
    def named(found: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return [part for part in found
                if not (set(part) <= drop or part[:len(NOT_SPECIFIED)] == NOT_SPECIFIED)]

    grouped = len(parts) > 1 and parts[0] in GROUP_HEADS
    kept = (named(parts[1:]) if grouped else []) or named(parts) or list(parts)
    return kept, sum(map(len, parts)) - sum(map(len, kept))


@lru_cache(maxsize=65536)
def _texts(name_words: tuple[str, ...], food: str, aliases: tuple[str, ...],
           common_names: str) -> _Texts:
    alias_phrases = frozenset(_text_phrase(a) for a in aliases)
    common = frozenset(_text_phrase(c) for c in common_names.split(",") if c.strip())
    segments = food.split(",")
    # the food's own parts come after a group's name ("Fish, cod, fried")
    lead = 1 if len(segments) > 1 and _words(segments[0]) in NAMING_GROUP_HEADS else 0
    other = tuple(w for n in (*alias_phrases, *common) for w in n.split())
    # "Chocolate, milk" is milk chocolate, not chocolate milk: a name of two parts reads as
    # its second part before its first when it is compared with the query whole.
    whole = (_singular_phrase((*_words(segments[1]), *_words(segments[0])))
             if len(segments) == 2 else _singular_phrase(name_words))
    # What the food is made with or kept in is not what it is: "Crêpes mit Camembert" is a
    # crêpe, "Baked beans, canned in tomato sauce" no tomato.
    kinds = [_words(_MADE_WITH_RE.sub("", segment)) for segment in segments[lead:lead + 2]]
    first_words = kinds[0] or _words(segments[lead])
    named = _NOTE_RE.sub(lambda note: ", " + note[1] if set(_words(note[1])) <= GENERIC_PARTS
                         else note[0], _OTHER_THAN_RE.sub("", _TABLE_SUFFIX_RE.sub("", food)))
    parts = [p for p in map(_part_words, named.split(",")) if p]
    plain, ignored = _plain_parts(parts, GENERIC_PARTS)
    plain_raw, ignored_raw = _plain_parts(parts, GENERIC_PARTS | {"raw", "roh"})
    plain_cooked, ignored_cooked = _plain_parts(parts, GENERIC_PARTS | PLAINLY_COOKED)
    return _Texts(whole, alias_phrases, common, other,
                  _forms(first_words), _forms(first_words[-1:]),
                  _forms(kinds[1]) if len(kinds) > 1 else frozenset(),
                  _forms(name_words), _forms(other),
                  _name_phrases(plain), _name_phrases(plain_raw), _name_phrases(plain_cooked),
                  ignored, ignored_raw, ignored_cooked,
                  sum(len(_words(note)) for note in _NOTE_RE.findall(food)))


def _part_words(part: str) -> tuple[str, ...]:
    """A part of a name as words; a generic part without a note of figures ("Beer, bitter,
    average (<4% ABV)" is the average bitter, as "Beer, bitter, average" would be; "Soup, fish,
    homemade (Alaska Native)" stays a people's own soup)."""
    bare = _words(_NOTE_RE.sub("", part))
    specified = all(re.search(r"\d", note) for note in _NOTE_RE.findall(part))
    return bare if bare and set(bare) <= GENERIC_PARTS and specified else _words(part)


def plain_match(phrase: str, item: Candidate) -> bool:
    """Whether the item's name without its group head and generic parts is ``phrase`` (a
    phrase of singulars): "Trail mix, NFS", "Blueberries, raw", "Candies, milk chocolate",
    "Asparagus, cooked, boiled, drained"."""
    return phrase in _plain(item)[0]


def _plain(item: Candidate) -> tuple[frozenset[str], int]:
    """The item's name as phrases without its group head and generic parts, and how many words
    those hold: without a "raw" part too where raw is how the food is eaten, without a part
    that says it was plainly cooked (PLAINLY_COOKED) where cooked is."""
    texts = _texts(item.name_words, item.food, item.aliases, item.common_names)
    if _kind(item.food, item.category).eaten_cooked:
        return texts.plain_cooked, texts.ignored_cooked
    if _eaten_raw(item):
        return texts.plain_raw, texts.ignored_raw
    return texts.plain, texts.ignored


# CoFID's rows have no food group: its fruit and salad vegetables are eaten raw by their name
# ("Raspberries, raw" is the raspberries, before "Raspberries, stewed with sugar").
_EATEN_RAW_RE = re.compile(
    r"^(apples?|apricots?|bananas?|blackberries|blackcurrants|blueberries|cherries|clementines?|"
    r"figs?|gooseberries|grapefruit|grapes|guavas?|kiwi ?fruit|lychees|mandarins?|mangoes|"
    r"mangos?|melons?|nectarines?|oranges?|papayas?|passion fruit|peaches|pears?|physalis|"
    r"pineapples?|plums?|pomegranates?|raspberries|redcurrants|satsumas?|sharon fruit|"
    r"strawberries|tangerines?|watermelons?|lettuce|cucumbers?|tomatoes|celery|radish(es)?|"
    r"watercress|rocket)\b", re.IGNORECASE)


def _eaten_raw(item: Candidate) -> bool:
    """Whether "raw" in the item's name is how the food is eaten (``_kind``; for CoFID's rows,
    which have no food group, its fruit and salad vegetables: ``_EATEN_RAW_RE``)."""
    if item.category in UNGROUPED:
        return _EATEN_RAW_RE.match(item.food) is not None
    return "raw" not in _kind(item.food, item.category).forms


def score(query: Sequence[str], item: Candidate, typed: int | None = None,
          home: bool = True, guessed: frozenset[str] = frozenset(),
          heads: frozenset[str] = frozenset(), any_order: bool = False,
          false_friend: bool = False) -> float:
    """How well ``item``'s texts answer the query words; higher is better (module doc, 1-3).
    ``typed``: how many words the person typed, when ``query`` is a reading of them in other
    words ("chips" read as "french fries"): word matches count per word typed, so a longer
    reading does not outscore the words as typed by being longer. ``home``: the item is named
    in the words of the query or its reading (``total``); only then is a name without its
    generic parts the query's food. ``guessed``: query words that correct a typo; a name
    holding one counts GUESSED_DISCOUNT less, so where no food has every word the word typed
    as the catalog spells it decides ("Zürcher Geschnetzeltes" is Geschnetzeltes, not the
    "Zucker" that "zurcher" is closest to). ``heads``: the forms of the words that name the
    query's main food (``main_food``); a name or alias holding one counts HEAD_WORD_BONUS more.
    ``any_order``: the query joins two foods with "and", which name them in either order
    ("carrots and peas" is FNDDS's "Peas and carrots"). ``false_friend``: the query is the
    words as typed, which the searcher's region reads as another food, and ``item`` another
    region's: its name being those words makes it no match (German "Paprika" is the sweet
    pepper, not CoFID's "Paprika", the spice)."""
    if not query:
        return 0.0
    texts = _texts(item.name_words, item.food, item.aliases, item.common_names)
    per_word = (typed or len(query)) / len(query)
    phrase = _singular_phrase(query)
    value = 0.0
    plain, generic = _plain(item)
    named = (texts.name == phrase and not false_friend) or phrase in texts.aliases
    if named:
        value += 10.0
    elif home and phrase in plain:
        value += PLAIN_NAME
    elif (any_order and " and " in item.food
          and _sorted_phrase(phrase) in {_sorted_phrase(p) for p in plain}):
        value += PLAIN_NAME  # another region's too: its name joins the same two foods
    elif phrase in texts.common:  # USDA's common names are looser ("oatmeal" for dry oats)
        value += 7.0
    whole, prefix = _word_hits(query, item.name_words, texts.name_forms)
    other_whole, other_prefix = _word_hits(query, texts.other_words, texts.other_forms)
    value += per_word * (2.0 * whole + 1.0 * prefix + 1.0 * max(0, other_whole - whole))
    if guessed:
        value -= per_word * GUESSED_DISCOUNT * sum(
            1 for w in query if w in guessed and w in texts.name_forms)
    # A word found only inside the description ("ham" in "hamburger roll") is not a match.
    missing = len(query) - whole - math.ceil(prefix) - max(0, other_whole - whole)
    if missing > 0 and not other_prefix:
        value -= per_word * MISSING_PENALTY * missing
    # How it was cooked says less than what it is: "fried egg sandwich" is an egg sandwich
    # before a fried seafood one. A cooking word found or missing counts half.
    cooked = [w for w in query if w in COOKING_HEATS]
    if cooked:
        found = sum(1 for w in cooked if w in texts.name_forms)
        missed = len(cooked) - found
        value -= per_word * COOKING_WORD_SHARE * (2.0 * found - MISSING_PENALTY * missed)
    if not heads.isdisjoint(texts.name_forms | texts.other_forms):
        value += HEAD_WORD_BONUS
    if any(w in texts.head or singular(w) in texts.head for w in query):
        value += HEAD_MATCHED
    elif any(w in texts.first or singular(w) in texts.first for w in query):
        value += HEAD_MISSED
    elif any(w in texts.second or singular(w) in texts.second for w in query):
        value += 1.0
    # A group head and generic parts ("NFS", FNDDS: not further specified) say the row is the
    # food in general, not a kind of it: no word the query did not ask for ("Muffin, NFS" is
    # the muffin).
    extra = max(0, len(item.name_words) - texts.noted - whole - math.ceil(prefix) - generic)
    if not named:  # an everyday alias says the row is the food, whatever its name adds
        value -= min(3.0, 0.2 * extra)
    return value


_RULE_WORDS = FORM_WORDS | DISH_WORDS | FLAVOUR_WORDS | SUBSTITUTE_WORDS


@dataclass(frozen=True)
class _Kind:
    """What a food's name says about its form and kind, whatever the query (cached per name)."""

    special: tuple[tuple[str, str], ...]  # (word, its singular or itself) of the words the
    # rules look at (FORM_WORDS, DISH_WORDS, FLAVOUR_WORDS, SUBSTITUTE_WORDS)
    forms: frozenset[str]  # FORM_WORDS it names, "raw" only where raw is not the eaten form
    eaten_cooked: bool  # raw is not how the food is eaten (meat, grains, asparagus)
    prepared: bool
    toasted: bool
    combination: bool
    reduced: bool
    odd_parts: frozenset[str]  # ODD_PARTS it names, where it is a meat's
    lacks: frozenset[str]  # what it says it is without ("Sopaipilla, without syrup or honey")


@lru_cache(maxsize=65536)
def _kind(name: str, category: str) -> _Kind:
    """Cached: the same catalog names are ranked again and again."""
    text = _key(name)
    kind = _MADE_WITH_RE.sub("", _OTHER_THAN_RE.sub("", name))
    named_forms = {} if _EATEN_DRIED_RE.match(text) or category in EATEN_DRIED_GROUPS else NAMED_FORMS
    found = tuple((w, GERMAN_FORMS.get(w) or named_forms.get(w) or singular(w) or w)
                  for w in dict.fromkeys(_words(kind)))
    named = set(_words(_NOT_A_FORM_RE.sub("", text)))
    named |= {GERMAN_FORMS.get(w) or named_forms[w] for w in named
              if w in GERMAN_FORMS or w in named_forms}
    forms = {w for pair in found for w in pair} & FORM_WORDS & named
    eaten_cooked = bool(category in RAW_NOT_EATEN_GROUPS or _STARCHY_RE.match(text)
                        or _EATEN_COOKED_RE.match(text)
                        or (category in UNGROUPED and _UNGROUPED_EATEN_COOKED_RE.match(text))
                        or category.startswith(RAW_NOT_EATEN_PREFIXES))
    if not eaten_cooked:
        forms.discard("raw")
    return _Kind(tuple(p for p in found if not _RULE_WORDS.isdisjoint(p)), frozenset(forms),
                 eaten_cooked,
                 _PREPARED_RE.search(re.sub(r"\bbaked\b", "", text) if _SNACK_RE.match(text)
                                     else text.replace("commercially prepared", "")) is not None,
                 _TOASTED_RE.search(text) is not None,
                 _COMBINATION_RE.search(name.split(",")[0]) is not None,
                 _REDUCED_RE.search(text) is not None,
                 # a part with its note ("skin (drumsticks and thighs)") is that part
                 frozenset(part for part in (_NOTE_RE.sub("", p).strip()
                                             for p in text.split(",")[1:])
                           if part in ODD_PARTS) if _MEAT_RE.match(text) else frozenset(),
                 frozenset(w for lacked in _LACKS_RE.findall(text) for word in _words(lacked)
                           for w in (word, singular(word) or word)) - _SUGAR_LACKED - STOPWORDS)


# What a name says its food is without, up to the next comma ("Pasta, cooked, without added
# salt"); sugar is the diet rules' (a query's "without sugar" keeps its sugar: db.search).
_LACKS_RE = re.compile(r"\b(?:without|ohne)\s+([^,(]*)")
_SUGAR_LACKED = frozenset({"sugar", "sugars", "added", "zucker", "zuckerzusatz", "oder"})


def asked_forms(readings: Iterable[Sequence[str]]) -> frozenset[str]:
    """The words of the readings, a form word as FORM_WORDS names it ("uncooked": raw)."""
    return frozenset(FORM_SYNONYMS.get(w, w) for reading in readings for w in reading)


# A sugared kind of a plain food (``ends_no_search``), unless the query says so.
_SWEETENED_KIND_RE = re.compile(r"(?i)(?<!un)\bsweetened\b")
SWEETENED_WORDS = frozenset({"sweetened", "sugared", "gezuckert", "syrup", "sirup", "sweet",
                             "suss", "susse", "sugar", "zucker"})
# Words of a query that asks for baby food (``ends_no_search``).
BABY_WORDS = frozenset({"baby", "babyfood", "babies", "toddler", "infant", "junior"})


def ends_no_search(item: Candidate, asked: frozenset[str], region: str | None,
                   read_on: bool = False) -> bool:
    """Whether ``item``, though it has every word of a reading, is no answer that ends the
    search (db.repo reads on and ranks it with what it finds): a food raw that is eaten cooked
    (a cut of meat, a grain) where no reading asks for it raw ("Rind, Hals, roh", whose Swiss
    synonym is Gulasch, for "Rindergulasch"), or a food named in German, found by its English
    synonym's cooking method, for a searcher who reads English ("Karotte, gedämpft" for
    "steamed carrots": the English tables say "Carrots, cooked"; "Griessbrei" stays the answer
    to "semolina pudding"). ``asked``: ``asked_forms`` of the readings. ``read_on``: a later
    stage reads fewer words, each of which a food must have (db.repo): there, a food named in
    German answers a searcher who reads English only where no English name does ("Erdbeere,
    roh", whose Swiss synonym is "fresh strawberries", after SR Legacy's "Strawberries, raw")."""
    if (_NAMING.get(item.names_region or "") == GERMAN and _NAMING.get(region or "") != GERMAN
            and (read_on or not asked.isdisjoint(COOKING_HEATS))):
        return True
    if item.food.lower().startswith(("babyfood", "baby toddler")) and asked.isdisjoint(BABY_WORDS):
        return True  # "beef lasagna" is no toddler's jar, "yogurt fruit" no "Baby Toddler yogurt"
    if _NON_DAIRY_RE.search(item.food) and asked.isdisjoint(PLANT_MILK_WORDS):
        return True  # "cappuccino 2% milk" is no "Coffee, Cappuccino, with non-dairy milk"
    if _SWEETENED_KIND_RE.search(item.food) and asked.isdisjoint(SWEETENED_WORDS):
        return True  # "sliced strawberries" are no "Strawberries, frozen, sweetened, sliced"
    return "raw" in _kind(item.food, item.category).forms and asked.isdisjoint({"raw", "dry"})


@lru_cache(maxsize=65536)
def _says_diet(texts: str) -> bool:
    return _DIET_MARKER_RE.search(_key(texts)) is not None


def form_adjustment(query: Query, item: Candidate) -> float:
    """Module doc, 4: below zero for a form or kind the query did not ask for."""
    kind = _kind(item.food, item.category)
    named = {w for word, one in kind.special if word not in query.asked and one not in query.asked
             for w in (word, one)}
    if not region_handicap(query, item) and any(plain_match(p, item) for p in query.phrases):
        named = set()  # "Candies, milk chocolate" is the milk chocolate asked for, not a dish
    value = 0.0
    if (kind.forms & named) - query.forms and not kind.prepared:
        value -= FORM_PENALTY
    elif kind.forms & query.forms:
        value += FORM_MATCH_BONUS
    elif (kind.prepared or kind.toasted and any(w.startswith("toast") for w in query.asked)
          ) and not query.forms:
        value += PREPARED_BONUS
    if not named.isdisjoint(DISH_WORDS):
        value -= DISH_PENALTY
    if not named.isdisjoint(FLAVOUR_WORDS):
        value -= FLAVOUR_PENALTY
    # (not for a diet query: the US South's "unsweet tea" is iced)
    if (query.asked.isdisjoint(ICED_WORDS) and not query.diet
            and _ICED_DRINK_RE.search(_key(item.food))):
        value -= FLAVOUR_PENALTY
    # "made with non-dairy milk" (which the kind leaves out as what it is made with) is no
    # milk's drink unless a plant milk is asked ("hot chocolate with milk": the dairy one)
    if _NON_DAIRY_RE.search(item.food) and query.asked.isdisjoint(PLANT_MILK_WORDS):
        value -= SUBSTITUTE_PENALTY
    # and a dairy milk or yogurt, or a drink made with one, is no plant one asked for ("alpro
    # soja joghurt", "Milchkaffee mit Hafermilch")
    if (not query.asked.isdisjoint(_PLANT_ASKED_WORDS)
            and PLANT_KIND_WORDS.isdisjoint(item.name_words) and (
                item.name_words[:1] and item.name_words[0] in DAIRY_FIRST_WORDS
                or ("milk" in item.name_words or not MILK_DRINK_WORDS.isdisjoint(item.name_words))
                and _plant_milk_asked(query.asked))
            and not _NON_DAIRY_RE.search(item.food)):
        value -= SUBSTITUTE_PENALTY
    if "school" in item.name_words and "school" not in query.asked:
        value -= SCHOOL_LUNCH_PENALTY  # a school's own recipe, not what "pepperoni pizza" is
    if item.name_words[:1] and item.name_words[0] in OTHER_FOOD_FIRST_WORDS - query.asked:
        value -= FLAVOUR_PENALTY
    other = OTHER_FOOD_PAIRS.get(tuple(item.name_words[:2]))
    if other is not None and item.name_words[other] not in query.asked:
        value -= FLAVOUR_PENALTY
    # A stand-in for a food the query names ("Bacon, meatless" for bacon), not one found by
    # its other texts ("Sugar substitute, powder, NFS" for a sweetener), nor where the query
    # asks for any stand-in ("veggie pizza": "Pizza, vegetarian").
    if (not named.isdisjoint(SUBSTITUTE_WORDS) and query.asked.isdisjoint(SUBSTITUTE_WORDS)
            and not query.asked.isdisjoint(_forms(item.name_words))):
        value -= SUBSTITUTE_PENALTY
    # A query asking for a stand-in in other words than the name's ("vegan chili": "Chili,
    # vegetarian") finds it as if the name held its word.
    stand_in = {w for pair in kind.special for w in pair} & SUBSTITUTE_WORDS
    if stand_in and stand_in.isdisjoint(query.asked) and not query.asked.isdisjoint(
            SUBSTITUTE_WORDS):
        value += MISSING_PENALTY
    asked_heats = {COOKING_HEATS[w] for w in query.asked if w in COOKING_HEATS}
    heats = {COOKING_HEATS[w] for w in item.name_words if w in COOKING_HEATS}
    if asked_heats and heats and asked_heats.isdisjoint(heats):
        value -= OTHER_HEAT_PENALTY
    if kind.odd_parts - query.asked:
        value -= ODD_PART_PENALTY
    # "sopapillas with honey" is not "Sopaipilla, without syrup or honey" ("with" is a stop word)
    if not kind.lacks.isdisjoint(query.asked):
        value -= MISSING_PENALTY
    # "Fruit punch, alcoholic", "Eggnog, alcoholic": the spirit-free drink unless asked
    if "alcoholic" in item.name_words[1:] and query.asked.isdisjoint(ALCOHOL_WORDS):
        value -= ODD_PART_PENALTY
    if kind.combination:
        value -= COMBINATION_PENALTY
    if query.homemade and "homemade" in item.name_words:
        value += HOMEMADE_BONUS  # "homemade flapjack": of "Flapjacks, retail" and "..., homemade"
    if query.bread_off and not _BREAD_LEFT_OFF_ROW_RE.search(item.food) and (
            _IN_BREAD_RE.search(item.food) or item.category in _IN_BREAD_GROUPS):
        value -= BREAD_PENALTY
    if query.skin_off is not None:
        wanted, other = ((_SKIN_OFF_ROW_RE, _SKIN_EATEN_RE) if query.skin_off
                         else (_SKIN_EATEN_RE, _SKIN_OFF_ROW_RE))
        if other.search(item.food):
            value -= SKIN_EATEN_PENALTY
        elif wanted.search(item.food):
            value += SKIN_OFF_BONUS
    return value


def _plant_milk_asked(asked: frozenset[str]) -> bool:
    """The query names a plant milk: soy, almond, Alpro; oat only with milk and without the
    oats a porridge is ("porridge oats with milk" asks for dairy milk)."""
    return not asked.isdisjoint(PLANT_MILK_NAMES) or (
        not asked.isdisjoint({"oat", "hafer"}) and not asked.isdisjoint({"milk", "milch"})
        and asked.isdisjoint(_OAT_FOODS))


PLANT_MILK_NAMES = frozenset({"soy", "soya", "soja", "soymilk", "sojamilch", "almond", "mandel",
                              "mandelmilch", "cashew", "oatly", "alpro", "oatmilk",
                              "hafermilch"})
_OAT_FOODS = frozenset({"oats", "porridge", "oatmeal", "haferflocken", "haferbrei", "flocken"})
_PLANT_ASKED_WORDS = PLANT_KIND_WORDS | PLANT_MILK_NAMES


def diet_adjustment(query: Query, item: Candidate,
                    regular_brands: frozenset[str] = frozenset()) -> float:
    """Module doc, 5: for a diet query, up for a diet row, down for another (a sugared one is
    left out by ``rank``); for another query, a little down for a calorie-reduced row, unless
    the query names its brand and the brand has no regular kind among the candidates
    (``regular_brands``: ``brands_with_regular_kind``)."""
    if not query.diet:
        return -REDUCED_PENALTY if reduced(item) and not _brand_asked(
            query, item, regular_brands) else 0.0
    if not _diet_row(item, query.no_added_sugar):
        # "tea with milk no sugar": a row without sugar is what was asked for
        return 0.0 if query.sugar_left_out and not sugary(item) else -UNMARKED_PENALTY
    # a tabletop sweetener's sugar is the dextrose it is bulked with: under 1 g in a 1 g packet
    sugar = 0.0 if _TABLETOP_SWEETENER_RE.match(_key(item.food)) else max(
        0.0, (item.sugars_g or 0.0) - SUGARED_G)
    if query.no_added_sugar:
        # the fruit's own sugar makes no row that says no sugar was added worse than one
        # that does not say so ("alpen no added sugar": CoFID's no-added-sugar muesli)
        return DIET_MATCH_BONUS - min(DIET_MATCH_BONUS, sugar * NO_ADDED_SUGAR_SUGAR_PENALTY)
    if _SUGAR_FREE_CLAIM_RE.search(_key(item.food)):
        # nor a sugar-free one its milk's ("Chocolate candy, sugar free": lactose)
        return DIET_MATCH_BONUS - min(DIET_MATCH_BONUS, sugar * DIET_SUGAR_PENALTY)
    return DIET_MATCH_BONUS - sugar * DIET_SUGAR_PENALTY


def _brand_words(item: Candidate) -> frozenset[str]:
    """The words of the row's notes, where FNDDS names the brand: "(Glucerna)", "(Red Bull)"."""
    return frozenset(w for note in _NOTE_RE.findall(item.food) for w in _words(note))


@lru_cache(maxsize=65536)
def _proper_notes(name: str) -> tuple[frozenset[str], ...]:
    """The words of each note that names something ("(Cheetos)", "(Clif Bar)", "(Navajo)"):
    one that starts with a capital letter, as FNDDS writes a brand; not an SR28 note in
    capitals, which says what an infant formula is ("(LACTOSE FREE)")."""
    return tuple(frozenset(w for word in _words(note) for w in (word, singular(word) or word))
                 - STOPWORDS
                 for note in _NOTE_RE.findall(name) if note[:1].isupper() and not note.isupper())


def note_named(query: Query, item: Candidate) -> bool:
    """Every word of one of the row's proper notes is asked: "cheetos crunchy" names the
    "Cheese flavored corn snacks (Cheetos)", whatever "crunchy" finds elsewhere."""
    return item.dataset == BRAND_NOTED_DATASET and any(
        note and note <= query.asked for note in _proper_notes(item.food))


def _brand_asked(query: Query, item: Candidate, regular_brands: frozenset[str]) -> bool:
    """The query names the brand in the row's note and that brand makes no regular kind among
    the candidates: "glucerna vanilla shake" asks for FNDDS's "Nutritional drink or shake,
    ready-to-drink, sugar free (Glucerna)", sugar free by make; "red bull" is still the sugared
    Red Bull."""
    asked = _brand_words(item) & query.asked
    return bool(asked) and asked.isdisjoint(regular_brands)


def brands_with_regular_kind(query: Query, candidates: Iterable[Candidate]) -> frozenset[str]:
    """The asked brand words of the candidates that are no calorie-reduced kind."""
    return frozenset(w for c in candidates if not reduced(c)
                     for w in _brand_words(c) & query.asked)


def reduced(item: Candidate) -> bool:
    """The row says it is a diet, sugar-free or calorie-reduced kind (``_REDUCED_RE``)."""
    return _kind(item.food, item.category).reduced


def sugary(item: Candidate) -> bool:
    """More sugar than SUGARED_G per 100 g, or than MILK_SUGARED_G for plain milk and a coffee
    made with it (lactose is milk's own: "nonfat latte with sugar free vanilla" is a latte).
    Where the table gives no sugar value, its carbohydrate counts as sugar: SR Legacy's
    "Beverages, carbonated, orange" has none, and is no Fanta Zero."""
    sugars = item.sugars_g
    if sugars is None and len(item.values) > 1:
        sugars = item.values[1]
    limit = MILK_SUGARED_G if _MILK_DRINK_RE.match(_key(item.food)) else SUGARED_G
    return sugars is not None and sugars > limit


def _diet_row(item: Candidate, no_added_sugar: bool = True) -> bool:
    """Whether the item says it is diet, sugar-free or unsweetened; a sugary row that only says
    no sugar was added counts only where the query asks for that (``no_added_sugar``): a light
    cranberry juice is not the unsweetened juice."""
    texts = " ".join((item.food, *item.aliases))
    if no_added_sugar and _PLAIN_DAIRY_RE.search(_key(texts)):
        return True  # plain yoghurt has its milk's sugar only
    if not _says_diet(texts):
        return False
    return (no_added_sugar or not sugary(item)
            or _DIET_MARKER_RE.search(_NO_ADDED_SUGAR_RE.sub("", _key(texts))) is not None)


def sugared(item: Candidate, no_added_sugar: bool = True) -> bool:
    """Sugary (``sugary``) and not a diet row (``_diet_row``): never a result for a diet
    query."""
    return sugary(item) and not _diet_row(item, no_added_sugar)


def total(query: Query, item: Candidate,
          regular_brands: frozenset[str] = frozenset()) -> float:
    """The item's score for the query: its best reading, the form and diet rules, its prior.
    ``regular_brands``: as ``diet_adjustment``'s."""
    # Another region's name is the food without its generic parts only when the vocabulary
    # read the query into that region's words ("Gulasch" as goulash); the words as typed may
    # name another food there (a UK "Biscuits, plain" is no US biscuit).
    foreign = region_handicap(query, item)
    best = max(_reading_score(query, reading, handicap, item, bool(foreign))
               for reading, handicap in query.readings)
    return (best + form_adjustment(query, item) + diet_adjustment(query, item, regular_brands)
            + (NOTE_NAMED_BONUS if note_named(query, item) else 0.0)
            + min(item.weight, MAX_PRIOR) - foreign
            - (NO_PORTION_PENALTY if item.has_portion is False else 0.0))


def _reading_score(query: Query, reading: Sequence[str], handicap: float, item: Candidate,
                   foreign: bool) -> float:
    """``score`` of one reading, less its handicap and what an unlinked pair costs. The words
    as typed that the region's vocabulary read otherwise (a handicap) are a false friend of a
    foreign row that they name."""
    as_typed = _singular_phrase(reading) == query.typed_phrase
    return (score(reading, item, query.typed, home=not foreign or not as_typed,
                  guessed=query.guessed, heads=query.heads, any_order=query.any_order,
                  false_friend=foreign and handicap > 0 and as_typed)
            - handicap - _unlinked_pair(query, reading, handicap, item))


# The main food alone ("toast" of "toast with butter") ranks this much below the words as typed:
# more than a name or alias that is the main food earns (10), so a row holding both foods
# ("Baked beans, canned in tomato sauce, with pork sausages") comes before one that is only
# the first ("beans").
MAIN_FOOD_HANDICAP = 12.0
# A row holding both foods of a two-food query only as words of one food ("Cookie, tea,
# Japanese" for "tea and biscuits") is not the two together: its name joins nothing. It ranks
# this much lower by the words of both, below the main food alone where that is named.
UNLINKED_PAIR_PENALTY = 4.0
# More than a row from another region's table loses (FOREIGN_NAME_PENALTY): the toast, not
# "Beans on toast", answers "toast and jam".
MAIN_ONLY_PENALTY = 2.0
# A row named for the other food with the main food's word before it ("Pancake syrup",
# "Syrups, table blends, pancake" for "pancakes with syrup") is that other food: it ranks below
# the main food alone.
SECOND_FOOD_PENALTY = 2 * MAIN_FOOD_HANDICAP
_LINK_RE = re.compile(r"\b(and|with|w/|on|over|in|mit|und|auf|aufs|con|de|plus|n|zum|zur)\b|&",
                      re.IGNORECASE)


def _unlinked_pair(query: Query, reading: Sequence[str], handicap: float, item: Candidate
                   ) -> float:
    """What a reading of both foods of a two-food query costs a row that is not both: one named
    for what the main food is eaten with, the main food's word only before that name
    (``SECOND_FOOD_PENALTY``: "Pancake syrup" for "pancakes with syrup", not "Rice, with
    chicken" for "chicken with rice"); one that holds the main food's word only as what its
    food comes with or on, and none of the other food's words (``MAIN_ONLY_PENALTY``: "Beans
    on toast" for "toast and jam" is beans); one that holds both only as words of one food
    (UNLINKED_PAIR_PENALTY)."""
    if not query.paired or handicap >= MAIN_FOOD_HANDICAP or len(reading) < 2:
        return 0.0
    forms = _forms(item.name_words)
    others = _forms(reading) - query.heads
    linked = _around_link(item.food)
    head = _head_forms(item.food)
    # the main food read in the catalog's words ("Brötchen": "Rolls, hard") is no other food;
    # a head that only extends the other food's word is that food's kind ("Coffee creamer" for
    # "coffee with cream")
    named_other = head & others or any(h.startswith(o) and len(o) > 3 for h in head
                                       for o in others)
    if (query.accompanied and named_other and not head & (query.heads | query.main_forms)
            and forms & query.heads
            and (linked is None or (
            "," in item.food[:_LINK_RE.search(item.food).start()]
            and not linked[1] & query.heads))):
        return SECOND_FOOD_PENALTY
    # a reading that ends with the main food's word is a kind of it, no pair ("chips and
    # salsa" read as tortilla chips)
    one_food = not handicap and bool(_forms(reading[-1:]) & query.heads)
    second = others - query.main_forms  # the other food's words
    if linked is None:
        # the main food named as made with the other, by its words alone ("Cheese sandwich"
        # for "sandwich with cheese"; not "Peanut butter toast" for "toast with butter") is both
        made_with = (query.accompanied and bool(head & query.heads)
                     and bool(maker := _forms(words(item.food.split(",")[0])) - head)
                     and maker <= others)
        return (UNLINKED_PAIR_PENALTY if forms & query.heads and forms & second and not one_food
                and not made_with else 0.0)
    before, after = linked
    if not forms & others and after & query.heads and not before & query.heads:
        return MAIN_ONLY_PENALTY
    if (query.any_order and not one_food and before & query.heads and before & second
            and not after & (query.heads | others)):
        return UNLINKED_PAIR_PENALTY  # "Coffee cake, crumb, with fruit" for "Kaffee und Kuchen"
    return 0.0


@lru_cache(maxsize=65536)
def _head_forms(food: str) -> frozenset[str]:
    """The forms of the word a name's first part ends with, which names its food where that
    part joins no two foods ("syrup" of "Pancake syrup" and of "Syrups, table blends, pancake,
    with butter"; not of "Macaroni and cheese"; cached, as names are)."""
    found = words(food.split(",")[0])
    return _forms(found[-1:])


@lru_cache(maxsize=65536)
def _around_link(food: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The forms of a name's words before and after its first link word ("Beans" and "toast"
    of "Beans on toast"), or None where it has none (cached, as names are)."""
    link = _LINK_RE.search(food)
    if link is None:
        return None
    return _forms(words(food[:link.start()])), _forms(words(food[link.end():]))


# A row without a default serving (a CoFID or Swiss row no portion is cited for: its card asks
# for grams) ranks below an equivalent row with one; less than the region's FOREIGN_NAME_PENALTY,
# so the searcher's own table still wins a tie.
NO_PORTION_PENALTY = 0.5
# A row whose brand note the query names ("(Cheetos)", ``note_named``): the brand is the most
# telling word of a query, a flavour or size word after it found in other rows or none.
NOTE_NAMED_BONUS = 3.0
# The table whose notes name brands: a Swiss note says what the food is ("Hackplätzli (Rind)").
BRAND_NOTED_DATASET = "FNDDS"
# Regions that name foods alike: Australia uses British names ("biscuit", "chips").
_NAMING = {"US": "US", "UK": "UK", "AU": "UK", "DE": "DE"}
FOREIGN_NAME_PENALTY = 1.5
GERMAN = "DE"
# More than an exact name match and a first-word match are worth (``score``: 10 + 1.5).
OTHER_LANGUAGE_PENALTY = 12.0


def region_handicap(query: Query, item: Candidate) -> float:
    """A food named in another region's words ranks lower for a searcher whose region names
    foods otherwise: "Biscuits, semi-sweet" is a British biscuit (a US "biscuit" is a scone),
    "Squash, acorn" is not a UK squash. So each region's own table wins a tie: UK CoFID, DE
    the Swiss FCDB's German names, US FNDDS and SR Legacy (db.datasets). For an English
    speaker a food named in German (the Swiss FCDB's English names are translations) ranks
    below every food named in English that matches at all, and is found when none does; a
    German speaker reaches English rows through the vocabulary's readings of German words,
    and they rank below German rows as another region's do. A searcher of unknown region
    reads English (the app's language) but no region's English over another's; foods of no
    table: none."""
    mine, theirs = _NAMING.get(query.region or ""), _NAMING.get(item.names_region or "")
    if theirs == GERMAN and mine != GERMAN:
        return OTHER_LANGUAGE_PENALTY
    if not mine or not theirs or mine == theirs:
        return 0.0
    return FOREIGN_NAME_PENALTY


def tier(item: Candidate) -> int:
    """2 favourite, 1 own or recently logged, 0 other."""
    return 2 if item.favourite else 1 if item.own or item.recent else 0


def rank(query: Query, candidates: Iterable[Candidate],
         limit: int) -> list[tuple[Candidate, float]]:
    """The best ``limit`` candidates for the query with their scores, best first: by tier,
    then score (ties: ``_tie_break``, then the shorter name, then alphabetical), each food
    once (``dedupe``). A diet query gets no sugared food: none rather than the wrong one."""
    candidates = list(candidates)
    brands = frozenset() if query.diet else brands_with_regular_kind(query, candidates)
    scored = [(c, total(query, c, brands)) for c in candidates
              if not (query.diet and sugared(c, query.no_added_sugar))]
    scored.sort(key=lambda pair: (-tier(pair[0]), -pair[1], *_tie_break(query, pair[0]),
                                  len(pair[0].food), pair[0].food))
    return dedupe(scored, limit)


def _tie_break(query: Query, item: Candidate) -> tuple[bool, int]:
    """Of two foods as good: the one that names the query's main food ("garlic naan" is
    "Bread, naan" before "Garlic, cooked"), then the one whose name without its generic parts
    (``_plain``) adds fewer words to the query's ("garlic rice" is "Rice, cooked, NFS"
    before "Fried rice")."""
    names_main = not query.heads.isdisjoint(_forms(item.name_words))
    added = min((sum(1 for w in phrase.split()  # query.asked holds each word's singular too
                     if w not in query.asked and w not in STOPWORDS and w not in _SAYS_COOKED)
                 for phrase in _plain(item)[0]), default=0)
    return not names_main, added


_SAYS_COOKED = frozenset({"cooked", "gekocht", "zubereitet"})


def same_food_key(name: str, values: Sequence[float | None]) -> tuple | None:
    """What an SR Legacy row and the FNDDS row built from it share exactly, for giving the one
    the other's portions (db.fndds): the first word of the name (singular) and the same
    energy, carbohydrate, protein and fat per 100 g (``values``; FNDDS copies many SR Legacy
    rows' values: "Bread, rye" is in both). None when a value is missing. Search shows the
    same food once by the looser ``same_food``."""
    first = _words(name.split(",")[0])[:1]
    if not first or not values or None in values:
        return None
    return (singular(first[0]) or first[0], *(round(v, 1) for v in values))  # type: ignore[arg-type]


# Two tables' rows are one food when their values agree this closely (FNDDS rounds the SR
# Legacy rows it is built from anew: 134 and 135 kcal of evaporated milk) ...
SAME_KCAL, SAME_GRAMS, SAME_SHARE = 1.0, 0.1, 0.02
# ... (rows are compared only with those in the same or a neighbouring step of energy and of
# carbohydrate: a step as wide as the most either may differ by, SAME_SHARE of 500 kcal and of
# 100 g; carbohydrate over 100 g is one step).
_KCAL_STEP, _CARB_STEP = 10.0, 2.0


# "Trifle (FNDDS)": a table's name taken by another food gets the table after it.
_TABLE_SUFFIX_RE = re.compile(r"\s*\((FNDDS|CoFID|Swiss FCDB|SR Legacy)\)$")


@lru_cache(maxsize=65536)
def _kind_parts(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """A name's first and second parts, each as its words in the singular."""
    parts = [frozenset(singular(w) or w for w in _words(part))
             for part in _TABLE_SUFFIX_RE.sub("", name).split(",")[:2]]
    return parts[0], parts[1] if len(parts) > 1 else frozenset()


def same_kind(a: str, b: str) -> bool:
    """Whether two names say the same food: the same first part ("Rice, white, cooked" and
    "Rice, white, long-grain, ..."), the same first two parts in any order ("Goat milk" and
    "Milk, goat", "Apple pie" and "Pie, apple"), or the one's first part is the other's
    second ("Graham crackers" and "Cookies, graham crackers, plain or honey"). "Cookie, NFS"
    is no "Pie Crust, Cookie-type", "Roll, pumpernickel" no "Bread, pumpernickel"."""
    (first_a, second_a), (first_b, second_b) = _kind_parts(a), _kind_parts(b)
    return (first_a == first_b or first_a | second_a == first_b | second_b
            or first_a == second_b or second_a == first_b)


def _close(a: float, b: float, least: float) -> bool:
    return abs(a - b) <= max(least, SAME_SHARE * max(abs(a), abs(b)))


def same_food(a: Candidate, b: Candidate) -> bool:
    """Whether two public rows are one food, shown once (``dedupe``): their names say the same
    food (``same_kind``) and they are a curated food and its table's row of the same entry
    ("Pancakes" and "Pancakes, NFS", FNDDS 55100005; not "Shrimp and grits", which stands in
    with the entry of "Grits, NFS"), or rows of two tables with the same energy,
    carbohydrate, protein and fat per 100 g (within SAME_KCAL kcal, SAME_GRAMS g or
    SAME_SHARE: "Graham crackers" and "Cookies, graham crackers, plain or honey", FNDDS built
    the one from the other). A person's own food is never one."""
    if a.own or b.own or a.dataset is None or b.dataset is None:
        return False
    if a.dataset == b.dataset:
        same = a.entry is not None and a.entry == b.entry
    else:
        same = (len(a.values) == len(b.values) == 4 and None not in a.values
                and None not in b.values
                and _close(a.values[0], b.values[0], SAME_KCAL)  # type: ignore[arg-type]
                and all(_close(x, y, SAME_GRAMS)  # type: ignore[arg-type]
                        for x, y in zip(a.values[1:], b.values[1:])))
    return same and same_kind(a.food, b.food)


def _value_step(item: Candidate) -> tuple[int, int] | None:
    """The row's (energy, carbohydrate) step for ``dedupe``; None when it has no values to
    compare (it can then be one food with another only by their entry)."""
    if item.dataset is None or item.own or len(item.values) != 4 or None in item.values:
        return None
    kcal, carbohydrate = item.values[0], item.values[1]
    return int(kcal // _KCAL_STEP), int(min(carbohydrate, 100.0) // _CARB_STEP)  # type: ignore


def dedupe(scored: list[tuple[Candidate, float]],
           limit: int | None = None) -> list[tuple[Candidate, float]]:
    """``scored`` (best first) with each food shown once: a row that is the same food as a
    better-ranked one (``same_food``) is listed in that row's ``duplicates`` (reachable from
    it), not beside it. The better-ranked row is the best-sourced for the searcher: region
    decides a tie between tables (``region_handicap``). With ``limit``, the first ``limit``
    such foods, whose duplicates the rows after them are still sought among."""
    kept: list[list] = []
    # A row is one food with an earlier one of its own table only by their entry, with one of
    # another table only by their values: those are all the rows it is compared with.
    by_entry: dict[tuple[str, str], list[int]] = {}
    by_step: dict[tuple[int, int], list[int]] = {}
    for item, value in scored:
        step = _value_step(item)
        near = [] if item.dataset is None else [
            *by_entry.get((item.dataset, item.entry), ()),
            *(i for kcal in (() if step is None else range(step[0] - 1, step[0] + 2))
              for i in sorted(i for carbohydrate in range(step[1] - 1, step[1] + 2)
                              for i in by_step.get((kcal, carbohydrate), ()))
              if kept[i][0].dataset != item.dataset)]
        at = next((i for i in near if same_food(kept[i][0], item)), None)
        if at is not None:
            best = kept[at][0]
            kept[at][0] = replace(best, duplicates=(*best.duplicates,
                                                    (item.food_id, item.food, item.dataset)))
            continue
        if limit is not None and len(kept) == limit:
            continue
        if item.dataset is not None and not item.own:
            if item.entry is not None:
                by_entry.setdefault((item.dataset, item.entry), []).append(len(kept))
            if step is not None:
                by_step.setdefault(step, []).append(len(kept))
        kept.append([item, value])
    return [(item, value) for item, value in kept]
