"""models.timing: interleaved rounds, speeds relative to the first run."""

import time

import pytest

from models.timing import interleaved_speeds


def test_a_run_four_times_as_fast_is_measured_at_least_twice_as_fast():
    calls = []

    def run(seconds):
        def call(batch):
            calls.append((seconds, batch))
            time.sleep(seconds * batch)
        return call

    speeds = interleaved_speeds({"slow": run(0.02), "fast": run(0.005)}, (1, 2), rounds=3, calls=2)
    assert [speeds["slow"][b].vs_first for b in (1, 2)] == [1.0, 1.0]
    for batch in (1, 2):
        assert speeds["fast"][batch].vs_first > 2
        assert speeds["slow"][batch].images_per_s < 1 / 0.02
    # Each round warms up and times both runs at each batch: 3 rounds x (1 + 2 calls) x 2 batches each.
    assert sum(1 for s, _ in calls if s == 0.02) == sum(1 for s, _ in calls if s == 0.005) == 18
    # The order alternates round by round, so drift in the machine's load hits both alike.
    firsts = [calls[i][0] for i in range(0, 18, 6)]
    assert firsts == [0.02, 0.005, 0.02]


def test_nothing_to_time_is_an_error():
    with pytest.raises(ValueError, match="at least one run"):
        interleaved_speeds({}, (1,))
