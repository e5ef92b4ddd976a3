"""The consensus metrics against a peer: iglu-python (the Python port of the R package IGLU)
computes them on the same series; ours must agree within 0.1 (ours are shown to one decimal)."""

from __future__ import annotations

import io
from datetime import date

import numpy as np
import pandas as pd
import pytest
from db_support import alice, db_url  # noqa: F401  (fixtures)

from benchmarks.bench_glucose import clarity_export
from db.glucose import metrics
from db.glucose import service as glucose

iglu = pytest.importorskip("iglu_python")  # in the test extra; skipped only outside it


def peer(times: pd.DatetimeIndex, values: np.ndarray) -> dict[str, float]:
    frame = pd.DataFrame({"id": "p", "time": times, "gl": values})
    first = lambda table, column: float(table[column].iloc[0])  # noqa: E731
    below, above = iglu.below_percent(frame, targets_below=[54, 70]), iglu.above_percent(frame, targets_above=[180, 250])
    return {"mean_mg_dl": first(iglu.mean_glu(frame), "mean"), "gmi_percent": first(iglu.gmi(frame), "GMI"),
            "cv_percent": first(iglu.cv_glu(frame), "CV"),
            "time_in_range": first(iglu.in_range_percent(frame, target_ranges=[[70, 180]]), "in_range_70_180"),
            "below_54": first(below, "below_54"), "below_70": first(below, "below_70"),
            "above_180": first(above, "above_180"), "above_250": first(above, "above_250"),
            "gri": first(iglu.gri(frame), "GRI"), "active_percent": first(iglu.active_percent(frame), "active_percent")}


def ours_as_peer(report: dict) -> dict[str, float]:
    return {"mean_mg_dl": report["mean_mg_dl"], "gmi_percent": report["gmi_percent"], "cv_percent": report["cv_percent"],
            "time_in_range": report["time_in_range"], "below_54": report["time_below_54"],
            "below_70": report["time_below_54"] + report["time_54_69"],
            "above_180": report["time_181_250"] + report["time_above_250"], "above_250": report["time_above_250"],
            "gri": report["gri"], "active_percent": report["active_percent"]}


def series(seed: int, days: int = 14, step_min: int = 5, gaps: bool = False) -> tuple[pd.DatetimeIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = days * 24 * 60 // step_min
    times = pd.date_range("2026-11-01", periods=n, freq=f"{step_min}min")
    values = np.clip(140 + 70 * np.sin(np.arange(n) / (30 + seed)) + rng.normal(0, 30, n), 40, 400).round()
    if gaps:  # two sensor changes, half a day each
        keep = np.ones(n, bool)
        keep[n // 3:n // 3 + n // (2 * days)] = keep[2 * n // 3:2 * n // 3 + n // (2 * days)] = False
        times, values = times[keep], values[keep]
    return times, values


@pytest.mark.parametrize("seed, step_min, gaps", [(0, 5, False), (1, 5, True), (2, 15, False), (3, 15, True)])
def test_generated_series_agree_with_iglu(seed, step_min, gaps):
    times, values = series(seed, step_min=step_min, gaps=gaps)
    minutes = [(t - times[0]).total_seconds() / 60 for t in times]
    period = 14 * 24 * 60
    ours = metrics.consensus_metrics([float(v) for v in values], minutes, period_minutes=period,
                                     interval_minutes=metrics.sampling_interval_minutes(minutes))
    theirs = peer(times, values)
    for key, value in ours_as_peer(ours).items():
        assert value == pytest.approx(theirs[key], abs=0.1), key


def test_a_clarity_export_through_the_app_agrees_with_iglu(alice):
    """Real-format data end to end: imported, reported by the app, and the same readings given
    to iglu."""
    glucose.set_time_zone(alice, "UTC")
    glucose.import_export(alice, clarity_export(14, date(2026, 11, 17)))
    report = glucose.report(alice, days=14, end=date(2026, 11, 30))
    out = io.StringIO()
    readings = glucose.export_readings_csv(alice, out)
    table = pd.read_csv(io.StringIO(out.getvalue()))
    cgm = table[table["kind"] == "cgm"]
    assert readings == len(table) and len(cgm) == report["readings"]
    theirs = peer(pd.to_datetime(cgm["measured_at_utc"]), cgm["mg_dl"].to_numpy())
    for key, value in ours_as_peer(report).items():
        if key != "active_percent":  # iglu counts from the first reading, the report the 14 days asked for
            assert value == pytest.approx(theirs[key], abs=0.1), key
