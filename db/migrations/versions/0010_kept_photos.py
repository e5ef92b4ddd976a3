"""Meal photos kept with consent: a per-user setting (off for everyone), the kept photos'
table, and households (joined with one-time invite codes) whose members share them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('households',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_households'))
    )
    # A plain ADD COLUMN: no rebuild of users, which with SQLite's foreign keys on would
    # cascade-delete every user's meals, foods and sessions.
    op.add_column('users', sa.Column('keep_photos', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table('household_members',
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('household_id', sa.Integer(), nullable=False),
    sa.Column('joined_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['household_id'], ['households.id'], name=op.f('fk_household_members_household_id_households'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_household_members_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', name=op.f('pk_household_members'))
    )
    op.create_index(op.f('ix_household_members_household_id'), 'household_members', ['household_id'], unique=False)
    op.create_table('household_invites',
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('household_id', sa.Integer(), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('expires_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_household_invites_created_by_users'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['household_id'], ['households.id'], name=op.f('fk_household_invites_household_id_households'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('code_hash', name=op.f('pk_household_invites'))
    )
    op.create_index(op.f('ix_household_invites_created_by'), 'household_invites', ['created_by'], unique=False)
    op.create_index(op.f('ix_household_invites_household_id'), 'household_invites', ['household_id'], unique=False)
    op.create_table('kept_photos',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('entry_id', sa.Integer(), nullable=True),
    sa.Column('token', sa.String(length=32), nullable=False),
    sa.Column('food_name', sa.String(length=200), nullable=False),
    sa.Column('labelled', sa.Boolean(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['meal_entries.id'], name=op.f('fk_kept_photos_entry_id_meal_entries'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_kept_photos_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_photos')),
    sa.UniqueConstraint('token', name=op.f('uq_kept_photos_token'))
    )
    op.create_index(op.f('ix_kept_photos_entry_id'), 'kept_photos', ['entry_id'], unique=False)
    op.create_index(op.f('ix_kept_photos_user_id'), 'kept_photos', ['user_id'], unique=False)


def downgrade() -> None:
    # The rows go; photo files already written stay in the photos folder (delete it by hand).
    op.drop_index(op.f('ix_kept_photos_user_id'), table_name='kept_photos')
    op.drop_index(op.f('ix_kept_photos_entry_id'), table_name='kept_photos')
    op.drop_table('kept_photos')
    op.drop_index(op.f('ix_household_invites_household_id'), table_name='household_invites')
    op.drop_index(op.f('ix_household_invites_created_by'), table_name='household_invites')
    op.drop_table('household_invites')
    op.drop_index(op.f('ix_household_members_household_id'), table_name='household_members')
    op.drop_table('household_members')
    op.drop_column('users', 'keep_photos')
    op.drop_table('households')
