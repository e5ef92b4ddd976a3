"""models.timing: interleaved rounds, speeds relative to the first run."""

import pytest
from clock_support import FakeClock

from models import timing
from models.timing import Speed, interleaved_speeds


def test_a_run_four_times_as_fast_is_measured_four_times_as_fast(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(timing, "time", clock)
    calls = []

    def run(seconds):
        def call(batch):
            calls.append((seconds, batch))
            clock.sleep(seconds * batch)
        return call

    speeds = interleaved_speeds({"slow": run(0.02), "fast": run(0.005)}, (1, 2), rounds=3, calls=2)
    for batch in (1, 2):
        assert speeds["slow"][batch] == Speed(pytest.approx(50.0), 1.0)  # 1 image per 0.02 s
        assert speeds["fast"][batch] == Speed(pytest.approx(200.0), pytest.approx(4.0))
    # Each round warms up and times both runs at each batch: 3 rounds x (1 + 2 calls) x 2 batches each.
    assert sum(1 for s, _ in calls if s == 0.02) == sum(1 for s, _ in calls if s == 0.005) == 18
    # The order alternates round by round, so drift in the machine's load hits both alike.
    firsts = [calls[i][0] for i in range(0, 18, 6)]
    assert firsts == [0.02, 0.005, 0.02]


def test_a_noisy_round_moves_the_median_not_the_ratio(monkeypatch):
    """A round in which the machine was twice as slow for both runs leaves their ratio at 4."""
    clock = FakeClock()
    monkeypatch.setattr(timing, "time", clock)
    load = iter([1] * 6 + [2] * 6 + [1] * 6)  # per call (3 per run and round): round 2 at half speed

    def run(seconds):
        return lambda batch: clock.sleep(seconds * batch * next(load))

    speeds = interleaved_speeds({"slow": run(0.02), "fast": run(0.005)}, (1,), rounds=3, calls=2)
    assert speeds["slow"][1].images_per_s == pytest.approx(50.0)  # the median round, not the mean (41.7)
    assert speeds["fast"][1] == Speed(pytest.approx(200.0), pytest.approx(4.0))


def test_nothing_to_time_is_an_error():
    with pytest.raises(ValueError, match="at least one run"):
        interleaved_speeds({}, (1,))
