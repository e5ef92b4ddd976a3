"""Failed sign-ins counted in the database: the backoff after wrong passwords (per user name and
per client address) lived in each app process's memory, so N processes behind a load balancer
allowed N times the guesses and a restart forgot them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('sign_in_failures',
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.Column('last_failed_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('failures >= 1', name=op.f('ck_sign_in_failures_failures_positive')),
    sa.PrimaryKeyConstraint('key_hash', name=op.f('pk_sign_in_failures'))
    )
    op.create_index(op.f('ix_sign_in_failures_last_failed_at'), 'sign_in_failures', ['last_failed_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_sign_in_failures_last_failed_at'), table_name='sign_in_failures')
    op.drop_table('sign_in_failures')
