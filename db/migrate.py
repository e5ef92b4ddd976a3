"""Alembic, configured in code so migrations run from an installed package (no alembic.ini
needed; db/alembic.ini exists only for developers running the ``alembic`` command).
"""

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")


def alembic_config(connection: Connection | None = None) -> Config:
    """A Config for db/migrations; with ``connection``, env.py migrates over that connection
    (inside whatever transaction the caller holds)."""
    config = Config()
    # ConfigParser interpolation: a literal % in the path must be doubled.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def upgrade(connection: Connection, revision: str = "head") -> None:
    command.upgrade(alembic_config(connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    command.downgrade(alembic_config(connection), revision)


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at (None for an empty database)."""
    return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "db/migrations has no revisions"
    return head
