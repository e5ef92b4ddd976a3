"""Food and meal-log database: USDA-sourced nutrition per food, servings, glycemic index,
users and their meal entries.

Public entry points: ``db.session`` (engine, ``init_db``, ``session_scope``), ``db.service``
(everything the app calls), ``db.nutrition`` (the derived-value maths) and ``python -m db``.
Nothing here opens a database at import time.
"""
