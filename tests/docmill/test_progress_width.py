"""`docmill ingest` progress on a real pseudo-terminal: one that reports 0 columns (`script`
without `stty cols`) gets the per-stage lines under `--progress auto` (tqdm would draw every bar
as an empty line there), and bars of a fixed width under `--progress always`; a terminal that
gives its width gets bars."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import sys
import termios
import threading

import pytest

from docmill.cli import main


def _ingest_on_a_pty(monkeypatch, args: list[str], columns: int) -> str:
    """Run `main(args)` with stderr on a new pseudo-terminal of ``columns`` columns (0: no size at
    all, 0 rows too, as `script` makes one); what the terminal received, with its CR LF line ends
    made LF."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    received: list[bytes] = []

    def drain() -> None:  # keep the pty buffer from filling while the ingest writes
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the slave side closed
                return
            if not data:
                return
            received.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    stream = open(slave, "w", encoding="utf-8", buffering=1)  # noqa: SIM115 (closed below)
    assert stream.isatty() and os.get_terminal_size(slave).columns == columns
    monkeypatch.setattr(sys, "stderr", stream)
    try:
        assert main(args) == 0
    finally:
        stream.flush()
        stream.close()
        reader.join(timeout=10)
        os.close(master)
    return b"".join(received).decode("utf-8", "replace").replace("\r\n", "\n")


def test_auto_on_a_terminal_of_0_columns_writes_a_line_per_stage_not_blank_bars(
    small_tree, tmp_path, monkeypatch
):
    err = _ingest_on_a_pty(monkeypatch, ["ingest", str(small_tree), "--index", str(tmp_path / "a")], 0)
    assert "%|" not in err, err
    assert re.search(r"^parse: 5 files in [\d.]+ s", err, re.M), err
    assert re.search(r"^embed with all-MiniLM-L6-v2 \(torch\): \d+ passages in", err, re.M), err
    assert re.search(r"^write: 4 steps in [\d.]+ s", err, re.M), err
    assert re.search(r"^stages: diff [\d.]+ s, parse", err, re.M), err
    assert not any(line.strip("\r ") == "" for line in err.splitlines()), repr(err)


@pytest.mark.parametrize(("progress", "columns"), [("always", 0), ("auto", 100)])
def test_bars_are_drawn_where_asked_and_never_empty(small_tree, tmp_path, monkeypatch, progress, columns):
    args = ["ingest", str(small_tree), "--index", str(tmp_path / "a"), "--progress", progress]
    err = _ingest_on_a_pty(monkeypatch, args, columns)
    drawn = [part for line in err.splitlines() for part in line.split("\r") if "%|" in part]
    assert any(re.search(r"parse: 100%\|.*\| 5/5", part) for part in drawn), repr(err)
    assert any(part.startswith("embed with all-MiniLM-L6-v2 (torch): 100%|") for part in drawn), repr(err)
    width = columns or 80  # a terminal of 0 columns gets bars of a fixed width
    assert all(len(part.rstrip()) <= width for part in drawn), drawn
