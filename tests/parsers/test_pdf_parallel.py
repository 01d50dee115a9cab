"""parsers.pdf.parser with helper processes (parsers.pdf.pool): the same document as a serial parse, the
page and time limits kept, and no helper left behind when its parent dies. Real PDFs, real
processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf import pool as pdf_pool
from parsers.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
PAGES = 14
SERIAL = ParseOptions(ocr=False, pdf_workers=1)
PARALLEL = ParseOptions(ocr=False, pdf_workers=2)
needs_two_cpus = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="pdf_workers is capped at the cpu count"
)


def build_long(path: Path, pages: int = PAGES) -> Path:
    """Running header and page numbers, a heading per page, a ruled table split over pages 5-6,
    two columns on page 9, a bold sub-heading every third page."""
    sys.path.insert(0, str(ROOT / "samples"))
    from make_pdfs import draw_table

    width, height = letter
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    rows = [["Week", "Task", "Tool"], *[[str(i), f"task number {i}", f"tool {i % 3}"] for i in range(1, 13)]]
    for page in range(1, pages + 1):
        c.setFont("Helvetica", 9)
        c.drawString(72, height - 40, "Long Handbook - Revision 2")
        c.drawRightString(width - 72, 36, f"Page {page} of {pages}")
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, height - 90, f"{page} Chapter about item {page}")
        c.setFont("Helvetica", 11)
        y = height - 120
        if page == 6:
            y = draw_table(c, 72, y, [80, 200, 120], [rows[0], *rows[7:]]) - 20
        for line in range(12 if page != 9 else 0):
            c.drawString(72, y, f"Paragraph text of page {page}, line {line}: service, repair, calibra-")
            y -= 15
            if line % 4 == 3:
                y -= 10
        if page % 3 == 0:
            c.setFont("Helvetica-Bold", 11)
            c.drawString(72, y - 10, f"{page}.1 Notes")
            c.setFont("Helvetica", 11)
            c.drawString(72, y - 30, "tion of the lamp is due after transport.")
        if page == 5:
            draw_table(c, 72, 330, [80, 200, 120], rows[:7])
        if page == 9:
            for i in range(10):
                c.drawString(72, y - 15 * i, f"Left column line {i} on ridge lamps.")
                c.drawString(330, y - 15 * i, f"Right column line {i} on valley lamps.")
        c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def long_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_long(tmp_path_factory.mktemp("pdf") / "long.pdf")


def parse_file(path: Path, options: ParseOptions) -> ParsedDocument:
    docs = pdf.parse(SourceFile.read(path, path.name), options)
    assert len(docs) == 1
    return docs[0]


@needs_two_cpus
def test_parallel_gives_the_serial_document(long_pdf: Path) -> None:
    assert pdf._helpers(PAGES, PARALLEL) == 1 and pdf._helpers(PAGES, SERIAL) == 0
    serial = parse_file(long_pdf, SERIAL)
    parallel = parse_file(long_pdf, PARALLEL)
    assert parallel.to_json() == serial.to_json()
    # the cross-page steps saw every page: furniture gone, the split table merged, headings levelled
    texts = [b.text for b in serial.blocks]
    assert not any("Long Handbook" in t or t.startswith("Page ") for t in texts)
    tables = [b for b in serial.blocks if b.kind == "table"]
    assert len(tables) == 1 and tables[0].metadata["pages"] == [5, 6] and len(tables[0].table.rows) == 13
    assert {b.page for b in serial.blocks} == set(range(1, PAGES + 1))
    again = parse_file(long_pdf, PARALLEL)  # a reused (warm) helper
    assert again.to_json() == serial.to_json()


@needs_two_cpus
def test_parallel_respects_pdf_max_pages(long_pdf: Path) -> None:
    options = ParseOptions(ocr=False, pdf_workers=2, pdf_max_pages=7)
    assert pdf._helpers(7, options) == 1
    doc = parse_file(long_pdf, options)
    assert {b.page for b in doc.blocks} == set(range(1, 8))
    assert doc.metadata["truncated"] == f"page limit: parsed 7 of {PAGES} pages (pdf_max_pages)"
    serial = parse_file(long_pdf, ParseOptions(ocr=False, pdf_workers=1, pdf_max_pages=7))
    assert doc.to_json() == serial.to_json()


@needs_two_cpus
def test_parallel_respects_the_time_limit(long_pdf: Path) -> None:
    with pytest.raises(SkipFile, match=f"time limit: parsed 0 of {PAGES} pages"):
        parse_file(long_pdf, ParseOptions(ocr=False, pdf_workers=2, pdf_seconds_per_file=1e-9))
    # a limit hit mid-document keeps a prefix of the pages and says so (timing on a shared machine
    # varies: aim for about a third of a serial parse, accept a limit hit before page 1)
    started = time.monotonic()
    parse_file(long_pdf, SERIAL)
    limit = (time.monotonic() - started) / 3
    try:
        doc = parse_file(long_pdf, ParseOptions(ocr=False, pdf_workers=2, pdf_seconds_per_file=limit))
    except SkipFile as exc:
        assert str(exc).startswith("time limit: parsed 0 of ")
        return
    pages = sorted({b.page for b in doc.blocks})
    assert pages == list(range(1, len(pages) + 1))
    if len(pages) < PAGES:
        assert doc.metadata["truncated"].startswith(f"time limit: parsed {len(pages)} of {PAGES} pages")


def test_chunks_shrink_towards_the_end() -> None:
    assert pdf_pool.chunk_size(500, 2) == 8
    assert pdf_pool.chunk_size(40, 2) == 5
    assert pdf_pool.chunk_size(12, 2) == 1
    assert pdf_pool.chunk_size(3, 2) == 1


_ORPHAN_SCRIPT = """
import sys, time
from parsers.pdf import pool as pdf_pool
from parsers.options import ParseOptions
helper = pdf_pool._Helper()
assert helper.conn.recv() == ("ready",)
helper.conn.send(("open", open(sys.argv[1], "rb").read(), ParseOptions(ocr=False)))
for _ in range(50):  # far more work than the test waits for: the helper is busy when we die
    helper.conn.send(("pages", 0, {pages}))
print(helper.process.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.is_file() and "zombie" in status.read_text())


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_busy_helper_dies_with_its_parent(long_pdf: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _ORPHAN_SCRIPT.format(pages=PAGES), str(long_pdf)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert parent.stdout is not None
    helper_pid = int(parent.stdout.readline())
    time.sleep(1.0)  # let it get going on the pages
    assert _alive(helper_pid)
    parent.send_signal(signal.SIGKILL)  # what parsers.guard does to a worker over its time limit
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(helper_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(helper_pid), "helper outlived its parent"


def _helpers_by_parent() -> dict[int, int]:
    """{helper pid: parent pid (its argv[4])} of the running pdf_pool helpers."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
        except OSError:
            continue
        if len(argv) >= 5 and b"parsers.pdf.pool import serve" in argv[2] and _alive(int(entry.name)):
            found[int(entry.name)] = int(argv[4])
    return found


@needs_two_cpus
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_guard_timeout_leaves_no_helper(tmp_path: Path) -> None:
    from parsers import guard

    # 400 pages parsed in 1.3 s on a quiet machine (2 workers): 1,200 keep the limit well short of the
    # parse however quiet the machine, so the guard must kill it.
    path = build_long(tmp_path / "longer.pdf", pages=1200)
    options = ParseOptions(ocr=False, pdf_workers=2, seconds_per_file=1.5)
    seen: dict[int, int] = {}
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.update(_helpers_by_parent())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with pytest.raises(SkipFile, match="time limit: parsing took longer than 1.5 s"):
            guard.parse_with_limits(SourceFile.read(path, path.name), options)
    finally:
        stop.set()
        watcher.join()
    ours = {pid for pid, parent in seen.items() if not _alive(parent)}  # helpers of the killed worker
    assert ours, "the guard worker started no helper before its time limit"
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in ours) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in ours), "a helper outlived the guard worker"
