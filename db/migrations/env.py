"""Alembic environment for foodtag.

Called with a connection (db.migrate passes one in config.attributes) it migrates over it,
inside the caller's transaction. Called from the alembic command, it uses db.session's
engine, so FOODTAG_DB_URL and the SQLite settings apply there too.
"""

from alembic import context
from sqlalchemy.engine import Connection

from db.fts import include_name
from db.tables import Base


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: autogenerate copy-and-move "batch" operations.
        render_as_batch=True,
        compare_type=True,
        # db.session makes SQLite transactions real (it emits BEGIN itself), so its DDL is
        # transactional too; alembic assumes otherwise for SQLite.
        transactional_ddl=True,
        # The FTS5 tables are created by raw SQL in a migration, not from the models.
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    if context.is_offline_mode():
        from db.session import database_url

        context.configure(url=database_url(), target_metadata=Base.metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = context.config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    from db.session import get_engine

    with get_engine().connect() as conn:
        run_on(conn)


main()
