"""Glucose beside meals in the app: the AGP and meal-curve charts (chart), the Glucose tab (ui)
and `python -m app glucose ...` (cli). The numbers come from db.glucose; nothing here computes
a metric. It shows what happened: no dosing advice, no prediction.
"""
