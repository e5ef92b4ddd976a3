"""A fake clock for tests of code that times itself: it moves only when the test says so."""

import time


class FakeClock:
    """Stands in for the `time` module of the code under test (monkeypatch its `time`): perf_counter
    reads the fake time, sleep and advance move it; anything else is the real module's."""

    def __init__(self, start: float = 1000.0):
        self.now = start

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    advance = sleep

    def __getattr__(self, name):
        return getattr(time, name)
