"""PostgreSQL id sequences after rows were written with explicit ids.

A SERIAL/IDENTITY column's sequence only advances when the database picks the id. Code that
writes ids itself (the catalog's bulk load, ``migrate-sqlite-to``) leaves the sequence behind,
and the next ordinary insert would collide with an existing row. SQLite picks max(id) + 1 and
needs nothing.
"""

from sqlalchemy import Integer, text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from db.tables import Base


def sync(bind: Connection | Session) -> None:
    """Move every table's id sequence to the table's largest id (no-op off PostgreSQL)."""
    connection = bind.connection() if isinstance(bind, Session) else bind
    if connection.dialect.name != "postgresql":
        return
    for table in Base.metadata.sorted_tables:
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or not isinstance(keys[0].type, Integer):
            continue
        column = keys[0].name
        # pg_get_serial_sequence is NULL for a key without a sequence (glycemic_index.food_id),
        # and setval(NULL, ...) is NULL too. is_called = false when empty: next id is 1.
        connection.execute(text(
            f"SELECT setval(pg_get_serial_sequence(:table, :column), "
            f"coalesce(max({column}), 1), max({column}) IS NOT NULL) FROM {table.name}"
        ), {"table": table.name, "column": column})
