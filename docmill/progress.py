"""Progress of `docmill ingest` on a terminal: one tqdm bar per stage (files parsed, chunks embedded,
build steps written) with its rate and ETA, and the time each stage took at the end. Off a
terminal, StageLines (flows.progress_lines): one line per stage with its count, time and rate.

Fed by flows.pipeline.run_ingest's ``progress(stage, done, total)`` callback; imported by the CLI
only (tqdm stays out of ``import docmill``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, Any

from flows.progress_lines import UNITS
from flows.progress_lines import StageLines as StageLines

# forced bars on a terminal that reports no size: tqdm reads it as -1 rows and draws nothing
FALLBACK_COLUMNS, FALLBACK_ROWS = 80, 24


def terminal_columns(stream: IO[str]) -> int | None:
    """The width of the terminal ``stream`` writes to; None when it is not a terminal, 0 when the
    terminal does not say (a pseudo-terminal without a size, e.g. `script` without `stty cols`),
    where tqdm would draw every bar as an empty line."""
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 0


class StageBars:
    """A ``progress`` callback drawing a tqdm bar per stage on ``stream`` (stderr by default).

    ``model`` names the embedding model (and backend) on the embed bar. Stages are "parse",
    "embed" and "write:<step>" (one "write" bar whose postfix names the step)."""

    def __init__(self, model: str, stream: IO[str] | None = None) -> None:
        self.model = model
        self.stream = stream or sys.stderr
        self._bar: Any = None
        self._stage: str | None = None
        self._started = 0.0
        self.timings: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        name, _, step = stage.partition(":")
        if name == "model":  # the ingest resolved the model (model "auto" after chunking)
            self.model = step
            return
        if name != self._stage:
            self._open(name, total)
        bar = self._bar
        if bar.total != total:
            bar.total = total
        if step:
            bar.set_postfix_str(step, refresh=False)
        bar.update(max(done - bar.n, 0))

    def _open(self, name: str, total: int) -> None:
        from tqdm import tqdm

        self.close()
        label = f"embed with {self.model}" if name == "embed" else name
        self._stage, self._started = name, time.perf_counter()
        sized = terminal_columns(self.stream) != 0  # else a fixed width, never an empty bar
        self._bar = tqdm(
            total=total,
            desc=label,
            unit=UNITS.get(name, "it"),
            file=self.stream,
            dynamic_ncols=sized,
            ncols=None if sized else FALLBACK_COLUMNS,
            nrows=None if sized else FALLBACK_ROWS,
            mininterval=0.5,
            leave=True,
        )

    def close(self) -> None:
        """End the open bar (its final line keeps the stage's count, rate and time)."""
        if self._bar is not None:
            self._bar.close()
            self.timings[self._stage or "?"] = time.perf_counter() - self._started
            self._bar, self._stage = None, None


def timings_line(timings: dict[str, float]) -> str:
    """``stages: diff 0.0 s, parse 1.2 s, ...`` from IngestReport.timings."""
    return "stages: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items())
