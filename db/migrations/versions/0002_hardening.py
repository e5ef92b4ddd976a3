"""Hardening: admin role and per-user model choice on users, the model_changes audit table,
and CHECK constraints that keep non-finite or absurd nutrient values out of meal entries.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The same list and bound as db.tables.MEAL_VALUE_COLUMNS / MAX_MEAL_VALUE, written out here
# because a migration must not change when the models do.
_MEAL_VALUES = ('kcal', 'carbohydrate_g', 'available_carbohydrate_g', 'sugars_g', 'fiber_g',
                'protein_g', 'fat_g', 'saturated_fat_g', 'sodium_mg', 'glycemic_load')
_MAX_MEAL_VALUE = 10_000_000


def upgrade() -> None:
    with op.batch_alter_table('users') as batch:
        batch.add_column(sa.Column('is_admin', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column('model', sa.String(length=200), nullable=True))
    op.create_table('model_changes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('changed_at', sa.DateTime(), nullable=False),
    sa.Column('changed_by', sa.String(length=64), nullable=False),
    sa.Column('scope', sa.String(length=10), nullable=False),
    sa.Column('from_model', sa.String(length=200), nullable=True),
    sa.Column('to_model', sa.String(length=200), nullable=True),
    sa.CheckConstraint("scope IN ('server', 'user')", name=op.f('ck_model_changes_scope')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_model_changes'))
    )
    # SQLite stores NaN as NULL, so the ORM refuses NaN before it gets here (MealEntry's
    # validator); these checks refuse infinities and absurd sizes on every backend, and NaN
    # on PostgreSQL (where NaN compares greater than any number).
    with op.batch_alter_table('meal_entries', recreate='always') as batch:
        for column in _MEAL_VALUES:
            batch.create_check_constraint(
                op.f(f'ck_meal_entries_{column}_range'),
                f'{column} IS NULL OR ({column} >= 0 AND {column} <= {_MAX_MEAL_VALUE})',
            )


def downgrade() -> None:
    with op.batch_alter_table('meal_entries', recreate='always') as batch:
        for column in _MEAL_VALUES:
            batch.drop_constraint(op.f(f'ck_meal_entries_{column}_range'), type_='check')
    op.drop_table('model_changes')
    with op.batch_alter_table('users') as batch:
        batch.drop_column('model')
        batch.drop_column('is_admin')
