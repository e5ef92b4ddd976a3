"""Label spaces the project ships: ImageNet's food classes (the default model) and Food-101.

Labels are snake_case so the same dish has one spelling in every label space
(ImageNet ``hotdog`` and Food-101 ``hot_dog`` both become ``hot_dog``).
"""

# ImageNet-1k class index -> label. Classes 924-969 are ImageNet's food block, less
# 958 (hay) and 968 (cup); 987 (corn) and 998 (ear, i.e. ear of corn) sit elsewhere.
IMAGENET_FOOD_CLASSES: dict[int, str] = {
    924: "guacamole",
    925: "consomme",
    926: "hot_pot",
    927: "trifle",
    928: "ice_cream",
    929: "ice_pop",  # "ice lolly, lolly, lollipop, popsicle"
    930: "french_bread",  # "French loaf"
    931: "bagel",
    932: "pretzel",
    933: "cheeseburger",
    934: "hot_dog",
    935: "mashed_potato",
    936: "cabbage",  # "head cabbage"
    937: "broccoli",
    938: "cauliflower",
    939: "zucchini",
    940: "spaghetti_squash",
    941: "acorn_squash",
    942: "butternut_squash",
    943: "cucumber",
    944: "artichoke",
    945: "bell_pepper",
    946: "cardoon",
    947: "mushroom",
    948: "granny_smith_apple",
    949: "strawberry",
    950: "orange",
    951: "lemon",
    952: "fig",
    953: "pineapple",
    954: "banana",
    955: "jackfruit",
    956: "custard_apple",
    957: "pomegranate",
    959: "carbonara",
    960: "chocolate_sauce",
    961: "dough",
    962: "meat_loaf",
    963: "pizza",
    964: "pot_pie",
    965: "burrito",
    966: "red_wine",
    967: "espresso",
    969: "eggnog",
    987: "corn",
    998: "corn_on_the_cob",  # ImageNet "ear, spike, capitulum"
}

# ImageNet's prepared dishes (and the dish look-alikes spaghetti squash and eggnog) that a merged model
# leaves to its food model (models/merge.py): on Food-101's val photos they took the top answer from
# the food model on half of all photos (merged top-1 24.4% against the student's 45.2% alone), soups
# going to "consomme" and "hot pot", pies to "pot pie". Without them 42.0% (2026-12-04,
# docs/experiments.md). Carbonara, burrito and cheeseburger are Food-101 dishes under other names.
IMAGENET_DISHES: frozenset[str] = frozenset({
    "consomme", "hot_pot", "trifle", "pot_pie", "meat_loaf", "carbonara", "burrito", "cheeseburger",
    "chocolate_sauce", "eggnog", "spaghetti_squash",
})

FOOD101_CLASSES: tuple[str, ...] = (
    "apple_pie", "baby_back_ribs", "baklava", "beef_carpaccio", "beef_tartare",
    "beet_salad", "beignets", "bibimbap", "bread_pudding", "breakfast_burrito",
    "bruschetta", "caesar_salad", "cannoli", "caprese_salad", "carrot_cake",
    "ceviche", "cheesecake", "cheese_plate", "chicken_curry", "chicken_quesadilla",
    "chicken_wings", "chocolate_cake", "chocolate_mousse", "churros", "clam_chowder",
    "club_sandwich", "crab_cakes", "creme_brulee", "croque_madame", "cup_cakes",
    "deviled_eggs", "donuts", "dumplings", "edamame", "eggs_benedict",
    "escargots", "falafel", "filet_mignon", "fish_and_chips", "foie_gras",
    "french_fries", "french_onion_soup", "french_toast", "fried_calamari", "fried_rice",
    "frozen_yogurt", "garlic_bread", "gnocchi", "greek_salad", "grilled_cheese_sandwich",
    "grilled_salmon", "guacamole", "gyoza", "hamburger", "hot_and_sour_soup",
    "hot_dog", "huevos_rancheros", "hummus", "ice_cream", "lasagna",
    "lobster_bisque", "lobster_roll_sandwich", "macaroni_and_cheese", "macarons", "miso_soup",
    "mussels", "nachos", "omelette", "onion_rings", "oysters",
    "pad_thai", "paella", "pancakes", "panna_cotta", "peking_duck",
    "pho", "pizza", "pork_chop", "poutine", "prime_rib",
    "pulled_pork_sandwich", "ramen", "ravioli", "red_velvet_cake", "risotto",
    "samosa", "sashimi", "scallops", "seaweed_salad", "shrimp_and_grits",
    "spaghetti_bolognese", "spaghetti_carbonara", "spring_rolls", "steak", "strawberry_shortcake",
    "sushi", "tacos", "takoyaki", "tiramisu", "tuna_tartare",
    "waffles",
)

# Every label any model this project ships or trains (on Food-101) can emit.
ALL_SHIPPED_LABELS: tuple[str, ...] = tuple(
    sorted(set(IMAGENET_FOOD_CLASSES.values()) | set(FOOD101_CLASSES))
)


def human_name(label: str) -> str:
    """``hot_dog`` -> ``hot dog``: how a label is shown to people."""
    return label.replace("_", " ")
