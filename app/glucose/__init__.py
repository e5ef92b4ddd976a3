"""Glucose beside meals in the app: the AGP and meal-curve charts (chart), the JSON API (api)
and `python -m app glucose ...` (cli); the Glucose tab is app.ui.glucose. The numbers come
from db.glucose; nothing here computes a metric. It shows what happened: no dosing advice, no
prediction.
"""
