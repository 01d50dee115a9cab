"""parsers.guard.parse_with_limits: the hard per-file wall clock in a reusable worker process.

Real worker processes throughout; the "slow parser" is a real file that takes markdown-it a
second or more (a 4 MB nested list), and the crash is a real SIGKILL of the worker."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from parsers import guard
from parsers.guard import ParserCrashed, parse_with_limits
from parsers.model import SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_source
from parsers.source import SourceFile

GUIDE = SourceFile(Path("guide.md"), "guide.md", b"# Guide\n\n## Install\n\nRun the installer.\n", "0" * 64)
# ~4 MB that markdown-it needs a second or more for (pure-Python scan of every character).
SLOW = SourceFile(
    Path("slow.md"), "slow.md", b"".join(b"  " * (i % 400) + b"- item\n" for i in range(20_000)), "1" * 64
)


def test_same_documents_as_in_process() -> None:
    assert parse_with_limits(GUIDE) == parse_source(GUIDE, ParseOptions())


def test_skip_reasons_come_back_unchanged() -> None:
    empty = SourceFile(Path("e.md"), "e.md", b"", "2" * 64)
    with pytest.raises(SkipFile, match="empty file"):
        parse_with_limits(empty)


def test_overrun_is_a_skip_with_the_limit_and_the_next_file_still_parses() -> None:
    started = time.perf_counter()
    with pytest.raises(SkipFile, match=r"time limit: parsing took longer than 0.2 s \(seconds_per_file\)"):
        parse_with_limits(SLOW, ParseOptions(seconds_per_file=0.2))
    assert time.perf_counter() - started < 10  # killed, not waited for
    assert parse_with_limits(GUIDE)[0].title == "Guide"


def test_a_worker_that_dies_costs_one_file() -> None:
    parse_with_limits(GUIDE)  # leaves one idle worker, the one the next call takes
    with guard._idle_lock:
        pid = guard._idle[-1].process.pid
    killer = threading.Timer(0.3, os.kill, (pid, signal.SIGKILL))
    killer.start()
    try:
        with pytest.raises(ParserCrashed, match=r"parser process died \(exit code -9\)"):
            parse_with_limits(SLOW, ParseOptions(seconds_per_file=120))
    finally:
        killer.cancel()
    assert parse_with_limits(GUIDE)[0].title == "Guide"


def test_concurrent_callers_get_their_own_workers() -> None:
    sources = [
        SourceFile(Path(f"d{i}.md"), f"d{i}.md", f"# Doc {i}\n\ntext {i}\n".encode(), f"{i:064d}")
        for i in range(6)
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        titles = list(pool.map(lambda s: parse_with_limits(s)[0].title, sources))
    assert titles == [f"Doc {i}" for i in range(6)]


# Run in the daemonic child by the builtin exec (this test module is not importable there).
IN_DAEMON = """
from pathlib import Path
from parsers.guard import parse_with_limits
from parsers.source import SourceFile
source = SourceFile(Path("guide.md"), "guide.md", b"# Guide\\n\\ntext\\n", "0" * 64)
queue.put(parse_with_limits(source)[0].title)
"""


def test_works_inside_a_daemonic_process() -> None:
    """Dask process workers are daemonic; multiprocessing would refuse them children."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=exec, args=(IN_DAEMON, {"queue": queue}), daemon=True)
    process.start()
    try:
        assert queue.get(timeout=120) == "Guide"
    finally:
        process.join(30)


def test_pil_pixel_limit_follows_the_options() -> None:
    from PIL import Image

    saved = Image.MAX_IMAGE_PIXELS
    try:
        guard.apply_process_limits(ParseOptions(max_image_pixels=1234))
        assert Image.MAX_IMAGE_PIXELS == 1234
    finally:
        Image.MAX_IMAGE_PIXELS = saved


def test_workers_are_recycled_after_files_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "FILES_PER_WORKER", 2)
    guard.shutdown_workers()
    parse_with_limits(GUIDE)
    with guard._idle_lock:
        first = guard._idle[-1].process.pid
    parse_with_limits(GUIDE)  # second file for this worker: retired instead of kept
    parse_with_limits(GUIDE)
    with guard._idle_lock:
        assert guard._idle[-1].process.pid != first


def test_a_parser_error_carries_the_workers_traceback() -> None:
    # a source whose data is not bytes: parse_source raises in the real worker process
    broken = SourceFile(Path("x.md"), "x.md", None, "3" * 64)  # type: ignore[arg-type]
    with pytest.raises(ParserCrashed, match="TypeError") as caught:
        parse_with_limits(broken)
    # where it was raised, not where the parent re-raised it: the ingest log shows this
    assert "parsers/registry.py" in caught.value.worker_traceback
    assert "in parse_source" in caught.value.worker_traceback
    assert parse_with_limits(GUIDE)[0].title == "Guide"
