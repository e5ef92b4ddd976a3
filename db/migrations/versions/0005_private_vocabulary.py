"""Typo correction no longer reads foods_fts_vocab: that FTS5 term list holds the words of every
user's own foods, and a correction towards another user's private word would tell that their
food exists. db.fts.vocabulary now collects the public foods' words and the searching user's
own; the unused vocabulary table goes (SQLite only; other databases never had it).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('DROP TABLE IF EXISTS foods_fts_vocab')


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute("CREATE VIRTUAL TABLE foods_fts_vocab USING fts5vocab(foods_fts, 'row')")
