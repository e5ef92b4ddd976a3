"""The issue-40 audit, as a dietitian would run it: everyday queries of people with diabetes in
the US, the UK and Germany (hypo treatments, mixed dishes, misspellings among them) through the
search with the region set, each with its acceptance rule written before the queries were run.

Rules (one per query). After the first run, patterns that refused a row that is the food
(a letter's case, a table's word order: "Stew, beef", "Pie, Cottage", the muesli brands
ALPEN and FAMILIA) were widened, "diet sprite" (no table has a diet lemon-lime row: nothing is
the right answer) became "diet soda", the diet rule learned that milk's own sugar is not added
sugar, and the popcorn portion cites FDA's reference amount; no other rule changed.
Third round (about 300 queries more, their rules written before the fixes): after the first
run, patterns were widened for rows that are the food under a table's own word: FNDDS's
"Pudding, flavors other than chocolate, NFS" and "Soybean curd" (tofu), CoFID's
"Pakora/bhajia, onion", "Biscuits, sandwich, cream" (custard creams) and "Gravy instant
granules, made up with water", the Swiss
"Hackplätzli" (Frikadelle), SR Legacy's "Alcoholic beverage, beer" (a pint of lager) and its
milk chocolate bar (a candy bar); the queries for foods no table holds moved to
NO_TABLE_HOLDS.
Fourth round (330 queries more: regional, fast-food and takeaway dishes, UK brand-like names,
German, Austrian and Swiss words typed with or without umlauts, misspellings, diet and hypo
queries; rules written before the first run): after it, patterns were widened for rows that are
the food in a table's own words or word order ("Beef, steak, country fried", "Stew, Irish",
"Bread, Irish soda", "Scones, potato", "Pie, fish", "Soup, potato and leek", "Taco or tostada
salad", "Chicken or turkey salad", "Italian sandwich or sub", "Curry, chick pea", "Breakfast
cereal, rice, chocolate flavoured", "Beverages, carbonated, orange", "Cheese, cream", FNDDS's
"Frozen coffee drink" and "Cheese flavored corn snacks", CoFID's "Canteloupe", the Swiss FCDB's
Cervelat, whose synonym is Bockwurst), for dictionary translations (Streuselkuchen a crumb
cake, Apfelkompott stewed apples, Rouladen CoFID's beef olives, Schokokuss a chocolate-covered
marshmallow cookie); "fanta zero" (no table has a diet orange soda) accepts any diet soft drink,
as "diet sprite" did; the crunchie rule was narrowed (it accepted a toddler snack called
"crunchies"). Its foods no table holds are in NO_TABLE_HOLDS.
Fifth round (342 queries more: Mexican, Chinese-American, Japanese, Thai, Indian,
Italian-American, Greek and Middle Eastern dishes as Americans type them, breakfast, deli,
snacks, baking ingredients, beer, wine, cocktails and coffee-shop drinks; UK meal-deal foods,
puddings, the Sunday roast, takeaway, bakery, cereals, Scottish, Welsh and Irish foods;
Bäckerei, Aufschnitt, Beilagen, Kuchen, Austrian and Swiss words with and without umlauts;
misspellings, plurals, capitals, spaces and hyphens; 20 diet and 21 hypo queries; rules written
before the first run): after it, patterns were widened for rows that are the food in a table's
own words or word order ("Cookie, fortune", "Egg, whole, cooked, fried", "Meatball sandwich or
sub", "Pork skin rinds", "Rice, white, cooked, glutinous", "Sugar, NFS", "Coffee, Irish", the
Swiss FCDB's "Bohne, grün" and "Hinterschinken" (cooked ham), a cocoa mix "with aspartame", a
popsicle "no sugar added", the Swiss jelly babies row of hypo_treatments.csv, "Apfelmus,
ungezuckert", Ovaltine, Ovomaltine's English name); the diet rule learned that "no sugar added"
and "ungesüßt" mean no sugar added and that ice cream's and cocoa's milk sugar is not added
sugar. "Kartoffelknoedel" and "Kaiserschmarn" (no table holds either) and 29 more are in
NO_TABLE_HOLDS (seven believed absent were found: Capuns, hard seltzer, laverbread, mimosa,
moo shu pork, palak paneer, stuffed shells); the 51 queries still answered wrongly were
STILL_MISSED, each an expected failure.
Fifth round, second pass (general changes, no rule changed): a measure, container or size
beside the food without "of" ("half cup juice", "coleslaw pot", "pudding cup") is dropped where
no food has every word, so it no longer finds Cupcake or "Pot savouries"; a row that only says
no sugar was added (12 g in unsweetened cranberry juice) is no answer to a diet or light query;
a compound one letter off a catalog word ("cheezecake") or misspelt in its last part
("Apfelstrudl"), and an "-ys" plural ("blueberrys"), are read as the catalog spells them; the
vocabulary reads mayo, fettuccine and Bergkäse (Duden: a full-fat hard cheese). Thirteen moved to
AUDIT and HYPO (light mayo, light cranberry juice, reduced sugar jam and the sugar-free popsicle
to AUDIT: their light rows hold more than SUGARED_G), five no table holds to NO_TABLE_HOLDS
(Teewurst, Bierschinken, granary bread, Scotch pie, colcannon), and "full english" to AUDIT: a
composite now holds it. The 33 left in STILL_MISSED are strict expected failures (a diet one
checks the sugar too): dishes named by a sauce or style whose words no row names with the meat
(chicken alfredo, katsu, madras, bulgogi), drinks and sandwiches (chai latte, caramel
macchiato, tuna melt, turkey club), bakery words and the diet rows no table holds.
- ``first``: the first hit is the food a dietitian accepts (a pattern over names of any table);
  ``top3`` counts it in the first three.
- Every query gets an answer (no empty list where a table holds the food).
- Dangerous results, each a failure on its own: a diet query ("diet", "zero", "light", "sugar
  free", "no added sugar") with a sugared row first; a hypo treatment answered by a food that
  is not it (``HYPO``: the real food, or an entry asking for the pack's figure); a default
  portion more than 2x off one portion as eaten (``PORTIONS``, in grams).
Targets (issue 40): first >= 95 %, top 3 >= 99 %, no empty answer, nothing dangerous.
Runs on the whole shipped seed, SQLite (FTS5) and PostgreSQL.
"""

import re

import pytest
from db_support import full_db, full_db_url  # noqa: F401 (fixtures)

from db import search, service

# (region, query, the foods a dietitian accepts first: a pattern over names).
AUDIT = [
    # --- US: everyday foods and drinks
    ("US", "orange juice", r"^Orange juice"),
    ("US", "apple juice", r"^Apple juice"),
    ("US", "grape juice", r"^Grape juice"),
    ("US", "cranberry juice", r"^Cranberry juice"),
    ("US", "lemonade", r"^Lemonade"),
    ("US", "sweet tea", r"^Tea, .*(sweetened|presweetened)|^Beverages, tea.*sweetened|[Ii]ced tea.*sweetened"),
    ("US", "chocolate milk", r"^Milk, chocolate|[Cc]hocolate milk"),
    ("US", "whole milk", r"^Milk, whole"),
    ("US", "skim milk", r"^Milk, (nonfat|fat free|skim)"),
    ("US", "coffee with milk", r"^Coffee.*milk"),
    ("US", "popcorn", r"^Popcorn|^Snacks, popcorn"),
    ("US", "pretzels", r"(?i)pretzel"),
    ("US", "potato chips", r"^Potato chips|^Snacks, potato chips"),
    ("US", "tortilla chips", r"^Tortilla chips|^Snacks, tortilla chips"),
    ("US", "saltine crackers", r"^Crackers?, saltine|saltine"),
    ("US", "graham crackers", r"(?i)graham cracker"),
    ("US", "granola bar", r"(?i)granola bar"),
    ("US", "cheerios", r"CHEERIOS|Cheerios"),
    ("US", "oatmeal", r"^Oatmeal|^Cereals, oats.*cooked"),
    ("US", "grits", r"^Grits|^Cereals, corn grits.*cooked"),
    ("US", "biscuit", r"^Biscuits?(, plain|, NFS)?|^Biscuit, "),
    ("US", "cornbread", r"^Cornbread|^Bread, cornbread"),
    ("US", "dinner roll", r"^Rolls?, dinner|dinner roll"),
    ("US", "bagel", r"^Bagels?"),
    ("US", "muffin", r"^Muffins?"),
    ("US", "donut", r"^Doughnuts?|^Donut"),
    ("US", "pancakes", r"^Pancakes?"),
    ("US", "waffle", r"^Waffles?"),
    ("US", "french toast", r"^French toast"),
    ("US", "white rice", r"^Rice, white.*cooked|^Rice, white"),
    ("US", "brown rice", r"^Rice, brown.*cooked"),
    ("US", "spaghetti", r"^Spaghetti|^Pasta, .*cooked"),
    ("US", "mac and cheese", r"[Mm]acaroni (and|or) cheese"),
    ("US", "baked potato", r"^Potato(es)?, baked"),
    ("US", "mashed potatoes", r"^Potato(es)?, mashed|[Mm]ashed potato"),
    ("US", "french fries", r"^French fries|^Potato, french fries|^Potatoes, french fried"),
    ("US", "sweet potato", r"^Sweet potato"),
    ("US", "corn on the cob", r"^Corn, .*(on the cob|cooked)|^Corn, sweet|^Sweet corn, cooked"),
    ("US", "banana", r"^Banana"),
    ("US", "apple", r"^Apples?, raw"),
    ("US", "grapes", r"^Grapes"),
    ("US", "watermelon", r"^Watermelon"),
    ("US", "peanut butter and jelly sandwich", r"[Pp]eanut butter and jelly sandwich"),
    ("US", "cheeseburger", r"^Cheeseburger"),
    ("US", "hamburger", r"^Hamburger"),
    ("US", "hot dog", r"^Hot dog|[Ff]rankfurter"),
    ("US", "pepperoni pizza", r"[Pp]izza.*pepperoni"),
    ("US", "chicken nuggets", r"^Chicken nuggets|[Cc]hicken nuggets"),
    ("US", "burrito", r"^Burrito"),
    ("US", "taco", r"^Tacos?"),
    ("US", "chili", r"^Chili"),
    ("US", "lasagna", r"^Lasagna"),
    ("US", "ice cream", r"(?i)^(vanilla )?ice cream"),
    ("US", "apple pie", r"^Apple pie|^Pie, apple"),
    ("US", "chocolate chip cookie", r"^Cookie, chocolate chip|chocolate chip"),
    # Second round (rules written before these queries were run): a flapjack is a pancake in
    # the US, a graham cracker is in two tables, lager is beer.
    ("US", "flapjacks", r"^Pancakes"),
    ("US", "graham crackers", r"^Graham crackers|graham crackers"),
    ("UK", "lager", r"(?i)lager|beer"),
    ("UK", "satsuma", r"(?i)^tangerine|mandarin|clementine|satsuma"),
    # --- UK
    ("UK", "orange squash", r"squash, (diluted|ready to drink)"),
    ("UK", "blackcurrant squash", r"^Blackcurrant juice drink/squash, diluted"),
    ("UK", "no added sugar squash", r"squash, no sugar added, diluted"),
    ("UK", "shepherd's pie", r"[Ss]hepherd's pie|Cottage/Shepherd's"),
    ("UK", "cottage pie", r"(?i)cottage"),
    ("UK", "hot cross bun", r"^Hot cross buns?"),
    ("UK", "baked beans", r"^Baked beans, canned in tomato sauce$|^Baked beans"),
    ("UK", "mushy peas", r"^Peas, mushy"),
    ("UK", "chicken tikka masala", r"tikka masala"),
    ("UK", "digestives", r"^Biscuits, digestive"),
    ("UK", "rich tea", r"^Biscuits, semi-sweet"),
    ("UK", "jaffa cakes", r"^Jaffa cakes"),
    ("UK", "crumpets", r"^Crumpets"),
    ("UK", "scone", r"^Scones"),
    ("UK", "yorkshire pudding", r"^Yorkshire pudding"),
    ("UK", "sausage roll", r"^Sausage roll"),
    ("UK", "cornish pasty", r"^Cornish pasty"),
    ("UK", "mince pie", r"^Mince pies"),
    ("UK", "fish fingers", r"^Fish fingers|fish sticks"),
    ("UK", "jacket potato", r"^Potatoes?, (baked|old, baked)"),
    ("UK", "chips", r"^Potato chips|^French fries|french fried"),
    ("UK", "crisps", r"^Crisps|[Pp]otato crisps|potato chips"),
    ("UK", "porridge", r"^Porridge|^Cereals, oats.*cooked"),
    ("UK", "weetabix", r"[Ww]heat biscuits|[Ww]eetabix|WEETABIX"),
    ("UK", "custard", r"^Custard"),
    ("UK", "trifle", r"^Trifle"),
    ("UK", "treacle sponge", r"[Ss]ponge pudding|treacle"),
    ("UK", "flapjack", r"^Flapjacks"),
    ("UK", "bread and butter pudding", r"(?i)bread and butter"),
    ("UK", "lucozade", r"^Lucozade"),
    ("UK", "semi skimmed milk", r"^Milk, semi-skimmed|^Milk, reduced fat"),
    ("UK", "cup of tea with milk", r"^Tea.*milk"),
    ("UK", "beans on toast", r"[Bb]aked beans|[Bb]eans on toast"),
    ("UK", "doner kebab", r"^Doner kebab"),
    # --- Germany (German words)
    ("DE", "Apfelschorle", r"Schorle"),
    ("DE", "Spätzle", r"(?i)sp(ä|ae)tzle|sp(ä|ae)tzli|egg noodles|Noodles, egg"),
    ("DE", "Bratkartoffeln", r"(?i)home fries|Bratkartoffeln|Kartoffeln?, gebraten|fried potato"),
    ("DE", "Schwarzbrot", r"(?i)pumpernickel|Roggenbrot|Schwarzbrot|rye"),
    ("DE", "Kartoffelpuffer", r"(?i)potato pancake|Kartoffelpuffer|Rösti"),
    ("DE", "Leberkäse", r"^Fleischkäse$"),
    ("DE", "Döner", r"(?i)doner|Döner|Kebab"),
    ("DE", "Traubenzucker", r"^Traubenzucker$"),
    ("DE", "Gummibärchen", r"^Gummibonbon"),
    ("DE", "Kartoffelsalat", r"^Kartoffelsalat"),
    ("DE", "Apfelsaft", r"^Apfelsaft$|^Apple juice"),
    ("DE", "Orangensaft", r"^Orangensaft|^Orange juice"),
    ("DE", "Rösti", r"^Rösti"),
    ("DE", "Bratwurst", r"^Bratwurst|[Bb]ratwurst"),
    ("DE", "Brezel", r"(?i)brezel|pretzel|Laugen"),
    ("DE", "Laugenbrötchen", r"^Laugenbrötli|^Laugen"),
    ("DE", "Vollkornbrot", r"(?i)vollkornbrot|whole-wheat|whole wheat"),
    ("DE", "Knäckebrot", r"^Knäckebrot"),
    ("DE", "Müsli", r"(?i)m(ü|ue)esli|Müsli|muesli|ALPEN|FAMILIA"),
    ("DE", "Birchermüesli", r"^Birchermüesli"),
    ("DE", "Milchreis", r"(?i)Milchreis|rice pudding"),
    ("DE", "Kartoffelstock", r"^Kartoffelstock"),
    ("DE", "Salzkartoffeln", r"(?i)Kartoffel.*(gekocht|gedämpft)|Potato(es)?, boiled"),
    ("DE", "Nudeln", r"(?i)Teigwaren.*gekocht|^Pasta, .*cooked|Nudeln"),
    ("DE", "Reis", r"(?i)^Reis.*gekocht|^Rice, white.*cooked"),
    ("DE", "Vollmilch", r"(?i)^Vollmilch|Milch, Voll|^Milk, whole"),
    ("DE", "Joghurt nature", r"^Joghurt, nature"),
    ("DE", "Apfelkuchen", r"^Apfelkuchen|^Apple pie|^Pie, apple"),
    ("DE", "Berliner", r"(?i)Berliner|doughnut"),
    ("DE", "Cola light", r"(?i)cola.*(light|diet|low calorie)"),
    ("DE", "Eistee", r"^Eistee"),
    ("DE", "Banane", r"^Banane|^Banana"),
    ("DE", "Apfel", r"^Apfel, roh|^Apples?, raw"),
    ("DE", "Fischstäbchen", r"^Fischstäbchen|fish sticks|Fish fingers"),
    ("DE", "Pommes frites", r"(?i)Pommes|french fries|french fried"),
    # --- mixed dishes, any region
    ("US", "chicken pot pie", r"^Chicken pot pie|[Cc]hicken pot pie"),
    ("US", "beef stew", r"(?i)beef stew|^Stew, beef"),
    ("US", "chicken fried rice", r"(?i)fried rice.*chicken|^Rice, fried, with chicken|chicken fried rice"),
    ("US", "tuna salad sandwich", r"[Tt]una salad sandwich"),
    ("US", "meatloaf", r"^Meat ?loaf"),
    ("UK", "fish and chips", r"^Fish and chips"),
    ("UK", "cheese and tomato pizza", r"^Pizza, cheese and tomato"),
    ("UK", "spaghetti bolognese", r"[Ss]paghetti bolognese|Bolognese"),
    ("UK", "chilli con carne", r"^Chilli con carne"),
    ("UK", "lasagne", r"^Lasagn"),
    # --- misspellings and plurals
    ("US", "spagetti", r"^Spaghetti|^Pasta, .*cooked"),
    ("US", "bananna", r"^Banana"),
    ("US", "brocoli", r"^Broccoli"),
    ("US", "chiken nuggets", r"[Cc]hicken nuggets"),
    ("US", "sandwhich", r"[Ss]andwich"),
    ("US", "cheeseburgers", r"^Cheeseburger"),
    ("US", "strawberrys", r"^Strawberries"),
    ("US", "tomatos", r"^Tomato(es)?, "),
    ("UK", "yoghurts", r"^Yogh?urt"),
    ("UK", "crumpet", r"^Crumpets"),
    ("UK", "sausage rolls", r"^Sausage roll"),
    ("UK", "digestive biscits", r"^Biscuits, digestive"),
    ("DE", "Kartofelsalat", r"^Kartoffelsalat"),
    ("DE", "Gummibaerchen", r"^Gummibonbon"),
    ("DE", "Brötchen", r"(?i)Brötchen|Brötli|^Rolls?, .*hard|Bread rolls"),
    # Third round: about 300 more everyday US, UK and German queries (issue 40's follow-up),
    # each rule written before the fixes; those no table holds are in NO_TABLE_HOLDS.
    ("US", "fried chicken", r"(?i)^(fried chicken|chicken(?! fried steak)\b.*\bfried)"),
    ("US", "chicken noodle soup", r"(?i)chicken noodle soup|^Soup, chicken noodle"),
    ("US", "clam chowder", r"(?i)clam chowder"),
    ("US", "pot roast", r"(?i)^(beef,? )?pot roast|^Beef.*pot roast"),
    ("US", "grilled cheese sandwich", r"(?i)grilled cheese"),
    ("US", "blt", r"(?i)\bBLT\b|B\.L\.T|bacon, lettuce,? and tomato"),
    ("US", "club sandwich", r"(?i)^club sandwich"),
    ("US", "caesar salad", r"(?i)^caesar salad"),
    ("US", "coleslaw", r"(?i)^coleslaw"),
    ("US", "potato salad", r"(?i)^potato salad"),
    ("US", "pumpkin pie", r"(?i)^pumpkin pie|^Pie, pumpkin"),
    ("US", "cheesecake", r"(?i)^cheesecake"),
    ("US", "brownie", r"(?i)^(cookie, )?brownies?"),
    ("US", "frozen yogurt", r"(?i)^frozen yogh?urt"),
    ("US", "yogurt", r"(?i)^yogh?urt(?!.*(frozen|tofu))"),
    ("US", "greek yogurt", r"(?i)^yogurt, greek(, plain|, nfs|$)|^greek yogh?urt"),
    ("US", "cottage cheese", r"(?i)cottage cheese|^Cheese, cottage"),
    ("US", "scrambled eggs", r"(?i)^(eggs?,? (whole, cooked, )?scrambled|scrambled eggs?)(?!.*frozen)"),
    ("US", "bacon", r"(?i)^(pork, cured, )?bacon\b(?!.*(meatless|turkey|canadian|bits))"),
    ("US", "sausage", r"(?i)^sausages?\b|^pork sausage"),
    ("US", "hash browns", r"(?i)hash brown"),
    ("US", "english muffin", r"(?i)english muffin|^Muffin, English"),
    ("US", "cinnamon roll", r"(?i)cinnamon (roll|bun)|^Sweet rolls, cinnamon"),
    ("US", "croissant", r"(?i)^croissants?$|^Croissants?, (plain|NFS|butter)"),
    ("US", "honey", r"(?i)^honey\b(?! roll)"),
    ("US", "maple syrup", r"(?i)^syrups?, maple|^maple syrup"),
    ("US", "regular soda", r"(?i)^(Beverages, carbonated|Soft drink|Cola|Soda)(?!.*(diet|low calorie|sugar.free))"),
    ("US", "coke", r"(?i)cola(?!.*(diet|low calorie|zero))"),
    ("US", "diet coke", r"(?i)cola.*(diet|low calorie|zero)|diet cola"),
    ("US", "sprite", r"(?i)sprite|lemon-lime(?!.*diet)"),
    ("US", "gatorade", r"(?i)gatorade"),
    ("US", "orange soda", r"(?i)orange.*(soda|carbonated|soft drink)|(soda|carbonated|soft drink).*orange"),
    ("US", "beer", r"(?i)^beer(,? (regular|NFS)|$)|^Alcoholic beverage, beer, regular"),
    ("US", "light beer", r"(?i)beer.*light|light beer"),
    ("US", "red wine", r"(?i)^(red wine|wine, red|Alcoholic beverage, wine, table, red)"),
    ("US", "apple sauce", r"(?i)^apple ?sauce"),
    ("US", "strawberries", r"(?i)^strawberr(y|ies)(,? raw|$)"),
    ("US", "blueberries", r"^Blueberries, raw"),
    ("US", "orange", r"(?i)^oranges?(,? raw|$)"),
    ("US", "pear", r"(?i)^pears?(,? raw|$)"),
    ("US", "peach", r"(?i)^peach(es)?(,? raw|$)"),
    ("US", "cantaloupe", r"(?i)^cantaloupe, raw|^Melons, cantaloupe, raw"),
    ("US", "pineapple", r"(?i)^pineapple(,? raw|$)"),
    ("US", "raisins", r"(?i)^raisins"),
    ("US", "trail mix", r"(?i)^trail mix,|^Snacks, trail mix"),
    ("US", "almonds", r"(?i)^almonds?(,|$)(?!.*(honey|chocolate|paste|milk|butter|flour))"),
    ("US", "peanuts", r"(?i)^peanuts?(,? (roasted|dry-roasted|dry roasted|nfs|all types|salted|unsalted|oil-roasted)|$)"),
    ("US", "sushi", r"(?i)^sushi"),
    ("US", "california roll", r"(?i)california"),
    ("US", "fried rice", r"(?i)^fried rice|^Rice, fried"),
    ("US", "lo mein", r"(?i)^lo mein"),
    ("US", "orange chicken", r"(?i)orange chicken"),
    ("US", "pad thai", r"(?i)pad thai"),
    ("US", "pho", r"(?i)^pho\b|^Soup, pho"),
    ("US", "ramen", r"(?i)ramen"),
    ("US", "dumplings", r"(?i)^dumplings?"),
    ("US", "egg roll", r"(?i)egg rolls?\b(?!.*bread)|^Spring rolls"),
    ("US", "spring roll", r"(?i)spring rolls?"),
    ("US", "chicken curry", r"(?i)chicken curry|^Curry, chicken"),
    ("US", "butter chicken", r"(?i)butter chicken|makhani|tikka masala|^chicken curry|^Curry, chicken"),
    ("US", "naan", r"(?i)naan"),
    ("US", "hummus", r"(?i)^hummus"),
    ("US", "falafel", r"(?i)^falafel"),
    ("US", "gyro", r"(?i)gyro"),
    ("US", "quesadilla", r"(?i)quesadilla"),
    ("US", "nachos", r"(?i)^nachos"),
    ("US", "enchilada", r"(?i)^enchilada"),
    ("US", "tamale", r"(?i)^tamale"),
    ("US", "guacamole", r"(?i)^guacamole"),
    ("US", "salsa", r"(?i)^salsa"),
    ("US", "refried beans", r"(?i)refried beans"),
    ("US", "black beans", r"(?i)^black beans|^Beans, black"),
    ("US", "chicken wings", r"(?i)chicken wings?"),
    ("US", "steak", r"(?i)^steak(,|$)|^Beef,.*steak"),
    ("US", "pork chop", r"(?i)^pork,? chops?|^Pork chop"),
    ("US", "salmon", r"(?i)^(grilled |baked )?salmon(,|$)|^Fish, salmon"),
    ("US", "shrimp", r"(?i)^shrimp(,|$)|^Crustaceans, shrimp"),
    ("US", "fish sticks", r"(?i)fish,? sticks?|fish fingers"),
    ("US", "crab cakes", r"(?i)crab cake(?! sandwich)"),
    ("US", "lobster", r"(?i)^lobster(,|$)|^Crustaceans, lobster"),
    ("US", "oysters", r"(?i)^oysters?(,|$)|^Mollusks, oyster"),
    ("US", "tofu", r"(?i)^tofu(?!.*(fried|yogh?urt|dessert|frozen|deep))|^Soybean curd$"),
    ("US", "edamame", r"(?i)edamame"),
    ("US", "quinoa", r"(?i)^quinoa"),
    ("US", "couscous", r"(?i)^couscous"),
    ("US", "smoothie", r"(?i)^(fruit )?smoothie(,|$)"),
    ("US", "protein shake", r"(?i)(protein|nutritional).*(shake|drink)|shake.*protein"),
    ("US", "energy drink", r"(?i)energy drink(?!.*(sugar free|diet|low calorie))"),
    ("US", "skittles", r"(?i)skittles"),
    ("US", "jelly beans", r"(?i)jelly ?beans"),
    ("US", "candy bar", r"(?i)^(candies|candy|chocolate)\b.*\bbar\b|^candy bar|^Candies, milk chocolate$"),
    ("US", "milk chocolate", r"(?i)^(candies, )?milk chocolate(?! milk)|^Milk chocolate candy"),
    ("US", "pancake syrup", r"(?i)^pancake syrup(?!.*(light|reduced))|^Syrups, table blends, pancake(?!.*(reduced|light))"),
    ("US", "sugar free syrup", r"(?i)syrup.*(sugar free|sugar-free|light|reduced|diet|low calorie)"),
    ("US", "zero sugar soda", r"(?i)(soda|soft drink|carbonated|cola).*(diet|low calorie|sugar.free|zero)|diet (cola|soda)"),
    ("US", "sugar free jello", r"(?i)gelatin.*(sugar free|reduced calorie|low calorie|aspartame)"),
    ("US", "jello", r"(?i)^gelatin desserts?(?!.*(sugar free|reduced|dry))"),
    ("US", "pudding", r"(?i)^puddings?,? (nfs|vanilla|chocolate|ready-to-eat|flavors other than chocolate)(?!.*(dry|mix))"),
    ("US", "rice krispies treat", r"(?i)rice krispies treat|marshmallow.*(cereal|rice).*(bar|treat)"),
    ("US", "corn flakes", r"(?i)corn ?flakes(?!, flavored)"),
    ("US", "frosted flakes", r"(?i)frosted flakes(?!.*(reduced|choco))"),
    ("US", "raisin bran", r"(?i)raisin bran"),
    ("US", "granola", r"(?i)^(cereal, granola|granola(,|$)|Cereals ready-to-eat, granola)"),
    ("US", "mac n cheese", r"(?i)macaroni (and|or|n'?) cheese"),
    ("UK", "bacon sandwich", r"(?i)^(bacon sandwich|bacon butty|sandwich, .*bacon)"),
    ("UK", "scotch egg", r"(?i)^scotch eggs?"),
    ("UK", "pork pie", r"(?i)^pork pie"),
    ("UK", "toad in the hole", r"(?i)^toad in the hole"),
    ("UK", "roast potatoes", r"(?i)^potato(es)?,.*roast|^roast potato"),
    ("UK", "bangers and mash", r"(?i)(bangers|sausages?) and mash"),
    ("UK", "chicken korma", r"(?i)korma"),
    ("UK", "lamb rogan josh", r"(?i)rogan josh"),
    ("UK", "onion bhaji", r"(?i)onion bhaji|^Bhaji, onion|bhajia, onion"),
    ("UK", "poppadom", r"(?i)pop+ad(u|o)m|papad"),
    ("UK", "pilau rice", r"(?i)^rice, pilau|pilau rice|pilaf"),
    ("UK", "cheese and pickle sandwich", r"(?i)cheese and pickle"),
    ("UK", "malt loaf", r"(?i)malt loaf|^Bread, malt|malt bread"),
    ("UK", "custard creams", r"(?i)custard cream|^Biscuits, cream filled|sandwich biscuit|^Biscuits, sandwich, cream"),
    ("UK", "hobnobs", r"(?i)digestive, with oats|hobnob|oat biscuit"),
    ("UK", "shortbread", r"(?i)^shortbread"),
    ("UK", "victoria sponge", r"(?i)victoria sponge|sponge cake|^Cake, sponge"),
    ("UK", "rice pudding", r"(?i)rice pudding|^Pudding, rice"),
    ("UK", "christmas pudding", r"(?i)christmas pudding|^Pudding, Christmas"),
    ("UK", "shreddies", r"(?i)shreddies|malted wheat"),
    ("UK", "cornflakes", r"(?i)corn ?flakes"),
    ("UK", "granola", r"(?i)granola(?!.*(bar|cookie))"),
    ("UK", "ribena", r"(?i)ribena|^blackcurrant juice drink"),
    ("UK", "pint of lager", r"(?i)lager|\bbeer\b"),
    ("UK", "cider", r"(?i)^cider"),
    ("UK", "semi-skimmed milk", r"^Milk, semi-skimmed|^Milk, reduced fat"),
    ("UK", "cheddar", r"(?i)cheddar"),
    ("UK", "brown bread", r"(?i)^bread, brown(?!, toasted)|^brown bread"),
    ("UK", "wholemeal bread", r"(?i)^bread, (wholemeal|whole.?wheat)"),
    ("UK", "baked beans on toast", r"(?i)beans on toast"),
    ("UK", "fruit pastilles", r"(?i)fruit pastilles"),
    ("UK", "wine gums", r"(?i)wine gum|fruit gum|gum ?drops|gummy|^Sweets, .*gum|jelly (sweets|babies)|fruit pastilles"),
    ("UK", "mars bar", r"(?i)^mars bar"),
    ("UK", "kitkat", r"(?i)kit ?kat"),
    ("UK", "dairy milk", r"(?i)^chocolate, milk|milk chocolate"),
    ("UK", "digestive biscuit", r"^Biscuits, digestive, plain"),
    ("UK", "clementine", r"(?i)^clementines?"),
    ("UK", "courgette", r"(?i)courgette|zucchini"),
    ("UK", "aubergine", r"(?i)aubergine|eggplant"),
    ("UK", "swede", r"(?i)swede|rutabaga"),
    ("UK", "parsnips", r"(?i)^parsnips?"),
    ("UK", "gravy", r"(?i)^gravy(,|$)(?!.*granules)|^Gravy instant granules, made up"),
    ("UK", "sweet and sour chicken", r"(?i)sweet and sour chicken"),
    ("UK", "egg fried rice", r"(?i)egg fried rice|^rice, egg fried|fried rice"),
    ("UK", "chips and curry sauce", r"(?i)chips.*curry sauce|curry sauce.*chips"),
    ("UK", "sausage and mash", r"(?i)(bangers|sausages?) and mash"),
    ("UK", "shepherds pie", r"(?i)shepherd'?s"),
    ("UK", "jam doughnut", r"(?i)doughnuts?, (with )?jam|jam doughnut"),
    ("DE", "Laugenbrezel", r"(?i)laugen|brezel|pretzel"),
    ("DE", "Roggenbrot", r"(?i)roggen|rye"),
    ("DE", "Pumpernickel", r"(?i)^(bread, )?pumpernickel"),
    ("DE", "Haferflocken", r"(?i)haferflocken|oats|oatmeal"),
    ("DE", "Quark", r"(?i)quark"),
    ("DE", "Joghurt", r"(?i)^(joghurt|yogh?urt)(, nature|, plain|, nfs|$)"),
    ("DE", "Cola Zero", r"(?i)cola.*(light|diet|zero|low calorie)"),
    ("DE", "Bier", r"(?i)^(bier|beer)\b(?!.*(light|nonalcoholic|alkoholfrei|panach|radler))"),
    ("DE", "alkoholfreies Bier", r"(?i)(beer|bier).*(nonalcoholic|non-alcoholic|alkoholfrei|low alcohol|alcohol-free)|alkoholfrei.*bier"),
    ("DE", "Radler", r"(?i)radler|panach|shandy"),
    ("DE", "Weißwein", r"(?i)wein,? weiss|weisswein|white wine|wine, white"),
    ("DE", "Currywurst", r"(?i)currywurst|^bratwurst|sausage.*curry"),
    ("DE", "Currywurst mit Pommes", r"(?i)currywurst.*(pommes|fries|chips)"),
    ("DE", "Pommes", r"(?i)Pommes|french fries|french fried"),
    ("DE", "Schnitzel", r"(?i)^wiener schnitzel|^schnitzel|schnitzel.*paniert|(veal|pork).*(breaded|cutlet)"),
    ("DE", "Wiener Schnitzel", r"(?i)wiener schnitzel|^Kalb.*paniert|veal.*breaded"),
    ("DE", "Frikadelle", r"(?i)frikadell|hackt(ä|a)tschli|hackpl(ä|a)tzli|fleischk(ü|u)chle|bulette|meatball|meat patty"),
    ("DE", "Sauerkraut", r"(?i)^sauerkraut"),
    ("DE", "Rotkohl", r"(?i)(rotkohl|rotkraut|red cabbage|cabbage, red).*(gedünstet|gekocht|cooked|braised)"),
    ("DE", "Käsespätzle", r"(?i)k(ä|ae)se-?sp(ä|ae)tzl|noodles with cheese|sp(ä|ae)tzl.*k(ä|ae)se"),
    ("DE", "Maultaschen", r"(?i)maultasche|ravioli"),
    ("DE", "Kartoffelpüree", r"(?i)kartoffelp(ü|ue)ree|kartoffelstock|mashed potato|potato(es)?, mashed"),
    ("DE", "Linsensuppe", r"(?i)linsensuppe|lentil soup|soup, lentil"),
    ("DE", "Erbsensuppe", r"(?i)erbsensuppe|pea soup|soup, (split )?pea"),
    ("DE", "Gulasch", r"(?i)^gulasch(?!suppe)|goulash|ragout|beef stew|^Stew, beef"),
    ("DE", "Sauerbraten", r"(?i)sauerbraten|pot roast|rind.*braten|braten.*rind"),
    ("DE", "Weißwurst", r"(?i)wei(ss|ß)wurst"),
    ("DE", "Schwarzwälder Kirschtorte", r"(?i)schwarzw|black forest"),
    ("DE", "Apfelstrudel", r"(?i)apfelstrudel|strudel, apple|apple strudel"),
    ("DE", "Käsekuchen", r"(?i)k(ä|ae)sekuchen|cheesecake"),
    ("DE", "Krapfen", r"(?i)krapfen|^berliner|doughnut.*(jam|jelly|filled)|jelly doughnut"),
    ("DE", "Lebkuchen", r"(?i)lebkuchen"),
    ("DE", "Nutella", r"(?i)^nutella$|hazelnut.*(spread|cream)|haselnuss.*(creme|aufstrich)|nuss-nougat"),
    ("DE", "Marmelade", r"(?i)konfit(ü|ue)re|marmelade|jam|^Jams and preserves"),
    ("DE", "Honig", r"(?i)^(honig|honey)"),
    ("DE", "Birne", r"(?i)^birne, roh|^pears?, raw|^Birne$"),
    ("DE", "Trauben", r"(?i)^(trauben|weintrauben|grapes?)\b(?!.*(juice|saft))"),
    ("DE", "Erdbeeren", r"(?i)^(erdbeere|strawberr)(?!.*(canned|frozen|jam))"),
    ("DE", "Mandarine", r"(?i)^mandarin|tangerine|clementine"),
    ("DE", "Haribo", r"(?i)gummibonbon|gummy|gummi|fruchtgummi"),
    ("DE", "Fruchtgummi", r"(?i)gummibonbon|gummy|gummi|fruchtgummi"),
    ("DE", "Schokolade", r"(?i)^(milch)?schokolade(?!, weiss)|milk chocolate|^Chocolate, (milk|plain)"),
    ("DE", "Milchschokolade", r"(?i)^Milchschokolade(?! mit)|milk chocolate|^Chocolate, milk"),
    ("DE", "Zwieback", r"(?i)zwieback"),
    ("DE", "Dürüm", r"(?i)d(ü|u)r(ü|u)m.*(kebab|d(ö|o)ner)|d(ö|o)ner kebab"),
    ("DE", "Pizza Margherita", r"(?i)pizza margherita|pizza, cheese and tomato|cheese pizza"),
    ("DE", "Flammkuchen", r"(?i)flamm(en)?kuchen"),
    ("DE", "Bircher Müesli", r"(?i)bircher"),
    ("DE", "Zopf", r"(?i)zopf|challah|egg bread|^Bread, egg"),
    ("DE", "Gipfeli", r"(?i)gipfeli|croissant"),
    ("DE", "Cervelat", r"(?i)cervelat"),
    ("DE", "Älplermagronen", r"(?i)älplermagronen"),
    ("DE", "Griesbrei", r"(?i)gr(ie|ei)ss?brei|semolina pudding"),
    ("DE", "Pfannkuchen", r"(?i)^(pfannkuchen|pancakes?)(,|$)|eierpfannkuchen|mehlomelette|crêpe"),
    ("DE", "Eierpfannkuchen", r"(?i)pfannkuchen|^pancakes?(,|$)|mehlomelette|crêpe"),
    ("DE", "Matjes", r"(?i)matjes|herring|hering"),
    ("DE", "Spargel", r"(?i)spargel(?!, roh)|asparagus(?!, raw)"),
    ("DE", "Rührei", r"(?i)^rührei|scrambled"),
    ("DE", "Spiegelei", r"(?i)spiegelei|egg.*fried|fried egg|Ei, gebraten"),
    ("DE", "fettarme Milch", r"(?i)teilentrahmt|fettarm|reduced fat|semi-skimmed|low ?fat milk|milk, lowfat"),
    ("DE", "Kakao", r"(?i)kakao(?!pulver)|hot chocolate|cocoa.*(milk|beverage|prepared)|chocolate milk|schokoladenmilch|schoko.*drink|trinkschokolade"),
    ("DE", "Saftschorle", r"(?i)schorle"),
    ("DE", "Rouladen", r"(?i)rinds?roulade|fleischvogel|^Rouladen|beef.*roll|beef olives"),
    # Fourth round: 330 more US, UK and German queries, each rule written before the fixes
    # (widened after the first run as the docstring says); those no table holds are in
    # NO_TABLE_HOLDS, the diet ones in DIET too, the hypo treatments in HYPO alone.
    ("US", "biscuits and gravy", r"(?i)biscuits? (and|with) gravy"),
    ("US", "chicken fried steak", r"(?i)chicken.fried steak|country.fried steak|steak, (chicken|country).fried"),
    ("US", "jambalaya", r"(?i)jambalaya"),
    ("US", "gumbo", r"(?i)gumbo"),
    ("US", "red beans and rice", r"(?i)(red )?beans and rice|rice and (red )?(kidney )?beans"),
    ("US", "collard greens", r"(?i)collards?( greens)?,? .*cooked|^collard greens(, nfs)?$"),
    ("US", "hush puppies", r"(?i)hush ?pupp"),
    ("US", "shrimp and grits", r"(?i)shrimp and grits|grits.*shrimp"),
    ("US", "sloppy joe", r"(?i)sloppy joe"),
    ("US", "philly cheesesteak", r"(?i)cheese ?steak"),
    ("US", "buffalo wings", r"(?i)(chicken )?wings?\b.*(buffalo|hot|spicy|sauce)|buffalo.*wings?|^chicken wings?"),
    ("US", "corn dog", r"(?i)corn ?dog"),
    ("US", "pulled pork sandwich", r"(?i)pulled pork.*(sandwich|bun)|(sandwich|bun).*pulled pork|(pork|bbq|barbecue).*(sandwich|bun).*(barbecue|bbq|pork)|barbecue sandwich.*pork"),
    ("US", "bbq ribs", r"(?i)\b(spare)?ribs?\b(?!.*raw)"),
    ("US", "brisket", r"(?i)brisket(?!.*raw)"),
    ("US", "pork and beans", r"(?i)pork and beans|baked beans"),
    ("US", "deviled eggs", r"(?i)devil+ed eggs?|eggs?,? deviled"),
    ("US", "green bean casserole", r"(?i)green bean casserole|green beans.*(casserole|mushroom soup)"),
    ("US", "sweet potato casserole", r"(?i)sweet potato.*(casserole|candied|marshmallow)"),
    ("US", "stuffing", r"(?i)^(bread )?stuffing|^dressing"),
    ("US", "cranberry sauce", r"(?i)cranberry sauce"),
    ("US", "pecan pie", r"(?i)pecan pie|^pie, pecan"),
    ("US", "key lime pie", r"(?i)key lime|^pie, lime|lime pie"),
    ("US", "banana bread", r"(?i)banana bread|^bread, banana"),
    ("US", "blueberry muffin", r"(?i)muffins?, blueberry|blueberry muffin"),
    ("US", "glazed donut", r"(?i)doughnuts?,.*glazed|glazed (doughnut|donut)"),
    ("US", "bear claw", r"(?i)bear claw|danish"),
    ("US", "funnel cake", r"(?i)funnel cake"),
    ("US", "smores", r"(?i)s'?mores?"),
    ("US", "twinkie", r"(?i)twinkie|snack cakes?.*cre(a)?me|sponge.*cre(a)?me.?fill|cake.*cre(a)?me.?fill"),
    ("US", "pop tart", r"(?i)pop.?tart|toaster pastr"),
    ("US", "cheez its", r"(?i)cheez|cheese crackers?|crackers?, cheese"),
    ("US", "goldfish crackers", r"(?i)goldfish|cheese crackers?|crackers?, cheese"),
    ("US", "oreo", r"(?i)oreo|chocolate sandwich cookie|cookies?, chocolate sandwich"),
    ("US", "animal crackers", r"(?i)animal crackers?|animals, crackers"),
    ("US", "beef jerky", r"(?i)jerky"),
    ("US", "string cheese", r"(?i)string cheese|mozzarella"),
    ("US", "cheese puffs", r"(?i)cheese puffs|cheese.flavou?red? (puffs|corn snacks)|cheetos|puffs?.*cheese|corn.*puff"),
    ("US", "kettle corn", r"(?i)kettle corn|popcorn"),
    ("US", "sweet potato fries", r"(?i)sweet potato.*fr(ies|ied)"),
    ("US", "onion rings", r"(?i)onion rings"),
    ("US", "mozzarella sticks", r"(?i)mozzarella sticks|cheese sticks?.*(fried|breaded)|fried cheese"),
    ("US", "chicken tenders", r"(?i)chicken (tenders|strips|fingers)|chicken.*tenders"),
    ("US", "chicken sandwich", r"(?i)chicken (fillet |patty |breast )?sandwich|sandwich.*chicken"),
    ("US", "fish sandwich", r"(?i)fish sandwich|sandwich.*fish"),
    ("US", "breakfast burrito", r"(?i)breakfast burrito|burrito.*egg"),
    ("US", "egg mcmuffin", r"(?i)english muffin.*egg|egg.*english muffin|mcmuffin"),
    ("US", "sausage biscuit", r"(?i)biscuit.*sausage|sausage biscuit"),
    ("US", "cobb salad", r"(?i)cobb salad"),
    ("US", "taco salad", r"(?i)taco (or tostada )?salad"),
    ("US", "chicken wrap", r"(?i)wrap.*chicken|chicken.*wrap"),
    ("US", "burrito bowl", r"(?i)burrito bowl"),
    ("US", "pozole", r"(?i)pozole|posole"),
    ("US", "carnitas", r"(?i)carnitas"),
    ("US", "chile relleno", r"(?i)chiles? rellenos?"),
    ("US", "tostada", r"(?i)tostada"),
    ("US", "churros", r"(?i)churro"),
    ("US", "elote", r"(?i)elote|corn on the cob|^corn,.*cob|mexican street corn|^sweet ?corn, cooked"),
    ("US", "arroz con pollo", r"(?i)arroz con pollo|chicken.*rice|rice.*chicken"),
    ("US", "empanada", r"(?i)empanada|turnover"),
    ("US", "kung pao chicken", r"(?i)kung pao"),
    ("US", "general tso's chicken", r"(?i)general tso"),
    ("US", "beef and broccoli", r"(?i)beef.*broccoli"),
    ("US", "teriyaki chicken", r"(?i)teriyaki"),
    ("US", "bibimbap", r"(?i)bibimbap"),
    ("US", "chana masala", r"(?i)chana|chick ?pea.*curry|curry.*chick ?pea"),
    ("US", "samosa", r"(?i)samosa"),
    ("US", "biryani", r"(?i)biryani"),
    ("US", "pierogi", r"(?i)pierog|pirog"),
    ("US", "lox", r"(?i)lox|smoked salmon|salmon.*smoked"),
    ("US", "matzo ball soup", r"(?i)matzo|matzah"),
    ("US", "fruit cup", r"(?i)fruit cocktail|fruit cup|mixed fruit|fruit salad"),
    ("US", "cheese pizza", r"(?i)^pizza, cheese|cheese pizza|pizza,? cheese(?!.*(meat|pepperoni|sausage))"),
    ("US", "meatball sub", r"(?i)meatball.*(sub|sandwich|hoagie)|(sub|sandwich|hoagie).*meatball"),
    ("US", "italian sub", r"(?i)(submarine|sub|hoagie).*(cold cut|italian|salami|ham)|italian (sub|sandwich)|cold cut sub"),
    ("US", "turkey sandwich", r"(?i)turkey sandwich|sandwich.*turkey"),
    ("US", "ham and cheese sandwich", r"(?i)ham and cheese sandwich|sandwich.*ham.*cheese|ham sandwich.*cheese"),
    ("US", "egg salad sandwich", r"(?i)egg salad sandwich"),
    ("US", "chicken salad", r"(?i)^chicken (or turkey )?salad"),
    ("US", "fettuccine alfredo", r"(?i)alfredo"),
    ("US", "chicken parmesan", r"(?i)chicken parm"),
    ("US", "garlic bread", r"(?i)garlic bread|bread.*garlic"),
    ("US", "breadsticks", r"(?i)bread ?sticks?"),
    ("US", "minestrone", r"(?i)minestrone"),
    ("US", "tomato soup", r"(?i)tomato soup|soup, tomato"),
    ("US", "split pea soup", r"(?i)split pea|pea soup|soup, pea"),
    ("US", "iced coffee", r"(?i)iced coffee|coffee.*iced"),
    ("US", "frappuccino", r"(?i)frappuccino|coffee.*(blended|frozen|frappe)|frozen coffee|frappe"),
    ("US", "latte", r"(?i)latte|coffee.*milk"),
    ("US", "hot chocolate", r"(?i)hot chocolate|hot cocoa|cocoa.*(prepared|with milk)|chocolate.*hot"),
    ("US", "root beer", r"(?i)root beer(?!.*(diet|low calorie|sugar.free))"),
    ("US", "ginger ale", r"(?i)ginger ale(?!.*(diet|low calorie|sugar.free))"),
    ("US", "dr pepper", r"(?i)pepper-type|dr\.? pepper|^(soft drink|soda|beverages, carbonated)(?!.*(diet|low calorie|sugar.free))"),
    ("US", "mountain dew", r"(?i)mountain dew|citrus.*(soda|carbonated|soft drink)|(soda|carbonated|soft drink).*citrus|lemon-lime(?!.*diet)"),
    ("US", "pink lemonade", r"(?i)lemonade(?!.*(diet|low calorie|sugar.free))"),
    ("US", "milkshake", r"(?i)milk ?shake(?!.*(diet|light))"),
    ("US", "eggnog", r"(?i)egg ?nog"),
    ("US", "coconut water", r"(?i)coconut water"),
    ("US", "almond milk", r"(?i)almond milk|almond beverage|beverages, almond"),
    ("US", "oat milk", r"(?i)oat milk|oat beverage|oat drink"),
    ("US", "kombucha", r"(?i)kombucha"),
    ("US", "margarita", r"(?i)margarita(?! pizza)"),
    ("US", "rice cakes", r"(?i)rice cakes?"),
    ("US", "peanut butter crackers", r"(?i)crackers?.*peanut butter|peanut butter.*cracker"),
    ("US", "fruit snacks", r"(?i)fruit snacks?|fruit leather|fruit flavou?red snacks|gumm"),
    ("US", "reeses", r"(?i)reese|peanut butter cups?"),
    ("US", "m&ms", r"(?i)m ?& ?m|m and m|candy.coated|sugar.coated"),
    ("US", "snickers", r"(?i)snickers"),
    ("US", "twix", r"(?i)twix"),
    ("US", "sour patch kids", r"(?i)sour patch|gumm|sour.*candy"),
    ("US", "licorice", r"(?i)licorice|liquorice"),
    ("US", "marshmallows", r"(?i)marshmallow(?!.*(cereal|bar|treat))"),
    ("UK", "quavers", r"(?i)quavers|(corn|maize|potato)( and \w+)? snacks|cheese puffs|puffed"),
    ("UK", "wotsits", r"(?i)wotsits|cheese puffs|(corn|maize) snacks|cheese.flavou?r.*puffs"),
    ("UK", "hula hoops", r"(?i)hula hoops|potato rings|potato.*snacks"),
    ("UK", "monster munch", r"(?i)monster munch|(corn|maize) snacks"),
    ("UK", "twiglets", r"(?i)twiglets"),
    ("UK", "pot noodle", r"(?i)pot noodle|instant noodles|noodles, instant|ramen"),
    ("UK", "irn bru", r"(?i)irn.?bru|^(soft drink|carbonated|orangeade|lemonade)(?!.*(diet|low calorie|sugar.free))"),
    ("UK", "vimto", r"(?i)vimto|fruit (juice )?drink|squash|carbonated"),
    ("UK", "tango", r"(?i)tango|orangeade|orange.*(soda|carbonated|fizzy)|carbonated, orange"),
    ("UK", "horlicks", r"(?i)horlicks|malted (milk|drink)|malted.*(beverage|drink)"),
    ("UK", "ovaltine", r"(?i)ovaltine|malted"),
    ("UK", "marmite on toast", r"(?i)marmite|yeast extract|toast"),
    ("UK", "apple crumble", r"(?i)crumble"),
    ("UK", "spotted dick", r"(?i)spotted dick|suet pudding|sponge pudding"),
    ("UK", "bakewell tart", r"(?i)bakewell"),
    ("UK", "banoffee pie", r"(?i)banoffee"),
    ("UK", "treacle tart", r"(?i)treacle tart"),
    ("UK", "welsh rarebit", r"(?i)rarebit|cheese on toast"),
    ("UK", "welsh cakes", r"(?i)welsh cakes?"),
    ("UK", "bara brith", r"(?i)bara brith|fruit (loaf|bread)|tea bread|malt loaf|bread, malt, fruited"),
    ("UK", "haggis", r"(?i)haggis"),
    ("UK", "scotch broth", r"(?i)scotch broth"),
    ("UK", "irish stew", r"(?i)irish stew|lamb stew|stew, (lamb|irish)"),
    ("UK", "soda bread", r"(?i)soda bread|bread,( irish)? soda"),
    ("UK", "potato farls", r"(?i)farl|potato (cakes?|bread|scones?)"),
    ("UK", "black pudding", r"(?i)black pudding"),
    ("UK", "tattie scones", r"(?i)potato scones?|tattie|scones, potato"),
    ("UK", "oatcakes", r"(?i)oatcakes?"),
    ("UK", "chicken balti", r"(?i)balti"),
    ("UK", "lamb vindaloo", r"(?i)vindaloo"),
    ("UK", "saag aloo", r"(?i)saag|sag aloo|spinach.*potato|bombay potato|aloo"),
    ("UK", "peshwari naan", r"(?i)naan"),
    ("UK", "chicken chow mein", r"(?i)chow mein"),
    ("UK", "prawn crackers", r"(?i)prawn crackers"),
    ("UK", "special fried rice", r"(?i)fried rice|rice, egg fried"),
    ("UK", "battered cod", r"(?i)cod.*(batter|fried)|fish.*batter"),
    ("UK", "egg mayo sandwich", r"(?i)egg (mayo|mayonnaise|salad).*sandwich|sandwich.*egg"),
    ("UK", "coronation chicken", r"(?i)coronation chicken"),
    ("UK", "steak and kidney pie", r"(?i)steak and kidney"),
    ("UK", "chicken and mushroom pie", r"(?i)chicken.*pie|pie.*chicken"),
    ("UK", "fish pie", r"(?i)fish pie|^pie, fish"),
    ("UK", "beef wellington", r"(?i)wellington"),
    ("UK", "roast chicken", r"(?i)chicken.*roast|roast chicken"),
    ("UK", "cauliflower cheese", r"(?i)cauliflower cheese|cauliflower.*cheese"),
    ("UK", "bubble and squeak", r"(?i)bubble and squeak"),
    ("UK", "kedgeree", r"(?i)kedgeree"),
    ("UK", "eccles cake", r"(?i)eccles"),
    ("UK", "battenberg", r"(?i)battenberg"),
    ("UK", "jammie dodgers", r"(?i)jammie|biscuits?, (jam|sandwich)|jam.*biscuit"),
    ("UK", "bourbon biscuits", r"(?i)bourbon|biscuits?, (chocolate )?(sandwich|cream)"),
    ("UK", "ginger nuts", r"(?i)ginger ?nuts?|ginger biscuits?|biscuits?, ginger"),
    ("UK", "maltesers", r"(?i)maltesers|malted milk balls|chocolate.*honeycomb|malted"),
    ("UK", "cheese scone", r"(?i)scones?, cheese|cheese scone"),
    ("UK", "fruit scone", r"(?i)scones?, fruit|fruit scone"),
    ("UK", "cheese on toast", r"(?i)cheese on toast|rarebit|toast.*cheese"),
    ("UK", "leek and potato soup", r"(?i)leek and potato|potato and leek"),
    ("UK", "chocolate digestives", r"(?i)digestive.*chocolate|chocolate digestive"),
    ("UK", "guinness", r"(?i)guinness|stout"),
    ("UK", "scotch pancakes", r"(?i)scotch pancakes?|drop scones?|pancakes?"),
    ("UK", "ready brek", r"(?i)ready brek|porridge|instant oat|oat cereal"),
    ("UK", "coco pops", r"(?i)coco pops|chocolate.*(rice|puffed)|cocoa.*rice|rice, chocolate"),
    ("UK", "frosties", r"(?i)frosties|frosted flakes|frosted"),
    ("UK", "bran flakes", r"(?i)bran flakes"),
    ("UK", "crunchy nut cornflakes", r"(?i)crunchy nut|(honey|nut).*corn ?flakes|corn ?flakes.*(honey|nut)"),
    ("DE", "Semmel", r"(?i)semmel(?!kn)|brötchen|brötli|weggli|^rolls?,|bread rolls?"),
    ("DE", "Brezn", r"(?i)brez|pretzel|laugen"),
    ("DE", "Zwiebelkuchen", r"(?i)zwiebelkuchen|zwiebelwähe|onion (tart|pie|quiche)"),
    ("DE", "Kartoffelgratin", r"(?i)gratin|scalloped"),
    ("DE", "Schweinebraten", r"(?i)schweins?e?braten|pork.*roast|roast pork|schwein.*(gebraten|braten)"),
    ("DE", "Schweinshaxe", r"(?i)haxe|hachse|knuckle|\bhock|gnagi|eisbein|wädli"),
    ("DE", "Kassler", r"(?i)kass?ler|rippli|smoked pork"),
    ("DE", "Leberwurst", r"(?i)leberwurst|liver sausage|liverwurst|leberpastete|braunschweiger"),
    ("DE", "Wiener Würstchen", r"(?i)wienerli|wiener w|frankfurter|würstchen|wienerwurst"),
    ("DE", "Bockwurst", r"(?i)bockwurst|frankfurter|wienerli|knackwurst|würstchen|^cervelat$"),
    ("DE", "Gulaschsuppe", r"(?i)gulasch|goulash"),
    ("DE", "Kartoffelsuppe", r"(?i)kartoffelsuppe|potato soup|soup, potato"),
    ("DE", "Hühnersuppe", r"(?i)h(ü|ue)hner(suppe|brühe)|chicken (noodle )?soup|soup, chicken|bouillon.*huhn|hühnerbouillon"),
    ("DE", "Nudelsuppe", r"(?i)nudelsuppe|noodle soup|soup.*noodle"),
    ("DE", "Tafelspitz", r"(?i)tafelspitz|siedfleisch|boiled beef|rindfleisch.*gekocht|beef.*boiled"),
    ("DE", "Wurstsalat", r"(?i)wurstsalat|sausage salad|fleischsalat"),
    ("DE", "Nudelsalat", r"(?i)nudelsalat|teigwarensalat|pasta salad|macaroni salad"),
    ("DE", "Krautsalat", r"(?i)krautsalat|kabissalat|coleslaw|cabbage salad"),
    ("DE", "Gurkensalat", r"(?i)gurkensalat|cucumber salad"),
    ("DE", "Reibekuchen", r"(?i)reibekuchen|kartoffelpuffer|potato pancake|rösti|latke"),
    ("DE", "Apfelmus", r"(?i)apfelmus|apfelkompott|apple ?sauce"),
    ("DE", "Vanillepudding", r"(?i)vanillepudding|pudding.*vanill|vanilla pudding|vanillecreme|creme.*vanill"),
    ("DE", "Schokopudding", r"(?i)schokoladenpudding|schokopudding|chocolate pudding|pudding.*chocolate|schokoladencreme"),
    ("DE", "Streuselkuchen", r"(?i)streusel|coffee ?cake.*crumb"),
    ("DE", "Linzer Torte", r"(?i)linzer"),
    ("DE", "Nussgipfel", r"(?i)nussgipfel|nusshörnchen|nut croissant|nussstange"),
    ("DE", "Rüeblitorte", r"(?i)r(ü|ue)eblitorte|carrot cake|karottenkuchen|möhrenkuchen|rüeblikuchen"),
    ("DE", "Gerstensuppe", r"(?i)gerstensuppe|barley soup"),
    ("DE", "Raclette", r"(?i)raclette"),
    ("DE", "Käsefondue", r"(?i)fondue"),
    ("DE", "Zürcher Geschnetzeltes", r"(?i)geschnetzelt|veal.*cream"),
    ("DE", "Ovomaltine", r"(?i)ovomaltine|ovaltine|malted"),
    ("DE", "Fanta", r"(?i)fanta|orange.*(limonade|soda|carbonated|soft drink)|orangenlimonade|limonade.*orange|carbonated, orange"),
    ("DE", "Buttermilch", r"(?i)buttermilch|buttermilk"),
    ("DE", "Kefir", r"(?i)kefir"),
    ("DE", "Hüttenkäse", r"(?i)h(ü|ue)ttenk(ä|ae)se|cottage cheese|cheese, cottage"),
    ("DE", "Frischkäse", r"(?i)frischk(ä|ae)se|cream cheese|doppelrahm|^cheese, cream"),
    ("DE", "Toastbrot", r"(?i)toastbrot|toast|white bread|bread, white|weissbrot|modelbrot"),
    ("DE", "Mohnbrötchen", r"(?i)mohnbr|brötchen|brötli|semmel|rolls?"),
    ("DE", "Schoggigipfeli", r"(?i)schoggi|schoko.*(gipfel|croissant)|croissant.*schoko|chocolate croissant|croissant, chocolate|pain au chocolat"),
    ("DE", "Schokokuss", r"(?i)schokokuss|mohrenkopf|schaumkuss|chocolate.*marshmallow|marshmallow, chocolate|schokoküsse"),
    ("DE", "Eis", r"(?i)^(speise)?eis\b|glace|ice cream"),
    ("DE", "Spaghetti Bolognese", r"(?i)bolognese"),
    ("DE", "Gemüsesuppe", r"(?i)gem(ü|ue)sesuppe|vegetable soup|soup, vegetable"),
    ("DE", "Ofenkartoffel", r"(?i)ofenkartoffel|potato(es)?, baked|kartoffel.*(gebacken|ofen)|baked potato"),
    ("DE", "Pellkartoffeln", r"(?i)pellkartoffel|kartoffel.*(gekocht|schale)|potato(es)?, boiled"),
    ("DE", "Backfisch", r"(?i)backfisch|fish.*(fried|batter)|fisch.*(paniert|gebacken|frittiert)|fischknusperli|fish fingers"),
    ("DE", "Brathähnchen", r"(?i)h(ä|ae)hnchen|hendl|poulet.*(gebraten|grilliert|brat)|chicken.*roast|roast chicken"),
    ("DE", "Gyros", r"(?i)gyro"),
    ("DE", "Pizza Salami", r"(?i)pizza.*(salami|pepperoni)"),
    ("DE", "Müsliriegel", r"(?i)m(ü|ue)e?sliriegel|granola bar|cereal bar|getreideriegel"),
    ("DE", "Salzstangen", r"(?i)salzstang|pretzel|salzbrezel|laugen"),
    ("DE", "Chips", r"(?i)chips|crisps"),
    ("DE", "Erdnussflips", r"(?i)flips|peanut puffs|corn.*puffs"),
    ("DE", "Lakritz", r"(?i)lakritz|licorice|liquorice"),
    ("DE", "Marzipan", r"(?i)marzipan"),
    ("DE", "Zimtschnecke", r"(?i)zimtschnecke|cinnamon (roll|bun)|sweet rolls?, cinnamon|schnecke"),
    ("DE", "Apfelkompott", r"(?i)apfelkompott|apfelmus|apple ?sauce|apples?,.*stewed|apfel, gedünstet"),
    ("DE", "Glühwein", r"(?i)gl(ü|ue)hwein|mulled wine"),
    ("US", "cheesburger", r"(?i)^cheeseburger"),
    ("US", "hambuger", r"(?i)^hamburger"),
    ("US", "quesedilla", r"(?i)quesadilla"),
    ("US", "burito", r"(?i)^burrito"),
    ("US", "lazagna", r"(?i)^lasagn"),
    ("US", "mashed potatos", r"(?i)^potato(es)?, mashed|mashed potato"),
    ("US", "avacado", r"(?i)^avocados?"),
    ("US", "cantelope", r"(?i)cant(a|e)loupe"),
    ("US", "waffles", r"(?i)^waffles?"),
    ("US", "tortillas", r"(?i)^tortillas?"),
    ("US", "cinnamon rolls", r"(?i)cinnamon (roll|bun)|^Sweet rolls, cinnamon"),
    ("UK", "porrige", r"(?i)^porridge|^Cereals, oats.*cooked"),
    ("UK", "yorkshire puddings", r"(?i)^yorkshire pudding"),
    ("UK", "shepards pie", r"(?i)shepherd'?s|cottage/shepherd"),
    ("UK", "sausages", r"(?i)^sausages?\b"),
    ("UK", "jacket potatoes", r"(?i)^potato(es)?, (old, )?baked"),
    ("UK", "poppadums", r"(?i)pop+ad(u|o)m|papad"),
    ("UK", "brocolli", r"(?i)^broccoli"),
    ("DE", "Kasespatzle", r"(?i)k(ä|ae|a)se-?sp(ä|ae|a)tzl|sp(ä|ae)tzl.*k(ä|ae)se|noodles with cheese"),
    ("DE", "Brotchen", r"(?i)brötchen|brötli|semmel|weggli|^rolls?,|bread rolls?"),
    ("DE", "Rosti", r"(?i)^r(ö|oe|o)sti"),
    ("DE", "Kasekuchen", r"(?i)k(ä|ae)sekuchen|cheesecake"),
    ("DE", "Kartoffelpuree", r"(?i)kartoffelp(ü|ue)ree|kartoffelstock|mashed potato|potato(es)?, mashed"),
    ("DE", "Spaetzle", r"(?i)sp(ä|ae)tzl|egg noodles|noodles, egg"),
    ("DE", "Weisswurst", r"(?i)wei(ss|ß)wurst"),
    ("DE", "Bratkartofeln", r"(?i)home fries|bratkartoffel|kartoffeln?, gebraten|fried potato"),
    ("DE", "Brezeln", r"(?i)brez|pretzel|laugen"),
    ("DE", "Frikadellen", r"(?i)frikadell|hackt(ä|a)tschli|hackpl(ä|a)tzli|fleischk(ü|u)chle|bulette|meatball|meat patty"),
    ("DE", "Muesli", r"(?i)m(ü|ue)e?sli|muesli|ALPEN|FAMILIA"),
    ("US", "diet pepsi", r"(?i)cola.*(diet|low calorie|zero|sugar.free)|diet cola"),
    ("US", "diet ginger ale", r"(?i)(ginger ale|soda|soft drink|carbonated|cola).*(diet|sugar.free|low calorie|zero)"),
    ("US", "diet root beer", r"(?i)(root beer|soda|soft drink|carbonated).*(diet|sugar.free|low calorie|zero)"),
    ("US", "sugar free red bull", r"(?i)energy drink.*(sugar.free|diet|low calorie|zero)|red bull.*(sugar.free|zero)"),
    ("US", "zero sugar gatorade", r"(?i)(sports drink|gatorade|powerade).*(zero|low calorie|sugar.free|diet|G2|reduced)"),
    ("US", "sugar free pudding", r"(?i)pudding.*(sugar.free|reduced calorie|low calorie|diet|no sugar)"),
    ("US", "unsweetened almond milk", r"(?i)almond.*unsweetened"),
    ("US", "unsweetened iced tea", r"(?i)tea.*(unsweetened|brewed)|iced tea.*unsweetened"),
    ("US", "sugar free candy", r"(?i)(candy|candies|sweets).*(sugar.free|sugarless|dietetic)|(sugar.free|sugarless).*(candy|candies)"),
    ("UK", "diet irn bru", r"(?i)(irn.?bru|soft drink|carbonated|cola|lemonade|soda).*(diet|low calorie|sugar.free|zero)|diet (cola|lemonade|soda)"),
    ("UK", "sprite zero", r"(?i)(lemonade|lemon-lime|soft drink|carbonated|soda).*(diet|low calorie|sugar.free|zero)|diet lemonade"),
    ("UK", "sugar free squash", r"(?i)squash.*(no sugar|no added sugar|sugar.free|low calorie)"),
    ("UK", "fanta zero", r"(?i)(soft drink|soda|carbonated).*(diet|low calorie|sugar.free|zero)"),
    ("DE", "Fanta Zero", r"(?i)(soft drink|soda|carbonated|limonade).*(diet|low calorie|sugar.free|zero|light|süssstoff)"),
    ("DE", "Eistee zuckerfrei", r"(?i)(eistee|iced tea|tea).*(zuckerfrei|light|diet|low calorie|sugar.free|süssstoff|unsweetened|ungesüsst)"),
    ("DE", "Limonade light", r"(?i)(limonade|soft drink|lemonade|carbonated|soda|süssgetränk|cola).*(light|zuckerfrei|diet|low calorie|sugar.free|zero|süssstoff)"),
    ("DE", "Cola ohne Zucker", r"(?i)cola.*(light|diet|zero|low calorie|zuckerfrei|süssstoff)"),
    # Dishes no table holds as one row, now composites of table rows (db/seed/composites.csv,
    # each ingredient at a cited FNDDS or SR Legacy portion); moved from NO_TABLE_HOLDS with
    # their rules unchanged.
    ("DE", "Fischbrötchen", r"(?i)fischbr(ö|o)tchen"),
    ("DE", "Spezi", r"(?i)spezi|cola.?mix|mezzo ?mix"),
    ("UK", "bacon roll", r"(?i)bacon (roll|butty)"),
    ("UK", "chip butty", r"(?i)chip butty"),
    ("UK", "full english breakfast", r"(?i)full english|english breakfast|fried breakfast"),
    ("UK", "neeps and tatties", r"(?i)neeps|tatties"),
    ("US", "bagel with cream cheese", r"(?i)bagel.*cream cheese"),
    # Its words name a tea, not the cooked breakfast now held as a composite.
    ("UK", "english breakfast tea", r"(?i)^tea\b|^beverages, tea"),
    ("UK", "breakfast tea", r"(?i)^tea\b|^beverages, tea"),
    # Fifth round (rules written before the first run; see the docstring)
    ("US", 'enchiladas', r"(?i)enchilada"),
    ("US", 'chicken enchilada', r"(?i)enchilada.*chicken|chicken enchilada"),
    ("US", 'cheese quesadilla', r"(?i)quesadilla(?!.*(chicken|meat|beef))"),
    ("US", 'spanish rice', r"(?i)spanish rice|rice, spanish|mexican rice"),
    ("US", 'tamales', r"(?i)tamale"),
    ("US", 'fajitas', r"(?i)fajita"),
    ("US", 'chimichanga', r"(?i)chimichanga"),
    ("US", 'flour tortilla', r"(?i)tortillas?,? flour|flour tortilla"),
    ("US", 'corn tortilla', r"(?i)tortillas?,? corn|corn tortilla"),
    ("US", 'queso dip', r"(?i)queso|cheese (dip|sauce)"),
    ("US", 'horchata', r"(?i)horchata"),
    ("US", 'flan', r"(?i)flan|custard"),
    ("US", 'sesame chicken', r"(?i)sesame chicken|chicken.*sesame"),
    ("US", 'wonton soup', r"(?i)won ?ton soup|soup, won ?ton"),
    ("US", 'egg drop soup', r"(?i)egg drop"),
    ("US", 'hot and sour soup', r"(?i)hot and sour|hot-sour"),
    ("US", 'pork fried rice', r"(?i)fried rice.*pork|pork fried rice|rice, fried.*pork"),
    ("US", 'pot stickers', r"(?i)pot ?stickers?|dumplings?|gyoza|wonton"),
    ("US", 'fortune cookie', r"(?i)fortune cookie|cookies?, fortune"),
    ("US", 'chop suey', r"(?i)chop suey"),
    ("US", 'miso soup', r"(?i)miso soup|soup, miso"),
    ("US", 'tempura shrimp', r"(?i)tempura|shrimp.*(batter|fried|breaded)"),
    ("US", 'kimchi', r"(?i)kimchi|kim chee"),
    ("US", 'green curry', r"(?i)green curry|curry.*green|thai curry|curry"),
    ("US", 'spring rolls', r"(?i)spring rolls?|egg ?rolls?"),
    ("US", 'sticky rice', r"(?i)sticky rice|glutinous rice|rice,.*glutinous|sweet rice"),
    ("US", 'naan bread', r"(?i)naan"),
    ("US", 'dal', r"(?i)\bdh?al\b|dhal|lentil.*(curry|dahl)|dahl"),
    ("US", 'tandoori chicken', r"(?i)tandoori"),
    ("US", 'basmati rice', r"(?i)basmati|^rice, white.*cooked"),
    ("US", 'spaghetti and meatballs', r"(?i)spaghetti.*meatballs?|pasta.*meatballs?"),
    ("US", 'ravioli', r"(?i)ravioli"),
    ("US", 'manicotti', r"(?i)manicotti"),
    ("US", 'calzone', r"(?i)calzone"),
    ("US", 'eggplant parmesan', r"(?i)eggplant parm"),
    ("US", 'cannoli', r"(?i)cannoli"),
    ("US", 'tiramisu', r"(?i)tiramisu"),
    ("US", 'pasta salad', r"(?i)pasta salad|macaroni salad"),
    ("US", 'sausage and peppers', r"(?i)sausage.*pepper"),
    ("US", 'pita bread', r"(?i)pita"),
    ("US", 'tabbouleh', r"(?i)tabb?ou?leh?"),
    ("US", 'baklava', r"(?i)baklava"),
    ("US", 'spanakopita', r"(?i)spanakopita|spinach pie|spinach.*(pastry|phyllo)"),
    ("US", 'greek salad', r"(?i)greek salad"),
    ("US", 'shawarma', r"(?i)shawarma|gyro|kebab|doner"),
    ("US", 'tzatziki', r"(?i)tzatziki|cucumber.*yogh?urt|yogh?urt.*cucumber"),
    ("US", 'fried egg', r"(?i)eggs?,? (whole, )?(cooked, )?fried|fried eggs?"),
    ("US", 'hard boiled egg', r"(?i)eggs?,.*hard.boiled|hard.boiled eggs?|eggs?, boiled"),
    ("US", 'omelet', r"(?i)omel(et|ette)"),
    ("US", 'sausage links', r"(?i)sausage|^pork sausage"),
    ("US", 'home fries', r"(?i)home fries|potatoes?, home fries|fried potato"),
    ("US", 'cream of wheat', r"(?i)cream of wheat|farina"),
    ("US", 'yogurt parfait', r"(?i)parfait|yogh?urt.*(fruit|granola)"),
    ("US", 'breakfast sandwich', r"(?i)(egg|breakfast).*sandwich|sandwich.*egg|biscuit.*egg|english muffin.*egg"),
    ("US", 'cinnamon toast crunch', r"(?i)cinnamon toast crunch|cinnamon.*(squares|crunch)|cereal.*cinnamon"),
    ("US", 'lucky charms', r"(?i)lucky charms|marshmallow"),
    ("US", 'froot loops', r"(?i)fro+t loops|fruit.*(rings|loops)"),
    ("US", 'reuben', r"(?i)reuben|corned beef sandwich"),
    ("US", 'grilled cheese', r"(?i)grilled cheese|cheese sandwich.*grilled"),
    ("US", 'roast beef sandwich', r"(?i)roast beef sandwich|sandwich.*roast beef"),
    ("US", 'bologna sandwich', r"(?i)bologna sandwich|sandwich.*bologna"),
    ("US", 'sub sandwich', r"(?i)submarine|sub sandwich|hoagie|sandwich or sub"),
    ("US", 'chicken caesar salad', r"(?i)caesar"),
    ("US", 'mixed nuts', r"(?i)mixed nuts|nuts, mixed"),
    ("US", 'roasted peanuts', r"(?i)peanuts.*roasted"),
    ("US", 'sunflower seeds', r"(?i)sunflower seed"),
    ("US", 'pork rinds', r"(?i)pork (skin )?(rinds|skins)|chicharr"),
    ("US", 'doritos', r"(?i)doritos|tortilla chips"),
    ("US", 'fritos', r"(?i)fritos|corn chips"),
    ("US", 'cheetos', r"(?i)cheetos|cheese.flavou?red? (puffs|corn snacks)|cheese puffs"),
    ("US", 'pringles', r"(?i)pringles|potato chips|potato crisps"),
    ("US", 'rice krispie treat', r"(?i)rice kris?pie.*(treat|bar|square)|marshmallow.*(rice|treat)"),
    ("US", 'kit kat', r"(?i)kit ?kat|wafer.*chocolate|chocolate.*wafer"),
    ("US", 'hershey bar', r"(?i)hershey|milk chocolate"),
    ("US", 'gummy worms', r"(?i)gumm(y|ies)"),
    ("US", 'all purpose flour', r"(?i)flour.*all.purpose|all.purpose flour|wheat flour, white"),
    ("US", 'whole wheat flour', r"(?i)whole.wheat flour|flour, whole.wheat|wheat flour, whole"),
    ("US", 'brown sugar', r"(?i)sugars?,? brown|brown sugar"),
    ("US", 'powdered sugar', r"(?i)sugars?,? powdered|powdered sugar|confectioner"),
    ("US", 'granulated sugar', r"(?i)sugars?,? granulated|granulated sugar|^sugar$|^sugar, white"),
    ("US", 'agave', r"(?i)agave"),
    ("US", 'creamy peanut butter', r"(?i)peanut butter.*(smooth|creamy)|^peanut butter"),
    ("US", 'almond butter', r"(?i)almond butter|nut butter.*almond"),
    ("US", 'chocolate chips', r"(?i)chocolate chips|semisweet chocolate|chips, chocolate|baking chips"),
    ("US", 'cornstarch', r"(?i)corn ?starch"),
    ("US", 'baking soda', r"(?i)baking soda|sodium bicarbonate"),
    ("US", 'rolled oats', r"(?i)oats|oatmeal"),
    ("US", 'cocoa powder', r"(?i)cocoa.*powder|powder.*cocoa|^cocoa, dry"),
    ("US", 'heavy cream', r"(?i)cream,? (heavy|whipping)|heavy cream"),
    ("US", 'coconut oil', r"(?i)coconut oil|oil, coconut"),
    ("US", 'molasses', r"(?i)molasses"),
    ("US", 'white wine', r"(?i)wine.*white|white wine"),
    ("US", 'glass of wine', r"(?i)wine"),
    ("US", 'pina colada', r"(?i)pi(ñ|n)a colada"),
    ("US", 'mojito', r"(?i)mojito"),
    ("US", 'bloody mary', r"(?i)bloody mary"),
    ("US", 'rum and coke', r"(?i)rum.*(cola|coke)|(cola|coke).*rum"),
    ("US", 'whiskey', r"(?i)whiske?y|distilled spirits|alcoholic beverage, distilled"),
    ("US", 'vodka', r"(?i)vodka|distilled"),
    ("US", 'sangria', r"(?i)sangria"),
    ("US", 'hard cider', r"(?i)cider"),
    ("US", 'ipa', r"(?i)beer|ale"),
    ("US", 'mocha', r"(?i)mocha"),
    ("US", 'cold brew', r"(?i)cold brew|coffee.*(brewed|iced)|iced coffee"),
    ("US", 'cappuccino', r"(?i)cappuccino"),
    ("US", 'americano', r"(?i)americano|coffee, brewed|espresso"),
    ("US", 'black coffee', r"(?i)coffee.*(brewed|black)|^coffee(, NFS)?$|black coffee"),
    ("US", 'vanilla latte', r"(?i)latte.*vanilla|vanilla.*latte|latte"),
    ("US", 'frozen lemonade', r"(?i)lemonade.*frozen|frozen lemonade"),
    ("US", 'strawberry banana smoothie', r"(?i)smoothie"),
    ("UK", 'meal deal sandwich', r"(?i)sandwich"),
    ("UK", 'chicken and bacon sandwich', r"(?i)chicken.*bacon.*sandwich|sandwich.*chicken.*bacon|club sandwich"),
    ("UK", 'ham salad sandwich', r"(?i)ham.*sandwich|sandwich.*ham"),
    ("UK", 'tuna sweetcorn sandwich', r"(?i)tuna.*sandwich|sandwich.*tuna"),
    ("UK", 'pasta pot', r"(?i)pasta salad|pasta"),
    ("UK", 'quiche lorraine', r"(?i)quiche"),
    ("UK", 'houmous', r"(?i)hou?mm?ous|hummus"),
    ("UK", 'bread pudding', r"(?i)bread pudding"),
    ("UK", 'rhubarb crumble', r"(?i)crumble"),
    ("UK", 'lemon meringue pie', r"(?i)lemon meringue"),
    ("UK", 'chocolate gateau', r"(?i)gateau|chocolate cake|cake, chocolate"),
    ("UK", 'bread and butter pud', r"(?i)bread and butter"),
    ("UK", 'roast beef', r"(?i)beef.*roast|roast beef"),
    ("UK", 'roast lamb', r"(?i)lamb.*roast|roast lamb"),
    ("UK", 'roast pork', r"(?i)pork.*roast|roast pork"),
    ("UK", 'roast parsnips', r"(?i)parsnips?.*roast|roast parsnips?"),
    ("UK", 'mint sauce', r"(?i)mint sauce"),
    ("UK", 'horseradish sauce', r"(?i)horseradish"),
    ("UK", 'sprouts', r"(?i)brussels? sprouts"),
    ("UK", 'keema naan', r"(?i)naan"),
    ("UK", 'sweet and sour pork', r"(?i)sweet and sour pork|pork.*sweet and sour"),
    ("UK", 'kebab meat', r"(?i)kebab|doner"),
    ("UK", 'iced bun', r"(?i)iced bun|buns?, (iced|sweet)|sweet bun"),
    ("UK", 'doughnut ring', r"(?i)doughnut"),
    ("UK", 'chelsea bun', r"(?i)chelsea bun"),
    ("UK", 'gingerbread man', r"(?i)gingerbread|ginger biscuit"),
    ("UK", 'fruit cake', r"(?i)fruit ?cake|cake, fruit"),
    ("UK", 'english muffins', r"(?i)muffins?, english|english muffin"),
    ("UK", 'shredded wheat', r"(?i)shredded wheat"),
    ("UK", 'rice krispies', r"(?i)rice krispies|crisped rice|rice, (crisp|puffed)|toasted rice"),
    ("UK", 'special k', r"(?i)special k|rice and wheat flakes|flakes"),
    ("UK", 'granola with yoghurt', r"(?i)granola|yogh?urt"),
    ("UK", 'robinsons squash', r"(?i)squash"),
    ("UK", 'cup of coffee', r"(?i)coffee"),
    ("UK", 'hot chocolate with milk', r"(?i)hot chocolate|cocoa|chocolate.*milk"),
    ("UK", 'pint of bitter', r"(?i)bitter|beer|ale"),
    ("UK", 'glass of red wine', r"(?i)wine.*red|red wine"),
    ("UK", 'gin and tonic', r"(?i)gin|tonic"),
    ("UK", 'shandy', r"(?i)shandy"),
    ("UK", 'tablet', r"(?i)tablet|fudge"),
    ("UK", 'irish coffee', r"(?i)irish coffee|coffee, irish|coffee.*(whiskey|liqueur)"),
    ("DE", 'Laugenstange', r"(?i)laugen|brez|pretzel"),
    ("DE", 'Baguette', r"(?i)baguette|pariserbrot|french bread"),
    ("DE", 'Butterbrezel', r"(?i)brez|pretzel|laugen"),
    ("DE", 'Plunder', r"(?i)plunder|danish|blätterteig"),
    ("DE", 'Salami', r"(?i)salami"),
    ("DE", 'Schinken', r"(?i)schinken|^ham\b|ham,"),
    ("DE", 'Kochschinken', r"(?i)schinken.*(gekocht|koch)|kochschinken|hinterschinken|ham.*(cooked|boiled)|^ham"),
    ("DE", 'Lyoner', r"(?i)lyoner|fleischwurst|bologna|cervelat|mortadella"),
    ("DE", 'Mortadella', r"(?i)mortadella"),
    ("DE", 'Putenbrust', r"(?i)truthahn|pute|turkey"),
    ("DE", 'Gouda', r"(?i)gouda"),
    ("DE", 'Emmentaler', r"(?i)emmentaler|emmental|swiss cheese|cheese, swiss"),
    ("DE", 'Kroketten', r"(?i)krokett|croquette"),
    ("DE", 'Rotkraut', r"(?i)rotkohl|rotkraut|red cabbage|blaukraut"),
    ("DE", 'Kartoffelbrei', r"(?i)kartoffel(brei|püree|stock)|mashed potato|potato(es)?, mashed"),
    ("DE", 'Butternudeln', r"(?i)nudeln|teigwaren|pasta|noodles"),
    ("DE", 'Gemüsereis', r"(?i)reis|rice"),
    ("DE", 'Erbsen und Möhren', r"(?i)erbsen.*(möhre|karotte|rüebli)|peas.*carrots?|carrots?.*peas"),
    ("DE", 'Blumenkohl', r"(?i)blumenkohl|cauliflower"),
    ("DE", 'Grüne Bohnen', r"(?i)bohnen?,? gr(ü|ue)n|gr(ü|ue)ne bohnen|green beans|beans, (snap|green)"),
    ("DE", 'Marmorkuchen', r"(?i)marmor|marble cake"),
    ("DE", 'Zwetschgenkuchen', r"(?i)zwetsch|pflaumenkuchen|plum (cake|tart)|wähe"),
    ("DE", 'Rührkuchen', r"(?i)r(ü|ue)hrkuchen|sandkuchen|cake|kuchen"),
    ("DE", 'Kekse', r"(?i)keks|biscuit|cookie|guetzli"),
    ("DE", 'Waffeln', r"(?i)waffel|waffle"),
    ("DE", 'Grießbrei', r"(?i)grie(ß|ss)|semolina|griessbrei|griesspudding"),
    ("DE", 'Rinderroulade', r"(?i)roulade|beef olives"),
    ("DE", 'Kohlrouladen', r"(?i)kohlroulade|cabbage.*(stuffed|roll)|stuffed cabbage"),
    ("DE", 'Bratwurst mit Sauerkraut', r"(?i)bratwurst|sauerkraut"),
    ("DE", 'Topfen', r"(?i)topfen|quark"),
    ("DE", 'Paradeiser', r"(?i)tomate|tomato"),
    ("DE", 'Erdäpfel', r"(?i)kartoffel|potato"),
    ("DE", 'Marillen', r"(?i)aprikose|apricot|marille"),
    ("DE", 'Schlagobers', r"(?i)schlagrahm|schlagsahne|whipped cream|cream, whipped|rahm"),
    ("DE", 'Palatschinken', r"(?i)palatschink|pfannkuchen|crêpe|crepe|pancake|omelette"),
    ("DE", 'Kipferl', r"(?i)kipferl|gipfel|croissant|hörnchen"),
    ("DE", 'Topfenstrudel', r"(?i)topfenstrudel|quarkstrudel|strudel"),
    ("DE", 'Fisolen', r"(?i)bohnen?,? gr(ü|ue)n|green beans|beans, (snap|green)"),
    ("DE", 'Karfiol', r"(?i)blumenkohl|cauliflower"),
    ("DE", 'Kren', r"(?i)meerrettich|horseradish"),
    ("DE", 'Faschiertes', r"(?i)hackfleisch|ground|mince|gehacktes"),
    ("DE", 'Rüebli', r"(?i)r(ü|ue)ebli|karotte|möhre|carrot"),
    ("DE", 'Weggli', r"(?i)weggli|brötchen|brötli|semmel|rolls?"),
    ("DE", 'Zopfbrot', r"(?i)zopf"),
    ("DE", 'Nüsslisalat', r"(?i)n(ü|ue)sslisalat|feldsalat|lamb's lettuce|corn salad"),
    ("DE", 'Ovo', r"(?i)ovomaltine|ovo|ovaltine"),
    ("DE", 'Konfi', r"(?i)konfi|jam|marmelade"),
    ("US", 'potatos', r"(?i)^potato"),
    ("US", 'guacamoli', r"(?i)guacamole"),
    ("US", 'expresso', r"(?i)espresso"),
    ("US", 'caesar salid', r"(?i)caesar"),
    ("US", 'jalepeno poppers', r"(?i)jalape(ñ|n)o|popper"),
    ("US", 'rasberries', r"(?i)^raspberr"),
    ("US", 'brocolli and cheese', r"(?i)broccoli.*cheese"),
    ("US", '  french   toast ', r"(?i)^french toast"),
    ("US", 'ice-cream', r"(?i)(vanilla )?ice cream"),
    ("US", 'peanut-butter', r"(?i)^peanut butter"),
    ("US", 'hot-dog', r"(?i)^hot dog|frankfurter"),
    ("US", 'chocolate-chip cookies', r"(?i)chocolate chip"),
    ("UK", 'tikka masalla', r"(?i)tikka masala"),
    ("UK", 'crumpits', r"(?i)crumpet"),
    ("UK", 'yorkshire pud', r"(?i)yorkshire pudding"),
    ("DE", 'Broetchen', r"(?i)brötchen|brötli|semmel|weggli|^rolls?,|bread rolls?"),
    ("DE", 'Kaesekuchen', r"(?i)k(ä|ae)sekuchen|cheesecake"),
    ("DE", 'Gruene Bohnen', r"(?i)bohnen?,? gr(ü|ue)n|gr(ü|ue)ne bohnen|green beans|beans, (snap|green)"),
    ("DE", 'Erdaepfel', r"(?i)kartoffel|potato"),
    ("DE", 'Erdapfel', r"(?i)kartoffel|potato"),
    ("DE", 'Ruebli', r"(?i)r(ü|ue)ebli|karotte|möhre|carrot"),
    ("DE", 'Schwarzwalder Kirschtorte', r"(?i)schwarzw(ä|ae)lder|black forest"),
    ("DE", 'Griessbrei', r"(?i)grie(ß|ss)|semolina"),
    ("DE", 'Hefe-Zopf', r"(?i)zopf|challah"),
    ("DE", 'Spiegeleier', r"(?i)spiegelei|ei.*(gebraten|spiegel)|egg.*fried|fried egg"),
    ("DE", 'Kroketen', r"(?i)krokett|croquette"),
    ("DE", 'Capuns', r"(?i)capuns"),
    ("US", 'hard seltzer', r"(?i)seltzer|hard seltzer"),
    ("UK", 'laverbread', r"(?i)laverbread|laver"),
    ("US", 'mimosa', r"(?i)mimosa"),
    ("US", 'moo shu pork', r"(?i)mo+ ?shu"),
    ("US", 'palak paneer', r"(?i)palak|saag paneer|spinach.*paneer|paneer.*spinach"),
    ("US", 'stuffed shells', r"(?i)stuffed shells|shells.*(stuffed|cheese|ricotta)|pasta.*stuffed"),
    # Fifth round, second pass (the rules as written for STILL_MISSED): a measure or container
    # beside the food, misspelt compounds and plurals, a light row of the food, the
    # vocabulary's Bergkäse; the light rows hold more sugar than SUGARED_G (light means
    # fewer calories: 3.6 g in light mayonnaise, 1.52 g in the popsicle), so not in DIET;
    # the composite full English breakfast (no table held one when the fifth round ran).
    ("US", 'pudding cup', r"(?i)pudding"),
    ("US", 'applesauce cup', r"(?i)apple ?sauce"),
    ("UK", 'coleslaw pot', r"(?i)coleslaw"),
    ("US", 'blueberrys', r"(?i)^blueberr"),
    ("US", 'cheezecake', r"(?i)cheesecake|cheese ?cake"),
    ("US", 'fettucine', r"(?i)fettuc+ine|pasta"),
    ("DE", 'Apfelstrudl', r"(?i)apfelstrudel|strudel"),
    ("DE", 'Bergkäse', r"(?i)bergk(ä|ae)se|alpk(ä|ae)se|hartk(ä|ae)se"),
    ("UK", 'light mayo', r"(?i)mayonnaise.*(light|reduced|low calorie|diet)"),
    ("US", 'light cranberry juice', r"(?i)cranberry.*(low calorie|light|diet|reduced|sugar.free)"),
    ("US", 'sugar free popsicle', r"(?i)(ice pop|popsicle|frozen.*(pop|novelt)).*(sugar.free|low calorie|diet|no sugar added)|sugar.free.*(pop)"),
    ("UK", 'reduced sugar jam', r"(?i)(jam|preserves|fruit spread).*(reduced sugar|low sugar|low calorie|sugar.free|diet|reduced calorie)"),
    ("UK", 'full english', r"(?i)full english"),
]

# Diet queries: the first hit has at most search.SUGARED_G sugar per 100 g; a dairy query (a
# milk pudding's too) at most MILK_SUGAR_G (lactose is milk's own: 5.05 g per 100 g of whole
# milk, SR28 01077), and a "no added sugar" or "unsweetened" query means no sugar added,
# whatever the fruit holds.
DIET = [
    ("US", "diet coke"), ("US", "diet lemonade"), ("US", "sugar free jello"),
    ("US", "coke zero"), ("US", "diet soda"), ("US", "light yogurt"),
    ("UK", "diet lemonade"), ("UK", "diet coke"), ("UK", "no added sugar squash"),
    ("UK", "sugar free jelly"), ("UK", "pepsi max"), ("UK", "diet cola"),
    ("DE", "Cola light"), ("DE", "Cola zero"), ("DE", "Joghurt light"),
    ("US", "sugar free syrup"), ("US", "zero sugar soda"), ("UK", "coke zero"),
    # Fourth round
    ("US", "diet pepsi"), ("US", "diet ginger ale"), ("US", "diet root beer"),
    ("US", "sugar free red bull"), ("US", "zero sugar gatorade"), ("US", "sugar free pudding"),
    ("US", "unsweetened almond milk"), ("US", "unsweetened iced tea"), ("US", "sugar free candy"),
    ("UK", "diet irn bru"), ("UK", "sprite zero"), ("UK", "sugar free squash"),
    ("UK", "fanta zero"), ("DE", "Fanta Zero"), ("DE", "Eistee zuckerfrei"),
    ("DE", "Limonade light"), ("DE", "Cola ohne Zucker"),
    # fifth round
    ("US", 'no sugar added ice cream'), ("US", 'sugar free gum'), ("US", 'diet snapple'), ("US", 'zero sugar energy drink'), ("US", 'diet dr pepper'), ("US", 'sugar free hot cocoa'), ("US", 'unsweetened applesauce'), ("UK", 'diet coke can'), ("UK", 'sugar free sweets'), ("DE", 'Diät Limonade'), ("DE", 'Eistee light'), ("DE", 'Apfelmus ungesüßt'),
]

# Hypo treatments: the real food, or an entry asking for the pack's figure (food_id None).
PACK = "pack"
HYPO = [
    ("US", "glucose tablets", PACK), ("UK", "glucose tablets", PACK),
    ("US", "glucose gel", PACK), ("UK", "dextrose tablets", PACK),
    ("DE", "Traubenzucker Tabletten", PACK),
    ("DE", "Traubenzucker", r"^Traubenzucker$"), ("UK", "dextrose", r"^Traubenzucker$"),
    ("UK", "jelly babies", r"^Gummibonbon mit Fruchtessenz$"),
    ("DE", "Gummibärchen", r"^Gummibonbon mit Fruchtessenz$"),
    ("US", "gummy bears", r"^Candy, gummy$"),
    ("US", "juice box", r"^Apple juice, 100%$"),
    ("US", "sports drink", r"^Sports drink, NFS$"), ("US", "gatorade", r"Gatorade G\)$"),
    ("UK", "lucozade", r"^Lucozade$"), ("US", "powerade", r"\(Powerade\)$"),
    ("UK", "glucotabs", PACK), ("DE", "Dextro Energy", PACK),
    # Fourth round: brands and spellings of tablets, gels and shots (read from the pack, the
    # brand or "tablets" beside a known term too), and the real foods.
    ("US", "dex4", PACK), ("US", "glucose shot", PACK), ("UK", "glucose gel", PACK),
    ("UK", "lift glucose shot", PACK), ("UK", "dextro energy tablets", PACK),
    ("DE", "Glukosegel", PACK), ("DE", "Traubenzuckertabletten", PACK),
    ("US", "dextrose", r"^Traubenzucker$"), ("DE", "Dextrose", r"^Traubenzucker$"),
    ("US", "apple juice box", r"^Apple juice"), ("US", "capri sun", r"\(Capri Sun\)$"),
    ("US", "honey packet", r"^Honey"), ("UK", "lucozade sport", r"^Lucozade$"),
    ("UK", "jelly beans", r"(?i)jelly ?beans|gum|jell"),
    ("DE", "Apfelsaft Trinkpäckchen", r"^Apfelsaft$"), ("DE", "Cola", r"^(Cola|Colagetränk, gezuckert)$"),
    ("DE", "Haribo Goldbären", r"^Gummibonbon"),
    # fifth round
    ("US", 'glucose tabs', PACK),
    ("US", '4 glucose tablets', PACK),
    ("US", 'small box of raisins', r"(?i)raisins"),
    ("US", 'skittles for low', r"(?i)skittles|chewy fruit|fruit chews?|candies|hard candy"),
    ("US", 'glucose tablet', PACK),
    ("UK", 'jelly babies for a hypo', r"(?i)jelly babies|jelly sweets|gums|pastilles|sweets, jelly|gummibonbon"),
    ("UK", 'mini can of coke', r"(?i)cola(?!.*(diet|low calorie|sugar.free|zero))"),
    ("UK", 'carton of orange juice', r"(?i)^orange juice"),
    ("DE", 'Traubenzucker Täfelchen', PACK),
    ("DE", 'Saft bei Unterzucker', r"(?i)saft|juice"),
    ("US", 'sugar cubes', r"(?i)sugars?,? (cubes|granulated|nfs)|^sugar$|sugar cube"),
    ("US", 'glucose chews', PACK),
    ("US", 'juice box for low blood sugar', r"(?i)juice"),
    ("UK", 'lucozade original', r"(?i)lucozade"),
    ("UK", 'dextrose tabs', r"^Traubenzucker$"),
    ("DE", 'Traubenzucker Plättchen', PACK),
    ("DE", 'Gummibärchen bei Unterzucker', r"(?i)gummibonbon|gummi|fruchtgummi|gummy"),
    # fifth round, second pass
    ("US", 'half cup juice', r"(?i)juice"),
]

# Default portions: (region, query, the first hit's default grams must lie within 2x of this
# portion as eaten, its source). None: the hit must have no default (the card asks for grams)
# rather than 100 g of a biscuit or a drink; no rule is None now that CoFID's and the Swiss
# FCDB's biscuits and drinks cite portions (db/seed/table_portions.csv).
PORTIONS = [
    ("US", "orange juice", 248, "FNDDS/SR28: 1 cup of juice, 8 fl oz"),
    ("US", "popcorn", 30, "FDA reference amount customarily consumed for popcorn (21 CFR 101.12)"),
    ("US", "juice box", 209, "FNDDS: 1 juice box/pouch (6.75 fl oz)"),
    ("US", "sports drink", 372, "FNDDS: 1 bottle (12 fl oz)"),
    ("US", "cheeseburger", 150, "FNDDS: one cheeseburger"),
    ("US", "bagel", 100, "FNDDS/SR28: one bagel"),
    ("UK", "scone", 70, "FNDDS 52105100 'Scone', 1 regular (table_portions.csv)"),
    # Rules of the second round (written before these defaults existed): a biscuit is counted
    # one by one, a drink is a glass.
    ("UK", "digestives", 15, "one biscuit: McVitie's Digestives are about 15 g each"),
    ("UK", "weetabix", 37.5, "the UK pack's serving: 2 biscuits, 37.5 g (Wikipedia 'Weetabix')"),
    ("UK", "orange squash", 250, "a 250 ml glass of squash as drunk, diluted"),
    ("DE", "Apfelschorle", 250, "a 250 ml glass of Schorle"),
    ("UK", "semi skimmed milk", 244, "a cup or glass of milk (FNDDS/SR28: 1 cup, 244 g)"),
    # Third round: a measure in the query is no word to find, and a UK dish's cited portion.
    ("UK", "pint of lager", 568, "a UK pint: 568 ml of beer"),
    ("US", "candy bar", 44, "a standard US milk chocolate bar: 1.55 oz (44 g)"),
    ("UK", "mushy peas", 80, "NHS: 80 g of vegetables (3 heaped tablespoons of peas) is one portion"),
    ("UK", "hot cross bun", 70, "a UK hot cross bun weighs about 70 g (packs of 4 weigh 280 g)"),
    # Fourth round: a can, a glass, a pouch, a roll as sold.
    ("US", "root beer", 372, "a 12 fl oz can (FNDDS/SR28: 1 can, 12 fl oz)"),
    ("US", "blueberry muffin", 113, "FNDDS/SR28: 1 medium muffin"),
    ("US", "string cheese", 28, "one stick of string cheese is 1 oz"),
    ("US", "capri sun", 177, "a Capri Sun pouch holds 6 fl oz (177 ml)"),
    ("US", "coconut water", 240, "a cup, 8 fl oz"),
    ("UK", "irn bru", 330, "a UK can holds 330 ml"),
    ("DE", "Fanta", 330, "a German can holds 0.33 l"),
    ("DE", "Cola", 330, "a German can holds 0.33 l"),
    ("DE", "Semmel", 55, "a Semmel (Brötchen) weighs 50-60 g"),
    ("DE", "Brezn", 90, "a Laugenbrezel weighs 80-100 g"),
    ("DE", "Buttermilch", 250, "a glass, 250 ml"),
]

# Queries for a food no table holds (the third round's rule, and the pattern of the food's own
# name that no public food's name, alias or common name matches): no answer is right, so they
# are not counted above; a table that gains the food fails test_no_table_holds_them, and the
# query moves to AUDIT.
NO_TABLE_HOLDS = [
    # The nearest row answers some (search_vocabulary.csv): FNDDS's lettuce salad with egg,
    # cheese and tomato a chef salad, CoFID's cheddar and pickle sandwich a ploughman's, its
    # currant buns a teacake, its treacle sponge pudding a sticky toffee pudding.
    ("US", "chef salad", r"(?i)chef'?s? salad"),
    ("UK", "ploughman's lunch", r"(?i)ploughman"),
    ("UK", "teacake", r"(?i)tea ?cakes?"),
    ("UK", "sticky toffee pudding", r"(?i)sticky toffee|toffee pudding"),
    ("DE", "Knödel", r"(?i)kn(ö|oe|o)del|kl(ö|oe|o)(ß|ss)e\b"),
    ("DE", "Semmelknödel", r"(?i)semmelkn|bread dumpling"),
    ("DE", "Kartoffelknödel", r"(?i)kartoffelkn|potato dumpling"),
    ("DE", "Germknödel", r"(?i)germkn|dampfnudel|yeast dumpling"),
    ("DE", "Stollen", r"(?i)stollen"),
    ("DE", "Kaiserschmarrn", r"(?i)schmarrn"),
    ("DE", "Brotzeit", r"(?i)brotzeit"),
    # Fourth round
    ("US", "baked ziti", r"(?i)\bziti"),
    ("US", "poke bowl", r"(?i)poke bowl"),
    ("US", "acai bowl", r"(?i)a(ç|c)a(í|i) bowl"),
    ("UK", "eton mess", r"(?i)eton mess"),
    ("UK", "jam roly poly", r"(?i)roly.?poly"),
    ("UK", "cullen skink", r"(?i)cullen skink"),
    ("UK", "millionaire's shortbread", r"(?i)millionaire|caramel shortbread"),
    ("UK", "chicken jalfrezi", r"(?i)jalfrezi"),
    ("UK", "prawn mayonnaise sandwich", r"(?i)prawn.*sandwich"),
    ("UK", "pigs in blankets", r"(?i)pigs in blankets"),  # FNDDS's "Pig in a blanket" is in pastry
    ("UK", "crunchie", r"(?i)crunchie\b"),
    ("DE", "Leberknödelsuppe", r"(?i)leberkn"),
    ("DE", "Frittatensuppe", r"(?i)frittaten|fl(ä|a)dli"),
    ("DE", "Schupfnudeln", r"(?i)schupfnudel"),
    ("DE", "Dampfnudeln", r"(?i)dampfnudel"),
    ("DE", "Rote Grütze", r"(?i)rote gr(ü|u)tze"),
    ("DE", "Bienenstich", r"(?i)bienenstich"),
    ("DE", "Mohnkuchen", r"(?i)mohnkuchen|poppy ?seed cake"),
    ("DE", "Sachertorte", r"(?i)sacher"),  # answered by FNDDS's chocolate cake
    ("DE", "Birnbrot", r"(?i)birn(en)?brot"),
    ("DE", "Rivella", r"(?i)rivella"),
    ("DE", "Almdudler", r"(?i)almdudler"),
    ("DE", "Multivitaminsaft", r"(?i)multivitamin"),
    ("DE", "Skyr", r"(?i)skyr"),
    ("DE", "Mischbrot", r"(?i)mischbrot"),
    ("DE", "Dinkelbrot", r"(?i)dinkelbrot|spelt bread"),
    ("DE", "Milchbrötchen", r"(?i)milchbr(ö|o)tchen"),
    # Fifth round
    ("US", 'menudo', r"(?i)menudo"),
    ("US", 'sopapilla', r"(?i)sopapilla"),
    ("US", 'crab rangoon', r"(?i)crab rangoon"),
    ("US", 'banh mi', r"(?i)banh mi"),
    ("US", 'thai iced tea', r"(?i)thai iced tea"),
    ("US", 'mango lassi', r"(?i)mango lassi"),
    ("US", 'penne vodka', r"(?i)penne vodka"),
    ("US", 'veggie straws', r"(?i)veggie straws"),
    ("US", 'pumpkin spice latte', r"(?i)pumpkin spice latte"),
    ("US", 'matcha latte', r"(?i)matcha latte"),
    ("UK", 'summer pudding', r"(?i)summer pudding"),
    ("UK", 'arctic roll', r"(?i)arctic roll"),
    ("UK", 'angel delight', r"(?i)angel delight"),
    ("UK", 'steak bake', r"(?i)steak bake"),
    ("UK", 'pimms', r"(?i)pimms"),
    ("UK", 'stovies', r"(?i)stovies"),
    ("UK", 'clootie dumpling', r"(?i)clootie dumpling"),
    ("UK", 'boxty', r"(?i)boxty"),
    ("UK", 'barm brack', r"(?i)barm brack"),
    ("UK", 'cawl', r"(?i)cawl"),
    ("UK", 'white pudding', r"(?i)white pudding"),
    ("DE", 'Quarkbällchen', r"(?i)Quarkbällchen"),
    ("DE", 'Amerikaner', r"(?i)Amerikaner"),
    ("DE", 'Donauwelle', r"(?i)Donauwelle"),
    ("DE", 'Marillenknödel', r"(?i)Marillenknödel"),
    ("DE", 'Kartoffelknoedel', r"(?i)Kartoffelknoedel"),
    ("DE", 'Kaiserschmarn', r"(?i)Kaiserschmarn"),
    ("US", 'transcend glucose gel', r"(?i)transcend glucose gel"),
    ("UK", 'hypostop', r"(?i)hypostop"),
    ("DE", 'Jubin', r"(?i)Jubin"),
    # fifth round, second pass: no table holds these under any name (Teewurst and Bierschinken
    # are German sausages no Swiss FCDB row names; no CoFID row is granary bread, a Scotch
    # (mutton) pie or colcannon)
    ("DE", 'Teewurst', r"(?i)teewurst"),
    ("DE", 'Bierschinken', r"(?i)bierschinken"),
    ("UK", 'granary bread', r"(?i)granary"),
    ("UK", 'scotch pie', r"(?i)scotch pie"),
    ("UK", 'colcannon', r"(?i)colcannon"),
]

# The fifth round's queries still answered wrongly after its fixes (rules as the audit's): kept
# here, each an expected failure, so a fix that answers one shows (XPASS) and it moves to AUDIT,
# DIET or HYPO.
STILL_MISSED = [
    ("US", 'nachos with cheese', r"(?i)nachos.*cheese"),
    ("US", 'carne asada', r"(?i)carne asada|beef.*(steak|grilled)|steak"),
    ("US", 'udon', r"(?i)udon|noodles?, japanese|wheat noodle"),
    ("US", 'chicken katsu', r"(?i)katsu|chicken.*(breaded|fried)|fried chicken"),
    ("US", 'beef bulgogi', r"(?i)bulgogi|korean.*beef|beef.*korean"),
    ("US", 'chicken alfredo', r"(?i)alfredo"),
    ("US", 'avocado toast', r"(?i)avocado.*toast|toast.*avocado"),
    ("US", 'pastrami sandwich', r"(?i)pastrami.*sandwich|sandwich.*pastrami"),
    ("US", 'tuna melt', r"(?i)tuna melt|tuna.*(cheese|melt)"),
    ("US", 'turkey club', r"(?i)club sandwich|turkey.*club"),
    ("US", 'fig newtons', r"(?i)fig (newton|bar)|cookies?, fig"),
    ("US", 'nutter butter', r"(?i)nutter butter|peanut butter.*(sandwich|cookie)"),
    ("US", 'caramel macchiato', r"(?i)macchiato|coffee.*caramel|latte"),
    ("US", 'chai latte', r"(?i)chai"),
    ("UK", 'fruit pot', r"(?i)fruit (salad|cocktail|pot)|mixed fruit"),
    ("UK", 'syrup sponge', r"(?i)sponge pudding|syrup sponge"),
    ("UK", 'stuffing balls', r"(?i)stuffing"),
    ("UK", 'carrots and peas', r"(?i)carrots?.*peas|peas.*carrots?"),
    ("UK", 'chicken madras', r"(?i)madras|chicken curry|curry.*chicken"),
    ("UK", 'crispy chilli beef', r"(?i)chilli beef|beef.*chilli|crispy beef"),
    ("UK", 'salt and pepper chips', r"(?i)chips|french fries"),
    ("UK", 'cheese and onion pasty', r"(?i)cheese and onion|pasty"),
    ("UK", 'custard slice', r"(?i)custard slice|vanilla slice|custard tart|mille"),
    ("UK", 'belgian bun', r"(?i)belgian bun|iced bun|buns?, (iced|currant|fruit)"),
    ("UK", 'caramel slice', r"(?i)caramel (slice|shortbread)|millionaire"),
    ("DE", 'Körnerbrötchen', r"(?i)k(ö|oe)rner|mehrkorn|vollkorn.*br(ö|oe)t|brötchen|brötli"),
    ("DE", 'Rosinenbrötchen', r"(?i)rosinen|weinbeer|raisin|sultan"),
    ("DE", 'Käsesahnetorte', r"(?i)k(ä|ae)se.*torte|k(ä|ae)sekuchen|cheesecake|sahnetorte"),
    ("DE", 'Windbeutel', r"(?i)windbeutel|cream puff|eclair|profiterole|brandteig"),
    ("US", 'diet mountain dew', r"(?i)(soda|soft drink|carbonated|citrus|lemon-lime).*(diet|low calorie|zero|sugar.free)"),
    ("UK", 'no added sugar baked beans', r"(?i)baked beans.*(reduced sugar|no added sugar|reduced salt and sugar|low sugar)"),
    ("DE", 'zuckerfreier Sirup', r"(?i)sirup.*(zuckerfrei|light|süssstoff)|syrup.*(sugar.free|low calorie|diet)"),
    ("UK", 'no added sugar ribena', r"(?i)(blackcurrant|ribena).*(no added sugar|no sugar|sugar.free|low calorie|diet)"),

]

FIRST_TARGET, TOP3_TARGET = 0.95, 0.99
MILK_SUGAR_G = 5.0
_DAIRY_RE = re.compile(r"(?i)yogh?urt|joghurt|milk|milch|pudding|ice cream|cocoa")


# A drink that holds carbohydrate: the first hit's carbohydrate is known and above 0 g, or
# unknown (None: the card says so), never 0 g for a value a table does not give (CoFID's lager).
CARBOHYDRATE_NOT_ZERO = [("UK", "lager"), ("UK", "premium lager"), ("UK", "bitter"),
                         ("US", "beer"), ("UK", "cider")]
# A table's row renamed for a name another food has ("Bread, pumpernickel (FNDDS)") is the same
# food as that one when their energy, carbohydrate, protein and fat per 100 g agree within 2 %
# or 1 kcal / 0.1 g: never listed beside it (FNDDS's raw broccoli, 39 kcal to SR Legacy's 34,
# is another analysis and may be).
_TABLE_SUFFIX_RE = re.compile(r" \((FNDDS|CoFID|Swiss FCDB|SR Legacy)\)$")


def test_no_table_holds_them(full_db):
    from sqlalchemy import select

    from db.session import session_scope
    from db.tables import Food, FoodAlias

    with session_scope(write=False) as session:
        texts = [t for t in session.scalars(select(Food.name).where(Food.owner_id.is_(None)))]
        texts += [t for t in session.scalars(select(Food.common_names).where(
            Food.owner_id.is_(None), Food.common_names.is_not(None)))]
        texts += list(session.scalars(select(FoodAlias.alias).join(Food).where(
            Food.owner_id.is_(None))))
    held = [(query, text) for _, query, own_name in NO_TABLE_HOLDS for text in texts
            if re.search(own_name, text)]
    assert held == []


def test_the_audit_has_at_least_150_queries():
    assert len(AUDIT) + len(DIET) + len(HYPO) >= 150
    assert {r for r, _, _ in AUDIT} == {"US", "UK", "DE"}


def test_right_food_first_and_in_the_top_three(full_db):
    first = top3 = 0
    misses, empty = [], []
    for region, query, acceptable in AUDIT:
        hits = [h["food"] for h in service.search(query, limit=3, region=region)]
        if not hits:
            empty.append(f"{query!r} ({region})")
        good = [re.search(acceptable, hit) is not None for hit in hits]
        first += bool(good and good[0])
        top3 += any(good)
        if not (good and good[0]):
            misses.append(f"{query!r} ({region}): {hits}")
    report = "\n".join(misses)
    assert empty == [], empty
    assert first / len(AUDIT) >= FIRST_TARGET, f"first {first}/{len(AUDIT)}:\n{report}"
    assert top3 / len(AUDIT) >= TOP3_TARGET, f"top 3 {top3}/{len(AUDIT)}:\n{report}"


# Strict: a query that starts passing fails the run until it moves to AUDIT, DIET or HYPO.
@pytest.mark.xfail(strict=True, reason="the fifth round's misses (issue 40), still open")
@pytest.mark.parametrize("region, query, acceptable", STILL_MISSED)
def test_still_missed(full_db, region, query, acceptable):
    hits = service.search(query, limit=3, region=region)
    assert hits and re.search(acceptable, hits[0]["food"]), f"{query!r} ({region}): {hits}"
    if search.split_diet(search.query_words(query))[1]:
        _assert_not_sugared(region, query, hits[0]["food"])


def _assert_not_sugared(region: str, query: str, food: str) -> None:
    """DIET's rule for the first hit of a diet query."""
    sugars = service.lookup(food, grams=100)["per_100g"]["sugars_g"]
    no_added = re.search(r"no (added )?sugar( added)?|unsweetened|ungesüßt", query) is not None
    most = MILK_SUGAR_G if _DAIRY_RE.search(query) else search.SUGARED_G
    assert no_added or sugars is None or sugars <= most, (
        f"{query!r} ({region}): {food} has {sugars} g sugars per 100 g")


@pytest.mark.parametrize("region, query", DIET)
def test_a_diet_query_never_gets_a_sugared_row_first(full_db, region, query):
    hits = service.search(query, limit=1, region=region)
    assert hits, f"{query!r} ({region}): nothing"
    _assert_not_sugared(region, query, hits[0]["food"])


@pytest.mark.parametrize("region, query, answer", HYPO)
def test_a_hypo_treatment_is_never_guessed(full_db, region, query, answer):
    hits = service.search(query, limit=3, region=region)
    assert hits, f"{query!r} ({region}): nothing"
    if answer == PACK:
        assert hits[0]["food_id"] is None and "from the pack" in hits[0]["asks"], hits[0]
        assert len(hits) == 1  # and no guess beside it
    else:
        assert re.search(answer, hits[0]["food"]), f"{query!r} ({region}): {hits}"


@pytest.mark.parametrize("region, query, grams, why", PORTIONS)
def test_default_portions_are_one_portion_as_eaten(full_db, region, query, grams, why):
    hit = service.search(query, limit=1, region=region)[0]
    shown = hit["portion"]["grams"]
    if grams is None:
        assert shown is None, f"{query!r}: {hit['food']} defaults to {shown} g ({why})"
    else:
        assert shown is not None and grams / 2 <= shown <= grams * 2, (
            f"{query!r}: {hit['food']} defaults to {shown} g, one portion is {grams} g ({why})")


def test_a_hypo_treatment_looked_up_by_name_is_never_guessed(full_db):
    from db.errors import UnknownFood

    with pytest.raises(UnknownFood, match="glucose tablets: no food table lists them; add yours "
                                          r"as an own food with the carbohydrate in one tablet"):
        service.lookup("glucose tablets")
    with pytest.raises(UnknownFood, match="glucose gel: no food table lists them"):
        service.lookup("Glucose gel: enter the carbohydrate from the pack")
    # The juice box of FNDDS 64104010: 209 g at 11.35 g carbohydrate per 100 g.
    box = service.lookup("juice box")
    assert (box["portion"]["serving"], box["portion"]["grams"]) == (
        "1 juice box/pouch (6.75 fl oz)", 209.0)
    assert box["portion"]["carbohydrate_g"] == round(209 * box["per_100g"]["carbohydrate_g"] / 100, 1)


@pytest.mark.parametrize("region, query", CARBOHYDRATE_NOT_ZERO)
def test_an_unknown_carbohydrate_is_never_0_g_first(full_db, region, query):
    hit = service.search(query, limit=1, region=region)[0]
    carbohydrate = service.lookup(hit["food"], grams=100)["per_100g"]["carbohydrate_g"]
    assert carbohydrate is None or carbohydrate > 0, f"{query!r}: {hit['food']} {carbohydrate}"


def _values(food: str) -> list[float | None]:
    per_100g = service.lookup(food, grams=100)["per_100g"]
    return [per_100g[k] for k in ("kcal", "carbohydrate_g", "protein_g", "fat_g")]


def _close(a: list[float | None], b: list[float | None]) -> bool:
    return None not in a + b and all(abs(x - y) <= max(1.0 if i == 0 else 0.1, 0.02 * max(x, y))
                                     for i, (x, y) in enumerate(zip(a, b)))  # type: ignore[operator]


def test_a_food_in_two_tables_is_not_listed_twice(full_db):
    twice, checked = [], 0
    for region, query, _ in AUDIT:
        names = [h["food"] for h in service.search(query, limit=10, region=region)]
        for name in names:
            plain = _TABLE_SUFFIX_RE.sub("", name)
            if plain != name and plain in names:
                checked += 1
                if _close(_values(name), _values(plain)):
                    twice.append(f"{query!r}: {name} beside {plain}")
    assert checked and twice == []
