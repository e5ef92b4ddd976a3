"""The public food tables foodtag's foods come from: how each names its entries, how it is
cited, the attribution its licence requires, and whose words name its foods.

``Food.fdc_dataset`` holds a table's ``name``; ``Food.source_code`` its entry (``entry``
says what that is). A card shows the citation, and the attribution where a licence asks
for one (db.cards).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Dataset:
    """One food composition table."""

    name: str  # as stored in Food.fdc_dataset
    title: str  # as a card shows it
    entry: str  # what Food.source_code holds for its rows, as a card names it
    citation: str
    attribution: str | None  # what the licence requires wherever its rows are shown
    names_region: str | None  # whose words name its foods (db.search.region_handicap)


SR_LEGACY = Dataset(
    "SR Legacy", "USDA SR Legacy", "NDB",
    "U.S. Department of Agriculture, Agricultural Research Service. USDA National Nutrient "
    "Database for Standard Reference, Release 28 (2016)", None, "US")
FNDDS = Dataset(
    "FNDDS", "USDA FNDDS 2021-2023", "food code",
    "U.S. Department of Agriculture, Agricultural Research Service. Food and Nutrient "
    "Database for Dietary Studies 2021-2023", None, "US")
FOUNDATION = Dataset(
    "Foundation", "USDA Foundation Foods", "FDC ID",
    "U.S. Department of Agriculture, Agricultural Research Service. FoodData Central: "
    "Foundation Foods", None, "US")
COFID = Dataset(
    "CoFID", "UK CoFID 2021 (McCance and Widdowson)", "food name",
    "Public Health England (now OHID). McCance and Widdowson's Composition of Foods "
    "Integrated Dataset 2021",
    "Contains public sector information licensed under the Open Government Licence v3.0 "
    "(CoFID 2021)", "UK")
SWISS_FCDB = Dataset(
    "Swiss FCDB", "Swiss Food Composition Database V5.3", "ID",
    "Swiss Food Composition Database V5.3, Federal Food Safety and Veterinary Office FSVO",
    "Swiss Food Composition Database V5.3, Federal Food Safety and Veterinary Office FSVO",
    "DE")

DATASETS: dict[str, Dataset] = {d.name: d for d in (SR_LEGACY, FNDDS, FOUNDATION, COFID,
                                                    SWISS_FCDB)}


def dataset(name: str) -> Dataset | None:
    """The table a food's ``fdc_dataset`` names; None for composites and own foods."""
    return DATASETS.get(name)
