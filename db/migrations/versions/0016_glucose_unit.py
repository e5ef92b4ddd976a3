"""The unit a person reads glucose in (issue 43): mg/dL or mmol/L, NULL (every existing user)
meaning their region's (db.glucose.units.REGION_UNITS).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.glucose.units.UNITS as of this revision, written out: a migration must not change when the
# code does.
_UNIT_CHECK = "glucose_unit IS NULL OR glucose_unit IN ('mg/dL', 'mmol/L')"


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # ADD COLUMN with its CHECK: no table rebuild, which with foreign keys on would
        # cascade-delete every user's meals.
        op.execute("ALTER TABLE users ADD COLUMN glucose_unit VARCHAR(6) "
                   f"CONSTRAINT ck_users_glucose_unit CHECK ({_UNIT_CHECK})")
        return
    op.add_column('users', sa.Column('glucose_unit', sa.String(length=6), nullable=True))
    op.create_check_constraint(op.f('ck_users_glucose_unit'), 'users', _UNIT_CHECK)


def downgrade() -> None:
    # DROP COLUMN takes the column's own CHECK with it (SQLite 3.35+ and PostgreSQL alike).
    op.drop_column('users', 'glucose_unit')
