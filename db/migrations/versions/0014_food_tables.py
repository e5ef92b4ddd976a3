"""The food tables beside SR Legacy (issue 40): FNDDS 2021-2023, CoFID 2021 and the Swiss FCDB
V5.3 (db.composition). The dataset check allows 'Swiss FCDB'; a food's source entry may be a
CoFID food name (that copy of CoFID has no codes), so source_code holds up to 200 characters.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.models' choices as of this revision, written out: a migration must not change when the
# code does.
_V3 = ("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe', "
       "'CoFID')")
_V4 = ("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe', "
       "'CoFID', 'Swiss FCDB')")


def upgrade() -> None:
    with op.batch_alter_table('foods') as batch:
        batch.alter_column('source_code', existing_type=sa.String(length=20),
                           type_=sa.String(length=200), existing_nullable=True)
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v3'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v4'), _V4)


def downgrade() -> None:
    # The Swiss foods and the CoFID rows named by food name go (their servings and aliases
    # cascade); a meal logged with one keeps it (the meal's foreign key restricts), so this
    # stops rather than lose it. FNDDS rows fit the older schema and stay.
    doomed = ("fdc_dataset = 'Swiss FCDB' OR (fdc_dataset = 'CoFID' AND "
              "length(source_code) > 20)")
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f"DELETE FROM foods_fts WHERE rowid IN (SELECT id FROM foods WHERE {doomed})")
    op.execute(f"DELETE FROM foods WHERE {doomed}")
    op.execute("DELETE FROM seed_versions WHERE part IN ('cofid_2021', 'swiss_fcdb_5_3')")
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v4'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v3'), _V3)
        batch.alter_column('source_code', existing_type=sa.String(length=200),
                           type_=sa.String(length=20), existing_nullable=True)
