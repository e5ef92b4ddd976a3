"""Shared state for several app processes: sign-in sessions (token hashes with their expiry),
server-wide settings (the default model) and the owners of generated downloads, all of which
lived in each process's memory before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('sign_in_sessions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(), nullable=False),
    sa.Column('expires_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('expires_at > created_at', name=op.f('ck_sign_in_sessions_expires_after_created')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_sign_in_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sign_in_sessions')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_sign_in_sessions_token_hash'))
    )
    op.create_index(op.f('ix_sign_in_sessions_user_id'), 'sign_in_sessions', ['user_id'], unique=False)
    op.create_index(op.f('ix_sign_in_sessions_expires_at'), 'sign_in_sessions', ['expires_at'], unique=False)
    op.create_table('server_settings',
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('value', sa.String(length=200), nullable=False),
    sa.Column('changed_at', sa.DateTime(), nullable=False),
    sa.Column('changed_by', sa.String(length=64), nullable=False),
    sa.CheckConstraint("name IN ('default_model')", name=op.f('ck_server_settings_known_name')),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_server_settings'))
    )
    op.create_table('owned_files',
    sa.Column('marker', sa.String(length=32), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_owned_files_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('marker', name=op.f('pk_owned_files'))
    )
    op.create_index(op.f('ix_owned_files_user_id'), 'owned_files', ['user_id'], unique=False)
    # The server default so far was only in model_changes' audit trail (and in the memory of
    # the process that made it): its latest server-scope row becomes the stored setting.
    op.execute(
        "INSERT INTO server_settings (name, value, changed_at, changed_by) "
        "SELECT 'default_model', to_model, changed_at, changed_by FROM model_changes "
        "WHERE id = (SELECT max(id) FROM model_changes WHERE scope = 'server' AND to_model IS NOT NULL)"
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_owned_files_user_id'), table_name='owned_files')
    op.drop_table('owned_files')
    op.drop_table('server_settings')
    op.drop_index(op.f('ix_sign_in_sessions_expires_at'), table_name='sign_in_sessions')
    op.drop_index(op.f('ix_sign_in_sessions_user_id'), table_name='sign_in_sessions')
    op.drop_table('sign_in_sessions')
