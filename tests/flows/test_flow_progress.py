"""The Prefect flow logs one line per stage (count, time, rate) through its run logger and honours
ignore files unless ``ignore_files=False`` (issue 23), against a real ephemeral Prefect API."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _log_lines(flow_run_id) -> list[str]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    async def read():
        async with get_client() as client:
            return await client.read_logs(
                log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id]))
            )

    return [log.message for log in asyncio.run(read())]


def _logs_until(flow_run_id, last: str, seconds: float = 60) -> str:
    """The run's log, read back once the line holding ``last`` arrived (logs reach the API in batches)."""
    deadline = time.monotonic() + seconds
    while True:
        logs = "\n".join(_log_lines(flow_run_id))
        if last in logs or time.monotonic() > deadline:
            return logs
        time.sleep(0.5)


def test_the_flow_logs_a_line_per_stage_and_honours_ignore_files(prefect_api, tree_copy, tmp_path):
    from flows.ingest import ingest

    (tree_copy / ".gitignore").write_text("notes/\n", encoding="utf-8")
    state = ingest(sources=[str(tree_copy)], index=str(tmp_path / "idx"), return_state=True)
    assert state.is_completed(), state
    report = state.result()
    assert report["ignored"] == {"files": 0, "folders": 1} and report["documents"] == 3
    logs = _logs_until(state.state_details.flow_run_id, "ignored by .gitignore")
    assert re.search(r"^parse: 3 files in [\d.]+ s \(([\d.]+ files/s|instant)\)$", logs, re.M), logs
    assert re.search(r"^embed with all-MiniLM-L6-v2 \(torch\): \d+ passages in [\d.]+ s \(", logs, re.M), logs
    for stage in ("plan", "chunk", "write", "publish"):
        assert re.search(rf"^{stage}: done in [\d.]+ s$", logs, re.M), logs
    assert "1 folder(s) ignored by .gitignore/.docmillignore" in logs

    state = ingest(
        sources=[str(tree_copy)], index=str(tmp_path / "all"), ignore_files=False, return_state=True
    )
    assert state.result()["documents"] == 5
