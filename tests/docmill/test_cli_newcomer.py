"""Issue 23: what a newcomer meets on the command line (progress, strict mode on packages, a
failed ingest leaves nothing behind, confidence in text output, filter values checked)."""

from __future__ import annotations

import re

from docmill.cli import main


def test_forced_progress_draws_stage_bars_with_rates_and_the_model_on_stderr(small_tree, tmp_path, capsys):
    index = tmp_path / "idx"
    assert main(["ingest", str(small_tree), "--index", str(index), "--progress", "always"]) == 0
    captured = capsys.readouterr()
    err = captured.err
    assert re.search(r"parse: 100%.*\d+/\d+ \[.*(file/s|s/file)", err), err
    assert re.search(r"embed with all-MiniLM-L6-v2 \(torch\): 100%.*(chunk/s|s/chunk)", err), err
    assert re.search(r"write: 100%.*4/4", err), err
    assert re.search(r"stages: diff [\d.]+ s, parse [\d.]+ s, chunk [\d.]+ s, embed [\d.]+ s, build", err)
    assert "published build" in captured.out  # the summary stays on stdout


def test_progress_is_quiet_off_a_terminal_and_with_json(small_tree, tmp_path, capsys):
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "a")]) == 0
    assert "%|" not in capsys.readouterr().err  # stderr is not a TTY under pytest
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "b"), "--json", "--full-rebuild"]) == 0
    err = capsys.readouterr().err
    assert "%|" not in err and "stages:" not in err
