"""Page-level parallelism for one PDF: helper processes parse page ranges while the caller parses
pages itself, and the results come back in page order (``parallel_pages``).

Only the per-page work (pdfminer layout, tables, words -> segments) runs in helpers; everything
that must see the whole document (running headers/footers, heading levels, tables continued on
the next page, OCR with its one model) stays with the caller, which receives compact per-page
results (``PageContent``: segments and tables, pickled over a private socketpair between two
processes of this program, as in parsers.guard).

Scheduling is dynamic: the caller hands each ready helper up to two ranges at a time, sized
down towards the end of the document so that nobody waits long for a straggler, and between
its own pages collects what the helpers sent. A helper that has not started yet costs nothing
but a core for its imports (the caller does not wait for it). A range a helper could not parse
(an unexpected error, a dead helper) is parsed again by the caller, so errors surface exactly as
in a serial parse.

Helpers are fresh interpreters (``python -c``; never ``fork``: the caller may hold torch threads),
reused between documents and replaced after ``DOCS_PER_HELPER``. They exit by themselves when the
caller's process goes away (parsers.guard kills its worker on a timeout): a watchdog thread
notices the parent change, so a helper busy inside a long page is not orphaned either.
"""

from __future__ import annotations

import atexit
import collections
import io
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from parsers.options import ParseOptions

DOCS_PER_HELPER = 200  # replace a helper after this many documents (pdfminer caches, leaks)
_MAX_CHUNK = 8  # pages per request, fewer near the end of the document
_IN_FLIGHT = 2  # requests queued per helper, so it never idles waiting for the next one
_WATCHDOG_SECONDS = 0.2

# Outcome of one page: a parsers.pdf.page_reader.PageContent, or a PageError for a page pdfminer
# could not read.
Outcome = Any
ReadPage = Callable[[int], Outcome]


class PageError(str):
    """Why one page could not be read ("ExcType: message"); the other pages are kept."""


# --- helper process side ------------------------------------------------------------------------


def serve(fd: int, parent: int, read_outcome: Callable[[Any, int, ParseOptions], Outcome]) -> None:
    """Helper loop on socket ``fd``: ("open", data, options) | ("pages", start, stop) -> reply
    ("pages", start, outcomes) or ("failed", start, stop, traceback) | ("close",): forget the
    document (an idle helper holds no file). ``read_outcome(pdf, index, options)`` reads one page
    (parsers.pdf.parser's, passed in by the helper program so this module never imports its caller)."""
    import pdfplumber

    from parsers.guard import apply_process_limits

    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    conn = Connection(fd)
    conn.send(("ready",))
    pdf: Any = None
    options = ParseOptions()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] in ("open", "close") and pdf is not None:
            pdf.close()
            pdf = None
        if message[0] == "open":
            _, data, options = message
            apply_process_limits(options)
            try:
                pdf = pdfplumber.open(io.BytesIO(data))
            except Exception:  # noqa: BLE001 - the caller parses the ranges itself and reports errors
                pdf = None
            del data
        elif message[0] == "pages":
            _, start, stop = message
            try:
                if pdf is None:
                    raise RuntimeError("the document did not open in the helper")
                reply: tuple[Any, ...] = (
                    "pages",
                    start,
                    [read_outcome(pdf, i, options) for i in range(start, stop)],
                )
            except Exception:  # noqa: BLE001 - re-done by the caller, where the error surfaces as usual
                reply = ("failed", start, stop, traceback.format_exc())
            conn.send(reply)


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCHDOG_SECONDS)
    os._exit(1)


# The helper program: this module's loop around parsers.pdf.parser's page reader.
_HELPER_CODE = (
    "import sys; from parsers.pdf.parser import read_outcome; from parsers.pdf.pool import serve; "
    "serve(int(sys.argv[1]), int(sys.argv[2]), read_outcome)"
)


# --- caller side --------------------------------------------------------------------------------


class _Helper:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        package_root = str(Path(__file__).resolve().parent.parent)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", _HELPER_CODE, str(theirs.fileno()), str(os.getpid())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        self.conn = Connection(ours.detach())
        self.ready = False
        self.docs = 0
        self.in_flight: collections.deque[tuple[int, int]] = collections.deque()

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.conn.close()


_idle: list[_Helper] = []
_idle_lock = threading.Lock()


def _acquire(count: int) -> list[_Helper]:
    helpers: list[_Helper] = []
    with _idle_lock:
        while _idle and len(helpers) < count:
            helper = _idle.pop()
            if helper.alive():
                helpers.append(helper)
            else:
                helper.kill()
    while len(helpers) < count:
        helpers.append(_Helper())
    return helpers


def _release(helper: _Helper) -> None:
    if helper.in_flight or helper.docs >= DOCS_PER_HELPER or not helper.alive():
        helper.kill()  # busy with a page nobody will read, worn out, or dead
        return
    if helper.ready and not _send(helper, ("close",)):
        helper.kill()
        return
    with _idle_lock:
        _idle.append(helper)


@atexit.register
def shutdown_helpers() -> None:
    """Stop the idle helpers (they would also exit on their own when this process goes away)."""
    with _idle_lock:
        helpers, _idle[:] = list(_idle), []
    for helper in helpers:
        helper.kill()


def chunk_size(remaining: int, processes: int) -> int:
    """Pages per request: large while much is left, down to 1 well before the end (a helper holds
    ``_IN_FLIGHT`` requests, and the caller may wait for them once its own pages are done)."""
    return max(1, min(_MAX_CHUNK, remaining // (4 * processes)))


def idle_helpers() -> int:
    """Helpers started for an earlier document and waiting (they cost no start-up)."""
    with _idle_lock:
        return len(_idle)


def parallel_pages(
    data: bytes, stop: int, options: ParseOptions, helpers: int, deadline: float, read_page: ReadPage
) -> Iterator[tuple[int, Outcome]]:
    """(index, outcome) for pages 0..stop-1 in order, read by the caller (``read_page(index)``) and
    ``helpers`` helper processes; stops early, without error, once ``deadline`` (monotonic) passes."""
    pool = _acquire(helpers)
    gone: list[_Helper] = []
    for helper in list(pool):
        if helper.ready and not _open(helper, data, options):  # reused: "ready" came for an earlier doc
            pool.remove(helper)
            gone.append(helper)
    done: dict[int, Outcome] = {}
    mine: list[int] = []  # pages handed back by a helper: the caller reads them
    next_page = emitted = 0
    try:
        while emitted < stop:
            while emitted in done:
                yield emitted, done.pop(emitted)
                emitted += 1
            if emitted >= stop or time.monotonic() > deadline:
                return
            for helper in list(pool):
                while _ready([helper.conn], 0):
                    if not _receive(helper, data, options, done, mine):
                        pool.remove(helper)
                        gone.append(helper)
                        break
            for helper in pool:
                while helper.ready and len(helper.in_flight) < _IN_FLIGHT and next_page < stop:
                    size = chunk_size(stop - next_page, helpers + 1)
                    if not _send(helper, ("pages", next_page, next_page + size)):
                        break  # its death is noticed (EOF) on the next receive
                    helper.in_flight.append((next_page, next_page + size))
                    next_page += size
            if mine or next_page < stop:
                if mine:
                    index = mine.pop(0)
                else:
                    index, next_page = next_page, next_page + 1
                done[index] = read_page(index)
            elif emitted not in done:
                waiting = [h.conn for h in pool if h.in_flight]
                if not waiting:  # cannot happen: a page is neither done, queued nor handed back
                    raise RuntimeError(f"page {emitted + 1} was lost by the page scheduler")
                _ready(waiting, max(0.0, deadline - time.monotonic()))
    finally:
        for helper in pool + gone:
            _release(helper)


def _open(helper: _Helper, data: bytes, options: ParseOptions) -> bool:
    helper.docs += 1
    return _send(helper, ("open", data, options))


def _send(helper: _Helper, message: tuple[Any, ...]) -> bool:
    try:
        helper.conn.send(message)
    except OSError:  # the helper died; its in-flight pages are handed back when its EOF is read
        helper.ready = False
        return False
    return True


def _ready(conns: list[Connection], timeout: float) -> list[Any]:
    return wait(conns, timeout)  # type: ignore[arg-type]


def _receive(
    helper: _Helper, data: bytes, options: ParseOptions, done: dict[int, Outcome], mine: list[int]
) -> bool:
    """Handle one message from ``helper``; False when it is gone (its pages go to the caller)."""
    try:
        message = helper.conn.recv()
    except (EOFError, OSError):
        for start, stop in helper.in_flight:
            mine.extend(range(start, stop))
        mine.sort()
        helper.in_flight.clear()
        helper.ready = False
        helper.kill()
        return False
    if message[0] == "ready":
        helper.ready = _open(helper, data, options)
    elif message[0] == "pages":
        _, start, outcomes = message
        helper.in_flight.popleft()
        done.update(zip(range(start, start + len(outcomes)), outcomes, strict=True))
    else:  # "failed": the caller reads the range itself, and sees the error first hand
        _, start, stop, _trace = message
        helper.in_flight.popleft()
        mine.extend(range(start, stop))
        mine.sort()
    return True
