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


def upgrade() -> None:
    with op.batch_alter_table('users') as batch:
        batch.add_column(sa.Column('region', sa.String(length=2), nullable=False, server_default='US'))
        batch.create_check_constraint(
            op.f('ck_users_region'), 'region IN (' + ', '.join(f"'{r}'" for r in _REGIONS) + ')')
    with op.batch_alter_table('foods') as batch:
        batch.add_column(sa.Column('recipe_cooked_g', sa.Double(), nullable=True))
        batch.create_check_constraint(
            op.f('ck_foods_recipe_cooked_positive'), 'recipe_cooked_g IS NULL OR recipe_cooked_g > 0')


def downgrade() -> None:
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_recipe_cooked_positive'), type_='check')
        batch.drop_column('recipe_cooked_g')
    with op.batch_alter_table('users') as batch:
        batch.drop_constraint(op.f('ck_users_region'), type_='check')
        batch.drop_column('region')
