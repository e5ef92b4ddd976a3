"""PostgreSQL only: trigram (pg_trgm) GIN indexes for the search's candidate query, which
matches each query word anywhere inside a food's name, aliases, model labels, common names and
description (``LIKE '%word%'``): without them each word read every food (71-249 ms per query);
with them 3-28 ms. SQLite searches public foods through its FTS5 index (0003) and needs none.

fastupdate = off: a new row goes into the index at once rather than into a pending list that
every search must read until the next vacuum. The catalog is written at seeding only, so the
slower inserts cost nothing that matters.

The expressions are the ones db.fts's PostgreSQL query uses, byte for byte (an expression
index serves only its own expression).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (index name, table, indexed expression). Names start with "trgm_": db.fts.include_name
# keeps them out of the model comparison (the models cannot express them).
_INDEXES = (
    ('trgm_foods_name_key', 'foods', 'name_key'),
    ('trgm_foods_description', 'foods', 'lower(fdc_description)'),
    ('trgm_foods_common_names', 'foods', 'lower(common_names)'),
    ('trgm_food_aliases_alias_key', 'food_aliases', 'alias_key'),
    ('trgm_food_labels_label', 'food_labels', 'label'),
)


def upgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    # pg_trgm ships with PostgreSQL (contrib) and is a trusted extension (13+): a database
    # owner may create it.
    op.execute('CREATE EXTENSION IF NOT EXISTS pg_trgm')
    for name, table, expression in _INDEXES:
        op.execute(f'CREATE INDEX {name} ON {table} USING gin (({expression}) gin_trgm_ops) '
                   'WITH (fastupdate = off)')


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for name, _table, _expression in _INDEXES:
        op.execute(f'DROP INDEX IF EXISTS {name}')
    # The extension stays: other schemas of the database may use it.
