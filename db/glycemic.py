"""The glycemic index of public foods, from both GI files of the seed: ``glycemic_index.csv``
(curated foods, by name) and ``sr28_glycemic_index.csv`` (SR Legacy catalog foods, by NDB
number). The rule that picks each value, and the table and row it cites, are in
db/seed/README.md.

Loaded as its own seed part after the foods (db.session), replacing every public food's GI,
so a database seeded from an older table gets the current one on its next start.
"""

from pathlib import Path

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from db import seed, sr28
from db.errors import SeedError
from db.tables import Food, GlycemicIndex

# The seed part's name (db.tables.SeedVersion): a new table edition gets a new name, and
# every database loads it once.
PART = "glycemic_index_2008"


def rows_by_food_id(session: Session, folder: Path) -> list[dict]:
    """The GI rows of both files for the public foods the database has (one seeded from an
    older or smaller seed lacks some; python -m db check-seed checks the files against each
    other); two rows for one food are a SeedError."""
    folder = Path(folder)
    curated = seed.read_seed(folder).glycemic_index
    catalog, problems = seed.read_sr28_glycemic_index(folder)
    if problems:
        raise SeedError(problems[0])
    public = Food.owner_id.is_(None)
    by_name = dict(session.execute(select(Food.name, Food.id).where(public)).all())
    by_ndb = dict(session.execute(select(Food.source_code, Food.id).where(
        public, Food.fdc_dataset == sr28.DATASET_NAME, Food.source_code.is_not(None))).all())
    out: dict[int, dict] = {}
    for row in curated:
        if row.food in by_name:
            out[by_name[row.food]] = _row(by_name[row.food], row)
    where = folder / seed.SR28_GI_FILE
    for row in catalog:
        food_id = by_ndb.get(row.food)
        if food_id is None:
            continue
        if food_id in out:
            raise SeedError(f"{where}:{row.line}: NDB {row.food} is a curated food that has its "
                            "GI in glycemic_index.csv; give it there only")
        out[food_id] = _row(food_id, row)
    return list(out.values())


def _row(food_id: int, row: seed.SeedGlycemicIndex) -> dict:
    return {"food_id": food_id, "gi": row.gi, "reference": row.reference,
            "gi_source": row.gi_source}


def load(session: Session, folder: Path) -> int:
    """Replace the GI of every public food with the files' values; returns how many foods
    have one. The caller owns the transaction."""
    rows = rows_by_food_id(session, folder)
    public_ids = select(Food.id).where(Food.owner_id.is_(None))
    session.execute(delete(GlycemicIndex).where(GlycemicIndex.food_id.in_(public_ids)),
                    execution_options={"synchronize_session": False})
    if rows:
        session.execute(insert(GlycemicIndex), rows)
    session.expire_all()  # loaded Food rows must not keep their old GI
    return len(rows)
