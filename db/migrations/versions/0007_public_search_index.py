"""The search index holds the public foods only: FTS5's bm25 weighs each word by how many indexed
rows hold it, so one user's private foods changed which public foods another user's search kept
(when more than db.fts.MAX_CANDIDATES matched). A user's own foods are now found by the LIKE
query over theirs alone (SQLite only; other databases have no index).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('DELETE FROM foods_fts WHERE rowid IN (SELECT id FROM foods WHERE owner_id IS NOT NULL)')


def downgrade() -> None:
    # Revision 0006's code searched own foods through the index: give them their rows back.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(
            "INSERT INTO foods_fts (rowid, name, aliases, common_names, description) "
            "SELECT f.id, f.name, "
            "  trim(coalesce((SELECT group_concat(a.alias, '; ') FROM food_aliases a "
            "                 WHERE a.food_id = f.id), '') || '; ' || "
            "       coalesce((SELECT group_concat(replace(l.label, '_', ' '), '; ') "
            "                 FROM food_labels l WHERE l.food_id = f.id), ''), '; '), "
            "  coalesce(f.common_names, ''), f.fdc_description FROM foods f "
            "WHERE f.owner_id IS NOT NULL"
        )
