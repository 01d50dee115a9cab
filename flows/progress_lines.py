"""Progress as one log line per stage, where a bar cannot be drawn: `docmill ingest` with stderr not a
terminal (a CI job, a pipe, a log file) and the Prefect flow's run logger.

``StageLines`` is the same ``progress(stage, done, total)`` callback as docmill.progress.StageBars
(stages "parse", "embed", "write:<step>", and "model:<name>" naming the embedding model) and hands
``emit`` one line when a stage ends (the next stage starts, ``end_stage`` or ``close``), e.g.
``parse: 58 files in 12.3 s (4.7 files/s)``. A stage's time runs from its first report to its last.
"""

from __future__ import annotations

import time
from collections.abc import Callable

UNITS = {"parse": "file", "embed": "passage", "write": "step"}  # passages: chunks and their windows


def stage_line(label: str, count: int, unit: str, seconds: float, note: str = "") -> str:
    """``parse: 58 files in 12.3 s (4.7 files/s)``; build steps get their names, not a rate."""
    units = unit if count == 1 else f"{unit}s"
    rate = f"{count / seconds:.1f} {unit}s/s" if seconds > 0 else "instant"
    details = "; ".join(part for part in (rate if unit != "step" else "", note) if part)
    return f"{label}: {count} {units} in {seconds:.1f} s" + (f" ({details})" if details else "")


class StageLines:
    """A ``progress`` callback writing one line per finished stage through ``emit``."""

    def __init__(self, emit: Callable[[str], None], model: str = "") -> None:
        self.emit = emit
        self.model = model
        self._stage: str | None = None
        self._done = 0
        self._steps: list[str] = []
        self._started = self._last = 0.0
        self.timings: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        name, _, step = stage.partition(":")
        if name == "model":
            self.model = step
            return
        now = time.perf_counter()
        if name != self._stage:
            self.end_stage()
            self._stage, self._started, self._steps = name, now, []
        self._done, self._last = max(done, self._done), now
        if step and step not in self._steps:
            self._steps.append(step)

    def end_stage(self) -> None:
        """Write the open stage's line (if one is open)."""
        if self._stage is None:
            return
        name, done = self._stage, self._done
        self._stage, self._done = None, 0
        self.finished(name, done, self._last - self._started, ", ".join(self._steps))

    def finished(self, name: str, count: int, seconds: float, note: str = "") -> None:
        """Write the line of a stage the caller measured (the Prefect executor's mapped tasks)."""
        self.end_stage()
        label = f"embed with {self.model}" if name == "embed" and self.model else name
        self.emit(stage_line(label, count, UNITS.get(name, "item"), seconds, note))
        self.timings[name] = seconds

    def close(self) -> None:
        self.end_stage()
