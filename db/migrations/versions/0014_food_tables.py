"""The food tables beside SR Legacy (issue 40): FNDDS 2021-2023, CoFID 2021 and the Swiss FCDB
V5.3 (db.composition). The dataset check allows 'Swiss FCDB'; a food's source entry may be a
CoFID food name (that copy of CoFID has no codes), so source_code holds up to 200 characters.

SQLite changes a CHECK only by rebuilding the table, and with foreign keys on (a developer's
migration, outside init_db) dropping the old foods table would cascade-delete every serving and
fail on logged meals. Neither change touches what is stored, so on SQLite the table's SQL is
edited in place, by SQLite's documented procedure for such changes (ALTER TABLE, "Making Other
Kinds Of Table Schema Changes": writable_schema, then a new schema_version).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# db.tables' choices as of this revision, written out: a migration must not change when the
# code does.
_V3 = ("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe', "
       "'CoFID')")
_V4 = ("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', 'Recipe', "
       "'CoFID', 'Swiss FCDB')")
_OLD = (("source_code VARCHAR(20),", f"CONSTRAINT ck_foods_fdc_dataset_v3 CHECK ({_V3})"))
_NEW = (("source_code VARCHAR(200),", f"CONSTRAINT ck_foods_fdc_dataset_v4 CHECK ({_V4})"))


def _edit_sqlite_schema(old: tuple[str, ...], new: tuple[str, ...]) -> None:
    conn = op.get_bind()
    sql = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'foods'").scalar()
    for before, after in zip(old, new):
        if sql.count(before) != 1:
            raise RuntimeError(f"foods table: expected {before!r} once in its schema")
        sql = sql.replace(before, after)
    version = conn.exec_driver_sql("PRAGMA schema_version").scalar()
    conn.exec_driver_sql("PRAGMA writable_schema = ON")
    conn.execute(sa.text("UPDATE sqlite_master SET sql = :sql WHERE type = 'table' AND "
                         "name = 'foods'"), {"sql": sql})
    conn.exec_driver_sql(f"PRAGMA schema_version = {version + 1}")
    conn.exec_driver_sql("PRAGMA writable_schema = OFF")
    if conn.exec_driver_sql("PRAGMA integrity_check").scalar() != "ok":
        raise RuntimeError("foods table: the edited schema does not check out")


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _edit_sqlite_schema(_OLD, _NEW)
        return
    with op.batch_alter_table('foods') as batch:
        batch.alter_column('source_code', existing_type=sa.String(length=20),
                           type_=sa.String(length=200), existing_nullable=True)
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v3'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v4'), _V4)


def downgrade() -> None:
    # The Swiss foods and the CoFID rows named by food name go (their servings and aliases
    # cascade); a meal logged with one keeps it (the meal's foreign key restricts), so this
    # stops rather than lose it. FNDDS rows fit the older schema and stay.
    doomed = ("fdc_dataset = 'Swiss FCDB' OR (fdc_dataset = 'CoFID' AND "
              "length(source_code) > 20)")
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f"DELETE FROM foods_fts WHERE rowid IN (SELECT id FROM foods WHERE {doomed})")
    op.execute(f"DELETE FROM foods WHERE {doomed}")
    op.execute("DELETE FROM seed_versions WHERE part IN ('cofid_2021', 'swiss_fcdb_5_3')")
    if op.get_bind().dialect.name == 'sqlite':
        _edit_sqlite_schema(_NEW, _OLD)
        return
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v4'), type_='check')
        batch.create_check_constraint(op.f('ck_foods_fdc_dataset_v3'), _V3)
        batch.alter_column('source_code', existing_type=sa.String(length=200),
                           type_=sa.String(length=20), existing_nullable=True)
