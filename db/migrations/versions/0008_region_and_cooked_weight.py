"""A region per user (US, UK, DE: the exchange unit taught there and the vocabulary search
prefers; existing users are US, whose 15 g choice was everyone's default) and a recipe's
optional cooked weight (its values per 100 g are then of the dish as weighed after cooking).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.nutrition.REGIONS as of this revision, written out: a migration must not change when the
# code does.
_REGIONS = ('US', 'UK', 'DE')


_REGION_CHECK = 'region IN (' + ', '.join(f"'{r}'" for r in _REGIONS) + ')'
_COOKED_CHECK = 'recipe_cooked_g IS NULL OR recipe_cooked_g > 0'


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # ADD COLUMN with its CHECK: no table rebuild, which with foreign keys on would
        # cascade-delete every user's meals and every food's servings.
        op.execute("ALTER TABLE users ADD COLUMN region VARCHAR(2) DEFAULT 'US' NOT NULL "
                   f"CONSTRAINT ck_users_region CHECK ({_REGION_CHECK})")
        op.execute("ALTER TABLE foods ADD COLUMN recipe_cooked_g DOUBLE "
                   f"CONSTRAINT ck_foods_recipe_cooked_positive CHECK ({_COOKED_CHECK})")
        return
    op.add_column('users', sa.Column('region', sa.String(length=2), nullable=False, server_default='US'))
    op.create_check_constraint(op.f('ck_users_region'), 'users', _REGION_CHECK)
    op.add_column('foods', sa.Column('recipe_cooked_g', sa.Double(), nullable=True))
    op.create_check_constraint(op.f('ck_foods_recipe_cooked_positive'), 'foods', _COOKED_CHECK)


def downgrade() -> None:
    # DROP COLUMN takes a column's own CHECK with it (SQLite 3.35+ and PostgreSQL alike). But
    # once a later revision has rebuilt foods (0009 does, on its way down too), SQLite holds the
    # cooked-weight CHECK as a table constraint, which DROP COLUMN refuses: one rebuild drops both.
    if op.get_bind().dialect.name == 'sqlite':
        with op.batch_alter_table('foods') as batch:
            batch.drop_constraint(op.f('ck_foods_recipe_cooked_positive'), type_='check')
            batch.drop_column('recipe_cooked_g')
    else:
        op.drop_column('foods', 'recipe_cooked_g')
    op.drop_column('users', 'region')
