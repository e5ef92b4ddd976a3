"""A flagged meal kept in the per-food glucose figures by the person's choice (issue 43): a flag
on each meal entry, off for every existing entry, so every flagged meal stays out until the
person keeps it.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: no rebuild of meal_entries (with SQLite's foreign keys on, a rebuild's
    # DROP TABLE would cascade to the kept photos of the entries).
    op.add_column('meal_entries', sa.Column('keep_in_food_figures', sa.Boolean(), nullable=False,
                                            server_default=sa.false()))


def downgrade() -> None:
    op.drop_column('meal_entries', 'keep_in_food_figures')
