"""Glucose readings and events stored with a time outside the years 1970-2100 are deleted (issue
44): a version before the readers refused such times stored them (a Nightscout ``date`` of
-62135596800000 is year 1), and the first zone conversion of one broke that person's later
reports and readings.csv. The readers refuse them now (db.glucose.formats.MIN_YEAR, MAX_YEAR), so
no new one is stored. The downgrade cannot bring them back, and has nothing to undo.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The readers' years, as literals: a migration never changes with the code after it.
_OUTSIDE = "{column} < '1970-01-01 00:00:00' OR {column} >= '2101-01-01 00:00:00'"


def upgrade() -> None:
    op.execute("DELETE FROM glucose_readings WHERE " + _OUTSIDE.format(column="measured_at"))
    op.execute("DELETE FROM glucose_events WHERE " + _OUTSIDE.format(column="at"))


def downgrade() -> None:
    """The deleted rows cannot come back and the schema did not change: nothing to undo."""
