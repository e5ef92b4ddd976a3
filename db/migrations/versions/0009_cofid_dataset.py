"""Foods from the UK's CoFID (McCance and Widdowson's composition of foods integrated dataset):
the dataset check allows 'CoFID' beside USDA's datasets (db/cofid.py loads them).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_V2 = "fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe')"
_V3 = ("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe', "
       "'CoFID')")


def upgrade() -> None:
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v2'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v3'), _V3)


def downgrade() -> None:
    # The CoFID foods go with the dataset (their servings and aliases cascade); a meal logged
    # with one keeps it (the meal's foreign key restricts), so this stops rather than lose it.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute("DELETE FROM foods_fts WHERE rowid IN "
                   "(SELECT id FROM foods WHERE fdc_dataset = 'CoFID')")
    op.execute("DELETE FROM foods WHERE fdc_dataset = 'CoFID'")
    op.execute("DELETE FROM seed_versions WHERE part = 'cofid'")
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v3'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v2'), _V2)
