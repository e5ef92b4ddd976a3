"""Insulin and carbohydrate events beside the glucose readings (issue 43): the doses and
carbohydrate entries that Clarity, LibreView and Nightscout exports carry, drawn on the curve.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.tables' choices as of this revision, written out: a migration must not change when the
# code does.
_KINDS = "kind IN ('bolus', 'basal', 'carbs')"
_AMOUNT = "amount > 0 AND (amount <= 100.0 OR (kind = 'carbs' AND amount <= 1000.0))"
_SOURCES = "source IN ('clarity', 'libreview', 'nightscout', 'csv')"


def upgrade() -> None:
    op.create_table(
        'glucose_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(), nullable=False),
        sa.Column('kind', sa.String(length=5), nullable=False),
        sa.Column('amount', sa.Double(), nullable=False),
        sa.Column('source', sa.String(length=12), nullable=False),
        sa.CheckConstraint(_KINDS, name=op.f('ck_glucose_events_kind')),
        sa.CheckConstraint(_AMOUNT, name=op.f('ck_glucose_events_amount_range')),
        sa.CheckConstraint(_SOURCES, name=op.f('ck_glucose_events_source')),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE',
                                name=op.f('fk_glucose_events_user_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_glucose_events')),
        sa.UniqueConstraint('user_id', 'source', 'kind', 'at', name=op.f('uq_glucose_events_user_id_source_kind_at')),
    )
    op.create_index('ix_glucose_events_user_time', 'glucose_events', ['user_id', 'at'])


def downgrade() -> None:
    op.drop_index('ix_glucose_events_user_time', table_name='glucose_events')
    op.drop_table('glucose_events')
