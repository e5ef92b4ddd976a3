"""Glucose data the glucose tests share: three breakfasts of banana, each followed by a coffee
2 h later on the same curve, so every one of them is flagged (another meal in the window)."""

from datetime import datetime, timedelta

from db import service
from db.glucose import service as glucose

BREAKFAST_DAYS = (1, 2, 3)


def flagged_bananas(user: str) -> list[int]:
    """Readings (UTC) of 3 December days, 100 mg/dL flat, up to 160 at an hour after 08:00 and
    back by 10:00, with a banana logged at 08:00 and an espresso at 10:00 each day; the bananas'
    entry ids."""
    glucose.set_time_zone(user, "UTC")
    rows = ["timestamp,value,unit"]
    for day in BREAKFAST_DAYS:
        for minute in range(-30, 301, 5):
            value = 100 + 60 * max(0.0, 1 - abs(minute - 60) / 60)
            moment = datetime(2026, 12, day, 8, 0) + timedelta(minutes=minute)
            rows.append(f"{moment:%Y-%m-%dT%H:%M:%S},{value:.1f},mg/dL")
    glucose.import_export(user, "\n".join(rows).encode())
    bananas = []
    for day in BREAKFAST_DAYS:
        bananas.append(service.log_meal(user, "banana", eaten_at=datetime(2026, 12, day, 8, 0))["id"])
        service.log_meal(user, "espresso", eaten_at=datetime(2026, 12, day, 10, 0))
    return bananas
