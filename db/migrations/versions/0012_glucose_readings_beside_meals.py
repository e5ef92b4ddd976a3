"""Glucose beside meals (issue 32): each user's imported CGM and meter readings, and the
person's time zone (exports without a zone are read in it; meals are placed on the curve by it).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.tables' choices as of this revision, written out: a migration must not change when the
# code does.
_KINDS = "kind IN ('cgm', 'scan', 'meter')"
_SOURCES = "source IN ('clarity', 'libreview', 'nightscout', 'csv')"


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        # ADD COLUMN: no table rebuild, which with foreign keys on would cascade-delete meals.
        op.execute("ALTER TABLE users ADD COLUMN time_zone VARCHAR(64) DEFAULT 'UTC' NOT NULL")
    else:
        op.add_column('users', sa.Column('time_zone', sa.String(length=64), nullable=False,
                                         server_default='UTC'))
    op.create_table(
        'glucose_readings',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('measured_at', sa.DateTime(), nullable=False),
        sa.Column('mg_dl', sa.Double(), nullable=False),
        sa.Column('kind', sa.String(length=5), nullable=False),
        sa.Column('source', sa.String(length=12), nullable=False),
        sa.Column('reported_as', sa.String(length=4), nullable=True),
        sa.CheckConstraint('mg_dl >= 10.0 AND mg_dl <= 1000.0',
                           name=op.f('ck_glucose_readings_mg_dl_range')),
        sa.CheckConstraint(_KINDS, name=op.f('ck_glucose_readings_kind')),
        sa.CheckConstraint(_SOURCES, name=op.f('ck_glucose_readings_source')),
        sa.CheckConstraint("reported_as IS NULL OR reported_as IN ('Low', 'High')",
                           name=op.f('ck_glucose_readings_reported_as')),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE',
                                name=op.f('fk_glucose_readings_user_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_glucose_readings')),
        sa.UniqueConstraint('user_id', 'source', 'kind', 'measured_at',
                            name=op.f('uq_glucose_readings_user_id_source_kind_measured_at')),
    )
    op.create_index('ix_glucose_readings_user_time', 'glucose_readings', ['user_id', 'measured_at'])


def downgrade() -> None:
    op.drop_index('ix_glucose_readings_user_time', table_name='glucose_readings')
    op.drop_table('glucose_readings')
    op.drop_column('users', 'time_zone')
